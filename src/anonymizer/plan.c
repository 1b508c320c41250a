/*
 * plan.c -- step 3: what the rewritten level will release, and how.
 *
 * Reads the settings once (epsilon, delta, C_u, the row cap), groups equal
 * ANON_* calls into releases, splits epsilon over them (doc/privacy-model.md)
 * and chooses how contribution bounding keeps at most C_u partitions per
 * user.  Guarantees to the builder: every number it writes into the query.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "utils/lsyscache.h"
#include "utils/typcache.h"

#include "anonymizer/pipeline.h"
#include "dp/dp_params.h"
#include "dp_errors.h"
#include "settings.h"

/* Equal calls (same aggregate, same arguments) share one noisy value. */
static List *
distinct_releases(List *calls)
{
	List	   *releases = NIL;
	ListCell   *lc;

	foreach(lc, calls)
	{
		anon_call  *call = (anon_call *) lfirst(lc);
		anon_release *release = NULL;
		ListCell   *lr;

		foreach(lr, releases)
			if (equal(((anon_release *) lfirst(lr))->call, call->aggref))
				release = (anon_release *) lfirst(lr);
		if (release != NULL)
			continue;
		release = palloc0(sizeof(anon_release));
		release->kind = call->kind;
		release->call = call->aggref;
		releases = lappend(releases, release);
	}
	return releases;
}

/*
 * With GROUP BY: epsilon / (C_u (N + 1)) for each release and for the user
 * count.  Without: one partition that exists whatever the data, no user
 * count and one per-user row per user, so each release gets epsilon / N.
 */
static void
split_epsilon(anon_plan *plan)
{
	int			n = list_length(plan->releases);
	double		share;
	dp_status	status;
	ListCell   *lc;

	if (plan->grouped)
		status = dp_epsilon_share(plan->epsilon, plan->max_groups, n, &share);
	else
	{
		status = dp_check_epsilon(plan->epsilon);
		share = plan->epsilon / n;
	}
	if (status != DP_OK)
		anon_dp_report_status(status, "this anonymization query", "anon_dp.epsilon");
	foreach(lc, plan->releases)
		((anon_release *) lfirst(lc))->epsilon = share;
	plan->user_count_epsilon = plan->grouped ? share : 0.0;
}

/* anon_dp_pick keeps keys in arrays: each needs an array type, and no domain */
static bool
keys_fit_arrays(List *keys)
{
	ListCell   *lc;

	foreach(lc, keys)
	{
		Oid			type = exprType((Node *) ((TargetEntry *) lfirst(lc))->expr);

		if (!OidIsValid(get_array_type(type)) || get_typtype(type) == TYPTYPE_DOMAIN)
			return false;
	}
	return true;
}

/*
 * The one-pass bounding hashes and compares a key with its type's default
 * hash and equality, which must be GROUP BY's own, and carries it in binary
 * form; an anonymous row type cannot be read back from that form.
 */
static bool
key_fits_one_pass(TargetEntry *tle, SortGroupClause *clause)
{
	Oid			type = exprType((Node *) tle->expr);
	TypeCacheEntry *tc;
	int16		typlen;
	bool		typbyval;
	char		typalign;
	char		typdelim;
	Oid			ioparam;
	Oid			send;
	Oid			recv;

	if (IsA(tle->expr, Const))
		return true;			/* stays out of the bounding */
	if (type == RECORDOID)
		return false;
	tc = lookup_type_cache(type, TYPECACHE_EQ_OPR | TYPECACHE_HASH_EXTENDED_PROC);
	if (!OidIsValid(tc->eq_opr) || tc->eq_opr != clause->eqop ||
		!OidIsValid(tc->hash_extended_proc))
		return false;
	get_type_io_data(type, IOFunc_send, &typlen, &typbyval, &typalign, &typdelim,
					 &ioparam, &send);
	get_type_io_data(type, IOFunc_receive, &typlen, &typbyval, &typalign, &typdelim,
					 &ioparam, &recv);
	return OidIsValid(send) && OidIsValid(recv);
}

static bounding_strategy
choose_bounding(anon_plan *plan)
{
	ListCell   *lc;

	if (!plan->grouped)
		return BOUNDING_NONE;
	if (!keys_fit_arrays(plan->keys))
		return BOUNDING_SORT;
	foreach(lc, plan->level->groupClause)
	{
		SortGroupClause *clause = (SortGroupClause *) lfirst(lc);

		if (!key_fits_one_pass(get_sortgroupclause_tle(clause, plan->level->targetList), clause))
			return BOUNDING_PICK;
	}
	return BOUNDING_ONE_PASS;
}

anon_plan *
plan_anonymization(validated_level *valid)
{
	anon_plan  *plan = palloc0(sizeof(anon_plan));
	Query	   *level = valid->level->query;
	ListCell   *lc;

	plan->level = level;
	plan->unit = valid->unit;
	foreach(lc, level->groupClause)
		plan->keys = lappend(plan->keys,
							 get_sortgroupclause_tle((SortGroupClause *) lfirst(lc),
													 level->targetList));
	plan->key_forms = valid->key_forms;
	plan->grouped = plan->keys != NIL;
	plan->releases = distinct_releases(valid->calls);
	plan->epsilon = anon_dp_epsilon;
	plan->delta = anon_dp_delta;
	plan->max_groups = anon_dp_max_groups_contributed;
	plan->row_cap = anon_dp_max_rows_contributed;
	plan->outer_private_ctes = valid->outer_private_ctes;
	split_epsilon(plan);
	plan->bounding = choose_bounding(plan);
	return plan;
}
