/*
 * dp_selection.h -- partition selection: which partitions of a GROUP BY
 * result may be released (doc/noise.md, "Partition selection").
 *
 * A partition that exists only because of one privacy unit must be
 * released with a probability small enough that, over the at most C_u such
 * partitions one unit can create, the query stays (epsilon, delta)-DP.  Three
 * mechanisms, each for a per-partition epsilon (the query spends C_u times
 * it) and the selection's whole delta:
 *
 *   LAPLACE   the paper's Theorem 2: a discrete Laplace count of the units,
 *             released iff it reaches tau (dp_params.h, dp_threshold)
 *   OPTIMAL   Desfontaines, Voss, Gipson, Mandayam, "Differentially private
 *             partition selection" (PETS 2022): keep a partition of n units
 *             with probability pi(n), the largest that is
 *             (epsilon, delta / C_u)-DP per partition:
 *               pi(0) = 0,
 *               pi(n) = min(e^eps pi(n-1) + delta', 1 - e^-eps (1 - pi(n-1) - delta'), 1).
 *             When the partition's noisy count is released as well (a
 *             reused ANON_COUNT or ANON_AVG count), the same selection is
 *             made by a truncated discrete Laplace count: noise conditioned
 *             on |Z| <= K, which is (epsilon, delta')-DP per partition, and
 *             a threshold above 1 + K, which a partition of one unit can
 *             never reach.  Both keep half the partitions at about the same
 *             number of units.
 *   GAUSSIAN  a discrete Gaussian count: the counts of the C_u partitions of
 *             one unit together are (C_u epsilon, delta / 2)-DP (L2
 *             sensitivity sqrt(C_u), dp_gaussian_plan_make), and a partition
 *             of one unit passes tau with probability at most
 *             1 - (1 - delta / 2)^(1 / C_u).
 *
 * With a released count the selection's noisy count is the value of the
 * ANON_COUNT(*) (or the count inside ANON_AVG): one noisy count serves both.
 * Every probability computed in floating point errs on the safe side: pi is
 * computed for epsilon (1 - 2^-20) and delta' (1 - 2^-20) in long double and
 * rounded to a multiple of 2^-126 towards not keeping, then drawn exactly
 * (dp_bernoulli); thresholds and truncations are rounded up and checked.
 */
#ifndef DP_SELECTION_H
#define DP_SELECTION_H

#include "dp_core.h"
#include "dp_noise.h"
#include "dp_params.h"
#include "dp_rng.h"

typedef enum dp_selection_mechanism
{
	DP_SELECT_LAPLACE = 0,
	DP_SELECT_OPTIMAL,
	DP_SELECT_GAUSSIAN
} dp_selection_mechanism;

#define DP_SELECT_MECHANISMS 3

/* "laplace", "optimal", "gaussian" */
extern const char *dp_selection_name(dp_selection_mechanism mechanism);
extern bool dp_selection_parse(const char *name, dp_selection_mechanism *mechanism);

typedef struct dp_selection
{
	dp_selection_mechanism mechanism;
	bool		counted;		/* the noisy count is released too */
	double		epsilon;		/* per partition */
	double		delta;			/* of the whole selection */
	int64_t		max_groups;		/* C_u */
	dp_noise_plan count_plan;	/* noise of the count (exact: OPTIMAL, not counted) */
	dp_i128		units_one;		/* units of a count of 1 */
	dp_i128		tau_units;		/* counts: release iff noisy units >= tau_units */
	double		tau;			/* tau in units of the count, for display */
	/* OPTIMAL without a count: pi(n) in closed form (dp_selection.c) */
	dp_ldouble	opt_epsilon;	/* epsilon (1 - 2^-20) */
	dp_ldouble	opt_delta;		/* delta / C_u (1 - 2^-20) */
	dp_ldouble	opt_c;			/* opt_delta / (e^opt_epsilon - 1) */
	uint64_t	opt_switch;		/* last n of the geometric phase */
	dp_ldouble	opt_q_switch;	/* 1 - pi(opt_switch) */
} dp_selection;

/*
 * Plan a selection.  counted: the noisy count is released (then OPTIMAL
 * uses the truncated count).  Fails with the status of the first invalid
 * parameter; GAUSSIAN may fail with DP_ERR_SIGMA when sigma would exceed the
 * sampler's range, and OPTIMAL without a count needs epsilon >= 1e-9 and
 * delta / C_u >= 1e-25 (DP_ERR_EPSILON / DP_ERR_DELTA), where the margins
 * above exceed every rounding error.
 */
extern dp_status dp_selection_make(dp_selection_mechanism mechanism, double epsilon,
								   double delta, int64_t max_groups, bool counted,
								   dp_selection *sel);

/*
 * Decide for one partition.  units: its exact count in units of count_plan
 * (the number of units times units_one for counts of privacy units).
 * *noisy (may be NULL) receives the noisy count in units; OPTIMAL without a
 * count leaves it at units.
 */
extern bool dp_selection_release(dp_rng *rng, const dp_selection *sel,
								 dp_i128 units, dp_i128 *noisy);

/* OPTIMAL without a count: the keep probability actually drawn, pi(n). */
extern long double dp_selection_keep_probability(const dp_selection *sel, uint64_t n);

/*
 * The number of privacy units at which a partition is kept with probability
 * 1/2 (the smallest such n for OPTIMAL without a count; the threshold in
 * units of one otherwise): the measure by which the planner compares
 * mechanisms.
 */
extern double dp_selection_users_for_half(const dp_selection *sel);

#endif							/* DP_SELECTION_H */
