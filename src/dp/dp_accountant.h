/*
 * dp_accountant.h -- the privacy accountant of a budget (doc/budget.md,
 * "The accountant").
 *
 * A data owner gives a role a budget (epsilon_B, delta_B).  The statements
 * the role runs are charged one after the other; the parameters of each were
 * chosen after seeing the earlier results (fully adaptive composition).  The
 * accountant decides, before a statement runs, whether all charges so far and
 * this one together stay (epsilon_B, delta_B)-DP, and records the charge.
 *
 * Each charge is accounted one of two ways, chosen when it is made:
 *
 *   composed      basic composition, as anon_dp 1.0 did: the statement is
 *                 (epsilon, delta)-DP and the sums of epsilon and delta add up
 *   concentrated  the statement is, except on an event of probability at
 *                 most xi (a partition that only one user's rows created
 *                 passes its threshold), a mechanism whose Renyi divergence of
 *                 order a is at most
 *                     c(a) = a rho_gauss + min(pure_epsilon, a rho_pure)
 *                 (Gaussian noise: rho-zCDP, Bun and Steinke 2016; Laplace
 *                 noise and pure-DP selections: epsilon-DP, hence
 *                 epsilon^2/2-zCDP and at most epsilon at every order)
 *
 * Composed charges come first.  The first concentrated charge fixes a Renyi
 * order a and a conversion delta delta_c for the rest of the budget's life
 * (until a reset); from then on every charge is concentrated.  With
 *   E  = sum of the epsilon of composed charges,
 *   C  = sum of c(a) of concentrated charges,
 *   Xi = sum of the delta of composed charges and the xi of concentrated ones,
 * everything charged is (spent_epsilon, spent_delta)-DP with
 *   before the first concentrated charge:  (E, Xi)
 *   after it:                             (E + C + K(a, delta_c), Xi + delta_c)
 *   K(a, d) = (ln(1/d) + (a-1) ln(a-1) - a ln a) / (a - 1)
 * (Canonne, Kamath and Steinke 2020, Proposition 12, for the Renyi part; the
 * proof for adaptively chosen charges is in doc/budget.md).  A charge is made
 * only when spent_epsilon <= epsilon_B and spent_delta <= delta_B after it.
 *
 * Every number that bounds privacy is rounded towards a larger spending.
 */
#ifndef DP_ACCOUNTANT_H
#define DP_ACCOUNTANT_H

#include "dp_core.h"

/* the largest delta the accountant ever sets aside for its conversion */
#define DP_CONVERSION_DELTA_MAX 1e-3

/*
 * The first concentrated charge is made only when, after it, at least this
 * many times as many charges of its cost fit as when it is composed: it is
 * irrevocable and pays the conversion K up front, which a workload that
 * changes afterwards may not earn back.
 */
#define DP_SWITCH_GAIN 2.0

/* capacities ("how many more fit") are reported up to this */
#define DP_ACCOUNTANT_FITS_MAX 1e9

/*
 * How a building block spends the epsilon it is given, per partition: the
 * structure the accountant needs for its zCDP charge.  A pure epsilon-DP part
 * with a share s of the block's epsilon is (s epsilon)^2 / 2-zCDP; a block's
 * factor f is the sum of s^2 over its independent parts, so the block is
 * f epsilon^2 / 2-zCDP (f = 1 is right for any epsilon-DP block).
 */
typedef enum dp_block_structure
{
	DP_BLOCK_PURE = 0,			/* one epsilon-DP part (f = 1) */
	DP_BLOCK_HALVES,			/* mean: count and sum, epsilon/2 each */
	DP_BLOCK_THIRDS,			/* variance: count, sum, sum of squares */
	DP_BLOCK_TREE,				/* quantile tree: one epsilon/height part per level */
	DP_BLOCK_AUTO_SUM,			/* bounds' histogram, then a sum */
	DP_BLOCK_AUTO_MEAN,			/* bounds' histogram, then a mean */
	DP_BLOCK_AUTO_VARIANCE,		/* bounds' histogram, then a variance */
	DP_BLOCK_AUTO_TREE,			/* bounds' histogram, then a quantile tree */
	DP_BLOCK_ROWS_ADAPTIVE,		/* histogram of sample sizes, then the exponential mechanism */
	DP_BLOCK_GAUSSIAN,			/* discrete Gaussian noise over all C_u partitions */
	DP_BLOCK_SELECTION,			/* partition selection: by its mechanism */
	DP_BLOCK_SELECTED_MEAN,		/* a mean whose count (epsilon/2) selects */
	DP_BLOCK_NONE				/* draws nothing (public partitions) */
} dp_block_structure;

/* f of a block structure (pure structures only; NaN for the others) */
extern double dp_block_rho_factor(dp_block_structure structure);

/*
 * What one statement costs, in both currencies.  A statement of several
 * releases adds their costs (composition).
 */
typedef struct dp_charge_cost
{
	/* composed: the statement is (epsilon, delta)-DP */
	double		epsilon;
	double		delta;
	/* concentrated (see above) */
	double		pure_epsilon;	/* epsilon of its pure-DP parts together */
	double		rho_pure;		/* their zCDP */
	double		rho_gauss;		/* zCDP of its Gaussian parts */
	double		xi;				/* probability of its bad event */
} dp_charge_cost;

/* cost += add */
extern void dp_charge_cost_add(dp_charge_cost *cost, const dp_charge_cost *add);

/*
 * The cost of one call of a building block (or selection) in a release
 * whose users contribute to at most max_groups partitions.  epsilon and
 * delta are the call's privacy arguments (epsilon per partition; delta 0
 * where the call has none).  grouped: the release's partitions each hold at
 * most one row of a user (the rewriter's per-user aggregation), so a user's
 * max_groups partitions are independent mechanisms; otherwise its up to
 * max_groups rows meet in one aggregation (group privacy).  selection: the
 * mechanism of a DP_BLOCK_SELECTION or DP_BLOCK_SELECTED_MEAN call
 * (dp_selection_mechanism).  Fails with the status of an invalid parameter.
 */
extern dp_status dp_block_cost(dp_block_structure structure, int selection,
							   double epsilon, double delta, int64_t max_groups,
							   bool grouped, dp_charge_cost *cost);

/* The accountant's record of one budget. */
typedef struct dp_ledger_state
{
	double		composed_epsilon;	/* E */
	double		event_delta;	/* Xi */
	double		renyi_epsilon;	/* C */
	double		order;			/* a; 0 before the first concentrated charge */
	double		conversion_delta;	/* delta_c; 0 before it */
} dp_ledger_state;

typedef enum dp_charge_kind
{
	DP_CHARGE_REFUSED = 0,
	DP_CHARGE_COMPOSED,
	DP_CHARGE_CONCENTRATED
} dp_charge_kind;

/* "composed", "concentrated" or "refused" */
extern const char *dp_charge_kind_name(dp_charge_kind kind);

/* K(a, d) of the conversion, rounded up; +infinity for d <= 0 */
extern double dp_renyi_conversion(double order, double delta);

/* c(a) of a cost, rounded up */
extern double dp_charge_renyi(const dp_charge_cost *cost, double order);

/* What a state has spent, (spent_epsilon, spent_delta) above. */
extern void dp_accountant_spent(const dp_ledger_state *state,
								double *epsilon, double *delta);

/*
 * Whether composing the cost basically keeps E and Xi within the budget,
 * in double precision (the ledger decides this in exact decimal arithmetic
 * and passes its answer instead).
 */
extern bool dp_accountant_basic_fits(const dp_ledger_state *state,
									 double budget_epsilon, double budget_delta,
									 const dp_charge_cost *cost);

/*
 * Charge a cost to a budget.  basic_fits: whether composing it basically
 * keeps the sums within the budget (dp_accountant_basic_fits or the caller's
 * exact version); it is used only before the first concentrated charge.
 * Returns how the charge was made and the state after it in *after (the
 * state unchanged when refused).  Before the first concentrated charge it is
 * composed unless concentrated charges would let DP_SWITCH_GAIN times as
 * many charges of the same cost fit (or it cannot be composed); afterwards
 * every charge is concentrated.
 */
extern dp_charge_kind dp_accountant_charge(const dp_ledger_state *before,
										   double budget_epsilon, double budget_delta,
										   const dp_charge_cost *cost, bool basic_fits,
										   dp_ledger_state *after);

/*
 * What a charge of this cost needs of a budget that refuses it, in
 * (epsilon, delta): composed, its own (epsilon, delta) before the first
 * concentrated charge; afterwards c(a) and xi (for messages).
 */
extern void dp_accountant_need(const dp_ledger_state *state, const dp_charge_cost *cost,
							   double *epsilon, double *delta);

/*
 * How many more charges of this cost the budget can take after the state,
 * as the accountant would make them (at most DP_ACCOUNTANT_FITS_MAX).
 */
extern double dp_accountant_fits(const dp_ledger_state *state,
								 double budget_epsilon, double budget_delta,
								 const dp_charge_cost *cost);

/*
 * zCDP conversions (Canonne, Kamath and Steinke 2020, Proposition 12 with
 * the best order): the smallest delta such that rho-zCDP implies
 * (epsilon, delta)-DP, and the smallest epsilon for a delta.  Rounded up.
 */
extern double dp_zcdp_delta(double rho, double epsilon);
extern double dp_zcdp_epsilon(double rho, double delta);

#endif							/* DP_ACCOUNTANT_H */
