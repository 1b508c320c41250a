/*
 * dp_sampler.h -- exact integer samplers.
 *
 * Every sampler uses only integer arithmetic on uniformly random bits, so its
 * output distribution is exactly the stated one (no floating-point rounding
 * of probabilities).  The Bernoulli(exp(-gamma)), discrete Laplace and
 * discrete Gaussian samplers follow Canonne, Kamath and Steinke, "The
 * Discrete Gaussian for Differential Privacy" (NeurIPS 2020), Algorithms 1-3.
 */
#ifndef DP_SAMPLER_H
#define DP_SAMPLER_H

#include "dp_core.h"
#include "dp_rng.h"

/* Uniform on {0, ..., n-1}; n >= 1.  Rejection sampling, no modulo bias. */
extern uint64_t dp_uniform_below(dp_rng *rng, uint64_t n);
extern dp_u128 dp_uniform_below_u128(dp_rng *rng, dp_u128 n);

/* Bernoulli(num / den); requires den >= 1 and num <= den. */
extern bool dp_bernoulli(dp_rng *rng, dp_u128 num, dp_u128 den);

/* Bernoulli(exp(-num / den)); requires den >= 1. */
extern bool dp_bernoulli_exp(dp_rng *rng, dp_u128 num, dp_u128 den);

/*
 * Geometric: the number of successes of independent Bernoulli(exp(-num/den))
 * trials before the first failure, P(V = v) = (1 - e^-g) e^(-g v), g = num/den.
 */
extern uint64_t dp_geometric_exp(dp_rng *rng, uint64_t num, uint64_t den);

/*
 * Discrete Laplace with scale t/s: P(Z = z) proportional to exp(-|z| s / t).
 * Requires 1 <= t <= 2^56 and 1 <= s <= 2^62.  Values beyond int64 are
 * redrawn; with t <= 2^56 that happens with probability below e^-128.
 */
extern int64_t dp_discrete_laplace(dp_rng *rng, uint64_t t, uint64_t s);

/*
 * Discrete Gaussian with integer sigma: P(Z = z) proportional to
 * exp(-z^2 / (2 sigma^2)).  Requires 1 <= sigma <= DP_GAUSSIAN_SIGMA_MAX.
 * Candidates with |z| > 64 sigma + 64 (posterior weight below exp(-1900)) are
 * rejected without drawing, which keeps every quantity within 128 bits.
 */
#define DP_GAUSSIAN_SIGMA_MAX (UINT64_C(1) << 24)
extern int64_t dp_discrete_gaussian(dp_rng *rng, uint64_t sigma);

#endif							/* DP_SAMPLER_H */
