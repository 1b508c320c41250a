/*
 * test_prf.c -- SipHash-2-4 (dp_prf.h) and the choice it makes for the
 * one-pass contribution bounding.
 *
 * 1. Known answers from the SipHash paper and its reference test vectors:
 *    key 00 01 .. 0f, the empty message and the message 00 01 .. 0e.
 * 2. The bounding keeps, for each user, the k pairs (user, partition) with
 *    the smallest PRF values under a fresh random key.  Over random keys
 *    every k-subset of a user's n partitions must be kept with probability
 *    1 / C(n, k): chi-square goodness of fit over 350,000 keys.  Positive
 *    control: a key with only 3 random bits (8 possible keys) must be
 *    rejected.
 */
#include <string.h>

#include "test_harness.h"
#include "dp/dp_prf.h"

#define N_ITEMS 7
#define K_KEEP 3
#define N_SUBSETS 35			/* C(7, 3) */
#define TRIALS 350000

void
test_siphash_vectors(void)
{
	uint8_t		key[16];
	uint8_t		msg[64];
	int			i;

	for (i = 0; i < 16; i++)
		key[i] = (uint8_t) i;
	for (i = 0; i < 64; i++)
		msg[i] = (uint8_t) i;
	/* reference vector 0 (empty message) and the paper's Appendix A example */
	CHECK(dp_siphash24(key, msg, 0) == UINT64_C(0x726fdb47dd0e0e31),
		  "SipHash-2-4 of the empty message: got %016llx",
		  (unsigned long long) dp_siphash24(key, msg, 0));
	CHECK(dp_siphash24(key, msg, 15) == UINT64_C(0xa129ca6149be45e5),
		  "SipHash-2-4 of 00..0e: got %016llx",
		  (unsigned long long) dp_siphash24(key, msg, 15));
	/* a different key or one more byte changes the value */
	key[15] ^= 1;
	CHECK(dp_siphash24(key, msg, 15) != UINT64_C(0xa129ca6149be45e5),
		  "the key does not reach the output");
	key[15] ^= 1;
	CHECK(dp_siphash24(key, msg, 16) != dp_siphash24(key, msg, 15),
		  "the length does not reach the output");
}

static int
subset_of(const uint8_t key[16])
{
	uint64_t	value[N_ITEMS];
	int			mask = 0;
	int			i;
	int			j;

	for (i = 0; i < N_ITEMS; i++)
	{
		/* the message layout of the bounding: user hash, then partition hash */
		uint8_t		msg[16];
		uint64_t	user = UINT64_C(0x1234567890abcdef);
		uint64_t	part = (uint64_t) i * UINT64_C(0x9e3779b97f4a7c15);

		memcpy(msg, &user, 8);
		memcpy(msg + 8, &part, 8);
		value[i] = dp_siphash24(key, msg, sizeof(msg));
	}
	for (i = 0; i < N_ITEMS; i++)
	{
		int			smaller = 0;

		for (j = 0; j < N_ITEMS; j++)
			if (value[j] < value[i] || (value[j] == value[i] && j < i))
				smaller++;
		if (smaller < K_KEEP)
			mask |= 1 << i;
	}
	return mask;
}

static double
prf_subset_p_value(uint64_t stream, int random_key_bits)
{
	static int	index[1 << N_ITEMS];
	test_rng	r;
	double		observed[N_SUBSETS] = {0};
	double		prob[N_SUBSETS];
	double		stat;
	int			next = 0;
	int			mask;
	int			t;
	int			i;

	for (mask = 0; mask < (1 << N_ITEMS); mask++)
		index[mask] = __builtin_popcount(mask) == K_KEEP ? next++ : -1;
	test_rng_stream(&r, stream);
	for (t = 0; t < TRIALS; t++)
	{
		uint8_t		key[16] = {0};
		uint64_t	a = test_rng_next(&r);
		uint64_t	b = test_rng_next(&r);

		if (random_key_bits < 64)
		{
			a &= (UINT64_C(1) << random_key_bits) - 1;
			b = 0;
		}
		memcpy(key, &a, 8);
		memcpy(key + 8, &b, 8);
		mask = subset_of(key);
		if (index[mask] < 0)
			return -1.0;
		observed[index[mask]] += 1;
	}
	for (i = 0; i < N_SUBSETS; i++)
		prob[i] = 1.0 / N_SUBSETS;
	return chi2_test(observed, prob, N_SUBSETS, TRIALS, &stat);
}

void
test_prf_uniform_subsets(void)
{
	double		p = prf_subset_p_value(1, 64);
	double		p_control = prf_subset_p_value(2, 3);

	t_note("PRF smallest-%d of %d: p = %.3g; 3-bit key control: p = %.3g",
		   K_KEEP, N_ITEMS, p, p_control);
	CHECK(p >= 0, "the smallest PRF values did not give %d distinct items", K_KEEP);
	CHECK(p > TEST_P_CRIT, "kept subsets are not uniform over random keys: p = %.3g", p);
	CHECK(p_control >= 0 && p_control < TEST_P_CRIT,
		  "positive control (3 random key bits) not detected: p = %.3g", p_control);
}
