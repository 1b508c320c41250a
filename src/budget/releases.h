/*
 * releases.h -- what a started statement will release, read from its plan.
 *
 * A release is one execution of an anonymization level: the Agg node that
 * finalizes its dp_* building blocks and its dp_partition_count, each of
 * which draws noise.  The plan holds the privacy parameters the anonymizer
 * wrote into those calls as constants; this is what the budget charges
 * (doc/budget.md).
 */
#ifndef ANON_DP_RELEASES_H
#define ANON_DP_RELEASES_H

#include "executor/execdesc.h"
#include "nodes/execnodes.h"

#include "dp/dp_accountant.h"

/* One anonymization level of the plan and what one execution of it costs. */
typedef struct release
{
	PlanState  *node;			/* the Agg node that draws the noise */
	double		epsilon;		/* C_u times the sum of its calls' epsilon */
	double		delta;			/* the sum of its calls' delta; 0 without one */
	int64		max_groups;		/* C_u; 1 without GROUP BY */
	dp_charge_cost cost;		/* for the accountant: composed (epsilon,
								 * delta) and concentrated */
} release;

/*
 * The releases of a statement whose executor state has been built
 * (ExecutorStart), as a List of release.  *refused says why the plan cannot
 * be charged (NULL when it can): a release that would run more than once by
 * construction (inside a subquery evaluated per row of an outer query, below
 * a Memoize node, in parallel workers) or draw noise outside one Agg node.
 */
extern List *statement_releases(QueryDesc *queryDesc, const char **refused);

/* The error for a plan statement_releases() refused. */
extern void refuse_release_plan(const char *refused) pg_attribute_noreturn();

/*
 * From here on a second run of any of these releases within the statement
 * (a rescan by a nested loop, a re-evaluated InitPlan, a rewound cursor)
 * fails the statement instead of drawing fresh noise the budget did not pay.
 */
extern void watch_releases(List *releases);

/* The cost of a statement's releases together. */
extern dp_charge_cost releases_cost(List *releases);

#endif							/* ANON_DP_RELEASES_H */
