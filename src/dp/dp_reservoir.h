/*
 * dp_reservoir.h -- uniform random choice of at most k items per privacy
 * unit (contribution bounding).
 *
 * Two forms of the same guarantee, "each subset of size min(k, n) of a
 * unit's n items is kept with equal probability, independently of every
 * other unit and of the data":
 *
 *  - dp_reservoir_slot: Vitter's Algorithm R over a stream, one uniform
 *    draw per item after the first k.  Used by the anon_reservoir
 *    TABLESAMPLE method, which sees every row of a unit in one scan.
 *
 *  - dp_key_reservoir: keep the k items with the smallest independent
 *    uniform 64-bit keys.  Several independent consumers that see the same
 *    (key, item) stream in the same order make the same choice, which is
 *    how the rewriter keeps the same C_u partitions of a user across the
 *    columns of its per-user rows (one key per row, drawn once).
 */
#ifndef DP_RESERVOIR_H
#define DP_RESERVOIR_H

#include "dp_core.h"
#include "dp_rng.h"

/*
 * The slot (0 .. k-1) that the item following `seen` earlier items of the
 * same unit goes to, or -1 when it is not kept.  Requires k >= 1.
 */
extern int64_t dp_reservoir_slot(dp_rng *rng, uint64_t seen, uint64_t k);

typedef struct dp_key_reservoir
{
	int64_t		capacity;		/* k >= 1 */
	int64_t		count;			/* items held, <= capacity */
	int64_t		max_slot;		/* slot of the largest held key (count == capacity) */
	uint64_t   *keys;			/* capacity entries, owned by the caller */
} dp_key_reservoir;

/* Start an empty reservoir over caller-provided storage for k keys. */
extern void dp_key_reservoir_init(dp_key_reservoir *r, int64_t k, uint64_t *keys);

/*
 * Offer an item with this key: returns the slot it now occupies (replacing
 * the item with the largest key when full), or -1 when it is not kept.  Ties
 * keep the earlier item, so the choice depends only on the key sequence.
 */
extern int64_t dp_key_reservoir_offer(dp_key_reservoir *r, uint64_t key);

#endif							/* DP_RESERVOIR_H */
