/*
 * query_nodes.c -- constructors of analyzed query nodes (query_nodes.h).
 */
#include "postgres.h"

#include "catalog/pg_aggregate.h"
#include "catalog/pg_collation.h"
#include "catalog/pg_type.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "parser/parse_clause.h"
#include "parser/parse_coerce.h"
#include "parser/parse_collate.h"
#include "parser/parse_oper.h"
#include "parser/parsetree.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"

#include "query_nodes.h"

Query *
new_select(void)
{
	Query	   *query = makeNode(Query);

	query->commandType = CMD_SELECT;
	query->querySource = QSRC_ORIGINAL;
	query->canSetTag = true;
	query->jointree = makeFromExpr(NIL, NULL);
	return query;
}

static TargetEntry *
append_column(Query *query, Expr *expr, const char *name, bool junk)
{
	TargetEntry *tle = makeTargetEntry(expr, list_length(query->targetList) + 1,
									   pstrdup(name), junk);

	query->targetList = lappend(query->targetList, tle);
	return tle;
}

TargetEntry *
add_column(Query *query, Expr *expr, const char *name)
{
	return append_column(query, expr, name, false);
}

TargetEntry *
add_junk_column(Query *query, Expr *expr, const char *name)
{
	return append_column(query, expr, name, true);
}

void
add_group_key(Query *query, TargetEntry *tle, SortGroupClause *like)
{
	SortGroupClause *clause = makeNode(SortGroupClause);

	if (like != NULL)
	{
		clause->eqop = like->eqop;
		clause->sortop = like->sortop;
		clause->hashable = like->hashable;
	}
	else
		get_sort_group_operators(exprType((Node *) tle->expr), false, true, false,
								 &clause->sortop, &clause->eqop, NULL, &clause->hashable);
	clause->nulls_first = false;
	clause->tleSortGroupRef = assignSortGroupRef(tle, query->targetList);
	query->groupClause = lappend(query->groupClause, clause);
}

int
add_subquery(Query *query, Query *subquery, const char *alias)
{
	RangeTblEntry *rte = makeNode(RangeTblEntry);
	RangeTblRef *ref = makeNode(RangeTblRef);
	List	   *colnames = NIL;
	ListCell   *lc;

	foreach(lc, subquery->targetList)
	{
		TargetEntry *tle = (TargetEntry *) lfirst(lc);

		if (!tle->resjunk)
			colnames = lappend(colnames, makeString(pstrdup(tle->resname)));
	}
	rte->rtekind = RTE_SUBQUERY;
	rte->subquery = subquery;
	rte->alias = makeAlias(alias, NIL);
	rte->eref = makeAlias(alias, colnames);
	rte->inFromCl = true;
	query->rtable = lappend(query->rtable, rte);
	ref->rtindex = list_length(query->rtable);
	query->jointree->fromlist = lappend(query->jointree->fromlist, ref);
	return ref->rtindex;
}

void
replace_by_subquery(RangeTblEntry *rte, Query *subquery)
{
	rte->rtekind = RTE_SUBQUERY;
	rte->subquery = subquery;
	rte->relid = InvalidOid;
	rte->relkind = 0;
	rte->rellockmode = 0;
	rte->requiredPerms = 0;
	rte->checkAsUser = InvalidOid;
	rte->selectedCols = NULL;
	rte->inh = false;
}

Var *
subquery_column(Query *subquery, int rtindex, AttrNumber resno)
{
	return makeVarFromTargetEntry(rtindex, get_tle_by_resno(subquery->targetList, resno));
}

/* the result type of a call, polymorphism resolved from the argument types */
static Oid
resolved_result_type(Oid funcid, List *args)
{
	Oid			rettype;
	Oid		   *declared;
	int			nargs;
	Oid		   *actual;
	ListCell   *lc;
	int			i = 0;

	rettype = get_func_signature(funcid, &declared, &nargs);
	if (!IsPolymorphicType(rettype))
		return rettype;
	if (nargs != list_length(args))
		elog(ERROR, "anonymization query: cannot resolve the result type of function %u", funcid);
	actual = palloc(sizeof(Oid) * Max(nargs, 1));
	foreach(lc, args)
		actual[i++] = exprType((Node *) lfirst(lc));
	return enforce_generic_type_consistency(actual, declared, nargs, rettype, false);
}

Expr *
call_function(Oid funcid, List *args)
{
	FuncExpr   *call = makeFuncExpr(funcid, resolved_result_type(funcid, args), args,
									InvalidOid, InvalidOid, COERCE_EXPLICIT_CALL);

	call->funcretset = get_func_retset(funcid);
	assign_expr_collations(NULL, (Node *) call);
	return (Expr *) call;
}

Aggref *
call_aggregate(Oid aggfnoid, List *args, bool star, Expr *filter)
{
	Aggref	   *aggref = makeNode(Aggref);
	ListCell   *lc;
	AttrNumber	resno = 1;

	aggref->aggfnoid = aggfnoid;
	aggref->aggtype = resolved_result_type(aggfnoid, args);
	foreach(lc, args)
	{
		aggref->aggargtypes = lappend_oid(aggref->aggargtypes, exprType(lfirst(lc)));
		aggref->args = lappend(aggref->args,
							   makeTargetEntry((Expr *) lfirst(lc), resno++, NULL, false));
	}
	aggref->aggfilter = filter;
	aggref->aggstar = star;
	aggref->aggkind = AGGKIND_NORMAL;
	aggref->agglevelsup = 0;
	aggref->aggsplit = AGGSPLIT_SIMPLE;
	aggref->aggno = -1;
	aggref->aggtransno = -1;
	aggref->location = -1;
	assign_expr_collations(NULL, (Node *) aggref);
	return aggref;
}

Expr *
cast_to(Expr *expr, Oid type)
{
	Oid			from = exprType((Node *) expr);
	Node	   *cast;

	if (from == type)
		return expr;
	cast = coerce_to_target_type(NULL, (Node *) expr, from, type, -1,
								 COERCION_EXPLICIT, COERCE_EXPLICIT_CAST, -1);
	if (cast == NULL)
		elog(ERROR, "anonymization query: cannot cast %s to %s",
			 format_type_be(from), format_type_be(type));
	assign_expr_collations(NULL, cast);
	return (Expr *) cast;
}

Const *
int4_const(int32 value)
{
	return makeConst(INT4OID, -1, InvalidOid, sizeof(int32), Int32GetDatum(value), false, true);
}

Const *
int8_const(int64 value)
{
	return makeConst(INT8OID, -1, InvalidOid, sizeof(int64), Int64GetDatum(value), false,
					 FLOAT8PASSBYVAL);
}

Const *
float8_const(double value)
{
	return makeConst(FLOAT8OID, -1, InvalidOid, sizeof(float8), Float8GetDatum(value), false,
					 FLOAT8PASSBYVAL);
}

Const *
text_const(const char *value)
{
	return makeConst(TEXTOID, -1, DEFAULT_COLLATION_OID, -1, CStringGetTextDatum(value),
					 false, false);
}

Const *
bool_const(bool value)
{
	return (Const *) makeBoolConst(value, false);
}

Const *
typed_const(Oid type, const char *text)
{
	Oid			input;
	Oid			ioparam;
	int16		typlen;
	bool		typbyval;

	getTypeInputInfo(type, &input, &ioparam);
	get_typlenbyval(type, &typlen, &typbyval);
	return makeConst(type, -1, get_typcollation(type), typlen,
					 OidInputFunctionCall(input, (char *) text, ioparam, -1), false, typbyval);
}

static Expr *
min_max_of(Expr *a, Expr *b, MinMaxOp op)
{
	MinMaxExpr *result = makeNode(MinMaxExpr);

	result->minmaxtype = exprType((Node *) a);
	result->minmaxcollid = exprCollation((Node *) a);
	result->inputcollid = exprCollation((Node *) a);
	result->op = op;
	result->args = list_make2(a, b);
	result->location = -1;
	return (Expr *) result;
}

Expr *
greatest_of(Expr *a, Expr *b)
{
	return min_max_of(a, b, IS_GREATEST);
}

Expr *
least_of(Expr *a, Expr *b)
{
	return min_max_of(a, b, IS_LEAST);
}
