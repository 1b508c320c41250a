/*
 * bound_state.c -- the state of one user in one-pass bounding
 * (partition_bound.c): its pairs ordered by key, a row's pair found or
 * admitted (evicting the largest key of a full state) and its partials
 * updated, and two states of one user merged (combine).
 */
#include "postgres.h"

#include "miscadmin.h"
#include "utils/datum.h"
#include "utils/memutils.h"

#include "bound/bound_spec.h"
#include "bound/bound_state.h"

static int
inline_pairs(bound_layout *layout)
{
	return bound_state_inline_pairs(layout);
}

/* the pairs leave the inline arrays for separate ones of size entries */
static void
state_use_arrays(bound_state *state, uint64 *keys, bound_cell **cells, int32 size)
{
	char	   *p = bound_state_inline(state);

	state->allocated = size;
	*(uint64 **) p = keys;
	*(bound_cell ***) (p + sizeof(uint64 *)) = cells;
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

	memset(memory, 0, bound_state_size(layout));
	state->layout = layout;
	state->uid_hash = uid_hash;
	state->allocated = inline_pairs(layout);
	return state;
}

/* a new empty state in context */
bound_state *
bound_state_create(bound_layout *layout, MemoryContext context, uint64 uid_hash)
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
		char	   *pool = bound_state_inline(state) +
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
			(col->kind == BOUND_SPEC_SUM_NUMERIC ||
			 (col->kind == BOUND_SPEC_SAMPLE && bound_sample_byref(col)) ||
			 (col->kind == BOUND_SPEC_SUM_BIGINT && cells[i].wide));

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
bound_cell *
bound_state_insert(bound_state *state, int64 pos, uint64 key, MemoryContext context)
{
	bound_layout *layout = state->layout;
	bound_cell *cells;
	uint64	   *keys_of;
	bound_cell **cells_of;

	if (state->count == layout->keep)
	{
		if (pos >= state->count)
			return NULL;
		cells = bound_state_cells(state)[--state->count];
		cells_release(layout, cells);
	}
	else
	{
		if (state->count == state->allocated)
		{
			int32		size = (int32) Min((int64) state->allocated * 2, layout->keep);

			uint64	   *keys = MemoryContextAlloc(context, sizeof(uint64) * size);
			bound_cell **cells_new = MemoryContextAlloc(context, sizeof(bound_cell *) * size);
			bool		was_inline = state->allocated == inline_pairs(layout);

			memcpy(keys, bound_state_keys(state), sizeof(uint64) * state->count);
			memcpy(cells_new, bound_state_cells(state), sizeof(bound_cell *) * state->count);
			if (!was_inline)
			{
				pfree(bound_state_keys(state));
				pfree(bound_state_cells(state));
			}
			/* from the inline arrays (their cells stay in use) or smaller ones */
			state_use_arrays(state, keys, cells_new, size);
		}
		cells = state_new_cells(state, context);
	}
	keys_of = bound_state_keys(state);
	cells_of = bound_state_cells(state);
	memmove(&keys_of[pos + 1], &keys_of[pos], sizeof(uint64) * (state->count - pos));
	memmove(&cells_of[pos + 1], &cells_of[pos], sizeof(bound_cell *) * (state->count - pos));
	keys_of[pos] = key;
	cells_of[pos] = cells;
	state->count++;
	return cells;
}

/* first position whose key is >= key */
static int64
state_lower_bound(bound_state *state, uint64 key)
{
	const uint64 *keys = bound_state_keys(state);
	int64		lo = 0;
	int64		hi = state->count;

	while (lo < hi)
	{
		int64		mid = lo + (hi - lo) / 2;

		if (keys[mid] < key)
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

/* ---- a row folded into its user's state ---- */

#define NULL_VALUE_HASH UINT64CONST(0x9e3779b97f4a7c15)

/*
 * Read the row's value of each column into values and nulls (a count(*)
 * column reads as NULL).
 */
static inline void
read_row_values(const NullableDatum *args, bound_layout *layout, Datum *values, bool *nulls)
{
	int			i;

	for (i = 0; i < layout->ncolumns; i++)
	{
		int			argno = layout->columns[i].argno;

		if (argno < 0 || args[argno].isnull)
		{
			nulls[i] = true;
			values[i] = (Datum) 0;
		}
		else
		{
			nulls[i] = false;
			values[i] = args[argno].value;
		}
	}
}

/*
 * The key of the row's (user, partition) pair: SipHash, keyed by the
 * execution's secret, of the user's uid hash and its GROUP BY values'
 * hashes.
 */
static uint64
row_pair_key(bound_layout *layout, bound_state *state, const Datum *values, const bool *nulls)
{
	uint64		words[1 + BOUND_MAX_COLUMNS];
	int			nwords = 0;
	int			i;

	words[nwords++] = state->uid_hash;
	for (i = 0; i < layout->ncolumns; i++)
	{
		bound_column *col = &layout->columns[i];

		if (col->kind == BOUND_SPEC_GROUP)
			words[nwords++] = nulls[i] ? NULL_VALUE_HASH :
				bound_hash_value(&col->hash, col->hash_inline, col->collation, values[i],
								 layout->seed);
	}
	return dp_siphash24(layout->secret, (const uint8 *) words, sizeof(uint64) * nwords);
}

/* two datums of a bitwise_equal type of length typlen are equal */
static inline bool
datums_bitwise_equal(int16 typlen, Datum a, Datum b)
{
	switch (typlen)
	{
		case 1:
			return (uint8) a == (uint8) b;
		case 2:
			return (uint16) a == (uint16) b;
		case 4:
			return (uint32) a == (uint32) b;
		default:
			return a == b;
	}
}

/*
 * The cells of the held pair whose GROUP BY values are the row's, when the
 * layout's GROUP BY values compare as datums; NULL when no pair holds them.
 * A held pair with the row's GROUP BY values has the row's key (the key is a
 * function of them and the user), and no two held pairs have the same
 * values, so this is the pair find_or_admit_pair would find, without the
 * key: most rows of a user fall in the partitions it keeps.
 */
static bound_cell *
held_pair_of_values(bound_layout *layout, bound_state *state, const Datum *values,
					const bool *nulls)
{
	bound_cell **held = bound_state_cells(state);
	int			p;

	for (p = 0; p < state->count; p++)
	{
		bound_cell *cells = held[p];
		int			i;

		for (i = 0; i < layout->ncolumns; i++)
		{
			bound_column *col = &layout->columns[i];

			if (col->kind != BOUND_SPEC_GROUP)
				continue;
			if (cells[i].present == nulls[i])
				break;
			if (cells[i].present && !datums_bitwise_equal(col->typlen, cells[i].v.datum, values[i]))
				break;
		}
		if (i == layout->ncolumns)
			return cells;
	}
	return NULL;
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
	const uint64 *keys = bound_state_keys(state);
	bound_cell **held = bound_state_cells(state);
	bound_cell *cells;
	int64		pos;

	/* a full state drops a row whose key is above its largest at once */
	if (state->count == layout->keep && key > keys[state->count - 1])
		return NULL;

	pos = state_lower_bound(state, key);
	for (; pos < state->count && keys[pos] == key; pos++)
	{
		if (groups_equal(layout, held[pos], values, nulls))
			return held[pos];
	}
	cells = bound_state_insert(state, pos, key, context);
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
		bound_partial_add(col, &cells[i], values[i], context);
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
	bound_cell *cells = NULL;

	read_row_values(args, layout, values, nulls);
	/* a few held pairs are compared faster than the key is computed */
	if (layout->groups_bitwise && state->count <= BOUND_INLINE_PAIRS)
		cells = held_pair_of_values(layout, state, values, nulls);
	if (cells == NULL)
		cells = find_or_admit_pair(layout, state, row_pair_key(layout, state, values, nulls),
								   values, nulls, context);
	if (cells != NULL)
		accumulate_row(layout, cells, values, nulls, context);
}

/* ---- combine: two states of one user merged ---- */

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
		bound_partial_merge(col, &ours[i], &theirs[i], context);
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

		/* the inline cells stay in use; the old arrays' content is replaced */
		if (state->allocated != inline_pairs(state->layout))
		{
			pfree(bound_state_keys(state));
			pfree(bound_state_cells(state));
		}
		state_use_arrays(state, MemoryContextAlloc(context, sizeof(uint64) * size),
						 MemoryContextAlloc(context, sizeof(bound_cell *) * size), size);
	}
	memcpy(bound_state_keys(state), keys, sizeof(uint64) * n);
	memcpy(bound_state_cells(state), cells, sizeof(bound_cell *) * n);
	state->count = (int32) n;
}

/* release a pair of state that is no longer held (its cells too, unless inline) */
static void
pair_drop(bound_state *state, bound_cell *cells)
{
	char	   *pool = bound_state_inline(state);
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
void
bound_state_merge(bound_state *into, bound_state *from, MemoryContext context)
{
	bound_layout *layout = into->layout;
	int64		limit = Min(layout->keep, (int64) into->count + from->count);
	uint64	   *keys = palloc(sizeof(uint64) * Max(limit, 1));
	bound_cell **cells = palloc(sizeof(bound_cell *) * Max(limit, 1));
	int64		n = 0;
	int64		i = 0;
	int64		j = 0;
	int64		steps = 0;
	const uint64 *into_keys = bound_state_keys(into);
	bound_cell **into_cells = bound_state_cells(into);
	const uint64 *from_keys = bound_state_keys(from);
	bound_cell **from_cells = bound_state_cells(from);

	while (i < into->count || j < from->count)
	{
		uint64		key;
		int64		i_end = i;

		if (++steps % BOUND_INTERRUPT_EVERY == 0)
			CHECK_FOR_INTERRUPTS();
		key = j >= from->count || (i < into->count && into_keys[i] <= from_keys[j]) ?
			into_keys[i] : from_keys[j];
		/* into's pairs with this key, then from's, merged into them when held */
		while (i_end < into->count && into_keys[i_end] == key)
			i_end++;
		for (; i < i_end; i++)
		{
			if (n < layout->keep)
			{
				keys[n] = key;
				cells[n++] = into_cells[i];
			}
			else
				pair_drop(into, into_cells[i]);
		}
		for (; j < from->count && from_keys[j] == key; j++)
		{
			bound_cell *ours = merged_pair(layout, keys, cells, n, key, from_cells[j]);
			int			c;

			if (ours != NULL)
			{
				for (c = 0; c < layout->ncolumns; c++)
					bound_partial_merge(&layout->columns[c], &ours[c], &from_cells[j][c], context);
			}
			else if (n < layout->keep)
			{
				keys[n] = key;
				cells[n++] = copy_pair(layout, from_cells[j], context);
			}
		}
	}
	state_set_pairs(into, keys, cells, n, context);
	pfree(keys);
	pfree(cells);
}
