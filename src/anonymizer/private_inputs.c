/*
 * private_inputs.c -- the private inputs of a query level under validation
 * (level_check.rels, collected by validate_inputs.c): which of them a column
 * reference reads the privacy unit of, their names in messages, and the unit
 * of one of them as a column of the level.
 */
#include "postgres.h"

#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "parser/parsetree.h"
#include "utils/lsyscache.h"
#include "utils/typcache.h"

#include "anonymizer/validate.h"

/*
 * The FROM item and output column a column reference of this level reads,
 * looking through implicit casts and join alias columns.
 */
static bool
resolve_column(Query *query, Node *expr, int *rtindex, AttrNumber *attno)
{
	Var		   *var;
	RangeTblEntry *rte;

	expr = strip_implicit_coercions(expr);
	if (expr == NULL || !IsA(expr, Var))
		return false;
	var = (Var *) expr;
	if (var->varlevelsup != 0 || var->varattno <= 0 ||
		var->varno < 1 || var->varno > (int) list_length(query->rtable))
		return false;
	rte = rt_fetch(var->varno, query->rtable);
	if (rte->rtekind == RTE_JOIN)
	{
		if (var->varattno > list_length(rte->joinaliasvars))
			return false;
		return resolve_column(query, list_nth(rte->joinaliasvars, var->varattno - 1),
							  rtindex, attno);
	}
	*rtindex = var->varno;
	*attno = var->varattno;
	return true;
}

/*
 * The private input a column reference of this level reads, and which of
 * its columns (through implicit casts and join alias columns), or -1.
 */
int
input_column(level_check *check, Node *expr, AttrNumber *attno)
{
	int			rtindex;
	int			i;

	if (!resolve_column(check->query, expr, &rtindex, attno))
		return -1;
	for (i = 0; i < check->nrels; i++)
		if (check->rels[i].rtindex == rtindex)
			return i;
	return -1;
}

/* The private input whose privacy unit expr reads, or -1. */
int
private_rel_of(level_check *check, Node *expr)
{
	int			rtindex;
	AttrNumber	attno;
	int			i;

	if (!resolve_column(check->query, expr, &rtindex, &attno))
		return -1;
	for (i = 0; i < check->nrels; i++)
		if (check->rels[i].rtindex == rtindex && bms_is_member(attno, check->rels[i].uids))
			return i;
	return -1;
}

/*
 * The private input whose privacy unit expr reads, if that input is never
 * null-extended: only such a column identifies the unit of every row.
 */
int
unit_rel_of(level_check *check, Node *expr)
{
	int			i = private_rel_of(check, expr);

	return i >= 0 && !check->rels[i].nullable ? i : -1;
}

/* A FROM item as an error message names it: the table, or the alias of anything else. */
const char *
input_name(Query *query, int rtindex)
{
	RangeTblEntry *rte = rt_fetch(rtindex, query->rtable);

	if (rte->rtekind == RTE_RELATION)
		return get_rel_name(rte->relid);
	return rte->eref->aliasname;
}

/* The name of the privacy unit column of private input i. */
const char *
uid_column_name(level_check *check, int i)
{
	RangeTblEntry *rte = rt_fetch(check->rels[i].rtindex, check->query->rtable);

	return strVal(list_nth(rte->eref->colnames, check->rels[i].uid - 1));
}

/* The privacy unit of private input i as a column of the level. */
Var *
privacy_unit_var(level_check *check, int i)
{
	RangeTblEntry *rte = rt_fetch(check->rels[i].rtindex, check->query->rtable);
	AttrNumber	attno = check->rels[i].uid;
	Oid			type;
	int32		typmod;
	Oid			collation;

	switch (rte->rtekind)
	{
		case RTE_RELATION:
			get_atttypetypmodcoll(rte->relid, attno, &type, &typmod, &collation);
			break;
		case RTE_SUBQUERY:
			{
				TargetEntry *tle = get_tle_by_resno(rte->subquery->targetList, attno);

				type = exprType((Node *) tle->expr);
				typmod = exprTypmod((Node *) tle->expr);
				collation = exprCollation((Node *) tle->expr);
				break;
			}
		case RTE_CTE:
			type = list_nth_oid(rte->coltypes, attno - 1);
			typmod = list_nth_int(rte->coltypmods, attno - 1);
			collation = list_nth_oid(rte->colcollations, attno - 1);
			break;
		default:
			elog(ERROR, "anonymization query: unexpected kind of private input %d",
				 (int) rte->rtekind);
	}
	return makeVar(check->rels[i].rtindex, attno, type, typmod, collation, 0);
}

/*
 * Is clause "x = y" with the default btree equality of unit_type, under a
 * deterministic collation?  Sets *left and *right to its operands.
 */
bool
is_unit_equality(Node *clause, Oid unit_type, Node **left, Node **right)
{
	OpExpr	   *op = (OpExpr *) clause;
	TypeCacheEntry *tc;

	if (clause == NULL || !IsA(clause, OpExpr) || list_length(op->args) != 2)
		return false;
	tc = lookup_type_cache(unit_type, TYPECACHE_EQ_OPR);
	if (!OidIsValid(tc->eq_opr) || op->opno != tc->eq_opr)
		return false;
	if (OidIsValid(op->inputcollid) && !get_collation_isdeterministic(op->inputcollid))
		return false;
	*left = linitial(op->args);
	*right = lsecond(op->args);
	return true;
}

/*
 * An operand of a unit equality without its COLLATE clauses: the collation
 * of the comparison is checked on the operator (is_unit_equality).
 */
Node *
strip_collate(Node *operand)
{
	while (operand != NULL && IsA(operand, CollateExpr))
		operand = (Node *) ((CollateExpr *) operand)->arg;
	return operand;
}

/* The unit of a row of the level from the units of the private inputs in rels. */
Expr *
level_unit_expression(level_check *check, Bitmapset *rels)
{
	CoalesceExpr *coalesce;
	int			i = -1;

	if (bms_membership(rels) == BMS_SINGLETON)
		return (Expr *) privacy_unit_var(check, bms_singleton_member(rels));
	coalesce = makeNode(CoalesceExpr);
	while ((i = bms_next_member(rels, i)) >= 0)
		coalesce->args = lappend(coalesce->args, privacy_unit_var(check, i));
	coalesce->coalescetype = check->rels[0].uid_type;
	coalesce->coalescecollid = exprCollation((Node *) linitial(coalesce->args));
	coalesce->location = -1;
	return (Expr *) coalesce;
}
