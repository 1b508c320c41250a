/*
 * dp_interval.h -- confidence intervals of released values: noise only.
 *
 * A release is value + Z r, Z the integer noise of its plan (dp_noise.h) and
 * r = 2^g the grid step.  The half-width h of a two-sided interval of level
 * 1 - alpha is a whole number k of units with P(|Z| > k) <= alpha, so that
 * [released - k r, released + k r] holds the noise-free value with
 * probability at least 1 - alpha:
 *
 *   discrete Laplace of scale t:  P(|Z| > k) = 2 e^(-(k+1)/t) / (1 + e^(-1/t))
 *                                            <= e^(-(k + 1/2)/t)
 *     (1 + e^(-x) >= 2 e^(-x/2)), so k = ceil(t ln(1/alpha)) suffices: the
 *     continuous Laplace's half-width b ln(1/alpha), b = t r the scale the
 *     plan applies, rounded up to the grid.  Truncation to |Z| <= T only
 *     lowers the tail (k is capped at T).
 *   discrete Gaussian of sigma s: P(Z >= k + 1) <= P(X >= k) for X ~
 *     N(0, s^2) (dp_noise.h), so P(|Z| > k) <= 2 P(X >= k) and
 *     k = ceil(z s), z the normal quantile of 1 - alpha/2 (1.95996 at 95 %),
 *     rounded up once more.
 *   exact plan (t = 0): k = 0.
 *
 * What the interval does not cover: the clamping of contributions to the
 * bounds, the contributions dropped by contribution bounding (C_u, the row
 * cap) and the rounding of each contribution to the grid (at most r/2
 * each, about 2^-41 of the noise scale).
 *
 * Pure C, no PostgreSQL headers.
 */
#ifndef DP_INTERVAL_H
#define DP_INTERVAL_H

#include "dp_core.h"
#include "dp_noise.h"
#include "dp_aggregate.h"
#include "dp_selection.h"

/* The level of the intervals anon_dp reports. */
#define DP_INTERVAL_ALPHA 0.05

/* k: the half-width in grid units (at most 2^62; 0 for an exact plan). */
extern uint64_t dp_interval_units(const dp_noise_plan *plan, double alpha);

/* k r: the half-width in value units, rounded up. */
extern double dp_interval_half_width(const dp_noise_plan *plan, double alpha);

/*
 * The mean of dp_mean: midpoint + S'/max(C', 1), clamped to [lower, upper],
 * from a noisy centred sum S' and a noisy count C'.  With half-widths hs
 * and hc of level 1 - alpha/2 each (union bound), the true S lies in
 * [S' - hs, S' + hs] and the true count C in [max(C' - hc, 1), C' + hc]
 * with probability at least 1 - alpha; the true mean minus the midpoint,
 * S/C, then lies between the extremes of s/c over that box, and always in
 * [-w, w] (w the centred half width of the bounds).  If C' + hc < 1 the
 * box is empty and the interval is [lower, upper].  Returns the interval
 * of the mean in *low and *high (inside [lower, upper]).
 */
extern void dp_interval_ratio(double noisy_sum, double sum_half_width,
							  double noisy_count, double count_half_width,
							  double lower, double upper, double midpoint,
							  double *low, double *high);

/*
 * Release a mean (as dp_mean_release) with its interval of level 1 - alpha:
 * the noise is drawn once, the mean and the interval come from the same
 * noisy count and sum.
 */
extern double dp_mean_release_interval(dp_rng *rng, const dp_mean *m, double alpha,
									   double *low, double *high);

/*
 * The number of privacy units at which a partition is kept with probability
 * at least p (p in (1/2, 1)): for a selection on a noisy count, tau plus
 * the one-sided p quantile of its noise (dp_interval_units at level
 * 2 (1 - p), conservative), rounded up; for OPTIMAL without a count, the
 * smallest n with pi(n) >= p.  Infinity when no n up to 2^62 is kept so.
 */
extern double dp_selection_users_for(const dp_selection *sel, double p);

#endif							/* DP_INTERVAL_H */
