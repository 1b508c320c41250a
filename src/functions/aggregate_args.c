/*
 * aggregate_args.c -- the privacy parameters of a dp_* aggregate call
 * (aggregate_args.h).
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "executor/executor.h"
#include "nodes/execnodes.h"
#include "utils/builtins.h"
#include "utils/numeric.h"

#include "dp/dp_params.h"
#include "dp_errors.h"
#include "functions/aggregate_args.h"
#include "settings.h"


MemoryContext
aggregate_context(FunctionCallInfo fcinfo, const char *function)
{
	MemoryContext context;

	if (!AggCheckCallContext(fcinfo, &context))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("%s can only be called as an aggregate", function)));
	return context;
}

/*
 * In a parallel plan the finalizing Aggref's only argument stands for the
 * partial aggregate computed below it: either the partial Aggref itself or,
 * after set_plan_references, an OUTER_VAR reference to it.  Follow such
 * references down the plan tree to the partial Aggref, whose arguments are
 * those the query wrote.
 */
/*
 * The node an OUTER_VAR of a node's targetlist refers to: its outer plan,
 * or for Append and MergeAppend (partitionwise aggregation: one partial
 * aggregate per partition, the same call in each) their first child.
 */
static PlanState *
referenced_child(PlanState *planstate)
{
	if (IsA(planstate, AppendState))
		return ((AppendState *) planstate)->as_nplans > 0 ?
			((AppendState *) planstate)->appendplans[0] : NULL;
	if (IsA(planstate, MergeAppendState))
		return ((MergeAppendState *) planstate)->ms_nplans > 0 ?
			((MergeAppendState *) planstate)->mergeplans[0] : NULL;
	return outerPlanState(planstate);
}

static Aggref *
partial_aggref(FunctionCallInfo fcinfo, Expr *expr)
{
	PlanState  *planstate = NULL;

	if (fcinfo->context && IsA(fcinfo->context, AggState))
		planstate = &((AggState *) fcinfo->context)->ss.ps;

	for (;;)
	{
		if (IsA(expr, Aggref))
			return (Aggref *) expr;
		if (IsA(expr, Var) && ((Var *) expr)->varno == OUTER_VAR &&
			planstate != NULL && referenced_child(planstate) != NULL)
		{
			Plan	   *outer;
			AttrNumber	attno = ((Var *) expr)->varattno;

			planstate = referenced_child(planstate);
			outer = planstate->plan;
			if (attno < 1 || attno > list_length(outer->targetlist))
				break;
			expr = ((TargetEntry *) list_nth(outer->targetlist, attno - 1))->expr;
			continue;
		}
		break;
	}
	return NULL;
}

/* Argument expressions of the aggregate call, as the query wrote them. */
List *
call_arguments(FunctionCallInfo fcinfo, const char *function)
{
	Aggref	   *aggref = AggGetAggref(fcinfo);

	if (aggref == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("%s can only be called as an aggregate", function)));
	if (DO_AGGSPLIT_COMBINE(aggref->aggsplit))
	{
		Aggref	   *partial = NULL;

		if (list_length(aggref->args) == 1)
			partial = partial_aggref(fcinfo,
									 ((TargetEntry *) linitial(aggref->args))->expr);
		if (partial == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("%s cannot find its arguments in this plan", function),
					 errhint("SET enable_partitionwise_aggregate = off for this query.")));
		aggref = partial;
	}
	return aggref->args;
}

Const *
constant_argument(List *args, int argno, const char *function, const char *name)
{
	Node	   *expr;

	if (argno >= list_length(args))
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("%s: argument %s is missing from the aggregate call", function, name)));
	expr = (Node *) ((TargetEntry *) list_nth(args, argno))->expr;
	while (IsA(expr, RelabelType))
		expr = (Node *) ((RelabelType *) expr)->arg;
	if (!IsA(expr, Const))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s of %s must be a constant", name, function),
				 errdetail("Clamping bounds and privacy parameters are part of the privacy guarantee; a value computed from the data or supplied as a query parameter could leak information."),
				 errhint("Write %s as a literal or constant expression in the query text.", name)));
	if (((Const *) expr)->constisnull)
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("%s of %s must not be NULL", name, function),
				 errhint("Write %s as a non-NULL constant.", name)));
	return (Const *) expr;
}

double
numeric_to_double(Datum value)
{
	/* +-Infinity out of double range instead of an error: bounds are clamped */
	return DatumGetFloat8(DirectFunctionCall1(numeric_float8_no_overflow, value));
}

double
double_argument(List *args, int argno, const char *function, const char *name)
{
	Const	   *c = constant_argument(args, argno, function, name);

	switch (c->consttype)
	{
		case FLOAT8OID:
			return DatumGetFloat8(c->constvalue);
		case FLOAT4OID:
			return (double) DatumGetFloat4(c->constvalue);
		case INT2OID:
			return (double) DatumGetInt16(c->constvalue);
		case INT4OID:
			return (double) DatumGetInt32(c->constvalue);
		case INT8OID:
			return (double) DatumGetInt64(c->constvalue);
		case NUMERICOID:
			return numeric_to_double(c->constvalue);
	}
	ereport(ERROR,
			(errcode(ERRCODE_DATATYPE_MISMATCH),
			 errmsg("%s of %s has unsupported type %s", name, function,
					format_type_be(c->consttype))));
	pg_unreachable();
}

int64
int64_argument(List *args, int argno, const char *function, const char *name)
{
	Const	   *c = constant_argument(args, argno, function, name);

	switch (c->consttype)
	{
		case INT2OID:
			return DatumGetInt16(c->constvalue);
		case INT4OID:
			return DatumGetInt32(c->constvalue);
		case INT8OID:
			return DatumGetInt64(c->constvalue);
	}
	ereport(ERROR,
			(errcode(ERRCODE_DATATYPE_MISMATCH),
			 errmsg("%s of %s has unsupported type %s", name, function,
					format_type_be(c->consttype))));
	pg_unreachable();
}

common_params
read_common(List *args, int epsilon_argno, const char *function)
{
	common_params p;
	int64		k;

	p.epsilon = double_argument(args, epsilon_argno, function, "epsilon");
	k = int64_argument(args, epsilon_argno + 1, function, "contributions");
	if (k < 1 || k > ANON_DP_MAX_CONTRIBUTIONS)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid contributions for %s: must be between 1 and %d", function,
						ANON_DP_MAX_CONTRIBUTIONS),
				 errhint("Pass 1 unless each privacy unit contributes several rows to this aggregate.")));
	p.contributions = (uint32) k;
	return p;
}

/* Map a failed init to the argument that caused it. */
void
check_init(dp_status status, const char *function)
{
	const char *argument;

	switch (status)
	{
		case DP_OK:
			return;
		case DP_ERR_EPSILON:
			argument = "epsilon";
			break;
		case DP_ERR_CONTRIBUTIONS:
			argument = "contributions";
			break;
		case DP_ERR_PERCENTILE:
			argument = "percentile";
			break;
		default:
			argument = "bounds";
			break;
	}
	anon_dp_report_status(status, function, argument);
}

selection_params
read_selection(List *args, int epsilon_argno, bool has_mechanism, const char *function)
{
	selection_params p;

	p.epsilon = double_argument(args, epsilon_argno, function, "epsilon");
	p.delta = double_argument(args, epsilon_argno + 1, function, "delta");
	p.max_groups = int64_argument(args, epsilon_argno + 2, function, "max_groups_contributed");
	p.mechanism = DP_SELECT_LAPLACE;
	if (has_mechanism)
	{
		Const	   *c = constant_argument(args, epsilon_argno + 3, function, "mechanism");
		char	   *name;

		if (c->consttype != TEXTOID)
			ereport(ERROR,
					(errcode(ERRCODE_DATATYPE_MISMATCH),
					 errmsg("mechanism of %s must be text", function)));
		name = TextDatumGetCString(c->constvalue);
		if (!dp_selection_parse(name, &p.mechanism))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("invalid mechanism for %s: \"%s\"", function, name),
					 errhint("Write 'laplace', 'optimal' or 'gaussian'.")));
	}
	if (p.max_groups < 1 || p.max_groups > ANON_DP_MAX_CONTRIBUTIONS)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid max_groups_contributed for %s: must be between 1 and %d",
						function, ANON_DP_MAX_CONTRIBUTIONS),
				 errhint("Pass anon_dp.max_groups_contributed, the partitions one privacy unit may contribute to.")));
	return p;
}
