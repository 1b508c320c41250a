/*
 * verify.c -- step 5: invariants of the rewritten level, checked on the
 * trees the builder made, then the guard's marks.
 *
 * A failed check is a bug of the anonymizer, never of the query: the
 * statement stops with an internal error instead of releasing anything.
 *   - the rewritten level has the level's output columns (name, type,
 *     typmod, collation), so CREATE TABLE AS, INSERT and views keep theirs;
 *   - no ANON_* call is left: each became a release;
 *   - with GROUP BY, every released row passed tau (anon_users IS NOT NULL
 *     filters the released level) behind a fence that no condition of the
 *     query crosses (OFFSET 0, read by the post-processing level); without,
 *     there is no user count;
 *   - the per-user level drops the rows whose privacy unit is NULL;
 *   - every aggregate of the released level is a release (catalog.h); the
 *     epsilon written into them adds up to at most anon_dp.epsilon per user
 *     (C_u partitions, each its releases and its selection), their delta to
 *     at most anon_dp.delta, C_u is the plan's, and the column that selects
 *     partitions is the plan's selection with its delta.
 * Then the private inputs of the per-user level are marked (guard/marks.h).
 */
#include "postgres.h"

#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "parser/parsetree.h"

#include "anonymizer/pipeline.h"
#include "catalog.h"
#include "guard/marks.h"

static void
broken(const char *invariant)
{
	ereport(ERROR,
			(errcode(ERRCODE_INTERNAL_ERROR),
			 errmsg("anonymization query: the rewrite broke an invariant: %s", invariant),
			 errhint("This is a bug of anon_dp; nothing was released.")));
}

static void
verify_output_columns(Query *level, Query *rewritten)
{
	ListCell   *lo;
	ListCell   *lr;

	if (list_length(level->targetList) != list_length(rewritten->targetList))
		broken("the number of output columns changed");
	forboth(lo, level->targetList, lr, rewritten->targetList)
	{
		TargetEntry *o = (TargetEntry *) lfirst(lo);
		TargetEntry *r = (TargetEntry *) lfirst(lr);
		Node	   *oe = (Node *) o->expr;
		Node	   *re = (Node *) r->expr;

		if (o->resno != r->resno || o->resjunk != r->resjunk ||
			o->ressortgroupref != r->ressortgroupref ||
			(o->resname == NULL) != (r->resname == NULL) ||
			(o->resname != NULL && strcmp(o->resname, r->resname) != 0))
			broken(psprintf("output column %d changed its name or position", o->resno));
		if (exprType(oe) != exprType(re) || exprTypmod(oe) != exprTypmod(re) ||
			exprCollation(oe) != exprCollation(re))
			broken(psprintf("output column %d changed its type", o->resno));
	}
}

static bool
anon_call_walker(Node *node, void *context)
{
	if (node == NULL)
		return false;
	if (IsA(node, Aggref) && anon_dp_kind_of(((Aggref *) node)->aggfnoid) != NULL)
		return true;
	if (IsA(node, Query))
		return query_tree_walker((Query *) node, anon_call_walker, context, 0);
	return expression_tree_walker(node, anon_call_walker, context);
}

/* the constant argument at position argno of a released aggregate */
static Const *
constant_argument(Aggref *aggref, int argno)
{
	Node	   *arg = (Node *) ((TargetEntry *) list_nth(aggref->args, argno))->expr;

	if (!IsA(arg, Const) || ((Const *) arg)->constisnull)
		broken("a privacy parameter of the released level is not a constant");
	return (Const *) arg;
}

/* the only range table entry of query is the subquery expected */
static bool
reads_only(Query *query, Query *subquery)
{
	RangeTblEntry *rte;

	if (list_length(query->rtable) != 1)
		return false;
	rte = (RangeTblEntry *) linitial(query->rtable);
	return rte->rtekind == RTE_SUBQUERY && rte->subquery == subquery;
}

/*
 * With GROUP BY: the thresholded level reads the released level, keeps the
 * rows whose anon_users IS NOT NULL and is a fence (OFFSET 0, no LIMIT);
 * the post-processing level reads it.
 */
/* quals is (or begins with) column IS NOT NULL, column of the query's first entry */
static bool
filters_on(Node *quals, AttrNumber column)
{
	NullTest   *test;

	if (quals != NULL && is_andclause(quals))
		quals = (Node *) linitial(((BoolExpr *) quals)->args);
	test = (NullTest *) quals;
	return test != NULL && IsA(test, NullTest) && test->nulltesttype == IS_NOT_NULL &&
		IsA(test->arg, Var) && ((Var *) test->arg)->varlevelsup == 0 &&
		((Var *) test->arg)->varno == 1 && ((Var *) test->arg)->varattno == column;
}

/*
 * The leftover partition (build_leftover.c): the fence is a UNION ALL of the
 * released partitions that passed tau, read from the materialized released
 * level, and of the leftover row if its own user count passed tau.
 */
static void
verify_leftover_threshold(anon_plan *plan, anonymized_level *built)
{
	Query	   *fence = built->thresholded;
	Query	   *kept;
	Query	   *shown;
	RangeTblEntry *cte_scan;
	CommonTableExpr *partitions;

	if (fence == NULL || built->leftover == NULL || !reads_only(built->query, fence) ||
		fence->setOperations == NULL || list_length(fence->rtable) != 2 ||
		list_length(built->query->cteList) != 2)
		broken("the leftover partition is not a second branch of the thresholded level");
	if (fence->limitOffset == NULL || fence->limitCount != NULL ||
		!IsA(fence->limitOffset, Const) ||
		DatumGetInt64(((Const *) fence->limitOffset)->constvalue) != 0)
		broken("the thresholded partitions are not behind a fence");
	partitions = (CommonTableExpr *) lsecond(built->query->cteList);
	kept = ((RangeTblEntry *) linitial(fence->rtable))->subquery;
	shown = ((RangeTblEntry *) lsecond(fence->rtable))->subquery;
	cte_scan = list_length(kept->rtable) == 1 ? (RangeTblEntry *) linitial(kept->rtable) : NULL;
	if (partitions->ctequery != (Node *) built->released ||
		partitions->ctematerialized != CTEMaterializeAlways || cte_scan == NULL ||
		cte_scan->rtekind != RTE_CTE || strcmp(cte_scan->ctename, partitions->ctename) != 0 ||
		cte_scan->ctelevelsup != 2 || !filters_on(kept->jointree->quals, built->users_column))
		broken("released partitions are not filtered by tau");
	if (!reads_only(shown, built->leftover) ||
		!filters_on(shown->jointree->quals, built->leftover_users) ||
		built->leftover->groupClause != NIL ||
		((Aggref *) get_tle_by_resno(built->leftover->targetList,
									 built->leftover_users)->expr)->aggfilter == NULL)
		broken("the leftover row is not filtered by its own tau");
}

static void
verify_threshold(anon_plan *plan, anonymized_level *built)
{
	Query	   *fence = built->thresholded;
	NullTest   *test;

	if (plan->leftover)
	{
		verify_leftover_threshold(plan, built);
		return;
	}

	if (!plan->grouped)
	{
		if (built->users_column != 0 || built->released->groupClause != NIL || fence != NULL ||
			!reads_only(built->query, built->released))
			broken("a query without GROUP BY got partitions");
		return;
	}
	if (built->users_column == 0 || fence == NULL ||
		list_length(built->released->groupClause) != list_length(plan->keys))
		broken("the released level is not grouped by the keys with a user count");
	if (!reads_only(built->query, fence) || !reads_only(fence, built->released))
		broken("the post-processing level does not read the thresholded partitions");
	if (fence->limitOffset == NULL || fence->limitCount != NULL ||
		!IsA(fence->limitOffset, Const) ||
		DatumGetInt64(((Const *) fence->limitOffset)->constvalue) != 0)
		broken("the thresholded partitions are not behind a fence");
	test = (NullTest *) fence->jointree->quals;
	if (test == NULL || !IsA(test, NullTest) || test->nulltesttype != IS_NOT_NULL ||
		!IsA(test->arg, Var) || ((Var *) test->arg)->varlevelsup != 0 ||
		((Var *) test->arg)->varattno != built->users_column)
		broken("released partitions are not filtered by tau");
}

/* the function that must compute the column that selects partitions */
static Oid
expected_selection(anon_plan *plan)
{
	switch (plan->selection)
	{
		case SELECTION_PUBLIC:
			return anon_dp_emitted_function(EMIT_PARTITION_PUBLIC);
		case SELECTION_REUSED:
			return anon_dp_emitted_function(plan->selecting->kind->selects == SELECTS_AVG ?
											EMIT_AVG_SELECT : EMIT_COUNT_SELECT);
		case SELECTION_SEPARATE:
			return anon_dp_emitted_function(plan->mechanism == DP_SELECT_LAPLACE ?
											EMIT_PARTITION_COUNT : EMIT_PARTITION_SELECT);
		case SELECTION_NONE:
			break;
	}
	return InvalidOid;
}

/* what the aggregates of one released level spend */
typedef struct spending
{
	double		per_partition;	/* epsilon */
	double		delta;
	int			releases;
} spending;

/*
 * Every aggregate of released is a release, its C_u the plan's; the column
 * users (if any) is computed by selector with delta selection_delta.
 */
static void
add_spending(anon_plan *plan, Query *released, AttrNumber users, Oid selector,
			 double selection_delta, spending *spent)
{
	ListCell   *lc;

	foreach(lc, released->targetList)
	{
		TargetEntry *tle = (TargetEntry *) lfirst(lc);
		Aggref	   *aggref = (Aggref *) tle->expr;
		anon_dp_release_args args;

		if (!IsA(aggref, Aggref))
			continue;
		if (!anon_dp_release_arguments(aggref->aggfnoid, &args))
			broken("the released level computes an aggregate that is not a release");
		spent->releases++;
		if (args.epsilon >= 0)
			spent->per_partition += DatumGetFloat8(constant_argument(aggref, args.epsilon)->constvalue);
		if (args.delta >= 0)
			spent->delta += DatumGetFloat8(constant_argument(aggref, args.delta)->constvalue);
		if (args.max_groups >= 0 &&
			DatumGetInt64(constant_argument(aggref, args.max_groups)->constvalue) != plan->max_groups)
			broken("a release is computed with another C_u than the plan's");
		if (tle->resno == users &&
			(aggref->aggfnoid != selector ||
			 (args.delta >= 0 &&
			  DatumGetFloat8(constant_argument(aggref, args.delta)->constvalue) != selection_delta)))
			broken("partitions are selected with other parameters than the plan's");
	}
}

/*
 * Every aggregate of the released level (and of the leftover row) is a
 * release; together their epsilon (per partition, times C_u with GROUP BY:
 * one user adds up to C_u rows to the leftover row too) is at most
 * anon_dp.epsilon, their delta at most anon_dp.delta, their C_u the plan's,
 * and the selection columns spend the plan's selection deltas.
 */
static void
verify_privacy_parameters(anon_plan *plan, anonymized_level *built)
{
	spending	spent = {0.0, 0.0, 0};
	int			expected = list_length(plan->releases) +
		(plan->selection == SELECTION_SEPARATE || plan->selection == SELECTION_PUBLIC ? 1 : 0);

	add_spending(plan, built->released, built->users_column, expected_selection(plan),
				 plan->selection_delta, &spent);
	if (plan->leftover)
	{
		add_spending(plan, built->leftover, built->leftover_users,
					 anon_dp_emitted_function(EMIT_PARTITION_COUNT), plan->leftover_delta, &spent);
		expected += list_length(plan->releases) + 1;
	}
	if (spent.releases != expected)
		broken("the released level does not compute what the plan says");
	if (spent.per_partition * (plan->grouped ? plan->max_groups : 1) > plan->epsilon * (1.0 + 1e-9))
		broken("the releases of one user spend more than anon_dp.epsilon");
	if (spent.delta > plan->delta * (1.0 + 1e-9))
		broken("the releases spend more than anon_dp.delta");
}

/* the per-user level keeps only rows of a user: unit IS NOT NULL AND ... */
static void
verify_units_present(anon_plan *plan, anonymized_level *built)
{
	Node	   *quals = built->per_user->jointree->quals;
	NullTest   *test;

	if (quals != NULL && is_andclause(quals))
		quals = (Node *) linitial(((BoolExpr *) quals)->args);
	test = (NullTest *) quals;
	if (test == NULL || !IsA(test, NullTest) || test->nulltesttype != IS_NOT_NULL ||
		!equal(test->arg, plan->unit))
		broken("rows whose privacy unit is NULL are not dropped before per-user aggregation");
}

void
verify_anonymized_level(anon_plan *plan, anonymized_level *built)
{
	verify_output_columns(plan->level, built->query);
	if (anon_call_walker((Node *) built->query, NULL))
		broken("an ANON_* call was not rewritten");
	verify_threshold(plan, built);
	verify_units_present(plan, built);
	verify_privacy_parameters(plan, built);
	mark_private_inputs(built->per_user);
}
