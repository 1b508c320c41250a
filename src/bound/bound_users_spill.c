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

/*
 * When every argument that is not one of the scan's constants has a
 * pass-by-value type (the usual uid, GROUP BY values and numbers), rows have
 * a fixed format instead: the user's hash, one byte per such argument that
 * says NULL or not, then the arguments' typlen bytes each (zeros when NULL),
 * without a length.  A row is then one write and one read of
 * spill_fixed_len bytes, and about a third smaller.  When the uid's hash is
 * computed inline (bound_hash_value) it is left out too and computed again
 * when the row is read: cheaper than writing and reading its 8 bytes.
 */
#define FIXED_MAX_ARGUMENTS 64

void
bound_users_spill_init(bound_users_state *state)
{
	uint32		len = sizeof(uint64);
	int			n = 0;
	int			i;

	state->spill_fixed_len = 0;
	for (i = 1; i < state->nargs; i++)
	{
		Form_pg_attribute attr = argument_attr(state, i);

		if (state->arg_constant[i])
			continue;
		if (!attr->attbyval || attr->attlen <= 0 || attr->attlen > (int) sizeof(Datum))
			return;
		len += 1 + attr->attlen;
		n++;
	}
	if (n <= FIXED_MAX_ARGUMENTS)
		state->spill_fixed_len = len;
}

/* the fixed format leaves out the user's hash (the layout exists once a row is spilled) */
static inline bool
fixed_without_hash(bound_users_state *state)
{
	return state->layout->uid_hash_inline != BOUND_HASH_FMGR;
}

static inline uint32
fixed_row_len(bound_users_state *state)
{
	return state->spill_fixed_len - (fixed_without_hash(state) ? sizeof(uint64) : 0);
}

/* the fixed format's row (bound_users_spill_init) into buf */
static void
build_fixed_row(bound_users_state *state, const NullableDatum *args, uint64 hash, char *buf)
{
	char	   *p = buf;
	int			i;

	if (!fixed_without_hash(state))
	{
		memcpy(p, &hash, sizeof(hash));
		p += sizeof(hash);
	}
	for (i = 1; i < state->nargs; i++)
	{
		Form_pg_attribute attr;
		Datum		bytes = 0;	/* aligned for any pass-by-value type */

		if (state->arg_constant[i])
			continue;
		attr = argument_attr(state, i);
		*p++ = args[i].isnull ? 0 : 1;
		if (!args[i].isnull)
			store_att_byval(&bytes, args[i].value, attr->attlen);
		memcpy(p, &bytes, attr->attlen);
		p += attr->attlen;
	}
}

/* the partition of the user's hash at this batch's level, its file created if need be */
static BufFile *
partition_file(bound_users_state *state, uint64 hash)
{
	int			shift = 64 - SPILL_BITS * (state->level + 1);
	int			p = (int) ((hash >> shift) & (state->npartitions - 1));

	if (state->partitions[p] == NULL)
	{
		/* in the node's context: the table's are reset between batches */
		MemoryContext old = MemoryContextSwitchTo(GetMemoryChunkContext(state));

		state->partitions[p] = BufFileCreateTemp(false);
		MemoryContextSwitchTo(old);
	}
	return state->partitions[p];
}

/* write a row's arguments with its user's hash to the user's partition */
void
bound_users_spill_row(bound_users_state *state, const NullableDatum *args, uint64 hash)
{
	StringInfo	buf = &state->spill_buffer;
	BufFile    *file;
	uint32		len;
	int			i;

	if (state->spill_fixed_len > 0)
	{
		char		row[sizeof(uint64) + FIXED_MAX_ARGUMENTS * (1 + sizeof(Datum))];

		build_fixed_row(state, args, hash, row);
		BufFileWrite(partition_file(state, hash), row, fixed_row_len(state));
		state->spilled_rows++;
		state->spilled_bytes += fixed_row_len(state);
		return;
	}
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
	file = partition_file(state, hash);
	len = (uint32) buf->len;
	BufFileWrite(file, &len, sizeof(len));
	BufFileWrite(file, buf->data, len);
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
/* the next row of the fixed format (bound_users_spill_init); false at the end */
static bool
read_fixed_row(bound_users_state *state, BufFile *file, uint64 *hash)
{
	char		row[sizeof(uint64) + FIXED_MAX_ARGUMENTS * (1 + sizeof(Datum))];
	uint32		len = fixed_row_len(state);
	size_t		got = BufFileRead(file, row, len);
	char	   *p = row;
	int			i;

	if (got == 0)
		return false;
	if (got != len)
		file_read(file, row + got, len - got);
	if (!fixed_without_hash(state))
	{
		memcpy(hash, row, sizeof(uint64));
		p += sizeof(uint64);
	}
	for (i = 1; i < state->nargs; i++)
	{
		Form_pg_attribute attr;
		Datum		bytes = 0;

		state->read_nulls[i - 1] = true;
		state->read_values[i - 1] = (Datum) 0;
		if (state->arg_constant[i])
			continue;
		attr = argument_attr(state, i);
		if (*p != 0 && *p != 1)
			bad_spilled_row();
		state->read_nulls[i - 1] = *p++ == 0;
		memcpy(&bytes, p, attr->attlen);
		p += attr->attlen;
		if (!state->read_nulls[i - 1])
			state->read_values[i - 1] = fetch_att(&bytes, true, attr->attlen);
	}
	if (fixed_without_hash(state))
	{
		/* only rows of users were spilled: the uid is not NULL */
		if (state->read_nulls[BOUND_ARG_UID - 1])
			bad_spilled_row();
		*hash = bound_uid_hash(state->layout, state->read_values[BOUND_ARG_UID - 1]);
	}
	return true;
}

bool
bound_users_read_spilled_row(bound_users_state *state, BufFile *file, uint64 *hash)
{
	uint32		len;
	uint32		pos = sizeof(uint64);
	size_t		got;
	int			i;

	if (state->spill_fixed_len > 0)
		return read_fixed_row(state, file, hash);
	got = BufFileRead(file, &len, sizeof(len));
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
