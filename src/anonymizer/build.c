/*
 * build.c -- step 4: the rewritten level, as query trees (doc/rewriter.md):
 *
 *   SELECT <the level's select list over released columns>  -- post-processing
 *   FROM (SELECT * FROM
 *           (SELECT keys, <building block>(partial, .., epsilon_i, 1) AS anon_release_i ..,
 *                   dp_partition_count(epsilon_i, delta, C_u) AS anon_users
 *            FROM <at most C_u per-user rows of each user>  -- build_bounding.c
 *            GROUP BY keys) anon_released                    -- build_released.c
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
#include "query_nodes.h"

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
		built->thresholded = build_thresholded(built->released, built->users_column,
											   list_length(plan->keys));
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
