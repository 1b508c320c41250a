/*
 * test_noise.c -- grid Laplace and Gaussian mechanisms (dp_noise.h).
 *
 * What is checked: the Laplace plan (scale >= k*sensitivity/epsilon, at most
 * 1e-5 relative above it plus the grid-rounding term, grid rounding covered,
 * error statuses), the
 * empirical noise of dp_laplace_real and dp_gaussian_real at scales 1e-3 ..
 * 1e9 (variance, median of |noise|, outputs exactly on the grid), the
 * Gaussian sigma formula, and the unit conversions with round half away from
 * zero.
 *
 * Tolerances: 100000 draws per scale; variance within 5 standard errors
 * (estimated from the sample's fourth moment: about 0.7% relative for
 * Laplace, 0.45% for Gaussian), median of |noise| within 5 standard errors
 * (SE = b / sqrt(n) for an exponential with scale b).  A mechanism with half
 * the scale (a quarter of the variance) is > 20 standard errors away, which
 * each test also asserts as a positive control.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "test_harness.h"
#include "dp/dp_aggregate.h"
#include "dp/dp_noise.h"
#include "dp/dp_sampler.h"

#define LN2 0.69314718055994530942

/* the exact Laplace scale t * r of a plan, in long double (t may exceed 2^53) */
static long double
exact_scale(const dp_noise_plan *plan)
{
	return ldexpl((long double) plan->t, plan->grid_exp);
}

void
test_laplace_plan_scale(void)
{
	const double sens[] = {1e-250, 1e-3, 0.1, 1.0, 3.0, 1000.0, 1e9, 1e250};
	const double eps[] = {1e-12, 1e-9, 1e-6, 1e-3, 0.1, 0.5, 1.0, 3.0, 1000.0, 1048576.0};
	const uint32_t ks[] = {1, 3, 1000};
	long double min_b = INFINITY;
	long double max_b = 0.0L;
	double		worst_excess = 0.0;
	int			plans = 0;
	size_t		i,
				j,
				c;

	for (i = 0; i < sizeof(sens) / sizeof(sens[0]); i++)
		for (j = 0; j < sizeof(eps) / sizeof(eps[0]); j++)
			for (c = 0; c < sizeof(ks) / sizeof(ks[0]); c++)
			{
				dp_noise_plan plan;
				dp_status	st = dp_laplace_plan_make(sens[i], eps[j], ks[c], &plan);
				long double b = (long double) ks[c] * sens[i] / eps[j];
				long double r;
				long double scale;

				if (eps[j] / ks[c] < 1e-12)
				{
					CHECK(st == DP_ERR_EPSILON,
						  "plan(%g, %g, %u): epsilon per contribution below 1e-12 gave status %d",
						  sens[i], eps[j], ks[c], (int) st);
					continue;
				}
				if (st != DP_OK)
				{
					CHECK(false, "plan(%g, %g, %u) failed: %s", sens[i], eps[j], ks[c],
						  dp_status_text(st));
					continue;
				}
				plans++;
				r = ldexpl(1.0L, plan.grid_exp);
				scale = exact_scale(&plan);
				if (b < min_b)
					min_b = b;
				if (b > max_b)
					max_b = b;
				CHECK(plan.t > 0, "plan(%g, %g, %u): t = 0", sens[i], eps[j], ks[c]);
				CHECK(scale >= b, "plan(%g, %g, %u): scale %.17Lg below k*sens/eps = %.17Lg",
					  sens[i], eps[j], ks[c], scale, b);
				/*
				 * at most 1e-5 above b plus the grid-rounding term k r / eps
				 * and two grid steps.  k r / eps = b r / sens is below 2^-19 b
				 * when eps / k >= 2^-22 (2^21 or more units per sensitivity),
				 * and reaches 2^-9 b (0.2%) at the grid floor of 2^10 units.
				 */
				CHECK(scale <= (1.0L + 1e-5L) * b + ks[c] * r / eps[j] + 2.0L * r,
					  "plan(%g, %g, %u): scale %.17Lg more than 1e-5 above %.17Lg + k r / eps",
					  sens[i], eps[j], ks[c], scale, b);
				CHECK(scale <= (1.0L + 0x1p-9L) * b + 2.0L * r,
					  "plan(%g, %g, %u): scale %.17Lg more than 2^-9 above %.17Lg",
					  sens[i], eps[j], ks[c], scale, b);
				if (eps[j] / ks[c] >= 0x1p-22)
					CHECK(scale <= (1.0L + 1e-5L) * b,
						  "plan(%g, %g, %u): scale %.17Lg more than 1e-5 above %.17Lg",
						  sens[i], eps[j], ks[c], scale, b);
				/* the grid is fine (> 2^9 steps per sensitivity) and sums fit */
				CHECK(sens[i] / r > 0x1p9L && sens[i] / r <= 0x1p60L,
					  "plan(%g, %g, %u): sensitivity spans %.6Lg grid units",
					  sens[i], eps[j], ks[c], sens[i] / r);
				CHECK(plan.units_per_value == ldexp(1.0, -plan.grid_exp),
					  "plan(%g, %g, %u): units_per_value is not 2^-grid_exp",
					  sens[i], eps[j], ks[c]);
				CHECK(fabsl((long double) dp_laplace_plan_scale(&plan) - scale) <= scale * 1e-15L,
					  "dp_laplace_plan_scale differs from t * r");
				if ((double) (scale / b - 1.0L) > worst_excess)
					worst_excess = (double) (scale / b - 1.0L);
			}
	t_note("%d plans, b from %.3Lg to %.3Lg, worst relative excess %.3g",
		   plans, min_b, max_b, worst_excess);
	CHECK(min_b <= 1e-3L && max_b >= 1e9L, "scales 1e-3 .. 1e9 not covered");

	/* zero sensitivity: exact release */
	{
		dp_noise_plan plan;
		test_rng	r;

		test_rng_stream(&r, 1);
		REQUIRE(dp_laplace_plan_make(0.0, 1.0, 1, &plan) == DP_OK, "zero sensitivity rejected");
		CHECK(plan.t == 0, "zero sensitivity: t = %llu, expected 0", (unsigned long long) plan.t);
		CHECK(dp_laplace_real(RNG(&r), &plan, 12.375) == 12.375,
			  "zero sensitivity: dp_laplace_real changed the value");
		CHECK(dp_noisy_units(RNG(&r), &plan, 77) == 77,
			  "zero sensitivity: dp_noisy_units changed the units");
	}
}

/*
 * dp_noise.h: t = ceil(k (sensitivity / r + 1) / epsilon) + 1, where "the
 * outer + 1 covers the rounding of the double-precision division".  Checked
 * exactly (long double) over the same grid of plans as above: the plan's t
 * must be at least k (sensitivity / r + 1) / epsilon.  When t exceeds 2^53
 * one unit would no longer cover the rounding of t_real; the grid floor of
 * 2^10 units per sensitivity keeps t below 2^51.
 */
void
test_laplace_plan_rounding_cover(void)
{
	const double sens[] = {1e-250, 1e-3, 0.1, 1.0, 3.0, 1000.0, 1e9, 1e250};
	const double eps[] = {1e-12, 1e-9, 1e-6, 1e-3, 0.1, 0.5, 1.0, 3.0, 1000.0, 1048576.0};
	const uint32_t ks[] = {1, 3, 1000};
	int			short_plans = 0;
	long double worst = 0.0L;
	size_t		i,
				j,
				c;

	for (i = 0; i < sizeof(sens) / sizeof(sens[0]); i++)
		for (j = 0; j < sizeof(eps) / sizeof(eps[0]); j++)
			for (c = 0; c < sizeof(ks) / sizeof(ks[0]); c++)
			{
				dp_noise_plan plan;
				long double t_needed;

				if (eps[j] / ks[c] < 1e-12 ||
					dp_laplace_plan_make(sens[i], eps[j], ks[c], &plan) != DP_OK)
					continue;
				/* one contribution moves by at most sens/r + 1 grid units */
				t_needed = (long double) ks[c] *
					(ldexpl((long double) sens[i], -plan.grid_exp) + 1.0L) / eps[j];
				if ((long double) plan.t < t_needed)
				{
					short_plans++;
					if (t_needed - plan.t > worst)
						worst = t_needed - plan.t;
				}
				CHECK((long double) plan.t >= t_needed,
					  "plan(sens %g, eps %g, k %u): t = %llu < k (sens/r + 1) / eps = %.3Lf "
					  "(short by %.1Lf units)",
					  sens[i], eps[j], ks[c], (unsigned long long) plan.t, t_needed,
					  t_needed - (long double) plan.t);
			}
	t_note("%d plans short of k (sens/r + 1) / eps, worst by %.1Lf units", short_plans, worst);
}

void
test_laplace_plan_errors(void)
{
	const double bad_eps[] = {0.0, -0.0, -1.0, NAN, INFINITY, -INFINITY,
		2097152.0, 1048576.0 * (1.0 + 0x1p-52), 1e-13, 9.99e-13};
	dp_noise_plan plan;
	size_t		i;

	for (i = 0; i < sizeof(bad_eps) / sizeof(bad_eps[0]); i++)
		CHECK(dp_laplace_plan_make(1.0, bad_eps[i], 1, &plan) == DP_ERR_EPSILON,
			  "epsilon %g accepted", bad_eps[i]);
	CHECK(dp_laplace_plan_make(1.0, 1e-12, 1, &plan) == DP_OK, "epsilon 1e-12 rejected");
	CHECK(dp_laplace_plan_make(1.0, DP_EPSILON_MAX, 1, &plan) == DP_OK, "epsilon 2^20 rejected");
	/* epsilon per contribution below 1e-12 */
	CHECK(dp_laplace_plan_make(1.0, 1e-10, 1000, &plan) == DP_ERR_EPSILON,
		  "epsilon / k = 1e-13 accepted");
	CHECK(dp_laplace_plan_make(1.0, 1.0, 0, &plan) == DP_ERR_CONTRIBUTIONS,
		  "contributions 0 accepted");
	CHECK(dp_laplace_plan_make(NAN, 1.0, 1, &plan) == DP_ERR_NOISE_SCALE, "NaN sensitivity accepted");
	CHECK(dp_laplace_plan_make(-1.0, 1.0, 1, &plan) == DP_ERR_NOISE_SCALE, "negative sensitivity accepted");
	CHECK(dp_laplace_plan_make(INFINITY, 1.0, 1, &plan) == DP_ERR_NOISE_SCALE,
		  "infinite sensitivity accepted");
	CHECK(dp_laplace_plan_make(1e-300, 1.0, 1, &plan) == DP_ERR_NOISE_SCALE,
		  "sensitivity 1e-300 (< 2^-900) accepted");
	CHECK(dp_laplace_plan_make(1e300, 1.0, 1, &plan) == DP_ERR_NOISE_SCALE,
		  "sensitivity 1e300 (> 2^900) accepted");
	CHECK(strlen(dp_status_text(DP_ERR_EPSILON)) > 0, "empty status text");
}

/* ---- empirical Laplace noise ---- */

static const struct
{
	double		sens;
	double		eps;
	uint32_t	k;
}			laplace_cases[] = {
	{1e-3, 1.0, 1},				/* b = 1e-3 */
	{1.0, 1.0, 1},				/* b = 1 */
	{3.0, 0.5, 3},				/* b = 18 */
	{1000.0, 1.0, 1},			/* b = 1e3 */
	{1e9, 1.0, 1},				/* b = 1e9 */
	{1.0, 1e-9, 1}				/* b = 1e9 with the grid clamped at 2^20 units */
};

void
test_laplace_real_variance(void)
{
	const size_t n = 100000;
	double	   *noise = malloc(n * sizeof(double));
	test_rng	r;
	size_t		c;

	test_rng_stream(&r, 1);
	for (c = 0; c < sizeof(laplace_cases) / sizeof(laplace_cases[0]); c++)
	{
		dp_noise_plan plan;
		double		b;
		double		x;
		double		x_rounded;
		double		median;
		sample_stats st;
		size_t		i;
		char		what[96];

		REQUIRE(dp_laplace_plan_make(laplace_cases[c].sens, laplace_cases[c].eps,
									 laplace_cases[c].k, &plan) == DP_OK, "plan failed");
		b = dp_laplace_plan_scale(&plan);
		x = 0.3719 * b;
		x_rounded = dp_units_to_double(&plan, dp_units_from_double(&plan, x));
		for (i = 0; i < n; i++)
			noise[i] = dp_laplace_real(RNG(&r), &plan, x) - x_rounded;
		st = stats_of(noise, n);
		snprintf(what, sizeof(what), "laplace_real(b = %g) mean", b);
		CHECK_SIGMA(st.mean, 0.0, sqrt(2.0 / n) * b, TEST_NSIG, what);
		snprintf(what, sizeof(what), "laplace_real(b = %g) variance", b);
		CHECK_SIGMA(st.var, 2.0 * b * b, st.se_var, TEST_NSIG, what);
		/* positive control: half the scale means a quarter of the variance */
		CHECK(fabs(st.var - 2.0 * (b / 2) * (b / 2)) > 20.0 * st.se_var,
			  "control: variance %.6g not distinguishable from half scale", st.var);
		for (i = 0; i < n; i++)
			noise[i] = fabs(noise[i]);
		median = median_of(noise, n);
		snprintf(what, sizeof(what), "laplace_real(b = %g) median |noise|", b);
		CHECK_SIGMA(median, b * LN2, b / sqrt((double) n), TEST_NSIG, what);
		t_note("b=%.6g (t=%llu, r=2^%d): var/2b^2=%.5f (se %.4f) median/(b ln2)=%.5f",
			   b, (unsigned long long) plan.t, plan.grid_exp, st.var / (2 * b * b),
			   st.se_var / (2 * b * b), median / (b * LN2));
	}
	free(noise);
}

void
test_laplace_real_grid(void)
{
	const double xs[] = {0.0, 0.3719, -0.3719, 5.5, -1234.5678, 1e-7};
	test_rng	r;
	size_t		c,
				j;
	int			i;

	test_rng_stream(&r, 1);
	for (c = 0; c < sizeof(laplace_cases) / sizeof(laplace_cases[0]); c++)
	{
		dp_noise_plan plan;
		double		b;

		REQUIRE(dp_laplace_plan_make(laplace_cases[c].sens, laplace_cases[c].eps,
									 laplace_cases[c].k, &plan) == DP_OK, "plan failed");
		b = dp_laplace_plan_scale(&plan);
		for (j = 0; j < sizeof(xs) / sizeof(xs[0]); j++)
		{
			double		x = xs[j] * b;
			dp_i128		units = dp_units_from_double(&plan, x);
			double		x_rounded = dp_units_to_double(&plan, units);

			/* the rounded input is within half a grid step */
			CHECK(fabs(x_rounded - x) <= ldexp(0.5, plan.grid_exp) * (1 + 1e-12),
				  "b=%g x=%g: rounding moved x by %g (r = 2^%d)", b, x, x_rounded - x,
				  plan.grid_exp);
			for (i = 0; i < 200; i++)
			{
				double		out = dp_laplace_real(RNG(&r), &plan, x);
				double		q = ldexp(out, -plan.grid_exp);	/* exact */
				double		z = ldexp(out - x_rounded, -plan.grid_exp);

				CHECK(isfinite(out), "non-finite release");
				CHECK(q == floor(q), "b=%g x=%g: output %.17g is not on the grid 2^%d", b, x, out,
					  plan.grid_exp);
				/* below 2^53 steps the output is exact: x_rounded + z r */
				if (fabs(q) < 0x1p53)
					CHECK(z == floor(z),
						  "b=%g x=%g: out - x_rounded is not a whole number of steps", b, x);
				if (t_failed())
					return;
			}
		}
	}

	/* huge input (beyond 2^122 grid steps): noise far below one ulp */
	{
		dp_noise_plan plan;

		REQUIRE(dp_laplace_plan_make(1.0, 1.0, 1, &plan) == DP_OK, "plan failed");
		for (i = 0; i < 100; i++)
		{
			double		out = dp_laplace_real(RNG(&r), &plan, 1e300);

			CHECK(out == 1e300, "dp_laplace_real(1e300) = %.17g", out);
		}
	}
}


/* ---- unit conversions ---- */

#define I128_EQ(got, want, ...) \
	CHECK((dp_i128) (got) == (dp_i128) (want), __VA_ARGS__)

void
test_units_conversion(void)
{
	dp_noise_plan fine;		/* grid 2^-40 */
	dp_noise_plan coarse;		/* grid 2^10 */
	dp_sum		sum;
	const int64_t values[] = {0, 1, -1, 7, -7, 123456789, -987654321, INT32_MAX, INT32_MIN,
		(int64_t) 1 << 23, -((int64_t) 1 << 23)};
	const dp_i128 half = (dp_i128) 1 << 39;	/* 0.5 on the fine grid */
	size_t		i;

	REQUIRE(dp_laplace_plan_make(1.0, 1.0, 1, &fine) == DP_OK, "plan failed");
	REQUIRE(fine.grid_exp == -40, "expected grid 2^-40 for (1, 1, 1), got 2^%d", fine.grid_exp);
	REQUIRE(dp_laplace_plan_make(0x1p50, 1.0, 1, &coarse) == DP_OK, "plan failed");
	REQUIRE(coarse.grid_exp == 10, "expected grid 2^10 for (2^50, 1, 1), got 2^%d",
			coarse.grid_exp);

	/* fine grid: exact scaling and round trips */
	for (i = 0; i < sizeof(values) / sizeof(values[0]); i++)
	{
		int64_t		x = values[i];
		dp_i128		u = dp_units_from_int64(&fine, x);

		I128_EQ(u, (dp_i128) x * ((dp_i128) 1 << 40), "from_int64(%lld) on 2^-40", (long long) x);
		I128_EQ(dp_units_to_integer(&fine, u), x, "to_integer round trip of %lld", (long long) x);
		CHECK(dp_units_to_double(&fine, u) == (double) x, "to_double round trip of %lld",
			  (long long) x);
		I128_EQ(dp_units_from_double(&fine, (double) x), u, "from_double(%lld) != from_int64",
				(long long) x);
	}

	/* fine grid: to_integer rounds half away from zero */
	I128_EQ(dp_units_to_integer(&fine, half), 1, "to_integer(0.5) != 1");
	I128_EQ(dp_units_to_integer(&fine, -half), -1, "to_integer(-0.5) != -1");
	I128_EQ(dp_units_to_integer(&fine, half - 1), 0, "to_integer(0.5 - 2^-40) != 0");
	I128_EQ(dp_units_to_integer(&fine, -(half - 1)), 0, "to_integer(-0.5 + 2^-40) != 0");
	I128_EQ(dp_units_to_integer(&fine, 3 * half), 2, "to_integer(1.5) != 2");
	I128_EQ(dp_units_to_integer(&fine, -3 * half), -2, "to_integer(-1.5) != -2");
	I128_EQ(dp_units_to_integer(&fine, 5 * half), 3, "to_integer(2.5) != 3");
	I128_EQ(dp_units_to_integer(&fine, -5 * half), -3, "to_integer(-2.5) != -3");
	I128_EQ(dp_units_to_integer(&fine, 2 * half + 1), 1, "to_integer(1 + 2^-40) != 1");

	/* fine grid: from_double rounds half away from zero */
	I128_EQ(dp_units_from_double(&fine, ldexp(2.5, -40)), 3, "from_double(2.5 steps) != 3");
	I128_EQ(dp_units_from_double(&fine, ldexp(-2.5, -40)), -3, "from_double(-2.5 steps) != -3");
	I128_EQ(dp_units_from_double(&fine, ldexp(0.5, -40)), 1, "from_double(0.5 steps) != 1");
	I128_EQ(dp_units_from_double(&fine, ldexp(-0.5, -40)), -1, "from_double(-0.5 steps) != -1");
	I128_EQ(dp_units_from_double(&fine, ldexp(0.25, -40)), 0, "from_double(0.25 steps) != 0");
	I128_EQ(dp_units_from_double(&fine, ldexp(-1.75, -40)), -2, "from_double(-1.75 steps) != -2");

	/* coarse grid (r = 1024): from_int64 rounds half away from zero */
	I128_EQ(dp_units_from_int64(&coarse, 512), 1, "512/1024 must round to 1");
	I128_EQ(dp_units_from_int64(&coarse, -512), -1, "-512/1024 must round to -1");
	I128_EQ(dp_units_from_int64(&coarse, 511), 0, "511/1024 must round to 0");
	I128_EQ(dp_units_from_int64(&coarse, -511), 0, "-511/1024 must round to 0");
	I128_EQ(dp_units_from_int64(&coarse, 1535), 1, "1535/1024 must round to 1");
	I128_EQ(dp_units_from_int64(&coarse, 1536), 2, "1536/1024 must round to 2");
	I128_EQ(dp_units_from_int64(&coarse, -1536), -2, "-1536/1024 must round to -2");
	I128_EQ(dp_units_from_int64(&coarse, 2560), 3, "2560/1024 must round to 3");
	I128_EQ(dp_units_from_int64(&coarse, -2560), -3, "-2560/1024 must round to -3");
	I128_EQ(dp_units_from_int64(&coarse, INT64_MAX), (dp_i128) 1 << 53,
			"INT64_MAX/1024 must round to 2^53");
	I128_EQ(dp_units_from_int64(&coarse, INT64_MIN), -((dp_i128) 1 << 53),
			"INT64_MIN/1024 must be -2^53");
	for (i = 0; i < sizeof(values) / sizeof(values[0]); i++)
	{
		int64_t		x = values[i] * 1024;
		dp_i128		u = dp_units_from_int64(&coarse, x);

		I128_EQ(u, values[i], "from_int64(%lld) on 2^10", (long long) x);
		I128_EQ(dp_units_to_integer(&coarse, u), x, "coarse round trip of %lld", (long long) x);
		I128_EQ(dp_units_from_double(&coarse, (double) x), u, "coarse from_double(%lld)",
				(long long) x);
		/* from_double and from_int64 agree, ties included */
		I128_EQ(dp_units_from_double(&coarse, (double) (x + 512)),
				dp_units_from_int64(&coarse, x + 512), "tie %lld: from_double != from_int64",
				(long long) (x + 512));
		I128_EQ(dp_units_from_double(&coarse, (double) (x - 512)),
				dp_units_from_int64(&coarse, x - 512), "tie %lld: from_double != from_int64",
				(long long) (x - 512));
	}

	/* the grid of an integer sum round-trips every value within its bounds */
	REQUIRE(dp_sum_init_int(&sum, -1000000, 1000000, 1.0, 1) == DP_OK, "sum init failed");
	for (i = 0; i < sizeof(values) / sizeof(values[0]); i++)
	{
		int64_t		x = values[i] % 1000000;

		I128_EQ(dp_units_to_integer(&sum.plan, dp_units_from_int64(&sum.plan, x)), x,
				"integer sum grid round trip of %lld", (long long) x);
	}
}

/*
 * dp_units_from_double promises round half away from zero (dp_noise.h), but
 * computes (int128)(y + 0.5): the addition itself rounds.  For y just below
 * 0.5 the sum rounds up to 1.0, and for odd y in [2^52, 2^53) y + 0.5 is a
 * tie that rounds to even, i.e. to y + 1.
 */
void
test_units_from_double_round_half(void)
{
	dp_noise_plan fine;
	const double below_half = 0.49999999999999994;	/* 0.5 - 2^-54 */
	const double odd52 = 4503599627370497.0;	/* 2^52 + 1 */

	REQUIRE(dp_laplace_plan_make(1.0, 1.0, 1, &fine) == DP_OK, "plan failed");
	I128_EQ(dp_units_from_double(&fine, ldexp(below_half, fine.grid_exp)), 0,
			"from_double(0.5 - 2^-54 steps) returned %lld, expected 0",
			(long long) dp_units_from_double(&fine, ldexp(below_half, fine.grid_exp)));
	I128_EQ(dp_units_from_double(&fine, ldexp(-below_half, fine.grid_exp)), 0,
			"from_double(-(0.5 - 2^-54) steps) returned %lld, expected 0",
			(long long) dp_units_from_double(&fine, ldexp(-below_half, fine.grid_exp)));
	I128_EQ(dp_units_from_double(&fine, ldexp(odd52, fine.grid_exp)), 4503599627370497LL,
			"from_double(2^52 + 1 steps) returned %lld, expected 4503599627370497",
			(long long) dp_units_from_double(&fine, ldexp(odd52, fine.grid_exp)));
	I128_EQ(dp_units_from_double(&fine, ldexp(-odd52, fine.grid_exp)), -4503599627370497LL,
			"from_double(-(2^52 + 1) steps) returned %lld, expected -4503599627370497",
			(long long) dp_units_from_double(&fine, ldexp(-odd52, fine.grid_exp)));
}

/*
 * dp_units_from_int64 returns 0 for every x once the grid step is 2^64 or
 * more, but INT64_MIN / 2^64 = -0.5 exactly, which rounds half away from zero
 * to -1 (the comment "|x| < 2^63" misses x = -2^63).  Checked on grids 2^63
 * (exact), 2^64 (the tie) and 2^65 (0.25: rounds to 0).
 */
void
test_units_from_int64_extreme_grid(void)
{
	dp_noise_plan plan;

	REQUIRE(dp_laplace_plan_make(0x1p103, 1.0, 1, &plan) == DP_OK && plan.grid_exp == 63,
			"expected grid 2^63");
	I128_EQ(dp_units_from_int64(&plan, INT64_MIN), -1, "grid 2^63: INT64_MIN must be -1 unit");
	I128_EQ(dp_units_from_int64(&plan, INT64_MAX), 1, "grid 2^63: INT64_MAX must round to 1");
	REQUIRE(dp_laplace_plan_make(0x1p105, 1.0, 1, &plan) == DP_OK && plan.grid_exp == 65,
			"expected grid 2^65");
	I128_EQ(dp_units_from_int64(&plan, INT64_MIN), 0, "grid 2^65: INT64_MIN must round to 0");
	REQUIRE(dp_laplace_plan_make(0x1p104, 1.0, 1, &plan) == DP_OK && plan.grid_exp == 64,
			"expected grid 2^64");
	I128_EQ(dp_units_from_int64(&plan, INT64_MAX), 0, "grid 2^64: INT64_MAX must round to 0");
	I128_EQ(dp_units_from_int64(&plan, INT64_MIN), -1,
			"grid 2^64: INT64_MIN = -0.5 units returned %lld, expected -1 (round half away from zero)",
			(long long) dp_units_from_int64(&plan, INT64_MIN));
}
