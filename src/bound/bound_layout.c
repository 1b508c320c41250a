/*
 * bound_layout.c -- the layout of a call site of anon_dp_bound_partitions:
 * its spec and argument types read into columns, built once per call site,
 * and the header that starts every value of the aggregate, from which the
 * layout is read back; the secret of the current execution, from which the
 * keys of the pairs and the hashes of the users are seeded.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "libpq/pqformat.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/typcache.h"

#include "bound/bound_blob.h"
#include "bound/bound_layout.h"
#include "bound/bound_spec.h"
#include "settings.h"

#define BOUND_MAGIC 0x41445042	/* "ADPB" */
#define BOUND_VERSION 2			/* 2: a sample column carries its size */
#define BOUND_MAX_KEEP ANON_DP_MAX_CONTRIBUTIONS	/* anon_dp.max_groups_contributed's maximum */

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

/*
 * BOUND_HASH_* for an extended hash function: recognized by its address, so
 * only the functions whose bodies bound_hash_value repeats are inlined.
 */
char
bound_hash_inline_kind(const FmgrInfo *hash)
{
	if (hash->fn_addr == hashint4extended || hash->fn_addr == hashoidextended)
		return BOUND_HASH_INT4;
	if (hash->fn_addr == hashint8extended)
		return BOUND_HASH_INT8;
	return BOUND_HASH_FMGR;
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
	col->hash_inline = bound_hash_inline_kind(&col->hash);
	/* the default equality of these types compares the datums */
	col->bitwise_equal = col->type == INT4OID || col->type == INT8OID ||
		col->type == INT2OID || col->type == OIDOID || col->type == DATEOID;
	fmgr_info_cxt(send, &col->send, context);
	fmgr_info_cxt(recv, &col->recv, context);
	get_typlenbyval(col->type, &col->typlen, &col->typbyval);
}

/* what the columns tell about the whole layout, once they are set up */
static void
finish_columns(bound_layout *layout)
{
	int			i;

	layout->groups_bitwise = true;
	for (i = 0; i < layout->ncolumns; i++)
		if (layout->columns[i].kind == BOUND_SPEC_GROUP && !layout->columns[i].bitwise_equal)
			layout->groups_bitwise = false;
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
		if (layout->columns[i].kind == BOUND_SPEC_SAMPLE)
			pq_sendint32(&buf, layout->columns[i].sample_size);
	}
	layout->header = buf.data;
	layout->header_len = buf.len;
}

/* the values a sample column keeps per pair: dp_ntile_rows' limit */
static int32
checked_sample_size(int32 size)
{
	if (size < 1 || size > BOUND_MAX_SAMPLE)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("anon_dp_bound_partitions: the sample size must be between 1 and %d, not %d",
						BOUND_MAX_SAMPLE, size),
				 errhint("Set anon_dp.max_rows_contributed to a value in that range.")));
	return size;
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
		else if (col->kind == BOUND_SPEC_SAMPLE)
		{
			/* the size: a constant of the call, read from its first row */
			if (argno >= nargs || argtypes[argno] != INT4OID || args[argno].isnull)
				bad_spec(psprintf("column %d (\"%c\") needs a sample size of type integer after its value",
								  n + 1, col->kind));
			col->sample_size = checked_sample_size(DatumGetInt32(args[argno].value));
			argno++;
		}
		if (col->kind != BOUND_SPEC_GROUP && col->kind != BOUND_SPEC_NONNULL)
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
		layout->uid_hash_inline = bound_hash_inline_kind(&layout->uid_hash);
		layout->uid_collation = collations[BOUND_ARG_UID];
	}
	finish_columns(layout);
	build_header(layout);
	MemoryContextSwitchTo(old);
	return layout;
}

/*
 * The layout written at the start of a blob (build_header): cached when the
 * blob starts with its header, else a new layout in context.
 */
bound_layout *
bound_layout_read(StringInfo buf, bound_layout *cached, MemoryContext context)
{
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
	if (bound_blob_int32(buf) != BOUND_MAGIC || bound_blob_int32(buf) != BOUND_VERSION)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("anon_dp_bounded_column: not a value of anon_dp_bound_partitions")));
	old = MemoryContextSwitchTo(context);
	layout = palloc0(sizeof(bound_layout));
	layout->keep = checked_keep(bound_blob_int64(buf));
	n = bound_blob_int32(buf);
	if (n < 0 || n > BOUND_MAX_COLUMNS)
		bad_spec("too many columns");
	layout->ncolumns = n;
	layout->columns = palloc0(sizeof(bound_column) * Max(n, 1));
	for (i = 0; i < n; i++)
	{
		bound_column *col = &layout->columns[i];

		col->kind = (char) bound_blob_byte(buf);
		col->type = (Oid) bound_blob_int32(buf);
		col->collation = (Oid) bound_blob_int32(buf);
		if (col->kind == BOUND_SPEC_GROUP)
		{
			if (!OidIsValid(col->type))
				bad_spec("no type for a GROUP BY column");
			setup_group_column(col, context);
		}
		else if (OidIsValid(kind_value_type(col->kind)))
			col->type = kind_value_type(col->kind);
		else
			bad_spec(psprintf("unknown column kind \"%c\"", col->kind));
		if (col->kind == BOUND_SPEC_SAMPLE)
			col->sample_size = checked_sample_size(bound_blob_int32(buf));
	}
	finish_columns(layout);
	layout->header_len = buf->cursor - start;
	layout->header = palloc(layout->header_len);
	memcpy(layout->header, buf->data + start, layout->header_len);
	MemoryContextSwitchTo(old);
	return layout;
}

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
