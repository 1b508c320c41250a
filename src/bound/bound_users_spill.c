/*
 * bound_users_spill.c -- the rows of the bounding node's users that do not
 * fit in its table (bound_users_node.c decides when a batch spills): they
 * go to temporary files partitioned by bits of the user's hash, 5 bits per
 * level, and each file is read back as a batch of the next level.  All rows
 * of a spilled user go to its one file.
 */
#include "postgres.h"

#include "access/tupmacs.h"
#include "fmgr.h"
#include "utils/memutils.h"

#include "bound/bound_users.h"

static void
file_read(BufFile *file, void *data, size_t size)
{
	if (BufFileRead(file, data, size) != size)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("anon_dp bounding: could not read a temporary file of spilled rows")));
}

/*
 * A spilled row: its length (uint32), then its user's hash and, for each
 * argument that is not one of the scan's constants, a byte that says NULL
 * or not and the value: a pass-by-value type's typlen bytes; other types
 * at a MAXALIGN'd offset, with their length first when it varies (a TOAST
 * pointer or an expanded object written flat).  Rows are read back into a
 * MAXALIGN'd buffer, so values read in place are aligned.
 */
static void
append_value(StringInfo buf, Datum value, int16 typlen, bool byval)
{
	if (byval)
	{
		Datum		bytes;			/* aligned for any pass-by-value type */

		store_att_byval(&bytes, value, typlen);
		appendBinaryStringInfo(buf, (char *) &bytes, typlen);
		return;
	}
	while (buf->len % MAXIMUM_ALIGNOF != 0)
		appendStringInfoChar(buf, 0);
	if (typlen > 0)
		appendBinaryStringInfo(buf, DatumGetPointer(value), typlen);
	else
	{
		struct varlena *flat = typlen == -1 ?
			pg_detoast_datum_packed((struct varlena *) DatumGetPointer(value)) : NULL;
		uint32		size = typlen == -1 ? VARSIZE_ANY(flat) :
			(uint32) strlen(DatumGetCString(value)) + 1;
		uint32		prefix[2] = {size, 0};

		/* the prefix keeps the value at a MAXALIGN'd offset */
		appendBinaryStringInfo(buf, (char *) prefix, MAXIMUM_ALIGNOF);
		appendBinaryStringInfo(buf, flat != NULL ? (char *) flat : DatumGetCString(value), size);
	}
}

/* write a row's arguments with its user's hash to the user's partition */
void
bound_users_spill_row(bound_users_state *state, const NullableDatum *args, uint64 hash)
{
	int			shift = 64 - SPILL_BITS * (state->level + 1);
	int			p = (int) ((hash >> shift) & (state->npartitions - 1));
	StringInfo	buf = &state->spill_buffer;
	uint32		len;
	int			i;

	resetStringInfo(buf);
	appendBinaryStringInfo(buf, (char *) &hash, sizeof(hash));
	for (i = 1; i < state->nargs; i++)
	{
		Form_pg_attribute attr = argument_attr(state, i);

		if (state->arg_constant[i])
			continue;
		appendStringInfoChar(buf, args[i].isnull ? 0 : 1);
		if (!args[i].isnull)
			append_value(buf, args[i].value, attr->attlen, attr->attbyval);
	}
	if (state->partitions[p] == NULL)
	{
		/* in the node's context: the table's are reset between batches */
		MemoryContext old = MemoryContextSwitchTo(GetMemoryChunkContext(state));

		state->partitions[p] = BufFileCreateTemp(false);
		MemoryContextSwitchTo(old);
	}
	len = (uint32) buf->len;
	BufFileWrite(state->partitions[p], &len, sizeof(len));
	BufFileWrite(state->partitions[p], buf->data, len);
	state->spilled_rows++;
	state->spilled_bytes += sizeof(len) + len;
}

static void
bad_spilled_row(void)
{
	ereport(ERROR,
			(errcode(ERRCODE_DATA_CORRUPTED),
			 errmsg("anon_dp bounding: invalid row in a temporary file of spilled rows")));
}

/* the value at *pos of a spilled row of len bytes at data (see append_value) */
static Datum
read_value(char *data, uint32 len, uint32 *pos, int16 typlen, bool byval)
{
	Datum		value;

	if (!byval)
		*pos = MAXALIGN(*pos);
	if (byval || typlen > 0)
	{
		if (*pos + typlen > len)
			bad_spilled_row();
		if (byval)
		{
			Datum		bytes;		/* aligned for any pass-by-value type */

			memcpy(&bytes, data + *pos, typlen);
			value = fetch_att(&bytes, true, typlen);
		}
		else
			value = PointerGetDatum(data + *pos);
		*pos += typlen;
		return value;
	}
	{
		uint32		size;

		if (*pos + MAXIMUM_ALIGNOF > len)
			bad_spilled_row();
		memcpy(&size, data + *pos, sizeof(size));
		*pos += MAXIMUM_ALIGNOF;
		if (size > len - *pos)
			bad_spilled_row();
		value = PointerGetDatum(data + *pos);
		*pos += size;
		return value;
	}
}

/*
 * The next row of a spill file into the read arrays (the scan's constant
 * arguments left out) and its user's hash; false at the file's end.
 */
bool
bound_users_read_spilled_row(bound_users_state *state, BufFile *file, uint64 *hash)
{
	uint32		len;
	uint32		pos = sizeof(uint64);
	size_t		got = BufFileRead(file, &len, sizeof(len));
	int			i;

	if (got == 0)
		return false;
	if (got != sizeof(len))
		file_read(file, (char *) &len + got, sizeof(len) - got);
	if (len < sizeof(uint64) || len > MaxAllocSize)
		bad_spilled_row();
	if (len > state->read_buffer_size)
	{
		state->read_buffer = state->read_buffer == NULL ?
			MemoryContextAlloc(GetMemoryChunkContext(state), len) :
			repalloc(state->read_buffer, len);
		state->read_buffer_size = len;
	}
	file_read(file, state->read_buffer, len);
	memcpy(hash, state->read_buffer, sizeof(uint64));
	for (i = 1; i < state->nargs; i++)
	{
		Form_pg_attribute attr = argument_attr(state, i);

		state->read_nulls[i - 1] = true;
		state->read_values[i - 1] = (Datum) 0;
		if (state->arg_constant[i])
			continue;
		if (pos >= len)
			bad_spilled_row();
		state->read_nulls[i - 1] = state->read_buffer[pos++] == 0;
		if (!state->read_nulls[i - 1])
			state->read_values[i - 1] = read_value(state->read_buffer, len, &pos,
												   attr->attlen, attr->attbyval);
	}
	if (pos != len)
		bad_spilled_row();
	return true;
}

/* the partitions written by the batch become batches of the next level */
void
bound_users_queue_partitions(bound_users_state *state)
{
	int			p;

	for (p = 0; p < SPILL_MAX_PARTITIONS; p++)
	{
		spill_batch *batch;
		MemoryContext old;

		if (state->partitions[p] == NULL)
			continue;
		if (BufFileSeek(state->partitions[p], 0, 0, SEEK_SET) != 0)
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("anon_dp bounding: could not rewind a temporary file of spilled rows")));
		old = MemoryContextSwitchTo(GetMemoryChunkContext(state));
		batch = palloc(sizeof(spill_batch));
		batch->file = state->partitions[p];
		batch->level = state->level + 1;
		state->pending = lappend(state->pending, batch);
		MemoryContextSwitchTo(old);
		state->partitions[p] = NULL;
	}
}

/* close the spill files still open: pending batches and partitions being written */
void
bound_users_close_files(bound_users_state *state)
{
	ListCell   *lc;
	int			p;

	foreach(lc, state->pending)
		BufFileClose(((spill_batch *) lfirst(lc))->file);
	list_free_deep(state->pending);
	state->pending = NIL;
	for (p = 0; p < SPILL_MAX_PARTITIONS; p++)
	{
		if (state->partitions[p] != NULL)
			BufFileClose(state->partitions[p]);
		state->partitions[p] = NULL;
	}
}
