/*
 * dp_reservoir.c -- uniform random choice of at most k items per unit.
 */
#include "dp_reservoir.h"

#include "dp_sampler.h"

int64_t
dp_reservoir_slot(dp_rng *rng, uint64_t seen, uint64_t k)
{
	uint64_t	j;

	if (seen < k)
		return (int64_t) seen;
	/* item number seen+1 is kept with probability k/(seen+1), in a uniform slot */
	j = dp_uniform_below(rng, seen + 1);
	return j < k ? (int64_t) j : -1;
}

void
dp_key_reservoir_init(dp_key_reservoir *r, int64_t k, uint64_t *keys)
{
	r->capacity = k;
	r->count = 0;
	r->max_slot = 0;
	r->keys = keys;
}

static void
find_max_slot(dp_key_reservoir *r)
{
	int64_t		i;
	int64_t		best = 0;

	for (i = 1; i < r->count; i++)
		if (r->keys[i] > r->keys[best])
			best = i;
	r->max_slot = best;
}

int64_t
dp_key_reservoir_offer(dp_key_reservoir *r, uint64_t key)
{
	int64_t		slot;

	if (r->count < r->capacity)
	{
		slot = r->count++;
		r->keys[slot] = key;
		if (r->count == r->capacity)
			find_max_slot(r);
		return slot;
	}
	if (key >= r->keys[r->max_slot])
		return -1;
	slot = r->max_slot;
	r->keys[slot] = key;
	find_max_slot(r);
	return slot;
}
