/*
 * dp_sampler.c -- exact integer samplers (Canonne, Kamath, Steinke 2020).
 */
#include "dp_sampler.h"

uint64_t
dp_uniform_below(dp_rng *rng, uint64_t n)
{
	uint64_t	reject_below;
	uint64_t	x;

	if (n == 0)
		dp_fail("dp_uniform_below: empty range");
	/* 2^64 mod n: words below it would bias the result */
	reject_below = (0 - n) % n;
	do
		x = dp_rng_u64(rng);
	while (x < reject_below);
	return x % n;
}

dp_u128
dp_uniform_below_u128(dp_rng *rng, dp_u128 n)
{
	dp_u128		reject_below;
	dp_u128		x;

	if (n == 0)
		dp_fail("dp_uniform_below_u128: empty range");
	if (n <= UINT64_MAX)
		return dp_uniform_below(rng, (uint64_t) n);
	reject_below = (0 - n) % n;
	do
		x = ((dp_u128) dp_rng_u64(rng) << 64) | dp_rng_u64(rng);
	while (x < reject_below);
	return x % n;
}

bool
dp_bernoulli(dp_rng *rng, dp_u128 num, dp_u128 den)
{
	if (den == 0 || num > den)
		dp_fail("dp_bernoulli: probability outside [0, 1]");
	return dp_uniform_below_u128(rng, den) < num;
}

/* Bernoulli(exp(-num/den)) for num <= den (CKS Algorithm 1, gamma in [0,1]) */
static bool
bernoulli_exp_unit(dp_rng *rng, dp_u128 num, dp_u128 den)
{
	dp_u128		k = 1;

	for (;;)
	{
		dp_u128		kden = den * k;

		if (kden / k != den)
			dp_fail("dp_bernoulli_exp: intermediate overflow");
		/* A ~ Bernoulli(gamma / k) */
		if (!dp_bernoulli(rng, num, kden))
			break;
		k++;
	}
	/* exp(-gamma) = P(final k is odd) */
	return (k & 1) == 1;
}

bool
dp_bernoulli_exp(dp_rng *rng, dp_u128 num, dp_u128 den)
{
	dp_u128		whole;

	if (den == 0)
		dp_fail("dp_bernoulli_exp: zero denominator");
	/* exp(-gamma) = exp(-1)^floor(gamma) * exp(-(gamma - floor(gamma))) */
	for (whole = num / den; whole > 0; whole--)
	{
		if (!bernoulli_exp_unit(rng, 1, 1))
			return false;
	}
	return bernoulli_exp_unit(rng, num % den, den);
}

uint64_t
dp_geometric_exp(dp_rng *rng, uint64_t num, uint64_t den)
{
	uint64_t	v = 0;

	if (num == 0)
		dp_fail("dp_geometric_exp: gamma must be positive");
	while (dp_bernoulli_exp(rng, num, den))
		v++;
	return v;
}

int64_t
dp_discrete_laplace(dp_rng *rng, uint64_t t, uint64_t s)
{
	if (t == 0 || s == 0 || t > (UINT64_C(1) << 56) || s > (UINT64_C(1) << 62))
		dp_fail("dp_discrete_laplace: t outside [1, 2^56] or s outside [1, 2^62]");

	for (;;)
	{
		uint64_t	u = dp_uniform_below(rng, t);
		dp_u128		x;
		dp_u128		y;
		uint8_t		sign_byte;
		bool		negative;

		/* accept u with probability exp(-u/t) */
		if (!dp_bernoulli_exp(rng, u, t))
			continue;
		/* x = u + t v is geometric with parameter exp(-1/t) */
		x = (dp_u128) u + (dp_u128) t * dp_geometric_exp(rng, 1, 1);
		y = x / s;
		rng->fill(rng, &sign_byte, 1);
		negative = (sign_byte & 1) != 0;
		if (negative && y == 0)
			continue;			/* zero must not be counted twice */
		if (y > (dp_u128) INT64_MAX)
			continue;			/* probability below e^-128 for t <= 2^56 */
		return negative ? -(int64_t) y : (int64_t) y;
	}
}

int64_t
dp_discrete_gaussian(dp_rng *rng, uint64_t sigma)
{
	uint64_t	t;
	dp_u128		sigma2;
	dp_u128		den;
	uint64_t	cutoff;

	if (sigma == 0 || sigma > DP_GAUSSIAN_SIGMA_MAX)
		dp_fail("dp_discrete_gaussian: sigma outside [1, 2^24]");

	t = sigma + 1;				/* floor(sigma) + 1 for integer sigma */
	sigma2 = (dp_u128) sigma * sigma;
	den = 2 * sigma2 * t * t;
	cutoff = 64 * sigma + 64;

	for (;;)
	{
		int64_t		y = dp_discrete_laplace(rng, t, 1);
		uint64_t	ay = (uint64_t) (y < 0 ? -y : y);
		dp_u128		a;
		dp_u128		diff;

		if (ay > cutoff)
			continue;
		/* accept with probability exp(-(|y| - sigma^2/t)^2 / (2 sigma^2)) */
		a = (dp_u128) ay * t;
		diff = a > sigma2 ? a - sigma2 : sigma2 - a;
		if (dp_bernoulli_exp(rng, diff * diff, den))
			return y;
	}
}
