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
 * max), and a new pair with a smaller key evicts the largest.  A pair whose
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
 */
#include "postgres.h"

#include "catalog/pg_collation.h"
#include "catalog/pg_type.h"
#include "common/int.h"
#include "fmgr.h"
#include "libpq/pqformat.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/float.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/numeric.h"
#include "utils/typcache.h"

#include "dp/dp_prf.h"
#include "dp/dp_rng.h"
#include "bound/bound_spec.h"
#include "bound/partition_bound.h"
#include "settings.h"

#define BOUND_MAGIC 0x41445042	/* "ADPB" */
#define BOUND_VERSION 1
#define BOUND_MAX_KEEP ANON_DP_MAX_CONTRIBUTIONS	/* anon_dp.max_groups_contributed's maximum */
#define BOUND_MAX_COLUMNS 1000
/* loops over the pairs of a state check for cancel every this many pairs */
#define BOUND_INTERRUPT_EVERY 1024

typedef struct bound_column
{
	char		kind;			/* a letter of the spec */
	int			argno;			/* argument holding its value, -1 for count(*) */
	Oid			type;			/* type of the value read (group: the key's type) */
	Oid			collation;
	/* GROUP BY values only */
	int16		typlen;
	bool		typbyval;
	FmgrInfo	hash;			/* extended hash function */
	FmgrInfo	eq;				/* equality */
	FmgrInfo	send;
	FmgrInfo	recv;
	Oid			ioparam;
} bound_column;

struct bound_layout
{
	int64		keep;			/* C_u */
	int			ncolumns;
	bound_column *columns;
	Oid			uid_collation;
	FmgrInfo	uid_hash;
	char	   *header;			/* the serialized header, for deserialization */
	int			header_len;
	/* the secret of the current execution (all states of a scan share it) */
	bool		has_secret;
	uint8		secret[DP_PRF_KEY_BYTES];
	uint64		seed;			/* of the types' hash functions */
};

/* one column of one kept pair (24 bytes) */
typedef struct bound_cell
{
	bool		present;		/* group: value not NULL; partial: has a value */
	bool		wide;			/* BOUND_SPEC_SUM_BIGINT: the sum overflowed bigint, see datum */
	int64		count;			/* n, c, i, non-wide b; rows of a */
	union
	{
		double		real;		/* f, a (sum), l, h */
		Datum		datum;		/* g value, m sum, wide b sum */
	}			v;
} bound_cell;

/*
 * The state of one user.  Hash aggregation holds one per user and finds it
 * through its hash table entry at every row of the user, so it is one
 * allocation made right after the entry (in the same memory context, so
 * usually next to it: one cache miss fewer per row than a state elsewhere),
 * holding the header, the keys and cell pointers of the first
 * BOUND_INLINE_PAIRS pairs and their cells: 128 bytes for C_u = 1 and three
 * columns, with the count and the smallest key in its first cache line.
 * More pairs get separate allocations.  While a state is not full no pair has
 * been evicted, so the inline cell blocks in use are the first min(count,
 * inline pairs).
 */
#define BOUND_INLINE_PAIRS 4

struct bound_state
{
	bound_layout *layout;
	uint64		uid_hash;
	uint64	   *keys;			/* ascending */
	bound_cell **cells;			/* cells[i]: ncolumns cells of pair i */
	int32		count;			/* pairs held */
	int32		allocated;		/* entries of keys and cells */
};

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

/* ---- layout: the spec and the types, built once per aggregate call site ---- */

static void
bad_spec(const char *detail)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("anon_dp_bound_partitions: invalid column specification"),
			 errdetail("%s", detail),
			 errhint("anon_dp_bound_partitions is written by the anonymization rewriter; write ANON_* aggregates instead.")));
}

/* the output type of a partial's letter (InvalidOid: a GROUP BY value or unknown) */
static Oid
kind_value_type(char kind)
{
	const bound_spec_column *column = bound_spec_column_of(kind);

	return column != NULL && kind != BOUND_SPEC_GROUP ? column->result_type : InvalidOid;
}

/* the type the argument of a partial must have (InvalidOid: any, or none) */
static Oid
kind_argument_type(char kind)
{
	const bound_spec_column *column = bound_spec_column_of(kind);

	return column != NULL && column->input_type != ANYOID ? column->input_type : InvalidOid;
}

/* hash, equality and binary I/O of a GROUP BY column's type */
static void
setup_group_column(bound_column *col, MemoryContext context)
{
	TypeCacheEntry *tc = lookup_type_cache(col->type,
										   TYPECACHE_EQ_OPR_FINFO |
										   TYPECACHE_HASH_EXTENDED_PROC_FINFO);
	Oid			send;
	Oid			recv;
	bool		varlena;

	if (!OidIsValid(tc->eq_opr_finfo.fn_oid) || !OidIsValid(tc->hash_extended_proc_finfo.fn_oid))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_FUNCTION),
				 errmsg("anon_dp_bound_partitions: type %s has no equality or hash function",
						format_type_be(col->type))));
	getTypeBinaryOutputInfo(col->type, &send, &varlena);
	getTypeBinaryInputInfo(col->type, &recv, &col->ioparam);
	fmgr_info_copy(&col->eq, &tc->eq_opr_finfo, context);
	fmgr_info_copy(&col->hash, &tc->hash_extended_proc_finfo, context);
	fmgr_info_cxt(send, &col->send, context);
	fmgr_info_cxt(recv, &col->recv, context);
	get_typlenbyval(col->type, &col->typlen, &col->typbyval);
}

static void
build_header(bound_layout *layout)
{
	StringInfoData buf;
	int			i;

	initStringInfo(&buf);
	pq_sendint32(&buf, BOUND_MAGIC);
	pq_sendint32(&buf, BOUND_VERSION);
	pq_sendint64(&buf, layout->keep);
	pq_sendint32(&buf, layout->ncolumns);
	for (i = 0; i < layout->ncolumns; i++)
	{
		pq_sendbyte(&buf, layout->columns[i].kind);
		pq_sendint32(&buf, layout->columns[i].kind == BOUND_SPEC_GROUP ? layout->columns[i].type : InvalidOid);
		pq_sendint32(&buf, layout->columns[i].collation);
	}
	layout->header = buf.data;
	layout->header_len = buf.len;
}

static int64
checked_keep(int64 keep)
{
	if (keep < 1 || keep > BOUND_MAX_KEEP)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("anon_dp_bound_partitions: the number of partitions to keep must be between 1 and %d, not " INT64_FORMAT,
						BOUND_MAX_KEEP, keep),
				 errhint("Set anon_dp.max_groups_contributed to a value in that range.")));
	return keep;
}

/* the collation of argument argno (0 = the first after the state) of the call */
static Oid
argument_collation(Aggref *aggref, int argno)
{
	if (aggref == NULL || argno >= list_length(aggref->args))
		return InvalidOid;
	return exprCollation((Node *) ((TargetEntry *) list_nth(aggref->args, argno))->expr);
}

/*
 * The layout of a call of anon_dp_bound_partitions from its arguments
 * (numbered as the transition function numbers them: 0 is the state), their
 * types and the collations of the privacy unit and the GROUP BY values: the
 * spec gives one letter per output column, each GROUP BY value is hashed
 * and compared under its own collation, as GROUP BY does.
 */
bound_layout *
bound_layout_create(const NullableDatum *args, int nargs, const Oid *argtypes,
					const Oid *collations, MemoryContext context)
{
	MemoryContext old;
	bound_layout *layout;
	char	   *spec;
	int			argno = BOUND_FIRST_VALUE_ARG;
	int			n;

	if (nargs <= BOUND_ARG_UID || args[BOUND_ARG_KEEP].isnull || args[BOUND_ARG_SPEC].isnull)
		bad_spec("the number of partitions to keep and the specification must not be NULL");

	old = MemoryContextSwitchTo(context);
	layout = palloc0(sizeof(bound_layout));
	layout->keep = checked_keep(DatumGetInt64(args[BOUND_ARG_KEEP].value));
	spec = TextDatumGetCString(args[BOUND_ARG_SPEC].value);
	if (strlen(spec) > BOUND_MAX_COLUMNS)
		bad_spec("too many columns");
	layout->ncolumns = (int) strlen(spec);
	layout->columns = palloc0(sizeof(bound_column) * Max(layout->ncolumns, 1));
	for (n = 0; n < layout->ncolumns; n++)
	{
		bound_column *col = &layout->columns[n];
		Oid			want;

		col->kind = spec[n];
		if (col->kind == BOUND_SPEC_ROWS)
		{
			col->argno = -1;
			col->type = INT8OID;
			continue;
		}
		if (col->kind != BOUND_SPEC_GROUP && !OidIsValid(kind_value_type(col->kind)))
			bad_spec(psprintf("unknown column kind \"%c\"", col->kind));
		if (argno >= nargs)
			bad_spec("fewer arguments than columns");
		col->argno = argno++;
		col->type = argtypes[col->argno];
		if (!OidIsValid(col->type))
			bad_spec("cannot determine the argument types");
		want = kind_argument_type(col->kind);
		if (OidIsValid(want) && col->type != want)
			bad_spec(psprintf("column %d (\"%c\") takes %s, not %s", n + 1, col->kind,
							  format_type_be(want), format_type_be(col->type)));
		if (col->kind == BOUND_SPEC_GROUP)
		{
			col->collation = collations[col->argno];
			setup_group_column(col, context);
		}
		else if (col->kind != BOUND_SPEC_NONNULL)
			col->type = kind_value_type(col->kind);
	}
	if (argno != nargs)
		bad_spec("more arguments than columns");
	{
		Oid			uid_type = argtypes[BOUND_ARG_UID];
		TypeCacheEntry *tc = OidIsValid(uid_type) ?
			lookup_type_cache(uid_type, TYPECACHE_HASH_EXTENDED_PROC_FINFO) : NULL;

		if (tc == NULL || !OidIsValid(tc->hash_extended_proc_finfo.fn_oid))
			bad_spec("the privacy unit's type has no hash function");
		fmgr_info_copy(&layout->uid_hash, &tc->hash_extended_proc_finfo, context);
		layout->uid_collation = collations[BOUND_ARG_UID];
	}
	build_header(layout);
	MemoryContextSwitchTo(old);
	return layout;
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

/*
 * Readers of a blob that fail with a clear error, not the protocol error
 * of pq_getmsg*, when a hand-made value is too short.
 */
static void
blob_need(StringInfo buf, int n)
{
	if (n < 0 || buf->len - buf->cursor < n)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("anon_dp_bounded_column: truncated value of anon_dp_bound_partitions")));
}

static int32
blob_int32(StringInfo buf)
{
	blob_need(buf, 4);
	return (int32) pq_getmsgint(buf, 4);
}

static int64
blob_int64(StringInfo buf)
{
	blob_need(buf, 8);
	return pq_getmsgint64(buf);
}

static int
blob_byte(StringInfo buf)
{
	blob_need(buf, 1);
	return pq_getmsgbyte(buf);
}

static float8
blob_float8(StringInfo buf)
{
	blob_need(buf, 8);
	return pq_getmsgfloat8(buf);
}

/* the layout written at the start of a blob; cached per call site */
static bound_layout *
layout_from_blob(FunctionCallInfo fcinfo, StringInfo buf)
{
	bound_layout *cached = (bound_layout *) fcinfo->flinfo->fn_extra;
	MemoryContext old;
	bound_layout *layout;
	int			start = buf->cursor;
	int			n;
	int			i;

	if (cached && buf->len - buf->cursor >= cached->header_len &&
		memcmp(buf->data + buf->cursor, cached->header, cached->header_len) == 0)
	{
		buf->cursor += cached->header_len;
		return cached;
	}
	if (blob_int32(buf) != BOUND_MAGIC || blob_int32(buf) != BOUND_VERSION)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("anon_dp_bounded_column: not a value of anon_dp_bound_partitions")));
	old = MemoryContextSwitchTo(fcinfo->flinfo->fn_mcxt);
	layout = palloc0(sizeof(bound_layout));
	layout->keep = checked_keep(blob_int64(buf));
	n = blob_int32(buf);
	if (n < 0 || n > BOUND_MAX_COLUMNS)
		bad_spec("too many columns");
	layout->ncolumns = n;
	layout->columns = palloc0(sizeof(bound_column) * Max(n, 1));
	for (i = 0; i < n; i++)
	{
		bound_column *col = &layout->columns[i];

		col->kind = (char) blob_byte(buf);
		col->type = (Oid) blob_int32(buf);
		col->collation = (Oid) blob_int32(buf);
		if (col->kind == BOUND_SPEC_GROUP)
		{
			if (!OidIsValid(col->type))
				bad_spec("no type for a GROUP BY column");
			setup_group_column(col, fcinfo->flinfo->fn_mcxt);
		}
		else if (OidIsValid(kind_value_type(col->kind)))
			col->type = kind_value_type(col->kind);
		else
			bad_spec(psprintf("unknown column kind \"%c\"", col->kind));
	}
	layout->header_len = buf->cursor - start;
	layout->header = palloc(layout->header_len);
	memcpy(layout->header, buf->data + start, layout->header_len);
	MemoryContextSwitchTo(old);
	fcinfo->flinfo->fn_extra = layout;
	return layout;
}

/* ---- state ---- */

static int
inline_pairs(bound_layout *layout)
{
	return (int) Min(layout->keep, BOUND_INLINE_PAIRS);
}

static Size
cells_size(bound_layout *layout)
{
	return sizeof(bound_cell) * Max(layout->ncolumns, 1);
}

/* bytes of a state with its inline pairs */
Size
bound_state_size(bound_layout *layout)
{
	return MAXALIGN(sizeof(bound_state)) +
		inline_pairs(layout) * (sizeof(uint64) + sizeof(bound_cell *) + cells_size(layout));
}

/* a new empty state in bound_state_size(layout) bytes at memory */
bound_state *
bound_state_init(bound_layout *layout, void *memory, uint64 uid_hash)
{
	bound_state *state = (bound_state *) memory;
	char	   *p = (char *) state + MAXALIGN(sizeof(bound_state));

	memset(memory, 0, bound_state_size(layout));
	state->layout = layout;
	state->uid_hash = uid_hash;
	state->allocated = inline_pairs(layout);
	state->keys = (uint64 *) p;
	p += state->allocated * sizeof(uint64);
	state->cells = (bound_cell **) p;
	return state;
}

/* a new empty state in context */
static bound_state *
state_create(bound_layout *layout, MemoryContext context, uint64 uid_hash)
{
	return bound_state_init(layout, MemoryContextAlloc(context, bound_state_size(layout)), uid_hash);
}

/* the cells of a new pair, while the state is not full: inline ones first */
static bound_cell *
state_new_cells(bound_state *state, MemoryContext context)
{
	int			n = inline_pairs(state->layout);

	if (state->count < n)
	{
		char	   *pool = (char *) state + MAXALIGN(sizeof(bound_state)) +
			n * (sizeof(uint64) + sizeof(bound_cell *));

		return (bound_cell *) (pool + state->count * cells_size(state->layout));
	}
	return MemoryContextAllocZero(context, cells_size(state->layout));
}

static void
cells_release(bound_layout *layout, bound_cell *cells)
{
	int			i;

	for (i = 0; i < layout->ncolumns; i++)
	{
		bound_column *col = &layout->columns[i];
		bool		byref = col->kind == BOUND_SPEC_GROUP ? !col->typbyval :
			(col->kind == BOUND_SPEC_SUM_NUMERIC || (col->kind == BOUND_SPEC_SUM_BIGINT && cells[i].wide));

		if (byref && cells[i].present && DatumGetPointer(cells[i].v.datum) != NULL)
			pfree(DatumGetPointer(cells[i].v.datum));
		cells[i].present = false;
		cells[i].wide = false;
		cells[i].count = 0;
		cells[i].v.datum = (Datum) 0;
	}
}

/*
 * Room for a pair at position pos (keys ascending; pairs with equal keys in
 * arrival order); returns its cells, empty, or NULL when the state is full
 * and pos is past the end.  A full state drops its largest pair.
 */
static bound_cell *
state_insert(bound_state *state, int64 pos, uint64 key, MemoryContext context)
{
	bound_layout *layout = state->layout;
	bound_cell *cells;

	if (state->count == layout->keep)
	{
		if (pos >= state->count)
			return NULL;
		cells = state->cells[--state->count];
		cells_release(layout, cells);
	}
	else
	{
		if (state->count == state->allocated)
		{
			int32		size = (int32) Min((int64) state->allocated * 2, layout->keep);

			if (state->allocated == inline_pairs(layout))
			{
				/* leave the inline arrays for separate ones */
				uint64	   *keys = MemoryContextAlloc(context, sizeof(uint64) * size);
				bound_cell **cells_of = MemoryContextAlloc(context, sizeof(bound_cell *) * size);

				memcpy(keys, state->keys, sizeof(uint64) * state->count);
				memcpy(cells_of, state->cells, sizeof(bound_cell *) * state->count);
				state->keys = keys;
				state->cells = cells_of;
			}
			else
			{
				state->keys = repalloc(state->keys, sizeof(uint64) * size);
				state->cells = repalloc(state->cells, sizeof(bound_cell *) * size);
			}
			state->allocated = size;
		}
		cells = state_new_cells(state, context);
	}
	memmove(&state->keys[pos + 1], &state->keys[pos], sizeof(uint64) * (state->count - pos));
	memmove(&state->cells[pos + 1], &state->cells[pos], sizeof(bound_cell *) * (state->count - pos));
	state->keys[pos] = key;
	state->cells[pos] = cells;
	state->count++;
	return cells;
}

/* first position whose key is >= key */
static int64
state_lower_bound(bound_state *state, uint64 key)
{
	int64		lo = 0;
	int64		hi = state->count;

	while (lo < hi)
	{
		int64		mid = lo + (hi - lo) / 2;

		if (state->keys[mid] < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static bool
groups_equal(bound_layout *layout, bound_cell *cells, const Datum *values, const bool *nulls)
{
	int			i;

	for (i = 0; i < layout->ncolumns; i++)
	{
		bound_column *col = &layout->columns[i];

		if (col->kind != BOUND_SPEC_GROUP)
			continue;
		if (cells[i].present != !nulls[i])
			return false;
		if (cells[i].present &&
			!DatumGetBool(FunctionCall2Coll(&col->eq, col->collation, cells[i].v.datum, values[i])))
			return false;
	}
	return true;
}

/* ---- partials ----
 *
 * A per-user partial never raises an error on data; it is clamped to finite
 * bounds (of magnitude at most 1e250) afterwards.  A bigint sum past
 * bigint's range saturates at its limits, which clamps exactly as the true
 * sum would; numeric and double precision sums past their range become
 * +-Infinity, which clamps to the bound (the true sum would too, unless
 * values that large of both signs cancel: then the bound replaces it).
 */

/* a + b, or +-Infinity when the numeric sum leaves numeric's range */
static Datum
saturating_numeric_add(Datum a, Datum b)
{
	MemoryContext context = CurrentMemoryContext;
	volatile Datum sum = (Datum) 0;

	PG_TRY();
	{
		sum = DirectFunctionCall2(numeric_add, a, b);
	}
	PG_CATCH();
	{
		if (ERRCODE_TO_CATEGORY(geterrcode()) != ERRCODE_DATA_EXCEPTION)
			PG_RE_THROW();
		MemoryContextSwitchTo(context);
		FlushErrorState();
		/* only two sums of one sign overflow */
		sum = DirectFunctionCall3(numeric_in,
								  CStringGetDatum(DatumGetFloat8(DirectFunctionCall1(numeric_float8_no_overflow, a)) > 0 ?
												  "Infinity" : "-Infinity"),
								  ObjectIdGetDatum(InvalidOid), Int32GetDatum(-1));
	}
	PG_END_TRY();
	return sum;
}

/* a + b, at bigint's limits when it leaves them */
static int64
saturating_int64_add(int64 a, int64 b)
{
	int64		sum;

	if (!pg_add_s64_overflow(a, b, &sum))
		return sum;
	return b > 0 ? PG_INT64_MAX : PG_INT64_MIN;
}

static Datum
numeric_plus(Datum a, Datum b, MemoryContext context)
{
	Datum		sum = saturating_numeric_add(a, b);
	MemoryContext old = MemoryContextSwitchTo(context);
	Datum		copy = datumCopy(sum, false, -1);

	MemoryContextSwitchTo(old);
	return copy;
}

static void
replace_numeric(bound_cell *cell, Datum value)
{
	if (DatumGetPointer(cell->v.datum) != NULL)
		pfree(DatumGetPointer(cell->v.datum));
	cell->v.datum = value;
}

/* make a BOUND_SPEC_SUM_BIGINT cell hold its sum as numeric (an empty cell becomes 0) */
static void
widen_bigint_sum(bound_cell *cell, MemoryContext context)
{
	MemoryContext old;

	if (cell->wide)
		return;
	old = MemoryContextSwitchTo(context);
	cell->v.datum = DirectFunctionCall1(int8_numeric,
										Int64GetDatum(cell->present ? cell->count : 0));
	MemoryContextSwitchTo(old);
	cell->present = true;
	cell->wide = true;
}

/* add a bigint to a BOUND_SPEC_SUM_BIGINT cell: bigint while it fits, numeric after */
static void
add_bigint(bound_cell *cell, int64 value, MemoryContext context)
{
	int64		sum;

	if (!cell->present)
	{
		cell->present = true;
		cell->count = value;
		return;
	}
	if (!cell->wide && !pg_add_s64_overflow(cell->count, value, &sum))
	{
		cell->count = sum;
		return;
	}
	widen_bigint_sum(cell, context);
	replace_numeric(cell, numeric_plus(cell->v.datum,
									   DirectFunctionCall1(int8_numeric, Int64GetDatum(value)),
									   context));
}

/* fold one non-NULL argument value (or one row, for BOUND_SPEC_ROWS) into a partial */
static void
accumulate(bound_column *col, bound_cell *cell, Datum value, MemoryContext context)
{
	switch (col->kind)
	{
		case BOUND_SPEC_ROWS:
		case BOUND_SPEC_NONNULL:
			cell->count++;
			break;
		case BOUND_SPEC_SUM_INT:
			cell->count = cell->present ?
				saturating_int64_add(cell->count, DatumGetInt64(value)) : DatumGetInt64(value);
			cell->present = true;
			break;
		case BOUND_SPEC_SUM_BIGINT:
			add_bigint(cell, DatumGetInt64(value), context);
			break;
		case BOUND_SPEC_SUM_NUMERIC:
			if (cell->present)
				replace_numeric(cell, numeric_plus(cell->v.datum, value, context));
			else
			{
				MemoryContext old = MemoryContextSwitchTo(context);

				cell->v.datum = datumCopy(value, false, -1);
				MemoryContextSwitchTo(old);
			}
			cell->present = true;
			break;
		case BOUND_SPEC_SUM_FLOAT:
			/* IEEE addition: past the range it is +-Infinity, never an error */
			cell->v.real = cell->present ? cell->v.real + DatumGetFloat8(value) :
				DatumGetFloat8(value);
			cell->present = true;
			break;
		case BOUND_SPEC_MEAN:
			cell->v.real = cell->present ? cell->v.real + DatumGetFloat8(value) :
				DatumGetFloat8(value);
			cell->count++;
			cell->present = true;
			break;
		case BOUND_SPEC_MIN:
			if (!cell->present || float8_lt(DatumGetFloat8(value), cell->v.real))
				cell->v.real = DatumGetFloat8(value);
			cell->present = true;
			break;
		case BOUND_SPEC_MAX:
			if (!cell->present || float8_gt(DatumGetFloat8(value), cell->v.real))
				cell->v.real = DatumGetFloat8(value);
			cell->present = true;
			break;
	}
}

/* fold the partial of another state's pair into ours (combine) */
static void
merge_cell(bound_column *col, bound_cell *into, bound_cell *from, MemoryContext context)
{
	/* counts have no "present" flag; other partials only merge a value */
	if (col->kind == BOUND_SPEC_ROWS || col->kind == BOUND_SPEC_NONNULL)
	{
		into->count += from->count;
		return;
	}
	if (col->kind == BOUND_SPEC_GROUP || !from->present)
		return;
	switch (col->kind)
	{
		case BOUND_SPEC_SUM_INT:
			accumulate(col, into, Int64GetDatum(from->count), context);
			break;
		case BOUND_SPEC_SUM_BIGINT:
			if (!from->wide)
				add_bigint(into, from->count, context);
			else
			{
				widen_bigint_sum(into, context);
				replace_numeric(into, numeric_plus(into->v.datum, from->v.datum, context));
			}
			break;
		case BOUND_SPEC_SUM_NUMERIC:
			accumulate(col, into, from->v.datum, context);
			break;
		case BOUND_SPEC_SUM_FLOAT:
		case BOUND_SPEC_MIN:
		case BOUND_SPEC_MAX:
			accumulate(col, into, Float8GetDatum(from->v.real), context);
			break;
		case BOUND_SPEC_MEAN:
			into->v.real = into->present ? into->v.real + from->v.real : from->v.real;
			into->count += from->count;
			into->present = true;
			break;
	}
}

/* ---- the transition function ---- */

#define NULL_VALUE_HASH UINT64CONST(0x9e3779b97f4a7c15)

/*
 * Take the execution's secret (argument 1) into the layout, with the seed of
 * the types' hash functions derived from it, unless the layout has it.
 */
void
bound_layout_take_secret(bound_layout *layout, const NullableDatum *args)
{
	bytea	   *secret;
	static const uint8 label[] = "anon_dp type hash seed";

	if (args[BOUND_ARG_SECRET].isnull)
		bad_spec("the secret must not be NULL");
	secret = DatumGetByteaPP(args[BOUND_ARG_SECRET].value);
	if (VARSIZE_ANY_EXHDR(secret) != DP_PRF_KEY_BYTES)
		bad_spec("the secret must have 16 bytes");
	if (!layout->has_secret || memcmp(layout->secret, VARDATA_ANY(secret), DP_PRF_KEY_BYTES) != 0)
	{
		/* a new execution (or rescan): its states are all created anew */
		memcpy(layout->secret, VARDATA_ANY(secret), DP_PRF_KEY_BYTES);
		layout->seed = dp_siphash24(layout->secret, label, sizeof(label) - 1);
		layout->has_secret = true;
	}
}

/* the hash of a (not NULL) privacy unit, seeded from the execution's secret */
uint64
bound_uid_hash(bound_layout *layout, Datum uid)
{
	return DatumGetUInt64(FunctionCall2Coll(&layout->uid_hash, layout->uid_collation, uid,
											UInt64GetDatum(layout->seed)));
}

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
	return state_create(layout, context, bound_uid_hash(layout, PG_GETARG_DATUM(BOUND_ARG_UID)));
}

/*
 * Read the row's value of each column into values and nulls (a count(*)
 * column reads as NULL) and return the key of the row's (user, partition)
 * pair: SipHash of the user's uid hash and its GROUP BY values' hashes.
 */
static uint64
row_pair_key(const NullableDatum *args, bound_layout *layout, bound_state *state,
			 Datum *values, bool *nulls)
{
	uint64		words[1 + BOUND_MAX_COLUMNS];
	int			nwords = 0;
	int			i;

	words[nwords++] = state->uid_hash;
	for (i = 0; i < layout->ncolumns; i++)
	{
		bound_column *col = &layout->columns[i];

		if (col->argno < 0)
		{
			nulls[i] = true;
			values[i] = (Datum) 0;
			continue;
		}
		nulls[i] = args[col->argno].isnull;
		values[i] = nulls[i] ? (Datum) 0 : args[col->argno].value;
		if (col->kind == BOUND_SPEC_GROUP)
			words[nwords++] = nulls[i] ? NULL_VALUE_HASH :
				DatumGetUInt64(FunctionCall2Coll(&col->hash, col->collation, values[i],
												 UInt64GetDatum(layout->seed)));
	}
	return dp_siphash24(layout->secret, (const uint8 *) words, sizeof(uint64) * nwords);
}

/* copy the row's GROUP BY values into the cells of a newly admitted pair */
static void
store_group_values(bound_layout *layout, bound_cell *cells, const Datum *values,
				   const bool *nulls, MemoryContext context)
{
	int			i;

	for (i = 0; i < layout->ncolumns; i++)
	{
		bound_column *col = &layout->columns[i];

		if (col->kind != BOUND_SPEC_GROUP || nulls[i])
			continue;
		cells[i].present = true;
		if (col->typbyval)
			cells[i].v.datum = values[i];
		else
		{
			MemoryContext old = MemoryContextSwitchTo(context);

			cells[i].v.datum = datumCopy(values[i], false, col->typlen);
			MemoryContextSwitchTo(old);
		}
	}
}

/*
 * The cells of the row's pair in its user's state: those of the kept pair
 * with the row's key and GROUP BY values, or else those of the pair newly
 * admitted for the row.  NULL when the row is dropped: the state is full
 * and the key is not below its largest.
 */
static bound_cell *
find_or_admit_pair(bound_layout *layout, bound_state *state, uint64 key,
				   const Datum *values, const bool *nulls, MemoryContext context)
{
	bound_cell *cells;
	int64		pos;

	/* a full state drops a row whose key is above its largest at once */
	if (state->count == layout->keep && key > state->keys[state->count - 1])
		return NULL;

	pos = state_lower_bound(state, key);
	for (; pos < state->count && state->keys[pos] == key; pos++)
	{
		if (groups_equal(layout, state->cells[pos], values, nulls))
			return state->cells[pos];
	}
	cells = state_insert(state, pos, key, context);
	if (cells != NULL)
		store_group_values(layout, cells, values, nulls, context);
	return cells;
}

/* fold the row into the partials of its pair (NULL arguments are skipped) */
static void
accumulate_row(bound_layout *layout, bound_cell *cells, const Datum *values,
			   const bool *nulls, MemoryContext context)
{
	int			i;

	for (i = 0; i < layout->ncolumns; i++)
	{
		bound_column *col = &layout->columns[i];

		if (col->kind == BOUND_SPEC_GROUP || (col->argno >= 0 && nulls[i]))
			continue;
		accumulate(col, &cells[i], values[i], context);
	}
}

/*
 * Fold a row (the arguments of anon_dp_bound_partitions, numbered as the
 * transition function numbers them) into the state of its user, whose
 * privacy unit is not NULL: the row's pair is found or admitted, or the row
 * dropped.
 */
void
bound_state_add_row(bound_state *state, const NullableDatum *args, MemoryContext context)
{
	bound_layout *layout = state->layout;
	Datum		values[BOUND_MAX_COLUMNS];
	bool		nulls[BOUND_MAX_COLUMNS];
	uint64		key;
	bound_cell *cells;

	key = row_pair_key(args, layout, state, values, nulls);
	cells = find_or_admit_pair(layout, state, key, values, nulls, context);
	if (cells != NULL)
		accumulate_row(layout, cells, values, nulls, context);
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

/* ---- combine ---- */

/* a copy of another state's pair, in context: its GROUP BY values and partials */
static bound_cell *
copy_pair(bound_layout *layout, bound_cell *theirs, MemoryContext context)
{
	bound_cell *ours = MemoryContextAllocZero(context, cells_size(layout));
	int			i;

	for (i = 0; i < layout->ncolumns; i++)
	{
		bound_column *col = &layout->columns[i];

		if (col->kind == BOUND_SPEC_GROUP && theirs[i].present)
		{
			MemoryContext old = MemoryContextSwitchTo(context);

			ours[i].present = true;
			ours[i].v.datum = datumCopy(theirs[i].v.datum, col->typbyval, col->typlen);
			MemoryContextSwitchTo(old);
		}
		merge_cell(col, &ours[i], &theirs[i], context);
	}
	return ours;
}

/*
 * The pair among the first n merged ones with this key and the GROUP BY
 * values of theirs, or NULL (pairs of one key are adjacent, at the end).
 */
static bound_cell *
merged_pair(bound_layout *layout, const uint64 *keys, bound_cell **cells, int64 n,
			uint64 key, bound_cell *theirs)
{
	Datum		values[BOUND_MAX_COLUMNS];
	bool		nulls[BOUND_MAX_COLUMNS];
	int64		p;
	int			i;

	for (i = 0; i < layout->ncolumns; i++)
	{
		nulls[i] = !theirs[i].present;
		values[i] = theirs[i].v.datum;
	}
	for (p = n - 1; p >= 0 && keys[p] == key; p--)
		if (groups_equal(layout, cells[p], values, nulls))
			return cells[p];
	return NULL;
}

/* replace the pairs of state by the n pairs of keys and cells */
static void
state_set_pairs(bound_state *state, uint64 *keys, bound_cell **cells, int64 n,
				MemoryContext context)
{
	if (n > state->allocated)
	{
		int32		size = (int32) Min(Max(n, (int64) state->allocated * 2), state->layout->keep);

		if (state->allocated == inline_pairs(state->layout))
		{
			/* the inline arrays stay where they are; the inline cells stay in use */
			state->keys = MemoryContextAlloc(context, sizeof(uint64) * size);
			state->cells = MemoryContextAlloc(context, sizeof(bound_cell *) * size);
		}
		else
		{
			state->keys = repalloc(state->keys, sizeof(uint64) * size);
			state->cells = repalloc(state->cells, sizeof(bound_cell *) * size);
		}
		state->allocated = size;
	}
	memcpy(state->keys, keys, sizeof(uint64) * n);
	memcpy(state->cells, cells, sizeof(bound_cell *) * n);
	state->count = (int32) n;
}

/* release a pair of state that is no longer held (its cells too, unless inline) */
static void
pair_drop(bound_state *state, bound_cell *cells)
{
	char	   *pool = (char *) state + MAXALIGN(sizeof(bound_state));
	Size		inline_size = inline_pairs(state->layout) *
		(sizeof(uint64) + sizeof(bound_cell *) + cells_size(state->layout));

	cells_release(state->layout, cells);
	if ((char *) cells < pool || (char *) cells >= pool + inline_size)
		pfree(cells);
}

/*
 * Merge the pairs of from into into: one pass over both key-ordered lists,
 * keeping the C_u smallest keys.  A pair both hold (same key and GROUP BY
 * values) adds up its partials; among equal keys into's pairs come first,
 * as if from's rows had come after into's.  Pairs of into beyond C_u are
 * released; pairs of from are copied into context.  Linear in the pairs
 * (inserting one by one would move the held pairs at each insertion).
 */
static void
state_merge(bound_state *into, bound_state *from, MemoryContext context)
{
	bound_layout *layout = into->layout;
	int64		limit = Min(layout->keep, (int64) into->count + from->count);
	uint64	   *keys = palloc(sizeof(uint64) * Max(limit, 1));
	bound_cell **cells = palloc(sizeof(bound_cell *) * Max(limit, 1));
	int64		n = 0;
	int64		i = 0;
	int64		j = 0;
	int64		steps = 0;

	while (i < into->count || j < from->count)
	{
		uint64		key;
		int64		i_end = i;

		if (++steps % BOUND_INTERRUPT_EVERY == 0)
			CHECK_FOR_INTERRUPTS();
		key = j >= from->count || (i < into->count && into->keys[i] <= from->keys[j]) ?
			into->keys[i] : from->keys[j];
		/* into's pairs with this key, then from's, merged into them when held */
		while (i_end < into->count && into->keys[i_end] == key)
			i_end++;
		for (; i < i_end; i++)
		{
			if (n < layout->keep)
			{
				keys[n] = key;
				cells[n++] = into->cells[i];
			}
			else
				pair_drop(into, into->cells[i]);
		}
		for (; j < from->count && from->keys[j] == key; j++)
		{
			bound_cell *ours = merged_pair(layout, keys, cells, n, key, from->cells[j]);
			int			c;

			if (ours != NULL)
			{
				for (c = 0; c < layout->ncolumns; c++)
					merge_cell(&layout->columns[c], &ours[c], &from->cells[j][c], context);
			}
			else if (n < layout->keep)
			{
				keys[n] = key;
				cells[n++] = copy_pair(layout, from->cells[j], context);
			}
		}
	}
	state_set_pairs(into, keys, cells, n, context);
	pfree(keys);
	pfree(cells);
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
		into = state_create(from->layout, context, 0);
	else
		into = (bound_state *) PG_GETARG_POINTER(0);
	state_merge(into, from, context);
	PG_RETURN_POINTER(into);
}

/* ---- the kept pairs as bytes: final value and serialized state ---- */

static void
send_value(StringInfo buf, bound_column *col, Datum value)
{
	bytea	   *bytes = SendFunctionCall(&col->send, value);

	pq_sendint32(buf, VARSIZE(bytes) - VARHDRSZ);
	pq_sendbytes(buf, VARDATA(bytes), VARSIZE(bytes) - VARHDRSZ);
}

static FmgrInfo *
numeric_io(bool receive)
{
	static FmgrInfo send_info;
	static FmgrInfo recv_info;
	static bool ready = false;

	if (!ready)
	{
		Oid			send;
		Oid			recv;
		Oid			ioparam;
		bool		varlena;

		getTypeBinaryOutputInfo(NUMERICOID, &send, &varlena);
		getTypeBinaryInputInfo(NUMERICOID, &recv, &ioparam);
		fmgr_info_cxt(send, &send_info, TopMemoryContext);
		fmgr_info_cxt(recv, &recv_info, TopMemoryContext);
		ready = true;
	}
	return receive ? &recv_info : &send_info;
}

/* the kept pairs of a state as the bytes anon_dp_bounded_column reads */
bytea *
bound_state_serialize(bound_state *state)
{
	bound_layout *layout = state->layout;
	StringInfoData buf;
	int64		p;
	int			i;

	pq_begintypsend(&buf);
	pq_sendbytes(&buf, layout->header, layout->header_len);
	pq_sendint32(&buf, (int32) state->count);
	for (p = 0; p < state->count; p++)
	{
		bound_cell *cells = state->cells[p];

		if ((p + 1) % BOUND_INTERRUPT_EVERY == 0)
			CHECK_FOR_INTERRUPTS();
		pq_sendint64(&buf, (int64) state->keys[p]);
		for (i = 0; i < layout->ncolumns; i++)
		{
			bound_column *col = &layout->columns[i];
			bound_cell *cell = &cells[i];

			pq_sendbyte(&buf, cell->present ? 1 : 0);
			if (!cell->present && col->kind != BOUND_SPEC_ROWS && col->kind != BOUND_SPEC_NONNULL)
				continue;
			switch (col->kind)
			{
				case BOUND_SPEC_GROUP:
					send_value(&buf, col, cell->v.datum);
					break;
				case BOUND_SPEC_ROWS:
				case BOUND_SPEC_NONNULL:
				case BOUND_SPEC_SUM_INT:
					pq_sendint64(&buf, cell->count);
					break;
				case BOUND_SPEC_SUM_BIGINT:
					pq_sendbyte(&buf, cell->wide ? 1 : 0);
					if (cell->wide)
					{
						bytea	   *bytes = SendFunctionCall(numeric_io(false), cell->v.datum);

						pq_sendint32(&buf, VARSIZE(bytes) - VARHDRSZ);
						pq_sendbytes(&buf, VARDATA(bytes), VARSIZE(bytes) - VARHDRSZ);
					}
					else
						pq_sendint64(&buf, cell->count);
					break;
				case BOUND_SPEC_SUM_NUMERIC:
					{
						bytea	   *bytes = SendFunctionCall(numeric_io(false), cell->v.datum);

						pq_sendint32(&buf, VARSIZE(bytes) - VARHDRSZ);
						pq_sendbytes(&buf, VARDATA(bytes), VARSIZE(bytes) - VARHDRSZ);
					}
					break;
				case BOUND_SPEC_MEAN:
					pq_sendint64(&buf, cell->count);
					pq_sendfloat8(&buf, cell->v.real);
					break;
				default:
					pq_sendfloat8(&buf, cell->v.real);
					break;
			}
		}
	}
	return pq_endtypsend(&buf);
}

PG_FUNCTION_INFO_V1(anon_dp_bound_partitions_serialize);
Datum
anon_dp_bound_partitions_serialize(PG_FUNCTION_ARGS)
{
	PG_RETURN_BYTEA_P(bound_state_serialize((bound_state *) PG_GETARG_POINTER(0)));
}

/* a read cursor over a bytea (pq_getmsg* only read through it) */
static void
read_buffer(StringInfo buf, bytea *blob)
{
	buf->data = VARDATA_ANY(blob);
	buf->len = VARSIZE_ANY_EXHDR(blob);
	buf->maxlen = buf->len;
	buf->cursor = 0;
}

static Datum
receive_value(StringInfo buf, FmgrInfo *recv, Oid ioparam)
{
	int			len = blob_int32(buf);
	StringInfoData value;

	if (len < 0 || len > buf->len - buf->cursor)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("anon_dp_bounded_column: truncated value")));
	/* a private, NUL-terminated copy: receive functions may write to it */
	initStringInfo(&value);
	appendBinaryStringInfo(&value, pq_getmsgbytes(buf, len), len);
	return ReceiveFunctionCall(recv, &value, ioparam, -1);
}

/*
 * Read the pairs of a blob into a new state in the current memory context;
 * the layout must already have been read from buf.
 */
static bound_state *
state_read(bound_layout *layout, StringInfo buf)
{
	bound_state *state = state_create(layout, CurrentMemoryContext, 0);
	int			count = blob_int32(buf);
	int			p;
	int			i;

	if (count < 0 || count > layout->keep)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("anon_dp_bounded_column: invalid number of pairs")));
	for (p = 0; p < count; p++)
	{
		uint64		key = (uint64) blob_int64(buf);
		bound_cell *cells;

		if ((p + 1) % BOUND_INTERRUPT_EVERY == 0)
			CHECK_FOR_INTERRUPTS();
		if (p > 0 && key < state->keys[p - 1])
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
					 errmsg("anon_dp_bounded_column: pairs out of order")));
		cells = state_insert(state, p, key, CurrentMemoryContext);
		for (i = 0; i < layout->ncolumns; i++)
		{
			bound_column *col = &layout->columns[i];
			bound_cell *cell = &cells[i];

			cell->present = blob_byte(buf) != 0;
			if (!cell->present && col->kind != BOUND_SPEC_ROWS && col->kind != BOUND_SPEC_NONNULL)
				continue;
			switch (col->kind)
			{
				case BOUND_SPEC_GROUP:
					cell->v.datum = receive_value(buf, &col->recv, col->ioparam);
					break;
				case BOUND_SPEC_ROWS:
				case BOUND_SPEC_NONNULL:
				case BOUND_SPEC_SUM_INT:
					cell->count = blob_int64(buf);
					break;
				case BOUND_SPEC_SUM_BIGINT:
					cell->wide = blob_byte(buf) != 0;
					if (cell->wide)
						cell->v.datum = receive_value(buf, numeric_io(true), NUMERICOID);
					else
						cell->count = blob_int64(buf);
					break;
				case BOUND_SPEC_SUM_NUMERIC:
					cell->v.datum = receive_value(buf, numeric_io(true), NUMERICOID);
					break;
				case BOUND_SPEC_MEAN:
					cell->count = blob_int64(buf);
					cell->v.real = blob_float8(buf);
					break;
				default:
					cell->v.real = blob_float8(buf);
					break;
			}
		}
	}
	if (buf->cursor != buf->len)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("anon_dp_bounded_column: trailing bytes after the value of anon_dp_bound_partitions")));
	return state;
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
	read_buffer(&buf, blob);
	layout = layout_from_blob(fcinfo, &buf);
	state = state_read(layout, &buf);
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
	read_buffer(&buf, blob);
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
	state = state_read(layout, &buf);

	values = palloc(sizeof(Datum) * Max(state->count, 1));
	nulls = palloc(sizeof(bool) * Max(state->count, 1));
	for (p = 0; p < state->count; p++)
	{
		bound_cell *cell = &state->cells[p][column];

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

/* anon_dp_bound_witness: the state stays NULL (it is only ever filtered out) */
PG_FUNCTION_INFO_V1(anon_dp_bound_witness_transfn);
Datum
anon_dp_bound_witness_transfn(PG_FUNCTION_ARGS)
{
	PG_RETURN_NULL();
}
