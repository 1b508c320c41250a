/*
 * dp_aggregate.h -- bounded-contribution aggregates (paper Sec. 3.2, Table 1).
 *
 * Each aggregate has an init (validates query constants and plans its noise),
 * an add (one contribution), a merge (for parallel aggregation) and a release
 * (draws the noise).  Contributions are summed exactly as integers on the
 * grid of the noise plan, so merge order never changes a result.
 *
 * Clamping rule, identical for every aggregate (dp_clamp):
 *   NaN           -> the contribution is ignored (as if the row were absent)
 *   +Infinity     -> upper bound
 *   -Infinity     -> lower bound
 *   finite x      -> min(max(x, lower), upper)
 * SQL NULLs are ignored by the glue before they reach this layer.
 *
 * Sensitivities (one contribution; k contributions per privacy unit multiply
 * them by k):
 *   count (per-unit counts clamped to [0, U])   U
 *   sum (clamped to [L, U])                      max(|L|, |U|)
 *   mean: count 1 and normalized sum (U-L)/2, each with epsilon/2
 *   variance: count 1, normalized sum (U-L)/2 and centred normalized square
 *             ((U-L)/2)^2 / 2, each with epsilon/3
 */
#ifndef DP_AGGREGATE_H
#define DP_AGGREGATE_H

#include "dp_core.h"
#include "dp_noise.h"
#include "dp_rng.h"

/* Clamp x into [lower, upper]; returns false (ignore) for NaN. */
static inline bool
dp_clamp(double x, double lower, double upper, double *out)
{
	if (x != x)
		return false;
	if (x < lower)
		x = lower;
	else if (x > upper)
		x = upper;
	*out = x;
	return true;
}

static inline int64_t
dp_clamp_int64(int64_t x, int64_t lower, int64_t upper)
{
	return x < lower ? lower : (x > upper ? upper : x);
}

/* Largest magnitude of a floating-point clamping bound. */
#define DP_BOUND_MAX 1e250

/* Validation shared by every aggregate: finite bounds with lower <= upper. */
extern dp_status dp_check_bounds(double lower, double upper);

/* ---- sum (and count, which is a sum of counts clamped to [0, U]) ---- */

typedef struct dp_sum
{
	bool		integer;		/* integer bounds and inputs */
	int64_t		lower_int;
	int64_t		upper_int;
	double		lower;
	double		upper;
	dp_noise_plan plan;
	dp_i128		units;			/* exact sum of clamped contributions */
} dp_sum;

extern dp_status dp_sum_init_real(dp_sum *s, double lower, double upper,
								  double epsilon, uint32_t contributions);
extern dp_status dp_sum_init_int(dp_sum *s, int64_t lower, int64_t upper,
								 double epsilon, uint32_t contributions);
extern dp_status dp_count_init(dp_sum *s, int64_t upper, double epsilon,
							   uint32_t contributions);

static inline void
dp_sum_add_real(dp_sum *s, double x)
{
	double		c;

	if (dp_clamp(x, s->lower, s->upper, &c))
		s->units += dp_units_from_double(&s->plan, c);
}

static inline void
dp_sum_add_int(dp_sum *s, int64_t x)
{
	s->units += dp_units_from_int64(&s->plan,
									dp_clamp_int64(x, s->lower_int, s->upper_int));
}

/*
 * Replace the Laplace noise of an initialized sum (contributions 1, no
 * contribution added yet) by Gaussian noise for all the partitions of a
 * user together: its epsilon times max_groups and delta (dp_noise.h).
 */
extern dp_status dp_sum_use_gaussian(dp_sum *s, double delta, int64_t max_groups);

extern void dp_sum_merge(dp_sum *into, const dp_sum *from);
extern double dp_sum_release_real(dp_rng *rng, const dp_sum *s);
extern dp_i128 dp_sum_release_int(dp_rng *rng, const dp_sum *s);

/*
 * A released sum of values clamped to [lower, upper], moved into what such
 * a sum can be: any number n >= 0 of values in [lower, upper] sums to at
 * least 0 when lower >= 0 and to at most 0 when upper <= 0 (post-processing).
 */
extern double dp_sum_within_bounds(double released, double lower, double upper);

/* ---- mean ---- */

typedef struct dp_mean
{
	double		lower;
	double		upper;
	double		midpoint;
	dp_noise_plan count_plan;
	dp_noise_plan sum_plan;
	dp_i128		count_one;		/* units of a count of 1 */
	dp_i128		count_units;
	dp_i128		sum_units;		/* sum of (x - midpoint) */
} dp_mean;

extern dp_status dp_mean_init(dp_mean *m, double lower, double upper,
							  double epsilon, uint32_t contributions);

static inline void
dp_mean_add(dp_mean *m, double x)
{
	double		c;

	if (!dp_clamp(x, m->lower, m->upper, &c))
		return;
	m->count_units += m->count_one;
	m->sum_units += dp_units_from_double(&m->sum_plan, c - m->midpoint);
}

extern void dp_mean_merge(dp_mean *into, const dp_mean *from);
/* Result always lies in [lower, upper]; empty input gives a noisy value. */
extern double dp_mean_release(dp_rng *rng, const dp_mean *m);

/*
 * The two noisy parts of a mean: its count from noisy_count (units of
 * count_plan, already noisy) and its centred sum with fresh noise; and the
 * mean they give (post-processing), as dp_mean_release computes it.
 */
extern void dp_mean_noisy_parts(dp_rng *rng, const dp_mean *m, dp_i128 noisy_count,
								double *count, double *sum);
extern double dp_mean_from_parts(const dp_mean *m, double count, double sum);

/*
 * The mean's noisy count (epsilon / 2 of an initialized mean, contributions
 * 1, nothing added yet) also selects the partition: *sel is planned with
 * that count's epsilon and a dp_selection_mechanism (LAPLACE or OPTIMAL),
 * and the count takes the selection's noise.  dp_mean_release_selected
 * draws the count once: false when the partition is dropped, else the mean
 * computed from that same noisy count.
 */
struct dp_selection;
extern dp_status dp_mean_select(dp_mean *m, struct dp_selection *sel, int mechanism,
								double delta, int64_t max_groups);
extern bool dp_mean_release_selected(dp_rng *rng, const dp_mean *m,
									 const struct dp_selection *sel, double *mean);

/* ---- variance and standard deviation ---- */

typedef struct dp_variance
{
	double		lower;
	double		upper;
	double		midpoint;
	double		half_width;		/* bound on |x - midpoint|, about (upper - lower) / 2 */
	double		square_centre;	/* about half_width^2 / 2 */
	dp_noise_plan count_plan;
	dp_noise_plan sum_plan;
	dp_noise_plan square_plan;
	dp_i128		count_one;
	dp_i128		count_units;
	dp_i128		sum_units;		/* sum of (x - midpoint) */
	dp_i128		square_units;	/* sum of (x - midpoint)^2 - square_centre */
} dp_variance;

extern dp_status dp_variance_init(dp_variance *v, double lower, double upper,
								  double epsilon, uint32_t contributions);

static inline void
dp_variance_add(dp_variance *v, double x)
{
	double		c;
	double		d;

	if (!dp_clamp(x, v->lower, v->upper, &c))
		return;
	d = c - v->midpoint;
	v->count_units += v->count_one;
	v->sum_units += dp_units_from_double(&v->sum_plan, d);
	v->square_units += dp_units_from_double(&v->square_plan, d * d - v->square_centre);
}

extern void dp_variance_merge(dp_variance *into, const dp_variance *from);
/* Population variance, always in [0, ((upper - lower) / 2)^2]. */
extern double dp_variance_release(dp_rng *rng, const dp_variance *v);

#endif							/* DP_AGGREGATE_H */
