/*
 * test_quantile_rows.c -- rows per unit of a row-level quantile, chosen
 * privately (dp_quantile_rows.h).
 *
 * What is checked:
 *   - position classes, histogram bins and candidates (tables by hand);
 *   - a unit's sample lands in classes 0 .. c(n) and in the bin of its size,
 *     at most M values, NaN skipped;
 *   - the release over classes 0 .. c reads exactly the first min(n, 2^c)
 *     values of each unit (a rigged state whose classes hold different
 *     values: the median of classes 0 .. 1 is not that of all classes);
 *   - the choice on histograms whose best candidate is derived by hand from
 *     the error model (every unit with 148 values, M = 373: m = 128; one
 *     value per unit: m = 1; a dense histogram at large epsilon: M);
 *   - the noisy histogram's noise has variance 2 (10 / eps)^2 per bin: the
 *     choice spends a tenth of epsilon (4.5 standard errors of the sample
 *     variance over 40,000 draws);
 *   - the adaptive release on 10,000 units of 148 values (uniform on
 *     [0, 1000]): chooses m = 128 in at least 95 % of 200 releases (the
 *     margin of the model: the next best candidate, 256, predicts 1.7x
 *     the error, and noise of scale 100 on 10,000 units cannot flip that),
 *     and its median error stays within 5 of the true 500 in 95 % of them.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "test_harness.h"
#include "dp/dp_quantile.h"
#include "dp/dp_quantile_rows.h"

void
test_quantile_rows_classes(void)
{
	const uint32_t positions[] = {1, 2, 3, 4, 5, 8, 9, 16, 17, 65536};
	const int	classes[] = {0, 1, 2, 2, 3, 3, 4, 4, 5, 16};
	const uint32_t sizes[] = {1, 2, 3, 4, 7, 8, 373, 65535, 65536};
	const int	bins[] = {0, 1, 1, 2, 2, 3, 8, 15, 16};
	size_t		i;

	for (i = 0; i < sizeof(positions) / sizeof(positions[0]); i++)
		CHECK(dp_rows_class(positions[i]) == classes[i], "class of position %u: %d, not %d",
			  positions[i], dp_rows_class(positions[i]), classes[i]);
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		CHECK(dp_rows_bin(sizes[i]) == bins[i], "bin of size %u: %d, not %d",
			  sizes[i], dp_rows_bin(sizes[i]), bins[i]);
	CHECK(dp_rows_candidate(0, 373) == 1 && dp_rows_candidate(7, 373) == 128 &&
		  dp_rows_candidate(8, 373) == 256 && dp_rows_candidate(9, 373) == 373 &&
		  dp_rows_candidate(4, 10) == 10, "candidates m_c = min(2^c, M) wrong");
	CHECK(dp_rows_class(373) == 9, "the last candidate class of M = 373 is not 9");
}

void
test_quantile_rows_add_unit(void)
{
	dp_quantile q;
	dp_rows_histogram h;
	const double values[] = {1.0, NAN, 2.0, 3.0, 4.0, 5.0, 6.0};
	uint64_t	per_class[DP_QTREE_ROW_CLASSES] = {0};
	uint32_t	cursor = 0;
	uint32_t	cell;
	uint64_t	count;
	uint64_t	total = 0;

	memset(&h, 0, sizeof(h));
	REQUIRE(dp_quantile_init(&q, 0.0, 10.0, 1.0, 5) == DP_OK, "init failed");
	dp_rows_add_unit(&q, &h, values, 7, 5);	/* 6 non-NaN values, M = 5 */
	while (dp_quantile_next(&q, &cursor, &cell, &count))
	{
		per_class[cell / DP_QTREE_LEAVES] += count;
		total += count;
	}
	CHECK(total == 5, "a unit added %llu values with M = 5", (unsigned long long) total);
	CHECK(per_class[0] == 1 && per_class[1] == 1 && per_class[2] == 2 && per_class[3] == 1,
		  "positions 1..5 not in classes 0, 1, 2, 2, 3");
	CHECK(h.units[2] == 1 && h.units[0] + h.units[1] + h.units[3] == 0,
		  "a unit of 5 values not in histogram bin 2");
	dp_rows_add_unit(&q, &h, values + 1, 1, 5);	/* NaN only: no unit */
	CHECK(h.units[0] == 0, "a unit without values was counted");
	dp_quantile_free(&q);
}

/*
 * Units whose first value is 1 and whose others are 9: over classes 0 only
 * the median is about 1, over all classes about 9.
 */
void
test_quantile_rows_upto(void)
{
	dp_quantile q;
	dp_rows_histogram h;
	const double values[] = {1.0, 9.0, 9.0, 9.0};
	test_rng	r;
	int			i;
	int			low = 0;
	int			high = 0;

	test_rng_stream(&r, 1);
	memset(&h, 0, sizeof(h));
	REQUIRE(dp_quantile_init(&q, 0.0, 10.0, 1.0, 4) == DP_OK, "init failed");
	for (i = 0; i < 2000; i++)
		dp_rows_add_unit(&q, &h, values, 4, 4);
	for (i = 0; i < 50; i++)
	{
		low += fabs(dp_quantile_release_rows_upto(RNG(&r), &q, 0.5, 1.0, 1, 0) - 1.0) < 0.1;
		high += fabs(dp_quantile_release_rows_upto(RNG(&r), &q, 0.5, 1.0, 4, 2) - 9.0) < 0.1;
	}
	CHECK(low == 50, "median of class 0 (all 1): %d of 50 releases near 1", low);
	CHECK(high == 50, "median of classes 0..2 (3/4 are 9): %d of 50 releases near 9", high);
	dp_quantile_free(&q);
}

void
test_quantile_rows_choice(void)
{
	double		units[DP_QTREE_ROW_CLASSES] = {0};
	int			c;

	/* 10,000 units of 148 values (bin 7), M = 373, eps 0.09: m = 128 (by hand) */
	units[7] = 10000.0;
	c = dp_rows_best_class(units, 373, 0.5, 0.09);
	CHECK(c == 7, "148 values per unit: class %d chosen, not 7 (m = 128)", c);
	/* the model: noise 2 (m / (eps N_s))^2 is flat below 128, sampling falls */
	CHECK(dp_rows_predicted_error(units, 7, 373, 0.5, 0.09) <
		  dp_rows_predicted_error(units, 6, 373, 0.5, 0.09) &&
		  dp_rows_predicted_error(units, 8, 373, 0.5, 0.09) >
		  1.5 * dp_rows_predicted_error(units, 7, 373, 0.5, 0.09),
		  "predicted errors not minimal at 128 with a margin");
	/* one value per unit: nothing is gained by more */
	memset(units, 0, sizeof(units));
	units[0] = 10000.0;
	c = dp_rows_best_class(units, 373, 0.5, 0.09);
	CHECK(c == 0, "one value per unit: class %d chosen, not 0", c);
	/* noisy counts below zero count as none */
	units[3] = -50.0;
	CHECK(dp_rows_best_class(units, 373, 0.5, 0.09) == 0, "a negative noisy count changed the choice");
	/* large epsilon, few units with many values: all of them (M) */
	memset(units, 0, sizeof(units));
	units[8] = 100.0;			/* 256 .. 373 values */
	c = dp_rows_best_class(units, 373, 0.5, 1000.0);
	CHECK(c == 9, "at eps 1000 every value should be kept: class %d chosen, not 9", c);
}

void
test_quantile_rows_histogram_noise(void)
{
	const int	draws = 40000;
	const double epsilon = 0.5;		/* the release's; the choice gets 0.05 */
	const double expected = 2.0 * (1.0 / (epsilon * DP_ROWS_CHOICE_SHARE)) *
		(1.0 / (epsilon * DP_ROWS_CHOICE_SHARE));
	dp_rows_histogram h;
	double	   *x = malloc(sizeof(double) * draws);
	double		noisy[DP_QTREE_ROW_CLASSES];
	sample_stats s;
	test_rng	r;
	int			i;

	test_rng_stream(&r, 2);
	memset(&h, 0, sizeof(h));
	h.units[4] = 1000;
	for (i = 0; i < draws; i++)
	{
		dp_rows_noisy_histogram(RNG(&r), &h, epsilon * DP_ROWS_CHOICE_SHARE, noisy);
		x[i] = noisy[4] - 1000.0;
	}
	s = stats_of(x, draws);
	CHECK(fabs(s.mean) < 4.5 * s.se_mean, "histogram noise mean %g (se %g)", s.mean, s.se_mean);
	CHECK(fabs(s.var - expected) < 4.5 * s.se_var,
		  "histogram noise variance %g, expected %g (se %g): not scale 1 / (eps / 10)",
		  s.var, expected, s.se_var);
	free(x);
}

void
test_quantile_rows_adaptive(void)
{
	const int	units = 10000;
	const int	per_unit = 148;
	const int	releases = 200;
	dp_quantile q;
	dp_rows_histogram h;
	double	   *values = malloc(sizeof(double) * per_unit);
	test_rng	r;
	int			chose_128 = 0;
	int			close = 0;
	int			u,
				i;

	test_rng_stream(&r, 3);
	memset(&h, 0, sizeof(h));
	REQUIRE(dp_quantile_init(&q, 0.0, 1000.0, 0.1, 373) == DP_OK, "init failed");
	for (u = 0; u < units; u++)
	{
		for (i = 0; i < per_unit; i++)
			values[i] = 1000.0 * test_rng_unit(&r);
		dp_rows_add_unit(&q, &h, values, per_unit, 373);
	}
	for (i = 0; i < releases; i++)
	{
		uint32_t	m = 0;
		double		v = dp_quantile_release_rows_adaptive(RNG(&r), &q, &h, 0.5, &m);

		chose_128 += m == 128;
		close += fabs(v - 500.0) < 5.0;
	}
	CHECK(chose_128 >= 190, "m = 128 chosen in %d of %d releases", chose_128, releases);
	/* rank noise ~ 2 * 0.5 * 128 / 0.09 = 1422 of 1.28e6 values: ~0.6 in value */
	CHECK(close >= 190, "median within 5 of 500 in %d of %d releases", close, releases);
	free(values);
	dp_quantile_free(&q);
}
