/*
 * bound_serialization.c -- the kept pairs of a state as bytes: the value
 * of anon_dp_bound_partitions (read by anon_dp_bounded_column) and the
 * serialized state of parallel aggregation, one form.  After the layout's
 * header, each pair is its key and its cells; values travel in their
 * types' binary send format and are read back with the receive functions,
 * which validate their input.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "libpq/pqformat.h"
#include "miscadmin.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

#include "bound/bound_blob.h"
#include "bound/bound_serialization.h"
#include "bound/bound_spec.h"

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
		bound_cell *cells = bound_state_cells(state)[p];

		if ((p + 1) % BOUND_INTERRUPT_EVERY == 0)
			CHECK_FOR_INTERRUPTS();
		pq_sendint64(&buf, (int64) bound_state_keys(state)[p]);
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
				case BOUND_SPEC_SAMPLE:
					{
						int32		used;
						const double *values = bound_sample_values(col, cell, &used);
						int32		v;

						pq_sendint64(&buf, cell->count);
						pq_sendint32(&buf, used);
						for (v = 0; v < used; v++)
							pq_sendfloat8(&buf, values[v]);
					}
					break;
				default:
					pq_sendfloat8(&buf, cell->v.real);
					break;
			}
		}
	}
	return pq_endtypsend(&buf);
}

static Datum
receive_value(StringInfo buf, FmgrInfo *recv, Oid ioparam)
{
	int			len = bound_blob_int32(buf);
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
 * a sample cell: values seen, values kept (min(m, seen), as the reservoir
 * always holds: merging two samples relies on it), the values
 */
static void
read_sample(StringInfo buf, bound_column *col, bound_cell *cell)
{
	int64		seen = bound_blob_int64(buf);
	int32		used = bound_blob_int32(buf);
	double	   *values;
	int32		v;

	if (used < 1 || seen < used || (int64) used != Min((int64) col->sample_size, seen) ||
		(Size) used * sizeof(double) > (Size) (buf->len - buf->cursor))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("anon_dp_bounded_column: invalid sample")));
	values = palloc(sizeof(double) * used);
	for (v = 0; v < used; v++)
		values[v] = bound_blob_float8(buf);
	bound_sample_set(col, cell, values, used, seen, CurrentMemoryContext);
	pfree(values);
}

/*
 * Read the pairs of a blob into a new state in the current memory context;
 * the layout must already have been read from buf.
 */
bound_state *
bound_state_read(bound_layout *layout, StringInfo buf)
{
	bound_state *state = bound_state_create(layout, CurrentMemoryContext, 0);
	int			count = bound_blob_int32(buf);
	int			p;
	int			i;

	if (count < 0 || count > layout->keep)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("anon_dp_bounded_column: invalid number of pairs")));
	for (p = 0; p < count; p++)
	{
		uint64		key = (uint64) bound_blob_int64(buf);
		bound_cell *cells;

		if ((p + 1) % BOUND_INTERRUPT_EVERY == 0)
			CHECK_FOR_INTERRUPTS();
		if (p > 0 && key < bound_state_keys(state)[p - 1])
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
					 errmsg("anon_dp_bounded_column: pairs out of order")));
		cells = bound_state_insert(state, p, key, CurrentMemoryContext);
		for (i = 0; i < layout->ncolumns; i++)
		{
			bound_column *col = &layout->columns[i];
			bound_cell *cell = &cells[i];

			cell->present = bound_blob_byte(buf) != 0;
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
					cell->count = bound_blob_int64(buf);
					break;
				case BOUND_SPEC_SUM_BIGINT:
					cell->wide = bound_blob_byte(buf) != 0;
					if (cell->wide)
						cell->v.datum = receive_value(buf, numeric_io(true), NUMERICOID);
					else
						cell->count = bound_blob_int64(buf);
					break;
				case BOUND_SPEC_SUM_NUMERIC:
					cell->v.datum = receive_value(buf, numeric_io(true), NUMERICOID);
					break;
				case BOUND_SPEC_MEAN:
					cell->count = bound_blob_int64(buf);
					cell->v.real = bound_blob_float8(buf);
					break;
				case BOUND_SPEC_SAMPLE:
					read_sample(buf, col, cell);
					break;
				default:
					cell->v.real = bound_blob_float8(buf);
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
