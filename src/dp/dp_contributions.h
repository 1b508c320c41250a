/*
 * dp_contributions.h -- how many groups, and how many rows in one group, the
 * users of a query contribute: two noisy histograms and the contribution
 * bounds they suggest (anon_dp_contribution_bounds; doc/noise.md §11).
 *
 * Each user is one value in each histogram: the number of groups (distinct
 * GROUP BY keys) it has rows in, and the largest number of rows it has in
 * one of them.  Bins (DP_CONTRIB_BINS per histogram): the values 1 .. 16 one
 * bin each, then (2^(j-1), 2^j] for j = 5 .. 30, then one bin for every
 * larger value.  Adding or removing a user changes one count of each
 * histogram by 1, so each histogram, at epsilon / 2 with Laplace noise of
 * sensitivity 1 (scale 2 / epsilon), is epsilon / 2-DP, and the two together
 * epsilon-DP.  Everything else here is post-processing of the noisy counts.
 *
 * What is seen: a bin counts only when its noisy count exceeds
 *
 *   t = b * ln(B / (2 p)),   b the Laplace scale, B = DP_CONTRIB_BINS,
 *                            p = DP_CONTRIB_FALSE_POSITIVE,
 *
 * so that an empty bin passes with probability at most p / B (one-sided
 * Laplace tail e^(-t/b) / 2) and any of them with at most p; bins below t
 * count as empty.  The suggested bound is the smallest upper edge of a bin
 * below which at least DP_CONTRIB_QUANTILE of the users seen lie: every
 * group (row) of 95 % of the users kept.
 */
#ifndef DP_CONTRIBUTIONS_H
#define DP_CONTRIBUTIONS_H

#include "dp_core.h"
#include "dp_rng.h"

#define DP_CONTRIB_EXACT 16			/* values 1 .. 16: a bin each */
#define DP_CONTRIB_LOG_MAX 30		/* then (2^(j-1), 2^j], j = 5 .. 30 */
#define DP_CONTRIB_BINS (DP_CONTRIB_EXACT + DP_CONTRIB_LOG_MAX - 4 + 1)
#define DP_CONTRIB_FALSE_POSITIVE 1e-3
#define DP_CONTRIB_QUANTILE 0.95

/* the exact histograms of one measurement */
typedef struct dp_contributions
{
	uint64_t	groups[DP_CONTRIB_BINS];	/* users by number of groups */
	uint64_t	rows[DP_CONTRIB_BINS];	/* users by most rows in one group */
} dp_contributions;

/* The bin of a value (values below 1 count as 1). */
extern int	dp_contrib_bin(int64_t value);

/* The largest value of a bin (INT64_MAX for the last). */
extern int64_t dp_contrib_bin_upper(int bin);

/* A value standing for the bin's values (the value itself for 1 .. 16). */
extern double dp_contrib_bin_middle(int bin);

/* One user: its number of groups and its most rows in one of them. */
static inline void
dp_contrib_add(dp_contributions *c, int64_t groups, int64_t rows)
{
	c->groups[dp_contrib_bin(groups)]++;
	c->rows[dp_contrib_bin(rows)]++;
}

/*
 * The noisy histograms, each at epsilon / 2: noisy[0 .. B-1] the groups',
 * noisy[B .. 2B-1] the rows'; *scale the Laplace scale of every count.  An
 * error status for an invalid epsilon (query constants only).
 */
extern dp_status dp_contrib_release(dp_rng *rng, const dp_contributions *c, double epsilon,
									double *noisy, double *scale);

/* The threshold t of a bin for the Laplace scale b. */
extern double dp_contrib_threshold(double scale);

/* What a bound keeps, from one noisy histogram (post-processing). */
typedef struct dp_contrib_estimate
{
	double		users;			/* users seen: the counts above t */
	double		users_within;	/* share of them whose every group (row) is kept */
	double		kept;			/* share of their groups (rows) kept */
} dp_contrib_estimate;

/* The estimate for a bound (NaN shares when no user is seen). */
extern dp_contrib_estimate dp_contrib_estimate_for(const double *noisy, double scale,
												   int64_t bound);

/* The last bin seen, or -1 when none. */
extern int	dp_contrib_last_seen(const double *noisy, double scale);

/* The suggested bound, or 0 when no user is seen. */
extern int64_t dp_contrib_suggest(const double *noisy, double scale);

#endif							/* DP_CONTRIBUTIONS_H */
