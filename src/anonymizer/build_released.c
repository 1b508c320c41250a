/*
 * build_released.c -- step 3 of the rewrite (doc/rewriter.md): the released
 * level over the bounded rows, with one building block per release and the
 * selection of each partition, and the partitions that passed tau behind
 * the fence (build.c puts the levels together):
 *
 *   SELECT keys, <building block>(partial, .., epsilon_i, 1) AS anon_release_i ..,
 *          dp_partition_count(epsilon_i, delta, C_u) AS anon_users
 *   FROM <at most C_u per-user rows of each user>
 *   GROUP BY keys
 *
 * The call of a release's building block is made here only: the released
 * level, the leftover row (build_leftover.c) and the noise of a release
 * (release_noise.c) take it from release_block and leftover_block.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "parser/parse_oper.h"

#include "anonymizer/build.h"
#include "catalog.h"
#include "query_nodes.h"

/*
 * The building block of a release over its partial:
 *   block(partial, [fixed argument], arguments after the value, epsilon, contributions)
 * or, with Gaussian noise, block(..., epsilon, delta, C_u).
 */
static Expr *
release_aggregate(anon_plan *plan, anon_release *release, Var *partial)
{
	const anon_kind *kind = release->kind;
	List	   *args = list_make1(cast_to((Expr *) partial, kind->block_argtypes[0]));
	ListCell   *lc;

	if (kind->fixed_arg != NULL)
		args = lappend(args, typed_const(kind->block_argtypes[1], kind->fixed_arg));
	for_each_from(lc, release->call->args, 1)
	{
		Expr	   *arg = (Expr *) copyObject(((TargetEntry *) lfirst(lc))->expr);

		args = lappend(args, cast_to(arg, kind->block_argtypes[list_length(args)]));
	}
	args = lappend(args, float8_const(release->epsilon));
	if (release->gaussian)
		args = lappend(lappend(args, float8_const(release->delta)),
					   int8_const(plan->max_groups));
	else
		args = lappend(args, int4_const(release->values));
	if (list_length(args) != kind->block_nargs + (release->gaussian ? 1 : 0))
		elog(ERROR, "anonymization query: %s takes %d arguments, not %d",
			 kind->block, kind->block_nargs, list_length(args));
	if (release->choose_rows)
		return (Expr *) call_aggregate(anon_dp_emitted_function(EMIT_NTILE_ROWS_ADAPTIVE),
									   args, false, NULL);
	return (Expr *) call_aggregate(release->gaussian ? anon_dp_kind_gaussian_block(kind)
								   : anon_dp_kind_block(kind), args, false, NULL);
}

/*
 * The release whose noisy user count also selects the partition:
 *   dp_count_select(partial, epsilon, delta, C_u, mechanism)
 *   dp_avg_select(partial, lower, upper, epsilon, delta, C_u, mechanism)
 * NULL when the partition is dropped.
 */
static Expr *
selecting_aggregate(anon_plan *plan, anon_release *release, Var *partial)
{
	List	   *tail = list_make4(float8_const(release->epsilon),
								  float8_const(plan->selection_delta),
								  int8_const(plan->max_groups),
								  text_const(dp_selection_name(plan->mechanism)));

	if (release->kind->selects == SELECTS_AVG)
	{
		List	   *args = list_make1(cast_to((Expr *) partial, FLOAT8OID));
		ListCell   *lc;

		for_each_from(lc, release->call->args, 1)
			args = lappend(args, cast_to((Expr *) copyObject(((TargetEntry *) lfirst(lc))->expr),
										 FLOAT8OID));
		return (Expr *) call_aggregate(anon_dp_emitted_function(EMIT_AVG_SELECT),
									   list_concat(args, tail), false, NULL);
	}
	return (Expr *) call_aggregate(anon_dp_emitted_function(EMIT_COUNT_SELECT),
								   lcons(cast_to((Expr *) partial, INT8OID), tail), false, NULL);
}

Aggref *
release_block(anon_plan *plan, anon_release *release, Var *partial)
{
	return (Aggref *) (release == plan->selecting ? selecting_aggregate(plan, release, partial)
					   : release_aggregate(plan, release, partial));
}

/*
 * The leftover row's block of a release: Laplace, never the selecting form
 * (the leftover row has its own user count).
 */
Aggref *
leftover_block(anon_plan *plan, anon_release *release, Var *partial)
{
	if (release->gaussian)
		elog(ERROR, "anonymization query: the leftover partition has Gaussian noise");
	return (Aggref *) release_aggregate(plan, release, partial);
}

/*
 * The noisy user count of a separate selection, or the public partitions'
 * mark: dp_partition_public(listed, C_u), NULL for a key that is not listed.
 */
static Expr *
selection_aggregate(anon_plan *plan, Var *listed)
{
	List	   *args = list_make3(float8_const(plan->user_count_epsilon),
								  float8_const(plan->selection_delta), int8_const(plan->max_groups));

	if (plan->selection == SELECTION_PUBLIC)
		return (Expr *) call_aggregate(anon_dp_emitted_function(EMIT_PARTITION_PUBLIC),
									   list_make2(listed, int8_const(plan->max_groups)),
									   false, NULL);
	if (plan->mechanism == DP_SELECT_LAPLACE)
		return (Expr *) call_aggregate(anon_dp_emitted_function(EMIT_PARTITION_COUNT),
									   args, false, NULL);
	return (Expr *) call_aggregate(anon_dp_emitted_function(EMIT_PARTITION_SELECT),
								   lappend(args, text_const(dp_selection_name(plan->mechanism))),
								   false, NULL);
}

/* Step 3: noisy values and the selection of each partition. */
Query *
build_released(anon_plan *plan, bounded_rows *rows, AttrNumber *users_column)
{
	Query	   *released = new_select();
	int			rti = add_subquery(released, rows->query, rows->alias);
	ListCell   *lc;
	int			i = 0;

	foreach(lc, plan->keys)
	{
		TargetEntry *key = add_column(released,
									  (Expr *) subquery_column(rows->query, rti, rows->first_key + i),
									  psprintf("anon_group_%d", i));

		add_group_key(released, key, (SortGroupClause *) list_nth(plan->level->groupClause, i));
		i++;
	}
	*users_column = 0;
	i = 0;
	foreach(lc, plan->releases)
	{
		anon_release *release = (anon_release *) lfirst(lc);
		Var		   *partial = subquery_column(rows->query, rti, rows->first_partial + i);
		TargetEntry *column;

		column = add_column(released, (Expr *) release_block(plan, release, partial),
							psprintf("anon_release_%d", i));
		if (release == plan->selecting)
			*users_column = column->resno;
		i++;
	}
	if (plan->selection == SELECTION_SEPARATE || plan->selection == SELECTION_PUBLIC)
		*users_column = add_column(released,
								   selection_aggregate(plan, rows->listed ?
													   subquery_column(rows->query, rti, rows->listed) : NULL),
								   "anon_users")->resno;
	released->hasAggs = true;
	return released;
}

/*
 * The released partitions in the order of their keys (the first nkeys
 * columns), whatever order the plan made them in: that order followed the
 * size of the hash tables of the plan, which followed how many rows and
 * partitions the private data had before the threshold, and the order of
 * rows is not noised (a red-team helper read it).  Keys of a type without
 * an ordering leave the order as it is.
 */
void
order_by_keys(Query *thresholded, int nkeys)
{
	List	   *clauses = NIL;
	int			i;

	for (i = 0; i < nkeys; i++)
	{
		TargetEntry *tle = (TargetEntry *) list_nth(thresholded->targetList, i);
		SortGroupClause *clause = makeNode(SortGroupClause);
		Oid			sortop;
		Oid			eqop;
		bool		hashable;

		get_sort_group_operators(exprType((Node *) tle->expr), false, false, false,
								 &sortop, &eqop, NULL, &hashable);
		if (!OidIsValid(sortop) || !OidIsValid(eqop))
			return;
		tle->ressortgroupref = i + 1;
		clause->tleSortGroupRef = i + 1;
		clause->sortop = sortop;
		clause->eqop = eqop;
		clause->nulls_first = false;
		clause->hashable = hashable;
		clauses = lappend(clauses, clause);
	}
	thresholded->sortClause = clauses;
}

/*
 * The released partitions that passed tau (anon_users IS NOT NULL), behind
 * the fence (OFFSET 0): same columns as the released level.
 */
Query *
build_thresholded(Query *released, AttrNumber users_column, int nkeys)
{
	Query	   *thresholded = new_select();
	int			rti = add_subquery(thresholded, released, "anon_released");
	NullTest   *passed = makeNode(NullTest);
	ListCell   *lc;

	foreach(lc, released->targetList)
	{
		TargetEntry *tle = (TargetEntry *) lfirst(lc);

		add_column(thresholded, (Expr *) subquery_column(released, rti, tle->resno),
				   tle->resname);
	}
	passed->arg = (Expr *) subquery_column(released, rti, users_column);
	passed->nulltesttype = IS_NOT_NULL;
	passed->location = -1;
	thresholded->jointree->quals = (Node *) passed;
	thresholded->limitOffset = (Node *) int8_const(0);
	thresholded->limitOption = LIMIT_OPTION_COUNT;
	order_by_keys(thresholded, nkeys);
	return thresholded;
}
