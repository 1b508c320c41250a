/*
 * st_mechanisms.c -- the mechanisms of the DP core, as the server runs them,
 * seen as row-level mechanisms over a database of records.
 *
 * A record stands for one privacy unit's per-partition value after per-user
 * aggregation (what the rewriter feeds the dp_* aggregates), so two adjacent
 * databases differ by one privacy unit.  Records are doubles in [-r, r] and,
 * in some databases, NaN or +-Infinity.  Integer mechanisms read a record as
 * round(scale * x), +Inf as INT64_MAX, -Inf as INT64_MIN; NaN has no integer
 * counterpart and is skipped there (as the glue skips SQL NULL).
 *
 * Every mechanism here calls the real core (dp_aggregate.h, dp_quantile.h,
 * dp_params.h, dp_noise.h) exactly as src/agg/dp_aggregates.c does.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "st.h"
#include "dp/dp_aggregate.h"
#include "dp/dp_auto_bounds.h"
#include "dp/dp_noise.h"
#include "dp/dp_params.h"
#include "dp/dp_quantile.h"

bool
st_record_to_int(double x, double scale, int64_t *out)
{
	if (x != x)
		return false;
	if (x == INFINITY)
		*out = INT64_MAX;
	else if (x == -INFINITY)
		*out = INT64_MIN;
	else
		*out = (int64_t) llround(x * scale);
	return true;
}

static void *
alloc_state(size_t size)
{
	return dp_mem_alloc(size);
}

void
st_check(dp_status status, const st_mech *m)
{
	char		message[256];

	if (status == DP_OK)
		return;
	snprintf(message, sizeof(message), "%s: %s", m->name, dp_status_text(status));
	dp_fail(message);
}

void
st_free_plain(void *state)
{
	dp_mem_free(state);
}

/* a dp_sum released as an integer (the glue saturates to int64; values here are tiny) */
bool
st_int_release(const st_mech *m, void *state, dp_rng *rng, double *out)
{
	(void) m;
	*out = (double) dp_sum_release_int(rng, (dp_sum *) state);
	return true;
}

/* ---- ANON_COUNT(*): every record counts 1 (per-unit counts clamped to [0, 1]) ---- */

static void *
count_prepare(const st_mech *m, const double *x, int n)
{
	dp_sum	   *s = alloc_state(sizeof(dp_sum));
	int			i;

	(void) x;
	st_check(dp_count_init(s, 1, m->epsilon, 1), m);
	for (i = 0; i < n; i++)
		dp_sum_add_int(s, 1);
	return s;
}

/* ---- ANON_COUNT(col, U): per-unit counts round(2 (x + 1)) clamped to [0, U] ---- */

static void *
count_bounded_prepare(const st_mech *m, const double *x, int n)
{
	dp_sum	   *s = alloc_state(sizeof(dp_sum));
	int			i;

	st_check(dp_count_init(s, (int64_t) m->upper, m->epsilon, 1), m);
	for (i = 0; i < n; i++)
	{
		int64_t		k;

		if (st_record_to_int(x[i] + 1.0, 2.0, &k))
			dp_sum_add_int(s, k);
	}
	return s;
}

/* ---- ANON_SUM over an integer column: round(4 x) clamped to [L, U] ---- */

static void *
sum_int_prepare(const st_mech *m, const double *x, int n)
{
	dp_sum	   *s = alloc_state(sizeof(dp_sum));
	int			i;

	st_check(dp_sum_init_int(s, (int64_t) m->lower, (int64_t) m->upper, m->epsilon, 1), m);
	for (i = 0; i < n; i++)
	{
		int64_t		k;

		if (st_record_to_int(x[i], 4.0, &k))
			dp_sum_add_int(s, k);
	}
	return s;
}

/* ---- ANON_SUM over a float8 column ---- */

static void *
sum_real_prepare(const st_mech *m, const double *x, int n)
{
	dp_sum	   *s = alloc_state(sizeof(dp_sum));
	int			i;

	st_check(dp_sum_init_real(s, m->lower, m->upper, m->epsilon, 1), m);
	for (i = 0; i < n; i++)
		dp_sum_add_real(s, x[i]);
	return s;
}

static bool
sum_real_release(const st_mech *m, void *state, dp_rng *rng, double *out)
{
	(void) m;
	*out = dp_sum_release_real(rng, (dp_sum *) state);
	return true;
}

/*
 * ---- ANON_SUM(x) without bounds (dp_auto_bounds.h, src/functions/auto_bounds.c) ----
 * Half of epsilon on the noisy logarithmic histogram, the bounds picked from
 * it, then the bounded sum with the other half; absent when no bin passes.
 * The databases here hold a few records, so the threshold is m->percentile
 * (a low one: any threshold is post-processing of the noisy histogram) rather
 * than App. D's, which no bin of three records would pass.
 */
typedef struct auto_state
{
	int			n;
	double		x[16];
} auto_state;

void *
st_auto_prepare(const st_mech *m, const double *x, int n)
{
	auto_state *s = alloc_state(sizeof(auto_state));
	int			i;

	(void) m;
	s->n = n < 16 ? n : 16;
	for (i = 0; i < s->n; i++)
		s->x[i] = x[i];
	return s;
}

/* the bounded sum of the released bounds, with the rest of epsilon */
bool
st_auto_sum_with(const st_mech *m, const void *state, const double *noisy, dp_rng *rng,
				 double *out)
{
	const auto_state *s = state;
	double		lower;
	double		upper;
	dp_sum		sum;
	int			i;

	if (!dp_auto_pick(noisy, m->percentile, true, &lower, &upper))
		return false;
	st_check(dp_sum_init_real(&sum, lower, upper, m->epsilon * (1 - DP_AUTO_HISTOGRAM_SHARE), 1), m);
	for (i = 0; i < s->n; i++)
		dp_sum_add_real(&sum, s->x[i]);
	*out = dp_sum_release_real(rng, &sum);
	return true;
}

void
st_auto_counts(const void *state, uint64_t *counts)
{
	const auto_state *s = state;
	int			i;

	for (i = 0; i < DP_AUTO_BIN_COUNT; i++)
		counts[i] = 0;
	for (i = 0; i < s->n; i++)
		if (dp_auto_bin(s->x[i]) >= 0)
			counts[dp_auto_bin(s->x[i])]++;
}

static bool
auto_sum_release(const st_mech *m, void *state, dp_rng *rng, double *out)
{
	uint64_t	counts[DP_AUTO_BIN_COUNT];
	double		noisy[DP_AUTO_BIN_COUNT];
	double		scale;

	st_auto_counts(state, counts);
	st_check(dp_auto_histogram(rng, counts, m->epsilon * DP_AUTO_HISTOGRAM_SHARE, 1, noisy, &scale),
		  m);
	return st_auto_sum_with(m, state, noisy, rng, out);
}

/* ---- ANON_AVG ---- */

static void *
mean_prepare(const st_mech *m, const double *x, int n)
{
	dp_mean    *s = alloc_state(sizeof(dp_mean));
	int			i;

	st_check(dp_mean_init(s, m->lower, m->upper, m->epsilon, 1), m);
	for (i = 0; i < n; i++)
		dp_mean_add(s, x[i]);
	return s;
}

static bool
mean_release(const st_mech *m, void *state, dp_rng *rng, double *out)
{
	(void) m;
	*out = dp_mean_release(rng, (dp_mean *) state);
	return true;
}

/* ---- ANON_VAR and ANON_STDDEV ---- */

static void *
variance_prepare(const st_mech *m, const double *x, int n)
{
	dp_variance *s = alloc_state(sizeof(dp_variance));
	int			i;

	st_check(dp_variance_init(s, m->lower, m->upper, m->epsilon, 1), m);
	for (i = 0; i < n; i++)
		dp_variance_add(s, x[i]);
	return s;
}

static bool
variance_release(const st_mech *m, void *state, dp_rng *rng, double *out)
{
	(void) m;
	*out = dp_variance_release(rng, (dp_variance *) state);
	return true;
}

static bool
stddev_release(const st_mech *m, void *state, dp_rng *rng, double *out)
{
	(void) m;
	/* what dp_stddev_final returns */
	*out = sqrt(dp_variance_release(rng, (dp_variance *) state));
	return true;
}

/* ---- ANON_NTILE / ANON_MEDIAN ---- */

static void *
quantile_prepare(const st_mech *m, const double *x, int n)
{
	dp_quantile *q = alloc_state(sizeof(dp_quantile));
	int			i;

	st_check(dp_quantile_init(q, m->lower, m->upper, m->epsilon, 1), m);
	for (i = 0; i < n; i++)
		dp_quantile_add(q, x[i]);
	return q;
}

static bool
quantile_release(const st_mech *m, void *state, dp_rng *rng, double *out)
{
	*out = dp_quantile_release(rng, (dp_quantile *) state, m->percentile);
	return true;
}

void
st_quantile_destroy(void *state)
{
	dp_quantile_free((dp_quantile *) state);
	dp_mem_free(state);
}

/*
 * ---- partition selection ----
 *
 * As dp_partition_count_final does: the number of privacy units of the
 * partition, noisy, compared with tau by dp_threshold_release; the released
 * value is the noisy count, or nothing.  A partition with no unit is not a
 * group of the query at all, so it is never released and draws no noise.
 */
typedef struct partition_state
{
	dp_threshold threshold;
	uint64_t	units;
} partition_state;

static void *
partition_prepare(const st_mech *m, const double *x, int n)
{
	partition_state *s = alloc_state(sizeof(partition_state));

	(void) x;
	st_check(dp_threshold_make(m->epsilon, m->delta_make, m->groups, &s->threshold), m);
	s->units = (uint64_t) n;
	return s;
}

static bool
partition_release(const st_mech *m, void *state, dp_rng *rng, double *out)
{
	partition_state *s = state;

	(void) m;
	if (s->units == 0)
		return false;
	return dp_threshold_release(rng, &s->threshold, s->units, out);
}

/* ---- Gaussian noise (dp_sum_use_gaussian), on a clamped sum ---- */

static void *
gaussian_prepare(const st_mech *m, const double *x, int n)
{
	dp_sum	   *s = alloc_state(sizeof(dp_sum));
	int			i;

	st_check(dp_sum_init_real(s, m->lower, m->upper, m->epsilon / (double) m->groups, 1), m);
	st_check(dp_sum_use_gaussian(s, m->delta, m->groups), m);
	for (i = 0; i < n; i++)
		dp_sum_add_real(s, x[i]);
	return s;
}

/* ---- the list ---- */

static st_mech
base(const char *name, const char *what, double epsilon)
{
	st_mech		m = {0};

	m.name = name;
	m.what = what;
	m.epsilon = epsilon;
	m.delta = 0.0;
	m.samples_scale = 1.0;
	m.destroy = st_free_plain;
	m.release = st_int_release;
	return m;
}

/* the epsilons every mechanism is tested at, per profile */
const double *
st_epsilons(bool thorough, size_t *n)
{
	static const double quick[] = {0.5, 1.0};
	static const double full[] = {0.25, 0.5, 1.0, 2.0};

	*n = thorough ? 4 : 2;
	return thorough ? full : quick;
}

size_t
st_correct_mechanisms(st_mech *out, size_t max, bool thorough)
{
	size_t		n_eps;
	const double *eps = st_epsilons(thorough, &n_eps);
	size_t		n = 0;
	size_t		e;

#define ADD(expr) do { if (n < max) out[n++] = (expr); } while (0)
	for (e = 0; e < n_eps; e++)
	{
		st_mech		m;

		m = base("count", "ANON_COUNT(*): dp_count, per-unit counts clamped to [0, 1]", eps[e]);
		m.prepare = count_prepare;
		ADD(m);

		m = base("count_bounded", "ANON_COUNT(col, 3): dp_count, per-unit count round(2(x+1)) clamped to [0, 3]", eps[e]);
		m.prepare = count_bounded_prepare;
		m.upper = 3;
		ADD(m);

		m = base("sum_int", "ANON_SUM over integers: dp_sum_init_int, round(4x) clamped to [-1, 2]", eps[e]);
		m.prepare = sum_int_prepare;
		m.lower = -1;
		m.upper = 2;
		ADD(m);

		m = base("sum_real", "ANON_SUM over float8: dp_sum_init_real, x clamped to [-0.25, 0.5]", eps[e]);
		m.prepare = sum_real_prepare;
		m.release = sum_real_release;
		m.lower = -0.25;
		m.upper = 0.5;
		ADD(m);

		m = base("auto_sum", "ANON_SUM(x): noisy log histogram (eps/2, threshold 1) picks the bounds, dp_sum with eps/2", eps[e]);
		m.prepare = st_auto_prepare;
		m.release = auto_sum_release;
		m.percentile = 1.0;
		m.samples_scale = 0.25;	/* 165 noisy bins a release: ~35 us */
		ADD(m);

		m = base("mean", "ANON_AVG: dp_mean over [-0.25, 0.5]", eps[e]);
		m.prepare = mean_prepare;
		m.release = mean_release;
		m.lower = -0.25;
		m.upper = 0.5;
		ADD(m);

		m = base("variance", "ANON_VAR: dp_variance over [-0.25, 0.5]", eps[e]);
		m.prepare = variance_prepare;
		m.release = variance_release;
		m.lower = -0.25;
		m.upper = 0.5;
		ADD(m);

		m = base("stddev", "ANON_STDDEV: sqrt(dp_variance) over [-0.25, 0.5]", eps[e]);
		m.prepare = variance_prepare;
		m.release = stddev_release;
		m.lower = -0.25;
		m.upper = 0.5;
		ADD(m);

		/* a release walks 4 x 16 noisy nodes over 65536 prefix sums: ~75 us */
		m = base("median", "ANON_MEDIAN: dp_quantile p = 0.5 over [-1, 1]", eps[e]);
		m.prepare = quantile_prepare;
		m.release = quantile_release;
		m.destroy = st_quantile_destroy;
		m.lower = -1.0;
		m.upper = 1.0;
		m.percentile = 0.5;
		m.samples_scale = 0.15;
		m.max_databases = 2;
		ADD(m);

		m = base("partition", "tau-thresholding: dp_threshold (C_u = 1), noisy unit count or absent", eps[e]);
		m.prepare = partition_prepare;
		m.release = partition_release;
		m.groups = 1;
		m.delta = m.delta_make = e % 2 == 0 ? 0.05 : 0.02;
		ADD(m);
	}

	/* one of each extra configuration */
	{
		st_mech		m;
		double		q;

		m = base("ntile90", "ANON_NTILE(x, 0.9): dp_quantile p = 0.9 over [-1, 1]", 1.0);
		m.prepare = quantile_prepare;
		m.release = quantile_release;
		m.destroy = st_quantile_destroy;
		m.lower = -1.0;
		m.upper = 1.0;
		m.percentile = 0.9;
		m.samples_scale = 0.15;
		m.max_databases = 2;
		ADD(m);

		/* C_u = 3: one partition may be released w.p. q = 1 - (1 - delta)^(1/3) */
		m = base("partition_cu3", "tau-thresholding with C_u = 3 (delta = 0.1 per query; tested: q per partition)", 0.5);
		m.prepare = partition_prepare;
		m.release = partition_release;
		m.groups = 3;
		m.delta_make = 0.1;
		q = dp_single_unit_release_bound(0.1, 3);
		m.delta = q;
		ADD(m);

		/* Gaussian noise, analytic calibration (C_u = 1: the partition alone) */
		for (e = 0; e < 2; e++)
		{
			m = base("gaussian_sum", "dp_sum_use_gaussian: a sum clamped to [-0.25, 0.5], analytic sigma (delta = 1e-3)",
					 e == 0 ? 0.5 : 2.0);
			m.prepare = gaussian_prepare;
			m.release = sum_real_release;
			m.lower = -0.25;
			m.upper = 0.5;
			m.groups = 1;
			m.delta = 1e-3;
			ADD(m);
		}

		/* the production generator (OpenSSL RAND_bytes) through two mechanisms */
		m = base("sum_real_secure", "ANON_SUM over float8 with dp_rng_secure()", 1.0);
		m.prepare = sum_real_prepare;
		m.release = sum_real_release;
		m.lower = -0.25;
		m.upper = 0.5;
		m.secure = true;
		m.samples_scale = 0.5;
		ADD(m);

		m = base("partition_secure", "tau-thresholding with dp_rng_secure() (C_u = 1)", 1.0);
		m.prepare = partition_prepare;
		m.release = partition_release;
		m.groups = 1;
		m.delta = m.delta_make = 0.02;
		m.secure = true;
		m.samples_scale = 0.5;
		ADD(m);

	}
#undef ADD
	return n;
}
