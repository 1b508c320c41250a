/*
 * test_contributions.c -- the histograms of users' contributions and the
 * bounds they suggest (src/dp/dp_contributions.h, anon_dp_contribution_bounds).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dp/dp_contributions.h"
#include "test_harness.h"

/* values 1..16 a bin each, then powers of two, then one bin for the rest */
void
test_contrib_bins(void)
{
	int			bin;

	CHECK(dp_contrib_bin(1) == 0 && dp_contrib_bin(0) == 0 && dp_contrib_bin(-5) == 0,
		  "1 and below not in the first bin");
	CHECK(dp_contrib_bin(16) == 15 && dp_contrib_bin(17) == 16 && dp_contrib_bin(32) == 16 &&
		  dp_contrib_bin(33) == 17, "16 | 17..32 | 33.. misplaced");
	CHECK(dp_contrib_bin((int64_t) 1 << 30) == DP_CONTRIB_BINS - 2 &&
		  dp_contrib_bin(((int64_t) 1 << 30) + 1) == DP_CONTRIB_BINS - 1 &&
		  dp_contrib_bin(INT64_MAX) == DP_CONTRIB_BINS - 1, "the last bins");
	for (bin = 0; bin < DP_CONTRIB_BINS - 1; bin++)
	{
		int64_t		upper = dp_contrib_bin_upper(bin);

		CHECK(dp_contrib_bin(upper) == bin && dp_contrib_bin(upper + 1) == bin + 1,
			  "bin %d does not end at %lld", bin, (long long) upper);
		CHECK(dp_contrib_bin_middle(bin) <= (double) upper &&
			  (bin == 0 || dp_contrib_bin_middle(bin) > (double) dp_contrib_bin_upper(bin - 1)),
			  "middle of bin %d outside it", bin);
	}
}

/*
 * Each noisy count is its count plus Laplace noise of scale 2 / epsilon (each
 * histogram at epsilon / 2, sensitivity 1).  400 runs x 86 counts: the
 * variance 2 b^2 within 5 standard errors (false failure about 6e-7); half
 * the scale (epsilon for each histogram, not epsilon / 2) is 4 times the
 * variance off and fails for certain.
 */
void
test_contrib_noise_scale(void)
{
	static dp_contributions c;
	const double epsilon = 0.4;
	const double b = 2.0 / epsilon;
	const int	runs = 400;
	double	   *d = malloc(sizeof(double) * runs * 2 * DP_CONTRIB_BINS);
	double		noisy[2 * DP_CONTRIB_BINS];
	double		scale;
	sample_stats st;
	test_rng	r;
	int			run;
	int			i;

	test_rng_stream(&r, 41);
	for (i = 0; i < DP_CONTRIB_BINS; i++)
	{
		c.groups[i] = (uint64_t) i * 100;
		c.rows[i] = (uint64_t) (DP_CONTRIB_BINS - i) * 7;
	}
	for (run = 0; run < runs; run++)
	{
		REQUIRE(dp_contrib_release(RNG(&r), &c, epsilon, noisy, &scale) == DP_OK, "release failed");
		for (i = 0; i < DP_CONTRIB_BINS; i++)
		{
			d[(run * 2) * DP_CONTRIB_BINS + i] = noisy[i] - (double) c.groups[i];
			d[(run * 2 + 1) * DP_CONTRIB_BINS + i] = noisy[DP_CONTRIB_BINS + i] - (double) c.rows[i];
		}
	}
	CHECK(scale >= b && scale < b * 1.001, "scale %g, want %g", scale, b);
	st = stats_of(d, (size_t) runs * 2 * DP_CONTRIB_BINS);
	CHECK_SIGMA(st.mean, 0.0, st.se_mean, TEST_NSIG, "histogram noise mean");
	CHECK_SIGMA(st.var, 2.0 * b * b, st.se_var, TEST_NSIG, "histogram noise variance");
	free(d);
	CHECK(dp_contrib_release(RNG(&r), &c, 0.0, noisy, &scale) == DP_ERR_EPSILON,
		  "epsilon 0 accepted");
}

/* noisy histogram of users with 1 .. 7 groups, 700 each, seen exactly */
static void
uniform_groups(double *noisy)
{
	int			i;

	memset(noisy, 0, sizeof(double) * DP_CONTRIB_BINS);
	for (i = 0; i < 7; i++)
		noisy[i] = 700;
}

/* the shares a bound keeps, from counts derived by hand */
void
test_contrib_estimates(void)
{
	double		noisy[DP_CONTRIB_BINS];
	dp_contrib_estimate e;

	uniform_groups(noisy);
	/* scale 10: threshold about 100, every bin of 700 seen */
	e = dp_contrib_estimate_for(noisy, 10.0, 1);
	CHECK(fabs(e.users - 4900) < 1e-9 && fabs(e.users_within - 1.0 / 7) < 1e-12 &&
		  fabs(e.kept - 7.0 / 28) < 1e-12, "C_u 1: users %g within %g kept %g", e.users,
		  e.users_within, e.kept);
	e = dp_contrib_estimate_for(noisy, 10.0, 4);
	CHECK(fabs(e.users_within - 4.0 / 7) < 1e-12 && fabs(e.kept - 22.0 / 28) < 1e-12,
		  "C_u 4: within %g kept %g", e.users_within, e.kept);
	e = dp_contrib_estimate_for(noisy, 10.0, 7);
	CHECK(e.users_within == 1.0 && e.kept == 1.0, "C_u 7 keeps everything");
	/* 95 % of the users have at most 7 groups (6 covers 6/7 = 86 %) */
	CHECK(dp_contrib_suggest(noisy, 10.0) == 7, "suggested %lld, want 7",
		  (long long) dp_contrib_suggest(noisy, 10.0));
	/* a heavy tail of few users does not move the bound */
	noisy[dp_contrib_bin(500)] = 150;
	CHECK(dp_contrib_suggest(noisy, 10.0) == 7, "the tail moved the suggestion");
	CHECK(dp_contrib_last_seen(noisy, 10.0) == dp_contrib_bin(500), "the tail not seen");
	/* counts below the threshold are not seen: a bin of 90 at scale 10 */
	noisy[dp_contrib_bin(500)] = 90;
	CHECK(dp_contrib_last_seen(noisy, 10.0) == 6, "a bin below t seen");
	/* everyone in one group: 1 */
	memset(noisy, 0, sizeof(noisy));
	noisy[0] = 5000;
	CHECK(dp_contrib_suggest(noisy, 10.0) == 1, "one group each: not 1");
	/* nothing seen: no suggestion, shares NaN */
	memset(noisy, 0, sizeof(noisy));
	noisy[3] = 50;
	CHECK(dp_contrib_suggest(noisy, 10.0) == 0 && isnan(dp_contrib_estimate_for(noisy, 10.0, 4).kept),
		  "a suggestion from nothing");
}

/*
 * The whole measurement through the noise: 5,000 users with 1 .. 7 groups
 * (uniform) and 1 or 2 rows in their busiest group, epsilon 0.1 (scale 20,
 * threshold about 200, bins of about 700): over 200 runs the suggestion is
 * always 7 groups and 2 rows, and the share of users within C_u = 4 within
 * 0.03 of 4/7.
 */
void
test_contrib_measurement(void)
{
	static dp_contributions c;
	double		noisy[2 * DP_CONTRIB_BINS];
	double		scale;
	test_rng	r;
	int			run;
	int			u;

	test_rng_stream(&r, 42);
	memset(&c, 0, sizeof(c));
	for (u = 0; u < 5000; u++)
		dp_contrib_add(&c, 1 + u % 7, 1 + (u % 3 == 0));
	for (run = 0; run < 200; run++)
	{
		REQUIRE(dp_contrib_release(RNG(&r), &c, 0.1, noisy, &scale) == DP_OK, "release failed");
		CHECK(dp_contrib_suggest(noisy, scale) == 7, "run %d: groups %lld", run,
			  (long long) dp_contrib_suggest(noisy, scale));
		CHECK(dp_contrib_suggest(noisy + DP_CONTRIB_BINS, scale) == 2, "run %d: rows %lld", run,
			  (long long) dp_contrib_suggest(noisy + DP_CONTRIB_BINS, scale));
		CHECK(fabs(dp_contrib_estimate_for(noisy, scale, 4).users_within - 4.0 / 7) < 0.03,
			  "run %d: share within 4", run);
	}
}
