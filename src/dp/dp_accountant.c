/*
 * dp_accountant.c -- the privacy accountant of a budget (dp_accountant.h).
 */
#include "dp_accountant.h"

#include <math.h>
#include <string.h>

#include "dp_auto_bounds.h"
#include "dp_noise.h"
#include "dp_params.h"
#include "dp_quantile.h"
#include "dp_quantile_rows.h"
#include "dp_selection.h"

/*
 * relative margin on every computed bound: far above the rounding of a few
 * long double operations (64-bit significand, libm within an ulp or two)
 */
#define MARGIN 0x1p-56L

/* orders searched when the first concentrated charge fixes one */
#define ORDER_LOG10_MIN (-4.0)	/* a - 1 = 10^-4 */
#define ORDER_LOG10_MAX 6.0		/* a - 1 = 10^6 */
#define ORDER_GRID 500
#define ORDER_REFINE 60
#define GOLDEN 0.6180339887498949L	/* (sqrt(5) - 1) / 2 */

/* a long double bound as a double, never smaller */
static double
round_up(long double x)
{
	double		d;

	if (isnan(x))
		return (double) x;
	x += fabsl(x) * MARGIN;
	d = (double) x;
	return (long double) d < x ? nextafter(d, INFINITY) : d;
}

double
dp_block_rho_factor(dp_block_structure structure)
{
	const double s = DP_AUTO_HISTOGRAM_SHARE;	/* the histogram's share */
	const double tree = 1.0 / DP_QTREE_HEIGHT;	/* height parts of epsilon/height */
	const double r = DP_ROWS_CHOICE_SHARE;

	switch (structure)
	{
		case DP_BLOCK_PURE:
			return 1.0;
		case DP_BLOCK_HALVES:
		case DP_BLOCK_SELECTED_MEAN:
			return 0.5;			/* 2 (1/2)^2 */
		case DP_BLOCK_THIRDS:
			return 1.0 / 3.0;	/* 3 (1/3)^2 */
		case DP_BLOCK_TREE:
			return tree;		/* height (1/height)^2 */
		case DP_BLOCK_AUTO_SUM:
			return s * s + (1 - s) * (1 - s);
		case DP_BLOCK_AUTO_MEAN:
			return s * s + (1 - s) * (1 - s) * 0.5;
		case DP_BLOCK_AUTO_VARIANCE:
			return s * s + (1 - s) * (1 - s) / 3.0;
		case DP_BLOCK_AUTO_TREE:
			return s * s + (1 - s) * (1 - s) * tree;
		case DP_BLOCK_ROWS_ADAPTIVE:
			return r * r + (1 - r) * (1 - r);
		default:
			return NAN;
	}
}

void
dp_charge_cost_add(dp_charge_cost *cost, const dp_charge_cost *add)
{
	cost->epsilon += add->epsilon;
	cost->delta += add->delta;
	cost->pure_epsilon += add->pure_epsilon;
	cost->rho_pure += add->rho_pure;
	cost->rho_gauss += add->rho_gauss;
	cost->xi += add->xi;
}

/* the zCDP of a pure part: max_groups parts of epsilon, or one of max_groups epsilon */
static double
pure_rho(double factor, double epsilon, int64_t max_groups, bool grouped)
{
	long double e = epsilon;
	long double g = (long double) max_groups;

	return round_up(grouped ? factor * g * e * e / 2.0L : factor * (g * e) * (g * e) / 2.0L);
}

dp_status
dp_block_cost(dp_block_structure structure, int selection, double epsilon, double delta,
			  int64_t max_groups, bool grouped, dp_charge_cost *cost)
{
	dp_status	status;
	double		factor;

	memset(cost, 0, sizeof(*cost));
	if (structure == DP_BLOCK_NONE)
		return DP_OK;
	if ((status = dp_check_epsilon(epsilon)) != DP_OK)
		return status;
	if (max_groups < 1 || max_groups > (INT64_C(1) << 40))
		return DP_ERR_MAX_GROUPS;
	if (!(delta >= 0.0 && delta < 1.0))
		return DP_ERR_DELTA;
	/* composed: C_u times the epsilon of a partition, as anon_dp 1.0 charged it */
	cost->epsilon = (double) max_groups * epsilon;
	cost->delta = delta;
	if (structure == DP_BLOCK_SELECTION && selection == DP_SELECT_GAUSSIAN)
	{
		/* the count is Gaussian (delta/2 calibrates it); delta/2 covers one-user partitions */
		cost->xi = delta / 2.0;
		return dp_gaussian_rho((double) max_groups * epsilon, delta / 2.0, &cost->rho_gauss);
	}
	if (structure == DP_BLOCK_GAUSSIAN)
		return dp_gaussian_rho((double) max_groups * epsilon, delta, &cost->rho_gauss);
	if (structure == DP_BLOCK_SELECTION || structure == DP_BLOCK_SELECTED_MEAN)
	{
		if (selection != DP_SELECT_LAPLACE && selection != DP_SELECT_OPTIMAL)
			return DP_ERR_SIGMA;	/* a mean's count is never Gaussian */
		cost->xi = delta;
		factor = structure == DP_BLOCK_SELECTION ? 1.0 : dp_block_rho_factor(structure);
	}
	else
	{
		factor = dp_block_rho_factor(structure);
		if (isnan(factor))
			return DP_ERR_NOISE_SCALE;
		if (delta != 0.0)
			return DP_ERR_DELTA;	/* pure blocks spend no delta */
	}
	cost->pure_epsilon = round_up((long double) max_groups * epsilon);
	cost->rho_pure = pure_rho(factor, epsilon, max_groups, grouped);
	return DP_OK;
}

const char *
dp_charge_kind_name(dp_charge_kind kind)
{
	switch (kind)
	{
		case DP_CHARGE_COMPOSED:
			return "composed";
		case DP_CHARGE_CONCENTRATED:
			return "concentrated";
		default:
			return "refused";
	}
}

/*
 * K(a, d) in long double, plus a bound on its rounding error: the terms
 * (a-1) ln(a-1) - a ln a = (a-1) ln(1 - 1/a) - ln a are formed without
 * cancelling large values, and what cancels between ln(1/d) and ln a is
 * covered by an absolute margin of their size.
 */
/* the parts of K(a, d) that depend on a alone */
typedef struct order_terms
{
	long double a;
	long double am1;
	long double log_a;
	long double tail;
} order_terms;

static void
order_terms_of(long double a, order_terms *terms)
{
	terms->a = a;
	terms->am1 = a - 1.0L;
	terms->log_a = logl(a);
	terms->tail = terms->am1 * log1pl(-1.0L / a);
}

/* K(a, d) from a's terms and ln(1/d) */
static long double
conversion_of(const order_terms *terms, long double inv_d)
{
	return (inv_d + terms->tail - terms->log_a) / terms->am1 +
		(inv_d + fabsl(terms->tail) + terms->log_a + 1.0L) * MARGIN / terms->am1;
}

static long double
conversion(long double a, long double d)
{
	order_terms terms;

	order_terms_of(a, &terms);
	return conversion_of(&terms, -logl(d));
}

double
dp_renyi_conversion(double order, double delta)
{
	if (!(delta > 0.0) || !(order > 1.0))
		return INFINITY;
	return round_up(conversion(order, delta));
}

static long double
renyi(const dp_charge_cost *cost, long double a)
{
	long double pure = a * (long double) cost->rho_pure;

	if ((long double) cost->pure_epsilon < pure)
		pure = cost->pure_epsilon;
	return a * (long double) cost->rho_gauss + pure;
}

double
dp_charge_renyi(const dp_charge_cost *cost, double order)
{
	return round_up(renyi(cost, order));
}

static bool
concentrated(const dp_ledger_state *state)
{
	return state->order > 1.0;
}

/* E, read from a decimal sum kept elsewhere: counted a hair larger */
static long double
composed_upper(const dp_ledger_state *state)
{
	return (long double) state->composed_epsilon * (1.0L + MARGIN);
}

void
dp_accountant_spent(const dp_ledger_state *state, double *epsilon, double *delta)
{
	if (!concentrated(state))
	{
		*epsilon = state->composed_epsilon;
		*delta = state->event_delta;
		return;
	}
	*epsilon = round_up(composed_upper(state) + (long double) state->renyi_epsilon +
						(long double) dp_renyi_conversion(state->order, state->conversion_delta));
	*delta = round_up((long double) state->event_delta + state->conversion_delta);
}

bool
dp_accountant_basic_fits(const dp_ledger_state *state, double budget_epsilon,
						 double budget_delta, const dp_charge_cost *cost)
{
	return state->composed_epsilon + cost->epsilon <= budget_epsilon &&
		state->event_delta + cost->delta <= budget_delta;
}

/* how many times `need` fits in `room` (informational: a relative 1e-12 of slack) */
static double
times(double room, double need)
{
	double		n;

	if (!(room >= 0.0))
		return 0.0;
	if (!(need > 0.0))
		return DP_ACCOUNTANT_FITS_MAX;
	n = floor(room / need * (1.0 + 1e-12));
	return n < DP_ACCOUNTANT_FITS_MAX ? n : DP_ACCOUNTANT_FITS_MAX;
}

/* charges of this cost that fit after the state when all are composed */
static double
fits_composed(const dp_ledger_state *state, double budget_epsilon, double budget_delta,
			  const dp_charge_cost *cost)
{
	double		e = times(budget_epsilon - state->composed_epsilon, cost->epsilon);
	double		d = times(budget_delta - state->event_delta, cost->delta);

	return e < d ? e : d;
}

/* charges of this cost that fit after a concentrated state */
static double
fits_concentrated(const dp_ledger_state *state, double budget_epsilon, double budget_delta,
				  const dp_charge_cost *cost)
{
	double		spent_epsilon;
	double		spent_delta;
	double		e;
	double		d;

	dp_accountant_spent(state, &spent_epsilon, &spent_delta);
	e = times(budget_epsilon - spent_epsilon, dp_charge_renyi(cost, state->order));
	d = times(budget_delta - spent_delta, cost->xi);
	return e < d ? e : d;
}

/* the state after a concentrated charge, and whether it stays within the budget */
static bool
charge_concentrated(const dp_ledger_state *before, double budget_epsilon, double budget_delta,
					const dp_charge_cost *cost, dp_ledger_state *after)
{
	double		spent_epsilon;
	double		spent_delta;

	*after = *before;
	after->renyi_epsilon = round_up((long double) before->renyi_epsilon +
									renyi(cost, before->order));
	after->event_delta = round_up((long double) before->event_delta + cost->xi);
	dp_accountant_spent(after, &spent_epsilon, &spent_delta);
	return spent_epsilon <= budget_epsilon && spent_delta <= budget_delta;
}

/*
 * The charges of this cost that fit after switching to concentrated charges
 * at order a, this charge included; negative when this one does not fit.
 */
static double
switch_capacity(const dp_ledger_state *before, double budget_epsilon, double budget_delta,
				const dp_charge_cost *cost, double order, double conversion_delta)
{
	dp_ledger_state trial = *before;
	dp_ledger_state after;

	trial.order = order;
	trial.conversion_delta = conversion_delta;
	if (!charge_concentrated(&trial, budget_epsilon, budget_delta, cost, &after))
		return -1.0;
	return 1.0 + fits_concentrated(&after, budget_epsilon, budget_delta, cost);
}

/* the room for charges once the conversion is paid at an order, per unit of cost */
static long double
room_per_cost(long double room, const dp_charge_cost *cost, const order_terms *terms,
			  long double inv_d)
{
	long double c = renyi(cost, terms->a);

	return (room - conversion_of(terms, inv_d)) / (c > 0.0L ? c : 1e-300L);
}

static long double
room_per_cost_at(long double room, const dp_charge_cost *cost, long double t, long double inv_d)
{
	order_terms terms;

	order_terms_of(1.0L + powl(10.0L, t), &terms);
	return room_per_cost(room, cost, &terms, inv_d);
}

/*
 * The grid's orders and their terms, computed once per process: they depend
 * on nothing else, and computing them for every charge (a power and two
 * logarithms in long double at each of the 501 points, twice per charge)
 * was most of the ledger worker's CPU time.  The values are the same as
 * computed in place, so the chosen order is too.
 */
static order_terms order_grid[ORDER_GRID + 1];
static bool order_grid_ready = false;

static void
prepare_order_grid(void)
{
	long double step = (ORDER_LOG10_MAX - ORDER_LOG10_MIN) / ORDER_GRID;
	int			i;

	if (order_grid_ready)
		return;
	for (i = 0; i <= ORDER_GRID; i++)
		order_terms_of(1.0L + powl(10.0L, ORDER_LOG10_MIN + step * i), &order_grid[i]);
	order_grid_ready = true;
}

/*
 * What choose_order depends on, and the orders it chose last: a charge asks
 * for the order of its budget's state before it (dp_accountant_charge) and
 * of the state after it (dp_accountant_fits, for the answer), and the next
 * charge of the same kind asks again for the latter.  The key is compared
 * bit for bit, so a remembered order is exactly the one computed again.
 */
typedef struct order_key
{
	double		budget_epsilon;
	double		composed_epsilon;
	double		pure_epsilon;
	double		rho_pure;
	double		rho_gauss;
	double		conversion_delta;
} order_key;

#define ORDER_MEMORY 4

static struct
{
	order_key	key;
	double		order;
	bool		valid;
}			order_memory[ORDER_MEMORY];
static int	order_memory_next = 0;

static double choose_order_computed(const dp_ledger_state *before, double budget_epsilon,
									const dp_charge_cost *cost, double conversion_delta);

static double
choose_order(const dp_ledger_state *before, double budget_epsilon,
			 const dp_charge_cost *cost, double conversion_delta)
{
	order_key	key;
	double		order;
	int			i;

	memset(&key, 0, sizeof(key));
	key.budget_epsilon = budget_epsilon;
	key.composed_epsilon = before->composed_epsilon;
	key.pure_epsilon = cost->pure_epsilon;
	key.rho_pure = cost->rho_pure;
	key.rho_gauss = cost->rho_gauss;
	key.conversion_delta = conversion_delta;
	for (i = 0; i < ORDER_MEMORY; i++)
		if (order_memory[i].valid && memcmp(&order_memory[i].key, &key, sizeof(key)) == 0)
			return order_memory[i].order;
	order = choose_order_computed(before, budget_epsilon, cost, conversion_delta);
	order_memory[order_memory_next].key = key;
	order_memory[order_memory_next].order = order;
	order_memory[order_memory_next].valid = true;
	order_memory_next = (order_memory_next + 1) % ORDER_MEMORY;
	return order;
}

/*
 * The order for a first concentrated charge: the one after which the most
 * charges of this cost fit (any order is sound; this one is found by a grid
 * over log(a - 1) and a golden-section refinement).
 */
static double
choose_order_computed(const dp_ledger_state *before, double budget_epsilon,
					  const dp_charge_cost *cost, double conversion_delta)
{
	long double room = (long double) budget_epsilon - composed_upper(before);
	long double step = (ORDER_LOG10_MAX - ORDER_LOG10_MIN) / ORDER_GRID;
	long double inv_d = -logl((long double) conversion_delta);
	long double best_t = ORDER_LOG10_MIN;
	long double best = -INFINITY;
	long double lo;
	long double hi;
	int			i;

	prepare_order_grid();
	for (i = 0; i <= ORDER_GRID; i++)
	{
		long double t = ORDER_LOG10_MIN + step * i;
		long double v = room_per_cost(room, cost, &order_grid[i], inv_d);

		if (v > best)
		{
			best = v;
			best_t = t;
		}
	}
	/*
	 * Golden-section search: each step keeps one inner point and its value
	 * (the inner points of [lo, hi] divide it in the golden ratio, so one of
	 * them is an inner point of the kept part), one power and two
	 * logarithms per step instead of two.
	 */
	lo = best_t - step;
	hi = best_t + step;
	{
		long double m1 = hi - (hi - lo) * GOLDEN;
		long double m2 = lo + (hi - lo) * GOLDEN;
		long double f1 = room_per_cost_at(room, cost, m1, inv_d);
		long double f2 = room_per_cost_at(room, cost, m2, inv_d);

		for (i = 0; i < ORDER_REFINE; i++)
		{
			if (f1 < f2)
			{
				lo = m1;
				m1 = m2;
				f1 = f2;
				m2 = lo + (hi - lo) * GOLDEN;
				f2 = room_per_cost_at(room, cost, m2, inv_d);
			}
			else
			{
				hi = m2;
				m2 = m1;
				f2 = f1;
				m1 = hi - (hi - lo) * GOLDEN;
				f1 = room_per_cost_at(room, cost, m1, inv_d);
			}
		}
	}
	return (double) (1.0L + powl(10.0L, (lo + hi) / 2.0L));
}

/* the delta the conversion sets aside when the first concentrated charge is made */
static double
conversion_delta_for(const dp_ledger_state *before, double budget_delta,
					 const dp_charge_cost *cost)
{
	double		half = (budget_delta - before->event_delta - cost->xi) / 2.0;

	return half < DP_CONVERSION_DELTA_MAX ? half : DP_CONVERSION_DELTA_MAX;
}

static bool
is_free(const dp_charge_cost *cost)
{
	return cost->epsilon == 0.0 && cost->delta == 0.0 && cost->pure_epsilon == 0.0 &&
		cost->rho_pure == 0.0 && cost->rho_gauss == 0.0 && cost->xi == 0.0;
}

dp_charge_kind
dp_accountant_charge(const dp_ledger_state *before, double budget_epsilon, double budget_delta,
					 const dp_charge_cost *cost, bool basic_fits, dp_ledger_state *after)
{
	dp_ledger_state composed = *before;
	double		delta_c;
	double		order;
	double		by_switch;

	*after = *before;
	if (concentrated(before))
	{
		if (is_free(cost))
			return DP_CHARGE_CONCENTRATED;
		if (!charge_concentrated(before, budget_epsilon, budget_delta, cost, &composed))
			return DP_CHARGE_REFUSED;
		*after = composed;
		return DP_CHARGE_CONCENTRATED;
	}
	composed.composed_epsilon = before->composed_epsilon + cost->epsilon;
	composed.event_delta = before->event_delta + cost->delta;
	if (is_free(cost))
		return basic_fits ? DP_CHARGE_COMPOSED : DP_CHARGE_REFUSED;

	delta_c = conversion_delta_for(before, budget_delta, cost);
	by_switch = -1.0;
	order = 0.0;
	if (delta_c > 0.0)
	{
		order = choose_order(before, budget_epsilon, cost, delta_c);
		by_switch = switch_capacity(before, budget_epsilon, budget_delta, cost, order, delta_c);
	}
	if (basic_fits &&
		!(by_switch >= DP_SWITCH_GAIN *
		  (1.0 + fits_composed(&composed, budget_epsilon, budget_delta, cost))))
	{
		*after = composed;
		return DP_CHARGE_COMPOSED;
	}
	if (by_switch < 0.0)
		return DP_CHARGE_REFUSED;
	composed = *before;
	composed.order = order;
	composed.conversion_delta = delta_c;
	(void) charge_concentrated(&composed, budget_epsilon, budget_delta, cost, after);
	return DP_CHARGE_CONCENTRATED;
}

void
dp_accountant_need(const dp_ledger_state *state, const dp_charge_cost *cost,
				   double *epsilon, double *delta)
{
	if (concentrated(state))
	{
		*epsilon = dp_charge_renyi(cost, state->order);
		*delta = cost->xi;
		return;
	}
	*epsilon = cost->epsilon;
	*delta = cost->delta;
}

double
dp_accountant_fits(const dp_ledger_state *state, double budget_epsilon, double budget_delta,
				   const dp_charge_cost *cost)
{
	double		composed;
	double		by_switch = 0.0;
	double		delta_c;

	if (concentrated(state))
		return fits_concentrated(state, budget_epsilon, budget_delta, cost);
	composed = fits_composed(state, budget_epsilon, budget_delta, cost);
	delta_c = conversion_delta_for(state, budget_delta, cost);
	if (delta_c > 0.0 && !is_free(cost))
		by_switch = switch_capacity(state, budget_epsilon, budget_delta, cost,
									choose_order(state, budget_epsilon, cost, delta_c), delta_c);
	/* as dp_accountant_charge chooses */
	return by_switch >= DP_SWITCH_GAIN * composed && by_switch > 0.0 ? by_switch : composed;
}

/* ---- plain zCDP conversions ---- */

/* ln delta(a) for rho-zCDP at epsilon (Proposition 12 at order a), rounded up */
static long double
log_delta_at(long double rho, long double epsilon, long double a)
{
	long double am1 = a - 1.0L;
	long double main = am1 * (a * rho - epsilon);
	long double tail = am1 * log1pl(-1.0L / a);
	long double log_a = logl(a);

	return main + tail - log_a + (fabsl(main) + fabsl(tail) + log_a + 1.0L) * MARGIN;
}

double
dp_zcdp_delta(double rho, double epsilon)
{
	long double lo;
	long double hi;
	int			i;

	if (!(rho > 0.0))
		return 0.0;
	if (!(epsilon >= 0.0))
		return 1.0;
	/* ln delta(a) is convex in a; its minimum lies in (1, (epsilon + 1)/(2 rho) + 2) */
	lo = 1.0L;
	hi = ((long double) epsilon + 1.0L) / (2.0L * rho) + 2.0L;
	for (i = 0; i < 200; i++)
	{
		long double m1 = lo + (hi - lo) / 3.0L;
		long double m2 = hi - (hi - lo) / 3.0L;

		if (log_delta_at(rho, epsilon, m1) < log_delta_at(rho, epsilon, m2))
			hi = m2;
		else
			lo = m1;
	}
	{
		long double d = expl(log_delta_at(rho, epsilon, (lo + hi) / 2.0L));
		double		up = round_up(d);

		return up < 1.0 ? up : 1.0;
	}
}

double
dp_zcdp_epsilon(double rho, double delta)
{
	long double lo = 0.0L;
	long double hi;
	int			i;

	if (!(rho > 0.0))
		return 0.0;
	if (!(delta > 0.0))
		return INFINITY;
	/* Bun and Steinke's rho + 2 sqrt(rho ln(1/delta)) is enough */
	hi = rho + 2.0L * sqrtl(rho * -logl(delta)) + 1.0L;
	for (i = 0; i < 200; i++)
	{
		long double mid = (lo + hi) / 2.0L;

		if (dp_zcdp_delta(rho, (double) mid) <= delta)
			hi = mid;
		else
			lo = mid;
	}
	return round_up(hi);
}
