/*
 * test_sampler.c -- the exact integer samplers of dp_sampler.h.
 *
 * What is checked: uniform_below (64 and 128 bit), Bernoulli(num/den),
 * Bernoulli(exp(-gamma)), the geometric sampler, the discrete Laplace
 * distribution over scales 1e-3 .. 1e9 (and 2^40, 2^56), and the discrete
 * Gaussian.
 *
 * Tolerances: every frequency, mean and variance must lie within 5 standard
 * errors of the exact value (binomial SE for frequencies, the sample's own
 * fourth moment for variances); every chi-square goodness-of-fit test must
 * have p-value > 1e-6 (about 4.9 sigma), with bins merged so each expects at
 * least 5 counts.  Each such check fails by chance with probability about
 * 1e-6, so with roughly a hundred of them in the suite a random seed fails
 * one with probability around 1e-4 (TEST_SEED=1..100 all pass), while the
 * positive controls below (a scale 1.1x or 2x off, a modulo-biased uniform)
 * are rejected at p < 1e-6 or by more than 20 standard errors.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "test_harness.h"
#include "dp/dp_sampler.h"

#define TWO64 18446744073709551616.0

static double
u128_to_double(dp_u128 x)
{
	return (double) (uint64_t) (x >> 64) * TWO64 + (double) (uint64_t) x;
}

/* ---- uniform_below ---- */

static void
chi2_uniform_small(test_rng *r, uint64_t n, int draws)
{
	double		observed[16] = {0};
	double		prob[16];
	double		stat;
	double		p;
	uint64_t	i;

	for (i = 0; i < (uint64_t) draws; i++)
	{
		uint64_t	x = dp_uniform_below(RNG(r), n);

		REQUIRE(x < n, "uniform_below(%llu) returned %llu", (unsigned long long) n,
				(unsigned long long) x);
		observed[x]++;
	}
	for (i = 0; i < n; i++)
		prob[i] = 1.0 / (double) n;
	p = chi2_test(observed, prob, (int) n, draws, &stat);
	t_note("n=%llu chi2=%.2f df=%d p=%.3g", (unsigned long long) n, stat, (int) n - 1, p);
	CHECK(p > TEST_P_CRIT, "uniform_below(%llu): chi-square %.2f, p = %.3g",
		  (unsigned long long) n, stat, p);
}

/* mean of x/n and 6-bucket chi-square for a large n */
static void
check_uniform_large(test_rng *r, uint64_t n, int draws)
{
	double		observed[6] = {0};
	double		prob[6];
	double		sum = 0.0;
	double		stat;
	double		p;
	int			i;

	for (i = 0; i < draws; i++)
	{
		uint64_t	x = dp_uniform_below(RNG(r), n);
		int			bucket;

		REQUIRE(x < n, "uniform_below(%llu) returned %llu", (unsigned long long) n,
				(unsigned long long) x);
		sum += (double) x / (double) n;
		bucket = (int) (((dp_u128) x * 6) / n);
		observed[bucket]++;
	}
	for (i = 0; i < 6; i++)
		prob[i] = 1.0 / 6.0;		/* n is large: bucket sizes differ by < 1e-18 */
	CHECK_SIGMA(sum / draws, 0.5, sqrt(1.0 / 12.0 / draws), TEST_NSIG,
				"uniform_below(large n): mean of x/n");
	p = chi2_test(observed, prob, 6, draws, &stat);
	t_note("n=%llu mean=%.5f chi2=%.2f p=%.3g", (unsigned long long) n, sum / draws, stat, p);
	CHECK(p > TEST_P_CRIT, "uniform_below(%llu): 6-bucket chi-square %.2f, p = %.3g",
		  (unsigned long long) n, stat, p);
}

void
test_uniform_below(void)
{
	test_rng	r;
	const uint64_t big = (UINT64_C(3) << 62);	/* 1.5 * 2^63: rejects 1/4 of the words */
	double		observed[6] = {0};
	double		prob[6];
	double		stat;
	double		p;
	int			i;

	test_rng_stream(&r, 1);
	chi2_uniform_small(&r, 10, 1000000);
	chi2_uniform_small(&r, 7, 1000000);
	for (i = 0; i < 1000; i++)
		CHECK(dp_uniform_below(RNG(&r), 1) == 0, "uniform_below(1) must be 0");

	check_uniform_large(&r, (UINT64_C(1) << 63) - 25, 200000);
	check_uniform_large(&r, (UINT64_C(1) << 63) + 1, 200000);	/* rejects ~1/2 */
	check_uniform_large(&r, big, 200000);
	check_uniform_large(&r, UINT64_MAX, 200000);

	/*
	 * Positive control: plain "word % n" (no rejection) for n = 1.5 * 2^63
	 * puts twice the mass on [0, 2^62) and must be rejected by the same
	 * 6-bucket test.
	 */
	for (i = 0; i < 200000; i++)
		observed[(int) (((dp_u128) (test_rng_next(&r) % big) * 6) / big)]++;
	for (i = 0; i < 6; i++)
		prob[i] = 1.0 / 6.0;
	p = chi2_test(observed, prob, 6, 200000, &stat);
	CHECK(p < TEST_P_CRIT, "control: modulo-biased sampler not detected (p = %.3g)", p);
}

void
test_uniform_below_u128(void)
{
	test_rng	r;
	const dp_u128 cases[] = {
		((dp_u128) 1 << 100) + 12345,
		(dp_u128) 3 << 126,		/* > 2^127: rejects 1/4 of the words */
		((dp_u128) 1 << 64) + 1,	/* smallest n on the 128-bit path */
		(dp_u128) UINT64_MAX	/* largest n on the 64-bit path */
	};
	const int	draws = 200000;
	size_t		c;
	int			i;

	test_rng_stream(&r, 1);
	for (c = 0; c < sizeof(cases) / sizeof(cases[0]); c++)
	{
		dp_u128		n = cases[c];
		double		nd = u128_to_double(n);
		double		observed[6] = {0};
		double		prob[6];
		double		sum = 0.0;
		double		stat;
		double		p;

		for (i = 0; i < draws; i++)
		{
			dp_u128		x = dp_uniform_below_u128(RNG(&r), n);
			double		ratio = u128_to_double(x) / nd;
			int			bucket = (int) (ratio * 6.0);

			REQUIRE(x < n, "uniform_below_u128: result outside [0, n) (case %zu)", c);
			if (bucket > 5)
				bucket = 5;
			sum += ratio;
			observed[bucket]++;
		}
		for (i = 0; i < 6; i++)
			prob[i] = 1.0 / 6.0;
		CHECK_SIGMA(sum / draws, 0.5, sqrt(1.0 / 12.0 / draws), TEST_NSIG,
					"uniform_below_u128: mean of x/n");
		p = chi2_test(observed, prob, 6, draws, &stat);
		t_note("case %zu n=%.6g mean=%.5f chi2=%.2f p=%.3g", c, nd, sum / draws, stat, p);
		CHECK(p > TEST_P_CRIT, "uniform_below_u128 case %zu: chi-square %.2f, p = %.3g",
			  c, stat, p);
	}

	/* small n through the 128-bit entry point */
	{
		double		observed[10] = {0};
		double		prob[10];
		double		stat;
		double		p;

		for (i = 0; i < 500000; i++)
		{
			dp_u128		x = dp_uniform_below_u128(RNG(&r), 10);

			REQUIRE(x < 10, "uniform_below_u128(10) out of range");
			observed[(int) x]++;
		}
		for (i = 0; i < 10; i++)
			prob[i] = 0.1;
		p = chi2_test(observed, prob, 10, 500000, &stat);
		CHECK(p > TEST_P_CRIT, "uniform_below_u128(10): chi-square %.2f, p = %.3g", stat, p);
	}
}

/* ---- Bernoulli ---- */

static void
check_frequency(long hits, long trials, double p, const char *what)
{
	double		freq = (double) hits / (double) trials;

	if (p <= 0.0 || p >= 1.0)
	{
		CHECK(freq == p, "%s: probability %g must be exact, got %.6g", what, p, freq);
		return;
	}
	CHECK_SIGMA(freq, p, sqrt(p * (1.0 - p) / (double) trials), TEST_NSIG, what);
}

void
test_bernoulli(void)
{
	test_rng	r;
	const dp_u128 big = ((dp_u128) 1 << 100) + 1;
	const struct
	{
		dp_u128		num;
		dp_u128		den;
	}			cases[] = {
		{0, 1}, {1, 1}, {0, 12345}, {7, 7}, {1, 2}, {1, 3}, {2, 3},
		{1, 1000}, {999, 1000}, {big / 3, big}, {big - 1, big},
		{((dp_u128) 1 << 70) / 10, (dp_u128) 1 << 70}
	};
	const long	trials = 200000;
	size_t		c;

	test_rng_stream(&r, 1);
	for (c = 0; c < sizeof(cases) / sizeof(cases[0]); c++)
	{
		long		hits = 0;
		long		i;
		double		p = (double) ((long double) u128_to_double(cases[c].num) /
								  (long double) u128_to_double(cases[c].den));
		char		what[64];

		if (cases[c].num == cases[c].den)
			p = 1.0;
		for (i = 0; i < trials; i++)
			hits += dp_bernoulli(RNG(&r), cases[c].num, cases[c].den);
		snprintf(what, sizeof(what), "bernoulli case %zu (p = %.6g)", c, p);
		t_note("%s: freq %.6f", what, (double) hits / trials);
		check_frequency(hits, trials, p, what);
	}
}

void
test_bernoulli_exp(void)
{
	test_rng	r;
	const dp_u128 e15 = 1000000000000000ULL;
	const struct
	{
		dp_u128		num;
		dp_u128		den;
	}			cases[] = {
		{0, 1}, {1, 10}, {1, 2}, {1, 1}, {5, 2}, {10, 1},
		{(dp_u128) 1 << 79, (dp_u128) 1 << 80},	/* 0.5 with a 128-bit den */
		{3 * e15 * e15, e15 * e15}	/* 3 with den = 1e30 */
	};
	const long	trials = 400000;
	size_t		c;

	test_rng_stream(&r, 1);
	for (c = 0; c < sizeof(cases) / sizeof(cases[0]); c++)
	{
		double		gamma = u128_to_double(cases[c].num) / u128_to_double(cases[c].den);
		double		p = exp(-gamma);
		long		hits = 0;
		long		i;
		char		what[64];

		for (i = 0; i < trials; i++)
			hits += dp_bernoulli_exp(RNG(&r), cases[c].num, cases[c].den);
		snprintf(what, sizeof(what), "bernoulli_exp(gamma = %g)", gamma);
		t_note("%s: freq %.6g expected %.6g", what, (double) hits / trials, p);
		check_frequency(hits, trials, p, what);
	}
}

void
test_geometric_exp(void)
{
	test_rng	r;
	const struct
	{
		uint64_t	num;
		uint64_t	den;
		long		trials;
	}			cases[] = {
		{1, 1, 200000}, {1, 2, 200000}, {3, 1, 200000}, {1, 20, 40000}
	};
	size_t		c;

	test_rng_stream(&r, 1);
	for (c = 0; c < sizeof(cases) / sizeof(cases[0]); c++)
	{
		double		g = (double) cases[c].num / (double) cases[c].den;
		double		e = exp(-g);
		double		mean = e / (1.0 - e);
		double		var = e / ((1.0 - e) * (1.0 - e));
		double		sum = 0.0;
		long		zeros = 0;
		long		i;
		char		what[64];

		for (i = 0; i < cases[c].trials; i++)
		{
			uint64_t	v = dp_geometric_exp(RNG(&r), cases[c].num, cases[c].den);

			sum += (double) v;
			zeros += (v == 0);
		}
		snprintf(what, sizeof(what), "geometric_exp(g = %g) mean", g);
		t_note("%s: %.5f expected %.5f", what, sum / cases[c].trials, mean);
		CHECK_SIGMA(sum / cases[c].trials, mean, sqrt(var / cases[c].trials), TEST_NSIG, what);
		snprintf(what, sizeof(what), "geometric_exp(g = %g) P(V = 0)", g);
		check_frequency(zeros, cases[c].trials, 1.0 - e, what);
	}
}

/* ---- discrete Laplace ---- */

/* a = exp(-s/t) and 1 - a, accurately */
static void
dlap_a(uint64_t t, uint64_t s, long double *a, long double *one_minus_a)
{
	long double x = (long double) s / (long double) t;

	*a = expl(-x);
	*one_minus_a = -expm1l(-x);
}

void
test_discrete_laplace_moments(void)
{
	test_rng	r;
	const struct
	{
		uint64_t	t;
		uint64_t	s;
	}			cases[] = {
		{1, 1000},				/* scale 1e-3 */
		{1, 1},
		{1000, 1},
		{1000000, 1000},		/* scale 1e3 through the division by s */
		{1000000, 1},
		{UINT64_C(1) << 40, 1},
		{1000000000, 1}			/* scale 1e9 */
	};
	const size_t n = 200000;
	double	   *z = malloc(n * sizeof(double));
	size_t		c;

	test_rng_stream(&r, 1);
	for (c = 0; c < sizeof(cases) / sizeof(cases[0]); c++)
	{
		uint64_t	t = cases[c].t;
		uint64_t	s = cases[c].s;
		double		scale = (double) t / (double) s;
		long double a;
		long double oma;
		double		var_exact;
		double		half_var;
		uint64_t	k;
		double		tail_exact;
		long		tail_hits = 0;
		sample_stats st;
		size_t		i;
		char		what[96];

		dlap_a(t, s, &a, &oma);
		var_exact = (double) (2.0L * a / (oma * oma));
		for (i = 0; i < n; i++)
		{
			int64_t		v = dp_discrete_laplace(RNG(&r), t, s);

			z[i] = (double) v;
		}
		st = stats_of(z, n);
		t_note("t=%llu s=%llu mean=%.6g var=%.6g exact var=%.6g (ratio %.5f)",
			   (unsigned long long) t, (unsigned long long) s, st.mean, st.var,
			   var_exact, st.var / var_exact);

		if (scale < 0.01)
		{
			/* P(Z != 0) = 2a/(1+a) ~ 2e^-1000: every draw must be 0 */
			CHECK(st.mean == 0.0 && st.var == 0.0,
				  "discrete_laplace(%llu, %llu): nonzero draw at scale %g",
				  (unsigned long long) t, (unsigned long long) s, scale);
			continue;
		}
		snprintf(what, sizeof(what), "discrete_laplace(t=%llu, s=%llu) mean",
				 (unsigned long long) t, (unsigned long long) s);
		CHECK_SIGMA(st.mean, 0.0, sqrt(var_exact / n), TEST_NSIG, what);
		snprintf(what, sizeof(what), "discrete_laplace(t=%llu, s=%llu) variance",
				 (unsigned long long) t, (unsigned long long) s);
		CHECK_SIGMA(st.var, var_exact, st.se_var, TEST_NSIG, what);

		/* positive control: a half-scale sampler has a quarter of the variance */
		{
			long double ha;
			long double homa;

			dlap_a(t, 2 * s, &ha, &homa);
			half_var = (double) (2.0L * ha / (homa * homa));
			CHECK(fabs(st.var - half_var) > 20.0 * st.se_var,
				  "control: variance %.6g not distinguishable from half scale %.6g",
				  st.var, half_var);
		}

		/* tail mass P(|Z| >= k) = 2 a^k / (1 + a), k about twice the scale */
		k = (uint64_t) llround(2.0 * scale);
		if (k < 1)
			k = 1;
		tail_exact = (double) (2.0L * powl(a, (long double) k) / (1.0L + a));
		for (i = 0; i < n; i++)
			tail_hits += (fabs(z[i]) >= (double) k);
		snprintf(what, sizeof(what), "discrete_laplace(t=%llu, s=%llu) P(|Z| >= %llu)",
				 (unsigned long long) t, (unsigned long long) s, (unsigned long long) k);
		check_frequency(tail_hits, (long) n, tail_exact, what);
	}
	free(z);
}

/*
 * Chi-square of draws against a two-sided geometric pmf with ratio a; bins
 * are (-inf, -K], -K+1 .. K-1, [K, inf) with K the largest z whose expected
 * count is at least 5.  Returns the p-value.
 */
static double
dlap_chi2(const int64_t *z, size_t n, long double a, long double oma, double *stat_out,
		  int *bins_out)
{
	int			K = 0;
	int			k;
	int			bins;
	double	   *observed;
	double	   *prob;
	size_t		i;
	double		p;

	while ((double) (n * (oma / (1.0L + a)) * powl(a, K + 1)) >= 5.0 && K < 100000)
		K++;
	bins = 2 * K + 1;
	observed = calloc(bins, sizeof(double));
	prob = calloc(bins, sizeof(double));
	for (k = -K; k <= K; k++)
	{
		long double pk = (oma / (1.0L + a)) * powl(a, (long double) (k < 0 ? -k : k));

		if (k == -K || k == K)
			pk = powl(a, (long double) K) / (1.0L + a);	/* P(Z >= K) */
		prob[k + K] = (double) pk;
	}
	for (i = 0; i < n; i++)
	{
		int64_t		v = z[i];

		if (v < -K)
			v = -K;
		if (v > K)
			v = K;
		observed[v + K]++;
	}
	p = chi2_test(observed, prob, bins, (double) n, stat_out);
	*bins_out = bins;
	free(observed);
	free(prob);
	return p;
}

void
test_discrete_laplace_chi2(void)
{
	test_rng	r;
	const struct
	{
		uint64_t	t;
		uint64_t	s;
	}			cases[] = {
		{1, 2},					/* scale 0.5 */
		{1, 1},
		{3, 1},
		{7, 3},					/* non-integer scale 7/3 */
		{20, 1},
		{UINT64_C(1) << 56, UINT64_C(1) << 56}	/* scale 1 at the largest t */
	};
	const size_t n = 200000;
	int64_t    *z = malloc(n * sizeof(int64_t));
	size_t		c;

	test_rng_stream(&r, 1);
	for (c = 0; c < sizeof(cases) / sizeof(cases[0]); c++)
	{
		long double a;
		long double oma;
		double		stat;
		double		p;
		int			bins;
		size_t		i;

		dlap_a(cases[c].t, cases[c].s, &a, &oma);
		for (i = 0; i < n; i++)
			z[i] = dp_discrete_laplace(RNG(&r), cases[c].t, cases[c].s);
		p = dlap_chi2(z, n, a, oma, &stat, &bins);
		t_note("t=%llu s=%llu: chi2 %.2f over %d bins, p = %.3g",
			   (unsigned long long) cases[c].t, (unsigned long long) cases[c].s,
			   stat, bins, p);
		CHECK(p > TEST_P_CRIT,
			  "discrete_laplace(t=%llu, s=%llu): chi-square %.2f over %d bins, p = %.3g",
			  (unsigned long long) cases[c].t, (unsigned long long) cases[c].s,
			  stat, bins, p);

		/* positive control: the same draws against a scale 1.1x too large */
		{
			long double x = (long double) cases[c].s / (1.1L * (long double) cases[c].t);
			long double ca = expl(-x);
			long double coma = -expm1l(-x);

			p = dlap_chi2(z, n, ca, coma, &stat, &bins);
			CHECK(p < TEST_P_CRIT,
				  "control: scale 1.1x not rejected for t=%llu s=%llu (p = %.3g)",
				  (unsigned long long) cases[c].t, (unsigned long long) cases[c].s, p);
		}
	}
	free(z);
}

/*
 * dp_sampler.h allows t up to 2^56 and promises P(Z = z) proportional to
 * exp(-|z| s / t).  Draws whose magnitude exceeds INT64_MAX are redrawn; at
 * the largest t that truncates mass below e^-128.  (An earlier limit of 2^62
 * truncated e^-2 of the mass: this test caught it at t = 2^62.)  The tail
 * P(|Z| >= t/s) must be e^-1 (to within 2^-56) -- checked at t = 2^50 and
 * t = 2^56.
 */
void
test_discrete_laplace_max_scale(void)
{
	test_rng	r;
	const int	shifts[] = {50, 56};
	const long	n = 20000;
	size_t		c;

	test_rng_stream(&r, 1);
	for (c = 0; c < sizeof(shifts) / sizeof(shifts[0]); c++)
	{
		uint64_t	t = UINT64_C(1) << shifts[c];
		long		hits = 0;
		long		i;
		char		what[96];
		/* k = t: a^k = exp(-1) exactly; 2 a^k / (1 + a) = e^-1 (1 + O(2^-56)) */
		double		tail_exact = exp(-1.0);

		for (i = 0; i < n; i++)
		{
			int64_t		v = dp_discrete_laplace(RNG(&r), t, 1);
			uint64_t	mag = v < 0 ? (uint64_t) 0 - (uint64_t) v : (uint64_t) v;

			hits += (mag >= t);
		}
		snprintf(what, sizeof(what), "discrete_laplace(t=2^%d, s=1) P(|Z| >= t)", shifts[c]);
		t_note("%s = %.5f, expected %.5f", what, (double) hits / n, tail_exact);
		check_frequency(hits, n, tail_exact, what);
	}
}

/* ---- discrete Gaussian ---- */

/* exact pmf over |z| <= cutoff (the sampler's support), normalized */
static double *
dgauss_pmf(uint64_t sigma, int cutoff)
{
	double	   *pmf = malloc((2 * (size_t) cutoff + 1) * sizeof(double));
	long double total = 0.0L;
	int			z;

	for (z = -cutoff; z <= cutoff; z++)
	{
		long double w = expl(-(long double) z * z / (2.0L * sigma * sigma));

		pmf[z + cutoff] = (double) w;
		total += w;
	}
	for (z = -cutoff; z <= cutoff; z++)
		pmf[z + cutoff] = (double) (pmf[z + cutoff] / total);
	return pmf;
}

void
test_discrete_gaussian_moments(void)
{
	test_rng	r;
	const uint64_t sigmas[] = {1, 3, 50, UINT64_C(1) << 20};
	const size_t n = 100000;
	double	   *z = malloc(n * sizeof(double));
	size_t		c;

	test_rng_stream(&r, 1);
	for (c = 0; c < sizeof(sigmas) / sizeof(sigmas[0]); c++)
	{
		uint64_t	sigma = sigmas[c];
		double		var_exact = (double) sigma * (double) sigma;
		long		pos = 0;
		long		neg = 0;
		sample_stats st;
		size_t		i;
		char		what[96];

		if (sigma <= 50)
		{
			/* exact variance of the discrete Gaussian (below sigma^2 for small sigma) */
			int			cutoff = (int) (64 * sigma + 64);
			double	   *pmf = dgauss_pmf(sigma, cutoff);
			long double v = 0.0L;
			int			k;

			for (k = -cutoff; k <= cutoff; k++)
				v += (long double) pmf[k + cutoff] * k * k;
			var_exact = (double) v;
			free(pmf);
		}
		for (i = 0; i < n; i++)
		{
			int64_t		v = dp_discrete_gaussian(RNG(&r), sigma);

			z[i] = (double) v;
			pos += (v > 0);
			neg += (v < 0);
		}
		st = stats_of(z, n);
		t_note("sigma=%llu mean=%.5g var=%.6g exact=%.6g ratio=%.5f pos=%ld neg=%ld",
			   (unsigned long long) sigma, st.mean, st.var, var_exact,
			   st.var / var_exact, pos, neg);
		snprintf(what, sizeof(what), "discrete_gaussian(%llu) mean", (unsigned long long) sigma);
		CHECK_SIGMA(st.mean, 0.0, sqrt(var_exact / n), TEST_NSIG, what);
		snprintf(what, sizeof(what), "discrete_gaussian(%llu) variance", (unsigned long long) sigma);
		CHECK_SIGMA(st.var, var_exact, st.se_var, TEST_NSIG, what);
		/* symmetry: given Z != 0 the sign is a fair coin */
		snprintf(what, sizeof(what), "discrete_gaussian(%llu) P(Z > 0 | Z != 0)",
				 (unsigned long long) sigma);
		check_frequency(pos, pos + neg, 0.5, what);
		/* positive control: sigma off by 2x changes the variance 4x */
		CHECK(fabs(st.var - var_exact / 4.0) > 20.0 * st.se_var,
			  "control: variance %.6g not distinguishable from sigma/2", st.var);
	}
	free(z);
}

static double
dgauss_chi2(const int64_t *z, size_t n, const double *pmf, int cutoff, double *stat_out,
			int *bins_out)
{
	int			K = 0;
	int			bins;
	int			k;
	double	   *observed;
	double	   *prob;
	size_t		i;
	double		p;

	while (K < cutoff && (double) n * pmf[K + 1 + cutoff] >= 5.0)
		K++;
	bins = 2 * K + 1;
	observed = calloc(bins, sizeof(double));
	prob = calloc(bins, sizeof(double));
	for (k = -cutoff; k <= cutoff; k++)
	{
		int			b = k < -K ? -K : (k > K ? K : k);

		prob[b + K] += pmf[k + cutoff];
	}
	for (i = 0; i < n; i++)
	{
		int64_t		v = z[i];

		if (v < -K)
			v = -K;
		if (v > K)
			v = K;
		observed[v + K]++;
	}
	p = chi2_test(observed, prob, bins, (double) n, stat_out);
	*bins_out = bins;
	free(observed);
	free(prob);
	return p;
}

void
test_discrete_gaussian_chi2(void)
{
	test_rng	r;
	const uint64_t sigmas[] = {1, 3};
	const size_t n = 200000;
	int64_t    *z = malloc(n * sizeof(int64_t));
	size_t		c;

	test_rng_stream(&r, 1);
	for (c = 0; c < sizeof(sigmas) / sizeof(sigmas[0]); c++)
	{
		uint64_t	sigma = sigmas[c];
		int			cutoff = (int) (64 * sigma + 64);
		double	   *pmf = dgauss_pmf(sigma, cutoff);
		double		stat;
		double		p;
		int			bins;
		size_t		i;

		for (i = 0; i < n; i++)
			z[i] = dp_discrete_gaussian(RNG(&r), sigma);
		p = dgauss_chi2(z, n, pmf, cutoff, &stat, &bins);
		t_note("sigma=%llu chi2 %.2f over %d bins p=%.3g", (unsigned long long) sigma,
			   stat, bins, p);
		CHECK(p > TEST_P_CRIT, "discrete_gaussian(%llu): chi-square %.2f over %d bins, p = %.3g",
			  (unsigned long long) sigma, stat, bins, p);
		free(pmf);

		/*
		 * positive control: the same draws against sigma * 1.1 (a pmf with
		 * real-valued sigma, computed directly)
		 */
		{
			double	   *wrong = malloc((2 * (size_t) cutoff + 1) * sizeof(double));
			long double total = 0.0L;
			long double s2 = 1.21L * sigma * sigma;
			int			k;

			for (k = -cutoff; k <= cutoff; k++)
			{
				wrong[k + cutoff] = (double) expl(-(long double) k * k / (2.0L * s2));
				total += wrong[k + cutoff];
			}
			for (k = -cutoff; k <= cutoff; k++)
				wrong[k + cutoff] = (double) (wrong[k + cutoff] / total);
			p = dgauss_chi2(z, n, wrong, cutoff, &stat, &bins);
			CHECK(p < TEST_P_CRIT, "control: sigma 1.1x not rejected (p = %.3g)", p);
			free(wrong);
		}
	}
	free(z);
}
