/*
 * noisy_aggregates.c -- PostgreSQL glue for the cross-user DP aggregates.
 *
 * The SQL aggregates dp_count, dp_sum, dp_avg, dp_var, dp_stddev, dp_ntile
 * and dp_partition_count map the bounded aggregates of src/dp onto
 * PostgreSQL's transition / combine / serialize / deserialize / final
 * protocol.  Every input row is one contribution of one privacy unit (the
 * rewriter aggregates per user first); "contributions" says how many rows a
 * unit may contribute, and multiplies the sensitivity.
 *
 * Privacy parameters and bounds are read from the aggregate call itself
 * (AggGetAggref) and must be constants of the query: a value computed from
 * the data, or a $n parameter of a generic plan, is refused.  Reading them
 * from the call also lets the final function release a noisy value on empty
 * input, where no row ever carried the parameters.
 *
 * Noise is drawn only in final functions, which are VOLATILE.
 */
#include "postgres.h"

#include <float.h>
#include <math.h>

#include "catalog/pg_type.h"
#include "fmgr.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "nodes/execnodes.h"
#include "nodes/nodeFuncs.h"
#include "nodes/primnodes.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/float.h"
#include "utils/numeric.h"

#include "dp/dp_aggregate.h"
#include "dp/dp_interval.h"
#include "dp/dp_quantile.h"
#include "dp/dp_quantile_rows.h"
#include "dp/dp_params.h"
#include "dp_errors.h"
#include "functions/aggregate_args.h"
#include "functions/intervals.h"
#include "functions/auto_bounds.h"
#include "functions/noisy_aggregates.h"
#include "settings.h"

/* ---- sum and count ---- */

typedef enum sum_kind
{
	SUM_COUNT,					/* (value int8, upper int8, epsilon, contributions) */
	SUM_INTEGER,				/* (value int, lower int, upper int, epsilon, contributions) */
	SUM_FLOAT					/* (value float8|numeric, lower, upper, epsilon, contributions) */
} sum_kind;

/*
 * The state of a sum or count, from its call: (value, [lower,] upper,
 * epsilon, contributions) with Laplace noise, or (value, [lower,] upper,
 * epsilon, delta, max_groups_contributed) for the Gaussian blocks
 * dp_gaussian_count and dp_gaussian_sum, one argument more.
 */
static dp_sum *
sum_from_arguments(List *args, sum_kind kind, const char *function)
{
	int			epsilon_argno = kind == SUM_COUNT ? 2 : 3;
	bool		gaussian = list_length(args) == epsilon_argno + 3;
	dp_sum	   *s = palloc0(sizeof(dp_sum));
	common_params common = {0.0, 1};
	selection_params gauss = {0};
	dp_status	status;

	if (gaussian)
	{
		gauss = read_selection(args, epsilon_argno, false, function);
		common.epsilon = gauss.epsilon;
	}
	else
		common = read_common(args, epsilon_argno, function);
	if (kind == SUM_COUNT)
		status = dp_count_init(s, int64_argument(args, 1, function, "upper bound"),
							   common.epsilon, common.contributions);
	else if (kind == SUM_INTEGER)
		status = dp_sum_init_int(s, int64_argument(args, 1, function, "lower bound"),
								 int64_argument(args, 2, function, "upper bound"),
								 common.epsilon, common.contributions);
	else
		status = dp_sum_init_real(s, double_argument(args, 1, function, "lower bound"),
								  double_argument(args, 2, function, "upper bound"),
								  common.epsilon, common.contributions);
	check_init(status, function);
	if (gaussian)
		check_init(dp_sum_use_gaussian(s, gauss.delta, gauss.max_groups), function);
	return s;
}

static dp_sum *
sum_new(FunctionCallInfo fcinfo, sum_kind kind, const char *function)
{
	return sum_from_arguments(call_arguments(fcinfo, function), kind, function);
}

static dp_sum *
sum_state(FunctionCallInfo fcinfo, sum_kind kind, const char *function)
{
	MemoryContext old;
	dp_sum	   *s;

	if (likely(!PG_ARGISNULL(0)))
		return (dp_sum *) PG_GETARG_POINTER(0);
	old = MemoryContextSwitchTo(aggregate_context(fcinfo, function));
	s = sum_new(fcinfo, kind, function);
	MemoryContextSwitchTo(old);
	return s;
}

PG_FUNCTION_INFO_V1(dp_count_transfn);
Datum
dp_count_transfn(PG_FUNCTION_ARGS)
{
	dp_sum	   *s = sum_state(fcinfo, SUM_COUNT, "dp_count");

	if (!PG_ARGISNULL(1))
		dp_sum_add_int(s, PG_GETARG_INT64(1));
	PG_RETURN_POINTER(s);
}

PG_FUNCTION_INFO_V1(dp_sum_int4_transfn);
Datum
dp_sum_int4_transfn(PG_FUNCTION_ARGS)
{
	dp_sum	   *s = sum_state(fcinfo, SUM_INTEGER, "dp_sum");

	if (!PG_ARGISNULL(1))
		dp_sum_add_int(s, (int64) PG_GETARG_INT32(1));
	PG_RETURN_POINTER(s);
}

PG_FUNCTION_INFO_V1(dp_sum_int8_transfn);
Datum
dp_sum_int8_transfn(PG_FUNCTION_ARGS)
{
	dp_sum	   *s = sum_state(fcinfo, SUM_INTEGER, "dp_sum");

	if (!PG_ARGISNULL(1))
		dp_sum_add_int(s, PG_GETARG_INT64(1));
	PG_RETURN_POINTER(s);
}

PG_FUNCTION_INFO_V1(dp_sum_float8_transfn);
Datum
dp_sum_float8_transfn(PG_FUNCTION_ARGS)
{
	dp_sum	   *s = sum_state(fcinfo, SUM_FLOAT, "dp_sum");

	if (!PG_ARGISNULL(1))
		dp_sum_add_real(s, PG_GETARG_FLOAT8(1));
	PG_RETURN_POINTER(s);
}

PG_FUNCTION_INFO_V1(dp_sum_numeric_transfn);
Datum
dp_sum_numeric_transfn(PG_FUNCTION_ARGS)
{
	dp_sum	   *s = sum_state(fcinfo, SUM_FLOAT, "dp_sum");

	if (!PG_ARGISNULL(1))
		dp_sum_add_real(s, numeric_to_double(PG_GETARG_DATUM(1)));
	PG_RETURN_POINTER(s);
}

/* per-user sums of bigint columns arrive as numeric; bounds and result are bigint */
PG_FUNCTION_INFO_V1(dp_sum_numeric_int8_transfn);
Datum
dp_sum_numeric_int8_transfn(PG_FUNCTION_ARGS)
{
	dp_sum	   *s = sum_state(fcinfo, SUM_INTEGER, "dp_sum");

	if (!PG_ARGISNULL(1))
		dp_sum_add_real(s, numeric_to_double(PG_GETARG_DATUM(1)));
	PG_RETURN_POINTER(s);
}

/* Combine functions copy the first non-NULL state into the aggregate context. */
#define COMBINE_FLAT(fname, type, merge, function) \
PG_FUNCTION_INFO_V1(fname); \
Datum \
fname(PG_FUNCTION_ARGS) \
{ \
	MemoryContext context = aggregate_context(fcinfo, function); \
	type	   *into; \
 \
	if (PG_ARGISNULL(1)) \
		PG_RETURN_DATUM(PG_GETARG_DATUM(0)); \
	if (PG_ARGISNULL(0)) \
	{ \
		into = MemoryContextAlloc(context, sizeof(type)); \
		memcpy(into, PG_GETARG_POINTER(1), sizeof(type)); \
		PG_RETURN_POINTER(into); \
	} \
	into = (type *) PG_GETARG_POINTER(0); \
	merge(into, (type *) PG_GETARG_POINTER(1)); \
	PG_RETURN_POINTER(into); \
}

/* Flat states serialize as their bytes: they hold no pointers. */
#define SERIALIZE_FLAT(serial, deserial, type) \
PG_FUNCTION_INFO_V1(serial); \
Datum \
serial(PG_FUNCTION_ARGS) \
{ \
	bytea	   *out = palloc(VARHDRSZ + sizeof(type)); \
 \
	SET_VARSIZE(out, VARHDRSZ + sizeof(type)); \
	memcpy(VARDATA(out), PG_GETARG_POINTER(0), sizeof(type)); \
	PG_RETURN_BYTEA_P(out); \
} \
PG_FUNCTION_INFO_V1(deserial); \
Datum \
deserial(PG_FUNCTION_ARGS) \
{ \
	bytea	   *in = PG_GETARG_BYTEA_PP(0); \
	type	   *state; \
 \
	if (VARSIZE_ANY_EXHDR(in) != sizeof(type)) \
		ereport(ERROR, \
				(errcode(ERRCODE_DATA_CORRUPTED), \
				 errmsg("invalid serialized state for %s", #type))); \
	state = palloc(sizeof(type)); \
	memcpy(state, VARDATA_ANY(in), sizeof(type)); \
	PG_RETURN_POINTER(state); \
}

COMBINE_FLAT(dp_sum_combine, dp_sum, dp_sum_merge, "dp_sum")
SERIALIZE_FLAT(dp_sum_serialize, dp_sum_deserialize, dp_sum)

static dp_sum *
sum_final_state(FunctionCallInfo fcinfo, sum_kind kind, const char *function)
{
	if (!PG_ARGISNULL(0))
		return (dp_sum *) PG_GETARG_POINTER(0);
	return sum_new(fcinfo, kind, function);	/* empty input: still noisy */
}

static int64
saturate_int64(dp_i128 v)
{
	if (v > (dp_i128) PG_INT64_MAX)
		return PG_INT64_MAX;
	if (v < (dp_i128) PG_INT64_MIN)
		return PG_INT64_MIN;
	return (int64) v;
}

PG_FUNCTION_INFO_V1(dp_count_final);
Datum
dp_count_final(PG_FUNCTION_ARGS)
{
	dp_sum	   *s = sum_final_state(fcinfo, SUM_COUNT, "dp_count");

	PG_RETURN_INT64(saturate_int64(dp_sum_release_int(dp_rng_secure(), s)));
}

PG_FUNCTION_INFO_V1(dp_sum_int_final);
Datum
dp_sum_int_final(PG_FUNCTION_ARGS)
{
	dp_sum	   *s = sum_final_state(fcinfo, SUM_INTEGER, "dp_sum");

	PG_RETURN_INT64(saturate_int64(dp_sum_release_int(dp_rng_secure(), s)));
}

PG_FUNCTION_INFO_V1(dp_sum_float8_final);
Datum
dp_sum_float8_final(PG_FUNCTION_ARGS)
{
	dp_sum	   *s = sum_final_state(fcinfo, SUM_FLOAT, "dp_sum");

	PG_RETURN_FLOAT8(dp_sum_release_real(dp_rng_secure(), s));
}

PG_FUNCTION_INFO_V1(dp_sum_numeric_final);
Datum
dp_sum_numeric_final(PG_FUNCTION_ARGS)
{
	dp_sum	   *s = sum_final_state(fcinfo, SUM_FLOAT, "dp_sum");
	double		v = dp_sum_release_real(dp_rng_secure(), s);

	if (isinf(v))				/* post-processing: keep the result finite */
		v = v > 0 ? DBL_MAX : -DBL_MAX;
	PG_RETURN_DATUM(DirectFunctionCall1(float8_numeric, Float8GetDatum(v)));
}

/* ---- mean, variance, standard deviation: (value, lower, upper, epsilon, contributions) ---- */

typedef enum moment_kind
{
	MOMENT_MEAN,
	MOMENT_VARIANCE
} moment_kind;

static void *
moment_from_arguments(List *args, moment_kind kind, const char *function)
{
	double		lower = double_argument(args, 1, function, "lower bound");
	double		upper = double_argument(args, 2, function, "upper bound");
	common_params common = read_common(args, 3, function);

	if (kind == MOMENT_MEAN)
	{
		dp_mean    *m = palloc0(sizeof(dp_mean));

		check_init(dp_mean_init(m, lower, upper, common.epsilon, common.contributions),
				   function);
		return m;
	}
	else
	{
		dp_variance *v = palloc0(sizeof(dp_variance));

		check_init(dp_variance_init(v, lower, upper, common.epsilon, common.contributions),
				   function);
		return v;
	}
}

static void *
moment_new(FunctionCallInfo fcinfo, moment_kind kind, const char *function)
{
	return moment_from_arguments(call_arguments(fcinfo, function), kind, function);
}

static void *
moment_state(FunctionCallInfo fcinfo, moment_kind kind, const char *function)
{
	MemoryContext old;
	void	   *state;

	if (likely(!PG_ARGISNULL(0)))
		return PG_GETARG_POINTER(0);
	old = MemoryContextSwitchTo(aggregate_context(fcinfo, function));
	state = moment_new(fcinfo, kind, function);
	MemoryContextSwitchTo(old);
	return state;
}

PG_FUNCTION_INFO_V1(dp_avg_transfn);
Datum
dp_avg_transfn(PG_FUNCTION_ARGS)
{
	dp_mean    *m = moment_state(fcinfo, MOMENT_MEAN, "dp_avg");

	if (!PG_ARGISNULL(1))
		dp_mean_add(m, PG_GETARG_FLOAT8(1));
	PG_RETURN_POINTER(m);
}

COMBINE_FLAT(dp_avg_combine, dp_mean, dp_mean_merge, "dp_avg")
SERIALIZE_FLAT(dp_avg_serialize, dp_avg_deserialize, dp_mean)

PG_FUNCTION_INFO_V1(dp_avg_final);
Datum
dp_avg_final(PG_FUNCTION_ARGS)
{
	dp_mean    *m = PG_ARGISNULL(0) ? moment_new(fcinfo, MOMENT_MEAN, "dp_avg")
		: (dp_mean *) PG_GETARG_POINTER(0);

	PG_RETURN_FLOAT8(dp_mean_release(dp_rng_secure(), m));
}

/* dp_avg_ci: the mean and its 95 % interval from the same noisy count and sum */
PG_FUNCTION_INFO_V1(dp_avg_ci_final);
Datum
dp_avg_ci_final(PG_FUNCTION_ARGS)
{
	dp_mean    *m = PG_ARGISNULL(0) ? moment_new(fcinfo, MOMENT_MEAN, "dp_avg_ci")
		: (dp_mean *) PG_GETARG_POINTER(0);
	double		lower;
	double		upper;
	double		mean = dp_mean_release_interval(dp_rng_secure(), m, DP_INTERVAL_ALPHA,
												&lower, &upper);

	PG_RETURN_DATUM(anon_dp_interval_datum(fcinfo, mean, lower, upper));
}

PG_FUNCTION_INFO_V1(dp_var_transfn);
Datum
dp_var_transfn(PG_FUNCTION_ARGS)
{
	dp_variance *v = moment_state(fcinfo, MOMENT_VARIANCE, "dp_var");

	if (!PG_ARGISNULL(1))
		dp_variance_add(v, PG_GETARG_FLOAT8(1));
	PG_RETURN_POINTER(v);
}

COMBINE_FLAT(dp_var_combine, dp_variance, dp_variance_merge, "dp_var")
SERIALIZE_FLAT(dp_var_serialize, dp_var_deserialize, dp_variance)

static dp_variance *
variance_final_state(FunctionCallInfo fcinfo, const char *function)
{
	return PG_ARGISNULL(0) ? moment_new(fcinfo, MOMENT_VARIANCE, function)
		: (dp_variance *) PG_GETARG_POINTER(0);
}

PG_FUNCTION_INFO_V1(dp_var_final);
Datum
dp_var_final(PG_FUNCTION_ARGS)
{
	PG_RETURN_FLOAT8(dp_variance_release(dp_rng_secure(),
										 variance_final_state(fcinfo, "dp_var")));
}

PG_FUNCTION_INFO_V1(dp_stddev_final);
Datum
dp_stddev_final(PG_FUNCTION_ARGS)
{
	PG_RETURN_FLOAT8(sqrt(dp_variance_release(dp_rng_secure(),
											  variance_final_state(fcinfo, "dp_stddev"))));
}

/* ---- quantiles: (value, percentile, lower, upper, epsilon, contributions) ---- */

typedef struct quantile_state
{
	dp_quantile tree;
	double		percentile;
	dp_rows_histogram units;	/* dp_ntile_rows_adaptive: units by sample size */
} quantile_state;

static quantile_state *
quantile_from_arguments(List *args, const char *function)
{
	double		percentile = double_argument(args, 1, function, "percentile");
	double		lower = double_argument(args, 2, function, "lower bound");
	double		upper = double_argument(args, 3, function, "upper bound");
	common_params common = read_common(args, 4, function);
	quantile_state *q = palloc0(sizeof(quantile_state));

	check_init(dp_check_percentile(percentile), function);
	check_init(dp_quantile_init(&q->tree, lower, upper, common.epsilon,
								common.contributions), function);
	q->percentile = percentile;
	return q;
}

static quantile_state *
quantile_new(FunctionCallInfo fcinfo, const char *function)
{
	return quantile_from_arguments(call_arguments(fcinfo, function), function);
}

PG_FUNCTION_INFO_V1(dp_ntile_transfn);
Datum
dp_ntile_transfn(PG_FUNCTION_ARGS)
{
	MemoryContext context = aggregate_context(fcinfo, "dp_ntile");
	MemoryContext old = MemoryContextSwitchTo(context);
	quantile_state *q;

	q = PG_ARGISNULL(0) ? quantile_new(fcinfo, "dp_ntile")
		: (quantile_state *) PG_GETARG_POINTER(0);
	if (!PG_ARGISNULL(1))
		dp_quantile_add(&q->tree, PG_GETARG_FLOAT8(1));	/* may grow the table */
	MemoryContextSwitchTo(old);
	PG_RETURN_POINTER(q);
}

/*
 * dp_ntile_rows(values float8[], percentile, lower, upper, epsilon,
 * max_values): each row is one user's sample of at most max_values values
 * (anon_dp_sample); values beyond max_values in a row are not added, so a
 * user adds at most max_values values whatever the input.
 * dp_ntile_rows_adaptive (same arguments) also keeps each value's position
 * in its row (dp_quantile_rows.h) and chooses how many per user to use.
 */
static Datum
ntile_rows_add(FunctionCallInfo fcinfo, const char *function, bool positions)
{
	MemoryContext context = aggregate_context(fcinfo, function);
	MemoryContext old = MemoryContextSwitchTo(context);
	quantile_state *q;

	q = PG_ARGISNULL(0) ? quantile_new(fcinfo, function)
		: (quantile_state *) PG_GETARG_POINTER(0);
	if (!PG_ARGISNULL(1))
	{
		ArrayType  *values = PG_GETARG_ARRAYTYPE_P(1);
		Datum	   *elements;
		bool	   *nulls;
		double	   *sample;
		int			n;
		int			i;
		uint32		used = 0;

		deconstruct_array(values, FLOAT8OID, sizeof(float8), FLOAT8PASSBYVAL, TYPALIGN_DOUBLE,
						  &elements, &nulls, &n);
		sample = palloc(sizeof(double) * Max(n, 1));
		for (i = 0; i < n && used < q->tree.plan.contributions; i++)
			if (!nulls[i])
				sample[used++] = DatumGetFloat8(elements[i]);
		if (positions)
			dp_rows_add_unit(&q->tree, &q->units, sample, used, q->tree.plan.contributions);
		else
			for (i = 0; i < (int) used; i++)
				dp_quantile_add(&q->tree, sample[i]);
		pfree(sample);
		pfree(elements);
		pfree(nulls);
	}
	MemoryContextSwitchTo(old);
	PG_RETURN_POINTER(q);
}

PG_FUNCTION_INFO_V1(dp_ntile_rows_transfn);
Datum
dp_ntile_rows_transfn(PG_FUNCTION_ARGS)
{
	return ntile_rows_add(fcinfo, "dp_ntile_rows", false);
}

PG_FUNCTION_INFO_V1(dp_ntile_rows_adaptive_transfn);
Datum
dp_ntile_rows_adaptive_transfn(PG_FUNCTION_ARGS)
{
	return ntile_rows_add(fcinfo, "dp_ntile_rows_adaptive", true);
}

static quantile_state *
ntile_rows_final_state(FunctionCallInfo fcinfo, const char *function)
{
	quantile_state *q = PG_ARGISNULL(0) ? quantile_new(fcinfo, function)
		: (quantile_state *) PG_GETARG_POINTER(0);

	if (q->tree.plan.contributions > 65536)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid contributions for %s: must be between 1 and 65536", function),
				 errhint("Let each privacy unit contribute at most 65536 values.")));
	return q;
}

PG_FUNCTION_INFO_V1(dp_ntile_rows_final);
Datum
dp_ntile_rows_final(PG_FUNCTION_ARGS)
{
	quantile_state *q = ntile_rows_final_state(fcinfo, "dp_ntile_rows");

	PG_RETURN_FLOAT8(dp_quantile_release_rows(dp_rng_secure(), &q->tree, q->percentile));
}

PG_FUNCTION_INFO_V1(dp_ntile_rows_adaptive_final);
Datum
dp_ntile_rows_adaptive_final(PG_FUNCTION_ARGS)
{
	quantile_state *q = ntile_rows_final_state(fcinfo, "dp_ntile_rows_adaptive");

	PG_RETURN_FLOAT8(dp_quantile_release_rows_adaptive(dp_rng_secure(), &q->tree, &q->units,
													   q->percentile, NULL));
}

PG_FUNCTION_INFO_V1(dp_ntile_combine);
Datum
dp_ntile_combine(PG_FUNCTION_ARGS)
{
	MemoryContext context = aggregate_context(fcinfo, "dp_ntile");
	MemoryContext old;
	quantile_state *into;
	quantile_state *from;
	int			i;

	if (PG_ARGISNULL(1))
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	from = (quantile_state *) PG_GETARG_POINTER(1);
	old = MemoryContextSwitchTo(context);
	if (PG_ARGISNULL(0))
	{
		into = palloc(sizeof(quantile_state));
		*into = *from;
		into->tree.capacity = 0;
		into->tree.used = 0;
		into->tree.keys = NULL;
		into->tree.counts = NULL;
		memset(&into->units, 0, sizeof(into->units));
	}
	else
		into = (quantile_state *) PG_GETARG_POINTER(0);
	dp_quantile_merge(&into->tree, &from->tree);
	for (i = 0; i < DP_QTREE_ROW_CLASSES; i++)
		into->units.units[i] += from->units.units[i];
	MemoryContextSwitchTo(old);
	PG_RETURN_POINTER(into);
}

/* serialized: header (tree with pointers cleared), then (leaf, count) pairs */
typedef struct quantile_entry
{
	uint32		leaf;
	uint64		count;
} quantile_entry;

PG_FUNCTION_INFO_V1(dp_ntile_serialize);
Datum
dp_ntile_serialize(PG_FUNCTION_ARGS)
{
	quantile_state *q = (quantile_state *) PG_GETARG_POINTER(0);
	quantile_state header = *q;
	Size		size = VARHDRSZ + sizeof(quantile_state) +
		(Size) q->tree.used * sizeof(quantile_entry);
	bytea	   *out = palloc(size);
	quantile_entry *entries = (quantile_entry *) (VARDATA(out) + sizeof(quantile_state));
	uint32		cursor = 0;
	uint32		n = 0;
	uint32		leaf;
	uint64		count;

	header.tree.keys = NULL;
	header.tree.counts = NULL;
	header.tree.capacity = 0;
	SET_VARSIZE(out, size);
	memcpy(VARDATA(out), &header, sizeof(quantile_state));
	while (dp_quantile_next(&q->tree, &cursor, &leaf, &count))
	{
		quantile_entry e;

		e.leaf = leaf;
		e.count = count;
		memcpy(&entries[n++], &e, sizeof(e));
	}
	PG_RETURN_BYTEA_P(out);
}

PG_FUNCTION_INFO_V1(dp_ntile_deserialize);
Datum
dp_ntile_deserialize(PG_FUNCTION_ARGS)
{
	bytea	   *in = PG_GETARG_BYTEA_PP(0);
	Size		len = VARSIZE_ANY_EXHDR(in);
	const char *data = VARDATA_ANY(in);
	quantile_state *q = palloc(sizeof(quantile_state));
	uint32		used;
	uint32		i;

	if (len < sizeof(quantile_state))
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("invalid serialized state for dp_ntile")));
	memcpy(q, data, sizeof(quantile_state));
	used = q->tree.used;
	if (len != sizeof(quantile_state) + (Size) used * sizeof(quantile_entry))
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("invalid serialized state for dp_ntile")));
	q->tree.used = 0;
	for (i = 0; i < used; i++)
	{
		quantile_entry e;

		memcpy(&e, data + sizeof(quantile_state) + i * sizeof(quantile_entry), sizeof(e));
		if (e.leaf >= DP_QTREE_CELLS)
			ereport(ERROR,
					(errcode(ERRCODE_DATA_CORRUPTED),
					 errmsg("invalid serialized state for dp_ntile")));
		dp_quantile_add_leaf(&q->tree, e.leaf, e.count);
		if ((i + 1) % 65536 == 0)
			CHECK_FOR_INTERRUPTS();	/* up to 1,114,112 cells: ~60 ms */
	}
	PG_RETURN_POINTER(q);
}

PG_FUNCTION_INFO_V1(dp_ntile_final);
Datum
dp_ntile_final(PG_FUNCTION_ARGS)
{
	quantile_state *q = PG_ARGISNULL(0) ? quantile_new(fcinfo, "dp_ntile")
		: (quantile_state *) PG_GETARG_POINTER(0);

	PG_RETURN_FLOAT8(dp_quantile_release(dp_rng_secure(), &q->tree, q->percentile));
}

/* ---- the checks of a call, before it runs ---- */

/* the selection blocks: (value, [lower, upper,] epsilon, delta, max_groups, mechanism) */
static void
check_selection_arguments(List *args, int epsilon_argno, const char *function)
{
	selection_params p = read_selection(args, epsilon_argno, true, function);
	dp_selection sel;

	check_init(dp_selection_make(p.mechanism, p.epsilon, p.delta, p.max_groups, true, &sel),
			   function);
}

/*
 * The checks a building block's final function makes on the constant
 * arguments of its call (args: its TargetEntry list, folded as the planner
 * folds it), with errors that name function.  The anonymizer runs them on
 * every release of a rewritten query (src/anonymizer/release_arguments.c),
 * so that a bad bound is refused when the query is analysed, under the name
 * of the ANON_* aggregate the analyst wrote.  block is the name of the
 * aggregate the rewrite emitted (Laplace, Gaussian or selecting variant).
 */
void
anon_dp_check_block_arguments(const char *block, List *args, const char *function)
{
	if (strcmp(block, "dp_count") == 0 || strcmp(block, "dp_gaussian_count") == 0)
		(void) sum_from_arguments(args, SUM_COUNT, function);
	else if (strcmp(block, "dp_sum_bigint") == 0 || strcmp(block, "dp_gaussian_sum_bigint") == 0)
		(void) sum_from_arguments(args, SUM_INTEGER, function);
	else if (strcmp(block, "dp_sum") == 0 || strcmp(block, "dp_gaussian_sum") == 0)
	{
		bool		integer = list_length(args) > 1 &&
			exprType((Node *) ((TargetEntry *) lsecond(args))->expr) == INT8OID;

		(void) sum_from_arguments(args, integer ? SUM_INTEGER : SUM_FLOAT, function);
	}
	else if (strcmp(block, "dp_avg") == 0 || strcmp(block, "dp_avg_ci") == 0)
		(void) moment_from_arguments(args, MOMENT_MEAN, function);
	else if (strcmp(block, "dp_var") == 0 || strcmp(block, "dp_stddev") == 0)
		(void) moment_from_arguments(args, MOMENT_VARIANCE, function);
	else if (strcmp(block, "dp_ntile") == 0 || strcmp(block, "dp_ntile_rows") == 0)
		(void) quantile_from_arguments(args, function);
	else if (strcmp(block, "dp_ntile_rows_adaptive") == 0)
	{
		quantile_state *q = quantile_from_arguments(args, function);

		check_init(dp_rows_check(q->tree.plan.epsilon, q->tree.plan.contributions), function);
	}
	else if (strstr(block, "_auto") != NULL)
		anon_dp_check_auto_arguments(args, block, function);
	else if (strcmp(block, "dp_count_select") == 0)
		check_selection_arguments(args, 1, function);
	else if (strcmp(block, "dp_avg_select") == 0)
	{
		dp_mean		mean;

		check_init(dp_mean_init(&mean, double_argument(args, 1, function, "lower bound"),
								double_argument(args, 2, function, "upper bound"),
								read_selection(args, 3, true, function).epsilon, 1), function);
		check_selection_arguments(args, 3, function);
	}
	else if (strcmp(block, "dp_count_distinct") == 0)
	{
		int64		k = int64_argument(args, 1, function, "k");

		if (k < 1 || k > ANON_DP_MAX_CONTRIBUTIONS)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("invalid number of distinct values for %s: must be between 1 and %d",
							function, ANON_DP_MAX_CONTRIBUTIONS),
					 errhint("The second argument of %s(DISTINCT value, k) is the number of distinct values one privacy unit may contribute to a partition.",
							 function)));
		(void) read_common(args, 2, function);
	}
	else
		elog(ERROR, "anon_dp: no argument checks for building block %s", block);
}

/* ---- the noise of a call, for intervals and anon_dp_explain ---- */

static anon_block_noise
noise_of_plan(const dp_noise_plan *plan)
{
	anon_block_noise n = {"none", 0.0, 0.0};

	if (plan->sigma > 0)
	{
		n.mechanism = "Gaussian";
		n.scale = dp_gaussian_plan_sigma(plan);
	}
	else if (plan->t > 0)
	{
		n.mechanism = plan->truncation > 0 ? "truncated Laplace" : "Laplace";
		n.scale = dp_laplace_plan_scale(plan);
	}
	n.half_width = dp_interval_half_width(plan, DP_INTERVAL_ALPHA);
	return n;
}

static anon_block_noise
noise_of_mean(const dp_mean *m)
{
	anon_block_noise n = noise_of_plan(&m->count_plan);

	n.mean = true;
	n.count_scale = n.scale;
	n.count_half_width = dp_interval_half_width(&m->count_plan, DP_INTERVAL_ALPHA / 2.0);
	n.sum_scale = dp_laplace_plan_scale(&m->sum_plan);
	n.sum_half_width = dp_interval_half_width(&m->sum_plan, DP_INTERVAL_ALPHA / 2.0);
	n.scale = get_float8_nan();
	n.half_width = get_float8_nan();
	return n;
}

/* a count that also selects: the selection's noise (args from epsilon_argno) */
static dp_selection
selection_of(List *args, int epsilon_argno, const char *function)
{
	selection_params p = read_selection(args, epsilon_argno, true, function);
	dp_selection sel;

	check_init(dp_selection_make(p.mechanism, p.epsilon, p.delta, p.max_groups, true, &sel),
			   function);
	return sel;
}

anon_block_noise
anon_dp_block_noise(const char *block, List *args, const char *function)
{
	anon_block_noise none = {"Laplace", get_float8_nan(), get_float8_nan()};

	if (strstr(block, "_auto") != NULL)
	{
		/* bounds chosen by a noisy histogram: the scale depends on them */
		anon_dp_check_block_arguments(block, args, function);
		none.mechanism = strncmp(block, "dp_ntile", 8) == 0 ?
			"exponential, bounds from a noisy histogram" : "Laplace, bounds from a noisy histogram";
		return none;
	}
	if (strcmp(block, "dp_count") == 0 || strcmp(block, "dp_gaussian_count") == 0)
		return noise_of_plan(&sum_from_arguments(args, SUM_COUNT, function)->plan);
	if (strncmp(block, "dp_sum", 6) == 0 || strncmp(block, "dp_gaussian_sum", 15) == 0)
	{
		bool		integer = strstr(block, "bigint") != NULL ||
			exprType((Node *) ((TargetEntry *) lsecond(args))->expr) == INT8OID;

		return noise_of_plan(&sum_from_arguments(args, integer ? SUM_INTEGER : SUM_FLOAT,
												 function)->plan);
	}
	if (strcmp(block, "dp_avg") == 0 || strcmp(block, "dp_avg_ci") == 0)
		return noise_of_mean((dp_mean *) moment_from_arguments(args, MOMENT_MEAN, function));
	if (strcmp(block, "dp_count_select") == 0)
	{
		dp_selection sel = selection_of(args, 1, function);

		return noise_of_plan(&sel.count_plan);
	}
	if (strcmp(block, "dp_avg_select") == 0)
	{
		/* as dp_avg_select plans it: the selection on the mean's count (epsilon / 2) */
		selection_params p = read_selection(args, 3, true, function);
		dp_mean		m;
		dp_selection sel;

		check_init(dp_mean_init(&m, double_argument(args, 1, function, "lower bound"),
								double_argument(args, 2, function, "upper bound"),
								p.epsilon, 1), function);
		check_init(dp_mean_select(&m, &sel, p.mechanism, p.delta, p.max_groups), function);
		return noise_of_mean(&m);
	}
	if (strcmp(block, "dp_count_distinct") == 0)
	{
		dp_noise_plan plan;
		common_params common = read_common(args, 2, function);

		anon_dp_check_block_arguments(block, args, function);	/* k's range */
		check_init(dp_laplace_plan_make((double) int64_argument(args, 1, function, "k"),
										common.epsilon, common.contributions, &plan), function);
		return noise_of_plan(&plan);
	}
	anon_dp_check_block_arguments(block, args, function);
	if (strcmp(block, "dp_ntile_rows_adaptive") == 0)
		none.mechanism = "exponential, rows per user from a noisy histogram";
	else if (strncmp(block, "dp_ntile", 8) == 0)
		none.mechanism = "exponential";
	return none;						/* variance, quantiles: no interval */
}

/* ---- partition selection: (epsilon, delta, max_groups_contributed) ---- */

PG_FUNCTION_INFO_V1(dp_partition_count_transfn);
Datum
dp_partition_count_transfn(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT64(PG_GETARG_INT64(0) + 1);
}

/*
 * The noisy number of rows (privacy units, after per-unit aggregation) of
 * the partition if it reaches tau, else NULL: the rewriter drops partitions
 * whose count is NULL.
 */
PG_FUNCTION_INFO_V1(dp_partition_count_final);
Datum
dp_partition_count_final(PG_FUNCTION_ARGS)
{
	const char *function = "dp_partition_count";
	List	   *args = call_arguments(fcinfo, function);
	double		epsilon = double_argument(args, 0, function, "epsilon");
	double		delta = double_argument(args, 1, function, "delta");
	int64		max_groups = int64_argument(args, 2, function, "max_groups_contributed");
	int64		n = PG_ARGISNULL(0) ? 0 : PG_GETARG_INT64(0);
	dp_threshold threshold;
	dp_status	status = dp_threshold_make(epsilon, delta, max_groups, &threshold);
	double		noisy;

	anon_dp_check_threshold_status(status, function);
	if (!dp_threshold_release(dp_rng_secure(), &threshold, (uint64) n, &noisy))
		PG_RETURN_NULL();
	PG_RETURN_FLOAT8(noisy);
}
