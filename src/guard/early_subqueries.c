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
 *
 * A subquery that runs per row (correlated, or an IN subquery the planner
 * keeps hashed under OR or CASE) reads its table when a row reaches it and
 * cannot run first: one that reads a table or a CTE is refused (red team
 * round 12 read a salary through `uid IN (SELECT id FROM pub_i)` and a
 * correlated EXISTS in a branch); a join does the same work.
 */
#include "postgres.h"

#include "executor/executor.h"
#include "executor/nodeSubplan.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "nodes/pg_list.h"
#include "nodes/plannodes.h"
#include "parser/parsetree.h"

#include "guard/early_subqueries.h"
#include "guard/marks.h"

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

/* a plan node's inputs: its two trees and the lists some nodes hold */
static List *
child_plans(Plan *plan)
{
	List	   *children = NIL;

	if (plan->lefttree != NULL)
		children = lappend(children, plan->lefttree);
	if (plan->righttree != NULL)
		children = lappend(children, plan->righttree);
	switch (nodeTag(plan))
	{
		case T_Append:
			return list_concat(children, ((Append *) plan)->appendplans);
		case T_MergeAppend:
			return list_concat(children, ((MergeAppend *) plan)->mergeplans);
		case T_BitmapAnd:
			return list_concat(children, ((BitmapAnd *) plan)->bitmapplans);
		case T_BitmapOr:
			return list_concat(children, ((BitmapOr *) plan)->bitmapplans);
		case T_SubqueryScan:
			return lappend(children, ((SubqueryScan *) plan)->subplan);
		case T_CustomScan:
			return list_concat(children, ((CustomScan *) plan)->custom_plans);
		default:
			return children;
	}
}

/* the plan_ids of the statement's InitPlans (CTEs included) */
static void
collect_initplans(Plan *plan, Bitmapset **ids)
{
	List	   *children;
	ListCell   *lc;

	if (plan == NULL)
		return;
	foreach(lc, plan->initPlan)
		*ids = bms_add_member(*ids, ((SubPlan *) lfirst(lc))->plan_id);
	children = child_plans(plan);
	foreach(lc, children)
		collect_initplans((Plan *) lfirst(lc), ids);
	list_free(children);
}

/*
 * Whether a plan tree scans a table, an index or a CTE, also through the
 * InitPlans of its nodes (which run when the tree first needs them).
 */
static bool
plan_reads_storage(PlannedStmt *statement, Plan *plan)
{
	List	   *children;
	ListCell   *lc;
	bool		reads = false;

	if (plan == NULL)
		return false;
	foreach(lc, plan->initPlan)
	{
		SubPlan    *initplan = (SubPlan *) lfirst(lc);

		if (plan_reads_storage(statement, (Plan *) list_nth(statement->subplans,
															 initplan->plan_id - 1)))
			return true;
	}
	switch (nodeTag(plan))
	{
		case T_SeqScan:
		case T_SampleScan:
		case T_IndexScan:
		case T_IndexOnlyScan:
		case T_BitmapHeapScan:
		case T_TidScan:
		case T_TidRangeScan:
		case T_ForeignScan:
			{
				Index		scanrelid = ((Scan *) plan)->scanrelid;

				/*
				 * A private input: the subquery is an anonymization query,
				 * which the charge refuses to run per row with its own error
				 */
				return !(scanrelid > 0 &&
						 entry_is_marked(rt_fetch(scanrelid, statement->rtable)));
			}
		case T_BitmapIndexScan:
		case T_BitmapAnd:
		case T_BitmapOr:
		case T_CteScan:
			return true;
		default:
			break;
	}
	children = child_plans(plan);
	foreach(lc, children)
		if ((reads = plan_reads_storage(statement, (Plan *) lfirst(lc))))
			break;
	list_free(children);
	return reads;
}

void
refuse_per_row_subqueries(PlannedStmt *statement)
{
	Bitmapset  *initplans = NULL;
	ListCell   *lc;
	int			plan_id = 0;

	collect_initplans(statement->planTree, &initplans);
	foreach(lc, statement->subplans)
		collect_initplans((Plan *) lfirst(lc), &initplans);
	foreach(lc, statement->subplans)
	{
		plan_id++;
		if (bms_is_member(plan_id, initplans) ||
			!plan_reads_storage(statement, (Plan *) lfirst(lc)))
			continue;
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("an anonymization query of an anonymized role cannot read a table in a subquery that runs per row"),
				 errdetail("A correlated subquery, or an IN subquery kept as one under OR or CASE, reads its table only when a row reaches it; which rows do would show in what the query leaves in the buffers."),
				 errhint("Join the table in FROM instead, or write a subquery that does not depend on the row: it then runs once, before the rows.")));
	}
	bms_free(initplans);
}

