/*
 * partition_bound.c -- per-user aggregation and contribution bounding in one
 * pass over the rows (doc/rewriter.md, step 2).
 *
 * The rewriter groups the rows of an anonymization query by privacy unit
 * only and calls, for each user,
 *
 *     anon_dp_bound_partitions(secret, C_u, spec, uid, g_1 .. g_k, values ..)
 *
 * which keeps the user's C_u partitions (distinct g_1 .. g_k) that have the
 * smallest keys, where the key of a (user, partition) pair is
 *
 *     SipHash-2-4(secret; hash(uid) || hash(g_1) || .. || hash(g_k))
 *
 * with `secret` 16 bytes from the CSPRNG drawn once per execution (an
 * initplan) and hash() each type's own extended hash function (the one hash
 * aggregation uses, so equal values under the GROUP BY equality hash alike),
 * seeded from the secret.  Every row of a pair has the pair's key, so the
 * aggregate needs no prior GROUP BY uid, g: a row whose key is above the
 * C_u-th smallest key seen so far for its user is dropped at once, a row of
 * a kept pair updates that pair's per-user partials (count, sum, avg, min,
 * max, or the sample of up to m values of ANON_MEDIAN and ANON_NTILE), and a
 * new pair with a smaller key evicts the largest.  A pair whose
 * key ends among the C_u smallest was admitted at its first row and never
 * evicted, so its partials are complete.  Keys of distinct pairs are
 * independent and uniform to anyone without the secret, so each
 * min(C_u, n)-subset of a user's n partitions is kept with the same
 * probability, afresh at each execution; a key collision between two
 * partitions of one user (probability about n^2 / 2^65) is resolved by the
 * type's equality, the earlier partition first.
 *
 * Memory is O(C_u) per user, where the two-step form (GROUP BY uid, g, then
 * a reservoir per user) holds one row per (user, partition) pair.
 *
 * The result is a bytea holding the kept pairs; anon_dp_bounded_column(blob,
 * i, NULL::type) returns column i of the kept pairs as an array and unnest()
 * turns the arrays back into at most C_u rows per user.  The same form is
 * the serialized state of parallel aggregation (combine merges two states of
 * one user: workers share the secret through the initplan, so a pair has the
 * same key in every worker).  Values travel in their types' binary send
 * format and are read back with the receive functions, which validate their
 * input: a hand-made bytea cannot make the extraction read memory it should
 * not.
 *
 * Rows whose uid is NULL belong to no user and are skipped (the rewriter
 * drops them before; doc/privacy-model.md, "NULL privacy units").
 *
 * The spec is a text constant written by the rewriter, one letter per
 * output column, in the order of the arguments after uid; bound_spec.h
 * lists the letters and what each column returns.
 *
 * The parts live in files of their own: the layout of a call site
 * (bound_layout.c), the per-user state (bound_state.c) and its partials
 * (bound_partials.c), the state as bytes (bound_serialization.c).
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "fmgr.h"
#include "nodes/nodeFuncs.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"

#include "bound/bound_blob.h"
#include "bound/bound_serialization.h"
#include "bound/bound_spec.h"
#include "dp/dp_prf.h"
#include "dp/dp_rng.h"

/* 16 bytes from the CSPRNG: the key of one execution's bounding */
PG_FUNCTION_INFO_V1(anon_dp_bounding_secret);
Datum
anon_dp_bounding_secret(PG_FUNCTION_ARGS)
{
	bytea	   *secret = palloc(VARHDRSZ + DP_PRF_KEY_BYTES);
	uint64		words[2];

	words[0] = dp_rng_u64(dp_rng_secure());
	words[1] = dp_rng_u64(dp_rng_secure());
	SET_VARSIZE(secret, VARHDRSZ + DP_PRF_KEY_BYTES);
	memcpy(VARDATA(secret), words, DP_PRF_KEY_BYTES);
	PG_RETURN_BYTEA_P(secret);
}

/* ---- the layout of a call site, kept in its fn_extra ---- */

/* the collation of argument argno (0 = the first after the state) of the call */
static Oid
argument_collation(Aggref *aggref, int argno)
{
	if (aggref == NULL || argno >= list_length(aggref->args))
		return InvalidOid;
	return exprCollation((Node *) ((TargetEntry *) list_nth(aggref->args, argno))->expr);
}

/* the layout of the transition function's call site, built at its first call */
static bound_layout *
layout_from_call(FunctionCallInfo fcinfo)
{
	Aggref	   *aggref = AggGetAggref(fcinfo);
	int			nargs = PG_NARGS();
	Oid		   *argtypes;
	Oid		   *collations;
	int			i;

	if (fcinfo->flinfo->fn_extra)
		return (bound_layout *) fcinfo->flinfo->fn_extra;
	argtypes = palloc0(sizeof(Oid) * nargs);
	collations = palloc0(sizeof(Oid) * nargs);
	for (i = 1; i < nargs; i++)
	{
		argtypes[i] = get_fn_expr_argtype(fcinfo->flinfo, i);
		collations[i] = argument_collation(aggref, i - 1);
	}
	fcinfo->flinfo->fn_extra = bound_layout_create(fcinfo->args, nargs, argtypes, collations,
												   fcinfo->flinfo->fn_mcxt);
	pfree(argtypes);
	pfree(collations);
	return (bound_layout *) fcinfo->flinfo->fn_extra;
}

/* the layout written at the start of a blob; cached per call site */
static bound_layout *
layout_from_blob(FunctionCallInfo fcinfo, StringInfo buf)
{
	fcinfo->flinfo->fn_extra = bound_layout_read(buf, (bound_layout *) fcinfo->flinfo->fn_extra,
												 fcinfo->flinfo->fn_mcxt);
	return (bound_layout *) fcinfo->flinfo->fn_extra;
}

/* ---- the aggregate: transition, combine, serialization ---- */

/*
 * The state of this row's user: the one passed in, or at the user's first
 * row a new one, holding the hash of the user's uid (argument 4, not NULL).
 */
static bound_state *
user_state(FunctionCallInfo fcinfo, bound_layout *layout, MemoryContext context)
{
	if (!PG_ARGISNULL(0))
		return (bound_state *) PG_GETARG_POINTER(0);
	bound_layout_take_secret(layout, fcinfo->args);
	return bound_state_create(layout, context, bound_uid_hash(layout, PG_GETARG_DATUM(BOUND_ARG_UID)));
}

PG_FUNCTION_INFO_V1(anon_dp_bound_partitions_transfn);
Datum
anon_dp_bound_partitions_transfn(PG_FUNCTION_ARGS)
{
	MemoryContext context;
	bound_layout *layout;
	bound_state *state;

	if (!AggCheckCallContext(fcinfo, &context))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("anon_dp_bound_partitions_transfn called in a non-aggregate context")));
	layout = layout_from_call(fcinfo);
	/* a row whose privacy unit is NULL belongs to no user: it counts nowhere */
	if (PG_ARGISNULL(BOUND_ARG_UID))
	{
		if (PG_ARGISNULL(0))
			PG_RETURN_NULL();
		PG_RETURN_POINTER(PG_GETARG_POINTER(0));
	}
	state = user_state(fcinfo, layout, context);
	bound_state_add_row(state, fcinfo->args, context);
	PG_RETURN_POINTER(state);
}

PG_FUNCTION_INFO_V1(anon_dp_bound_partitions_combine);
Datum
anon_dp_bound_partitions_combine(PG_FUNCTION_ARGS)
{
	MemoryContext context;
	bound_state *into;
	bound_state *from;

	if (!AggCheckCallContext(fcinfo, &context))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("anon_dp_bound_partitions_combine called in a non-aggregate context")));
	if (PG_ARGISNULL(1))
	{
		if (PG_ARGISNULL(0))
			PG_RETURN_NULL();
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	}
	from = (bound_state *) PG_GETARG_POINTER(1);
	if (PG_ARGISNULL(0))
		into = bound_state_create(from->layout, context, 0);
	else
		into = (bound_state *) PG_GETARG_POINTER(0);
	bound_state_merge(into, from, context);
	PG_RETURN_POINTER(into);
}

PG_FUNCTION_INFO_V1(anon_dp_bound_partitions_serialize);
Datum
anon_dp_bound_partitions_serialize(PG_FUNCTION_ARGS)
{
	PG_RETURN_BYTEA_P(bound_state_serialize((bound_state *) PG_GETARG_POINTER(0)));
}

PG_FUNCTION_INFO_V1(anon_dp_bound_partitions_deserialize);
Datum
anon_dp_bound_partitions_deserialize(PG_FUNCTION_ARGS)
{
	bytea	   *blob = PG_GETARG_BYTEA_PP(0);
	StringInfoData buf;
	bound_layout *layout;
	bound_state *state;

	if (!AggCheckCallContext(fcinfo, NULL))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("anon_dp_bound_partitions_deserialize called in a non-aggregate context")));
	/*
	 * The state is read into the current (per-input-row) memory context, not
	 * the aggregation's: the combine function copies what it keeps into the
	 * aggregation's context, and a state left there would stay for the whole
	 * aggregation, uncounted by hash aggregation's memory limit.
	 */
	bound_blob_open(&buf, blob);
	layout = layout_from_blob(fcinfo, &buf);
	state = bound_state_read(layout, &buf);
	PG_RETURN_POINTER(state);
}

/* ---- anon_dp_bounded_column(blob, column, NULL::type) -> type[] ---- */

PG_FUNCTION_INFO_V1(anon_dp_bounded_column);
Datum
anon_dp_bounded_column(PG_FUNCTION_ARGS)
{
	bytea	   *blob;
	StringInfoData buf;
	bound_layout *layout;
	bound_state *state;
	bound_column *col;
	Oid			hint = get_fn_expr_argtype(fcinfo->flinfo, 2);
	int			column;
	Datum	   *values;
	bool	   *nulls;
	int			dims[1];
	int			lbs[1] = {1};
	int16		typlen;
	bool		typbyval;
	char		typalign;
	int64		p;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	if (PG_ARGISNULL(1))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("anon_dp_bounded_column: the column number must not be NULL")));
	blob = PG_GETARG_BYTEA_PP(0);
	column = PG_GETARG_INT32(1);
	bound_blob_open(&buf, blob);
	layout = layout_from_blob(fcinfo, &buf);
	if (column < 0 || column >= layout->ncolumns)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("anon_dp_bounded_column: no column %d (the value has %d)",
						column, layout->ncolumns)));
	col = &layout->columns[column];
	if (hint != col->type)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("anon_dp_bounded_column: column %d has type %s, not %s", column,
						format_type_be(col->type), format_type_be(hint))));
	state = bound_state_read(layout, &buf);

	values = palloc(sizeof(Datum) * Max(state->count, 1));
	nulls = palloc(sizeof(bool) * Max(state->count, 1));
	for (p = 0; p < state->count; p++)
	{
		bound_cell *cell = &bound_state_cells(state)[p][column];

		nulls[p] = !cell->present && col->kind != BOUND_SPEC_ROWS && col->kind != BOUND_SPEC_NONNULL;
		values[p] = (Datum) 0;
		if (nulls[p])
			continue;
		switch (col->kind)
		{
			case BOUND_SPEC_GROUP:
			case BOUND_SPEC_SUM_NUMERIC:
				values[p] = cell->v.datum;
				break;
			case BOUND_SPEC_ROWS:
			case BOUND_SPEC_NONNULL:
			case BOUND_SPEC_SUM_INT:
				values[p] = Int64GetDatum(cell->count);
				break;
			case BOUND_SPEC_SUM_BIGINT:
				values[p] = cell->wide ? cell->v.datum :
					DirectFunctionCall1(int8_numeric, Int64GetDatum(cell->count));
				break;
			case BOUND_SPEC_MEAN:
				values[p] = Float8GetDatum(cell->v.real / (double) cell->count);
				break;
			case BOUND_SPEC_SAMPLE:
				{
					int32		used;
					const double *kept = bound_sample_values(col, cell, &used);
					Size		size = sizeof(double) * used;
					bytea	   *bytes = palloc(VARHDRSZ + size);

					SET_VARSIZE(bytes, VARHDRSZ + size);
					memcpy(VARDATA(bytes), kept, size);
					values[p] = PointerGetDatum(bytes);
				}
				break;
			default:
				values[p] = Float8GetDatum(cell->v.real);
				break;
		}
	}
	dims[0] = (int) state->count;
	get_typlenbyvalalign(col->type, &typlen, &typbyval, &typalign);
	PG_RETURN_ARRAYTYPE_P(construct_md_array(values, nulls, 1, dims, lbs, col->type,
											 typlen, typbyval, typalign));
}

/*
 * anon_dp_bounded_sample(bytea) -> float8[]: a sample column's value for one
 * pair (its kept values, as anon_dp_bounded_column returns them) as the
 * array anon_dp_sample would have returned, which dp_ntile_rows reads.  An
 * array cannot hold arrays, so the pairs' samples travel through
 * anon_dp_bounded_column as bytea.
 */
PG_FUNCTION_INFO_V1(anon_dp_bounded_sample);
Datum
anon_dp_bounded_sample(PG_FUNCTION_ARGS)
{
	bytea	   *bytes = PG_GETARG_BYTEA_PP(0);
	Size		len = VARSIZE_ANY_EXHDR(bytes);
	int			n = (int) (len / sizeof(double));
	Datum	   *elements;
	int			i;

	if (len % sizeof(double) != 0 || n == 0 || n > BOUND_MAX_SAMPLE)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("anon_dp_bounded_sample: not a sample of anon_dp_bound_partitions"),
				 errhint("anon_dp_bounded_sample is written by the anonymization rewriter; write ANON_MEDIAN or ANON_NTILE instead.")));
	elements = palloc(sizeof(Datum) * n);
	for (i = 0; i < n; i++)
	{
		double		x;

		memcpy(&x, VARDATA_ANY(bytes) + i * sizeof(double), sizeof(double));
		elements[i] = Float8GetDatum(x);
	}
	PG_RETURN_ARRAYTYPE_P(construct_array(elements, n, FLOAT8OID, sizeof(float8),
										  FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
}

/* anon_dp_bound_witness: the state stays NULL (it is only ever filtered out) */
PG_FUNCTION_INFO_V1(anon_dp_bound_witness_transfn);
Datum
anon_dp_bound_witness_transfn(PG_FUNCTION_ARGS)
{
	PG_RETURN_NULL();
}
