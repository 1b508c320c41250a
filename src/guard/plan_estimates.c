/*
 * plan_estimates.c -- the planner's estimates of statements that read
 * private rows, kept from anonymized sessions (plan_estimates.h).
 */
#include "postgres.h"

#include "access/parallel.h"
#include "jit/jit.h"

#include "guard/marks.h"
#include "guard/plan_estimates.h"
#include "guard/roles.h"

void
hide_plan_estimates(PlannedStmt *planned)
{
	if (planned == NULL || planned->commandType == CMD_UTILITY || IsParallelWorker())
		return;
	if (!anon_dp_session_is_anonymized() || !range_table_has_marked_relation(planned->rtable))
		return;
	planned->jitFlags = PGJIT_NONE;
	if (planned->planTree != NULL)
	{
		planned->planTree->startup_cost = 0.0;
		planned->planTree->total_cost = ANON_DP_CONSTANT_PLAN_COST;
	}
}
