/*
 * distinct_count.c -- dp_count_distinct(values anyarray, k int8, epsilon,
 * contributions) -> bigint: the number of distinct values across all rows,
 * with Laplace noise of sensitivity k per contribution.
 *
 * Each row is one privacy unit's sample of at most k distinct values
 * (anon_dp_distinct_sample); only the first k elements of a row are
 * counted, so adding or removing a unit changes the number of distinct
 * values by at most k, whatever the input.  Values are compared by their
 * type's hash (equal values hash alike; two different values that collide
 * count once, which changes no sensitivity).  The state holds one 64-bit
 * hash per distinct value: its memory grows with the number of distinct
 * values (doc/functions.md).
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "fmgr.h"
#include "utils/array.h"
#include "utils/lsyscache.h"

#include "dp/dp_noise.h"
#include "dp/dp_rng.h"
#include "functions/aggregate_args.h"
#include "functions/user_samples.h"
#include "settings.h"

typedef struct distinct_count
{
	dp_noise_plan plan;
	int64		k;
	Oid			type;			/* element type */
	int16		typlen;
	bool		typbyval;
	char		typalign;
	FmgrInfo	hash;
	uint64		capacity;		/* slots, a power of two (0: none yet) */
	uint64		used;
	uint64	   *slots;			/* 0: empty; a hash of 0 is stored as 1 */
} distinct_count;

static distinct_count *
distinct_count_new(FunctionCallInfo fcinfo, MemoryContext context)
{
	const char *function = "dp_count_distinct";
	List	   *args = call_arguments(fcinfo, function);
	int64		k = int64_argument(args, 1, function, "k");
	common_params common = read_common(args, 2, function);
	distinct_count *state = MemoryContextAllocZero(context, sizeof(distinct_count));
	Oid			array_type = get_fn_expr_argtype(fcinfo->flinfo, 1);

	if (k < 1 || k > ANON_DP_MAX_CONTRIBUTIONS)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid k for dp_count_distinct: must be between 1 and %d",
						ANON_DP_MAX_CONTRIBUTIONS),
				 errhint("k is the number of distinct values one privacy unit may contribute to a partition.")));
	state->k = k;
	check_init(dp_laplace_plan_make((double) k, common.epsilon, common.contributions, &state->plan),
			   function);
	state->type = get_element_type(array_type);
	if (!OidIsValid(state->type))
		elog(ERROR, "dp_count_distinct: the values are not an array");
	get_typlenbyvalalign(state->type, &state->typlen, &state->typbyval, &state->typalign);
	anon_dp_value_hash_info(state->type, &state->hash, context);
	return state;
}

static void
insert_hash(distinct_count *state, uint64 hash, MemoryContext context)
{
	uint64		i;

	if (hash == 0)
		hash = 1;
	if (2 * (state->used + 1) > state->capacity)
	{
		uint64	   *old = state->slots;
		uint64		old_capacity = state->capacity;

		state->capacity = old_capacity ? old_capacity * 2 : 64;
		state->slots = MemoryContextAllocExtended(context, sizeof(uint64) * state->capacity,
												  MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
		state->used = 0;
		for (i = 0; i < old_capacity; i++)
			if (old[i] != 0)
				insert_hash(state, old[i], context);
		if (old)
			pfree(old);
	}
	for (i = hash & (state->capacity - 1); state->slots[i] != 0;
		 i = (i + 1) & (state->capacity - 1))
		if (state->slots[i] == hash)
			return;
	state->slots[i] = hash;
	state->used++;
}

PG_FUNCTION_INFO_V1(dp_count_distinct_transfn);
Datum
dp_count_distinct_transfn(PG_FUNCTION_ARGS)
{
	MemoryContext context = aggregate_context(fcinfo, "dp_count_distinct");
	distinct_count *state = PG_ARGISNULL(0) ? distinct_count_new(fcinfo, context)
		: (distinct_count *) PG_GETARG_POINTER(0);
	Datum	   *elements;
	bool	   *nulls;
	int			n;
	int			i;
	int64		added = 0;

	if (PG_ARGISNULL(1))
		PG_RETURN_POINTER(state);
	deconstruct_array(PG_GETARG_ARRAYTYPE_P(1), state->type, state->typlen, state->typbyval,
					  state->typalign, &elements, &nulls, &n);
	/* at most k elements of one unit's row */
	for (i = 0; i < n && added < state->k; i++)
		if (!nulls[i])
		{
			insert_hash(state, anon_dp_value_hash(&state->hash, PG_GET_COLLATION(), elements[i]),
						context);
			added++;
		}
	PG_RETURN_POINTER(state);
}

PG_FUNCTION_INFO_V1(dp_count_distinct_final);
Datum
dp_count_distinct_final(PG_FUNCTION_ARGS)
{
	distinct_count *state = PG_ARGISNULL(0) ? distinct_count_new(fcinfo, CurrentMemoryContext)
		: (distinct_count *) PG_GETARG_POINTER(0);
	dp_i128		units = dp_units_from_int64(&state->plan, (int64) state->used);
	dp_i128		noisy = dp_units_to_integer(&state->plan,
											dp_noisy_units(dp_rng_secure(), &state->plan, units));

	if (noisy > (dp_i128) PG_INT64_MAX)
		noisy = PG_INT64_MAX;
	if (noisy < (dp_i128) PG_INT64_MIN)
		noisy = PG_INT64_MIN;
	PG_RETURN_INT64((int64) noisy);
}
