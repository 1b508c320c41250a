/*
 * dp_params.h -- query-level privacy arithmetic: validation of (epsilon,
 * delta, C_u), the per-aggregate epsilon share, and tau-thresholding
 * (partition selection) of the paper's Theorem 2.
 */
#ifndef DP_PARAMS_H
#define DP_PARAMS_H

#include "dp_core.h"
#include "dp_noise.h"
#include "dp_rng.h"

extern dp_status dp_check_epsilon(double epsilon);
extern dp_status dp_check_delta(double delta);
extern dp_status dp_check_max_groups(int64_t max_groups);

/*
 * epsilon / (C_u (N + 1)): the share of each of the N ANON aggregates of one
 * query and of the added noisy user count (paper Sec. 3.6).
 */
extern dp_status dp_epsilon_share(double epsilon, int64_t max_groups,
								  int32_t n_aggregates, double *share);

/*
 * q = 1 - (1 - delta)^(1 / C_u), computed as -expm1(log1p(-delta) / C_u) so
 * that it keeps full relative precision for delta as small as 1e-300.
 * A partition holding one privacy unit must be released with probability at
 * most q, so that C_u such partitions are all suppressed w.p. >= 1 - delta.
 */
extern double dp_single_unit_release_bound(double delta, int64_t max_groups);

/*
 * The paper's tau for a continuous Laplace count of scale b:
 *   tau = 1 - b ln(2 - 2 (1 - delta)^(1/C_u)) = 1 - b ln(2 q).
 */
extern double dp_tau_continuous(double scale, double delta, int64_t max_groups);

/*
 * Partition selection as anon_dp performs it: the noisy number of privacy
 * units of a partition (sensitivity 1, epsilon count_epsilon, discrete Laplace
 * on the grid of its plan) is compared with tau; the partition is released iff
 * noisy_count >= tau.  tau is computed for the discrete noise actually drawn:
 * with Z ~ DLap(t) in units of r, P(Z >= z) = a^z / (1 + a), a = e^(-1/t), so
 *   tau = 1 + r * max(0, ceil(-t ln(q (1 + a))) + 1)
 * (the final + 1 absorbs floating-point error in the logarithms).  The
 * comparison is made exactly, in grid units.
 */
typedef struct dp_threshold
{
	dp_noise_plan count_plan;	/* noise of the user count */
	double		delta;
	int64_t		max_groups;
	dp_i128		tau_units;		/* release iff noisy count in units >= tau_units */
	double		tau;			/* tau_units * r, for display */
} dp_threshold;

extern dp_status dp_threshold_make(double count_epsilon, double delta,
								   int64_t max_groups, dp_threshold *threshold);

/* Draw the noisy count and decide; *noisy_count may be NULL. */
extern bool dp_threshold_release(dp_rng *rng, const dp_threshold *threshold,
								 uint64_t n_units, double *noisy_count);

#endif							/* DP_PARAMS_H */
