/*
 * bench_noise.c -- throughput of the anon_dp noise samplers and memory of the
 * quantile state, measured on the real DP core (src/dp) with the real
 * OpenSSL-backed generator dp_rng_secure().
 *
 * Output: two markdown tables on stdout.
 *   1. samples (or releases) per second for each sampler / mechanism, with a
 *      sanity column comparing the observed standard deviation of the noise
 *      with the one the distribution should have;
 *   2. heap memory of a dp_quantile state (dp_quantile_memory) and its number
 *      of non-empty leaves after 1e2 .. 1e7 contributions.
 *
 * The data fed to the quantile tree comes from a fast non-cryptographic
 * generator (splitmix64): it is input data, not noise.  All noise comes from
 * dp_rng_secure().
 *
 * Usage: bench_noise [seconds-per-row]   (default 1.0)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dp/dp_core.h"
#include "dp/dp_noise.h"
#include "dp/dp_quantile.h"
#include "dp/dp_rng.h"
#include "dp/dp_sampler.h"

/* ---- host hooks required by src/dp ---- */

void
dp_fail(const char *message)
{
	fprintf(stderr, "bench_noise: dp_fail: %s\n", message);
	exit(2);
}

/* dp_mem_* come from src/dp/host/dp_host_malloc.c */

/* ---- helpers ---- */

static double
now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double) ts.tv_sec + (double) ts.tv_nsec * 1e-9;
}

static uint64_t splitmix_state = UINT64_C(0x2545F4914F6CDD1D);

static uint64_t
splitmix64(void)
{
	uint64_t	z = (splitmix_state += UINT64_C(0x9E3779B97F4A7C15));

	z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
	return z ^ (z >> 31);
}

/* uniform double in [0, 1) with 53 random bits */
static double
uniform01(void)
{
	return (double) (splitmix64() >> 11) * 0x1.0p-53;
}

static double time_budget = 1.0;	/* seconds per measured row */
static volatile double sink;	/* keeps results alive */

typedef double (*draw_fn) (void *arg);

typedef struct measurement
{
	double		per_second;
	double		ns_each;
	double		observed_sd;	/* of the drawn values (noise only) */
	long		n;
} measurement;

/*
 * Call draw(arg) in batches until time_budget has passed; returns the rate
 * and the standard deviation of the returned values (Welford).
 */
static measurement
measure(draw_fn draw, void *arg, long batch)
{
	measurement m;
	double		start = now_seconds();
	double		elapsed;
	double		mean = 0.0;
	double		m2 = 0.0;
	long		n = 0;

	do
	{
		long		i;

		for (i = 0; i < batch; i++)
		{
			double		x = draw(arg);
			double		delta = x - mean;

			n++;
			mean += delta / (double) n;
			m2 += delta * (x - mean);
		}
		elapsed = now_seconds() - start;
	} while (elapsed < time_budget);

	sink = mean;
	m.n = n;
	m.per_second = (double) n / elapsed;
	m.ns_each = elapsed * 1e9 / (double) n;
	m.observed_sd = n > 1 ? sqrt(m2 / (double) (n - 1)) : 0.0;
	return m;
}

/* sd of a discrete Laplace with P(z) ~ exp(-|z|/t): var = 2a / (1-a)^2, a = e^(-1/t) */
static double
discrete_laplace_sd(double t)
{
	double		a = exp(-1.0 / t);
	double		one_minus_a = -expm1(-1.0 / t);

	return sqrt(2.0 * a) / one_minus_a;
}

static void
print_row(const char *name, const char *params, measurement m, double expected_sd)
{
	char		sd_text[64];

	if (expected_sd > 0.0)
		snprintf(sd_text, sizeof(sd_text), "%.4g / %.4g (%.3f)", m.observed_sd,
				 expected_sd, m.observed_sd / expected_sd);
	else
		snprintf(sd_text, sizeof(sd_text), "-");
	printf("| %s | %s | %.0f | %.0f | %ld | %s |\n", name, params,
		   m.per_second, m.ns_each, m.n, sd_text);
	fflush(stdout);
}

/* ---- draw functions ---- */

typedef struct dlap_arg
{
	uint64_t	t;
} dlap_arg;

static double
draw_dlap(void *arg)
{
	return (double) dp_discrete_laplace(dp_rng_secure(), ((dlap_arg *) arg)->t, 1);
}

static double
draw_laplace_real(void *arg)
{
	return dp_laplace_real(dp_rng_secure(), (dp_noise_plan *) arg, 0.0);
}

typedef struct dgauss_arg
{
	uint64_t	sigma;
} dgauss_arg;

static double
draw_dgauss(void *arg)
{
	return (double) dp_discrete_gaussian(dp_rng_secure(), ((dgauss_arg *) arg)->sigma);
}

typedef struct release_arg
{
	dp_quantile *q;
	double		p;
} release_arg;

static double
draw_release(void *arg)
{
	release_arg *r = arg;

	return dp_quantile_release(dp_rng_secure(), r->q, r->p);
}

static void
check(dp_status status, const char *what)
{
	if (status != DP_OK)
	{
		fprintf(stderr, "bench_noise: %s: %s\n", what, dp_status_text(status));
		exit(2);
	}
}

/* ---- table 1: throughput ---- */

static void
throughput_table(void)
{
	static const struct
	{
		const char *label;
		uint64_t	t;
	}			dlap[] = {
		{"t = 1", 1},
		{"t = 1e3", 1000},
		{"t = 2^40", UINT64_C(1) << 40},
	};
	static const struct
	{
		double		sensitivity;
		double		epsilon;
	}			plans[] = {
		{1.0, 1.0},
		{1e6, 0.1},
	};
	size_t		i;

	printf("### Noise sampling throughput (dp_rng_secure, OpenSSL RAND_bytes)\n\n");
	printf("Each row runs for about %.1f s on one core.  \"sd\" compares the observed "
		   "standard deviation of the noise with the exact one of the distribution "
		   "(ratio in parentheses; ~1.0 expected).\n\n", time_budget);
	printf("| sampler | parameters | per second | ns each | draws | sd observed / expected (ratio) |\n");
	printf("|---|---|---:|---:|---:|---|\n");

	for (i = 0; i < sizeof(dlap) / sizeof(dlap[0]); i++)
	{
		dlap_arg	a = {dlap[i].t};

		print_row("dp_discrete_laplace", dlap[i].label, measure(draw_dlap, &a, 1000),
				  discrete_laplace_sd((double) dlap[i].t));
	}

	for (i = 0; i < sizeof(plans) / sizeof(plans[0]); i++)
	{
		dp_noise_plan plan;
		char		params[160];

		check(dp_laplace_plan_make(plans[i].sensitivity, plans[i].epsilon, 1, &plan),
			  "dp_laplace_plan_make");
		snprintf(params, sizeof(params),
				 "sensitivity %g, epsilon %g (t = %llu, grid 2^%d, scale %.4g)",
				 plans[i].sensitivity, plans[i].epsilon, (unsigned long long) plan.t,
				 (int) plan.grid_exp, dp_laplace_plan_scale(&plan));
		print_row("dp_laplace_real", params, measure(draw_laplace_real, &plan, 1000),
				  ldexp(discrete_laplace_sd((double) plan.t), plan.grid_exp));
	}

	{
		dgauss_arg	g = {UINT64_C(1) << 20};

		/* discrete Gaussian sd is sigma to within exp(-2 pi^2 sigma^2) */
		print_row("dp_discrete_gaussian", "sigma = 2^20", measure(draw_dgauss, &g, 100),
				  (double) g.sigma);
	}

	/* full quantile releases: one tree with every leaf used, one with 100 */
	{
		dp_quantile full;
		dp_quantile sparse;
		release_arg r;
		long		i2;
		char		params[160];

		check(dp_quantile_init(&full, 0.0, 1.0, 1.0, 1), "dp_quantile_init");
		check(dp_quantile_init(&sparse, 0.0, 1.0, 1.0, 1), "dp_quantile_init");
		for (i2 = 0; i2 < 1000000; i2++)
		{
			dp_quantile_add(&full, uniform01());
			dp_quantile_add(&sparse, (double) (splitmix64() % 100) / 100.0 + 0.005);
		}

		r.q = &full;
		r.p = 0.5;
		snprintf(params, sizeof(params),
				 "median, epsilon 1, 1e6 uniform values, %u leaves used",
				 (unsigned) full.used);
		print_row("dp_quantile_release", params, measure(draw_release, &r, 10), 0.0);
		r.q = &sparse;
		snprintf(params, sizeof(params),
				 "median, epsilon 1, 1e6 values on 100 points, %u leaves used",
				 (unsigned) sparse.used);
		print_row("dp_quantile_release", params, measure(draw_release, &r, 10), 0.0);
		dp_quantile_free(&full);
		dp_quantile_free(&sparse);
	}
	printf("\n");
}

/* ---- table 2: quantile state memory ---- */

static void
memory_table(void)
{
	static const long checkpoints[] = {100L, 1000L, 10000L, 100000L, 1000000L, 10000000L};
	const size_t bound = (size_t) 2 * DP_QTREE_LEAVES *
		(sizeof(uint32_t) + sizeof(uint64_t));
	dp_quantile uniform;
	dp_quantile distinct;
	long		done = 0;
	size_t		c;
	bool		bounded = true;

	printf("### Quantile state memory (dp_quantile_memory)\n\n");
	printf("Tree over [0, 1], %d leaves.  (a) uniform random doubles in [0, 1]; "
		   "(b) 100 distinct values.  Bound: 2 * %d slots * %zu bytes = %zu bytes.  "
		   "\"ns/add\" is the cost of dp_quantile_add over the contributions added "
		   "since the previous row (includes generating the input).\n\n",
		   DP_QTREE_LEAVES, DP_QTREE_LEAVES, sizeof(uint32_t) + sizeof(uint64_t), bound);
	printf("| contributions | (a) bytes | (a) leaves used | (a) ns/add | (b) bytes | (b) leaves used | (b) ns/add | within bound |\n");
	printf("|---:|---:|---:|---:|---:|---:|---:|---|\n");

	check(dp_quantile_init(&uniform, 0.0, 1.0, 1.0, 1), "dp_quantile_init");
	check(dp_quantile_init(&distinct, 0.0, 1.0, 1.0, 1), "dp_quantile_init");

	for (c = 0; c < sizeof(checkpoints) / sizeof(checkpoints[0]); c++)
	{
		long		target = checkpoints[c];
		long		step = target - done;
		long		i;
		double		t0;
		double		ta;
		double		tb;
		size_t		ma;
		size_t		mb;
		bool		ok;

		t0 = now_seconds();
		for (i = 0; i < step; i++)
			dp_quantile_add(&uniform, uniform01());
		ta = now_seconds() - t0;
		t0 = now_seconds();
		for (i = 0; i < step; i++)
			dp_quantile_add(&distinct, (double) (splitmix64() % 100) / 99.0);
		tb = now_seconds() - t0;
		done = target;

		ma = dp_quantile_memory(&uniform);
		mb = dp_quantile_memory(&distinct);
		ok = ma <= bound && mb <= bound;
		bounded = bounded && ok;
		printf("| %ld | %zu | %u | %.1f | %zu | %u | %.1f | %s |\n", target, ma,
			   (unsigned) uniform.used, ta * 1e9 / (double) step, mb,
			   (unsigned) distinct.used, tb * 1e9 / (double) step, ok ? "yes" : "NO");
		fflush(stdout);
	}
	printf("\nQuantile memory %s the bound of %zu bytes.\n\n",
		   bounded ? "stays within" : "EXCEEDS", bound);
	dp_quantile_free(&uniform);
	dp_quantile_free(&distinct);
	if (!bounded)
		exit(1);
}

int
main(int argc, char **argv)
{
	if (argc > 1)
	{
		time_budget = atof(argv[1]);
		if (!(time_budget > 0.0))
		{
			fprintf(stderr, "usage: %s [seconds-per-row]\n", argv[0]);
			return 2;
		}
	}
	throughput_table();
	memory_table();
	return 0;
}
