/*
 * auto_bounds.c -- the building blocks of ANON_SUM(x), ANON_AVG(x),
 * ANON_VAR(x) and ANON_STDDEV(x) written without bounds (paper Sec. 5.1.1,
 * src/dp/dp_auto_bounds.h).
 *
 *   dp_<t>_auto(value float8, epsilon float8, contributions int4) -> float8
 *   dp_<t>_auto_bounds(...) -> float8[] {value, lower bound, upper bound}
 *   for <t> = sum, avg, var, stddev
 *
 * Each input row is one user's value in the partition (the rewriter's
 * per-user partial).  The state keeps the values of the partition; the final
 * function spends DP_AUTO_HISTOGRAM_SHARE of epsilon on the noisy
 * logarithmic histogram that chooses [lower, upper], then runs the bounded
 * sum, mean or variance of src/dp with the rest of epsilon and those bounds.
 * The release's epsilon argument is the whole of both (what the budget
 * charges).  When no bin of the histogram passes its threshold (too few
 * users) the result is SQL NULL: a fixed fallback, never an error.
 *
 * The state grows with the users of a partition (8 bytes each); the blocks
 * are PARALLEL RESTRICTED like every building block and have no combine
 * function.
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "fmgr.h"
#include "nodes/pg_list.h"
#include "utils/array.h"
#include "utils/lsyscache.h"

#include "dp/dp_aggregate.h"
#include "dp/dp_auto_bounds.h"
#include "dp/dp_quantile.h"
#include "functions/aggregate_args.h"
#include "functions/auto_bounds.h"

/* what runs with the chosen bounds */
typedef enum auto_target
{
	AUTO_SUM,					/* dp_sum; the bounds keep 0 inside */
	AUTO_MEAN,					/* dp_mean */
	AUTO_VARIANCE,				/* dp_variance */
	AUTO_STDDEV,				/* sqrt of dp_variance */
	AUTO_QUANTILE				/* dp_quantile at a percentile */
} auto_target;

typedef struct auto_state
{
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

/* The bounded aggregate of the values in [lower, upper] with epsilon, or a check only. */
static double
bounded_release(const double *values, int64 count, auto_target target, double epsilon,
				uint32 contributions, double lower, double upper, double percentile,
				bool draw, const char *function)
{
	int64		i;

	if (target == AUTO_QUANTILE)
	{
		dp_quantile q;
		double		result = 0;

		check_init(dp_check_percentile(percentile), function);
		check_init(dp_quantile_init(&q, lower, upper, epsilon, contributions), function);
		for (i = 0; i < count; i++)
			dp_quantile_add(&q, values[i]);
		if (draw)
			result = dp_quantile_release(dp_rng_secure(), &q, percentile);
		dp_quantile_free(&q);
		return result;
	}

	if (target == AUTO_SUM)
	{
		dp_sum		sum;

		check_init(dp_sum_init_real(&sum, lower, upper, epsilon, contributions), function);
		for (i = 0; i < count; i++)
			dp_sum_add_real(&sum, values[i]);
		return draw ? dp_sum_release_real(dp_rng_secure(), &sum) : 0;
	}
	if (target == AUTO_MEAN)
	{
		dp_mean		m;

		check_init(dp_mean_init(&m, lower, upper, epsilon, contributions), function);
		for (i = 0; i < count; i++)
			dp_mean_add(&m, values[i]);
		return draw ? dp_mean_release(dp_rng_secure(), &m) : 0;
	}
	else
	{
		dp_variance v;
		double		variance;

		check_init(dp_variance_init(&v, lower, upper, epsilon, contributions), function);
		for (i = 0; i < count; i++)
			dp_variance_add(&v, values[i]);
		if (!draw)
			return 0;
		variance = dp_variance_release(dp_rng_secure(), &v);
		return target == AUTO_STDDEV ? sqrt(variance) : variance;
	}
}

/*
 * epsilon and contributions of a call: (value, epsilon, contributions).  The
 * histogram's plan and the value's, with the widest and the narrowest bounds
 * the histogram may choose, are checked here: a failure depends on the
 * constants only, never on whether or which bounds were found.
 */
static common_params
auto_arguments(List *args, auto_target target, const char *function, double *percentile)
{
	/* (value, epsilon, contributions), or (value, percentile, epsilon, contributions) */
	int			epsilon_argno = target == AUTO_QUANTILE ? 2 : 1;
	common_params common = read_common(args, epsilon_argno, function);
	double		histogram = common.epsilon * DP_AUTO_HISTOGRAM_SHARE;
	double		widest = ldexp(1.0, DP_AUTO_K_MAX);
	double		narrowest = ldexp(1.0, DP_AUTO_K_MIN);
	double		p = target == AUTO_QUANTILE ? double_argument(args, 1, function, "percentile") : 0;
	dp_noise_plan plan;

	check_init(dp_laplace_plan_make(1.0, histogram, common.contributions, &plan), function);
	(void) bounded_release(NULL, 0, target, common.epsilon - histogram, common.contributions,
						   -widest, widest, p, false, function);
	(void) bounded_release(NULL, 0, target, common.epsilon - histogram, common.contributions,
						   -narrowest, narrowest, p, false, function);
	if (percentile != NULL)
		*percentile = p;
	return common;
}

/* the target of a block by its name: dp_sum_auto, dp_avg_auto_bounds, ... */
static auto_target
block_target(const char *block)
{
	if (strncmp(block, "dp_avg", 6) == 0)
		return AUTO_MEAN;
	if (strncmp(block, "dp_var", 6) == 0)
		return AUTO_VARIANCE;
	if (strncmp(block, "dp_stddev", 9) == 0)
		return AUTO_STDDEV;
	if (strncmp(block, "dp_ntile", 8) == 0)
		return AUTO_QUANTILE;
	return AUTO_SUM;
}

void
anon_dp_check_auto_arguments(List *args, const char *block, const char *function)
{
	(void) auto_arguments(args, block_target(block), function, NULL);
}

static auto_state *
auto_new(FunctionCallInfo fcinfo, const char *function)
{
	auto_state *s = palloc0(sizeof(auto_state));

	(void) auto_arguments(call_arguments(fcinfo, function), block_target(function), function,
						  NULL);
	return s;
}

/* the name of the block being run (dp_sum_auto, ...), for its errors */
static const char *
running_block(FunctionCallInfo fcinfo)
{
	Aggref	   *aggref = AggGetAggref(fcinfo);
	char	   *name = aggref == NULL ? NULL : get_func_name(aggref->aggfnoid);

	return name == NULL ? "dp_auto" : name;
}

/* one transition function serves every block */
PG_FUNCTION_INFO_V1(dp_auto_transfn);
Datum
dp_auto_transfn(PG_FUNCTION_ARGS)
{
	MemoryContext old = MemoryContextSwitchTo(aggregate_context(fcinfo, "dp_auto"));
	auto_state *s = PG_ARGISNULL(0) ? auto_new(fcinfo, running_block(fcinfo))
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

/* The histogram chooses the bounds, then the bounded aggregate runs. */
static auto_result
auto_release(FunctionCallInfo fcinfo, auto_target target)
{
	const char *function = running_block(fcinfo);
	/* checked for this target before anything is drawn (the transition is shared) */
	double		percentile;
	common_params common = auto_arguments(call_arguments(fcinfo, function), target, function,
										  &percentile);
	auto_state *s = PG_ARGISNULL(0) ? NULL : (auto_state *) PG_GETARG_POINTER(0);
	uint64_t   *counts = palloc0(sizeof(uint64_t) * DP_AUTO_BIN_COUNT);
	double		histogram = common.epsilon * DP_AUTO_HISTOGRAM_SHARE;
	auto_result r = {false, 0, 0, 0};
	int64		count = s == NULL ? 0 : s->count;
	int64		i;

	for (i = 0; i < count; i++)
		counts[dp_auto_bin(s->values[i])]++;
	/* a sum keeps 0 inside its bounds (no extra sensitivity); the others do not */
	check_init(dp_auto_bounds(dp_rng_secure(), counts, histogram, common.contributions,
							  target == AUTO_SUM, &r.found, &r.lower, &r.upper), function);
	pfree(counts);
	if (r.found)
		r.value = bounded_release(s == NULL ? NULL : s->values, count, target,
								  common.epsilon - histogram, common.contributions,
								  r.lower, r.upper, percentile, true, function);
	/* a sum of values in [0, U] is at least 0 (a mean and the others stay in their bounds) */
	if (r.found && target == AUTO_SUM)
		r.value = dp_sum_within_bounds(r.value, r.lower, r.upper);
	return r;
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

/* the value, and the value with its bounds, of one target */
#define AUTO_FINALS(name, bounds_name, target) \
PG_FUNCTION_INFO_V1(name); \
Datum \
name(PG_FUNCTION_ARGS) \
{ \
	auto_result r = auto_release(fcinfo, target); \
 \
	if (!r.found) \
		PG_RETURN_NULL(); \
	PG_RETURN_FLOAT8(r.value); \
} \
PG_FUNCTION_INFO_V1(bounds_name); \
Datum \
bounds_name(PG_FUNCTION_ARGS) \
{ \
	auto_result r = auto_release(fcinfo, target); \
 \
	if (!r.found) \
		PG_RETURN_NULL(); \
	return bounded_array(r); \
}

AUTO_FINALS(dp_sum_auto_final, dp_sum_auto_bounds_final, AUTO_SUM)
AUTO_FINALS(dp_avg_auto_final, dp_avg_auto_bounds_final, AUTO_MEAN)
AUTO_FINALS(dp_var_auto_final, dp_var_auto_bounds_final, AUTO_VARIANCE)
AUTO_FINALS(dp_stddev_auto_final, dp_stddev_auto_bounds_final, AUTO_STDDEV)

/* ANON_MEDIAN(x), ANON_NTILE(x, p): the quantile with bounds the histogram chose */
PG_FUNCTION_INFO_V1(dp_ntile_auto_final);
Datum
dp_ntile_auto_final(PG_FUNCTION_ARGS)
{
	auto_result r = auto_release(fcinfo, AUTO_QUANTILE);

	if (!r.found)
		PG_RETURN_NULL();
	PG_RETURN_FLOAT8(r.value);
}
