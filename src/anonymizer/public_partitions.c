/*
 * public_partitions.c -- GROUP BY keys that come from a public table
 * (doc/rewriter.md, "Public partitions").
 *
 *   SELECT d.day, ANON_COUNT(*) FROM days d LEFT JOIN visits v ON v.day = d.day
 *   GROUP BY d.day
 *
 * When every GROUP BY key is an expression over the preserved side of the
 * level's one outer join, that side reads no private input, and every
 * private input is on the nullable side, the level releases one partition
 * per distinct key of the public side -- also the keys no user has, with
 * the noise of empty input -- and no other: the released keys are a
 * function of public rows only, so no threshold is needed and partition
 * selection spends no delta.  The users' rows still come from the join (a
 * null-extended row has no privacy unit and counts nowhere), each user
 * still contributes to at most C_u partitions.
 *
 * The key list is the preserved side, filtered by the WHERE conjuncts that
 * read only its columns (no subquery); the released level adds it to the
 * users' rows and keeps a key only if the list has it (build_public.c), so
 * a key that only users' rows carry is never released.
 *
 * This file decides whether a level has that form, before and after its
 * inputs were validated; it reads no settings.
 */
#include "postgres.h"

#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "parser/parsetree.h"
#include "rewrite/rewriteManip.h"

#include "anonymizer/pipeline.h"
#include "anonymizer/public_partitions.h"
#include "anonymizer/validate.h"

/* the range table indexes of the FROM items below a join tree node */
static Bitmapset *
items_of(Node *item)
{
	if (IsA(item, RangeTblRef))
		return bms_make_singleton(((RangeTblRef *) item)->rtindex);
	if (IsA(item, JoinExpr))
	{
		JoinExpr   *join = (JoinExpr *) item;

		return bms_add_member(bms_union(items_of(join->larg), items_of(join->rarg)),
							  join->rtindex);
	}
	if (IsA(item, FromExpr))
	{
		Bitmapset  *all = NULL;
		ListCell   *lc;

		foreach(lc, ((FromExpr *) item)->fromlist)
			all = bms_union(all, items_of(lfirst(lc)));
		return all;
	}
	return NULL;
}

/* expr reads only columns of the level's items in side, no subquery, nothing volatile */
static bool
reads_only(Node *expr, Bitmapset *side)
{
	List	   *vars;
	ListCell   *lc;

	if (expr == NULL)
		return true;
	if (checkExprHasSubLink(expr) || contain_volatile_functions(expr) ||
		contain_aggs_of_level(expr, 0) || contain_vars_of_level(expr, 1))
		return false;
	vars = pull_var_clause(expr, PVC_RECURSE_PLACEHOLDERS);
	foreach(lc, vars)
	{
		Var		   *var = (Var *) lfirst(lc);

		if (var->varlevelsup == 0 && !bms_is_member(var->varno, side))
			return false;
	}
	return true;
}

/* the preserved side reads tables, views, subqueries and VALUES, no WITH query of the level */
static bool
plain_items(Query *level, Bitmapset *side)
{
	int			rtindex = -1;

	while ((rtindex = bms_next_member(side, rtindex)) >= 0)
	{
		RangeTblEntry *rte = rt_fetch(rtindex, level->rtable);

		if (rte->rtekind == RTE_CTE || rte->rtekind == RTE_FUNCTION ||
			rte->rtekind == RTE_TABLEFUNC || rte->lateral)
			return false;
	}
	return true;
}

/* the level's one LEFT or RIGHT join with plain items on its preserved side, or NULL */
static public_partitions *
join_form(Query *level)
{
	public_partitions *form;
	JoinExpr   *join;

	if (level->groupClause == NIL || level->groupingSets != NIL ||
		list_length(level->jointree->fromlist) != 1 ||
		!IsA(linitial(level->jointree->fromlist), JoinExpr))
		return NULL;
	join = (JoinExpr *) linitial(level->jointree->fromlist);
	if (join->jointype != JOIN_LEFT && join->jointype != JOIN_RIGHT)
		return NULL;
	form = palloc0(sizeof(public_partitions));
	form->preserved = join->jointype == JOIN_LEFT ? join->larg : join->rarg;
	form->items = items_of(form->preserved);
	if (!plain_items(level, form->items))
		return NULL;
	return form;
}

/* the first GROUP BY key (1-based) that reads more than the preserved side, or 0 */
static int
first_outside_key(Query *level, public_partitions *form)
{
	ListCell   *lc;
	int			position = 0;

	foreach(lc, level->groupClause)
	{
		TargetEntry *key = get_sortgroupclause_tle((SortGroupClause *) lfirst(lc),
												   level->targetList);

		position++;
		if (!reads_only((Node *) key->expr, form->items))
			return position;
	}
	return 0;
}

public_partitions *
public_partition_candidate(Query *level)
{
	public_partitions *form = join_form(level);
	ListCell   *lc;

	if (form == NULL || first_outside_key(level, form) != 0)
		return NULL;
	foreach(lc, flatten_conjuncts(level->jointree->quals))
		if (reads_only((Node *) lfirst(lc), form->items))
			form->key_quals = lappend(form->key_quals, lfirst(lc));
	return form;
}

int
public_partition_outside_key(Query *level)
{
	public_partitions *form = join_form(level);

	return form == NULL ? 0 : first_outside_key(level, form);
}

bool
public_partition_confirm(public_partitions *form, level_check *check)
{
	int			i;

	for (i = 0; i < check->nrels; i++)
		if (bms_is_member(check->rels[i].rtindex, form->items) || !check->rels[i].nullable)
			return false;
	return check->nrels > 0;
}
