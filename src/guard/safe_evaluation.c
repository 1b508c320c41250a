/*
 * safe_evaluation.c -- SAFE semantics for the calls that see private values
 * (safe_evaluation.h).
 *
 * Which calls: functions and operators of the allow-list and I/O casts
 * between its types (known to hold nothing when they raise) that are
 * parallel safe (a wrapper is parallel safe; wrapping anything else would
 * hide its hazard from the planner), in every level of a statement that
 * reads private rows: the levels that scan them, and every level that sees a
 * value computed from them (subqueries, WITH queries and views in between,
 * the arguments of the ANON_* aggregates, and the released levels above,
 * where wrapping costs nothing but a NULL for an error).
 * Comparison operators of btree operator families are left as they are: they
 * never reject a valid value of their type.
 *
 * The wrappers are placed at planning, so stored views and prepared
 * statements keep the query as written; each plan gets them afresh.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/pg_language.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"

#include "catalog.h"
#include "guard/allow_list.h"
#include "guard/allowed_builtins.h"
#include "guard/marks.h"
#include "guard/safe_evaluation.h"

static anon_dp_emitted
by_volatility(char volatility, anon_dp_emitted immutable, anon_dp_emitted stable,
			  anon_dp_emitted volatile_)
{
	return volatility == PROVOLATILE_IMMUTABLE ? immutable :
		volatility == PROVOLATILE_STABLE ? stable : volatile_;
}

/*
 * a call of funcid that is worth and safe to wrap: on the allow-list (known
 * to hold nothing when it raises), one result, parallel safe
 */
static bool
written_in_sql(Oid funcid)
{
	HeapTuple	tuple = SearchSysCache1(PROCOID, ObjectIdGetDatum(funcid));
	bool		sql;

	if (!HeapTupleIsValid(tuple))
		return false;
	sql = ((Form_pg_proc) GETSTRUCT(tuple))->prolang == SQLlanguageId;
	ReleaseSysCache(tuple);
	return sql;
}

static bool
wrappable(Oid funcid)
{
	return allowed_builtin_lookup(funcid) != NULL && !get_func_retset(funcid) &&
		func_parallel(funcid) == PROPARALLEL_SAFE && !written_in_sql(funcid);
}

/*
 * A listed function written in SQL (log(numeric), anytextcat behind
 * text || value, interval + date, ...) is not wrapped: a wrapper catching an
 * error in the middle of its body would leave the body's execution state
 * behind for the next row.  Its body is inlined instead, as the planner
 * would, and the calls the body makes are wrapped.
 */
static Node *safe_mutator(Node *node, void *context);

static Node *
inline_sql_call(Node *node, Oid funcid, void *context)
{
	Node	   *inlined = eval_const_expressions(NULL, node);

	if ((IsA(inlined, FuncExpr) && ((FuncExpr *) inlined)->funcid == funcid) ||
		(IsA(inlined, OpExpr) && ((OpExpr *) inlined)->opfuncid == funcid))
		return inlined;			/* not inlined: not SAFE (errors: the fixed one) */
	return safe_mutator(inlined, context);
}

static bool
listed_sql_function(Oid funcid)
{
	return allowed_builtin_lookup(funcid) != NULL && written_in_sql(funcid);
}

/*
 * A NULL of the result type: the wrappers' result is polymorphic on it, so
 * that the call printed as SQL (postgres_fdw ships it to a shard,
 * doc/scale-out.md) has the same type there.  The type's own collation: a
 * constant of another one is not shipped.
 */
static Const *
result_witness(Oid result_type)
{
	return makeNullConst(result_type, -1, get_typcollation(result_type));
}

/*
 * anon_dp_safe_call_*('funcid'::regprocedure, NULL::result type, args): same
 * result type and collations
 */
static Expr *
safe_call(Oid funcid, Oid result_type, List *args, Oid collation, Oid input_collation,
		  int location)
{
	anon_dp_emitted wrapper = by_volatility(func_volatile(funcid), EMIT_SAFE_CALL_IMMUTABLE,
											EMIT_SAFE_CALL_STABLE, EMIT_SAFE_CALL_VOLATILE);
	Const	   *target = makeConst(REGPROCEDUREOID, -1, InvalidOid, sizeof(Oid),
								   ObjectIdGetDatum(funcid), false, true);
	FuncExpr   *call = makeFuncExpr(anon_dp_emitted_function(wrapper), result_type,
									lcons(target, lcons(result_witness(result_type), args)),
									collation, input_collation, COERCE_EXPLICIT_CALL);

	call->location = location;
	return (Expr *) call;
}

/* anon_dp_safe_io_*(NULL::result type, arg) with the cast's result type */
static Expr *
safe_io(CoerceViaIO *cast)
{
	Oid			output;
	Oid			input;
	Oid			ioparam;
	bool		varlena;
	char		volatility;
	FuncExpr   *call;

	if (!allow_list_type_allowed(exprType((Node *) cast->arg)) || !allow_list_type_allowed(cast->resulttype))
		return (Expr *) cast;
	getTypeOutputInfo(exprType((Node *) cast->arg), &output, &varlena);
	getTypeInputInfo(cast->resulttype, &input, &ioparam);
	if (func_parallel(output) != PROPARALLEL_SAFE || func_parallel(input) != PROPARALLEL_SAFE)
		return (Expr *) cast;
	volatility = Max(func_volatile(output), func_volatile(input));	/* 'i' < 's' < 'v' */
	call = makeFuncExpr(anon_dp_emitted_function(by_volatility(volatility, EMIT_SAFE_IO_IMMUTABLE,
																EMIT_SAFE_IO_STABLE,
																EMIT_SAFE_IO_VOLATILE)),
						cast->resulttype, list_make2(result_witness(cast->resulttype), cast->arg),
						cast->resultcollid,
						InvalidOid, COERCE_EXPLICIT_CALL);
	call->location = cast->location;
	return (Expr *) call;
}

/*
 * A call's arguments as the function receives them: named arguments in
 * their positions and the defaults of the arguments left out filled in (what
 * the planner does for the call itself later, and cannot do for a wrapper's
 * call, whose own parameters these are not).
 */
static List *
positional_arguments(FuncExpr *call)
{
	HeapTuple	tuple = SearchSysCache1(PROCOID, ObjectIdGetDatum(call->funcid));
	List	   *args;

	if (!HeapTupleIsValid(tuple))
		elog(ERROR, "cache lookup failed for function %u", call->funcid);
	args = expand_function_arguments(call->args, false, call->funcresulttype, tuple);
	ReleaseSysCache(tuple);
	return args;
}

static Node *
safe_mutator(Node *node, void *context)
{
	if (node == NULL)
		return NULL;
	if (IsA(node, Query))
		return (Node *) query_tree_mutator((Query *) node, safe_mutator, context, 0);
	node = expression_tree_mutator(node, safe_mutator, context);
	if (IsA(node, FuncExpr) && listed_sql_function(((FuncExpr *) node)->funcid))
		return inline_sql_call(node, ((FuncExpr *) node)->funcid, context);
	if (IsA(node, OpExpr))
	{
		set_opfuncid((OpExpr *) node);
		if (listed_sql_function(((OpExpr *) node)->opfuncid))
			return inline_sql_call(node, ((OpExpr *) node)->opfuncid, context);
	}
	if (IsA(node, FuncExpr))
	{
		FuncExpr   *f = (FuncExpr *) node;

		/*
		 * without arguments a call cannot fail on a value; a call with
		 * VARIADIC written out hands its array to a variadic "any" parameter
		 * as one value, which the wrapper's call could not tell apart (the
		 * allow-list refuses such calls where private values are read,
		 * allow_list.c; an array for a variadic parameter of an array type is
		 * an ordinary argument)
		 */
		if (f->args != NIL && wrappable(f->funcid) &&
			(!f->funcvariadic || get_func_variadictype(f->funcid) != ANYOID))
			return (Node *) safe_call(f->funcid, f->funcresulttype, positional_arguments(f),
									  f->funccollid, f->inputcollid, f->location);
	}
	else if (IsA(node, OpExpr))
	{
		OpExpr	   *op = (OpExpr *) node;

		set_opfuncid(op);
		if (wrappable(op->opfuncid) && get_op_btree_interpretation(op->opno) == NIL)
			return (Node *) safe_call(op->opfuncid, op->opresulttype, op->args, op->opcollid,
									  op->inputcollid, op->location);
	}
	else if (IsA(node, CoerceViaIO))
		return (Node *) safe_io((CoerceViaIO *) node);
	return node;
}

/* whether the statement reads a marked (private) input anywhere */
static bool
reads_private_rows_walker(Node *node, void *context)
{
	if (node == NULL)
		return false;
	if (IsA(node, Query))
	{
		if (range_table_has_marked_relation(((Query *) node)->rtable))
			return true;
		return query_tree_walker((Query *) node, reads_private_rows_walker, context, 0);
	}
	return expression_tree_walker(node, reads_private_rows_walker, context);
}

/*
 * Every level of a statement that reads private rows, not only the levels
 * that scan them: a value computed from private rows in a subquery, a WITH
 * query or a view is still private in the levels above (the arguments of
 * the ANON_* aggregates among them), and a call there that rejected it
 * would fail the statement on one user's value.
 */
void
make_private_calls_safe(Query *query)
{
	if (reads_private_rows_walker((Node *) query, NULL))
		query_tree_mutator(query, safe_mutator, NULL, QTW_DONT_COPY_QUERY);
}
