/*
 * build_public.c -- the rows of a level with public partitions
 * (public_partitions.c): the users' bounded rows and one row per key of the
 * public side, marked, as the released level's input:
 *
 *   SELECT keys, partials, NULL::bool AS anon_listed FROM <bounded rows>
 *   UNION ALL
 *   SELECT <key forms>, NULL partials, true FROM <preserved side>
 *   WHERE <its own WHERE conjuncts> GROUP BY <key forms>
 *
 * The building blocks skip NULL partials, so a key no user has releases the
 * noise of empty input; dp_partition_public(anon_listed, C_u) is NULL for a
 * key that is not listed, and the threshold filter drops it.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "parser/parsetree.h"
#include "rewrite/rewriteManip.h"

#include "anonymizer/build.h"
#include "anonymizer/public_partitions.h"
#include "query_nodes.h"

#define RENUMBER_OFFSET 100000	/* above any range table index */

/*
 * The preserved side as a FROM clause of its own: its range table entries
 * (in their order) and everything that refers to them renumbered.
 */
static Query *
preserved_side_query(anon_plan *plan)
{
	public_partitions *form = plan->public_keys;
	Query	   *keys = new_select();
	int			old = -1;
	int			renumbered = 0;
	ListCell   *lc;
	int			i = 0;

	keys->jointree = makeFromExpr(list_make1(copyObject(form->preserved)),
								  (Node *) make_ands_explicit(copyObject(form->key_quals)));
	foreach(lc, plan->keys)
	{
		TargetEntry *key = (TargetEntry *) lfirst(lc);
		TargetEntry *column = add_column(keys, (Expr *) copyObject(list_nth(plan->key_forms, i)),
										 psprintf("anon_group_%d", i));

		if (!IsA(key->expr, Const))
			add_group_key(keys, column, (SortGroupClause *) list_nth(plan->level->groupClause, i));
		i++;
	}
	while ((old = bms_next_member(form->items, old)) >= 0)
		keys->rtable = lappend(keys->rtable, copyObject(rt_fetch(old, plan->level->rtable)));
	/* every reference, join aliases included, moved out of the way, then renumbered */
	OffsetVarNodes((Node *) keys, RENUMBER_OFFSET, 0);
	old = -1;
	while ((old = bms_next_member(form->items, old)) >= 0)
		ChangeVarNodes((Node *) keys, old + RENUMBER_OFFSET, ++renumbered, 0);
	if (keys->jointree->quals == NULL || equal(keys->jointree->quals, makeBoolConst(true, false)))
		keys->jointree->quals = NULL;
	return keys;
}

/* a NULL of a column's type */
static Expr *
null_like(TargetEntry *tle)
{
	Node	   *expr = (Node *) tle->expr;

	return (Expr *) makeNullConst(exprType(expr), exprTypmod(expr), exprCollation(expr));
}

/* left UNION ALL right, columns named as left's (both have no junk column) */
Query *
union_all(Query *left, Query *right, const char *left_alias, const char *right_alias)
{
	Query	   *u = new_select();
	SetOperationStmt *op = makeNode(SetOperationStmt);
	RangeTblRef *lref = makeNode(RangeTblRef);
	RangeTblRef *rref = makeNode(RangeTblRef);
	ListCell   *lc;

	add_subquery(u, left, left_alias);
	add_subquery(u, right, right_alias);
	u->jointree->fromlist = NIL;	/* a set operation reads its branches */
	((RangeTblEntry *) linitial(u->rtable))->inFromCl = false;
	((RangeTblEntry *) lsecond(u->rtable))->inFromCl = false;
	lref->rtindex = 1;
	rref->rtindex = 2;
	op->op = SETOP_UNION;
	op->all = true;
	op->larg = (Node *) lref;
	op->rarg = (Node *) rref;
	foreach(lc, left->targetList)
	{
		TargetEntry *tle = (TargetEntry *) lfirst(lc);
		Node	   *expr = (Node *) tle->expr;
		Var		   *var = makeVar(1, tle->resno, exprType(expr), -1, exprCollation(expr), 0);

		op->colTypes = lappend_oid(op->colTypes, exprType(expr));
		op->colTypmods = lappend_int(op->colTypmods,
									 exprTypmod(expr) == exprTypmod((Node *) get_tle_by_resno(right->targetList, tle->resno)->expr) ?
									 exprTypmod(expr) : -1);
		op->colCollations = lappend_oid(op->colCollations, exprCollation(expr));
		var->vartypmod = llast_int(op->colTypmods);
		add_column(u, (Expr *) var, tle->resname);
	}
	u->setOperations = (Node *) op;
	return u;
}

bounded_rows
public_partition_rows(anon_plan *plan, bounded_rows rows)
{
	Query	   *users = new_select();
	Query	   *keys = preserved_side_query(plan);
	int			rti = add_subquery(users, rows.query, rows.alias);
	int			nkeys = list_length(plan->keys);
	int			ncolumns = nkeys + list_length(plan->releases);
	int			i;
	bounded_rows result = rows;

	for (i = 0; i < ncolumns; i++)
	{
		Var		   *column = subquery_column(rows.query, rti,
											 i < nkeys ? rows.first_key + i
											 : rows.first_partial + i - nkeys);
		TargetEntry *tle = add_column(users, (Expr *) column,
									  i < nkeys ? psprintf("anon_group_%d", i)
									  : psprintf("anon_partial_%d", i - nkeys));

		if (i >= nkeys)
			add_column(keys, null_like(tle), tle->resname);
	}
	add_column(users, (Expr *) makeNullConst(BOOLOID, -1, InvalidOid), "anon_listed");
	add_column(keys, (Expr *) bool_const(true), "anon_listed");
	result.query = union_all(users, keys, "anon_users_rows", "anon_public_keys");
	result.alias = "anon_public";
	result.first_key = 1;
	result.first_partial = 1 + nkeys;
	result.listed = 1 + ncolumns;
	result.depth = rows.depth + 2;
	return result;
}
