/*
 * selection_aggregates.c -- PostgreSQL glue for partition selection
 * (src/dp/dp_selection.h, doc/noise.md "Partition selection").
 *
 *   dp_partition_select(epsilon, delta, max_groups, mechanism) -> bool
 *       keeps a partition of n rows (privacy units) with the mechanism's
 *       probability: true, or NULL when it is dropped
 *   dp_partition_public(listed, max_groups) -> bool
 *       the partitions of a public table: true for a key the public table
 *       lists, NULL for any other; names C_u for the privacy budget
 *       (src/budget/releases.c)
 *   dp_count_select(per_unit_count, epsilon, delta, max_groups, mechanism) -> bigint
 *       dp_count of per-unit counts clamped to [0, 1] whose noisy value also
 *       selects the partition: the count, or NULL when dropped
 *   dp_avg_select(value, lower, upper, epsilon, delta, max_groups, mechanism) -> float8
 *       dp_avg whose noisy count (half its epsilon) selects the partition
 *
 * Noise is drawn only in the final functions, which are VOLATILE; every
 * parameter is a constant read from the call (aggregate_args.h).
 */
#include "postgres.h"

#include "fmgr.h"

#include "dp/dp_aggregate.h"
#include "dp/dp_selection.h"
#include "dp_errors.h"
#include "functions/aggregate_args.h"

/* the selection of a call: (epsilon, delta, max_groups, mechanism) at argno */
static dp_selection
selection_of(List *args, int argno, bool counted, const char *function)
{
	selection_params p = read_selection(args, argno, true, function);
	dp_selection sel;

	check_init(dp_selection_make(p.mechanism, p.epsilon, p.delta, p.max_groups, counted, &sel),
			   function);
	return sel;
}

/* ---- dp_partition_select: the count of rows is the state (int8) ---- */

PG_FUNCTION_INFO_V1(dp_partition_select_final);
Datum
dp_partition_select_final(PG_FUNCTION_ARGS)
{
	const char *function = "dp_partition_select";
	dp_selection sel = selection_of(call_arguments(fcinfo, function), 0, false, function);
	int64		n = PG_ARGISNULL(0) ? 0 : PG_GETARG_INT64(0);

	if (!dp_selection_release(dp_rng_secure(), &sel, (dp_i128) n * sel.units_one, NULL))
		PG_RETURN_NULL();
	PG_RETURN_BOOL(true);
}

/* counts the rows that mark a listed key */
PG_FUNCTION_INFO_V1(dp_partition_public_transfn);
Datum
dp_partition_public_transfn(PG_FUNCTION_ARGS)
{
	int64		listed = PG_GETARG_INT64(0);

	if (!PG_ARGISNULL(1) && PG_GETARG_BOOL(1))
		listed++;
	PG_RETURN_INT64(listed);
}

PG_FUNCTION_INFO_V1(dp_partition_public_final);
Datum
dp_partition_public_final(PG_FUNCTION_ARGS)
{
	const char *function = "dp_partition_public";
	int64		max_groups = int64_argument(call_arguments(fcinfo, function), 1, function,
											"max_groups_contributed");

	check_init(dp_check_max_groups(max_groups), function);
	if (PG_ARGISNULL(0) || PG_GETARG_INT64(0) == 0)
		PG_RETURN_NULL();
	PG_RETURN_BOOL(true);
}

/* ---- dp_count_select ---- */

typedef struct count_select_state
{
	dp_selection sel;
	dp_i128		units;			/* exact count of units with a count >= 1 */
} count_select_state;

static count_select_state *
count_select_new(FunctionCallInfo fcinfo)
{
	const char *function = "dp_count_select";
	count_select_state *state = palloc0(sizeof(count_select_state));

	state->sel = selection_of(call_arguments(fcinfo, function), 1, true, function);
	return state;
}

PG_FUNCTION_INFO_V1(dp_count_select_transfn);
Datum
dp_count_select_transfn(PG_FUNCTION_ARGS)
{
	count_select_state *state;

	if (PG_ARGISNULL(0))
	{
		MemoryContext old = MemoryContextSwitchTo(aggregate_context(fcinfo, "dp_count_select"));

		state = count_select_new(fcinfo);
		MemoryContextSwitchTo(old);
	}
	else
		state = (count_select_state *) PG_GETARG_POINTER(0);
	/* per-unit counts clamped to [0, 1] */
	if (!PG_ARGISNULL(1) && PG_GETARG_INT64(1) >= 1)
		state->units += state->sel.units_one;
	PG_RETURN_POINTER(state);
}

PG_FUNCTION_INFO_V1(dp_count_select_final);
Datum
dp_count_select_final(PG_FUNCTION_ARGS)
{
	count_select_state *state = PG_ARGISNULL(0) ? count_select_new(fcinfo)
		: (count_select_state *) PG_GETARG_POINTER(0);
	dp_i128		noisy;
	dp_i128		count;

	if (!dp_selection_release(dp_rng_secure(), &state->sel, state->units, &noisy))
		PG_RETURN_NULL();
	count = dp_units_to_integer(&state->sel.count_plan, noisy);
	if (count > (dp_i128) PG_INT64_MAX)
		count = PG_INT64_MAX;
	PG_RETURN_INT64((int64) count);
}

/* ---- dp_avg_select ---- */

typedef struct avg_select_state
{
	dp_mean		mean;
	dp_selection sel;
} avg_select_state;

static avg_select_state *
avg_select_new(FunctionCallInfo fcinfo)
{
	const char *function = "dp_avg_select";
	List	   *args = call_arguments(fcinfo, function);
	double		lower = double_argument(args, 1, function, "lower bound");
	double		upper = double_argument(args, 2, function, "upper bound");
	selection_params p = read_selection(args, 3, true, function);
	avg_select_state *state = palloc0(sizeof(avg_select_state));

	check_init(dp_mean_init(&state->mean, lower, upper, p.epsilon, 1), function);
	check_init(dp_mean_select(&state->mean, &state->sel, p.mechanism, p.delta, p.max_groups),
			   function);
	return state;
}

PG_FUNCTION_INFO_V1(dp_avg_select_transfn);
Datum
dp_avg_select_transfn(PG_FUNCTION_ARGS)
{
	avg_select_state *state;

	if (PG_ARGISNULL(0))
	{
		MemoryContext old = MemoryContextSwitchTo(aggregate_context(fcinfo, "dp_avg_select"));

		state = avg_select_new(fcinfo);
		MemoryContextSwitchTo(old);
	}
	else
		state = (avg_select_state *) PG_GETARG_POINTER(0);
	if (!PG_ARGISNULL(1))
		dp_mean_add(&state->mean, PG_GETARG_FLOAT8(1));
	PG_RETURN_POINTER(state);
}

PG_FUNCTION_INFO_V1(dp_avg_select_final);
Datum
dp_avg_select_final(PG_FUNCTION_ARGS)
{
	avg_select_state *state = PG_ARGISNULL(0) ? avg_select_new(fcinfo)
		: (avg_select_state *) PG_GETARG_POINTER(0);
	double		mean;

	if (!dp_mean_release_selected(dp_rng_secure(), &state->mean, &state->sel, &mean))
		PG_RETURN_NULL();
	PG_RETURN_FLOAT8(mean);
}
