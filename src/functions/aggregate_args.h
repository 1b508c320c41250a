/*
 * aggregate_args.h -- the privacy parameters of a dp_* aggregate call.
 *
 * Bounds and privacy parameters are read from the aggregate call itself
 * (AggGetAggref, through the partial aggregate of a parallel plan) and must
 * be constants of the query: a value computed from the data, or a $n
 * parameter of a generic plan, is refused with an error naming the argument.
 */
#ifndef ANON_DP_AGGREGATE_ARGS_H
#define ANON_DP_AGGREGATE_ARGS_H

#include "fmgr.h"
#include "nodes/pg_list.h"
#include "nodes/primnodes.h"

#include "dp/dp_core.h"
#include "dp/dp_selection.h"

/* The aggregate's memory context (ERROR when not called as an aggregate). */
extern MemoryContext aggregate_context(FunctionCallInfo fcinfo, const char *function);

/* Argument expressions of the aggregate call, as the query wrote them. */
extern List *call_arguments(FunctionCallInfo fcinfo, const char *function);

/* The constant at argno (ERROR naming it when it is not a non-NULL constant). */
extern Const *constant_argument(List *args, int argno, const char *function, const char *name);
extern double double_argument(List *args, int argno, const char *function, const char *name);
extern int64 int64_argument(List *args, int argno, const char *function, const char *name);

/* float8 of a numeric, +-Infinity beyond the double range instead of an error */
extern double numeric_to_double(Datum value);

/* epsilon and contributions: the last two arguments of the Laplace dp_* aggregates */
typedef struct common_params
{
	double		epsilon;
	uint32		contributions;
} common_params;

extern common_params read_common(List *args, int epsilon_argno, const char *function);

/*
 * (epsilon, delta, max_groups_contributed[, mechanism]) from epsilon_argno
 * on: the selection and Gaussian aggregates.  mechanism may be NULL when the
 * call has none.
 */
typedef struct selection_params
{
	double		epsilon;
	double		delta;
	int64		max_groups;
	dp_selection_mechanism mechanism;
} selection_params;

extern selection_params read_selection(List *args, int epsilon_argno, bool has_mechanism,
									   const char *function);

/* ERROR for a failed init of the DP core, naming the argument that caused it. */
extern void check_init(dp_status status, const char *function);

#endif							/* ANON_DP_AGGREGATE_ARGS_H */
