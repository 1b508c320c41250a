/*
 * hooks.c -- every hook anon_dp installs, in the order a statement meets
 * them, each chained to the hook installed before it.
 *
 *   post_parse_analyze_hook   guard the analyzed statement of an anonymized
 *                             session, then anonymize its anonymization
 *                             queries (src/anonymizer)
 *   planner_hook              guard what view expansion revealed
 *   ExecutorCheckPerms_hook   the backstop: every statement an anonymized
 *                             session executes reads private tables only
 *                             through marked (anonymized) inputs
 *   ProcessUtility_hook       guard utility statements; remember the query
 *                             of a running EXPLAIN
 *
 * Each hook only dispatches: the policy lives in src/guard, the rewrite in
 * src/anonymizer.
 */
#include "postgres.h"

#include "executor/executor.h"
#include "optimizer/planner.h"
#include "parser/analyze.h"
#include "tcop/utility.h"

#include "anonymizer/anonymizer.h"
#include "catalog.h"
#include "guard/guard.h"
#include "hooks.h"

static post_parse_analyze_hook_type prev_post_parse_analyze_hook = NULL;
static planner_hook_type prev_planner_hook = NULL;
static ExecutorCheckPerms_hook_type prev_executor_check_perms_hook = NULL;
static ProcessUtility_hook_type prev_process_utility_hook = NULL;

/*
 * The query of the EXPLAIN being run.  ExplainQuery hands its query, which
 * was guarded and anonymized when the EXPLAIN statement was analyzed, to the
 * post-parse hook again.
 */
static Query *explained_query = NULL;

static void
anon_dp_post_parse_analyze(ParseState *pstate, Query *query, JumbleState *jstate)
{
	if (prev_post_parse_analyze_hook)
		prev_post_parse_analyze_hook(pstate, query, jstate);
	if (query == explained_query)
		return;
	guard_analyzed_statement(query);
	if (OidIsValid(anon_dp_extension()))
		anonymize_statement(query);
}

static PlannedStmt *
anon_dp_planner(Query *parse, const char *query_string, int cursorOptions,
				ParamListInfo boundParams)
{
	guard_planned_statement(parse);
	if (prev_planner_hook)
		return prev_planner_hook(parse, query_string, cursorOptions, boundParams);
	return standard_planner(parse, query_string, cursorOptions, boundParams);
}

static bool
anon_dp_executor_check_perms(List *range_table, bool ereport_on_violation)
{
	if (prev_executor_check_perms_hook &&
		!prev_executor_check_perms_hook(range_table, ereport_on_violation))
		return false;
	return guard_executor_permissions(range_table, ereport_on_violation);
}

static void
anon_dp_process_utility(PlannedStmt *pstmt, const char *queryString, bool readOnlyTree,
						ProcessUtilityContext context, ParamListInfo params,
						QueryEnvironment *queryEnv, DestReceiver *dest, QueryCompletion *qc)
{
	Query	   *outer_explained = explained_query;

	guard_utility_statement(pstmt->utilityStmt);
	if (IsA(pstmt->utilityStmt, ExplainStmt))
		explained_query = (Query *) ((ExplainStmt *) pstmt->utilityStmt)->query;
	PG_TRY();
	{
		if (prev_process_utility_hook)
			prev_process_utility_hook(pstmt, queryString, readOnlyTree, context, params,
									  queryEnv, dest, qc);
		else
			standard_ProcessUtility(pstmt, queryString, readOnlyTree, context, params,
									queryEnv, dest, qc);
	}
	PG_FINALLY();
	{
		explained_query = outer_explained;
	}
	PG_END_TRY();
}

void
anon_dp_install_hooks(void)
{
	prev_post_parse_analyze_hook = post_parse_analyze_hook;
	post_parse_analyze_hook = anon_dp_post_parse_analyze;
	prev_planner_hook = planner_hook;
	planner_hook = anon_dp_planner;
	prev_executor_check_perms_hook = ExecutorCheckPerms_hook;
	ExecutorCheckPerms_hook = anon_dp_executor_check_perms;
	prev_process_utility_hook = ProcessUtility_hook;
	ProcessUtility_hook = anon_dp_process_utility;
}
