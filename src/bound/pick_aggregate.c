/*
 * pick_aggregate.c -- keep at most C_u per-user rows of each user, chosen
 * uniformly at random, in one pass and without sorting.
 *
 * The rewriter gives every per-user row (one row per user and partition) a
 * key drawn from the CSPRNG, groups those rows by user, and calls
 *
 *     anon_dp_pick(key, column, C_u)      -> array of the kept values
 *
 * once per column.  Each call keeps the values of the C_u rows with the
 * smallest keys (dp_key_reservoir; ties keep the earlier row).  All calls of one group see the same
 * (key, row) sequence in the same order, so they keep the same rows in the
 * same slots, and unnest() of the arrays, side by side in the select list,
 * gives the kept rows back.  Keys are independent and uniform, so every set
 * of min(C_u, n) of a user's n rows is equally likely, with fresh randomness
 * at every execution.
 *
 * The state is a reservoir of keys with the values of one column; memory is
 * O(C_u) per user.  There is no combine function: partial states would need
 * the same key for a row in every worker, which they have, but a serialized
 * form for every value type is not worth it while this step runs above the
 * per-user aggregation, whose output is already small.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "fmgr.h"
#include "utils/array.h"
#include "utils/datum.h"
#include "utils/lsyscache.h"

#include "dp/dp_reservoir.h"
#include "dp/dp_rng.h"
#include "settings.h"

/* the largest C_u a pick may use (anon_dp.max_groups_contributed's maximum) */
#define PICK_MAX_CAPACITY ANON_DP_MAX_CONTRIBUTIONS

typedef struct pick_state
{
	dp_key_reservoir reservoir;
	int64		allocated;		/* entries of keys, values and nulls */
	Datum	   *values;
	bool	   *nulls;
	Oid			element_type;
	int16		typlen;
	bool		typbyval;
	char		typalign;
} pick_state;

/* A uniform 64-bit key from the CSPRNG, as bigint. */
PG_FUNCTION_INFO_V1(anon_dp_random_key);
Datum
anon_dp_random_key(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT64((int64) dp_rng_u64(dp_rng_secure()));
}

static pick_state *
pick_state_create(FunctionCallInfo fcinfo, MemoryContext context)
{
	MemoryContext old = MemoryContextSwitchTo(context);
	pick_state *state = palloc0(sizeof(pick_state));
	int64		capacity;

	if (PG_ARGISNULL(3))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("anon_dp_pick: the number of rows to keep must not be NULL"),
				 errhint("Pass a positive constant, for example 1.")));
	capacity = PG_GETARG_INT64(3);
	if (capacity < 1 || capacity > PICK_MAX_CAPACITY)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("anon_dp_pick: the number of rows to keep must be between 1 and %d, not " INT64_FORMAT,
						PICK_MAX_CAPACITY, capacity),
				 errhint("Set anon_dp.max_groups_contributed to a value in that range.")));
	state->element_type = get_fn_expr_argtype(fcinfo->flinfo, 2);
	if (!OidIsValid(state->element_type))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("anon_dp_pick: cannot determine the type of the picked values")));
	get_typlenbyvalalign(state->element_type, &state->typlen, &state->typbyval,
						 &state->typalign);
	state->allocated = Min(capacity, 8);
	dp_key_reservoir_init(&state->reservoir, capacity,
						  palloc(sizeof(uint64) * state->allocated));
	state->values = palloc(sizeof(Datum) * state->allocated);
	state->nulls = palloc(sizeof(bool) * state->allocated);
	MemoryContextSwitchTo(old);
	return state;
}

/* make room for one more item while the reservoir is not full */
static void
pick_state_reserve(pick_state *state)
{
	int64		size;

	if (state->reservoir.count < state->allocated)
		return;
	size = Min(state->allocated * 2, state->reservoir.capacity);
	state->reservoir.keys = repalloc(state->reservoir.keys, sizeof(uint64) * size);
	state->values = repalloc(state->values, sizeof(Datum) * size);
	state->nulls = repalloc(state->nulls, sizeof(bool) * size);
	state->allocated = size;
}

/* anon_dp_pick(internal, key int8, value anyelement, keep int8) */
PG_FUNCTION_INFO_V1(anon_dp_pick_transfn);
Datum
anon_dp_pick_transfn(PG_FUNCTION_ARGS)
{
	MemoryContext context;
	pick_state *state;
	int64		held;
	int64		slot;

	if (!AggCheckCallContext(fcinfo, &context))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("anon_dp_pick_transfn called in a non-aggregate context")));
	state = PG_ARGISNULL(0) ? pick_state_create(fcinfo, context) : (pick_state *) PG_GETARG_POINTER(0);
	if (PG_ARGISNULL(1))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("anon_dp_pick: the random key must not be NULL")));

	held = state->reservoir.count;
	if (held < state->reservoir.capacity)
	{
		MemoryContext old = MemoryContextSwitchTo(context);

		pick_state_reserve(state);
		MemoryContextSwitchTo(old);
	}
	/* flip the sign bit: unsigned order of the keys = bigint order */
	slot = dp_key_reservoir_offer(&state->reservoir,
								  (uint64) PG_GETARG_INT64(1) ^ (UINT64CONST(1) << 63));
	if (slot < 0)
		PG_RETURN_POINTER(state);
	if (slot < held && !state->typbyval && !state->nulls[slot])
		pfree(DatumGetPointer(state->values[slot]));	/* replaced */
	state->nulls[slot] = PG_ARGISNULL(2);
	if (PG_ARGISNULL(2))
		state->values[slot] = (Datum) 0;
	else if (state->typbyval)
		state->values[slot] = PG_GETARG_DATUM(2);
	else
	{
		MemoryContext old = MemoryContextSwitchTo(context);

		state->values[slot] = datumCopy(PG_GETARG_DATUM(2), false, state->typlen);
		MemoryContextSwitchTo(old);
	}
	PG_RETURN_POINTER(state);
}

PG_FUNCTION_INFO_V1(anon_dp_pick_final);
Datum
anon_dp_pick_final(PG_FUNCTION_ARGS)
{
	pick_state *state;
	int			dims[1];
	int			lbs[1] = {1};

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	state = (pick_state *) PG_GETARG_POINTER(0);
	dims[0] = (int) state->reservoir.count;
	PG_RETURN_ARRAYTYPE_P(construct_md_array(state->values, state->nulls, 1, dims, lbs,
											 state->element_type, state->typlen,
											 state->typbyval, state->typalign));
}
