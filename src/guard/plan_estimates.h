/*
 * plan_estimates.h -- the planner's estimates for statements that read
 * private rows, kept from what an anonymized session can observe
 * (doc/access.md §3, the row on the planner's cost).
 *
 * The costs the planner estimates for an anonymization query come from the
 * statistics of private columns, whose histograms hold single users' values.
 * EXPLAIN is refused for that reason; two other readers of the plan's cost
 * remain after planning, and both answer a question the analyst can pose by
 * its settings:
 *
 *   - JIT: with jit_above_cost = X the statement is compiled when its
 *     estimated cost exceeds X, and compiling takes tens of milliseconds, so
 *     the time of one query answers "cost > X?";
 *   - the plan cache: a prepared statement switches to a generic plan when
 *     its cost is below the mean cost of its custom plans
 *     (pg_prepared_statements counts which it ran).
 *
 * So such a statement of an anonymized session runs without JIT, and its
 * top-level cost, the figure the plan cache compares, is one constant.
 */
#ifndef ANON_DP_PLAN_ESTIMATES_H
#define ANON_DP_PLAN_ESTIMATES_H

#include "nodes/plannodes.h"

/* the top-level cost every such statement reports to the plan cache */
#define ANON_DP_CONSTANT_PLAN_COST 1000.0

/*
 * A planned statement of an anonymized session that reads private rows
 * (marked entries): no JIT, and the constant cost.  Other statements are
 * left as they are.
 */
extern void hide_plan_estimates(PlannedStmt *planned);

#endif							/* ANON_DP_PLAN_ESTIMATES_H */
