/*
 * st_issue20.c -- the mechanisms of issue 20 (more accuracy at the same
 * privacy) as the server runs them, and a broken variant of each that the
 * tester must catch.
 *
 *   gaussian_count      dp_gaussian_count: dp_count_init + dp_sum_use_gaussian
 *   select_optimal      dp_partition_select, optimal: keep w.p. pi(n)
 *   select_truncated    dp_count_select, optimal on a released count: the
 *                       truncated discrete Laplace count, tau above 1 + K
 *   select_gaussian     dp_count_select, Gaussian: discrete Gaussian count
 *                       against its tau
 *   avg_select          dp_avg_select: the mean whose noisy count selects
 *   quantile_rows       dp_ntile_rows: a unit adds k = 3 values, exponential
 *                       mechanism over the leaves (dp_quantile_release_rows)
 *   quantile_rows_adaptive  dp_ntile_rows_adaptive: a unit adds 1 to 4 values
 *                       (as many as its record says), M = 4; a tenth of
 *                       epsilon on the noisy histogram of sizes, the rest on
 *                       the exponential mechanism at the chosen m
 *   rows_choice         its first stage alone: the m chosen from the noisy
 *                       histogram (the stage the composition test dilutes;
 *                       the second stage is quantile_rows at k = m)
 *   count_distinct      dp_count_distinct: each unit adds up to k = 3
 *                       distinct values, Laplace of sensitivity k
 *
 * A record stands for one privacy unit (st_mechanisms.c); the selection
 * mechanisms are tested with C_u = 1, so the claimed (epsilon, delta) are
 * the per-partition ones.  Broken variants (control = true):
 *
 *   gaussian_count_half_sigma  planned for 4 epsilon: about half the sigma
 *   select_optimal_2eps        pi(n) computed for twice the epsilon claimed
 *   select_truncated_low_tau   the truncated count released from 2 units
 *                              (tau not above 1 + K: one unit passes)
 *   select_gaussian_half_tau   tau halfway between one unit and the right tau
 *   quantile_rows_k1           sensitivity of one value while a unit adds 3
 *   rows_choice_4eps           the histogram of sizes noised for 4 epsilon
 *   count_distinct_k1          Laplace of sensitivity 1 while a unit adds 3
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "st.h"
#include "dp/dp_aggregate.h"
#include "dp/dp_noise.h"
#include "dp/dp_quantile.h"
#include "dp/dp_quantile_rows.h"
#include "dp/dp_selection.h"

#define VALUES_PER_UNIT 3		/* k of quantile_rows and count_distinct */

/* ---- Gaussian count (C_u = 1; m->upper: the factor on epsilon, 1 when correct) ---- */

static void *
gaussian_count_prepare(const st_mech *m, const double *x, int n)
{
	dp_sum	   *s = dp_mem_alloc(sizeof(dp_sum));
	int			i;

	(void) x;
	st_check(dp_count_init(s, 1, m->epsilon * m->upper, 1), m);
	st_check(dp_sum_use_gaussian(s, m->delta, 1), m);
	for (i = 0; i < n; i++)
		dp_sum_add_int(s, 1);
	return s;
}

/*
 * ---- partition selection ----
 *
 * m->percentile selects the mechanism, m->lower the breakage (0: none,
 * 1: pi for 2 epsilon, 2: tau of 2 units, 3: tau halfway to one unit).
 * A partition with no unit is no group of the query: never released.
 */
typedef struct select_state
{
	dp_selection sel;
	int64_t		units;
} select_state;

static void *
select_prepare(const st_mech *m, const double *x, int n)
{
	select_state *s = dp_mem_alloc(sizeof(select_state));
	dp_selection_mechanism mechanism = (dp_selection_mechanism) (int) m->percentile;
	bool		counted = mechanism != DP_SELECT_OPTIMAL || m->upper > 0.0;
	double		epsilon = m->lower == 1.0 ? 2.0 * m->epsilon : m->epsilon;

	(void) x;
	st_check(dp_selection_make(mechanism, epsilon, m->delta, 1, counted, &s->sel), m);
	if (m->lower == 2.0)		/* BROKEN: one unit of noise above 1 passes */
		s->sel.tau_units = 2 * s->sel.units_one;
	if (m->lower == 3.0)		/* BROKEN: tau halfway */
		s->sel.tau_units = s->sel.units_one + (s->sel.tau_units - s->sel.units_one) / 2;
	s->units = n;
	return s;
}

static bool
select_release(const st_mech *m, void *state, dp_rng *rng, double *out)
{
	select_state *s = state;
	dp_i128		noisy;

	(void) m;
	if (s->units == 0)
		return false;
	if (!dp_selection_release(rng, &s->sel, (dp_i128) s->units * s->sel.units_one, &noisy))
		return false;
	/* dp_partition_select releases true; the counting blocks the noisy count */
	*out = s->sel.counted ? dp_units_to_double(&s->sel.count_plan, noisy) : 1.0;
	return true;
}

/* ---- the mean whose count selects (dp_avg_select, optimal) over [-0.25, 0.5] ---- */

typedef struct avg_select_state
{
	dp_mean		mean;
	dp_selection sel;
	int			n;
} avg_select_state;

static void *
avg_select_prepare(const st_mech *m, const double *x, int n)
{
	avg_select_state *s = dp_mem_alloc(sizeof(avg_select_state));
	int			i;

	st_check(dp_mean_init(&s->mean, -0.25, 0.5, m->epsilon, 1), m);
	st_check(dp_mean_select(&s->mean, &s->sel, DP_SELECT_OPTIMAL, m->delta, 1), m);
	for (i = 0; i < n; i++)
		dp_mean_add(&s->mean, x[i]);
	s->n = n;
	return s;
}

static bool
avg_select_release(const st_mech *m, void *state, dp_rng *rng, double *out)
{
	avg_select_state *s = state;

	(void) m;
	if (s->n == 0)
		return false;
	return dp_mean_release_selected(rng, &s->mean, &s->sel, out);
}

/* ---- row-level quantile: a unit adds x, x + 0.5, x - 0.5 (m->upper: k claimed) ---- */

static void *
quantile_rows_prepare(const st_mech *m, const double *x, int n)
{
	dp_quantile *q = dp_mem_alloc(sizeof(dp_quantile));
	int			i;

	st_check(dp_quantile_init(q, -1.0, 1.0, m->epsilon, (uint32_t) m->upper), m);
	for (i = 0; i < n; i++)
	{
		/* NaN stays NaN (the glue drops NULL, the tree refuses NaN) */
		dp_quantile_add(q, x[i]);
		dp_quantile_add(q, x[i] + 0.5);
		dp_quantile_add(q, x[i] - 0.5);
	}
	return q;
}

static bool
quantile_rows_release(const st_mech *m, void *state, dp_rng *rng, double *out)
{
	*out = dp_quantile_release_rows(rng, (dp_quantile *) state, m->percentile);
	return true;
}

/*
 * ---- row-level quantile with rows per unit chosen: a unit with record x
 * adds the first n = 1 + floor(3.999 (x + 1) / 2) of x, x + 0.5, x - 0.5,
 * x + 0.25 (1 at x = -1, 4 near x = 1; none for NaN, 1 for -Inf, 4 for Inf),
 * M = 4.  rows_choice releases the m chosen with all of epsilon spent on
 * the histogram; m->upper: the factor on that epsilon (4: broken).
 */
typedef struct adaptive_state
{
	dp_quantile q;
	dp_rows_histogram h;
} adaptive_state;

#define ADAPTIVE_MAX_VALUES 4

static void *
quantile_adaptive_prepare(const st_mech *m, const double *x, int n)
{
	adaptive_state *s = dp_mem_alloc(sizeof(adaptive_state));
	int			i;

	memset(&s->h, 0, sizeof(s->h));
	st_check(dp_quantile_init(&s->q, -1.0, 1.0, m->epsilon, ADAPTIVE_MAX_VALUES), m);
	for (i = 0; i < n; i++)
	{
		double		values[ADAPTIVE_MAX_VALUES] = {x[i], x[i] + 0.5, x[i] - 0.5, x[i] + 0.25};
		double		where = isnan(x[i]) ? 0.0 : fmax(-1.0, fmin(x[i], 1.0));
		int			k = 1 + (int) floor(3.999 * (where + 1.0) / 2.0);

		/* NaN stays NaN: no unit */
		dp_rows_add_unit(&s->q, &s->h, values, (uint32_t) k, ADAPTIVE_MAX_VALUES);
	}
	return s;
}

static bool
quantile_adaptive_release(const st_mech *m, void *state, dp_rng *rng, double *out)
{
	adaptive_state *s = state;

	*out = dp_quantile_release_rows_adaptive(rng, &s->q, &s->h, m->percentile, NULL);
	return true;
}

static bool
rows_choice_release(const st_mech *m, void *state, dp_rng *rng, double *out)
{
	adaptive_state *s = state;
	double		noisy[DP_QTREE_ROW_CLASSES];
	int			c;

	dp_rows_noisy_histogram(rng, &s->h, m->epsilon * m->upper, noisy);
	c = dp_rows_best_class(noisy, ADAPTIVE_MAX_VALUES, m->percentile, 1.0);
	*out = (double) dp_rows_candidate(c, ADAPTIVE_MAX_VALUES);
	return true;
}

static void
quantile_adaptive_destroy(void *state)
{
	adaptive_state *s = state;

	dp_quantile_free(&s->q);
	dp_mem_free(s);
}

/*
 * ---- count distinct: a unit adds the values round(4 x) + j, j < 3 (they
 * overlap between units); a non-finite record adds three values of its own.
 * m->upper: the sensitivity the noise is planned for.
 */
typedef struct distinct_state
{
	dp_noise_plan plan;
	int64_t		used;
} distinct_state;

static int
compare_keys(const void *a, const void *b)
{
	int64_t		x = *(const int64_t *) a;
	int64_t		y = *(const int64_t *) b;

	return (x > y) - (x < y);
}

static void *
distinct_prepare(const st_mech *m, const double *x, int n)
{
	distinct_state *s = dp_mem_alloc(sizeof(distinct_state));
	int64_t    *keys = dp_mem_alloc(sizeof(int64_t) * (size_t) (VALUES_PER_UNIT * n + 1));
	int			count = 0;
	int			i;
	int			j;

	st_check(dp_laplace_plan_make(m->upper, m->epsilon, 1, &s->plan), m);
	for (i = 0; i < n; i++)
		for (j = 0; j < VALUES_PER_UNIT; j++)
		{
			if (isfinite(x[i]))
				keys[count++] = (int64_t) llround(4.0 * x[i]) + j;
			else				/* NaN, +Inf, -Inf: values of their own, far away */
				keys[count++] = (x[i] != x[i] ? 1000 : x[i] > 0 ? 2000 : 3000) + j;
		}
	qsort(keys, (size_t) count, sizeof(int64_t), compare_keys);
	s->used = 0;
	for (i = 0; i < count; i++)
		if (i == 0 || keys[i] != keys[i - 1])
			s->used++;
	dp_mem_free(keys);
	return s;
}

static bool
distinct_release(const st_mech *m, void *state, dp_rng *rng, double *out)
{
	distinct_state *s = state;

	(void) m;
	*out = (double) dp_units_to_integer(&s->plan,
										dp_noisy_units(rng, &s->plan,
													   dp_units_from_int64(&s->plan, s->used)));
	return true;
}

/* ---- the lists ---- */

static st_mech
base(const char *name, const char *what, double epsilon, bool control)
{
	st_mech		m = {0};

	m.name = name;
	m.what = what;
	m.epsilon = epsilon;
	m.control = control;
	m.samples_scale = 1.0;
	m.destroy = st_free_plain;
	return m;
}

static st_mech
gaussian_count(double epsilon, bool broken)
{
	st_mech		m = base(broken ? "gaussian_count_half_sigma" : "gaussian_count",
						 broken ? "Gaussian count planned for 4 epsilon (about half the sigma)"
						 : "dp_gaussian_count: count, analytic Gaussian sigma (C_u = 1, delta = 1e-3)",
						 epsilon, broken);

	m.prepare = gaussian_count_prepare;
	m.release = st_int_release;
	m.upper = broken ? 4.0 : 1.0;
	m.delta = 1e-3;
	return m;
}

static st_mech
selection(const char *name, const char *what, double epsilon, dp_selection_mechanism mechanism,
		  bool counted, int breakage)
{
	st_mech		m = base(name, what, epsilon, breakage != 0);

	m.prepare = select_prepare;
	m.release = select_release;
	m.percentile = (double) mechanism;
	m.upper = counted ? 1.0 : 0.0;
	m.lower = (double) breakage;
	m.groups = 1;
	m.delta = 0.02;
	return m;
}

static st_mech
quantile_rows(double epsilon, bool broken)
{
	st_mech		m = base(broken ? "quantile_rows_k1" : "quantile_rows",
						 broken ? "row-level median planned for 1 value per unit, 3 added"
						 : "dp_ntile_rows: median of 3 values per unit over [-1, 1], k = 3",
						 epsilon, broken);

	m.prepare = quantile_rows_prepare;
	m.release = quantile_rows_release;
	m.destroy = st_quantile_destroy;
	m.percentile = 0.5;
	m.upper = broken ? 1.0 : (double) VALUES_PER_UNIT;
	/* a release draws from 65536 leaves exactly: ~1 ms */
	m.samples_scale = broken ? 0.25 : 0.15;
	m.max_databases = broken ? 3 : 2;
	return m;
}

static st_mech
quantile_rows_adaptive(double epsilon)
{
	st_mech		m = base("quantile_rows_adaptive",
						 "dp_ntile_rows_adaptive: median, 1 to 4 values per unit, m chosen (M = 4)",
						 epsilon, false);

	m.prepare = quantile_adaptive_prepare;
	m.release = quantile_adaptive_release;
	m.destroy = quantile_adaptive_destroy;
	m.percentile = 0.5;
	m.samples_scale = 0.15;
	m.max_databases = 2;
	return m;
}

static st_mech
rows_choice(double epsilon, bool broken)
{
	st_mech		m = base(broken ? "rows_choice_4eps" : "rows_choice",
						 broken ? "m chosen from a histogram of sizes noised for 4 epsilon"
						 : "dp_rows_noisy_histogram + dp_rows_best_class: the m chosen (M = 4)",
						 epsilon, broken);

	m.prepare = quantile_adaptive_prepare;
	m.release = rows_choice_release;
	m.destroy = quantile_adaptive_destroy;
	m.percentile = 0.5;
	m.upper = broken ? 4.0 : 1.0;
	return m;
}

static st_mech
count_distinct(double epsilon, bool broken)
{
	st_mech		m = base(broken ? "count_distinct_k1" : "count_distinct",
						 broken ? "count distinct with sensitivity 1 while a unit adds 3 values"
						 : "dp_count_distinct: up to 3 distinct values per unit, sensitivity 3",
						 epsilon, broken);

	m.prepare = distinct_prepare;
	m.release = distinct_release;
	m.upper = broken ? 1.0 : (double) VALUES_PER_UNIT;
	return m;
}

size_t
st_issue20_mechanisms(st_mech *out, size_t max, bool thorough)
{
	size_t		n_eps;
	const double *eps = st_epsilons(thorough, &n_eps);
	size_t		n = 0;
	size_t		e;

#define ADD(expr) do { if (n < max) out[n++] = (expr); } while (0)
	for (e = 0; e < n_eps; e++)
	{
		ADD(gaussian_count(eps[e], false));
		ADD(selection("select_optimal", "dp_partition_select, optimal: keep w.p. pi(n) (delta = 0.02)",
					  eps[e], DP_SELECT_OPTIMAL, false, 0));
		ADD(selection("select_truncated", "dp_count_select, optimal: truncated Laplace count over 1 + K (delta = 0.02)",
					  eps[e], DP_SELECT_OPTIMAL, true, 0));
		ADD(selection("select_gaussian", "dp_count_select, Gaussian: discrete Gaussian count over tau (delta = 0.02)",
					  eps[e], DP_SELECT_GAUSSIAN, true, 0));
		ADD(selection("select_laplace_counted", "dp_count_select, Laplace: the paper's tau on a released count (delta = 0.02)",
					  eps[e], DP_SELECT_LAPLACE, true, 0));
		{
			st_mech		m = base("avg_select", "dp_avg_select, optimal: mean over [-0.25, 0.5] whose truncated count selects (delta = 0.02)",
								 eps[e], false);

			m.prepare = avg_select_prepare;
			m.release = avg_select_release;
			m.groups = 1;
			m.delta = 0.02;
			ADD(m);
		}
		if (thorough || e == n_eps - 1)
		{
			ADD(quantile_rows(eps[e], false));
			ADD(quantile_rows_adaptive(eps[e]));
		}
		ADD(rows_choice(eps[e], false));
		ADD(count_distinct(eps[e], false));
	}
#undef ADD
	return n;
}

size_t
st_issue20_broken(st_mech *out, size_t max, bool thorough)
{
	size_t		n = 0;

	(void) thorough;
#define ADD(expr) do { if (n < max) out[n++] = (expr); } while (0)
	ADD(gaussian_count(1.0, true));
	ADD(selection("select_optimal_2eps", "optimal selection with pi(n) for twice the epsilon claimed",
				  1.0, DP_SELECT_OPTIMAL, false, 1));
	ADD(selection("select_truncated_low_tau", "truncated count released from 2 units (tau not above 1 + K)",
				  1.0, DP_SELECT_OPTIMAL, true, 2));
	ADD(selection("select_gaussian_half_tau", "Gaussian selection with tau halfway to one unit",
				  1.0, DP_SELECT_GAUSSIAN, true, 3));
	ADD(quantile_rows(1.0, true));
	ADD(rows_choice(1.0, true));
	ADD(count_distinct(1.0, true));
#undef ADD
	return n;
}
