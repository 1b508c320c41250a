/*
 * dp_interval.c -- half-widths of the noise of a plan, and the interval of
 * a mean (dp_interval.h).
 */
#include "dp_interval.h"

#include <math.h>

#include "dp_gauss.h"

#define UNITS_MAX (UINT64_C(1) << 62)

uint64_t
dp_interval_units(const dp_noise_plan *plan, double alpha)
{
	long double k;

	if (!(alpha > 0.0 && alpha < 1.0))
		dp_fail("dp_interval_units: alpha must lie in (0, 1)");
	if (plan->sigma > 0)
		k = ceill(dp_normal_tail_inverse((long double) alpha / 2.0L) *
				  (long double) plan->sigma) + 1.0L;
	else if (plan->t > 0)
		k = ceill((long double) plan->t * logl(1.0L / (long double) alpha)) + 1.0L;
	else
		return 0;
	if (!(k < (long double) UNITS_MAX))
		k = (long double) UNITS_MAX;
	if (plan->sigma == 0 && plan->truncation > 0 && k > (long double) plan->truncation)
		k = (long double) plan->truncation;
	return (uint64_t) k;
}

double
dp_interval_half_width(const dp_noise_plan *plan, double alpha)
{
	uint64_t	k = dp_interval_units(plan, alpha);
	double		units = (double) k;

	if ((uint64_t) units < k)	/* rounded down on conversion */
		units = nextafter(units, INFINITY);
	return ldexp(units, plan->grid_exp);
}

/* a / b rounded outwards: down when down, else up (b > 0) */
static double
outward_ratio(double a, double b, bool down)
{
	double		q = a / b;

	return nextafter(q, down ? -INFINITY : INFINITY);
}

void
dp_interval_ratio(double noisy_sum, double sum_half_width,
				  double noisy_count, double count_half_width,
				  double lower, double upper, double midpoint,
				  double *low, double *high)
{
	double		w = fmax(upper - midpoint, midpoint - lower);
	double		s1 = noisy_sum - sum_half_width;
	double		s2 = noisy_sum + sum_half_width;
	double		c1 = fmax(noisy_count - count_half_width, 1.0);
	double		c2 = noisy_count + count_half_width;
	double		lo;
	double		hi;

	*low = lower;
	*high = upper;
	if (!(c2 >= 1.0) || !isfinite(s1) || !isfinite(s2) || !isfinite(c2))
		return;
	/* s / c is monotone in s and in c: its extremes are at the corners */
	lo = fmin(outward_ratio(s1, c1, true), outward_ratio(s1, c2, true));
	hi = fmax(outward_ratio(s2, c1, false), outward_ratio(s2, c2, false));
	lo = fmax(lo, -w);
	hi = fmin(hi, w);
	lo = nextafter(lo + midpoint, -INFINITY);
	hi = nextafter(hi + midpoint, INFINITY);
	*low = lo < lower ? lower : (lo > upper ? upper : lo);
	*high = hi > upper ? upper : (hi < lower ? lower : hi);
}

double
dp_mean_release_interval(dp_rng *rng, const dp_mean *m, double alpha,
						 double *low, double *high)
{
	double		count;
	double		sum;
	double		mean;

	dp_mean_noisy_parts(rng, m, dp_noisy_units(rng, &m->count_plan, m->count_units),
						&count, &sum);
	mean = dp_mean_from_parts(m, count, sum);
	dp_interval_ratio(sum, dp_interval_half_width(&m->sum_plan, alpha / 2.0),
					  count, dp_interval_half_width(&m->count_plan, alpha / 2.0),
					  m->lower, m->upper, m->midpoint, low, high);
	/* the mean lies in the interval by construction; rounding must not say otherwise */
	if (mean < *low)
		*low = mean;
	if (mean > *high)
		*high = mean;
	return mean;
}

double
dp_selection_users_for(const dp_selection *sel, double p)
{
	uint64_t	low = 0;
	uint64_t	high = 1;

	if (!(p > 0.5 && p < 1.0))
		dp_fail("dp_selection_users_for: p must lie in (1/2, 1)");
	if (sel->mechanism != DP_SELECT_OPTIMAL || sel->counted)
	{
		long double units = (long double) sel->tau_units +
			(long double) dp_interval_units(&sel->count_plan, 2.0 * (1.0 - p));

		return (double) ceill(units / (long double) sel->units_one);
	}
	/* OPTIMAL without a count: pi(n) grows with n */
	while (dp_selection_keep_probability(sel, high) < p)
	{
		if (high >= UNITS_MAX)
			return INFINITY;
		low = high;
		high *= 2;
	}
	while (high - low > 1)
	{
		uint64_t	mid = low + (high - low) / 2;

		if (dp_selection_keep_probability(sel, mid) < p)
			low = mid;
		else
			high = mid;
	}
	return (double) high;
}
