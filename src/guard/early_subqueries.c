/*
 * early_subqueries.c -- the uncorrelated subqueries of an anonymization
 * statement of an anonymized session run before its rows do.
 *
 * PostgreSQL evaluates an uncorrelated subquery (an InitPlan) when an
 * expression first needs its value: in a branch that only one user's row
 * reaches (`CASE WHEN <that user's value> THEN (SELECT count(*) FROM
 * public_table) END`), whether and when the public table is read depends on
 * that value.  The buffers are warmed around each run (buffer_warming.c), but
 * a second session timing the table while the run goes on, or the run's own
 * duration when another read pushed the table out first, still saw it (red
 * team round 11: a salary read exactly, one bit per table, timed from a second
 * session during a run kept busy for a second after the victim's branch).
 * Evaluated before the first row, every such subquery reads what it reads
 * whatever the rows: the branch then finds its value computed.
 *
 * Only the statement's own plan tree and the InitPlans inside InitPlans: a
 * correlated subquery (SubPlan) runs per row with the row's values, and an
 * InitPlan inside one may depend on them.  A CTE's plan is run by its scans.
 * An InitPlan that would have failed only when needed now fails the
 * statement (a generic error, counted as a failed statement): it reads no
 * private row, so that tells nothing private.
 */
#include "postgres.h"

#include "executor/executor.h"
#include "executor/nodeSubplan.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "nodes/pg_list.h"

#include "guard/early_subqueries.h"

typedef struct initplan_walk
{
	EState	   *estate;
	List	   *correlated;		/* PlanStates of SubPlans: not entered */
} initplan_walk;

static void
evaluate_initplans(PlanState *node, initplan_walk *walk)
{
	ExprContext *econtext = node->ps_ExprContext != NULL ? node->ps_ExprContext :
		GetPerTupleExprContext(walk->estate);
	ListCell   *lc;

	foreach(lc, node->initPlan)
	{
		SubPlanState *initplan = (SubPlanState *) lfirst(lc);
		ListCell   *p;

		if (initplan->subplan->subLinkType == CTE_SUBLINK)
			continue;
		foreach(p, initplan->subplan->setParam)
		{
			ParamExecData *param = &econtext->ecxt_param_exec_vals[lfirst_int(p)];

			if (param->execPlan != NULL)
			{
				CHECK_FOR_INTERRUPTS();
				ExecSetParamPlan(initplan, econtext);
				break;
			}
		}
	}
}

static bool
initplan_walker(PlanState *node, void *context)
{
	initplan_walk *walk = (initplan_walk *) context;
	ListCell   *lc;

	if (node == NULL || list_member_ptr(walk->correlated, node))
		return false;
	foreach(lc, node->subPlan)
		walk->correlated = lappend(walk->correlated, ((SubPlanState *) lfirst(lc))->planstate);
	evaluate_initplans(node, walk);
	return planstate_tree_walker(node, initplan_walker, context);
}

void
run_uncorrelated_subqueries(QueryDesc *queryDesc)
{
	initplan_walk walk = {queryDesc->estate, NIL};

	if (queryDesc->planstate == NULL)
		return;
	(void) initplan_walker(queryDesc->planstate, &walk);
	list_free(walk.correlated);
}
