/*
 * dp_noise.c -- Laplace and Gaussian noise on a power-of-two grid.
 *
 * See dp_noise.h for the construction and why no floating-point noise is used.
 */
#include "dp_noise.h"

#include <math.h>

#include "dp_gauss.h"
#include "dp_sampler.h"

#define UNITS_LOG2_MIN 10		/* at least 2^10 grid steps per sensitivity */
#define UNITS_LOG2_MAX 60		/* at most 2^60 units per contribution */
#define T_MAX (UINT64_C(1) << 56)	/* dp_discrete_laplace limit */

/* ceil(log2(x)) for finite x > 0 */
static int
ceil_log2(double x)
{
	int			e;
	double		m = frexp(x, &e);	/* x = m 2^e, m in [0.5, 1) */

	return (m == 0.5) ? e - 1 : e;
}

const char *
dp_status_text(dp_status status)
{
	switch (status)
	{
		case DP_OK:
			return "ok";
		case DP_ERR_EPSILON:
			return "epsilon must be a finite number between 1e-12 and 1048576 (and at least 1e-12 for each contribution and each internal part)";
		case DP_ERR_DELTA:
			return "delta must be a finite number strictly between 0 and 1";
		case DP_ERR_BOUND_NOT_FINITE:
			return "clamping bounds must be finite numbers of magnitude at most 1e250";
		case DP_ERR_BOUNDS_ORDER:
			return "the lower bound must not exceed the upper bound";
		case DP_ERR_BOUND_NEGATIVE:
			return "a count bound must not be negative";
		case DP_ERR_NOISE_SCALE:
			return "the sensitivity implied by the bounds is outside the supported range 2^-900 .. 2^900";
		case DP_ERR_PERCENTILE:
			return "the percentile must lie in [0, 1]";
		case DP_ERR_CONTRIBUTIONS:
			return "the number of contributions per privacy unit must be at least 1";
		case DP_ERR_MAX_GROUPS:
			return "the number of groups a privacy unit may contribute to must be at least 1";
		case DP_ERR_SIGMA:
			return "the Gaussian standard deviation is outside the supported range";
	}
	return "unknown error";
}

dp_status
dp_laplace_plan_make(double sensitivity, double epsilon, uint32_t contributions,
					 dp_noise_plan *plan)
{
	double		eps_per_contribution;
	int			units_log2;
	double		t_real;

	if (!isfinite(epsilon) || epsilon <= 0.0 || epsilon > DP_EPSILON_MAX)
		return DP_ERR_EPSILON;
	if (contributions < 1)
		return DP_ERR_CONTRIBUTIONS;
	eps_per_contribution = epsilon / contributions;
	if (eps_per_contribution < 1e-12)
		return DP_ERR_EPSILON;
	if (!isfinite(sensitivity) || sensitivity < 0.0)
		return DP_ERR_NOISE_SCALE;

	plan->sensitivity = sensitivity;
	plan->epsilon = epsilon;
	plan->contributions = contributions;
	plan->truncation = 0;
	plan->sigma = 0;

	if (sensitivity == 0.0)
	{
		/* the quantity cannot depend on the data: release it exactly */
		plan->grid_exp = 0;
		plan->units_per_value = 1.0;
		plan->t = 0;
		return DP_OK;
	}
	if (sensitivity < ldexp(1.0, -DP_SCALE_LOG2_MAX) ||
		sensitivity > ldexp(1.0, DP_SCALE_LOG2_MAX))
		return DP_ERR_NOISE_SCALE;

	/*
	 * Choose how many grid units one contribution may span: about
	 * 2^40 * epsilon / k, so that the noise scale t is about 2^40 units, but
	 * never fewer than 2^10 (grid rounding then adds less than 2^-9 to the
	 * sensitivity, and only when epsilon / k < 2^-30) nor more than 2^60 (the
	 * 128-bit sum cannot overflow).  At the smallest epsilon / k accepted,
	 * 1e-12, t stays below 2^51, so the discrete Laplace sampler's redraw of
	 * values beyond int64 has probability below exp(-2^12).
	 */
	units_log2 = DP_GRID_STEPS_LOG2 + (int) floor(log2(eps_per_contribution));
	if (units_log2 < UNITS_LOG2_MIN)
		units_log2 = UNITS_LOG2_MIN;
	if (units_log2 > UNITS_LOG2_MAX)
		units_log2 = UNITS_LOG2_MAX;
	plan->grid_exp = ceil_log2(sensitivity) - units_log2;
	plan->units_per_value = ldexp(1.0, -plan->grid_exp);

	/* t >= k (sensitivity / r + 1) / epsilon, see dp_noise.h */
	t_real = (double) contributions * (ldexp(sensitivity, -plan->grid_exp) + 1.0) / epsilon;
	if (!(t_real < (double) (T_MAX - 2)))
		return DP_ERR_NOISE_SCALE;
	plan->t = (uint64_t) ceil(t_real) + 1;
	return DP_OK;
}

double
dp_laplace_plan_scale(const dp_noise_plan *plan)
{
	return ldexp((double) plan->t, plan->grid_exp);
}

/*
 * Round half away from zero, exactly: y - trunc(y) is computed without
 * rounding error, so the decision never depends on a rounded y + 0.5.
 */
static dp_i128
round_half_away(double y)
{
	double		whole = trunc(y);
	double		fraction = y - whole;	/* exact */
	dp_i128		units = (dp_i128) whole;

	if (fraction >= 0.5)
		units += 1;
	else if (fraction <= -0.5)
		units -= 1;
	return units;
}

dp_i128
dp_units_from_large_double(double units)
{
	if (!(fabs(units) < 1.0e37))
		dp_fail("grid units out of range");
	return round_half_away(units);
}

/* Z of the plan's noise, in units */
static int64_t
draw_noise(dp_rng *rng, const dp_noise_plan *plan)
{
	int64_t		z;

	if (plan->sigma > 0)
		return dp_discrete_gaussian(rng, plan->sigma);
	for (;;)
	{
		z = dp_discrete_laplace(rng, plan->t, 1);
		/* truncation: rejection gives Z conditioned on |Z| <= truncation */
		if (plan->truncation == 0 ||
			(z >= 0 ? (uint64_t) z : (uint64_t) 0 - (uint64_t) z) <= plan->truncation)
			return z;
	}
}

dp_i128
dp_noisy_units(dp_rng *rng, const dp_noise_plan *plan, dp_i128 units)
{
	if (plan->t == 0 && plan->sigma == 0)
		return units;
	return units + draw_noise(rng, plan);
}

double
dp_units_to_double(const dp_noise_plan *plan, dp_i128 units)
{
	return ldexp((double) units, plan->grid_exp);
}

dp_i128
dp_units_to_integer(const dp_noise_plan *plan, dp_i128 units)
{
	int			g = plan->grid_exp;
	dp_u128		mag;
	dp_u128		q;

	if (g >= 0)
		return units * ((dp_i128) 1 << g);
	if (g <= -127)
		return 0;
	mag = units < 0 ? (dp_u128) 0 - (dp_u128) units : (dp_u128) units;
	q = (mag + ((dp_u128) 1 << (-g - 1))) >> (-g);
	return units < 0 ? -(dp_i128) q : (dp_i128) q;
}

double
dp_laplace_real(dp_rng *rng, const dp_noise_plan *plan, double x)
{
	double		y;
	int64_t		z;

	if (!isfinite(x))
		dp_fail("dp_laplace_real: value is not finite");
	if (plan->t == 0 && plan->sigma == 0)
		return x;
	y = ldexp(x, -plan->grid_exp);
	if (fabs(y) < 1.0e37)
		return dp_units_to_double(plan,
								  dp_noisy_units(rng, plan,
														 dp_units_from_double(plan, x)));

	/*
	 * |x| >= 2^122 r: x is already a multiple of r.  x + z r computed in
	 * double is the correctly rounded exact sum, a function of the exact
	 * noisy value only.
	 */
	z = draw_noise(rng, plan);
	return x + ldexp((double) z, plan->grid_exp);
}

/* the epsilon a Gaussian plan calibrates sigma for: the rest covers the grid */
static double
gaussian_calibrated_epsilon(double epsilon)
{
	return epsilon * (1.0 - 0x1p-12);
}

/* sigma for L2 sensitivity 1 of a plan for (epsilon, delta) */
static dp_status
gaussian_sigma_one(double epsilon, double delta, double *sigma_one)
{
	return dp_analytic_gaussian_sigma(gaussian_calibrated_epsilon(epsilon),
									  delta * (1.0 - 0x1p-20), sigma_one);
}

dp_status
dp_gaussian_rho(double epsilon, double delta, double *rho)
{
	double		sigma_one;
	dp_status	status;
	long double r;

	if (!isfinite(epsilon) || epsilon < 1e-12 || epsilon > DP_EPSILON_MAX)
		return DP_ERR_EPSILON;
	if (!isfinite(delta) || delta <= 0.0 || delta >= 1.0)
		return DP_ERR_DELTA;
	if ((status = gaussian_sigma_one(epsilon, delta, &sigma_one)) != DP_OK)
		return status;
	r = 1.0L / (2.0L * (long double) sigma_one * (long double) sigma_one);
	*rho = nextafter((double) (r * (1.0L + 0x1p-50L)), INFINITY);
	return DP_OK;
}

dp_status
dp_gaussian_plan_make(double sensitivity, double epsilon, double delta,
					  int64_t max_groups, dp_noise_plan *plan)
{
	double		epsilon_calibrated = gaussian_calibrated_epsilon(epsilon);
	double		sigma_one;		/* sigma for L2 sensitivity 1 */
	double		spread;			/* sqrt(C_u) */
	double		units;			/* sensitivity in grid units, rounding included */
	double		sigma_units;
	dp_status	status;

	if (!isfinite(epsilon) || epsilon < 1e-12 || epsilon > DP_EPSILON_MAX)
		return DP_ERR_EPSILON;
	if (!isfinite(delta) || delta <= 0.0 || delta >= 1.0)
		return DP_ERR_DELTA;
	if (max_groups < 1 || max_groups > (INT64_C(1) << 40))
		return DP_ERR_MAX_GROUPS;
	if (!isfinite(sensitivity) || sensitivity < 0.0)
		return DP_ERR_NOISE_SCALE;

	plan->sensitivity = sensitivity;
	plan->epsilon = epsilon;
	plan->contributions = 1;
	plan->t = 0;
	plan->truncation = 0;
	plan->sigma = 0;
	if (sensitivity == 0.0)
	{
		plan->grid_exp = 0;
		plan->units_per_value = 1.0;
		return DP_OK;			/* exact: nothing depends on the data */
	}
	if (sensitivity < ldexp(1.0, -DP_SCALE_LOG2_MAX) ||
		sensitivity > ldexp(1.0, DP_SCALE_LOG2_MAX))
		return DP_ERR_NOISE_SCALE;

	status = gaussian_sigma_one(epsilon, delta, &sigma_one);
	if (status != DP_OK)
		return status;
	spread = sqrt((double) max_groups);
	/* about 2^22 grid steps per sigma */
	plan->grid_exp = ceil_log2(sigma_one * spread * sensitivity) - DP_GAUSSIAN_SIGMA_UNITS_LOG2;
	plan->units_per_value = ldexp(1.0, -plan->grid_exp);
	units = ldexp(sensitivity, -plan->grid_exp) + 1.0;
	sigma_units = ceil(sigma_one * spread * units * (1.0 + 0x1p-40)) + 1.0;
	if (!(sigma_units <= (double) DP_GAUSSIAN_SIGMA_MAX))
		return DP_ERR_SIGMA;
	/* the discrete-noise slack ||v||_1 / s^2 fits in the epsilon left aside */
	if (!((double) max_groups * units / (sigma_units * sigma_units) <=
		  epsilon - epsilon_calibrated))
		return DP_ERR_SIGMA;
	plan->sigma = (uint64_t) sigma_units;
	return DP_OK;
}

double
dp_gaussian_plan_sigma(const dp_noise_plan *plan)
{
	return ldexp((double) plan->sigma, plan->grid_exp);
}

dp_status
dp_laplace_counts(dp_rng *rng, const uint64_t *counts, int n, double epsilon,
				  uint32_t contributions, double *noisy, double *scale)
{
	dp_noise_plan plan;
	dp_status	status;
	int			i;

	if (contributions < 1)
		return DP_ERR_CONTRIBUTIONS;
	status = dp_laplace_plan_make(1.0, epsilon, contributions, &plan);
	if (status != DP_OK)
		return status;
	for (i = 0; i < n; i++)
	{
		int64_t		count = counts[i] > (uint64_t) INT64_MAX ? INT64_MAX : (int64_t) counts[i];

		noisy[i] = dp_units_to_double(&plan,
									  dp_noisy_units(rng, &plan, dp_units_from_int64(&plan, count)));
	}
	*scale = dp_laplace_plan_scale(&plan);
	return DP_OK;
}
