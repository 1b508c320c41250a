/*
 * contributions.c -- the measurement behind anon_dp_contribution_bounds
 * (doc/noise.md §11): an anonymization level rewritten, instead of into its
 * releases, into one release of how much its users contribute:
 *
 *   SELECT dp_contribution_histogram(anon_groups, anon_rows, epsilon, 1)
 *   FROM (SELECT count(*) AS anon_groups, max(anon_rows) AS anon_rows
 *         FROM (SELECT uid, keys.., count(*) AS anon_rows
 *               FROM <the level's FROM> WHERE uid IS NOT NULL AND <its WHERE>
 *               GROUP BY uid, keys..) anon_per_partition
 *         GROUP BY uid) anon_per_user
 *
 * One row per user reaches the building block, so adding or removing a
 * user changes one count of each of its two histograms.  The per-partition
 * level is the rewrite's own (build_bounding.c), without partials and
 * without the row cap (the raw rows are what is measured); its private
 * inputs are marked as the rewrite marks them.  The level must be the whole
 * statement: its result is the histogram row, not the level's columns.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "utils/fmgroids.h"

#include "anonymizer/build.h"
#include "anonymizer/contributions.h"
#include "catalog.h"
#include "guard/marks.h"
#include "query_nodes.h"

Query *
build_contribution_measurement(anon_plan *plan, double epsilon)
{
	Query	   *per_partition;
	Query	   *per_user = new_select();
	Query	   *measured = new_select();
	TargetEntry *rows;
	int			rti;

	plan->releases = NIL;		/* no partial: the rows are counted */
	plan->row_cap = 0;			/* every row, as the data holds them */
	per_partition = two_step_per_user(plan);
	rows = add_column(per_partition, (Expr *) call_aggregate(F_COUNT_, NIL, true, NULL),
					  "anon_rows");
	per_partition->hasAggs = true;
	mark_private_inputs(per_partition);

	rti = add_subquery(per_user, per_partition, "anon_per_partition");
	add_column(per_user, (Expr *) call_aggregate(F_COUNT_, NIL, true, NULL), "anon_groups");
	add_column(per_user, (Expr *) call_aggregate(F_MAX_INT8,
												 list_make1(subquery_column(per_partition, rti,
																			rows->resno)),
												 false, NULL), "anon_rows");
	add_group_key(per_user, add_junk_column(per_user, (Expr *) subquery_column(per_partition, rti, 1),
											"anon_uid"), NULL);
	per_user->hasAggs = true;

	rti = add_subquery(measured, per_user, "anon_per_user");
	add_column(measured,
			   (Expr *) call_aggregate(anon_dp_emitted_function(EMIT_CONTRIBUTION_HISTOGRAM),
									   list_make4(subquery_column(per_user, rti, 1),
												  subquery_column(per_user, rti, 2),
												  float8_const(epsilon), int4_const(1)),
									   false, NULL),
			   "anon_contributions");
	measured->hasAggs = true;
	return measured;
}

void
check_measured_level(Query *statement, anon_level *level, int levels)
{
	if (levels != 1 || level->query != statement || level->outer != NIL)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("anon_dp_contribution_bounds measures one anonymization query written on its own"),
				 levels == 1 ? errdetail("The anonymization query is inside an enclosing query.") :
				 errdetail("The statement has %d anonymization queries.", levels),
				 errhint("Pass the anonymization query alone, for example 'SELECT day, ANON_COUNT(*) FROM orders GROUP BY day'.")));
}

void
notice_grouped_by_unit(anon_plan *plan)
{
	ListCell   *lc;

	if (!plan->grouped || plan->selection == SELECTION_PUBLIC)
		return;
	foreach(lc, plan->key_forms)
		if (equal(lfirst(lc), plan->unit))
			ereport(NOTICE,
					(errmsg("every group of this anonymization query holds a single user: it is grouped by the privacy unit"),
					 errdetail("A group is released only when its noisy number of users passes a threshold, about %.0f users here; a group of one user passes it with a probability of at most %g (the delta of the selection), so the query returns no row, or rarely a row of noise.",
							   plan->users_for_half, plan->selection_delta),
					 errhint("Group by a property of the users, or aggregate per user in a subquery first: SELECT n, ANON_COUNT(*) FROM (SELECT uid, count(*) AS n FROM t GROUP BY uid) s GROUP BY n.")));
}
