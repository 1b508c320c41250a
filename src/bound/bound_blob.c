/*
 * bound_blob.c -- a read cursor over the bytes of a value of
 * anon_dp_bound_partitions, whose readers fail with a clear error, not the
 * protocol error of pq_getmsg*, when a hand-made value is too short.
 */
#include "postgres.h"

#include "libpq/pqformat.h"

#include "bound/bound_blob.h"

/* a read cursor over a bytea (pq_getmsg* only read through it) */
void
bound_blob_open(StringInfo buf, bytea *blob)
{
	buf->data = VARDATA_ANY(blob);
	buf->len = VARSIZE_ANY_EXHDR(blob);
	buf->maxlen = buf->len;
	buf->cursor = 0;
}

static void
blob_need(StringInfo buf, int n)
{
	if (n < 0 || buf->len - buf->cursor < n)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("anon_dp_bounded_column: truncated value of anon_dp_bound_partitions")));
}

int32
bound_blob_int32(StringInfo buf)
{
	blob_need(buf, 4);
	return (int32) pq_getmsgint(buf, 4);
}

int64
bound_blob_int64(StringInfo buf)
{
	blob_need(buf, 8);
	return pq_getmsgint64(buf);
}

int
bound_blob_byte(StringInfo buf)
{
	blob_need(buf, 1);
	return pq_getmsgbyte(buf);
}

float8
bound_blob_float8(StringInfo buf)
{
	blob_need(buf, 8);
	return pq_getmsgfloat8(buf);
}
