/*
 * dp_selection.c -- partition selection (dp_selection.h).
 */
#include "dp_selection.h"

#include <math.h>
#include <string.h>

#include "dp_gauss.h"
#include "dp_sampler.h"

#define MARGIN 0x1p-20L			/* relative margin of computed epsilon and delta */
#define PROB_BITS 126			/* keep probabilities are multiples of 2^-126 */

static const char *const names[DP_SELECT_MECHANISMS] = {"laplace", "optimal", "gaussian"};

const char *
dp_selection_name(dp_selection_mechanism mechanism)
{
	return (unsigned) mechanism < DP_SELECT_MECHANISMS ? names[mechanism] : "?";
}

bool
dp_selection_parse(const char *name, dp_selection_mechanism *mechanism)
{
	int			i;

	for (i = 0; i < DP_SELECT_MECHANISMS; i++)
		if (strcmp(name, names[i]) == 0)
		{
			*mechanism = (dp_selection_mechanism) i;
			return true;
		}
	return false;
}

/* ---- LAPLACE: the paper's threshold (dp_params.c) ---- */

static dp_status
make_laplace(dp_selection *sel)
{
	dp_threshold threshold;
	dp_status	status = dp_threshold_make(sel->epsilon, sel->delta, sel->max_groups,
										   &threshold);

	if (status != DP_OK)
		return status;
	sel->count_plan = threshold.count_plan;
	sel->tau_units = threshold.tau_units;
	return DP_OK;
}

/* ---- OPTIMAL with a released count: truncated discrete Laplace ---- */

/*
 * delta of the truncated count for neighbours n and n + 1 (a shift of s
 * units): the mass of the s outputs only one side can produce,
 *   P(Z >= K - s + 1) = a^(K-s+1) (1 - a^s) / (1 + a - 2 a^(K+1)),  a = e^(-1/t).
 * Inside the overlap the two probabilities differ by a^-s <= e^eps (the
 * plan's t covers the shift).
 */
static long double
truncated_delta(long double t, long double s, long double k)
{
	long double ratio = expl(-1.0L / t);

	return expl(-(k - s + 1.0L) / t) * -expm1l(-s / t) /
		(1.0L + ratio - 2.0L * expl(-(k + 1.0L) / t));
}

static dp_status
make_truncated(dp_selection *sel)
{
	dp_status	status = dp_laplace_plan_make(1.0, sel->epsilon, 1, &sel->count_plan);
	long double t;
	long double s;
	long double target = (long double) sel->delta / (long double) sel->max_groups *
		(1.0L - MARGIN);
	long double k;
	int			i;

	if (status != DP_OK)
		return status;
	sel->units_one = dp_units_from_int64(&sel->count_plan, 1);
	t = (long double) sel->count_plan.t;
	s = (long double) sel->units_one;
	/* solve the formula above for K (its denominator depends on K: iterate) */
	k = s;
	for (i = 0; i < 6; i++)
	{
		long double denominator = 1.0L + expl(-1.0L / t) - 2.0L * expl(-(k + 1.0L) / t);

		k = s - 1.0L + t * (logl(-expm1l(-s / t)) - logl(target * denominator));
		k = ceill(k * (1.0L + 0x1p-50L)) + 2.0L;
		if (k < s)
			k = s;
	}
	if (truncated_delta(t, s, k) > target)
	{
		/* the estimate fell short: truncated_delta decreases in K, so bracket and bisect */
		long double low = k;
		long double step = ceill(t) + 1.0L;
		long double high = k + step;

		while (truncated_delta(t, s, high) > target)
		{
			low = high;
			step *= 2.0L;
			high = k + step;
			if (!(high < 0x1p61L))
				return DP_ERR_NOISE_SCALE;
		}
		while (high - low > 1.0L)
		{
			long double middle = floorl((low + high) / 2.0L);

			if (truncated_delta(t, s, middle) > target)
				low = middle;
			else
				high = middle;
		}
		k = high;
	}
	if (!(k < 0x1p61L))
		return DP_ERR_NOISE_SCALE;
	sel->count_plan.truncation = (uint64_t) k;
	/* a partition of one unit reaches at most s + K */
	sel->tau_units = sel->units_one + (dp_i128) sel->count_plan.truncation + 1;
	return DP_OK;
}

/* ---- GAUSSIAN ---- */

static dp_status
make_gaussian(dp_selection *sel)
{
	double		q = dp_single_unit_release_bound(sel->delta / 2.0, sel->max_groups);
	long double sigma;
	long double z;
	dp_status	status;

	if ((double) sel->max_groups * sel->epsilon > DP_EPSILON_MAX)
		return DP_ERR_EPSILON;
	status = dp_gaussian_plan_make(1.0, (double) sel->max_groups * sel->epsilon,
								   sel->delta / 2.0, sel->max_groups, &sel->count_plan);
	if (status != DP_OK)
		return status;
	if (!(q > 0.0))
		return DP_ERR_DELTA;
	sel->units_one = dp_units_from_int64(&sel->count_plan, 1);
	sigma = (long double) sel->count_plan.sigma;
	/*
	 * P(Z >= z) <= P(X >= z - 1) for the discrete Gaussian (dp_noise.h):
	 * the smallest z with P(X >= (z - 1) / sigma) <= q, checked directly.
	 */
	z = 1.0L + ceill(sigma * dp_normal_tail_inverse((long double) q * (1.0L - MARGIN)));
	{
		/* if the estimate fell short, step up with growing steps (a larger z is safe) */
		long double step = 1.0L;

		while (dp_normal_tail((z - 1.0L) / sigma) > (long double) q * (1.0L - 0x1p-30L))
		{
			z += step;
			step *= 2.0L;
			if (!(z < 0x1p61L))
				return DP_ERR_NOISE_SCALE;
		}
	}
	sel->tau_units = sel->units_one + (dp_i128) z;
	return DP_OK;
}

/* ---- OPTIMAL without a count: pi(n) in closed form ---- */

/*
 * While pi(n-1) <= (1 - delta') / (1 + e^eps) the first branch is the
 * smaller: pi(n) = delta' (e^(n eps) - 1) / (e^eps - 1) = c expm1(n eps).
 * Let m be the last n where that value is at most the switch point; pi(m+1)
 * still follows it, and from then on the second branch holds, which in
 * terms of q = 1 - pi reads q(n) = e^-eps (q(n-1) - delta'), that is
 *   q(m+1+j) = (q(m+1) + c) e^(-j eps) - c,   pi = 1 once q <= 0.
 */
static dp_status
make_optimal(dp_selection *sel)
{
	long double eps;
	long double delta;
	long double cross;

	if (sel->epsilon < 1e-9)
		return DP_ERR_EPSILON;
	if (sel->delta / (double) sel->max_groups < 1e-25)
		return DP_ERR_DELTA;
	/* counts of units: an exact plan, one unit per unit */
	if (dp_laplace_plan_make(0.0, 1.0, 1, &sel->count_plan) != DP_OK)
		return DP_ERR_NOISE_SCALE;
	sel->units_one = 1;
	eps = (long double) sel->epsilon * (1.0L - MARGIN);
	delta = (long double) sel->delta / (long double) sel->max_groups * (1.0L - MARGIN);
	sel->opt_epsilon = eps;
	sel->opt_delta = delta;
	sel->opt_c = delta / expm1l(eps);
	cross = (1.0L - delta) / (1.0L + expl(eps));
	{
		long double m = floorl(log1pl(cross / sel->opt_c) / eps);

		if (!(m < 0x1p62L))
			return DP_ERR_NOISE_SCALE;
		/* floating point may put m one step off: step until it is the last */
		while (m > 0.0L && sel->opt_c * expm1l(m * eps) > cross)
			m -= 1.0L;
		while (sel->opt_c * expm1l((m + 1.0L) * eps) <= cross)
			m += 1.0L;
		sel->opt_switch = (uint64_t) m + 1;
	}
	sel->opt_q_switch = 1.0L - sel->opt_c * expm1l((long double) sel->opt_switch * eps);
	sel->tau_units = 0;
	return DP_OK;
}

long double
dp_selection_keep_probability(const dp_selection *sel, uint64_t n)
{
	long double q;

	if (sel->mechanism != DP_SELECT_OPTIMAL || sel->counted)
		dp_fail("dp_selection_keep_probability: not an optimal selection without a count");
	if (n <= sel->opt_switch)
		return sel->opt_c * expm1l((long double) n * sel->opt_epsilon);
	q = (sel->opt_q_switch + sel->opt_c) *
		expl(-(long double) (n - sel->opt_switch) * sel->opt_epsilon) - sel->opt_c;
	return q > 0.0L ? 1.0L - q : 1.0L;
}

/*
 * Bernoulli(pi(n)) with pi rounded to a multiple of 2^-126 towards not
 * keeping: pi down below 1/2, 1 - pi up above.
 */
static bool
optimal_keep(dp_rng *rng, const dp_selection *sel, uint64_t n)
{
	const dp_u128 den = (dp_u128) 1 << PROB_BITS;
	long double p = dp_selection_keep_probability(sel, n);

	if (n == 0 || p <= 0.0L)
		return false;
	if (p <= 0.5L)
		return dp_bernoulli(rng, (dp_u128) floorl(p * 0x1p126L), den);
	if (p >= 1.0L && n > sel->opt_switch)
		return true;
	return !dp_bernoulli(rng, (dp_u128) ceill((1.0L - p) * 0x1p126L), den);
}

/* ---- common ---- */

dp_status
dp_selection_make(dp_selection_mechanism mechanism, double epsilon, double delta,
				  int64_t max_groups, bool counted, dp_selection *sel)
{
	dp_status	status;

	memset(sel, 0, sizeof(*sel));
	if ((status = dp_check_epsilon(epsilon)) != DP_OK)
		return status;
	if ((status = dp_check_delta(delta)) != DP_OK)
		return status;
	if ((status = dp_check_max_groups(max_groups)) != DP_OK)
		return status;
	sel->mechanism = mechanism;
	sel->counted = counted;
	sel->epsilon = epsilon;
	sel->delta = delta;
	sel->max_groups = max_groups;
	switch (mechanism)
	{
		case DP_SELECT_LAPLACE:
			status = make_laplace(sel);
			break;
		case DP_SELECT_OPTIMAL:
			status = counted ? make_truncated(sel) : make_optimal(sel);
			break;
		case DP_SELECT_GAUSSIAN:
			status = make_gaussian(sel);
			break;
		default:
			return DP_ERR_NOISE_SCALE;
	}
	if (status != DP_OK)
		return status;
	sel->units_one = dp_units_from_int64(&sel->count_plan, 1);
	sel->tau = sel->tau_units == 0 ? 0.0 :
		(double) sel->tau_units / (double) sel->units_one;
	return DP_OK;
}

bool
dp_selection_release(dp_rng *rng, const dp_selection *sel, dp_i128 units, dp_i128 *noisy)
{
	dp_i128		value;

	if (sel->mechanism == DP_SELECT_OPTIMAL && !sel->counted)
	{
		if (noisy)
			*noisy = units;
		return units > 0 && optimal_keep(rng, sel, (uint64_t) units);
	}
	value = dp_noisy_units(rng, &sel->count_plan, units);
	if (noisy)
		*noisy = value;
	return value >= sel->tau_units;
}

double
dp_selection_users_for_half(const dp_selection *sel)
{
	uint64_t	lo = 0;			/* pi(lo) < 1/2 */
	uint64_t	hi = 1;			/* pi(hi) >= 1/2 */

	if (sel->mechanism != DP_SELECT_OPTIMAL || sel->counted)
		return sel->tau;
	while (dp_selection_keep_probability(sel, hi) < 0.5L)
	{
		lo = hi;
		if (hi > (UINT64_C(1) << 62))
			return (double) hi;
		hi *= 2;
	}
	while (hi - lo > 1)
	{
		uint64_t	mid = lo + (hi - lo) / 2;

		if (dp_selection_keep_probability(sel, mid) >= 0.5L)
			hi = mid;
		else
			lo = mid;
	}
	return (double) hi;
}
