/*
 * build.c -- step 4: the rewritten level, as query trees (doc/rewriter.md):
 *
 *   SELECT <the level's select list over released columns>  -- post-processing
 *   FROM (SELECT * FROM
 *           (SELECT keys, <building block>(partial, .., epsilon_i, 1) AS anon_release_i ..,
 *                   dp_partition_count(epsilon_i, delta, C_u) AS anon_users
 *            FROM <at most C_u per-user rows of each user>  -- build_bounding.c
 *            GROUP BY keys) anon_released
 *         WHERE anon_users IS NOT NULL                       -- tau (with GROUP BY)
 *         OFFSET 0) anon_thresholded                         -- the fence
 *   WHERE <the level's HAVING>
 *   <the level's ORDER BY, LIMIT, OFFSET>
 *
 * The fence: PostgreSQL neither pulls up nor pushes conditions into a
 * subquery with OFFSET, so nothing the analyst wrote (HAVING, the WHERE of an
 * enclosing query or of a view over this one) is evaluated on a partition key
 * before the partition passed tau.  Without GROUP BY there are no keys and
 * the post-processing level reads the released row directly.
 *
 * Guarantees to verify.c: the post-processing level has the level's output
 * columns, and every number of the plan is written where it says.
 */
#include "postgres.h"

#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "rewrite/rewriteManip.h"

#include "anonymizer/build.h"
#include "catalog/pg_type.h"
#include "query_nodes.h"
#include "catalog.h"

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

/* what the level's own expressions become over the released level */
typedef struct substitution
{
	anon_plan  *plan;
	List	   *keys;			/* Expr *: the level's GROUP BY keys */
	List	   *key_columns;	/* Var *: their released columns */
	List	   *releases;		/* anon_release * */
	List	   *release_columns;	/* Var *: their released columns */
} substitution;

/*
 * A release as the level's expressions see it: inside what its true value
 * can be (a noisy count below 0 is shown as 0, a sum of values in [0, U] as
 * at least 0), an ANON_*_CI form with additive noise as its value and 95 %
 * interval (release_noise.c).  Post-processing of the released value, which
 * costs no privacy (doc/rewriter.md, step 4).
 */
static Node *
released_value(anon_plan *plan, anon_release *release, Var *column)
{
	release_range range = release_possible_range(release);
	Expr	   *value = (Expr *) copyObject(column);

	if (release->kind->interval == INTERVAL_ADDITIVE)
		return (Node *) released_interval(plan, release, column, range);
	if (range.least == 0.0)
		value = greatest_of(value, (Expr *) typed_const(column->vartype, "0"));
	if (range.greatest == 0.0)
		value = least_of(value, (Expr *) typed_const(column->vartype, "0"));
	return (Node *) value;
}

static Node *
substitute_mutator(Node *node, substitution *sub)
{
	ListCell   *lc;
	ListCell   *lv;

	if (node == NULL)
		return NULL;
	forboth(lc, sub->keys, lv, sub->key_columns)
		if (equal(node, lfirst(lc)))
			return copyObject(lfirst(lv));
	if (IsA(node, Aggref) && ((Aggref *) node)->agglevelsup == 0)
	{
		forboth(lc, sub->releases, lv, sub->release_columns)
			if (equal(node, ((anon_release *) lfirst(lc))->call))
				return released_value(sub->plan, (anon_release *) lfirst(lc), (Var *) lfirst(lv));
		elog(ERROR, "anonymization query: an aggregate of the level has no release");
	}
	if ((IsA(node, Var) && ((Var *) node)->varlevelsup == 0) || IsA(node, Query))
		elog(ERROR, "anonymization query: an expression of the level is neither grouped nor released");
	return expression_tree_mutator(node, substitute_mutator, (void *) sub);
}

static substitution
released_columns(anon_plan *plan, Query *released, int rti)
{
	substitution sub = {plan, NIL, NIL, plan->releases, NIL};
	ListCell   *lc;
	AttrNumber	resno = 1;

	foreach(lc, plan->keys)
	{
		Expr	   *key = ((TargetEntry *) lfirst(lc))->expr;
		Var		   *column = subquery_column(released, rti, resno++);

		column->vartypmod = exprTypmod((Node *) key);	/* the key's values, as they were */
		sub.keys = lappend(sub.keys, key);
		sub.key_columns = lappend(sub.key_columns, column);
	}
	foreach(lc, plan->releases)
		sub.release_columns = lappend(sub.release_columns,
									  subquery_column(released, rti, resno++));
	return sub;
}

/*
 * The released partitions that passed tau (anon_users IS NOT NULL), behind
 * the fence (OFFSET 0): same columns as the released level.
 */
Query *
build_thresholded(Query *released, AttrNumber users_column)
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
	return thresholded;
}

/*
 * Steps 4-5: the level's select list, HAVING, ORDER BY and LIMIT over the
 * rows of source (the thresholded partitions, or the one released row).
 */
static Query *
build_post_processing(anon_plan *plan, Query *source, const char *alias)
{
	Query	   *level = plan->level;
	Query	   *query = makeNode(Query);
	substitution sub;
	int			rti;

	*query = *level;			/* statement fields, ORDER BY, LIMIT */
	query->rtable = NIL;
	query->jointree = makeFromExpr(NIL, NULL);
	query->cteList = NIL;
	rti = add_subquery(query, source, alias);
	sub = released_columns(plan, source, rti);
	query->targetList = (List *) substitute_mutator((Node *) copyObject(level->targetList), &sub);
	if (level->havingQual)
		query->jointree->quals = substitute_mutator(copyObject(level->havingQual), &sub);
	query->groupClause = NIL;
	query->havingQual = NULL;
	query->hasAggs = false;
	query->hasRecursive = false;
	query->hasModifyingCTE = false;
	query->hasSubLinks = checkExprHasSubLink(level->limitCount) ||
		checkExprHasSubLink(level->limitOffset);
	return query;
}

anonymized_level *
build_anonymized_level(anon_plan *plan)
{
	anonymized_level *built = palloc0(sizeof(anonymized_level));
	bounded_rows rows = build_bounded_rows(plan);

	int			depth;			/* levels from the rewritten level down to per_user */

	if (plan->selection == SELECTION_PUBLIC)
		rows = public_partition_rows(plan, rows);
	built->per_user = rows.per_user;
	if (plan->leftover)
	{
		List	   *ctes;

		/* WITH anon_rows AS (<rows>), anon_partitions AS (...) (build_leftover.c) */
		built->thresholded = build_leftover_thresholded(plan, &rows, built, &ctes);
		built->query = build_post_processing(plan, built->thresholded, "anon_thresholded");
		built->query->cteList = ctes;
		IncrementVarSublevelsUp((Node *) built->per_user, 1 + rows.depth, 1);
		return built;
	}
	built->released = build_released(plan, &rows, &built->users_column);
	if (plan->grouped)
	{
		built->thresholded = build_thresholded(built->released, built->users_column);
		built->query = build_post_processing(plan, built->thresholded, "anon_thresholded");
		depth = 3 + rows.depth;
	}
	else
	{
		built->query = build_post_processing(plan, built->released, "anon_released");
		depth = 2 + rows.depth;
	}
	/* references to levels around the rewritten level now cross that many more */
	IncrementVarSublevelsUp((Node *) built->per_user, depth, 1);
	return built;
}
