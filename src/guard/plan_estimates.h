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
 *
 * Every other choice of the plan shows too, without any cost printed: how
 * many parallel workers it took from the server's pool (a second session
 * counts the ones left), the order of the rows a hash aggregation sized
 * from the estimated groups returns.  So in an anonymized session the
 * planner never sees what private relations hold: their size is a constant
 * (PRIVATE_RELATION_PAGES, PRIVATE_RELATION_TUPLES), their columns have no
 * statistics (the planner's default selectivities; a constant width), no
 * extended statistics, and their indexes a constant size, without the GIN
 * and BRIN indexes, whose cost estimates read the index's own pages.  The
 * plan of such a statement is then a function of the query, the settings
 * and public relations only.  "Private" here is what catalog masking
 * hides: every relation not labelled public, and its indexes; column
 * statistics of catalogs are hidden too (pg_class's hold the sizes of
 * private tables).
 */
#ifndef ANON_DP_PLAN_ESTIMATES_H
#define ANON_DP_PLAN_ESTIMATES_H

#include "nodes/pathnodes.h"
#include "nodes/plannodes.h"
#include "utils/selfuncs.h"

/* what the planner of an anonymized session takes a private relation to hold */
#define PRIVATE_RELATION_PAGES 1000
#define PRIVATE_RELATION_TUPLES 100000.0
#define PRIVATE_COLUMN_WIDTH 32

/* the top-level cost every such statement reports to the plan cache */
#define ANON_DP_CONSTANT_PLAN_COST 1000.0

/*
 * A planned statement of an anonymized session that reads private rows
 * (marked entries): no JIT, and the constant cost.  Other statements are
 * left as they are.
 */
extern void hide_plan_estimates(PlannedStmt *planned);

/*
 * get_relation_info_hook: a private relation's size, indexes, extended
 * statistics; the hash indexes of the others (the buffer warming cannot
 * settle them)
 */
extern void hide_relation_info(Oid relid, RelOptInfo *rel);

/* get_relation_stats_hook, get_index_stats_hook: true when the statistics are withheld */
extern bool hide_column_statistics(Oid relid, VariableStatData *vardata);

/* get_attavgwidth_hook: the width the planner takes, or 0 for the real one */
extern int32 hidden_column_width(Oid relid);

#endif							/* ANON_DP_PLAN_ESTIMATES_H */
