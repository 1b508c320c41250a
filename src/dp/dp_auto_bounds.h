/*
 * dp_auto_bounds.h -- automatic contribution bounds (paper Sec. 5.1.1 and
 * App. D): a differentially private logarithmic histogram of the per-user
 * values chooses the clamping bounds of a sum or mean.
 *
 * Bins (B = DP_AUTO_BIN_COUNT), in increasing order of value:
 *
 *   negative bins k = DP_AUTO_K_MAX .. DP_AUTO_K_MIN + 1: x in (-2^k, -2^(k-1)]
 *   the zero bin:                                           |x| < 2^DP_AUTO_K_MIN
 *   positive bins k = DP_AUTO_K_MIN + 1 .. DP_AUTO_K_MAX:  x in [2^(k-1), 2^k)
 *
 * Values of magnitude 2^DP_AUTO_K_MAX or more (and the infinities) fall into
 * the outermost bins: the bounds chosen never exceed 2^DP_AUTO_K_MAX in
 * magnitude.  NaN falls into no bin (the clamping rule ignores it).
 *
 * One privacy unit contributes one value per partition, so adding or removing
 * it changes one bin count by 1: each count gets Laplace noise of sensitivity
 * 1 (times the contributions k) with epsilon_histogram.  The bounds are the
 * outer edges of the lowest and highest bins whose noisy count exceeds
 *
 *   t = b * ln(1 / (2 * (1 - P^(1 / (B - 1)))))
 *
 * b the Laplace scale actually applied and P = 1 - DP_AUTO_FALSE_POSITIVE:
 * an empty bin exceeds t with probability (1/2) e^(-t/b), so the B - 1 bins
 * other than the true extreme all stay below t with probability at least P
 * (App. D, with the one-sided Laplace tail).  When no bin exceeds t, no
 * bounds are chosen: the release is the fixed fallback (SQL NULL), a
 * function of the noisy histogram only, never an error.
 *
 * Everything chosen here is post-processing of the noisy histogram; the sum
 * or mean then runs with the chosen bounds and the rest of the epsilon
 * (sequential composition: epsilon_histogram + epsilon_value).
 */
#ifndef DP_AUTO_BOUNDS_H
#define DP_AUTO_BOUNDS_H

#include "dp_core.h"
#include "dp_rng.h"

#define DP_AUTO_K_MIN (-20)		/* zero bin: |x| < 2^-20 */
#define DP_AUTO_K_MAX 62		/* largest bound: 2^62 */
#define DP_AUTO_SIGNED_BINS (DP_AUTO_K_MAX - DP_AUTO_K_MIN)	/* per sign */
#define DP_AUTO_ZERO_BIN DP_AUTO_SIGNED_BINS
#define DP_AUTO_BIN_COUNT (2 * DP_AUTO_SIGNED_BINS + 1)

/* 1 - P: chance that an empty bin widens the bounds (per histogram) */
#define DP_AUTO_FALSE_POSITIVE 1e-6

/* the part of a release's epsilon the histogram spends (the paper's half) */
#define DP_AUTO_HISTOGRAM_SHARE 0.5

/* The bin of x, or -1 for NaN. */
extern int	dp_auto_bin(double x);

/* The edges of a bin: every x of the bin lies in [lower, upper]. */
extern double dp_auto_bin_lower(int bin);
extern double dp_auto_bin_upper(int bin);

/* The threshold t for a Laplace scale b (value units). */
extern double dp_auto_threshold(double scale);

/*
 * Choose bounds from noisy bin counts (post-processing): the lowest and
 * highest bins above threshold; with include_zero 0 is always inside them (a
 * sum: clamping at 0 adds no sensitivity), as their lower end when no bin
 * below the zero bin passed and as their upper end when none above did.
 * false when no bin exceeds the threshold (the fallback); *lower and *upper
 * untouched then.
 */
extern bool dp_auto_pick(const double *noisy, double threshold, bool include_zero,
						 double *lower, double *upper);

/*
 * The noisy histogram: noisy[bin] = counts[bin] + discrete Laplace noise of
 * sensitivity 1 (times contributions) and epsilon_histogram, on the grid of
 * dp_noise.h; *scale is the Laplace scale applied.  An error status for an
 * invalid epsilon or contributions (query constants only).
 */
extern dp_status dp_auto_histogram(dp_rng *rng, const uint64_t *counts,
								   double epsilon_histogram, uint32_t contributions,
								   double *noisy, double *scale);

/*
 * The whole choice: counts[DP_AUTO_BIN_COUNT] the exact per-bin counts of
 * one partition, each unit contributing to at most `contributions` bins.
 * Draws the histogram's noise from rng with epsilon_histogram.  Returns
 * DP_OK and sets *found (and the bounds when found), or an error status for
 * an invalid epsilon or contributions (query constants only).
 */
extern dp_status dp_auto_bounds(dp_rng *rng, const uint64_t *counts,
								double epsilon_histogram, uint32_t contributions,
								bool include_zero, bool *found,
								double *lower, double *upper);

#endif							/* DP_AUTO_BOUNDS_H */
