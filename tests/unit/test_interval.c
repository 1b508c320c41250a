/*
 * test_interval.c -- half-widths of noise plans and the mean's interval
 * (src/dp/dp_interval.c): exact tail probabilities where the distribution
 * has a closed form, sampled coverage where it has not.
 */
#include <math.h>

#include "test_harness.h"
#include "dp/dp_interval.h"

/* P(|Z| > k) for the discrete Laplace of scale t: 2 e^(-(k+1)/t) / (1 + e^(-1/t)) */
static long double
discrete_laplace_tail(uint64_t t, uint64_t k)
{
	long double tl = (long double) t;

	return 2.0L * expl(-((long double) k + 1.0L) / tl) / (1.0L + expl(-1.0L / tl));
}

void
test_interval_laplace(void)
{
	const double sens[] = {1.0, 7.5, 1e6, 3e-4};
	const double eps[] = {0.01, 0.5, 1.0, 8.0};
	size_t		i,
				j;

	for (i = 0; i < sizeof(sens) / sizeof(sens[0]); i++)
		for (j = 0; j < sizeof(eps) / sizeof(eps[0]); j++)
		{
			dp_noise_plan plan;
			uint64_t	k;
			long double tail;
			double		b;
			double		h;

			REQUIRE(dp_laplace_plan_make(sens[i], eps[j], 1, &plan) == DP_OK, "plan refused");
			k = dp_interval_units(&plan, 0.05);
			tail = discrete_laplace_tail(plan.t, k);
			CHECK(tail <= 0.05L, "sens %g eps %g: P(|Z| > k) = %Lg above 5 %%", sens[i], eps[j], tail);
			/* not wastefully wide: one unit less than k - 2 would miss 5 % */
			CHECK(discrete_laplace_tail(plan.t, k - 3) > 0.05L * (1.0L - 1e-9L),
				  "sens %g eps %g: the half-width is wider than needed", sens[i], eps[j]);
			b = dp_laplace_plan_scale(&plan);
			h = dp_interval_half_width(&plan, 0.05);
			CHECK(h >= b * log(20.0) && h <= b * log(20.0) * (1.0 + 1e-9),
				  "sens %g eps %g: h %.17g against b ln 20 = %.17g", sens[i], eps[j], h,
				  b * log(20.0));
			/* b is at least the required sensitivity / epsilon */
			CHECK(h >= sens[i] / eps[j] * log(20.0), "h below the required scale");
		}
}

void
test_interval_gaussian(void)
{
	dp_noise_plan plan;
	uint64_t	k;
	double		z;

	REQUIRE(dp_gaussian_plan_make(10.0, 1.0, 1e-6, 4, &plan) == DP_OK, "plan refused");
	REQUIRE(plan.sigma > 0, "not a Gaussian plan");
	k = dp_interval_units(&plan, 0.05);
	z = (double) k / (double) plan.sigma;
	CHECK(z >= 1.959963984540054 && z <= 1.959963984540054 + 3.0 / (double) plan.sigma,
		  "k / sigma = %.12f, not the 97.5 %% normal quantile", z);
	CHECK(fabs(dp_interval_half_width(&plan, 0.05) / dp_gaussian_plan_sigma(&plan) - z) < 1e-12,
		  "half-width in value units differs from k r");
	/* 2 P(X >= k - 1) <= 5 % with X ~ N(0, sigma^2) covers the discrete sampler */
	CHECK(erfc(((double) k - 1.0) / (double) plan.sigma / sqrt(2.0)) <= 0.05,
		  "the dominance bound does not hold at k");
}

void
test_interval_truncated_exact(void)
{
	dp_noise_plan plan;
	dp_selection sel;

	REQUIRE(dp_laplace_plan_make(0.0, 1.0, 1, &plan) == DP_OK, "zero sensitivity refused");
	CHECK(dp_interval_units(&plan, 0.05) == 0 && dp_interval_half_width(&plan, 0.05) == 0.0,
		  "an exact plan has a half-width");
	REQUIRE(dp_selection_make(DP_SELECT_OPTIMAL, 0.1, 1e-5, 1, true, &sel) == DP_OK,
			"truncated selection refused");
	REQUIRE(sel.count_plan.truncation > 0, "not truncated");
	CHECK(dp_interval_units(&sel.count_plan, 0.05) <= sel.count_plan.truncation,
		  "half-width beyond the truncation");
	CHECK(dp_interval_units(&sel.count_plan, 1e-300) == sel.count_plan.truncation,
		  "a tiny alpha is not capped at the truncation");
}

/* the fraction of draws of a plan's noise within its half-width */
static double
sampled_coverage(dp_rng *rng, const dp_noise_plan *plan, int draws)
{
	dp_i128		k = (dp_i128) dp_interval_units(plan, 0.05);
	int			inside = 0;
	int			i;

	for (i = 0; i < draws; i++)
	{
		dp_i128		z = dp_noisy_units(rng, plan, 0);

		inside += z <= k && z >= -k;
	}
	return (double) inside / draws;
}

void
test_interval_coverage(void)
{
	test_rng	r;
	dp_noise_plan laplace;
	dp_noise_plan gauss;
	const int	draws = 200000;
	double		se = sqrt(0.05 * 0.95 / draws);
	double		c;

	test_rng_stream(&r, 1);
	REQUIRE(dp_laplace_plan_make(3.0, 0.7, 2, &laplace) == DP_OK, "plan refused");
	REQUIRE(dp_gaussian_plan_make(3.0, 0.7, 1e-5, 3, &gauss) == DP_OK, "plan refused");
	c = sampled_coverage(RNG(&r), &laplace, draws);
	t_note("Laplace coverage %.5f", c);
	CHECK(fabs(c - 0.95) < 5 * se, "Laplace: %.5f of draws within the half-width", c);
	c = sampled_coverage(RNG(&r), &gauss, draws);
	t_note("Gaussian coverage %.5f", c);
	CHECK(fabs(c - 0.95) < 5 * se, "Gaussian: %.5f of draws within the half-width", c);
}

void
test_interval_ratio(void)
{
	double		lo,
				hi;

	/* count 100 +- 10, centred sum 50 +- 20, bounds [0, 10]: S/C in [30/110, 70/90] */
	dp_interval_ratio(50.0, 20.0, 100.0, 10.0, 0.0, 10.0, 5.0, &lo, &hi);
	CHECK(fabs(lo - (5.0 + 30.0 / 110.0)) < 1e-12 && fabs(hi - (5.0 + 70.0 / 90.0)) < 1e-12,
		  "interval [%g, %g]", lo, hi);
	/* a negative sum: the extremes swap corners */
	dp_interval_ratio(-50.0, 20.0, 100.0, 10.0, 0.0, 10.0, 5.0, &lo, &hi);
	CHECK(fabs(lo - (5.0 - 70.0 / 90.0)) < 1e-12 && fabs(hi - (5.0 - 30.0 / 110.0)) < 1e-12,
		  "interval [%g, %g]", lo, hi);
	/* the count may be below 1: the whole range */
	dp_interval_ratio(3.0, 2.0, 0.5, 0.4, 0.0, 10.0, 5.0, &lo, &hi);
	CHECK(lo == 0.0 && hi == 10.0, "no count: [%g, %g]", lo, hi);
	/* a count of at least 1 within reach: bounded by [-w, w] around the midpoint */
	dp_interval_ratio(3.0, 2.0, 0.5, 4.0, 0.0, 10.0, 5.0, &lo, &hi);
	CHECK(lo <= 5.0 + 1.0 / 4.5 && lo >= 5.0 + 1.0 / 4.5 - 1e-12, "lower end %g", lo);
	CHECK(hi <= 10.0 && hi >= 10.0 - 1e-12, "upper end %g, not capped at the bound", hi);
}

void
test_interval_mean_coverage(void)
{
	test_rng	r;
	const int	runs = 20000;
	const int	n = 40;
	int			covered = 0;
	int			inside = 0;
	int			i;
	double		truth = 0.0;
	double		se = sqrt(0.05 * 0.95 / runs);
	dp_mean		m;

	test_rng_stream(&r, 2);
	REQUIRE(dp_mean_init(&m, 0.0, 10.0, 1.0, 1) == DP_OK, "mean refused");
	for (i = 0; i < n; i++)
	{
		double		x = (double) (i % 7) + 0.25;

		dp_mean_add(&m, x);
		truth += x;
	}
	truth /= n;
	for (i = 0; i < runs; i++)
	{
		double		lo,
					hi;
		double		mean = dp_mean_release_interval(RNG(&r), &m, 0.05, &lo, &hi);

		covered += lo <= truth && truth <= hi;
		inside += lo <= mean && mean <= hi && lo >= 0.0 && hi <= 10.0;
	}
	t_note("mean coverage %.5f", (double) covered / runs);
	CHECK(inside == runs, "%d of %d means outside their interval or the bounds", runs - inside, runs);
	/* conservative (a union bound): at least 95 % */
	CHECK((double) covered / runs >= 0.95 - 4 * se, "coverage %.5f", (double) covered / runs);
}

void
test_interval_users_for(void)
{
	dp_selection sel;
	const dp_selection_mechanism mech[] = {DP_SELECT_LAPLACE, DP_SELECT_OPTIMAL, DP_SELECT_GAUSSIAN};
	size_t		i;

	for (i = 0; i < 3; i++)
	{
		double		half,
					high;

		REQUIRE(dp_selection_make(mech[i], 0.5, 1e-5, 2, false, &sel) == DP_OK, "refused");
		half = dp_selection_users_for_half(&sel);
		high = dp_selection_users_for(&sel, 0.95);
		CHECK(high > half && isfinite(high), "%s: 95 %% at %g, 50 %% at %g",
			  dp_selection_name(mech[i]), high, half);
		if (mech[i] == DP_SELECT_OPTIMAL)
			CHECK(dp_selection_keep_probability(&sel, (uint64_t) high) >= 0.95L &&
				  dp_selection_keep_probability(&sel, (uint64_t) high - 1) < 0.95L,
				  "optimal: not the smallest n kept at 95 %%");
		else
		{
			/* P(n units + Z >= tau) at n = high, by sampling */
			test_rng	r;
			int			kept = 0;
			int			j;

			test_rng_stream(&r, 10 + i);
			for (j = 0; j < 20000; j++)
				kept += dp_selection_release(RNG(&r), &sel, (dp_i128) high * sel.units_one, NULL);
			CHECK(kept >= 0.95 * 20000 - 4 * sqrt(20000 * 0.05 * 0.95),
				  "%s: kept %d of 20000 at n = %g", dp_selection_name(mech[i]), kept, high);
		}
	}
}
