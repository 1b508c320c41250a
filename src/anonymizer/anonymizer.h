/*
 * anonymizer.h -- the anonymization pipeline's entry point.
 *
 * An anonymization query is a query level whose aggregates are ANON_*
 * aggregates (the paper's SELECT WITH ANONYMIZATION).  anonymize_statement
 * rewrites every such level of an analyzed statement, in place, into the
 * per-user aggregation, contribution bounding, noisy cross-user aggregation
 * and tau-thresholding of paper Sec. 3.3 (doc/rewriter.md), or refuses the
 * statement with an error naming what to change.
 */
#ifndef ANON_DP_ANONYMIZER_H
#define ANON_DP_ANONYMIZER_H

#include "nodes/parsenodes.h"
#include "nodes/plannodes.h"

extern void anonymize_statement(Query *statement);

/*
 * After planning: the hash aggregations of the per-user bounding
 * (anon_dp_bound_partitions) are replaced by anon_dp's bounding node
 * (anon_dp.bounding_node), or else work in batches of about
 * anon_dp.bounding_batch_memory (bounding_plan.c).
 */
extern void anonymizer_finish_bounding(PlannedStmt *planned);

/*
 * From now on, append the plan (anon_plan *) of every level rewritten to
 * *plans; NULL stops (anon_dp_explain, src/anonymizer/explain.c).
 */
extern void anonymizer_collect_plans(List **plans);

/*
 * emit_log_hook: PostgreSQL's "function anon_...(...) does not exist" names
 * the call as written and the ANON_* aggregates or forms that exist
 * (unresolved_calls.c).
 */
struct ErrorData;
extern void explain_unresolved_anon_call(struct ErrorData *edata);

/*
 * While epsilon > 0 (anon_dp_contribution_bounds), every anonymization level
 * is rewritten into the measurement of its users' contributions at that
 * epsilon (contributions.c) instead of its releases; 0 stops.
 */
extern void anonymizer_measure_contributions(double epsilon);

/* ERROR if the statement has an anonymization query: the library was not preloaded. */
extern void refuse_anonymization_unless_preloaded(Query *statement);

#endif							/* ANON_DP_ANONYMIZER_H */
