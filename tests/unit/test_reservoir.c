/*
 * test_reservoir.c -- uniform choice of at most k items per unit
 * (dp_reservoir.h): Algorithm R and the smallest-keys reservoir.
 *
 * Every subset of size k of n items must be kept with probability
 * 1 / C(n, k).  The tests count how often each subset is kept over many
 * trials and run a chi-square goodness-of-fit test against the uniform
 * distribution; a positive control with a classic off-by-one (keeping item
 * i with probability k / i instead of k / (i + 1)) must be rejected.
 */
#include <math.h>
#include <string.h>

#include "test_harness.h"
#include "dp/dp_reservoir.h"
#include "dp/dp_sampler.h"

#define N_ITEMS 7
#define K_KEEP 3
#define N_SUBSETS 35			/* C(7, 3) */
#define TRIALS 350000

/* index of a k-subset given as a bit mask, in a table built on first use */
static int subset_index[1 << N_ITEMS];

static void
build_subset_index(void)
{
	int			mask;
	int			next = 0;

	for (mask = 0; mask < (1 << N_ITEMS); mask++)
		subset_index[mask] = __builtin_popcount(mask) == K_KEEP ? next++ : -1;
}

/* Algorithm R with the off-by-one of the positive control when broken */
static int64_t
slot_for(dp_rng *rng, uint64_t seen, bool broken)
{
	uint64_t	j;

	if (!broken)
		return dp_reservoir_slot(rng, seen, K_KEEP);
	if (seen < K_KEEP)
		return (int64_t) seen;
	j = dp_uniform_below(rng, seen);	/* wrong: seen instead of seen + 1 */
	return j < K_KEEP ? (int64_t) j : -1;
}

static double
algorithm_r_p_value(uint64_t stream, bool broken)
{
	test_rng	r;
	double		observed[N_SUBSETS] = {0};
	double		prob[N_SUBSETS];
	double		stat;
	int			t;
	int			i;

	build_subset_index();
	test_rng_stream(&r, stream);
	for (t = 0; t < TRIALS; t++)
	{
		int			slots[K_KEEP];
		int			mask = 0;

		for (i = 0; i < N_ITEMS; i++)
		{
			int64_t		s = slot_for(RNG(&r), (uint64_t) i, broken);

			if (s >= 0)
				slots[s] = i;
		}
		for (i = 0; i < K_KEEP; i++)
			mask |= 1 << slots[i];
		if (subset_index[mask] < 0)
			return -1.0;		/* not a k-subset: a structural failure */
		observed[subset_index[mask]] += 1;
	}
	for (i = 0; i < N_SUBSETS; i++)
		prob[i] = 1.0 / N_SUBSETS;
	return chi2_test(observed, prob, N_SUBSETS, TRIALS, &stat);
}

void
test_reservoir_uniform_subsets(void)
{
	double		p = algorithm_r_p_value(1, false);
	double		p_broken = algorithm_r_p_value(2, true);

	t_note("algorithm R: p = %.3g; off-by-one control: p = %.3g", p, p_broken);
	CHECK(p >= 0, "algorithm R kept something other than %d distinct items", K_KEEP);
	CHECK(p > TEST_P_CRIT, "kept subsets are not uniform: p = %.3g", p);
	CHECK(p_broken >= 0 && p_broken < TEST_P_CRIT,
		  "positive control (k/i instead of k/(i+1)) not detected: p = %.3g", p_broken);
}

void
test_reservoir_fewer_than_k(void)
{
	test_rng	r;
	uint64_t	i;

	test_rng_stream(&r, 1);
	for (i = 0; i < 5; i++)
		CHECK(dp_reservoir_slot(RNG(&r), i, 5) == (int64_t) i,
			  "item %d of a unit with at most k items must be kept in slot %d", (int) i, (int) i);
}

/* the smallest-keys reservoir keeps exactly the k smallest keys */
void
test_key_reservoir_smallest(void)
{
	test_rng	r;
	uint64_t	keys[K_KEEP];
	uint64_t	all[1000];
	uint64_t	held[K_KEEP];
	dp_key_reservoir res;
	int			i;
	int			j;

	test_rng_stream(&r, 1);
	dp_key_reservoir_init(&res, K_KEEP, keys);
	for (i = 0; i < 1000; i++)
	{
		int64_t		slot;

		all[i] = test_rng_next(&r) >> (i % 3 == 0 ? 50 : 0);	/* some small keys */
		slot = dp_key_reservoir_offer(&res, all[i]);
		if (slot >= 0)
			held[slot] = all[i];
	}
	REQUIRE(res.count == K_KEEP, "holds %d keys, expected %d", (int) res.count, K_KEEP);
	for (i = 0; i < K_KEEP; i++)
	{
		int			smaller = 0;

		CHECK(held[i] == keys[i], "slot %d holds a key the caller did not place there", i);
		for (j = 0; j < 1000; j++)
			if (all[j] < held[i])
				smaller++;
		CHECK(smaller < K_KEEP, "kept key %d has %d smaller keys", i, smaller);
	}
}
