/*
 * dp_aggregate.c -- bounded count, sum, mean and variance.
 */
#include "dp_aggregate.h"

#include <math.h>

#include "dp_params.h"
#include "dp_selection.h"

dp_status
dp_check_bounds(double lower, double upper)
{
	if (!isfinite(lower) || !isfinite(upper) ||
		fabs(lower) > DP_BOUND_MAX || fabs(upper) > DP_BOUND_MAX)
		return DP_ERR_BOUND_NOT_FINITE;
	if (lower > upper)
		return DP_ERR_BOUNDS_ORDER;
	return DP_OK;
}

static double
max_abs(double a, double b)
{
	a = fabs(a);
	b = fabs(b);
	return a > b ? a : b;
}

dp_status
dp_sum_init_real(dp_sum *s, double lower, double upper, double epsilon,
				 uint32_t contributions)
{
	dp_status	status = dp_check_bounds(lower, upper);

	if (status != DP_OK)
		return status;
	if ((status = dp_check_epsilon(epsilon)) != DP_OK)
		return status;
	s->integer = false;
	s->lower = lower;
	s->upper = upper;
	s->lower_int = 0;
	s->upper_int = 0;
	s->units = 0;
	return dp_laplace_plan_make(max_abs(lower, upper), epsilon, contributions,
								&s->plan);
}

dp_status
dp_sum_init_int(dp_sum *s, int64_t lower, int64_t upper, double epsilon,
				uint32_t contributions)
{
	if (lower > upper)
		return DP_ERR_BOUNDS_ORDER;
	if (dp_check_epsilon(epsilon) != DP_OK)
		return DP_ERR_EPSILON;
	s->integer = true;
	s->lower_int = lower;
	s->upper_int = upper;
	s->lower = (double) lower;
	s->upper = (double) upper;
	s->units = 0;
	return dp_laplace_plan_make(max_abs((double) lower, (double) upper),
								epsilon, contributions, &s->plan);
}

dp_status
dp_count_init(dp_sum *s, int64_t upper, double epsilon, uint32_t contributions)
{
	if (upper < 0)
		return DP_ERR_BOUND_NEGATIVE;
	return dp_sum_init_int(s, 0, upper, epsilon, contributions);
}

dp_status
dp_sum_use_gaussian(dp_sum *s, double delta, int64_t max_groups)
{
	double		epsilon = s->plan.epsilon;

	if (s->plan.contributions != 1)
		return DP_ERR_CONTRIBUTIONS;
	if ((double) max_groups * epsilon > DP_EPSILON_MAX)
		return DP_ERR_EPSILON;
	s->units = 0;
	return dp_gaussian_plan_make(s->plan.sensitivity, (double) max_groups * epsilon, delta,
								 max_groups, &s->plan);
}

void
dp_sum_merge(dp_sum *into, const dp_sum *from)
{
	into->units += from->units;
}

double
dp_sum_release_real(dp_rng *rng, const dp_sum *s)
{
	return dp_units_to_double(&s->plan,
							  dp_noisy_units(rng, &s->plan, s->units));
}

double
dp_sum_within_bounds(double released, double lower, double upper)
{
	if (lower >= 0.0 && released < 0.0)
		return 0.0;
	if (upper <= 0.0 && released > 0.0)
		return 0.0;
	return released;
}

dp_i128
dp_sum_release_int(dp_rng *rng, const dp_sum *s)
{
	return dp_units_to_integer(&s->plan,
							   dp_noisy_units(rng, &s->plan, s->units));
}

/* ---- mean ---- */

/*
 * Bound on |fl(x - midpoint)| for x in [lower, upper].  The midpoint is a
 * rounded double, so the two half widths may differ from (upper - lower) / 2
 * and from each other; the larger one, rounded up once more, bounds every
 * centred contribution (subtraction is monotone).
 */
static double
centred_half_width(double lower, double upper, double midpoint)
{
	double		above = upper - midpoint;
	double		below = midpoint - lower;
	double		h = above > below ? above : below;

	return h > 0.0 ? nextafter(h, INFINITY) : 0.0;
}

dp_status
dp_mean_init(dp_mean *m, double lower, double upper, double epsilon,
			 uint32_t contributions)
{
	dp_status	status = dp_check_bounds(lower, upper);

	if (status != DP_OK)
		return status;
	if ((status = dp_check_epsilon(epsilon)) != DP_OK)
		return status;
	m->lower = lower;
	m->upper = upper;
	m->midpoint = lower / 2.0 + upper / 2.0;
	m->count_units = 0;
	m->sum_units = 0;
	status = dp_laplace_plan_make(1.0, epsilon / 2.0, contributions, &m->count_plan);
	if (status != DP_OK)
		return status;
	status = dp_laplace_plan_make(centred_half_width(lower, upper, m->midpoint),
								  epsilon / 2.0, contributions, &m->sum_plan);
	m->count_one = dp_units_from_int64(&m->count_plan, 1);
	return status;
}

void
dp_mean_merge(dp_mean *into, const dp_mean *from)
{
	into->count_units += from->count_units;
	into->sum_units += from->sum_units;
}

static double
clamp_result(double x, double lower, double upper)
{
	if (x != x)
		return lower / 2.0 + upper / 2.0;	/* cannot happen; never NaN out */
	return x < lower ? lower : (x > upper ? upper : x);
}

void
dp_mean_noisy_parts(dp_rng *rng, const dp_mean *m, dp_i128 noisy_count,
					double *count, double *sum)
{
	*count = dp_units_to_double(&m->count_plan, noisy_count);
	*sum = dp_units_to_double(&m->sum_plan, dp_noisy_units(rng, &m->sum_plan, m->sum_units));
}

double
dp_mean_from_parts(const dp_mean *m, double count, double sum)
{
	if (count < 1.0)
		count = 1.0;
	return clamp_result(sum / count + m->midpoint, m->lower, m->upper);
}

/* the mean from a noisy count (units of count_plan): post-processing */
static double
mean_from_count(dp_rng *rng, const dp_mean *m, dp_i128 noisy_count)
{
	double		count;
	double		sum;

	dp_mean_noisy_parts(rng, m, noisy_count, &count, &sum);
	return dp_mean_from_parts(m, count, sum);
}

double
dp_mean_release(dp_rng *rng, const dp_mean *m)
{
	return mean_from_count(rng, m,
						   dp_noisy_units(rng, &m->count_plan, m->count_units));
}

dp_status
dp_mean_select(dp_mean *m, dp_selection *sel, int mechanism, double delta,
			   int64_t max_groups)
{
	dp_status	status;

	if (m->count_plan.contributions != 1)
		return DP_ERR_CONTRIBUTIONS;
	if (mechanism == DP_SELECT_GAUSSIAN)
		return DP_ERR_SIGMA;	/* the mean's count is Laplace only */
	status = dp_selection_make((dp_selection_mechanism) mechanism, m->count_plan.epsilon,
							   delta, max_groups, true, sel);
	if (status != DP_OK)
		return status;
	m->count_plan = sel->count_plan;
	m->count_one = sel->units_one;
	m->count_units = 0;
	return DP_OK;
}

bool
dp_mean_release_selected(dp_rng *rng, const dp_mean *m, const dp_selection *sel,
						 double *mean)
{
	dp_i128		noisy;

	if (!dp_selection_release(rng, sel, m->count_units, &noisy))
		return false;
	*mean = mean_from_count(rng, m, noisy);
	return true;
}

/* ---- variance ---- */

dp_status
dp_variance_init(dp_variance *v, double lower, double upper, double epsilon,
				 uint32_t contributions)
{
	dp_status	status = dp_check_bounds(lower, upper);

	if (status != DP_OK)
		return status;
	if ((status = dp_check_epsilon(epsilon)) != DP_OK)
		return status;
	v->lower = lower;
	v->upper = upper;
	v->midpoint = lower / 2.0 + upper / 2.0;
	v->half_width = centred_half_width(lower, upper, v->midpoint);
	/* fl(d * d) <= fl(h * h) <= nextafter: squares stay in [0, 2 * centre] */
	v->square_centre = v->half_width > 0.0
		? nextafter(v->half_width * v->half_width, INFINITY) / 2.0 : 0.0;
	v->count_units = 0;
	v->sum_units = 0;
	v->square_units = 0;
	if (!isfinite(v->square_centre))
		return DP_ERR_NOISE_SCALE;
	status = dp_laplace_plan_make(1.0, epsilon / 3.0, contributions, &v->count_plan);
	if (status == DP_OK)
		status = dp_laplace_plan_make(v->half_width, epsilon / 3.0, contributions,
									  &v->sum_plan);
	if (status == DP_OK)
		status = dp_laplace_plan_make(v->square_centre, epsilon / 3.0, contributions,
									  &v->square_plan);
	if (status == DP_OK)
		v->count_one = dp_units_from_int64(&v->count_plan, 1);
	return status;
}

void
dp_variance_merge(dp_variance *into, const dp_variance *from)
{
	into->count_units += from->count_units;
	into->sum_units += from->sum_units;
	into->square_units += from->square_units;
}

double
dp_variance_release(dp_rng *rng, const dp_variance *v)
{
	double		count = dp_units_to_double(&v->count_plan,
										   dp_noisy_units(rng, &v->count_plan,
																  v->count_units));
	double		sum = dp_units_to_double(&v->sum_plan,
										 dp_noisy_units(rng, &v->sum_plan,
																v->sum_units));
	double		squares = dp_units_to_double(&v->square_plan,
											 dp_noisy_units(rng, &v->square_plan,
																	v->square_units));
	double		mean;
	double		mean_square;
	double		variance;
	double		max_variance = (v->upper / 2.0 - v->lower / 2.0) *
		(v->upper / 2.0 - v->lower / 2.0);

	if (count < 1.0)
		count = 1.0;
	mean = sum / count;
	mean_square = squares / count + v->square_centre;
	variance = mean_square - mean * mean;
	if (variance != variance || variance < 0.0)
		variance = 0.0;
	if (variance > max_variance)
		variance = max_variance;
	return variance;
}
