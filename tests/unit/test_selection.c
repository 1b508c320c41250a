/*
 * test_selection.c -- Gaussian calibration, Gaussian noise on the grid and
 * partition selection (dp_gauss.h, dp_noise.h, dp_selection.h).
 *
 * Reference values were computed independently (Python, mpmath): the
 * analytic Gaussian sigma by bisection on Balle and Wang's Theorem 8, the
 * optimal keep probability by the recursion of Desfontaines et al., the
 * paper's tau by its closed form.  At epsilon 0.1, C_u 5, delta 1e-5:
 * Laplace tau 622.5, optimal pi(n) >= 1/2 from n = 427, Gaussian sigma
 * 72.64 and tau 346.3.
 */
#include <math.h>
#include <stdlib.h>

#include "test_harness.h"
#include "dp/dp_aggregate.h"
#include "dp/dp_gauss.h"
#include "dp/dp_noise.h"
#include "dp/dp_quantile.h"
#include "dp/dp_sampler.h"
#include "dp/dp_selection.h"

/* ---- analytic Gaussian ---- */

void
test_gaussian_analytic_sigma(void)
{
	const struct
	{
		double		epsilon;
		double		delta;
		double		sigma;		/* reference, L2 sensitivity 1 */
	}			cases[] = {
		{0.1, 5e-6, 32.48603525788968},
		{1.0, 1e-5, 3.730631634815942},
		{0.5, 1e-3, 4.61012795072814},
		{2.0, 1e-6, 2.2304762711864172},
		{0.01, 1e-10, 501.29213292600076},
	};
	size_t		c;
	double		sigma;

	for (c = 0; c < sizeof(cases) / sizeof(cases[0]); c++)
	{
		double		e = cases[c].epsilon;
		double		d = cases[c].delta;

		REQUIRE(dp_analytic_gaussian_sigma(e, d, &sigma) == DP_OK, "analytic sigma failed");
		CHECK(fabs(sigma - cases[c].sigma) <= 1e-9 * cases[c].sigma,
			  "analytic sigma(%g, %g) = %.15g, reference %.15g", e, d, sigma, cases[c].sigma);
		/* valid, and tight: a sigma 1e-9 smaller breaks the condition */
		CHECK(dp_analytic_gaussian_delta(e, sigma) <= d,
			  "delta(%g, sigma) = %.6Lg > %g", e, dp_analytic_gaussian_delta(e, sigma), d);
		CHECK(dp_analytic_gaussian_delta(e, sigma * (1.0 - 1e-9)) > d * (1.0 - 1e-7),
			  "sigma(%g, %g) is not the smallest: %.15g", e, d, sigma);
		/* the classic bound (epsilon < 1) is larger */
		if (e < 1.0)
			CHECK(sigma < sqrt(2.0 * log(1.25 / d)) / e, "analytic above classic at %g", e);
	}
	/* the brief's example: C_u = 5 partitions, L2 sensitivity sqrt(5), delta / 2 */
	REQUIRE(dp_analytic_gaussian_sigma(0.1, 5e-6, &sigma) == DP_OK, "sigma failed");
	CHECK(fabs(sigma * sqrt(5.0) - 72.641) < 0.001, "sigma for C_u 5 = %.6f, not 72.641",
		  sigma * sqrt(5.0));
	CHECK(dp_analytic_gaussian_sigma(0.0, 1e-5, &sigma) == DP_ERR_EPSILON, "epsilon 0 accepted");
	CHECK(dp_analytic_gaussian_sigma(NAN, 1e-5, &sigma) == DP_ERR_EPSILON, "epsilon NaN accepted");
	CHECK(dp_analytic_gaussian_sigma(1.0, 0.0, &sigma) == DP_ERR_DELTA, "delta 0 accepted");
	CHECK(dp_analytic_gaussian_sigma(1.0, 1.0, &sigma) == DP_ERR_DELTA, "delta 1 accepted");
	CHECK(fabsl(dp_normal_tail_inverse(0.025L) - 1.959963984540054L) < 1e-15L,
		  "normal tail inverse(0.025) = %.18Lg", dp_normal_tail_inverse(0.025L));
	CHECK(fabsl(dp_normal_tail(dp_normal_tail_inverse(1e-200L)) / 1e-200L - 1.0L) < 1e-15L,
		  "normal tail inverse far in the tail");
}

/*
 * The plan's argument (dp_noise.h): the discrete Gaussian of integer sigma
 * is stochastically below N(0, sigma^2) + 1, P(Z >= k) <= P(X >= k - 1),
 * computed here from the exact probabilities.  The control shows the "- 1"
 * is needed.
 */
void
test_discrete_gaussian_dominance(void)
{
	const int	sigmas[] = {1, 2, 5, 20};
	size_t		c;

	for (c = 0; c < sizeof(sigmas) / sizeof(sigmas[0]); c++)
	{
		int			s = sigmas[c];
		int			limit = 40 * s + 40;
		long double total = 0.0L;
		long double above = 0.0L;
		bool		control_broken = false;
		int			k;

		for (k = -limit; k <= limit; k++)
			total += expl(-(long double) k * k / (2.0L * s * s));
		for (k = limit; k >= -10 * s; k--)
		{
			long double p;

			above += expl(-(long double) k * k / (2.0L * s * s));
			p = above / total;	/* P(Z >= k) */
			CHECK(p <= dp_normal_tail((k - 1.0L) / s) * (1.0L + 1e-15L) + 1e-300L,
				  "sigma %d: P(Z >= %d) = %.10Lg above P(X >= %d) = %.10Lg", s, k, p, k - 1,
				  dp_normal_tail((k - 1.0L) / s));
			if (p > dp_normal_tail((long double) k / s) * (1.0L + 1e-12L))
				control_broken = true;
		}
		CHECK(control_broken, "control: P(Z >= k) <= P(X >= k) held everywhere (sigma %d)", s);
	}
}

void
test_gaussian_plan(void)
{
	const struct
	{
		double		sensitivity;
		double		epsilon;
		double		delta;
		int64_t		groups;
	}			cases[] = {
		{1.0, 0.1, 5e-6, 5},
		{100000.0, 0.5, 1e-6, 20},
		{0.25, 2.0, 1e-3, 1},
		{3.0, 1e-3, 1e-9, 1000},
	};
	size_t		c;
	dp_noise_plan plan;

	for (c = 0; c < sizeof(cases) / sizeof(cases[0]); c++)
	{
		double		sigma_one;
		double		r;
		double		need;

		REQUIRE(dp_gaussian_plan_make(cases[c].sensitivity, cases[c].epsilon, cases[c].delta,
									  cases[c].groups, &plan) == DP_OK, "gaussian plan failed");
		REQUIRE(dp_analytic_gaussian_sigma(cases[c].epsilon, cases[c].delta, &sigma_one) == DP_OK,
				"sigma failed");
		r = ldexp(1.0, plan.grid_exp);
		need = sigma_one * sqrt((double) cases[c].groups) * (cases[c].sensitivity + r);
		CHECK(dp_gaussian_plan_sigma(&plan) >= need,
			  "applied sigma %.17g below sqrt(C_u) (sensitivity + r) sigma_1 = %.17g",
			  dp_gaussian_plan_sigma(&plan), need);
		CHECK(dp_gaussian_plan_sigma(&plan) <= need * (1.0 + 1e-3),
			  "applied sigma %.17g far above %.17g", dp_gaussian_plan_sigma(&plan), need);
		CHECK(plan.sigma >= (UINT64_C(1) << 21) && plan.sigma <= DP_GAUSSIAN_SIGMA_MAX,
			  "sigma units %llu outside [2^21, 2^24]", (unsigned long long) plan.sigma);
		CHECK(plan.t == 0 && plan.truncation == 0, "a Gaussian plan with Laplace fields");
		/* the discrete slack fits in epsilon 2^-12 */
		CHECK((double) cases[c].groups * (cases[c].sensitivity / r + 1.0) /
			  ((double) plan.sigma * (double) plan.sigma) <= cases[c].epsilon * 0x1p-12,
			  "discrete slack above epsilon 2^-12");
	}
	CHECK(dp_gaussian_plan_make(1.0, 1e-9, 1e-5, 1, &plan) == DP_ERR_SIGMA,
		  "sigma beyond the sampler accepted");
	CHECK(dp_gaussian_plan_make(1.0, 0.0, 1e-5, 1, &plan) == DP_ERR_EPSILON, "epsilon 0 accepted");
	CHECK(dp_gaussian_plan_make(1.0, 1.0, 0.0, 1, &plan) == DP_ERR_DELTA, "delta 0 accepted");
	CHECK(dp_gaussian_plan_make(1.0, 1.0, 1e-5, 0, &plan) == DP_ERR_MAX_GROUPS, "C_u 0 accepted");
	CHECK(dp_gaussian_plan_make(NAN, 1.0, 1e-5, 1, &plan) == DP_ERR_NOISE_SCALE,
		  "sensitivity NaN accepted");
	REQUIRE(dp_gaussian_plan_make(0.0, 1.0, 1e-5, 1, &plan) == DP_OK, "zero sensitivity");
	CHECK(plan.sigma == 0 && plan.t == 0, "zero sensitivity is not exact");
}

void
test_gaussian_noise_variance(void)
{
	const double sensitivities[] = {1e-3, 1.0, 5e5};
	const size_t n = 100000;
	double	   *noise = malloc(n * sizeof(double));
	test_rng	r;
	size_t		c;

	test_rng_stream(&r, 1);
	for (c = 0; c < sizeof(sensitivities) / sizeof(sensitivities[0]); c++)
	{
		dp_noise_plan plan;
		double		sigma;
		double		x;
		double		x_rounded;
		sample_stats st;
		size_t		i;
		char		what[96];

		REQUIRE(dp_gaussian_plan_make(sensitivities[c], 0.5, 1e-6, 4, &plan) == DP_OK, "plan");
		sigma = dp_gaussian_plan_sigma(&plan);
		x = 0.3719 * sensitivities[c];
		x_rounded = ldexp(round(ldexp(x, -plan.grid_exp)), plan.grid_exp);
		for (i = 0; i < n; i++)
		{
			double		out = dp_laplace_real(RNG(&r), &plan, x);
			double		q = ldexp(out, -plan.grid_exp);

			CHECK(q == floor(q), "gaussian output %.17g off the grid 2^%d", out, plan.grid_exp);
			noise[i] = out - x_rounded;
		}
		st = stats_of(noise, n);
		snprintf(what, sizeof(what), "gaussian noise mean (sensitivity %g)", sensitivities[c]);
		CHECK_SIGMA(st.mean, 0.0, sigma / sqrt((double) n), TEST_NSIG, what);
		snprintf(what, sizeof(what), "gaussian noise variance (sensitivity %g)", sensitivities[c]);
		CHECK_SIGMA(st.var, sigma * sigma, st.se_var, TEST_NSIG, what);
		CHECK(fabs(st.var - sigma * sigma / 4.0) > 20.0 * st.se_var,
			  "control: variance not distinguishable from sigma/2");
	}
	free(noise);
}

void
test_sum_gaussian(void)
{
	dp_sum		s;
	dp_noise_plan expect;
	test_rng	r;
	const int	n = 20000;
	double	   *out = malloc(n * sizeof(double));
	sample_stats st;
	int			i;

	test_rng_stream(&r, 1);
	REQUIRE(dp_sum_init_real(&s, -2.0, 3.0, 0.25, 1) == DP_OK, "init");
	REQUIRE(dp_sum_use_gaussian(&s, 1e-5, 4) == DP_OK, "use gaussian");
	/* epsilon 0.25 per partition: C_u 4 partitions together spend 1 */
	REQUIRE(dp_gaussian_plan_make(3.0, 1.0, 1e-5, 4, &expect) == DP_OK, "plan");
	CHECK(s.plan.sigma == expect.sigma && s.plan.grid_exp == expect.grid_exp,
		  "sum's Gaussian plan differs from (max(|L|,|U|), C_u epsilon, delta, C_u)");
	for (i = 0; i < 7; i++)
		dp_sum_add_real(&s, 1.5);
	for (i = 0; i < n; i++)
		out[i] = dp_sum_release_real(RNG(&r), &s) - 10.5;
	st = stats_of(out, n);
	CHECK_SIGMA(st.var, pow(dp_gaussian_plan_sigma(&s.plan), 2), st.se_var, TEST_NSIG,
				"gaussian sum variance");
	CHECK_SIGMA(st.mean, 0.0, st.se_mean, TEST_NSIG, "gaussian sum mean");
	REQUIRE(dp_sum_init_real(&s, -2.0, 3.0, 0.25, 2) == DP_OK, "init k = 2");
	CHECK(dp_sum_use_gaussian(&s, 1e-5, 4) == DP_ERR_CONTRIBUTIONS, "k = 2 accepted");
	free(out);
}

/* ---- optimal partition selection ---- */

/*
 * Whether keep probabilities p(0..n_max) (p(0) = 0) are (epsilon, delta)-DP
 * between neighbours n and n + 1 in both directions.
 */
static bool
keep_probabilities_private(const long double *p, int n_max, long double eps,
						   long double delta, int *where)
{
	int			n;

	for (n = 0; n < n_max; n++)
	{
		long double a = p[n];
		long double b = p[n + 1];

		if (b > expl(eps) * a + delta || a > expl(eps) * b + delta ||
			(1.0L - a) > expl(eps) * (1.0L - b) + delta ||
			(1.0L - b) > expl(eps) * (1.0L - a) + delta)
		{
			*where = n;
			return false;
		}
	}
	return true;
}

/* the probability optimal_keep draws: pi rounded to 2^-126 towards dropping */
static long double
drawn_probability(const dp_selection *sel, uint64_t n)
{
	long double p = dp_selection_keep_probability(sel, n);

	if (n == 0 || p <= 0.0L)
		return 0.0L;
	if (p <= 0.5L)
		return floorl(p * 0x1p126L) / 0x1p126L;
	if (p >= 1.0L)
		return 1.0L;
	return 1.0L - ceill((1.0L - p) * 0x1p126L) / 0x1p126L;
}

void
test_optimal_selection(void)
{
	const struct
	{
		double		epsilon;	/* per partition */
		double		delta;
		int64_t		groups;
		int			half;		/* reference: first n with pi(n) >= 1/2 */
	}			cases[] = {
		{0.02, 1e-5, 5, 427},
		{0.05, 6.78e-7, 1, 211},
		{0.1, 6.78e-7, 1, 113},
		{1.0, 0.05, 1, 3},
	};
	size_t		c;

	for (c = 0; c < sizeof(cases) / sizeof(cases[0]); c++)
	{
		dp_selection sel;
		long double eps = cases[c].epsilon;
		long double dp = (long double) cases[c].delta / cases[c].groups;
		int			n_max;
		long double *p;
		long double exact = 0.0L;
		int			where = -1;
		int			n;
		double		half;

		REQUIRE(dp_selection_make(DP_SELECT_OPTIMAL, cases[c].epsilon, cases[c].delta,
								  cases[c].groups, false, &sel) == DP_OK, "optimal make");
		half = dp_selection_users_for_half(&sel);
		CHECK(fabs(half - cases[c].half) <= 1.0, "pi reaches 1/2 at n = %g, reference %d",
			  half, cases[c].half);
		n_max = (int) (4.0 * half) + 100;
		p = malloc(sizeof(long double) * (n_max + 2));
		for (n = 0; n <= n_max + 1; n++)
			p[n] = drawn_probability(&sel, (uint64_t) n);
		CHECK(keep_probabilities_private(p, n_max + 1, eps, dp, &where),
			  "drawn keep probabilities break (%g, %Lg)-DP between %d and %d",
			  cases[c].epsilon, dp, where, where + 1);
		/* close to the exact recursion (with the full epsilon and delta') */
		for (n = 1; n <= n_max; n++)
		{
			long double a = expl(eps) * exact + dp;
			long double b = 1.0L - expl(-eps) * (1.0L - exact - dp);

			exact = a < b ? a : b;
			if (exact > 1.0L)
				exact = 1.0L;
			CHECK(p[n] <= exact * (1.0L + 1e-12L) && p[n] >= exact - 1e-4L * (exact + dp),
				  "pi(%d) = %.12Lg, recursion %.12Lg", n, p[n], exact);
		}
		CHECK(p[n_max] == 1.0L, "pi does not reach 1 by n = %d", n_max);
		/* control: the same probabilities are not private at half the epsilon */
		CHECK(!keep_probabilities_private(p, n_max + 1, eps / 2.0L, dp, &where),
			  "control: keep probabilities private at epsilon / 2");
		free(p);
	}
}

void
test_optimal_sampling(void)
{
	dp_selection sel;
	test_rng	r;
	const long	trials = 200000;
	const uint64_t sizes[] = {1, 2, 3, 4, 6, 10};
	size_t		i;

	test_rng_stream(&r, 1);
	REQUIRE(dp_selection_make(DP_SELECT_OPTIMAL, 1.0, 0.05, 1, false, &sel) == DP_OK, "make");
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
	{
		double		p = (double) drawn_probability(&sel, sizes[i]);
		long		kept = 0;
		long		t;
		char		what[64];

		for (t = 0; t < trials; t++)
			kept += dp_selection_release(RNG(&r), &sel, (dp_i128) sizes[i], NULL);
		snprintf(what, sizeof(what), "keep frequency of a partition of %llu units",
				 (unsigned long long) sizes[i]);
		CHECK_SIGMA((double) kept / trials, p, sqrt(p * (1.0 - p) / trials) + 1e-12,
					TEST_NSIG, what);
	}
	CHECK(!dp_selection_release(RNG(&r), &sel, 0, NULL), "an empty partition kept");
	CHECK(dp_selection_make(DP_SELECT_OPTIMAL, 1e-10, 1e-5, 1, false, &sel) == DP_ERR_EPSILON,
		  "epsilon below 1e-9 accepted");
	CHECK(dp_selection_make(DP_SELECT_OPTIMAL, 1.0, 1e-26, 1, false, &sel) == DP_ERR_DELTA,
		  "delta / C_u below 1e-25 accepted");
}

/* ---- thresholds of the three mechanisms ---- */

void
test_selection_thresholds(void)
{
	dp_selection laplace;
	dp_selection optimal;
	dp_selection truncated;
	dp_selection gaussian;
	double		sigma;

	/* epsilon 0.1 over C_u = 5 partitions: 0.02 each */
	REQUIRE(dp_selection_make(DP_SELECT_LAPLACE, 0.02, 1e-5, 5, false, &laplace) == DP_OK, "l");
	REQUIRE(dp_selection_make(DP_SELECT_OPTIMAL, 0.02, 1e-5, 5, false, &optimal) == DP_OK, "o");
	REQUIRE(dp_selection_make(DP_SELECT_OPTIMAL, 0.02, 1e-5, 5, true, &truncated) == DP_OK, "t");
	REQUIRE(dp_selection_make(DP_SELECT_GAUSSIAN, 0.02, 1e-5, 5, false, &gaussian) == DP_OK, "g");
	CHECK(fabs(dp_selection_users_for_half(&laplace) - 622.5) < 0.5,
		  "Laplace tau %.4f, paper formula 622.46", dp_selection_users_for_half(&laplace));
	CHECK(fabs(dp_selection_users_for_half(&optimal) - 427.0) < 1.0,
		  "optimal half point %.4f, reference 427", dp_selection_users_for_half(&optimal));
	CHECK(fabs(dp_selection_users_for_half(&truncated) - 427.4) < 1.0,
		  "truncated count half point %.4f, reference 427.4",
		  dp_selection_users_for_half(&truncated));
	sigma = dp_gaussian_plan_sigma(&gaussian.count_plan);
	CHECK(sigma >= 72.641 && sigma < 72.641 * 1.001, "Gaussian selection sigma %.5f, reference 72.641 (+ 0.1 %% of margins)",
		  sigma);
	CHECK(fabs(dp_selection_users_for_half(&gaussian) - 346.3) < 0.3,
		  "Gaussian tau %.4f, reference 346.3", dp_selection_users_for_half(&gaussian));
	CHECK(dp_selection_users_for_half(&gaussian) < dp_selection_users_for_half(&optimal) &&
		  dp_selection_users_for_half(&optimal) < dp_selection_users_for_half(&laplace),
		  "at C_u 5 expected Gaussian < optimal < Laplace");
	{
		dp_selection_mechanism m;

		CHECK(dp_selection_parse("optimal", &m) && m == DP_SELECT_OPTIMAL, "parse optimal");
		CHECK(!dp_selection_parse("Optimal", &m), "parse is case-sensitive");
	}
}

/* exact delta of a truncated count for neighbours n, n + 1 (shift s units) */
static long double
truncated_hockey_stick(const dp_selection *sel)
{
	long double t = (long double) sel->count_plan.t;
	long double k = (long double) sel->count_plan.truncation;
	long double s = (long double) sel->units_one;
	long double a = expl(-1.0L / t);

	return expl(-(k - s + 1.0L) / t) * (1.0L - powl(a, s)) / (1.0L + a - 2.0L * powl(a, k + 1.0L));
}

void
test_truncated_selection(void)
{
	const struct
	{
		double		epsilon;
		double		delta;
		int64_t		groups;
	}			cases[] = {
		{0.1, 6.78e-7, 1},
		{0.02, 1e-5, 5},
		{1.0, 0.2, 1},
	};
	test_rng	r;
	size_t		c;

	test_rng_stream(&r, 1);
	for (c = 0; c < sizeof(cases) / sizeof(cases[0]); c++)
	{
		dp_selection sel;
		dp_selection tighter;
		long double bound = (long double) cases[c].delta / cases[c].groups;
		long		released = 0;
		int64_t		largest = 0;
		long		i;

		REQUIRE(dp_selection_make(DP_SELECT_OPTIMAL, cases[c].epsilon, cases[c].delta,
								  cases[c].groups, true, &sel) == DP_OK, "truncated make");
		CHECK(truncated_hockey_stick(&sel) <= bound,
			  "truncated count's delta %.6Lg above delta / C_u %.6Lg",
			  truncated_hockey_stick(&sel), bound);
		/* tight: 2^-30 of the truncation less would break it */
		tighter = sel;
		tighter.count_plan.truncation -= sel.count_plan.truncation >> 20;
		CHECK(truncated_hockey_stick(&tighter) > bound * (1.0L - 1e-4L),
			  "truncation not tight: %.6Lg", truncated_hockey_stick(&tighter));
		CHECK(sel.tau_units == sel.units_one + (dp_i128) sel.count_plan.truncation + 1,
			  "tau is not 1 + K + 1 unit");
		for (i = 0; i < 100000; i++)
		{
			dp_i128		noisy;

			released += dp_selection_release(RNG(&r), &sel, sel.units_one, &noisy);
			noisy -= sel.units_one;
			if (noisy < 0)
				noisy = -noisy;
			if ((int64_t) noisy > largest)
				largest = (int64_t) noisy;
		}
		CHECK(released == 0, "a partition of one unit released %ld times", released);
		CHECK((uint64_t) largest <= sel.count_plan.truncation, "noise beyond the truncation");
	}
}

void
test_gaussian_selection_bound(void)
{
	const struct
	{
		double		delta;
		int64_t		groups;
	}			cases[] = {
		{0.2, 1},
		{0.3, 3},
	};
	test_rng	r;
	const long	trials = 200000;
	size_t		c;

	test_rng_stream(&r, 1);
	for (c = 0; c < sizeof(cases) / sizeof(cases[0]); c++)
	{
		dp_selection sel;
		double		q = 1.0 - pow(1.0 - cases[c].delta / 2.0, 1.0 / cases[c].groups);
		long		released = 0;
		double		freq;
		long		i;

		REQUIRE(dp_selection_make(DP_SELECT_GAUSSIAN, 0.5, cases[c].delta, cases[c].groups,
								  true, &sel) == DP_OK, "gaussian make");
		for (i = 0; i < trials; i++)
			released += dp_selection_release(RNG(&r), &sel, sel.units_one, NULL);
		freq = (double) released / trials;
		CHECK(freq <= q + TEST_NSIG * sqrt(q * (1.0 - q) / trials),
			  "one-unit partition kept with frequency %.5f > q = %.5f", freq, q);
		CHECK(freq >= q * 0.8, "frequency %.5f far below q = %.5f: tau too conservative", freq, q);
	}
}

/* ---- the mean whose count selects ---- */

void
test_mean_select(void)
{
	dp_mean		m;
	dp_selection sel;
	test_rng	r;
	int			i;
	int			kept = 0;
	double		mean;

	test_rng_stream(&r, 1);
	REQUIRE(dp_mean_init(&m, 0.0, 10.0, 1.0, 1) == DP_OK, "init");
	REQUIRE(dp_mean_select(&m, &sel, DP_SELECT_OPTIMAL, 0.01, 1) == DP_OK, "select");
	CHECK(sel.count_plan.epsilon == 0.5, "the selecting count has not half the epsilon");
	CHECK(m.count_one == sel.units_one && m.count_plan.truncation == sel.count_plan.truncation,
		  "the mean's count is not the selection's");
	dp_mean_add(&m, 3.0);
	for (i = 0; i < 20000; i++)
		kept += dp_mean_release_selected(RNG(&r), &m, &sel, &mean);
	CHECK(kept == 0, "a mean of one unit kept %d times under a truncated count", kept);
	for (i = 0; i < 400; i++)
		dp_mean_add(&m, 3.0);
	kept = 0;
	for (i = 0; i < 1000; i++)
		if (dp_mean_release_selected(RNG(&r), &m, &sel, &mean))
		{
			kept++;
			CHECK(mean >= 0.0 && mean <= 10.0, "mean %g outside the bounds", mean);
		}
	CHECK(kept == 1000, "a mean of 401 units dropped %d times (tau %.1f)", 1000 - kept, sel.tau);
	REQUIRE(dp_mean_init(&m, 0.0, 10.0, 1.0, 1) == DP_OK, "init");
	CHECK(dp_mean_select(&m, &sel, DP_SELECT_GAUSSIAN, 0.01, 1) != DP_OK,
		  "a mean selecting on a Gaussian count");
}

/* ---- row-level quantiles: the exponential mechanism ---- */

/* the bin of a leaf: 6 bins of equal probability under prob_of_leaf */
static int
bin_of(const double *cumulative, int leaf)
{
	int			bin = (int) (cumulative[leaf] * 6.0);

	return bin > 5 ? 5 : bin;
}

void
test_quantile_rows_distribution(void)
{
	/* leaves are integers: [0, 65536); 3001 values spread over them */
	const int	n = 3001;
	const double eps = 0.02;
	const long	trials = 10000;
	dp_quantile q;
	test_rng	r;
	double	   *weight = malloc(sizeof(double) * 65536);
	double	   *cumulative = malloc(sizeof(double) * 65536);
	double	   *half = malloc(sizeof(double) * 65536);
	int		   *before = calloc(65537, sizeof(int));
	double		observed[6] = {0};
	double		prob[6] = {0};
	double		wrong[6] = {0};
	double		total = 0.0;
	double		half_total = 0.0;
	double		running = 0.0;
	double		stat;
	long		t;
	int			j;

	test_rng_stream(&r, 1);
	REQUIRE(dp_quantile_init(&q, 0.0, 65536.0, eps, 1) == DP_OK, "init");
	for (j = 0; j < n; j++)
	{
		int			leaf = (int) ((j + 0.5) * 65536.0 / n);

		dp_quantile_add(&q, leaf + 0.5);
		before[leaf + 1]++;
	}
	for (j = 0; j < 65536; j++)
		before[j + 1] += before[j];
	/* exp(-eps d_j / (2 * 1/2 * 1)), d_j = max(0, C_j - n/2, n/2 - C_(j+1)) */
	for (j = 0; j < 65536; j++)
	{
		double		d = fmax(0.0, fmax(before[j] - n / 2.0, n / 2.0 - before[j + 1]));

		weight[j] = exp(-eps * d);
		half[j] = sqrt(weight[j]);
		total += weight[j];
		half_total += half[j];
	}
	for (j = 0; j < 65536; j++)
	{
		cumulative[j] = running / total;
		running += weight[j];
	}
	for (j = 0; j < 65536; j++)
	{
		prob[bin_of(cumulative, j)] += weight[j] / total;
		wrong[bin_of(cumulative, j)] += half[j] / half_total;
	}
	for (t = 0; t < trials; t++)
	{
		int			leaf = (int) floor(dp_quantile_release_rows(RNG(&r), &q, 0.5));

		observed[bin_of(cumulative, leaf < 0 ? 0 : (leaf > 65535 ? 65535 : leaf))] += 1.0;
	}
	CHECK(chi2_test(observed, prob, 6, (double) trials, &stat) > TEST_P_CRIT,
		  "exponential mechanism off its distribution: chi2 %.2f", stat);
	/* control: the weights of half the epsilon are rejected */
	CHECK(chi2_test(observed, wrong, 6, (double) trials, &stat) < TEST_P_CRIT,
		  "control: the distribution of epsilon / 2 was not rejected (chi2 %.2f)", stat);
	dp_quantile_free(&q);
	free(weight);
	free(cumulative);
	free(half);
	free(before);
}

void
test_quantile_rows_accuracy(void)
{
	dp_quantile q;
	test_rng	r;
	double		errors[200];
	int			i;
	int			t;

	test_rng_stream(&r, 1);
	/* 20000 units of 5 values each, uniform on [0, 100]; k = 5 */
	REQUIRE(dp_quantile_init(&q, 0.0, 100.0, 0.1, 5) == DP_OK, "init");
	for (i = 0; i < 100000; i++)
		dp_quantile_add(&q, 100.0 * test_rng_unit(&r));
	for (t = 0; t < 200; t++)
		errors[t] = fabs(dp_quantile_release_rows(RNG(&r), &q, 0.5) - 50.0);
	/* scale k (range) / (eps n) = 5 * 100 / (0.1 * 100000) = 0.05 */
	CHECK(median_of(errors, 200) < 0.15, "median error %.4f of the row median (expected ~0.04)",
		  median_of(errors, 200));
	for (t = 0; t < 200; t++)
		errors[t] = fabs(dp_quantile_release_rows(RNG(&r), &q, 0.9) - 90.0);
	CHECK(median_of(errors, 200) < 0.3, "median error %.4f of the 0.9 quantile",
		  median_of(errors, 200));
	dp_quantile_free(&q);

	/*
	 * Repeated values: 1200 at 10 and 800 at 90 (k = 1, epsilon 1).  The
	 * median is 10 and the 0.9-quantile 90.  A score by the leaf's middle
	 * rank put the median in the empty leaves between (their middle rank
	 * 1200 is nearer the target 1000 than the middle rank 600 of the leaf of
	 * 10), releasing about 50.
	 */
	REQUIRE(dp_quantile_init(&q, 0.0, 100.0, 1.0, 1) == DP_OK, "init");
	for (i = 0; i < 1200; i++)
		dp_quantile_add(&q, 10.0);
	for (i = 0; i < 800; i++)
		dp_quantile_add(&q, 90.0);
	for (t = 0; t < 200; t++)
		errors[t] = fabs(dp_quantile_release_rows(RNG(&r), &q, 0.5) - 10.0);
	CHECK(median_of(errors, 200) < 0.01, "repeated values: median error %.4f of the median",
		  median_of(errors, 200));
	for (t = 0; t < 200; t++)
		errors[t] = fabs(dp_quantile_release_rows(RNG(&r), &q, 0.9) - 90.0);
	CHECK(median_of(errors, 200) < 0.01, "repeated values: median error %.4f of the 0.9-quantile",
		  median_of(errors, 200));
	dp_quantile_free(&q);
}

/*
 * Every selection, with and without a released count, over extreme (epsilon,
 * delta, C_u): planning ends (the test binary would hang otherwise; a delta
 * of 0.9 once looped for minutes in the truncation search) with DP_OK or a
 * status, and a planned selection is usable: a truncated count's threshold above
 * the truncated count's reach (one unit must never pass), a half point at least 1,
 * and a one-unit partition of an optimal selection kept with probability at
 * most delta / C_u.  The sigma calibration ends likewise.
 */
void
test_selection_extremes(void)
{
	static const double eps[] = {1e-12, 1e-9, 1e-6, 1e-3, 0.1, 1, 10, 1000, 1048576};
	static const double del[] = {1e-300, 1e-30, 1e-12, 1e-5, 0.3, 0.9, 0.999999};
	static const int64_t cu[] = {1, 5, 10000, 1000000000};
	int			planned = 0;
	int			m;
	int			c;
	size_t		i;
	size_t		j;
	size_t		k;

	for (m = 0; m < DP_SELECT_MECHANISMS; m++)
		for (c = 0; c < 2; c++)
			for (i = 0; i < sizeof(eps) / sizeof(eps[0]); i++)
				for (j = 0; j < sizeof(del) / sizeof(del[0]); j++)
					for (k = 0; k < sizeof(cu) / sizeof(cu[0]); k++)
					{
						dp_selection sel;
						double		half;

						if (dp_selection_make((dp_selection_mechanism) m, eps[i], del[j], cu[k],
											  c == 1, &sel) != DP_OK)
							continue;
						planned++;
						half = dp_selection_users_for_half(&sel);
						CHECK(half >= 1.0, "%s%s eps %g delta %g C_u %lld: half point %g",
							  dp_selection_name(m), c ? " counted" : "", eps[i], del[j],
							  (long long) cu[k], half);
						if (m == DP_SELECT_OPTIMAL && c == 0)
							CHECK(dp_selection_keep_probability(&sel, 1) <=
								  (long double) del[j] / (long double) cu[k] * (1.0L + 1e-12L),
								  "optimal eps %g delta %g C_u %lld: pi(1) above delta / C_u",
								  eps[i], del[j], (long long) cu[k]);
						else if (m == DP_SELECT_OPTIMAL)
							CHECK(sel.tau_units > sel.units_one + (dp_i128) sel.count_plan.truncation,
								  "%s%s eps %g delta %g C_u %lld: tau within one unit plus the truncation",
								  dp_selection_name(m), c ? " counted" : "", eps[i], del[j],
								  (long long) cu[k]);
					}
	CHECK(planned > 300, "only %d of 504 extreme selections planned", planned);
	for (i = 0; i < sizeof(eps) / sizeof(eps[0]); i++)
		for (j = 0; j < sizeof(del) / sizeof(del[0]); j++)
		{
			double		sigma = 0.0;
			dp_status	status = dp_analytic_gaussian_sigma(eps[i], del[j], &sigma);

			CHECK(status != DP_OK || (sigma > 0.0 && isfinite(sigma) &&
									  dp_analytic_gaussian_delta(eps[i], sigma) <= del[j]),
				  "sigma for eps %g delta %g: %g", eps[i], del[j], sigma);
		}
}
