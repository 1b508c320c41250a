/*
 * bound_state.h -- the state of one user in one-pass bounding
 * (bound_state.c): the (user, partition) pairs it keeps, at most C_u, in
 * ascending order of their keys, each with its cells.
 */
#ifndef ANON_DP_BOUND_STATE_H
#define ANON_DP_BOUND_STATE_H

#include "bound/bound_layout.h"
#include "bound/bound_partials.h"

/* loops over the pairs of a state check for cancel every this many pairs */
#define BOUND_INTERRUPT_EVERY 1024

/*
 * The state of one user.  Hash aggregation holds one per user and finds it
 * through its hash table entry at every row of the user, so it is one
 * allocation made right after the entry (in the same memory context, so
 * usually next to it: one cache miss fewer per row than a state elsewhere),
 * holding the header, the keys and cell pointers of the first
 * BOUND_INLINE_PAIRS pairs and their cells: 112 bytes for C_u = 1 and three
 * columns, with the count and the smallest key in its first cache line (the
 * bounding node's entry adds the uid: 120 bytes, two cache lines).  More
 * pairs get separate arrays, whose addresses then take the place of the
 * inline keys and cell pointers (bound_state_keys, bound_state_cells).
 * While a state is not full no pair has been evicted, so the inline cell
 * blocks in use are the first min(count, inline pairs).
 */
#define BOUND_INLINE_PAIRS 4

typedef struct bound_state
{
	bound_layout *layout;
	uint64		uid_hash;
	int32		count;			/* pairs held */
	int32		allocated;		/* room for keys and cell pointers */
} bound_state;

static inline int
bound_state_inline_pairs(const bound_layout *layout)
{
	return (int) Min(layout->keep, BOUND_INLINE_PAIRS);
}

/* where the inline keys start, followed by the inline cell pointers */
static inline char *
bound_state_inline(const bound_state *state)
{
	return (char *) state + MAXALIGN(sizeof(bound_state));
}

/* the keys of the held pairs, ascending */
static inline uint64 *
bound_state_keys(const bound_state *state)
{
	char	   *p = bound_state_inline(state);

	if (state->allocated == bound_state_inline_pairs(state->layout))
		return (uint64 *) p;
	return *(uint64 **) p;
}

/* cells[i]: the ncolumns cells of pair i */
static inline bound_cell **
bound_state_cells(const bound_state *state)
{
	char	   *p = bound_state_inline(state);

	if (state->allocated == bound_state_inline_pairs(state->layout))
		return (bound_cell **) (p + state->allocated * sizeof(uint64));
	return *(bound_cell ***) (p + sizeof(uint64 *));
}

/* a state lives in bound_state_size() bytes; parts beyond them are palloc'd */
extern Size bound_state_size(bound_layout *layout);
extern bound_state *bound_state_init(bound_layout *layout, void *memory, uint64 uid_hash);
extern bound_state *bound_state_create(bound_layout *layout, MemoryContext context, uint64 uid_hash);
/* the empty cells of a new pair at position pos, or NULL (see bound_state.c) */
extern bound_cell *bound_state_insert(bound_state *state, int64 pos, uint64 key,
									  MemoryContext context);
extern void bound_state_add_row(bound_state *state, const NullableDatum *args, MemoryContext context);
extern void bound_state_merge(bound_state *into, bound_state *from, MemoryContext context);

#endif							/* ANON_DP_BOUND_STATE_H */
