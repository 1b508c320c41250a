/*
 * st_broken.c -- deliberately broken mechanisms: the positive controls of the
 * stochastic tester.
 *
 * Each one claims (epsilon, delta)-DP and is not; the tester must report a
 * violation for every one of them, or it would not be able to catch such a
 * bug in the real code either.  They exist only in the test binary.
 *
 *   avg_sum_scale    the average of paper Sec. 5.3.4: a noisy sum with the
 *                    sum's scale max(|L|, |U|) / epsilon divided by the exact
 *                    count (the count is not noised; |U - L| was needed)
 *   half_scale_count Laplace with half the required scale (count)
 *   half_scale_sum   Laplace with half the required scale (real sum)
 *   tau_wrong_scale  tau for half the count's real noise scale (as if the
 *                    epsilon share had not been divided by N + 1 = 2)
 *   nan_clamp        a clamp written with comparisons that NaN passes
 *                    (x < L, x > U both false), followed by floating-point
 *                    noise: a NaN record makes the release NaN (Sec. 5.2)
 *   count_scale_0.8  subtler: a count with 80% of the required Laplace scale
 *   count_scale_0.9  (thorough profile only) 90%
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "st.h"
#include "dp/dp_auto_bounds.h"
#include "dp/dp_aggregate.h"
#include "dp/dp_noise.h"
#include "dp/dp_params.h"

/* ---- average = noisy sum (sum's scale) / exact count ---- */

typedef struct avg_state
{
	dp_sum		sum;
	long		count;
} avg_state;

static void *
avg_prepare(const st_mech *m, const double *x, int n)
{
	avg_state  *s = dp_mem_alloc(sizeof(avg_state));
	int			i;

	/* BROKEN: the sum's sensitivity max(|L|, |U|), and an exact count */
	st_check(dp_sum_init_real(&s->sum, m->lower, m->upper, m->epsilon, 1), m);
	s->count = 0;
	for (i = 0; i < n; i++)
		if (x[i] == x[i])
		{
			dp_sum_add_real(&s->sum, x[i]);
			s->count++;
		}
	return s;
}

static bool
avg_release(const st_mech *m, void *state, dp_rng *rng, double *out)
{
	avg_state  *s = state;

	(void) m;
	*out = dp_sum_release_real(rng, &s->sum) / (double) (s->count > 1 ? s->count : 1);
	return true;
}

/* ---- half the Laplace scale ---- */

static void *
half_count_prepare(const st_mech *m, const double *x, int n)
{
	dp_sum	   *s = dp_mem_alloc(sizeof(dp_sum));
	int			i;

	(void) x;
	/* BROKEN: planned for twice the epsilon claimed, so half the scale */
	st_check(dp_count_init(s, 1, 2.0 * m->epsilon, 1), m);
	for (i = 0; i < n; i++)
		dp_sum_add_int(s, 1);
	return s;
}

static void *
scaled_count_prepare(const st_mech *m, const double *x, int n)
{
	dp_sum	   *s = dp_mem_alloc(sizeof(dp_sum));
	int			i;

	(void) x;
	/* BROKEN: the scale is a fraction (m->upper) of the required one */
	st_check(dp_count_init(s, 1, m->epsilon / m->upper, 1), m);
	for (i = 0; i < n; i++)
		dp_sum_add_int(s, 1);
	return s;
}

static void *
half_sum_prepare(const st_mech *m, const double *x, int n)
{
	dp_sum	   *s = dp_mem_alloc(sizeof(dp_sum));
	int			i;

	/* BROKEN: planned for twice the epsilon claimed, so half the scale */
	st_check(dp_sum_init_real(s, m->lower, m->upper, 2.0 * m->epsilon, 1), m);
	for (i = 0; i < n; i++)
		dp_sum_add_real(s, x[i]);
	return s;
}

static bool
real_release(const st_mech *m, void *state, dp_rng *rng, double *out)
{
	(void) m;
	*out = dp_sum_release_real(rng, (dp_sum *) state);
	return true;
}

/* ---- tau for the wrong scale ---- */

typedef struct tau_state
{
	dp_threshold threshold;
	double		tau;
	uint64_t	units;
} tau_state;

static void *
tau_prepare(const st_mech *m, const double *x, int n)
{
	tau_state  *s = dp_mem_alloc(sizeof(tau_state));

	(void) x;
	st_check(dp_threshold_make(m->epsilon, m->delta_make, m->groups, &s->threshold), m);
	/* BROKEN: tau of a Laplace count with half the scale actually drawn */
	s->tau = dp_tau_continuous(dp_laplace_plan_scale(&s->threshold.count_plan) / 2.0,
							   m->delta_make, m->groups);
	s->units = (uint64_t) n;
	return s;
}

static bool
tau_release(const st_mech *m, void *state, dp_rng *rng, double *out)
{
	tau_state  *s = state;

	(void) m;
	if (s->units == 0)
		return false;
	(void) dp_threshold_release(rng, &s->threshold, s->units, out);
	return *out >= s->tau;
}

/* ---- a clamp that NaN passes ---- */

typedef struct nan_state
{
	dp_noise_plan plan;
	double		sum;
} nan_state;

static void *
nan_prepare(const st_mech *m, const double *x, int n)
{
	nan_state  *s = dp_mem_alloc(sizeof(nan_state));
	int			i;

	st_check(dp_laplace_plan_make(fmax(fabs(m->lower), fabs(m->upper)), m->epsilon, 1,
							   &s->plan), m);
	s->sum = 0.0;
	for (i = 0; i < n; i++)
	{
		double		c = x[i];

		/* BROKEN: NaN < L and NaN > U are both false, so NaN goes through */
		if (c < m->lower)
			c = m->lower;
		if (c > m->upper)
			c = m->upper;
		s->sum += c;
	}
	return s;
}

static bool
nan_release(const st_mech *m, void *state, dp_rng *rng, double *out)
{
	nan_state  *s = state;

	(void) m;
	/* noise drawn correctly, then added in floating point */
	*out = s->sum + dp_laplace_real(rng, &s->plan, 0.0);
	return true;
}

/* ---- automatic bounds whose histogram has no noise: the bounds tell the data ---- */

static bool
auto_exact_release(const st_mech *m, void *state, dp_rng *rng, double *out)
{
	uint64_t	counts[DP_AUTO_BIN_COUNT];
	double		exact[DP_AUTO_BIN_COUNT];
	int			i;

	st_auto_counts(state, counts);
	for (i = 0; i < DP_AUTO_BIN_COUNT; i++)
		exact[i] = (double) counts[i];
	return st_auto_sum_with(m, state, exact, rng, out);
}

/* ---- the list ---- */

static st_mech
base(const char *name, const char *what, double epsilon)
{
	st_mech		m = {0};

	m.name = name;
	m.what = what;
	m.epsilon = epsilon;
	m.control = true;
	m.samples_scale = 1.0;
	m.destroy = st_free_plain;
	return m;
}

size_t
st_broken_mechanisms(st_mech *out, size_t max, bool thorough)
{
	static const double eps[] = {0.5, 1.0};
	size_t		n = 0;
	size_t		e;

#define ADD(expr) do { if (n < max) out[n++] = (expr); } while (0)
	for (e = 0; e < 2; e++)
	{
		st_mech		m;

		m = base("avg_sum_scale", "noisy sum (scale max(|L|,|U|)/eps) / exact count, [-1, 1] (Sec. 5.3.4)", eps[e]);
		m.prepare = avg_prepare;
		m.release = avg_release;
		m.lower = -1.0;
		m.upper = 1.0;
		ADD(m);

		m = base("half_scale_count", "count with Laplace of half the required scale", eps[e]);
		m.prepare = half_count_prepare;
		m.release = st_int_release;
		ADD(m);

		m = base("half_scale_sum", "sum over [-0.25, 0.5] with Laplace of half the required scale", eps[e]);
		m.prepare = half_sum_prepare;
		m.release = real_release;
		m.lower = -0.25;
		m.upper = 0.5;
		ADD(m);

		m = base("tau_wrong_scale", "tau computed for half the count's noise scale (C_u = 1)", eps[e]);
		m.prepare = tau_prepare;
		m.release = tau_release;
		m.groups = 1;
		m.delta = m.delta_make = e == 0 ? 0.05 : 0.02;
		ADD(m);

		m = base("auto_exact_histogram", "ANON_SUM(x) whose bounds come from the exact histogram (threshold 0.5)", eps[e]);
		m.prepare = st_auto_prepare;
		m.release = auto_exact_release;
		m.percentile = 0.5;
		ADD(m);

		m = base("nan_clamp", "sum over [-0.25, 0.5] whose clamp lets NaN through", eps[e]);
		m.prepare = nan_prepare;
		m.release = nan_release;
		m.lower = -0.25;
		m.upper = 0.5;
		ADD(m);
	}
	/* subtler: 80% (and in the thorough profile 90%) of the required scale */
	{
		st_mech		m;

		m = base("count_scale_0.8", "count with Laplace of 80% of the required scale", 1.0);
		m.prepare = scaled_count_prepare;
		m.release = st_int_release;
		m.upper = 0.8;
		ADD(m);
		if (thorough)
		{
			m = base("count_scale_0.9", "count with Laplace of 90% of the required scale", 1.0);
			m.prepare = scaled_count_prepare;
			m.release = st_int_release;
			m.upper = 0.9;
			ADD(m);
		}
	}
#undef ADD
	return n;
}
