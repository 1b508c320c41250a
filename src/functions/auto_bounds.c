/*
 * auto_bounds.c -- the building blocks of ANON_SUM(x) and ANON_AVG(x)
 * written without bounds (paper Sec. 5.1.1, src/dp/dp_auto_bounds.h).
 *
 *   dp_sum_auto(value float8, epsilon float8, contributions int4) -> float8
 *   dp_avg_auto(value float8, epsilon float8, contributions int4) -> float8
 *   dp_sum_auto_bounds / dp_avg_auto_bounds(...) -> float8[]
 *       {value, lower bound, upper bound}
 *
 * Each input row is one user's value in the partition (the rewriter's
 * per-user partial).  The state keeps the values of the partition; the final
 * function spends DP_AUTO_HISTOGRAM_SHARE of epsilon on the noisy
 * logarithmic histogram that chooses [lower, upper], then runs the bounded
 * sum or mean of src/dp with the rest of epsilon and those bounds.  The
 * release's epsilon argument is the whole of both (what the budget charges).
 * When no bin of the histogram passes its threshold (too few users) the
 * result is SQL NULL: a fixed fallback, never an error.
 *
 * The state grows with the users of a partition (8 bytes each); the blocks
 * are PARALLEL RESTRICTED like every building block and have no combine
 * function.
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "fmgr.h"
#include "utils/array.h"
#include "nodes/pg_list.h"

#include "dp/dp_aggregate.h"
#include "dp/dp_auto_bounds.h"
#include "functions/aggregate_args.h"
#include "functions/auto_bounds.h"

typedef struct auto_state
{
	common_params common;
	int64		count;
	int64		capacity;
	double	   *values;
} auto_state;

/* The result of one final function, before it is returned. */
typedef struct auto_result
{
	bool		found;			/* false: the fallback, all NULL */
	double		value;
	double		lower;
	double		upper;
} auto_result;

/*
 * epsilon and contributions of a call: (value, epsilon, contributions).  The
 * histogram's plan and the value's, with any bounds the histogram may
 * choose, are checked here: a failure depends on the constants only, never
 * on whether bounds were found.
 */
static common_params
auto_arguments(List *args, bool mean, const char *function)
{
	common_params common = read_common(args, 1, function);
	double		histogram = common.epsilon * DP_AUTO_HISTOGRAM_SHARE;
	double		value = common.epsilon - histogram;
	dp_noise_plan plan;
	dp_mean		m;
	dp_sum		sum;
	double		widest = ldexp(1.0, DP_AUTO_K_MAX);
	double		narrowest = ldexp(1.0, DP_AUTO_K_MIN);

	check_init(dp_laplace_plan_make(1.0, histogram, common.contributions, &plan), function);
	if (mean)
	{
		check_init(dp_mean_init(&m, -widest, widest, value, common.contributions), function);
		check_init(dp_mean_init(&m, 0, narrowest, value, common.contributions), function);
	}
	else
	{
		check_init(dp_sum_init_real(&sum, -widest, widest, value, common.contributions),
				   function);
		check_init(dp_sum_init_real(&sum, -narrowest, narrowest, value, common.contributions),
				   function);
	}
	return common;
}

void
anon_dp_check_auto_arguments(List *args, bool mean, const char *function)
{
	(void) auto_arguments(args, mean, function);
}

static auto_state *
auto_new(FunctionCallInfo fcinfo, bool mean, const char *function)
{
	auto_state *s = palloc0(sizeof(auto_state));

	s->common = auto_arguments(call_arguments(fcinfo, function), mean, function);
	return s;
}

static Datum
auto_transition(FunctionCallInfo fcinfo, bool mean, const char *function)
{
	MemoryContext old = MemoryContextSwitchTo(aggregate_context(fcinfo, function));
	auto_state *s = PG_ARGISNULL(0) ? auto_new(fcinfo, mean, function)
		: (auto_state *) PG_GETARG_POINTER(0);

	if (!PG_ARGISNULL(1) && !isnan(PG_GETARG_FLOAT8(1)))
	{
		if (s->count == s->capacity)
		{
			s->capacity = s->capacity == 0 ? 64 : s->capacity * 2;
			s->values = s->values == NULL ? palloc(sizeof(double) * s->capacity)
				: repalloc_huge(s->values, sizeof(double) * s->capacity);
		}
		s->values[s->count++] = PG_GETARG_FLOAT8(1);
	}
	MemoryContextSwitchTo(old);
	PG_RETURN_POINTER(s);
}

PG_FUNCTION_INFO_V1(dp_sum_auto_transfn);
Datum
dp_sum_auto_transfn(PG_FUNCTION_ARGS)
{
	return auto_transition(fcinfo, false, "dp_sum_auto");
}

PG_FUNCTION_INFO_V1(dp_avg_auto_transfn);
Datum
dp_avg_auto_transfn(PG_FUNCTION_ARGS)
{
	return auto_transition(fcinfo, true, "dp_avg_auto");
}

/* the bounded sum or mean of the values with the rest of epsilon */
static double
bounded_release(const auto_state *s, bool mean, double epsilon, double lower, double upper,
				const char *function)
{
	int64		i;

	if (mean)
	{
		dp_mean		m;

		check_init(dp_mean_init(&m, lower, upper, epsilon, s->common.contributions), function);
		for (i = 0; i < s->count; i++)
			dp_mean_add(&m, s->values[i]);
		return dp_mean_release(dp_rng_secure(), &m);
	}
	else
	{
		dp_sum		sum;

		check_init(dp_sum_init_real(&sum, lower, upper, epsilon, s->common.contributions),
				   function);
		for (i = 0; i < s->count; i++)
			dp_sum_add_real(&sum, s->values[i]);
		return dp_sum_release_real(dp_rng_secure(), &sum);
	}
}

/* The histogram chooses the bounds, then the bounded aggregate runs. */
static auto_result
auto_release(FunctionCallInfo fcinfo, bool mean, const char *function)
{
	auto_state *s = PG_ARGISNULL(0) ? auto_new(fcinfo, mean, function)
		: (auto_state *) PG_GETARG_POINTER(0);
	uint64_t   *counts = palloc0(sizeof(uint64_t) * DP_AUTO_BIN_COUNT);
	double		histogram = s->common.epsilon * DP_AUTO_HISTOGRAM_SHARE;
	auto_result r = {false, 0, 0, 0};
	int64		i;

	for (i = 0; i < s->count; i++)
		counts[dp_auto_bin(s->values[i])]++;
	/* a sum keeps 0 inside its bounds (no extra sensitivity); a mean does not */
	check_init(dp_auto_bounds(dp_rng_secure(), counts, histogram, s->common.contributions,
							  !mean, &r.found, &r.lower, &r.upper), function);
	pfree(counts);
	if (r.found)
		r.value = bounded_release(s, mean, s->common.epsilon - histogram, r.lower, r.upper,
								  function);
	return r;
}

PG_FUNCTION_INFO_V1(dp_sum_auto_final);
Datum
dp_sum_auto_final(PG_FUNCTION_ARGS)
{
	auto_result r = auto_release(fcinfo, false, "dp_sum_auto");

	if (!r.found)
		PG_RETURN_NULL();
	PG_RETURN_FLOAT8(r.value);
}

PG_FUNCTION_INFO_V1(dp_avg_auto_final);
Datum
dp_avg_auto_final(PG_FUNCTION_ARGS)
{
	auto_result r = auto_release(fcinfo, true, "dp_avg_auto");

	if (!r.found)
		PG_RETURN_NULL();
	PG_RETURN_FLOAT8(r.value);
}

/* {value, lower bound, upper bound}: a built-in type, readable by analysts */
static Datum
bounded_array(auto_result r)
{
	Datum		values[3];

	values[0] = Float8GetDatum(r.value);
	values[1] = Float8GetDatum(r.lower);
	values[2] = Float8GetDatum(r.upper);
	return PointerGetDatum(construct_array(values, 3, FLOAT8OID, sizeof(float8),
										   FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
}

PG_FUNCTION_INFO_V1(dp_sum_auto_bounds_final);
Datum
dp_sum_auto_bounds_final(PG_FUNCTION_ARGS)
{
	auto_result r = auto_release(fcinfo, false, "dp_sum_auto_bounds");

	if (!r.found)
		PG_RETURN_NULL();
	return bounded_array(r);
}

PG_FUNCTION_INFO_V1(dp_avg_auto_bounds_final);
Datum
dp_avg_auto_bounds_final(PG_FUNCTION_ARGS)
{
	auto_result r = auto_release(fcinfo, true, "dp_avg_auto_bounds");

	if (!r.found)
		PG_RETURN_NULL();
	return bounded_array(r);
}
