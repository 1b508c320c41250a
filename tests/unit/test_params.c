/*
 * test_params.c -- epsilon split, release bound q and tau-thresholding
 * (dp_params.h).
 *
 * What is checked: dp_epsilon_share, q = 1 - (1 - delta)^(1/C_u) against a
 * long double series, the continuous tau against its naive formula, the
 * monotonicity of the discrete tau in delta, and -- statistically -- that a
 * partition holding one privacy unit is released with probability at most q
 * while a large partition is always released.
 *
 * Tolerances: release frequencies over 200000 trials must be <= q plus 5
 * binomial standard errors, within 5 standard errors of the exact discrete
 * probability a^z / (1 + a), and >= q / 3 (tau is not absurdly
 * conservative).  The positive control computes tau for half the count's
 * noise scale; its release frequency must exceed q by more than 5 standard
 * errors, showing the bound check can fail.
 */
#include <math.h>
#include <stdlib.h>

#include "test_harness.h"
#include "dp/dp_params.h"

void
test_epsilon_share(void)
{
	double		share = -1.0;

	REQUIRE(dp_epsilon_share(1.0, 2, 3, &share) == DP_OK, "epsilon_share(1, 2, 3) failed");
	CHECK(share == 0.125, "epsilon_share(1, 2, 3) = %.17g, expected 1/8", share);
	REQUIRE(dp_epsilon_share(2.0, 1, 0, &share) == DP_OK, "epsilon_share(2, 1, 0) failed");
	CHECK(share == 2.0, "epsilon_share(2, 1, 0) = %.17g, expected 2", share);
	REQUIRE(dp_epsilon_share(0.3, 3, 4, &share) == DP_OK, "epsilon_share(0.3, 3, 4) failed");
	CHECK(fabs(share - 0.02) <= 1e-17, "epsilon_share(0.3, 3, 4) = %.17g, expected 0.02", share);

	CHECK(dp_epsilon_share(0.0, 1, 1, &share) == DP_ERR_EPSILON, "epsilon 0 accepted");
	CHECK(dp_epsilon_share(NAN, 1, 1, &share) == DP_ERR_EPSILON, "epsilon NaN accepted");
	CHECK(dp_epsilon_share(2e6, 1, 1, &share) == DP_ERR_EPSILON, "epsilon 2e6 accepted");
	CHECK(dp_epsilon_share(1.0, 0, 1, &share) == DP_ERR_MAX_GROUPS, "max_groups 0 accepted");
	CHECK(dp_epsilon_share(1.0, -3, 1, &share) == DP_ERR_MAX_GROUPS, "max_groups -3 accepted");
	CHECK(dp_epsilon_share(1.0, 1, -1, &share) == DP_ERR_CONTRIBUTIONS,
		  "n_aggregates -1 accepted");
	CHECK(dp_epsilon_share(1e-11, 100, 0, &share) == DP_ERR_EPSILON,
		  "share 1e-13 (below 1e-12) accepted");
	CHECK(dp_check_delta(0.0) == DP_ERR_DELTA && dp_check_delta(1.0) == DP_ERR_DELTA &&
		  dp_check_delta(NAN) == DP_ERR_DELTA && dp_check_delta(0.5) == DP_OK,
		  "dp_check_delta");
}

/* 1 - (1 - d)^a = -sum_{n>=1} binom(a, n) (-d)^n, in long double */
static long double
release_bound_series(long double d, long double a)
{
	long double c = a;			/* binom(a, 1) */
	long double pw = -d;		/* (-d)^1 */
	long double sum = 0.0L;
	int			n;

	for (n = 1; n < 400; n++)
	{
		long double term = c * pw;

		sum -= term;
		if (fabsl(term) < 1e-30L * fabsl(sum))
			break;
		c *= (a - n) / (n + 1);
		pw *= -d;
	}
	return sum;
}

void
test_single_unit_release_bound(void)
{
	const double deltas[] = {1e-300, 1e-12, 1e-6, 1e-3, 0.2, 0.5};
	const int64_t groups[] = {1, 2, 5, 100};
	double		q;
	size_t		i,
				j;

	q = dp_single_unit_release_bound(1e-12, 1);
	CHECK(fabs(q - 1e-12) <= 1e-10 * 1e-12, "q(1e-12, 1) = %.17g, expected 1e-12", q);

	for (i = 0; i < sizeof(deltas) / sizeof(deltas[0]); i++)
		for (j = 0; j < sizeof(groups) / sizeof(groups[0]); j++)
		{
			double		d = deltas[i];
			long double ref = release_bound_series(d, 1.0L / groups[j]);

			q = dp_single_unit_release_bound(d, groups[j]);
			CHECK(q == -expm1(log1p(-d) / (double) groups[j]),
				  "q(%g, %lld) differs from -expm1(log1p(-d)/C_u)", d, (long long) groups[j]);
			CHECK(fabsl(q - ref) <= 1e-13L * ref,
				  "q(%g, %lld) = %.17g, series gives %.17Lg (relative error %.3Lg)",
				  d, (long long) groups[j], q, ref, (q - ref) / ref);
			CHECK(q > 0.0 && q <= d * (1.0 + 1e-15), "q(%g, %lld) = %g outside (0, delta]",
				  d, (long long) groups[j], q);
		}
	/* C_u = 5 at delta = 1e-12: about d/5 + 2 d^2 / 25 */
	q = dp_single_unit_release_bound(1e-12, 5);
	CHECK(fabs(q - 2e-13) <= 1e-12 * 2e-13, "q(1e-12, 5) = %.17g, expected 2e-13", q);
}

void
test_tau_continuous(void)
{
	const double scales[] = {0.5, 1.0, 10.0, 1234.5};
	const int64_t groups[] = {1, 5};
	const double delta = 1e-3;
	size_t		i,
				j;

	for (i = 0; i < sizeof(scales) / sizeof(scales[0]); i++)
		for (j = 0; j < sizeof(groups) / sizeof(groups[0]); j++)
		{
			long double naive = 1.0L - scales[i] *
				logl(2.0L - 2.0L * powl(1.0L - delta, 1.0L / groups[j]));
			double		tau = dp_tau_continuous(scales[i], delta, groups[j]);

			CHECK(fabsl(tau - naive) <= 1e-9L * fabsl(naive),
				  "tau_continuous(%g, %g, %lld) = %.17g, naive formula %.17Lg",
				  scales[i], delta, (long long) groups[j], tau, naive);
		}
	/* tiny delta: finite, large, and increasing as delta shrinks */
	CHECK(isfinite(dp_tau_continuous(1.0, 1e-300, 1)) &&
		  dp_tau_continuous(1.0, 1e-300, 1) > dp_tau_continuous(1.0, 1e-12, 1),
		  "tau_continuous at delta 1e-300");
}

void
test_threshold_tau_monotone(void)
{
	const double deltas[] = {0.5, 0.2, 1e-2, 1e-3, 1e-6, 1e-9, 1e-12};
	const double epsilons[] = {0.1, 1.0, 10.0};
	const int64_t groups[] = {1, 10};
	dp_threshold th;
	size_t		i,
				j,
				g;

	for (j = 0; j < sizeof(epsilons) / sizeof(epsilons[0]); j++)
		for (g = 0; g < sizeof(groups) / sizeof(groups[0]); g++)
		{
			double		previous = -INFINITY;

			for (i = 0; i < sizeof(deltas) / sizeof(deltas[0]); i++)
			{
				double		scale;
				double		cont;
				double		r;

				REQUIRE(dp_threshold_make(epsilons[j], deltas[i], groups[g], &th) == DP_OK,
						"threshold_make(%g, %g, %lld) failed", epsilons[j], deltas[i],
						(long long) groups[g]);
				scale = dp_laplace_plan_scale(&th.count_plan);
				r = ldexp(1.0, th.count_plan.grid_exp);
				cont = dp_tau_continuous(scale, deltas[i], groups[g]);
				CHECK(isfinite(th.tau) && th.tau >= 1.0, "tau = %g", th.tau);
				CHECK(th.tau > previous, "tau not increasing as delta decreases: %g then %g "
					  "(eps %g, C_u %lld, delta %g)", previous, th.tau, epsilons[j],
					  (long long) groups[g], deltas[i]);
				/* the discrete tau is the continuous one up to a few grid steps */
				CHECK(th.tau >= cont - 1e-9 * cont &&
					  th.tau <= cont + 4.0 * r + 1e-9 * cont,
					  "tau %.17g far from the continuous %.17g (eps %g, delta %g, C_u %lld)",
					  th.tau, cont, epsilons[j], deltas[i], (long long) groups[g]);
				previous = th.tau;
			}
		}

	CHECK(dp_threshold_make(1.0, 0.0, 1, &th) == DP_ERR_DELTA, "delta 0 accepted");
	CHECK(dp_threshold_make(1.0, 1.0, 1, &th) == DP_ERR_DELTA, "delta 1 accepted");
	CHECK(dp_threshold_make(1.0, NAN, 1, &th) == DP_ERR_DELTA, "delta NaN accepted");
	CHECK(dp_threshold_make(1.0, 1e-6, 0, &th) == DP_ERR_MAX_GROUPS, "C_u 0 accepted");
	CHECK(dp_threshold_make(0.0, 1e-6, 1, &th) == DP_ERR_EPSILON, "epsilon 0 accepted");
	CHECK(dp_threshold_make(INFINITY, 1e-6, 1, &th) == DP_ERR_EPSILON, "epsilon inf accepted");
}

/* the exact release probability of a one-unit partition, P(Z >= z) = a^z/(1+a) */
static double
exact_release_probability(const dp_threshold *th)
{
	const dp_noise_plan *plan = &th->count_plan;
	long double z = (long double) (th->tau_units - dp_units_from_int64(plan, 1));
	long double inv_t = 1.0L / (long double) plan->t;

	if (z <= 0.0L)
		return 1.0 / (1.0 + exp(-1.0 / (double) plan->t));	/* P(Z >= 0) */
	return (double) (expl(-z * inv_t) / (1.0L + expl(-inv_t)));
}

/* tau as dp_threshold_make computes it, but for a count noise of scale t / 2 */
static double
half_scale_tau(const dp_threshold *th)
{
	double		t = (double) th->count_plan.t / 2.0;
	double		q = dp_single_unit_release_bound(th->delta, th->max_groups);
	double		z_min = ceil(-t * (log(q) + log1p(exp(-1.0 / t)))) + 1.0;

	if (z_min < 0.0)
		z_min = 0.0;
	/* exact: both terms are integers far below 2^53 for these parameters */
	return ldexp(ldexp(1.0, -th->count_plan.grid_exp) + z_min, th->count_plan.grid_exp);
}

static const struct
{
	double		epsilon;
	double		delta;
	int64_t		groups;
}			threshold_cases[] = {
	{1.0, 0.2, 1},
	{1.0, 0.2, 3},
	{0.5, 0.05, 2},
	{1.0, 1e-3, 1}
};

void
test_threshold_release_bound(void)
{
	const long	trials = 200000;
	test_rng	r;
	size_t		c;

	test_rng_stream(&r, 1);
	for (c = 0; c < sizeof(threshold_cases) / sizeof(threshold_cases[0]); c++)
	{
		dp_threshold th;
		double		q;
		double		exact;
		double		se;
		double		freq;
		long		released = 0;
		long		i;
		char		what[128];

		REQUIRE(dp_threshold_make(threshold_cases[c].epsilon, threshold_cases[c].delta,
								  threshold_cases[c].groups, &th) == DP_OK, "threshold_make failed");
		q = (double) (1.0L - powl(1.0L - threshold_cases[c].delta,
								  1.0L / threshold_cases[c].groups));
		for (i = 0; i < trials; i++)
			released += dp_threshold_release(RNG(&r), &th, 1, NULL);
		freq = (double) released / trials;
		se = sqrt(q * (1.0 - q) / trials);
		exact = exact_release_probability(&th);
		t_note("eps=%g delta=%g C_u=%lld tau=%.6f q=%.6g exact P=%.6g measured %.6g",
			   threshold_cases[c].epsilon, threshold_cases[c].delta,
			   (long long) threshold_cases[c].groups, th.tau, q, exact, freq);
		CHECK(freq <= q + TEST_NSIG * se,
			  "one-unit partition released with frequency %.6g > q = %.6g + 5 se "
			  "(eps %g, delta %g, C_u %lld)", freq, q, threshold_cases[c].epsilon,
			  threshold_cases[c].delta, (long long) threshold_cases[c].groups);
		CHECK(freq >= q / 3.0, "release frequency %.6g below q/3 = %.6g: tau too conservative",
			  freq, q / 3.0);
		CHECK(exact <= q, "exact release probability %.17g above q %.17g", exact, q);
		snprintf(what, sizeof(what), "release frequency vs a^z/(1+a) (delta %g, C_u %lld)",
				 threshold_cases[c].delta, (long long) threshold_cases[c].groups);
		CHECK_SIGMA(freq, exact, sqrt(exact * (1.0 - exact) / trials), TEST_NSIG, what);
	}
}

void
test_threshold_always_release(void)
{
	const double deltas[] = {0.2, 1e-6, 1e-12};
	const int64_t groups[] = {1, 10};
	test_rng	r;
	size_t		i,
				g;
	int			k;

	test_rng_stream(&r, 1);
	for (i = 0; i < sizeof(deltas) / sizeof(deltas[0]); i++)
		for (g = 0; g < sizeof(groups) / sizeof(groups[0]); g++)
		{
			dp_threshold th;
			uint64_t	n_units;
			long		released = 0;

			REQUIRE(dp_threshold_make(1.0, deltas[i], groups[g], &th) == DP_OK,
					"threshold_make failed");
			n_units = (uint64_t) ceil(10.0 * th.tau);
			for (k = 0; k < 1000; k++)
			{
				double		noisy = 0.0;

				released += dp_threshold_release(RNG(&r), &th, n_units, &noisy);
				CHECK(isfinite(noisy), "noisy count not finite");
			}
			CHECK(released == 1000,
				  "partition of %llu units (10 tau) released %ld of 1000 times (delta %g, C_u %lld)",
				  (unsigned long long) n_units, released, deltas[i], (long long) groups[g]);
		}
}

void
test_threshold_half_scale_control(void)
{
	const long	trials = 200000;
	test_rng	r;
	size_t		c;

	test_rng_stream(&r, 1);
	for (c = 0; c < sizeof(threshold_cases) / sizeof(threshold_cases[0]); c++)
	{
		dp_threshold th;
		double		q;
		double		tau_half;
		long		released = 0;
		long		released_half = 0;
		long		i;

		REQUIRE(dp_threshold_make(threshold_cases[c].epsilon, threshold_cases[c].delta,
								  threshold_cases[c].groups, &th) == DP_OK, "threshold_make failed");
		q = dp_single_unit_release_bound(threshold_cases[c].delta, threshold_cases[c].groups);
		tau_half = half_scale_tau(&th);
		CHECK(tau_half < th.tau, "half-scale tau %g not below tau %g", tau_half, th.tau);
		for (i = 0; i < trials; i++)
		{
			double		noisy = 0.0;
			bool		release = dp_threshold_release(RNG(&r), &th, 1, &noisy);

			CHECK(release == (noisy >= th.tau), "release decision %d but noisy count %.17g, "
				  "tau %.17g", (int) release, noisy, th.tau);
			released += release;
			released_half += (noisy >= tau_half);
		}
		t_note("delta=%g C_u=%lld: q=%.5g tau -> %.5g, half-scale tau -> %.5g",
			   threshold_cases[c].delta, (long long) threshold_cases[c].groups, q,
			   (double) released / trials, (double) released_half / trials);
		/* the real tau passes the bound check ... */
		CHECK((double) released / trials <= q + TEST_NSIG * sqrt(q * (1 - q) / trials),
			  "tau: frequency %.6g above q %.6g", (double) released / trials, q);
		/* ... and a tau planned for half the noise fails it clearly */
		CHECK((double) released_half / trials > q + TEST_NSIG * sqrt(q * (1 - q) / trials),
			  "control: half-scale tau gave frequency %.6g, not above q = %.6g + 5 se",
			  (double) released_half / trials, q);
	}
}

/*
 * dp_params.h: tau_units = units(1) + ceil(-t ln(q (1 + a))) + 1, "the final
 * + 1 absorbs floating-point error in the logarithms".  Recomputed in long
 * double (error below 0.01 unit here), the margin z - z_needed must be >= 0
 * for every accepted (epsilon, delta, C_u), and at most 3 units plus the
 * documented 1e-15 relative slack (tau is not needlessly large).  When t |ln q| exceeds 2^53 (count epsilon ~1e-11 and
 * below, now accepted since the grid floor is 2^10 and z_min may reach 1e30)
 * the double-precision product and logarithms err by several units.
 */
void
test_threshold_tau_exact(void)
{
	const double epsilons[] = {1e-12, 1e-11, 1e-9, 1e-6, 0.01, 1.0, 1000.0};
	const double deltas[] = {0.2, 1e-6, 1e-12, 1e-100};
	const int64_t groups[] = {1, 7};
	double		worst = INFINITY;
	size_t		e,
				d,
				g;

	for (e = 0; e < sizeof(epsilons) / sizeof(epsilons[0]); e++)
		for (d = 0; d < sizeof(deltas) / sizeof(deltas[0]); d++)
			for (g = 0; g < sizeof(groups) / sizeof(groups[0]); g++)
			{
				dp_threshold th;
				long double t;
				long double q;
				long double z_needed;
				long double z;
				double		margin;

				REQUIRE(dp_threshold_make(epsilons[e], deltas[d], groups[g], &th) == DP_OK,
						"threshold_make(%g, %g, %lld) failed", epsilons[e], deltas[d],
						(long long) groups[g]);
				t = (long double) th.count_plan.t;
				q = -expm1l(log1pl(-(long double) deltas[d]) / (long double) groups[g]);
				z_needed = -t * (logl(q) + log1pl(expl(-1.0L / t)));
				if (z_needed < 0.0L)
					z_needed = 0.0L;
				z = (long double) (th.tau_units - dp_units_from_int64(&th.count_plan, 1));
				margin = (double) (z - z_needed);
				if (margin < worst)
					worst = margin;
				CHECK(margin >= -0.01,
					  "eps %g, delta %g, C_u %lld: tau is %.3f grid units below the smallest "
					  "z with P(Z >= z) <= q (t = %.4Le, z = %.6Le)", epsilons[e], deltas[d],
					  (long long) groups[g], -margin, t, z);
				/* not needlessly large: one unit, ceil, and a 1e-15 relative slack */
				CHECK(margin <= 3.0 + 2e-15 * (double) z_needed,
					  "eps %g, delta %g, C_u %lld: tau %.3f units above needed",
					  epsilons[e], deltas[d], (long long) groups[g], margin);
			}
	t_note("smallest margin %.3f units", worst);
}
