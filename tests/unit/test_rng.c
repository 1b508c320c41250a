/*
 * test_rng.c -- seeded deterministic dp_rng for the C tests (xoshiro256**,
 * seeded through splitmix64).  It exists only in tests/: the extension uses
 * dp_rng_secure() exclusively.
 */
#include <math.h>
#include <string.h>

#include "test_harness.h"

static uint64_t
splitmix64(uint64_t *x)
{
	uint64_t	z = (*x += UINT64_C(0x9E3779B97F4A7C15));

	z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
	return z ^ (z >> 31);
}

static inline uint64_t
rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

uint64_t
test_rng_next(test_rng *r)
{
	uint64_t   *s = r->s;
	uint64_t	result = rotl(s[1] * 5, 7) * 9;
	uint64_t	t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

static void
test_fill(dp_rng *base, uint8_t *buf, size_t len)
{
	test_rng   *r = (test_rng *) base;

	while (len > 0)
	{
		uint64_t	w = test_rng_next(r);
		size_t		n = len < 8 ? len : 8;
		size_t		i;

		for (i = 0; i < n; i++)
		{
			buf[i] = (uint8_t) w;
			w >>= 8;
		}
		buf += n;
		len -= n;
	}
}

void
test_rng_seed(test_rng *r, uint64_t seed)
{
	int			i;

	r->base.fill = test_fill;
	for (i = 0; i < 4; i++)
		r->s[i] = splitmix64(&seed);
}

void
test_rng_stream(test_rng *r, uint64_t stream)
{
	uint64_t	h = UINT64_C(0xCBF29CE484222325);	/* FNV-1a of the test name */
	const char *p;

	for (p = test_current_name ? test_current_name : ""; *p; p++)
		h = (h ^ (uint8_t) *p) * UINT64_C(0x100000001B3);
	test_rng_seed(r, test_suite_seed ^ h ^ (stream * UINT64_C(0xD1B54A32D192ED03)));
}

double
test_rng_unit(test_rng *r)
{
	return (double) (test_rng_next(r) >> 11) * 0x1.0p-53;
}

double
test_rng_normal(test_rng *r)
{
	/* Box-Muller; only used to generate test data, never noise */
	double		u1 = 1.0 - test_rng_unit(r);	/* (0, 1] */
	double		u2 = test_rng_unit(r);

	return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}
