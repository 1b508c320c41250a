/*
 * test_aggregate.c -- bounded count, sum, mean and variance (dp_aggregate.h).
 *
 * What is checked: the clamping rule (NaN ignored, +Inf -> upper, -Inf ->
 * lower, huge values move the exact state by at most the bound) for every
 * aggregate, the noise scale of sum and count releases (and that k = 3
 * contributions triple it), the range of mean and variance releases, their
 * accuracy on 1e5 rows, and that merging partial states is exact.
 *
 * Tolerances: noise variances from 100000 releases must lie within 5 standard
 * errors (estimated from the sample's fourth moment, about 0.7% relative) of
 * 2 (k max(|L|, |U|) / epsilon)^2; integer releases add the 1/12 variance of
 * rounding.  A half-scale mechanism is > 20 standard errors away (asserted as
 * a positive control).  Accuracy bounds are fixed: on 1e5 rows the DP error
 * of mean and variance is about 1e-4, so |release - exact sample value| <
 * 0.01, and the sampling error of the data themselves (SE 0.009 for the mean,
 * 0.024 for the variance) is allowed 5+ standard errors.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "test_harness.h"
#include "dp/dp_aggregate.h"
#include "dp/dp_quantile.h"

/* round half away from zero, as dp_units_to_integer does */
static double
round_away(double x)
{
	return round(x);
}

/* ---- clamping ---- */

void
test_clamp_rule(void)
{
	double		c = 0.0;
	dp_sum		s;
	dp_sum		t;
	dp_mean		m;
	dp_mean		m2;
	dp_variance v;
	dp_variance v2;
	dp_quantile q;
	uint32_t	leaf = 12345;
	test_rng	r1;
	test_rng	r2;

	/* the rule itself */
	CHECK(!dp_clamp(NAN, -1.0, 1.0, &c), "dp_clamp(NaN) not ignored");
	CHECK(dp_clamp(INFINITY, -1.0, 1.0, &c) && c == 1.0, "dp_clamp(+Inf) != upper");
	CHECK(dp_clamp(-INFINITY, -1.0, 1.0, &c) && c == -1.0, "dp_clamp(-Inf) != lower");
	CHECK(dp_clamp(0.25, -1.0, 1.0, &c) && c == 0.25, "dp_clamp(0.25) changed the value");
	CHECK(dp_clamp_int64(INT64_MAX, -3, 10) == 10 && dp_clamp_int64(INT64_MIN, -3, 10) == -3,
		  "dp_clamp_int64");

	/* real sum over [-2, 5] */
	REQUIRE(dp_sum_init_real(&s, -2.0, 5.0, 1.0, 1) == DP_OK, "sum init failed");
	dp_sum_add_real(&s, 1.0);
	dp_sum_add_real(&s, 3.5);
	t = s;
	dp_sum_add_real(&t, NAN);
	CHECK(t.units == s.units, "sum: NaN changed the state");
	t = s;
	dp_sum_add_real(&t, INFINITY);
	CHECK(t.units - s.units == dp_units_from_double(&s.plan, 5.0), "sum: +Inf not clamped to 5");
	t = s;
	dp_sum_add_real(&t, -INFINITY);
	CHECK(t.units - s.units == dp_units_from_double(&s.plan, -2.0), "sum: -Inf not clamped to -2");
	t = s;
	dp_sum_add_real(&t, -1e300);
	CHECK(t.units - s.units == dp_units_from_double(&s.plan, -2.0), "sum: -1e300 not clamped");
	t = s;
	dp_sum_add_real(&t, 1e300);
	CHECK(t.units - s.units == dp_units_from_double(&s.plan, 5.0), "sum: 1e300 not clamped");
	/* same seed: the release moves by exactly the upper bound */
	test_rng_stream(&r1, 7);
	test_rng_stream(&r2, 7);
	{
		double		a = dp_sum_release_real(RNG(&r1), &s);
		double		b = dp_sum_release_real(RNG(&r2), &t);

		CHECK(fabs((b - a) - 5.0) <= 1e-9, "sum: adding 1e300 moved the release by %.17g", b - a);
	}
	t = s;
	dp_sum_add_real(&t, NAN);
	test_rng_stream(&r1, 8);
	test_rng_stream(&r2, 8);
	CHECK(dp_sum_release_real(RNG(&r1), &s) == dp_sum_release_real(RNG(&r2), &t),
		  "sum: NaN changed the release");

	/* integer sum and count */
	REQUIRE(dp_sum_init_int(&s, -3, 10, 1.0, 1) == DP_OK, "int sum init failed");
	t = s;
	dp_sum_add_int(&t, INT64_MAX);
	CHECK(t.units - s.units == dp_units_from_int64(&s.plan, 10), "int sum: INT64_MAX not clamped");
	t = s;
	dp_sum_add_int(&t, INT64_MIN);
	CHECK(t.units - s.units == dp_units_from_int64(&s.plan, -3), "int sum: INT64_MIN not clamped");
	REQUIRE(dp_count_init(&s, 5, 1.0, 1) == DP_OK, "count init failed");
	dp_sum_add_int(&s, 7);
	dp_sum_add_int(&s, -1);
	dp_sum_add_int(&s, 2);
	CHECK(dp_units_to_integer(&s.plan, s.units) == 7, "count: clamped total %lld, expected 5 + 0 + 2",
		  (long long) dp_units_to_integer(&s.plan, s.units));

	/* mean over [0, 10] */
	REQUIRE(dp_mean_init(&m, 0.0, 10.0, 1.0, 1) == DP_OK, "mean init failed");
	dp_mean_add(&m, 4.0);
	m2 = m;
	dp_mean_add(&m2, NAN);
	CHECK(m2.count_units == m.count_units && m2.sum_units == m.sum_units, "mean: NaN counted");
	m2 = m;
	dp_mean_add(&m2, INFINITY);
	CHECK(m2.count_units - m.count_units == m.count_one &&
		  m2.sum_units - m.sum_units == dp_units_from_double(&m.sum_plan, 5.0),
		  "mean: +Inf not clamped to the upper bound");
	m2 = m;
	dp_mean_add(&m2, -INFINITY);
	CHECK(m2.count_units - m.count_units == m.count_one &&
		  m2.sum_units - m.sum_units == dp_units_from_double(&m.sum_plan, -5.0),
		  "mean: -Inf not clamped to the lower bound");
	m2 = m;
	dp_mean_add(&m2, 1e300);
	CHECK(m2.sum_units - m.sum_units == dp_units_from_double(&m.sum_plan, 5.0),
		  "mean: 1e300 not clamped");

	/* variance over [0, 10] */
	REQUIRE(dp_variance_init(&v, 0.0, 10.0, 1.0, 1) == DP_OK, "variance init failed");
	dp_variance_add(&v, 4.0);
	v2 = v;
	dp_variance_add(&v2, NAN);
	CHECK(v2.count_units == v.count_units && v2.sum_units == v.sum_units &&
		  v2.square_units == v.square_units, "variance: NaN counted");
	{
		const double inputs[] = {INFINITY, 1e300, -INFINITY, -1e300};
		const double clamped[] = {10.0, 10.0, 0.0, 0.0};
		size_t		i;

		for (i = 0; i < 4; i++)
		{
			dp_variance v3 = v;

			v2 = v;
			dp_variance_add(&v2, inputs[i]);
			dp_variance_add(&v3, clamped[i]);
			CHECK(v2.count_units == v3.count_units && v2.sum_units == v3.sum_units &&
				  v2.square_units == v3.square_units,
				  "variance: %g not treated as %g", inputs[i], clamped[i]);
		}
	}

	/* quantile over [0, 10] */
	REQUIRE(dp_quantile_init(&q, 0.0, 10.0, 1.0, 1) == DP_OK, "quantile init failed");
	CHECK(!dp_quantile_leaf(&q, NAN, &leaf), "quantile: NaN not ignored");
	CHECK(dp_quantile_leaf(&q, INFINITY, &leaf) && leaf == DP_QTREE_LEAVES - 1,
		  "quantile: +Inf not in the last leaf");
	CHECK(dp_quantile_leaf(&q, 1e300, &leaf) && leaf == DP_QTREE_LEAVES - 1,
		  "quantile: 1e300 not in the last leaf");
	CHECK(dp_quantile_leaf(&q, -INFINITY, &leaf) && leaf == 0, "quantile: -Inf not in leaf 0");
	CHECK(dp_quantile_leaf(&q, 10.0, &leaf) && leaf == DP_QTREE_LEAVES - 1,
		  "quantile: upper bound not in the last leaf");
	CHECK(dp_quantile_leaf(&q, 0.0, &leaf) && leaf == 0, "quantile: lower bound not in leaf 0");
	CHECK(dp_quantile_leaf(&q, 5.0, &leaf) && leaf == DP_QTREE_LEAVES / 2,
		  "quantile: midpoint in leaf %u", leaf);
	dp_quantile_add(&q, NAN);
	CHECK(q.used == 0, "quantile: NaN stored");
	dp_quantile_free(&q);
}

/* ---- noise scale of sum and count ---- */

/* variance of n releases of a fixed sum; stores the stats */
static sample_stats
sum_release_stats(test_rng *r, const dp_sum *s, size_t n, bool integer)
{
	double	   *x = malloc(n * sizeof(double));
	sample_stats st;
	size_t		i;

	for (i = 0; i < n; i++)
		x[i] = integer ? (double) dp_sum_release_int(RNG(r), s) : dp_sum_release_real(RNG(r), s);
	st = stats_of(x, n);
	free(x);
	return st;
}

void
test_sum_noise_scale(void)
{
	const struct
	{
		bool		integer;
		double		lower;
		double		upper;
		double		eps;
	}			cases[] = {
		{false, -3.0, 2.0, 0.5},	/* b = 6 k */
		{false, 0.0, 1000.0, 2.0},	/* b = 500 k */
		{true, -10.0, 4.0, 2.0},	/* b = 5 k */
		{true, 0.0, 3.0, 0.1}		/* b = 30 k */
	};
	const size_t n = 100000;
	test_rng	r;
	size_t		c;

	test_rng_stream(&r, 1);
	for (c = 0; c < sizeof(cases) / sizeof(cases[0]); c++)
	{
		sample_stats st[2];
		const uint32_t ks[2] = {1, 3};
		int			j;

		for (j = 0; j < 2; j++)
		{
			dp_sum		s;
			double		b = ks[j] * fmax(fabs(cases[c].lower), fabs(cases[c].upper)) / cases[c].eps;
			double		expected_var = 2.0 * b * b + (cases[c].integer ? 1.0 / 12.0 : 0.0);
			double		exact;
			int			i;
			char		what[128];

			if (cases[c].integer)
			{
				REQUIRE(dp_sum_init_int(&s, (int64_t) cases[c].lower, (int64_t) cases[c].upper,
										cases[c].eps, ks[j]) == DP_OK, "sum init failed");
				for (i = -20; i < 30; i++)
					dp_sum_add_int(&s, i);
			}
			else
			{
				REQUIRE(dp_sum_init_real(&s, cases[c].lower, cases[c].upper,
										 cases[c].eps, ks[j]) == DP_OK, "sum init failed");
				for (i = -20; i < 30; i++)
					dp_sum_add_real(&s, i * 0.37 * cases[c].upper);
			}
			exact = dp_units_to_double(&s.plan, s.units);
			st[j] = sum_release_stats(&r, &s, n, cases[c].integer);
			snprintf(what, sizeof(what), "%s sum [%g, %g] eps %g k %u: noise variance",
					 cases[c].integer ? "int" : "real", cases[c].lower, cases[c].upper,
					 cases[c].eps, ks[j]);
			CHECK_SIGMA(st[j].var, expected_var, st[j].se_var, TEST_NSIG, what);
			snprintf(what, sizeof(what), "%s sum [%g, %g] eps %g k %u: mean release",
					 cases[c].integer ? "int" : "real", cases[c].lower, cases[c].upper,
					 cases[c].eps, ks[j]);
			CHECK_SIGMA(st[j].mean, exact, sqrt(expected_var / n), TEST_NSIG, what);
			CHECK(fabs(st[j].var - 2.0 * (b / 2) * (b / 2)) > 20.0 * st[j].se_var,
				  "control: half-scale sum noise not distinguishable");
			t_note("%s [%g,%g] eps %g k %u: var/expected %.5f (se %.4f)",
				   cases[c].integer ? "int" : "real", cases[c].lower, cases[c].upper,
				   cases[c].eps, ks[j], st[j].var / expected_var, st[j].se_var / expected_var);
		}
		/* k = 3 triples the scale: the variance ratio is 9 */
		{
			double		ratio = st[1].var / st[0].var;
			double		se = ratio * sqrt(pow(st[0].se_var / st[0].var, 2) +
										  pow(st[1].se_var / st[1].var, 2));

			CHECK_SIGMA(ratio, 9.0, se, TEST_NSIG, "variance ratio k=3 / k=1");
		}
	}
}

void
test_count_noise(void)
{
	const int64_t uppers[] = {1, 5};
	const double epsilons[] = {1.0, 0.3};
	const size_t n = 100000;
	test_rng	r;
	size_t		c;
	int			i;

	test_rng_stream(&r, 1);
	for (c = 0; c < 2; c++)
	{
		dp_sum		s;
		double		b = (double) uppers[c] / epsilons[c];
		double		expected_var = 2.0 * b * b + 1.0 / 12.0;
		int64_t		exact = 0;
		sample_stats st;
		char		what[96];

		REQUIRE(dp_count_init(&s, uppers[c], epsilons[c], 1) == DP_OK, "count init failed");
		for (i = 0; i < 300; i++)
		{
			int64_t		per_unit = i % 9 - 2;	/* -2 .. 6, clamped to [0, U] */

			dp_sum_add_int(&s, per_unit);
			exact += dp_clamp_int64(per_unit, 0, uppers[c]);
		}
		CHECK(dp_units_to_integer(&s.plan, s.units) == exact, "count: exact total wrong");
		st = sum_release_stats(&r, &s, n, true);
		snprintf(what, sizeof(what), "count (U=%lld, eps=%g) noise variance",
				 (long long) uppers[c], epsilons[c]);
		CHECK_SIGMA(st.var, expected_var, st.se_var, TEST_NSIG, what);
		snprintf(what, sizeof(what), "count (U=%lld, eps=%g) mean", (long long) uppers[c],
				 epsilons[c]);
		CHECK_SIGMA(st.mean, (double) exact, sqrt(expected_var / n), TEST_NSIG, what);
		CHECK(fabs(st.var - 2.0 * (b / 2) * (b / 2)) > 20.0 * st.se_var,
			  "control: half-scale count noise not distinguishable");
		t_note("count U=%lld eps=%g: var/expected %.5f (se %.4f)", (long long) uppers[c],
			   epsilons[c], st.var / expected_var, st.se_var / expected_var);

		/* the integer release is the real release rounded half away from zero */
		for (i = 0; i < 2000; i++)
		{
			test_rng	clone = r;
			double		real = dp_sum_release_real(RNG(&clone), &s);
			dp_i128		integer = dp_sum_release_int(RNG(&r), &s);

			CHECK((double) integer == round_away(real),
				  "count: integer release %lld is not round(%.17g)", (long long) integer, real);
			if (t_failed())
				break;
		}
	}

	/* a count bounded by 0 is exact (it cannot depend on the data) */
	{
		dp_sum		s;

		REQUIRE(dp_count_init(&s, 0, 1.0, 1) == DP_OK, "count(U = 0) init failed");
		dp_sum_add_int(&s, 5);
		CHECK(dp_sum_release_int(RNG(&r), &s) == 0, "count(U = 0) not exactly 0");
		CHECK(dp_count_init(&s, -1, 1.0, 1) == DP_ERR_BOUND_NEGATIVE, "count(U = -1) accepted");
	}
}

/* ---- mean ---- */

void
test_mean_bounds(void)
{
	const double epsilons[] = {1e-11, 1e-3, 1.0};
	const double lower = -1.0;
	const double upper = 3.0;
	test_rng	r;
	dp_mean		m;
	size_t		e;
	int			state,
				i;

	test_rng_stream(&r, 1);
	for (e = 0; e < sizeof(epsilons) / sizeof(epsilons[0]); e++)
		for (state = 0; state < 3; state++)
		{
			REQUIRE(dp_mean_init(&m, lower, upper, epsilons[e], 1) == DP_OK, "mean init failed");
			if (state == 1)
				dp_mean_add(&m, 2.0);
			if (state == 2)
				for (i = 0; i < 10; i++)
					dp_mean_add(&m, 1e9);	/* all at the upper bound */
			for (i = 0; i < 2000; i++)
			{
				double		x = dp_mean_release(RNG(&r), &m);

				CHECK(isfinite(x) && x >= lower && x <= upper,
					  "mean release %.17g outside [%g, %g] (eps %g, state %d)",
					  x, lower, upper, epsilons[e], state);
				if (t_failed())
					return;
			}
		}

	/* degenerate bounds */
	REQUIRE(dp_mean_init(&m, 2.5, 2.5, 1.0, 1) == DP_OK, "mean init [2.5, 2.5] failed");
	dp_mean_add(&m, 7.0);
	for (i = 0; i < 100; i++)
		CHECK(dp_mean_release(RNG(&r), &m) == 2.5, "mean over [2.5, 2.5] not 2.5");

	CHECK(dp_mean_init(&m, 0.0, 1.0, NAN, 1) == DP_ERR_EPSILON, "mean: NaN epsilon accepted");
	CHECK(dp_mean_init(&m, 0.0, INFINITY, 1.0, 1) == DP_ERR_BOUND_NOT_FINITE,
		  "mean: infinite bound accepted");
	CHECK(dp_mean_init(&m, 0.0, 1e251, 1.0, 1) == DP_ERR_BOUND_NOT_FINITE,
		  "mean: bound 1e251 accepted");
	CHECK(dp_mean_init(&m, 1.0, 0.0, 1.0, 1) == DP_ERR_BOUNDS_ORDER, "mean: lower > upper accepted");
}

/* n values of a dataset: uniform on [0, 10] (kind 0) or N(5, 1.5^2) (kind 1) */
static double *
make_data(test_rng *r, size_t n, int kind)
{
	double	   *x = malloc(n * sizeof(double));
	size_t		i;

	for (i = 0; i < n; i++)
		x[i] = kind == 0 ? 10.0 * test_rng_unit(r) : 5.0 + 1.5 * test_rng_normal(r);
	return x;
}

void
test_mean_accuracy(void)
{
	const size_t n = 100000;
	test_rng	r;
	int			kind;

	test_rng_stream(&r, 1);
	for (kind = 0; kind < 2; kind++)
	{
		double	   *x = make_data(&r, n, kind);
		long double sum = 0.0L;
		double		sample_mean;
		dp_mean		m;
		size_t		i;
		int			k;

		REQUIRE(dp_mean_init(&m, 0.0, 10.0, 1.0, 1) == DP_OK, "mean init failed");
		for (i = 0; i < n; i++)
		{
			double		c = x[i] < 0 ? 0 : (x[i] > 10 ? 10 : x[i]);

			dp_mean_add(&m, x[i]);
			sum += c;
		}
		sample_mean = (double) (sum / n);
		for (k = 0; k < 10; k++)
		{
			double		dp = dp_mean_release(RNG(&r), &m);

			CHECK(fabs(dp - 5.0) < 0.05, "mean of 1e5 values (kind %d): %.6f, |mean - 5| >= 0.05",
				  kind, dp);
			CHECK(fabs(dp - sample_mean) < 0.01,
				  "mean of 1e5 values (kind %d): %.6f vs exact %.6f", kind, dp, sample_mean);
			if (k == 0)
				t_note("kind %d: dp mean %.6f exact %.6f", kind, dp, sample_mean);
		}
		free(x);
	}

	/* empty input: a finite noisy value in [L, U] */
	{
		dp_mean		m;
		double		x;

		REQUIRE(dp_mean_init(&m, 0.0, 10.0, 1.0, 1) == DP_OK, "mean init failed");
		x = dp_mean_release(RNG(&r), &m);
		CHECK(isfinite(x) && x >= 0.0 && x <= 10.0, "empty mean %.17g", x);
	}
}

/* ---- variance ---- */

void
test_variance_bounds(void)
{
	const double epsilons[] = {1e-11, 1e-3, 1.0};
	const double lower = -1.0;
	const double upper = 3.0;
	const double max_var = 4.0;	/* ((U - L) / 2)^2 */
	test_rng	r;
	dp_variance v;
	size_t		e;
	int			state,
				i;

	test_rng_stream(&r, 1);
	for (e = 0; e < sizeof(epsilons) / sizeof(epsilons[0]); e++)
		for (state = 0; state < 3; state++)
		{
			REQUIRE(dp_variance_init(&v, lower, upper, epsilons[e], 1) == DP_OK,
					"variance init failed");
			for (i = 0; i < 20 * state; i++)	/* state 2: half at L, half at U */
				dp_variance_add(&v, state == 1 ? 2.0 : (i % 2 ? -INFINITY : INFINITY));
			for (i = 0; i < 2000; i++)
			{
				double		x = dp_variance_release(RNG(&r), &v);

				CHECK(isfinite(x) && x >= 0.0 && x <= max_var,
					  "variance release %.17g outside [0, %g] (eps %g, state %d)",
					  x, max_var, epsilons[e], state);
				if (t_failed())
					return;
			}
		}
	/* at eps = 1e4 the release is essentially exact: variance of {L, U, ...} = 4 */
	REQUIRE(dp_variance_init(&v, lower, upper, 1e4, 1) == DP_OK, "variance init failed");
	for (i = 0; i < 1000; i++)
		dp_variance_add(&v, i % 2 ? lower : upper);
	{
		double		x = dp_variance_release(RNG(&r), &v);

		CHECK(fabs(x - max_var) < 1e-3, "variance of half L / half U = %.9g, expected 4", x);
	}
	CHECK(dp_variance_init(&v, -1e250, 1e250, 1.0, 1) == DP_ERR_NOISE_SCALE,
		  "variance: bounds whose squared width overflows accepted");
	CHECK(dp_variance_init(&v, 0.0, 1.0, INFINITY, 1) == DP_ERR_EPSILON,
		  "variance: infinite epsilon accepted");
}

void
test_variance_accuracy(void)
{
	const size_t n = 100000;
	const double theory[2] = {100.0 / 12.0, 2.25};
	test_rng	r;
	int			kind;

	test_rng_stream(&r, 1);
	for (kind = 0; kind < 2; kind++)
	{
		double	   *x = make_data(&r, n, kind);
		long double sum = 0.0L;
		long double sum2 = 0.0L;
		long double mean;
		double		sample_var;
		dp_variance v;
		size_t		i;
		int			k;

		REQUIRE(dp_variance_init(&v, 0.0, 10.0, 1.0, 1) == DP_OK, "variance init failed");
		for (i = 0; i < n; i++)
		{
			double		c = x[i] < 0 ? 0 : (x[i] > 10 ? 10 : x[i]);

			dp_variance_add(&v, x[i]);
			sum += c;
		}
		mean = sum / n;
		for (i = 0; i < n; i++)
		{
			long double c = x[i] < 0 ? 0 : (x[i] > 10 ? 10 : x[i]);

			sum2 += (c - mean) * (c - mean);
		}
		sample_var = (double) (sum2 / n);	/* population variance */
		for (k = 0; k < 10; k++)
		{
			double		dp = dp_variance_release(RNG(&r), &v);

			CHECK(fabs(dp - sample_var) < 0.01,
				  "variance of 1e5 values (kind %d): %.6f vs exact %.6f", kind, dp, sample_var);
			/* the data's own sampling SE is 0.024 (uniform) and 0.010 (normal) */
			CHECK(fabs(dp - theory[kind]) < 0.15,
				  "variance of 1e5 values (kind %d): %.6f vs %.6f", kind, dp, theory[kind]);
			CHECK(fabs(sqrt(dp) - sqrt(sample_var)) < 0.005,
				  "stddev of 1e5 values (kind %d): %.6f vs exact %.6f", kind, sqrt(dp),
				  sqrt(sample_var));
			if (k == 0)
				t_note("kind %d: dp variance %.6f exact %.6f theory %.6f", kind, dp,
					   sample_var, theory[kind]);
		}
		free(x);
	}
}

/* ---- merge ---- */

void
test_aggregate_merge(void)
{
	const size_t n = 5000;
	test_rng	r;
	double	   *x;
	dp_sum		sum_all,
				sum_a,
				sum_b;
	dp_sum		int_all,
				int_a,
				int_b;
	dp_sum		cnt_all,
				cnt_a,
				cnt_b;
	dp_mean		mean_all,
				mean_a,
				mean_b;
	dp_variance var_all,
				var_a,
				var_b;
	size_t		i;

	test_rng_stream(&r, 1);
	x = malloc(n * sizeof(double));
	for (i = 0; i < n; i++)
		x[i] = 14.0 * test_rng_unit(&r) - 2.0;	/* some outside [0, 10] */
	x[17] = NAN;
	x[18] = INFINITY;
	x[19] = -INFINITY;

	REQUIRE(dp_sum_init_real(&sum_all, 0.0, 10.0, 1.0, 1) == DP_OK, "init");
	sum_a = sum_b = sum_all;
	REQUIRE(dp_sum_init_int(&int_all, -1, 9, 1.0, 2) == DP_OK, "init");
	int_a = int_b = int_all;
	REQUIRE(dp_count_init(&cnt_all, 3, 1.0, 1) == DP_OK, "init");
	cnt_a = cnt_b = cnt_all;
	REQUIRE(dp_mean_init(&mean_all, 0.0, 10.0, 1.0, 1) == DP_OK, "init");
	mean_a = mean_b = mean_all;
	REQUIRE(dp_variance_init(&var_all, 0.0, 10.0, 1.0, 1) == DP_OK, "init");
	var_a = var_b = var_all;

	for (i = 0; i < n; i++)
	{
		bool		first = (i * 7919) % 3 != 0;	/* uneven split */
		int64_t		xi = isfinite(x[i]) ? (int64_t) floor(x[i]) : 0;

		dp_sum_add_real(&sum_all, x[i]);
		dp_sum_add_real(first ? &sum_a : &sum_b, x[i]);
		dp_sum_add_int(&int_all, xi);
		dp_sum_add_int(first ? &int_a : &int_b, xi);
		dp_sum_add_int(&cnt_all, xi);
		dp_sum_add_int(first ? &cnt_a : &cnt_b, xi);
		dp_mean_add(&mean_all, x[i]);
		dp_mean_add(first ? &mean_a : &mean_b, x[i]);
		dp_variance_add(&var_all, x[i]);
		dp_variance_add(first ? &var_a : &var_b, x[i]);
	}
	dp_sum_merge(&sum_a, &sum_b);
	dp_sum_merge(&int_b, &int_a);	/* either direction */
	dp_sum_merge(&cnt_a, &cnt_b);
	dp_mean_merge(&mean_a, &mean_b);
	dp_variance_merge(&var_b, &var_a);

	CHECK(sum_a.units == sum_all.units, "real sum: merged units differ");
	CHECK(int_b.units == int_all.units, "int sum: merged units differ");
	CHECK(cnt_a.units == cnt_all.units, "count: merged units differ");
	CHECK(mean_a.count_units == mean_all.count_units && mean_a.sum_units == mean_all.sum_units,
		  "mean: merged units differ");
	CHECK(var_b.count_units == var_all.count_units && var_b.sum_units == var_all.sum_units &&
		  var_b.square_units == var_all.square_units, "variance: merged units differ");

	/* identical states give identical releases for the same random bits */
	{
		test_rng	r1;
		test_rng	r2;

		test_rng_stream(&r1, 9);
		r2 = r1;
		CHECK(dp_sum_release_real(RNG(&r1), &sum_a) == dp_sum_release_real(RNG(&r2), &sum_all),
			  "real sum: merged release differs");
		CHECK(dp_mean_release(RNG(&r1), &mean_a) == dp_mean_release(RNG(&r2), &mean_all),
			  "mean: merged release differs");
		CHECK(dp_variance_release(RNG(&r1), &var_b) == dp_variance_release(RNG(&r2), &var_all),
			  "variance: merged release differs");
	}

	/* merging an empty state is the identity */
	{
		dp_sum		empty;
		dp_i128		before = sum_all.units;

		REQUIRE(dp_sum_init_real(&empty, 0.0, 10.0, 1.0, 1) == DP_OK, "init");
		dp_sum_merge(&sum_all, &empty);
		CHECK(sum_all.units == before, "merging an empty sum changed the state");
	}
	free(x);
}

/* ---- per-contribution sensitivity in grid units ---- */

/*
 * A plan with epsilon e, k contributions and integer scale t is e-DP for a
 * sum of contributions only if one contribution moves the exact sum by at
 * most e t / k grid units (discrete Laplace: privacy loss |delta| / t per
 * unit moved, k contributions).  units is the largest such move.
 */
static double
budget_ratio(const dp_noise_plan *plan, long double units)
{
	long double allowed = (long double) plan->epsilon * (long double) plan->t /
		(long double) plan->contributions;

	if (plan->t == 0)
		return units == 0.0L ? 0.0 : INFINITY;
	return (double) (fabsl(units) / allowed);
}

/* largest budget ratio over the contributions of mean / variance bounds */
static void
mean_variance_ratios(double lower, double upper, double eps, test_rng *r,
					 double *mean_sum, double *var_sum, double *var_square)
{
	dp_mean		m;
	dp_variance v;
	int			i;

	*mean_sum = *var_sum = *var_square = 0.0;
	if (dp_mean_init(&m, lower, upper, eps, 1) != DP_OK ||
		dp_variance_init(&v, lower, upper, eps, 1) != DP_OK)
	{
		*mean_sum = *var_sum = *var_square = NAN;
		return;
	}
	for (i = 0; i < 1003; i++)
	{
		double		c;
		double		d;

		/* both bounds, the midpoint, then random values inside */
		c = i == 0 ? lower : i == 1 ? upper : i == 2 ? m.midpoint :
			lower + (upper - lower) * test_rng_unit(r);
		if (!dp_clamp(c, lower, upper, &c))
			continue;
		*mean_sum = fmax(*mean_sum, budget_ratio(&m.sum_plan,
												 (long double) dp_units_from_double(&m.sum_plan, c - m.midpoint)));
		d = c - v.midpoint;
		*var_sum = fmax(*var_sum, budget_ratio(&v.sum_plan,
											   (long double) dp_units_from_double(&v.sum_plan, d)));
		*var_square = fmax(*var_square, budget_ratio(&v.square_plan,
													 (long double) dp_units_from_double(&v.square_plan,
																						d * d - v.square_centre)));
	}
	/* the counts: one contribution adds count_one units */
	CHECK(budget_ratio(&m.count_plan, (long double) m.count_one) <= 1.0, "mean count over budget");
	CHECK(budget_ratio(&v.count_plan, (long double) v.count_one) <= 1.0,
		  "variance count over budget");
}

void
test_aggregate_sensitivity(void)
{
	const struct
	{
		double		lower;
		double		upper;
	}			bounds[] = {
		{-3.0, 7.0}, {0.0, 1.0}, {0.1, 0.3}, {-1e250, 1e250}, {1e-200, 3e-200},
		{5.0, 5.0}, {-1.0, 0.0}, {999.0, 1001.0}, {0.0, 1e9}
	};
	const double epsilons[] = {1e-6, 0.01, 1.0, 100.0, 1e5};
	test_rng	r;
	size_t		b,
				e;

	test_rng_stream(&r, 1);
	for (b = 0; b < sizeof(bounds) / sizeof(bounds[0]); b++)
		for (e = 0; e < sizeof(epsilons) / sizeof(epsilons[0]); e++)
		{
			double		lower = bounds[b].lower;
			double		upper = bounds[b].upper;
			double		eps = epsilons[e];
			dp_sum		s;
			double		ms,
						vs,
						vq;
			int			i;

			/* real sum: contributions are the clamped values themselves */
			if (dp_sum_init_real(&s, lower, upper, eps, 3) == DP_OK)
				for (i = 0; i < 3; i++)
				{
					double		c = i == 0 ? lower : i == 1 ? upper : 0.5 * (lower + upper);

					CHECK(budget_ratio(&s.plan, (long double) dp_units_from_double(&s.plan, c)) <= 1.0,
						  "sum [%g, %g] eps %g: contribution %g over budget", lower, upper, eps, c);
				}
			/* integer sum at the extremes of int64 */
			REQUIRE(dp_sum_init_int(&s, INT64_MIN, INT64_MAX, eps, 1) == DP_OK, "int sum init");
			CHECK(budget_ratio(&s.plan, (long double) dp_units_from_int64(&s.plan, INT64_MIN)) <= 1.0 &&
				  budget_ratio(&s.plan, (long double) dp_units_from_int64(&s.plan, INT64_MAX)) <= 1.0,
				  "int sum [INT64_MIN, INT64_MAX] eps %g over budget", eps);

			if (fabs(upper - lower) > 1e249)
				continue;		/* variance of these bounds overflows by design */
			mean_variance_ratios(lower, upper, eps, &r, &ms, &vs, &vq);
			CHECK(ms <= 1.0 && vs <= 1.0 && vq <= 1.0,
				  "[%g, %g] eps %g: contribution / budget = %.17g (mean sum), %.17g (variance "
				  "sum), %.17g (variance square)", lower, upper, eps, ms, vs, vq);
		}
}

/*
 * dp_mean and dp_variance centre each contribution on midpoint = L/2 + U/2
 * and plan their noise for a sensitivity of U/2 - L/2, but midpoint is
 * rounded to a double: when the bounds are narrow next to their magnitude, a
 * contribution at a bound lies up to half an ulp of the midpoint farther
 * than U/2 - L/2, and the grid slack does not cover it.  The analyst chooses
 * the bounds, so the privacy loss of the sum (and of the squares, where the
 * error is squared in) exceeds the epsilon share the plan was built for.
 * Each case must keep every contribution within epsilon * t / k grid units.
 */
void
test_mean_variance_narrow_bounds(void)
{
	const struct
	{
		double		lower;
		double		upper;
		double		eps;
	}			bounds[] = {
		{1.0, 1.0000000000000002, 1.0},	/* adjacent doubles */
		{1e6, 1e6 + 3 * 0x1p-33, 1.0},	/* three ulps of 1e6 apart */
		{1e6, 1e6 + 0.001, 1.0},
		{1000.0, 1000.1, 100.0}
	};
	test_rng	r;
	size_t		b;

	test_rng_stream(&r, 1);
	for (b = 0; b < sizeof(bounds) / sizeof(bounds[0]); b++)
	{
		double		ms,
					vs,
					vq;

		mean_variance_ratios(bounds[b].lower, bounds[b].upper, bounds[b].eps, &r, &ms, &vs, &vq);
		t_note("[%.17g, %.17g] eps %g: contribution / budget %.12g (mean sum) %.12g (variance sum) "
			   "%.12g (variance square)", bounds[b].lower, bounds[b].upper, bounds[b].eps, ms, vs, vq);
		CHECK(ms <= 1.0, "mean over [%.17g, %.17g] eps %g: a contribution moves the sum by %.12g "
			  "times the units its epsilon share allows", bounds[b].lower, bounds[b].upper,
			  bounds[b].eps, ms);
		CHECK(vs <= 1.0 && vq <= 1.0, "variance over [%.17g, %.17g] eps %g: a contribution moves "
			  "the sum by %.12g and the squares by %.12g times the allowed units",
			  bounds[b].lower, bounds[b].upper, bounds[b].eps, vs, vq);
	}
}

/* a released sum moved into what a sum of values in [lower, upper] can be */
void
test_sum_within_bounds(void)
{
	CHECK(dp_sum_within_bounds(-2557.26, 0, 2000) == 0, "negative sum of [0, 2000] kept");
	CHECK(dp_sum_within_bounds(-3, 0.5, 2) == 0, "negative sum of [0.5, 2] kept");
	CHECK(dp_sum_within_bounds(12.5, 0, 2000) == 12.5, "positive sum of [0, 2000] moved");
	CHECK(dp_sum_within_bounds(7, -10, 0) == 0, "positive sum of [-10, 0] kept");
	CHECK(dp_sum_within_bounds(-7, -10, 0) == -7, "negative sum of [-10, 0] moved");
	CHECK(dp_sum_within_bounds(-7, -1, 1) == -7 && dp_sum_within_bounds(7, -1, 1) == 7,
		  "a sum of [-1, 1] moved");
	CHECK(dp_sum_within_bounds(0.25, 0, 0) == 0, "a sum of [0, 0] is 0");
}
