/*
 * user_samples.c -- bounded samples of one privacy unit's values, the
 * per-user partials of row-level aggregates (doc/rewriter.md, step 1).
 *
 *   anon_dp_sample(value float8, m int4) -> float8[]
 *       up to m of the group's non-NULL, non-NaN values, a uniformly random
 *       subset (reservoir sampling with CSPRNG draws) in uniformly random
 *       order (so that its first j values are a uniform subset of j):
 *       ANON_MEDIAN and ANON_NTILE over the rows' values
 *   anon_dp_distinct_sample(value anyelement, k int4) -> anyarray
 *       up to k of the group's distinct non-NULL values, a uniformly random
 *       subset whatever their multiplicities: the k with the smallest keyed
 *       SipHash of the type's hash under a secret drawn for the group:
 *       ANON_COUNT(DISTINCT col)
 *
 * Which values are kept depends only on the group's own values and on
 * randomness drawn independently of the data, and the cross-user building
 * blocks bound what one array may add (dp_ntile_rows, dp_count_distinct), so
 * these samples carry no privacy argument of their own.  Memory is bounded by
 * m or k values per group.
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "fmgr.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/lsyscache.h"
#include "utils/typcache.h"

#include "dp/dp_prf.h"
#include "dp/dp_rng.h"
#include "dp/dp_sampler.h"
#include "functions/aggregate_args.h"
#include "functions/user_samples.h"

#define MAX_SAMPLE 65536

static int32
sample_size(int32 size, const char *function)
{
	if (size < 1 || size > MAX_SAMPLE)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid sample size for %s: must be between 1 and %d", function, MAX_SAMPLE),
				 errhint("Let each privacy unit contribute between 1 and %d values.", MAX_SAMPLE)));
	return size;
}

/* ---- anon_dp_sample ---- */

typedef struct value_sample
{
	int32		capacity;
	int32		used;
	int64		seen;
	double		values[FLEXIBLE_ARRAY_MEMBER];
} value_sample;

PG_FUNCTION_INFO_V1(anon_dp_sample_transfn);
Datum
anon_dp_sample_transfn(PG_FUNCTION_ARGS)
{
	MemoryContext context = aggregate_context(fcinfo, "anon_dp_sample");
	value_sample *sample;
	double		x;

	if (PG_ARGISNULL(0))
	{
		int32		m = sample_size(PG_ARGISNULL(2) ? 0 : PG_GETARG_INT32(2), "anon_dp_sample");

		sample = MemoryContextAllocZero(context, offsetof(value_sample, values) +
										sizeof(double) * m);
		sample->capacity = m;
	}
	else
		sample = (value_sample *) PG_GETARG_POINTER(0);
	if (PG_ARGISNULL(1) || isnan(x = PG_GETARG_FLOAT8(1)))
		PG_RETURN_POINTER(sample);
	/* reservoir: after t values, each is in the sample with probability m / t */
	if (sample->used < sample->capacity)
		sample->values[sample->used++] = x;
	else
	{
		uint64		j = dp_uniform_below(dp_rng_secure(), (uint64) sample->seen + 1);

		if (j < (uint64) sample->capacity)
			sample->values[j] = x;
	}
	sample->seen++;
	PG_RETURN_POINTER(sample);
}

PG_FUNCTION_INFO_V1(anon_dp_sample_final);
Datum
anon_dp_sample_final(PG_FUNCTION_ARGS)
{
	value_sample *sample;
	Datum	   *elements;
	int			i;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	sample = (value_sample *) PG_GETARG_POINTER(0);
	if (sample->used == 0)
		PG_RETURN_NULL();
	elements = palloc(sizeof(Datum) * sample->used);
	for (i = 0; i < sample->used; i++)
		elements[i] = Float8GetDatum(sample->values[i]);
	/* Fisher-Yates: the reservoir keeps the input's order where it did not replace */
	for (i = sample->used - 1; i > 0; i--)
	{
		int			j = (int) dp_uniform_below(dp_rng_secure(), (uint64) i + 1);
		Datum		swap = elements[i];

		elements[i] = elements[j];
		elements[j] = swap;
	}
	PG_RETURN_ARRAYTYPE_P(construct_array(elements, sample->used, FLOAT8OID, sizeof(float8),
										  FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
}

/* ---- anon_dp_distinct_sample ---- */

typedef struct distinct_sample
{
	Oid			type;
	int16		typlen;
	bool		typbyval;
	char		typalign;
	FmgrInfo	hash;			/* the type's extended hash: its equality's */
	uint8		secret[DP_PRF_KEY_BYTES];
	int32		capacity;
	int32		used;
	uint64	   *keys;
	Datum	   *values;
} distinct_sample;

void
anon_dp_value_hash_info(Oid type, FmgrInfo *hash, MemoryContext context)
{
	TypeCacheEntry *tc = lookup_type_cache(type, TYPECACHE_HASH_EXTENDED_PROC);

	if (!OidIsValid(tc->hash_extended_proc))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_FUNCTION),
				 errmsg("could not identify a hash function for type %s", format_type_be(type)),
				 errhint("ANON_COUNT(DISTINCT col) needs a column type that can be hashed.")));
	fmgr_info_cxt(tc->hash_extended_proc, hash, context);
}

uint64
anon_dp_value_hash(FmgrInfo *hash, Oid collation, Datum value)
{
	return DatumGetUInt64(FunctionCall2Coll(hash, collation, value, UInt64GetDatum(0)));
}

static distinct_sample *
distinct_sample_new(FunctionCallInfo fcinfo, MemoryContext context)
{
	distinct_sample *sample = MemoryContextAllocZero(context, sizeof(distinct_sample));

	sample->type = get_fn_expr_argtype(fcinfo->flinfo, 1);
	if (!OidIsValid(sample->type))
		elog(ERROR, "anon_dp_distinct_sample: could not determine the input type");
	get_typlenbyvalalign(sample->type, &sample->typlen, &sample->typbyval, &sample->typalign);
	anon_dp_value_hash_info(sample->type, &sample->hash, context);
	sample->capacity = sample_size(PG_ARGISNULL(2) ? 0 : PG_GETARG_INT32(2),
								   "anon_dp_distinct_sample");
	sample->keys = MemoryContextAlloc(context, sizeof(uint64) * sample->capacity);
	sample->values = MemoryContextAlloc(context, sizeof(Datum) * sample->capacity);
	dp_rng_secure()->fill(dp_rng_secure(), sample->secret, DP_PRF_KEY_BYTES);
	return sample;
}

/* keep the value if its key is among the capacity smallest distinct keys */
static void
distinct_sample_add(distinct_sample *sample, uint64 key, Datum value, MemoryContext context)
{
	int			largest = 0;
	int			i;
	MemoryContext old;

	for (i = 0; i < sample->used; i++)
	{
		if (sample->keys[i] == key)
			return;				/* a value already kept */
		if (sample->keys[i] > sample->keys[largest])
			largest = i;
	}
	if (sample->used == sample->capacity)
	{
		if (key > sample->keys[largest])
			return;
		if (!sample->typbyval)
			pfree(DatumGetPointer(sample->values[largest]));
		i = largest;
	}
	else
		i = sample->used++;
	old = MemoryContextSwitchTo(context);
	sample->keys[i] = key;
	sample->values[i] = datumCopy(value, sample->typbyval, sample->typlen);
	MemoryContextSwitchTo(old);
}

PG_FUNCTION_INFO_V1(anon_dp_distinct_sample_transfn);
Datum
anon_dp_distinct_sample_transfn(PG_FUNCTION_ARGS)
{
	MemoryContext context = aggregate_context(fcinfo, "anon_dp_distinct_sample");
	distinct_sample *sample = PG_ARGISNULL(0) ? distinct_sample_new(fcinfo, context)
		: (distinct_sample *) PG_GETARG_POINTER(0);
	uint64		hash;

	if (PG_ARGISNULL(1))
		PG_RETURN_POINTER(sample);
	hash = anon_dp_value_hash(&sample->hash, PG_GET_COLLATION(), PG_GETARG_DATUM(1));
	distinct_sample_add(sample,
						dp_siphash24(sample->secret, (const uint8 *) &hash, sizeof(hash)),
						PG_GETARG_DATUM(1), context);
	PG_RETURN_POINTER(sample);
}

PG_FUNCTION_INFO_V1(anon_dp_distinct_sample_final);
Datum
anon_dp_distinct_sample_final(PG_FUNCTION_ARGS)
{
	distinct_sample *sample;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	sample = (distinct_sample *) PG_GETARG_POINTER(0);
	if (sample->used == 0)
		PG_RETURN_NULL();
	PG_RETURN_ARRAYTYPE_P(construct_array(sample->values, sample->used, sample->type,
										  sample->typlen, sample->typbyval, sample->typalign));
}
