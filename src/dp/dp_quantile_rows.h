/*
 * dp_quantile_rows.h -- how many of its rows each unit gives a row-level
 * quantile, chosen privately from the data's own shape.
 *
 * A row-level quantile (dp_quantile_release_rows) lets each unit add up to
 * m values and scales the exponential mechanism's score sensitivity by m.
 * Larger m keeps more rows (less sampling error) and costs more noise: the
 * rank noise is about 2 max(p, 1 - p) m / eps rows, against N_s(m) =
 * sum over units of min(m_u, m) values kept.  Which m is best depends on how
 * many rows the units have, so the release spends a tenth of its epsilon on
 * a noisy histogram of the units' sample sizes and picks the m that
 * minimises the predicted error, then runs the exponential mechanism with the
 * other nine tenths over the first m values of every unit.
 *
 * Each unit's sample arrives in uniformly random order (anon_dp_sample);
 * the value at position i (1-based) is kept under the position class
 * c(i) = 0 for i = 1, ceil(log2 i) otherwise, so the first min(m_u, 2^c)
 * values of every unit are exactly the classes 0 .. c.  The candidates are
 * m_c = min(2^c, M) for c = 0 .. c(M), M the bound every unit is held to.
 *
 * Privacy: the histogram (one count per unit, in the bin floor(log2 m_u))
 * has L1 sensitivity 1 and gets discrete Laplace noise of scale
 * 1 / eps_choice; the choice of c is post-processing of it; a unit adds at
 * most m_c values to the classes 0 .. c, so the exponential mechanism at
 * sensitivity max(p, 1 - p) m_c is eps_release-DP for any c.  Together
 * (sequential composition) eps_choice + eps_release = eps.
 */
#ifndef DP_QUANTILE_ROWS_H
#define DP_QUANTILE_ROWS_H

#include "dp_core.h"
#include "dp_quantile.h"
#include "dp_rng.h"

/* the share of the release's epsilon spent on choosing m: 1 / 10 */
#define DP_ROWS_CHOICE_SHARE 0.1

/* Units by sample size: bin b holds the units with 2^b <= m_u < 2^(b+1). */
typedef struct dp_rows_histogram
{
	uint64_t	units[DP_QTREE_ROW_CLASSES];
} dp_rows_histogram;

/* Whether a release at (epsilon, M) can be planned (DP_OK when M <= 1). */
extern dp_status dp_rows_check(double epsilon, uint32_t max_values);

/* The position class of the i-th value (i >= 1) of a unit's sample. */
extern int	dp_rows_class(uint32_t position);

/* The histogram bin of a unit with m_u >= 1 values. */
extern int	dp_rows_bin(uint32_t values);

/* m_c: the number of values per unit of candidate class c under bound M. */
extern uint32_t dp_rows_candidate(int c, uint32_t max_values);

/*
 * Add one unit's sample (values in random order, NaN dropped by the caller
 * or here) to q and its size to h; at most max_values values are read.
 */
extern void dp_rows_add_unit(dp_quantile *q, dp_rows_histogram *h, const double *values,
							 uint32_t n, uint32_t max_values);

/*
 * The predicted mean squared rank error (as a fraction of the kept values)
 * of candidate class c, from a histogram of units by sample size (noisy
 * counts may be passed as they are: negative ones count as 0):
 *
 *   2 (2 max(p, 1 - p) m_c / (eps_release N_s))^2
 *     + (p (1 - p) + 1 / N_s) (1 - N_s / N) / N_s,
 *
 * N_s = sum_b units_b min(r_b, m_c), r_b the middle of bin b's sizes (capped
 * at M), N = N_s at c(M): the exponential mechanism's rank noise (a Laplace
 * of scale 2 max(p, 1 - p) m_c / eps_release) and the sampling variance of
 * a quantile of N_s of N values.
 */
extern double dp_rows_predicted_error(const double *units, int c, uint32_t max_values,
									  double p, double epsilon_release);

/* The candidate class with the least predicted error (the smaller on ties). */
extern int	dp_rows_best_class(const double *units, uint32_t max_values, double p,
							   double epsilon_release);

/*
 * The histogram with discrete Laplace noise of scale 1 / epsilon_choice on
 * each bin (a unit is in one bin: L1 sensitivity 1).
 */
extern void dp_rows_noisy_histogram(dp_rng *rng, const dp_rows_histogram *h,
									double epsilon_choice, double *noisy);

/*
 * The release: when M = 1, dp_quantile_release_rows at the whole epsilon
 * (nothing to choose).  Otherwise noise the histogram at eps / 10, choose c
 * (dp_rows_best_class), and release over classes 0 .. c with the remaining
 * epsilon and k = m_c.  *chosen (if not NULL) receives m_c.  q's plan holds
 * epsilon and M (dp_quantile_init's contributions).
 */
extern double dp_quantile_release_rows_adaptive(dp_rng *rng, const dp_quantile *q,
												const dp_rows_histogram *h, double p,
												uint32_t *chosen);

#endif							/* DP_QUANTILE_ROWS_H */
