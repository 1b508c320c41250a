/*
 * test_auto_bounds.c -- the logarithmic histogram that chooses automatic
 * bounds (dp_auto_bounds.h): bins and edges, the threshold of App. D, the
 * noise of the histogram, the choice, and what tiny inputs give.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "test_harness.h"
#include "dp/dp_auto_bounds.h"

/* every value lies within its bin's edges; bins grow with the value */
void
test_auto_bins(void)
{
	test_rng	r;
	int			i;
	int			previous = -1;
	double		x;

	test_rng_stream(&r, 1);
	CHECK(dp_auto_bin(NAN) == -1, "NaN has a bin");
	CHECK(dp_auto_bin(0.0) == DP_AUTO_ZERO_BIN, "0 not in the zero bin");
	CHECK(dp_auto_bin(-0.0) == DP_AUTO_ZERO_BIN, "-0 not in the zero bin");
	CHECK(dp_auto_bin(INFINITY) == DP_AUTO_BIN_COUNT - 1, "+inf not in the top bin");
	CHECK(dp_auto_bin(-INFINITY) == 0, "-inf not in the bottom bin");
	CHECK(dp_auto_bin(1e300) == DP_AUTO_BIN_COUNT - 1, "1e300 not in the top bin");
	/* [2^(k-1), 2^k): 1 is in the bin whose upper edge is 2, 1024 in [1024, 2048) */
	CHECK(dp_auto_bin_upper(dp_auto_bin(1.0)) == 2.0, "bin of 1: upper %g",
		  dp_auto_bin_upper(dp_auto_bin(1.0)));
	CHECK(dp_auto_bin_lower(dp_auto_bin(1024.0)) == 1024.0, "bin of 1024: lower %g",
		  dp_auto_bin_lower(dp_auto_bin(1024.0)));
	CHECK(dp_auto_bin_lower(dp_auto_bin(-1.0)) == -2.0, "bin of -1: lower %g",
		  dp_auto_bin_lower(dp_auto_bin(-1.0)));
	CHECK(dp_auto_bin_upper(DP_AUTO_BIN_COUNT - 1) == ldexp(1.0, DP_AUTO_K_MAX),
		  "top edge");
	for (i = 0; i < DP_AUTO_BIN_COUNT; i++)
	{
		CHECK(dp_auto_bin_lower(i) < dp_auto_bin_upper(i), "bin %d empty", i);
		if (i > 0)
			CHECK(dp_auto_bin_lower(i) == dp_auto_bin_upper(i - 1),
				  "bins %d and %d do not touch", i - 1, i);
	}
	/* random values of every magnitude, in increasing order */
	for (i = 0; i < 200000; i++)
	{
		x = -ldexp(1.0, 63) + (double) i / 200000.0 * ldexp(1.0, 64);
		if (i % 2)
			x = ldexp(test_rng_unit(&r) + 0.5, (int) (test_rng_unit(&r) * 90) - 25)
				* (test_rng_unit(&r) < 0.5 ? -1 : 1);
		REQUIRE(dp_auto_bin(x) >= 0 && dp_auto_bin(x) < DP_AUTO_BIN_COUNT, "no bin for %g", x);
		if (fabs(x) < ldexp(1.0, DP_AUTO_K_MAX))
			CHECK(dp_auto_bin_lower(dp_auto_bin(x)) <= x && x <= dp_auto_bin_upper(dp_auto_bin(x)),
				  "%.17g outside its bin [%g, %g]", x, dp_auto_bin_lower(dp_auto_bin(x)),
				  dp_auto_bin_upper(dp_auto_bin(x)));
		if (i % 2 == 0)
		{
			CHECK(dp_auto_bin(x) >= previous, "bins decrease at %g", x);
			previous = dp_auto_bin(x);
		}
	}
}

/* App. D with the one-sided Laplace tail: B - 1 empty bins stay below t w.p. P */
void
test_auto_threshold(void)
{
	double		scale;

	for (scale = 0.01; scale < 1000; scale *= 3.7)
	{
		double		t = dp_auto_threshold(scale);
		double		tail = 0.5 * exp(-t / scale);
		double		none = pow(1.0 - tail, DP_AUTO_BIN_COUNT - 1);

		CHECK(fabs((1.0 - none) - DP_AUTO_FALSE_POSITIVE) < 1e-3 * DP_AUTO_FALSE_POSITIVE,
			  "scale %g: t %g gives a false positive rate %g", scale, t, 1.0 - none);
		CHECK(fabs(t / scale - dp_auto_threshold(1.0)) < 1e-9, "t not proportional to b");
	}
}

/* the choice from noisy counts: outer edges of the bins above t */
void
test_auto_pick(void)
{
	double		noisy[DP_AUTO_BIN_COUNT];
	double		lower = 7;
	double		upper = 7;
	int			b100 = dp_auto_bin(100.0);
	int			b1000 = dp_auto_bin(1000.0);

	memset(noisy, 0, sizeof(noisy));
	CHECK(!dp_auto_pick(noisy, 10.0, true, &lower, &upper), "found bounds in nothing");
	CHECK(lower == 7 && upper == 7, "fallback touched the bounds");
	noisy[b100] = 11;
	noisy[b1000] = 50;
	noisy[b1000 + 3] = 9.99;	/* below t: ignored */
	REQUIRE(dp_auto_pick(noisy, 10.0, false, &lower, &upper), "no bounds");
	CHECK(lower == 64 && upper == 1024, "mean bounds [%g, %g], want [64, 1024]", lower, upper);
	REQUIRE(dp_auto_pick(noisy, 10.0, true, &lower, &upper), "no bounds");
	CHECK(lower == 0 && upper == 1024, "sum bounds [%g, %g], want [0, 1024]", lower, upper);
	noisy[dp_auto_bin(-3.0)] = 12;
	REQUIRE(dp_auto_pick(noisy, 10.0, true, &lower, &upper), "no bounds");
	CHECK(lower == -4 && upper == 1024, "signed bounds [%g, %g]", lower, upper);
	memset(noisy, 0, sizeof(noisy));
	noisy[dp_auto_bin(-3.0)] = 12;
	REQUIRE(dp_auto_pick(noisy, 10.0, true, &lower, &upper), "no bounds");
	CHECK(lower == -4 && upper == 0, "negative sum bounds [%g, %g], want [-4, 0]", lower, upper);
	noisy[DP_AUTO_ZERO_BIN] = 20;	/* the zero bin itself: 0 stays the end */
	REQUIRE(dp_auto_pick(noisy, 10.0, true, &lower, &upper), "no bounds");
	CHECK(lower == -4 && upper == 0, "negative sum bounds with the zero bin [%g, %g]", lower, upper);
	REQUIRE(dp_auto_pick(noisy, 10.0, false, &lower, &upper), "no bounds");
	CHECK(lower == -4 && upper == ldexp(1.0, DP_AUTO_K_MIN), "mean bounds with the zero bin [%g, %g]",
		  lower, upper);
}

/* each noisy count is the count plus Laplace of scale contributions / epsilon */
void
test_auto_histogram_noise(void)
{
	static uint64_t counts[DP_AUTO_BIN_COUNT];
	const double epsilon = 0.3;
	const uint32_t k = 2;
	const int	runs = 400;
	double	   *d = malloc(sizeof(double) * runs * DP_AUTO_BIN_COUNT);
	double		noisy[DP_AUTO_BIN_COUNT];
	double		scale;
	double		b = k / epsilon;
	sample_stats st;
	test_rng	r;
	int			run;
	int			bin;

	test_rng_stream(&r, 2);
	for (bin = 0; bin < DP_AUTO_BIN_COUNT; bin++)
		counts[bin] = (uint64_t) bin * 1000;
	for (run = 0; run < runs; run++)
	{
		REQUIRE(dp_auto_histogram(RNG(&r), counts, epsilon, k, noisy, &scale) == DP_OK,
				"histogram failed");
		for (bin = 0; bin < DP_AUTO_BIN_COUNT; bin++)
			d[run * DP_AUTO_BIN_COUNT + bin] = noisy[bin] - (double) counts[bin];
	}
	CHECK(scale >= b && scale < b * 1.001, "scale %g, want %g", scale, b);
	st = stats_of(d, (size_t) runs * DP_AUTO_BIN_COUNT);
	CHECK_SIGMA(st.mean, 0.0, st.se_mean, TEST_NSIG, "histogram noise mean");
	/* Laplace variance 2 b^2; se of the variance from the sample */
	CHECK_SIGMA(st.var, 2.0 * b * b, st.se_var, TEST_NSIG, "histogram noise variance");
	free(d);
	CHECK(dp_auto_histogram(RNG(&r), counts, 0.0, 1, noisy, &scale) == DP_ERR_EPSILON,
		  "epsilon 0 accepted");
	CHECK(dp_auto_histogram(RNG(&r), counts, 1.0, 0, noisy, &scale) == DP_ERR_CONTRIBUTIONS,
		  "0 contributions accepted");
}

/*
 * End to end in the core: 2,000 users uniform in [100, 1000] over 1,000
 * runs at epsilon_histogram 0.5 always get upper bound 1024 and lower bound
 * 64 or 128 (mean) / the zero bin (sum); no run fails.  Empty and one-user
 * histograms fall back (no bounds) nearly always, and never fail.
 */
void
test_auto_bounds_choice(void)
{
	static uint64_t counts[DP_AUTO_BIN_COUNT];
	test_rng	r;
	int			run;
	int			i;
	int			found_tiny = 0;
	double		lower;
	double		upper;
	bool		found;

	test_rng_stream(&r, 3);
	for (i = 0; i < 2000; i++)
		counts[dp_auto_bin(100.0 + 900.0 * test_rng_unit(&r))]++;
	for (run = 0; run < 1000; run++)
	{
		REQUIRE(dp_auto_bounds(RNG(&r), counts, 0.5, 1, run % 2, &found, &lower, &upper)
				== DP_OK, "failed");
		REQUIRE(found, "run %d: no bounds for 2,000 users", run);
		CHECK(upper == 1024, "run %d: upper bound %g", run, upper);
		if (run % 2)
			CHECK(lower == 0, "run %d: sum lower bound %g", run, lower);
		else
			CHECK(lower == 64 || lower == 128, "run %d: mean lower bound %g", run, lower);
	}
	memset(counts, 0, sizeof(counts));
	for (run = 0; run < 20000; run++)
	{
		if (run == 10000)
			counts[dp_auto_bin(5.0)] = 1;	/* one user */
		REQUIRE(dp_auto_bounds(RNG(&r), counts, 1.0, 1, true, &found, &lower, &upper)
				== DP_OK, "failed on tiny input");
		found_tiny += found;
	}
	/* P(any empty bin above t) <= 1e-6; one user adds at most e^-t/b/2 ~ 3e-8 */
	CHECK(found_tiny <= 1, "tiny inputs chose bounds %d times in 20,000", found_tiny);
}
