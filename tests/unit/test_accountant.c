/*
 * test_accountant.c -- the privacy accountant (dp_accountant.h) and the zCDP
 * of Gaussian plans (dp_noise.h, dp_gaussian_rho).
 *
 * Reference values come from accountant_reference.py, which writes the
 * formulas of the papers again with Python's standard library
 * (accountant_reference.h, regenerated and compared by `make run`).  Two
 * stochastic checks draw privacy losses of composed mechanisms and compare
 * the measured delta with what the accountant claims; each also runs a
 * broken accounting (rho four times too small) that it must catch.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "test_harness.h"
#include "dp/dp_accountant.h"
#include "dp/dp_gauss.h"
#include "dp/dp_noise.h"
#include "dp/dp_selection.h"

#include "accountant_reference.h"

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

/* relative distance of x from ref */
static double
rel(double x, double ref)
{
	return fabs(x - ref) / (fabs(ref) > 0.0 ? fabs(ref) : 1.0);
}

void
test_accountant_conversion(void)
{
	size_t		i;

	for (i = 0; i < N_OF(ref_conversion); i++)
	{
		double		k = dp_renyi_conversion(ref_conversion[i].order, ref_conversion[i].delta);

		CHECK(k >= ref_conversion[i].k - 1e-15 && rel(k, ref_conversion[i].k) < 1e-10,
			  "K(%g, %g) = %.17g, reference %.17g", ref_conversion[i].order,
			  ref_conversion[i].delta, k, ref_conversion[i].k);
	}
	CHECK(isinf(dp_renyi_conversion(2.0, 0.0)), "K at delta 0 must be infinite");
	CHECK(isinf(dp_renyi_conversion(1.0, 1e-5)), "K at order 1 must be infinite");
}

void
test_accountant_zcdp_delta(void)
{
	size_t		i;

	for (i = 0; i < N_OF(ref_zcdp); i++)
	{
		double		d = dp_zcdp_delta(ref_zcdp[i].rho, ref_zcdp[i].eps);

		CHECK(d >= ref_zcdp[i].delta * (1.0 - 1e-9) && d <= ref_zcdp[i].delta * (1.0 + 1e-6),
			  "delta(rho %g, eps %g) = %.17g, reference %.17g", ref_zcdp[i].rho,
			  ref_zcdp[i].eps, d, ref_zcdp[i].delta);
		/* the Gaussian mechanism is rho-zCDP and this is its exact delta */
		CHECK(d >= ref_zcdp[i].exact, "delta(rho %g, eps %g) = %g below the Gaussian's exact %g",
			  ref_zcdp[i].rho, ref_zcdp[i].eps, d, ref_zcdp[i].exact);
		CHECK(d <= ref_zcdp[i].bun_steinke, "delta(rho %g, eps %g) = %g above Bun-Steinke's %g",
			  ref_zcdp[i].rho, ref_zcdp[i].eps, d, ref_zcdp[i].bun_steinke);
	}
	for (i = 0; i < N_OF(ref_zcdp_epsilon); i++)
	{
		double		e = dp_zcdp_epsilon(ref_zcdp_epsilon[i].rho, ref_zcdp_epsilon[i].delta);

		CHECK(rel(e, ref_zcdp_epsilon[i].eps) < 1e-8, "eps(rho %g, delta %g) = %.17g, reference %.17g",
			  ref_zcdp_epsilon[i].rho, ref_zcdp_epsilon[i].delta, e, ref_zcdp_epsilon[i].eps);
		CHECK(dp_zcdp_delta(ref_zcdp_epsilon[i].rho, e) <= ref_zcdp_epsilon[i].delta,
			  "eps(rho %g, delta %g) = %g does not reach its delta", ref_zcdp_epsilon[i].rho,
			  ref_zcdp_epsilon[i].delta, e);
	}
}

/* the zCDP of a Gaussian plan's noise, from its integer sigma and units */
static double
plan_rho(const dp_noise_plan *plan, double sensitivity, int64_t max_groups)
{
	double		units = ldexp(sensitivity, -plan->grid_exp) + 1.0;
	double		sigma = (double) plan->sigma;

	return (double) max_groups * units * units / (2.0 * sigma * sigma);
}

void
test_accountant_gaussian_rho(void)
{
	static const double sensitivities[] = {1.0, 3.5, 1e6};
	static const int64_t groups[] = {1, 5, 100};
	size_t		i;
	size_t		j;

	for (i = 0; i < N_OF(ref_gaussian_rho); i++)
	{
		double		rho;
		double		eps = ref_gaussian_rho[i].eps;
		double		delta = ref_gaussian_rho[i].delta;

		REQUIRE(dp_gaussian_rho(eps, delta, &rho) == DP_OK, "dp_gaussian_rho(%g, %g) failed", eps, delta);
		CHECK(rel(rho, ref_gaussian_rho[i].rho) < 1e-8, "rho(%g, %g) = %.17g, reference %.17g",
			  eps, delta, rho, ref_gaussian_rho[i].rho);
		/* every plan for (eps, delta) has at most this rho, within 2^-20 of it */
		for (j = 0; j < N_OF(sensitivities) * N_OF(groups); j++)
		{
			dp_noise_plan plan;
			double		s = sensitivities[j % N_OF(sensitivities)];
			int64_t		g = groups[j / N_OF(sensitivities)];
			double		actual;

			REQUIRE(dp_gaussian_plan_make(s, eps * (double) g, delta, g, &plan) == DP_OK,
					"plan (%g, %g, %g, %lld) failed", s, eps, delta, (long long) g);
			actual = plan_rho(&plan, s, g);
			REQUIRE(dp_gaussian_rho(eps * (double) g, delta, &rho) == DP_OK, "rho failed");
			CHECK(actual <= rho && actual >= rho * (1.0 - 0x1p-18),
				  "plan (%g, %g, C_u %lld): rho %.17g, accountant %.17g", s, eps,
				  (long long) g, actual, rho);
		}
	}
}

void
test_accountant_block_costs(void)
{
	size_t		i;
	dp_charge_cost c;

	for (i = 0; i < N_OF(ref_block_rho); i++)
	{
		int			selection = ref_block_rho[i].s == DP_BLOCK_SELECTED_MEAN ? DP_SELECT_LAPLACE : 0;

		REQUIRE(dp_block_cost(ref_block_rho[i].s, selection, ref_block_rho[i].eps, 0.0,
							  ref_block_rho[i].groups, ref_block_rho[i].grouped, &c) == DP_OK,
				"block %d failed", (int) ref_block_rho[i].s);
		CHECK(c.rho_pure >= ref_block_rho[i].rho * (1.0 - 1e-14) &&
			  rel(c.rho_pure, ref_block_rho[i].rho) < 1e-12,
			  "block %d, eps %g, C_u %lld, grouped %d: rho %.17g, reference %.17g",
			  (int) ref_block_rho[i].s, ref_block_rho[i].eps, (long long) ref_block_rho[i].groups,
			  ref_block_rho[i].grouped, c.rho_pure, ref_block_rho[i].rho);
		CHECK(c.epsilon == ref_block_rho[i].eps * (double) ref_block_rho[i].groups &&
			  c.pure_epsilon >= c.epsilon && c.rho_gauss == 0.0,
			  "block %d: composed epsilon %g, pure %g", (int) ref_block_rho[i].s, c.epsilon,
			  c.pure_epsilon);
	}
	/* selections: the bad event is the selection's delta (half of it for a Gaussian count) */
	REQUIRE(dp_block_cost(DP_BLOCK_SELECTION, DP_SELECT_LAPLACE, 0.1, 1e-5, 5, true, &c) == DP_OK,
			"laplace selection failed");
	CHECK(c.xi == 1e-5 && c.delta == 1e-5 && rel(c.rho_pure, 5 * 0.01 / 2) < 1e-12,
		  "laplace selection: xi %g rho %g", c.xi, c.rho_pure);
	REQUIRE(dp_block_cost(DP_BLOCK_SELECTION, DP_SELECT_OPTIMAL, 0.1, 1e-5, 5, true, &c) == DP_OK,
			"optimal selection failed");
	CHECK(c.xi == 1e-5 && rel(c.rho_pure, 5 * 0.01 / 2) < 1e-12, "optimal selection: xi %g", c.xi);
	REQUIRE(dp_block_cost(DP_BLOCK_SELECTION, DP_SELECT_GAUSSIAN, 0.1, 1e-5, 5, true, &c) == DP_OK,
			"gaussian selection failed");
	{
		double		rho;

		REQUIRE(dp_gaussian_rho(0.5, 0.5e-5, &rho) == DP_OK, "rho failed");
		CHECK(c.xi == 0.5e-5 && c.rho_gauss == rho && c.rho_pure == 0.0 && c.pure_epsilon == 0.0,
			  "gaussian selection: xi %g rho %g (expected %g)", c.xi, c.rho_gauss, rho);
	}
	CHECK(dp_block_cost(DP_BLOCK_SELECTED_MEAN, DP_SELECT_GAUSSIAN, 0.1, 1e-5, 5, true, &c) != DP_OK,
		  "a mean's count cannot be Gaussian");
	CHECK(dp_block_cost(DP_BLOCK_PURE, 0, 0.1, 1e-5, 5, true, &c) != DP_OK,
		  "a pure block spends no delta");
	REQUIRE(dp_block_cost(DP_BLOCK_NONE, 0, 0.0, 0.0, 5, true, &c) == DP_OK, "none failed");
	CHECK(c.epsilon == 0.0 && c.rho_pure == 0.0 && c.xi == 0.0, "a public partition costs nothing");
}

void
test_accountant_pure_renyi(void)
{
	size_t		i;

	/* c(a) of a pure cost is at least the exact Renyi divergence of randomized response */
	for (i = 0; i < N_OF(ref_pure_renyi); i++)
	{
		dp_charge_cost c = {0};
		double		e = ref_pure_renyi[i].eps;

		REQUIRE(dp_block_cost(DP_BLOCK_PURE, 0, e, 0.0, 1, true, &c) == DP_OK, "block failed");
		CHECK(dp_charge_renyi(&c, ref_pure_renyi[i].order) >= ref_pure_renyi[i].renyi,
			  "c(%g) of pure %g is %g, below randomized response's %g", ref_pure_renyi[i].order,
			  e, dp_charge_renyi(&c, ref_pure_renyi[i].order), ref_pure_renyi[i].renyi);
	}
}

/* charges of one cost until the first refusal */
static double
charges_until_refused(double budget_epsilon, double budget_delta, const dp_charge_cost *cost,
					  dp_ledger_state *state, int *switches)
{
	double		n = 0.0;

	memset(state, 0, sizeof(*state));
	*switches = 0;
	while (n < 100000.0)
	{
		dp_ledger_state after;
		bool		fits = dp_accountant_basic_fits(state, budget_epsilon, budget_delta, cost);
		dp_charge_kind kind = dp_accountant_charge(state, budget_epsilon, budget_delta, cost,
												   fits, &after);

		if (kind == DP_CHARGE_REFUSED)
			break;
		if (kind == DP_CHARGE_CONCENTRATED && state->order == 0.0)
			(*switches)++;
		*state = after;
		n++;
	}
	return n;
}

void
test_accountant_capacity(void)
{
	size_t		i;

	for (i = 0; i < N_OF(ref_capacity); i++)
	{
		const dp_charge_cost *cost = &ref_capacity[i].cost;
		double		be = ref_capacity[i].budget_eps;
		double		bd = ref_capacity[i].budget_delta;
		double		best = fmax(ref_capacity[i].composed, ref_capacity[i].concentrated);
		/* the accountant switches only for DP_SWITCH_GAIN times as many */
		double		expected = ref_capacity[i].concentrated >= DP_SWITCH_GAIN * ref_capacity[i].composed ?
			ref_capacity[i].concentrated : ref_capacity[i].composed;
		dp_ledger_state state;
		dp_ledger_state empty = {0};
		double		spent_e;
		double		spent_d;
		int			switches;
		double		fits = dp_accountant_fits(&empty, be, bd, cost);
		double		n = charges_until_refused(be, bd, cost, &state, &switches);

		dp_accountant_spent(&state, &spent_e, &spent_d);
		t_note("capacity %zu: %g charges (composed %g, best concentrated %g), spent %g %g, order %g",
			   i, n, ref_capacity[i].composed, ref_capacity[i].concentrated, spent_e, spent_d,
			   state.order);
		CHECK(n <= best, "scenario %zu: %g charges, more than any sound order allows (%g)", i, n, best);
		CHECK(n >= floor(0.98 * expected), "scenario %zu: %g charges, far below %g", i, n, expected);
		CHECK(spent_e <= be && spent_d <= bd, "scenario %zu: spent %g %g over the budget", i,
			  spent_e, spent_d);
		CHECK(switches <= 1, "scenario %zu: %d switches", i, switches);
		CHECK(fits == n, "scenario %zu: %g fit on an empty budget, %g were charged", i, fits, n);
	}
}

void
test_accountant_rules(void)
{
	dp_ledger_state s = {0};
	dp_ledger_state after;
	dp_charge_cost one;
	dp_charge_cost gauss;
	double		e;
	double		d;

	REQUIRE(dp_block_cost(DP_BLOCK_PURE, 0, 1.0, 0.0, 1, true, &one) == DP_OK, "block failed");
	/* a 1.0 ledger carries over as composed spending */
	s.composed_epsilon = 9.5;
	s.event_delta = 2e-5;
	CHECK(dp_accountant_charge(&s, 10.0, 1e-4, &one, false, &after) == DP_CHARGE_REFUSED,
		  "9.5 + 1 composed or concentrated cannot fit in 10");
	one.epsilon = one.pure_epsilon = 0.5;
	one.rho_pure = 0.125;
	CHECK(dp_accountant_charge(&s, 10.0, 1e-4, &one, true, &after) == DP_CHARGE_COMPOSED &&
		  after.composed_epsilon == 10.0, "0.5 more fits composed");
	/* the caller's exact answer decides the composed way */
	CHECK(dp_accountant_charge(&s, 10.0, 1e-4, &one, false, &after) != DP_CHARGE_COMPOSED,
		  "without basic_fits the charge must not be composed");
	/* no delta in the budget: never concentrated */
	memset(&s, 0, sizeof(s));
	REQUIRE(dp_block_cost(DP_BLOCK_GAUSSIAN, 0, 0.2, 1e-7, 5, true, &gauss) == DP_OK, "gaussian failed");
	CHECK(dp_accountant_charge(&s, 10.0, 0.0, &gauss, false, &after) == DP_CHARGE_REFUSED,
		  "a budget without delta takes no Gaussian release");
	/* after the first concentrated charge every charge is concentrated, at the same order */
	REQUIRE(dp_accountant_charge(&s, 10.0, 1e-4, &gauss, true, &after) == DP_CHARGE_CONCENTRATED,
			"a Gaussian release is charged concentrated");
	CHECK(after.order > 1.0 && after.conversion_delta == 5e-5, "order %g, conversion delta %g",
		  after.order, after.conversion_delta);
	s = after;
	REQUIRE(dp_block_cost(DP_BLOCK_PURE, 0, 1.0, 0.0, 1, true, &one) == DP_OK, "block failed");
	CHECK(dp_accountant_charge(&s, 10.0, 1e-4, &one, true, &after) == DP_CHARGE_CONCENTRATED &&
		  after.order == s.order && after.composed_epsilon == 0.0,
		  "later charges are concentrated at the fixed order");
	/* the spending is the conversion of the Renyi cost at that order */
	dp_accountant_spent(&after, &e, &d);
	CHECK(rel(e, dp_charge_renyi(&gauss, s.order) + dp_charge_renyi(&one, s.order) +
			  dp_renyi_conversion(s.order, 5e-5)) < 1e-12 && rel(d, 5e-5) < 1e-15,
		  "spent %.17g %g", e, d);
	/* and it is sound: Proposition 12 at that order gives at most the conversion delta */
	{
		double		a = s.order;
		double		tau = after.renyi_epsilon;
		double		log_delta = (a - 1.0) * (tau - e) + a * log1p(-1.0 / a) - log(a - 1.0);

		CHECK(exp(log_delta) <= 5e-5 * (1.0 + 1e-9), "Proposition 12 gives delta %g", exp(log_delta));
	}
}

/* ---- stochastic checks ---- */

/* Laplace(0, 1) */
static double
laplace_draw(test_rng *r)
{
	double		u = test_rng_unit(r) - 0.5;

	return u < 0 ? log1p(2.0 * u) : -log1p(-2.0 * u);
}

/*
 * Hoeffding: the mean of n values in [0, 1] exceeds its expectation by more
 * than sqrt(ln(1/p) / (2n)) with probability at most p.
 */
static double
hoeffding(double n, double p)
{
	return sqrt(log(1.0 / p) / (2.0 * n));
}

/* (1 - e^(epsilon - loss))+: one sample's part of delta(epsilon) */
static double
delta_term(double loss, double epsilon)
{
	return loss > epsilon ? -expm1(epsilon - loss) : 0.0;
}

#define MC_SAMPLES 400000
#define MC_FALSE_FAILURE 1e-9

/*
 * 40 Laplace mechanisms of epsilon 0.25 each (rho 1.25 by Bun-Steinke): the
 * measured delta of their composition at the epsilon where the accountant's
 * conversion claims delta 0.05 must be at most 0.05 (+ the Hoeffding margin,
 * 0.0051: a false failure has probability below 1e-9).  Privacy loss of
 * Lap(1, b) against Lap(0, b) at y: (|y| - |y - 1|) / b, y drawn from Lap(1, b).
 */
void
test_accountant_laplace_composition(void)
{
	const int	k = 40;
	const double e1 = 0.25;
	const double claimed = 0.05;
	double		rho = k * e1 * e1 / 2.0;
	double		eps = dp_zcdp_epsilon(rho, claimed);
	double		broken_delta = dp_zcdp_delta(rho / 4.0, eps);
	double		t = hoeffding(MC_SAMPLES, MC_FALSE_FAILURE);
	double		sum = 0.0;
	test_rng	r;
	int			i;
	int			j;

	test_rng_stream(&r, 1);
	for (i = 0; i < MC_SAMPLES; i++)
	{
		double		loss = 0.0;

		for (j = 0; j < k; j++)
		{
			double		y = 1.0 + laplace_draw(&r) / e1;

			loss += e1 * (fabs(y) - fabs(y - 1.0));
		}
		sum += delta_term(loss, eps);
	}
	sum /= MC_SAMPLES;
	t_note("laplace composition: eps %g, measured delta %g, claimed %g, broken %g, margin %g",
		   eps, sum, claimed, broken_delta, t);
	CHECK(sum <= claimed + t, "measured delta %g above the claimed %g (margin %g)", sum, claimed, t);
	/* the check has power: rho / 4 would claim a delta the measurement refutes */
	CHECK(sum > broken_delta + t, "a broken rho / 4 claims %g, measured %g: the check has no power",
		  broken_delta, sum);
}

/*
 * The accountant's theorem for a mixed ledger: 4 composed randomized
 * responses of epsilon 0.5 (pure, loss +-0.5), then 40 Gaussian mechanisms
 * of rho 0.05 each (continuous Gaussian loss N(rho, 2 rho)) charged
 * concentrated at the order the accountant chose, with a conversion delta of
 * 0.05.  The measured delta at the accountant's spent epsilon must be at most
 * 0.05 (+ margin); a Gaussian part charged with rho / 4 must be caught.
 */
void
test_accountant_mixed_composition(void)
{
	const int	composed = 4;
	const int	gaussians = 40;
	const double e1 = 0.5;
	const double rho1 = 0.05;
	const double delta_c = 0.05;
	double		t = hoeffding(MC_SAMPLES, MC_FALSE_FAILURE);
	dp_charge_cost g = {0};
	dp_ledger_state s = {0};
	double		spent;
	double		spent_delta;
	double		broken;
	double		sum = 0.0;
	double		sum_broken = 0.0;
	double		p_plus = exp(e1) / (1.0 + exp(e1));
	test_rng	r;
	int			i;
	int			j;

	g.rho_gauss = rho1 * gaussians;
	s.composed_epsilon = composed * e1;
	s.order = 1.0 + sqrt(log(1.0 / delta_c) / g.rho_gauss);
	s.conversion_delta = delta_c;
	s.renyi_epsilon = dp_charge_renyi(&g, s.order);
	dp_accountant_spent(&s, &spent, &spent_delta);
	g.rho_gauss /= 4.0;
	s.renyi_epsilon = dp_charge_renyi(&g, s.order);
	dp_accountant_spent(&s, &broken, &spent_delta);
	test_rng_stream(&r, 2);
	for (i = 0; i < MC_SAMPLES; i++)
	{
		double		loss = 0.0;

		for (j = 0; j < composed; j++)
			loss += test_rng_unit(&r) < p_plus ? e1 : -e1;
		loss += gaussians * rho1 + sqrt(2.0 * gaussians * rho1) * test_rng_normal(&r);
		sum += delta_term(loss, spent);
		sum_broken += delta_term(loss, broken);
	}
	sum /= MC_SAMPLES;
	sum_broken /= MC_SAMPLES;
	t_note("mixed composition: spent %g, measured delta %g; broken spent %g, measured %g; margin %g",
		   spent, sum, broken, sum_broken, t);
	CHECK(sum <= delta_c + t, "measured delta %g above the claimed %g (margin %g)", sum, delta_c, t);
	CHECK(sum_broken > delta_c + t, "a broken rho / 4 spends %g with measured delta %g: no power",
		  broken, sum_broken);
}
