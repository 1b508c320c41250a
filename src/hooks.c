/*
 * hooks.c -- every hook anon_dp installs, in the order a statement meets
 * them, each chained to the hook installed before it.
 *
 *   post_parse_analyze_hook   put the query of each view over an
 *                             anonymization query in its place (a CREATE
 *                             VIEW keeps it as written), guard the analyzed
 *                             statement of an anonymized session, then
 *                             anonymize its anonymization queries
 *                             (src/anonymizer)
 *   planner_hook              guard what view expansion revealed; plan
 *                             an anonymization statement of an anonymized
 *                             session through the error channel; after
 *                             planning, size the per-user bounding's hash
 *                             aggregation batches (src/anonymizer)
 *   get_relation_info_hook,   in an anonymized session the planner sees
 *   get_relation_stats_hook,  private relations as a constant size without
 *   get_index_stats_hook,     statistics: a plan's shape (parallel workers,
 *   get_attavgwidth_hook      the order of its rows) shows none of their data
 *   ExecutorCheckPerms_hook   the backstop: every statement an anonymized
 *                             session executes reads private tables only
 *                             through marked (anonymized) inputs
 *   ExecutorStart_hook        the privacy budget: caps, the charge of every
 *                             release, each release watched to run once
 *   ExecutorRun_hook,         the error channel: an anonymization statement
 *   ExecutorFinish_hook,      of an anonymized session fails with one fixed
 *   ExecutorEnd_hook          error, and its notices stay in the server log
 *   emit_log_hook             ... and its notices stay in the server log;
 *                             an unresolved ANON_* call names the forms
 *                             that exist (src/anonymizer)
 *   ProcessUtility_hook       guard utility statements (before and after
 *                             they run); remember the query of a running
 *                             EXPLAIN
 *   object_access_hook        the functions an anonymized session may not
 *                             call anywhere, however the call was reached
 *                             (OAT_FUNCTION_EXECUTE)
 *
 * and, before any of them, shmem_request_hook / shmem_startup_hook for the
 * privacy ledger's shared memory.
 *
 * Each hook only dispatches: the policy lives in src/guard, the rewrite in
 * src/anonymizer, the budget in src/budget.
 */
#include "postgres.h"

#include "access/parallel.h"
#include "catalog/objectaccess.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "optimizer/plancat.h"
#include "optimizer/planner.h"
#include "parser/analyze.h"
#include "storage/ipc.h"
#include "tcop/utility.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"

#include "anonymizer/anonymizer.h"
#include "anonymizer/view_expansion.h"
#include "budget/charge.h"
#include "budget/ledger.h"
#include "catalog.h"
#include "guard/buffer_warming.h"
#include "guard/pin_pool.h"
#include "guard/early_subqueries.h"
#include "guard/marks.h"
#include "guard/error_channel.h"
#include "guard/failures.h"
#include "guard/guard.h"
#include "guard/roles.h"
#include "guard/hidden_builtins.h"
#include "guard/untrusted_code.h"
#include "guard/plan_estimates.h"
#include "hooks.h"

static post_parse_analyze_hook_type prev_post_parse_analyze_hook = NULL;
static planner_hook_type prev_planner_hook = NULL;
static get_relation_info_hook_type prev_get_relation_info_hook = NULL;
static get_relation_stats_hook_type prev_get_relation_stats_hook = NULL;
static get_index_stats_hook_type prev_get_index_stats_hook = NULL;
static get_attavgwidth_hook_type prev_get_attavgwidth_hook = NULL;
static shmem_request_hook_type prev_shmem_request_hook = NULL;
static shmem_startup_hook_type prev_shmem_startup_hook = NULL;
static ExecutorCheckPerms_hook_type prev_executor_check_perms_hook = NULL;
static ExecutorStart_hook_type prev_executor_start_hook = NULL;
static ExecutorRun_hook_type prev_executor_run_hook = NULL;
static ExecutorFinish_hook_type prev_executor_finish_hook = NULL;
static ExecutorEnd_hook_type prev_executor_end_hook = NULL;
static emit_log_hook_type prev_emit_log_hook = NULL;
static ProcessUtility_hook_type prev_process_utility_hook = NULL;
static object_access_hook_type prev_object_access_hook = NULL;

/* loaded through shared_preload_libraries (anon_dp_install_hooks) */
static bool preloaded = false;

/*
 * The query of the EXPLAIN being run.  ExplainQuery hands its query, which
 * was guarded and anonymized when the EXPLAIN statement was analyzed, to the
 * post-parse hook again.
 */
static Query *explained_query = NULL;

/* CREATE VIEW statements running: the query they analyze is a view's */
static int	defining_views = 0;

/* in a parallel query's worker: the part of the leader's plan was started */
static bool worker_started_its_part = false;

static void
anon_dp_shmem_request(void)
{
	if (prev_shmem_request_hook)
		prev_shmem_request_hook();
	ledger_request_shmem();
	failures_request_shmem();
	pin_pool_request_shmem();
}

static void
anon_dp_shmem_startup(void)
{
	if (prev_shmem_startup_hook)
		prev_shmem_startup_hook();
	ledger_startup_shmem();
	failures_startup_shmem();
	pin_pool_startup_shmem();
}

static void
anon_dp_post_parse_analyze(ParseState *pstate, Query *query, JumbleState *jstate)
{
	if (prev_post_parse_analyze_hook)
		prev_post_parse_analyze_hook(pstate, query, jstate);
	/* a new session's first reads would time where pages lie in the pool */
	if (preloaded && !IsParallelWorker() && anon_dp_session_is_anonymized())
		map_shared_buffers_once();
	if (query == explained_query)
		return;
	if (OidIsValid(anon_dp_extension()))
	{
		/* a view over an anonymization query is anonymized when it is read */
		if (preloaded && defining_views > 0 && query_has_anon_aggregates(query))
		{
			prepare_view_definition(query);
			return;
		}
		expand_anonymization_views(query);
	}
	guard_analyzed_statement(query);
	if (!OidIsValid(anon_dp_extension()))
		return;
	if (preloaded)
		anonymize_statement(query);
	else
		refuse_anonymization_unless_preloaded(query);
}

/* the arguments of the planner, for error_channel_plan */
typedef struct planner_call
{
	Query	   *parse;
	const char *query_string;
	int			cursorOptions;
	ParamListInfo boundParams;
	PlannedStmt *planned;
} planner_call;

static void
planner_step(void *arg)
{
	planner_call *call = (planner_call *) arg;

	if (prev_planner_hook)
		call->planned = prev_planner_hook(call->parse, call->query_string, call->cursorOptions,
										  call->boundParams);
	else
		call->planned = standard_planner(call->parse, call->query_string, call->cursorOptions,
										 call->boundParams);
}

static PlannedStmt *
anon_dp_planner(Query *parse, const char *query_string, int cursorOptions,
				ParamListInfo boundParams)
{
	PlannedStmt *planned;
	planner_call call = {parse, query_string, cursorOptions, boundParams, NULL};

	guard_planned_statement(parse);
	if (preloaded && error_channel_guards_planning(parse))
		error_channel_plan(planner_step, &call);
	else
		planner_step(&call);
	planned = call.planned;
	anonymizer_finish_bounding(planned);
	hide_plan_estimates(planned);
	return planned;
}

static void
anon_dp_get_relation_info(PlannerInfo *root, Oid relid, bool inhparent, RelOptInfo *rel)
{
	if (prev_get_relation_info_hook)
		prev_get_relation_info_hook(root, relid, inhparent, rel);
	hide_relation_info(relid, rel);
}

static bool
anon_dp_get_relation_stats(PlannerInfo *root, RangeTblEntry *rte, AttrNumber attnum,
						   VariableStatData *vardata)
{
	if (rte->rtekind == RTE_RELATION && hide_column_statistics(rte->relid, vardata))
		return true;
	return prev_get_relation_stats_hook &&
		prev_get_relation_stats_hook(root, rte, attnum, vardata);
}

static bool
anon_dp_get_index_stats(PlannerInfo *root, Oid indexOid, AttrNumber indexattnum,
						VariableStatData *vardata)
{
	if (hide_column_statistics(indexOid, vardata))
		return true;
	return prev_get_index_stats_hook &&
		prev_get_index_stats_hook(root, indexOid, indexattnum, vardata);
}

static int32
anon_dp_get_attavgwidth(Oid relid, AttrNumber attnum)
{
	int32		width = hidden_column_width(relid);

	if (width > 0)
		return width;
	return prev_get_attavgwidth_hook ? prev_get_attavgwidth_hook(relid, attnum) : 0;
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
anon_dp_executor_start(QueryDesc *queryDesc, int eflags)
{
	bool		guarded = preloaded && error_channel_guards(queryDesc->plannedstmt);

	/*
	 * A parallel query's worker runs one part of the leader's plan, the first
	 * statement it starts, sending its rows to the leader's tuple queue; any
	 * other statement is its own (a function's body, also in the workers of a
	 * parallel index build, which have no such part: red team round 11).
	 */
	if (IsParallelWorker())
	{
		if (!worker_started_its_part && queryDesc->dest != NULL &&
			queryDesc->dest->mydest == DestTupleQueue)
			worker_started_its_part = true;
		else
			guard_parallel_worker_statement(queryDesc->plannedstmt->rtable);
	}
	if (guarded)
		error_channel_refuse_serializable();
	if (prev_executor_start_hook)
		prev_executor_start_hook(queryDesc, eflags);
	else
		standard_ExecutorStart(queryDesc, eflags);
	if (guarded)
		failures_check(anon_dp_budget_role());
	if (guarded && (eflags & EXEC_FLAG_EXPLAIN_ONLY) == 0 &&
		range_table_reads_marked_table(queryDesc->plannedstmt->rtable))
	{
		refuse_per_row_subqueries(queryDesc->plannedstmt);
		check_statement_relations(queryDesc->plannedstmt);
	}
	if (preloaded)
		budget_charge_statement(queryDesc, eflags);
}

/* the arguments of ExecutorRun, for error_channel_run */
typedef struct executor_run_call
{
	QueryDesc  *queryDesc;
	ScanDirection direction;
	uint64		count;
	bool		execute_once;
	int			may_pin;		/* pages reserved for the warming's pins */
	warm_run   *warmed;			/* the warming before the run, once done */
} executor_run_call;

static void
executor_run_step(void *arg)
{
	executor_run_call *call = (executor_run_call *) arg;

	if (prev_executor_run_hook)
		prev_executor_run_hook(call->queryDesc, call->direction, call->count, call->execute_once);
	else
		standard_ExecutorRun(call->queryDesc, call->direction, call->count, call->execute_once);
}

/*
 * A run of an anonymization statement: which pages its rows chose to read
 * leaves no trace in the buffers -- all are there before the run (a run of a
 * cursor too, whatever happened since the last), those another session can
 * time stay pinned while it runs (so nothing pushes them out to be read back
 * by a branch or a join only some rows reach), and all are there again after
 * it -- and its uncorrelated subqueries run before its rows, whatever the
 * rows.  Inside the
 * error channel: a cancel during the warming after the run is a failed run
 * too, after which anon_dp_executor_run warms once more (warm_again_and_rethrow).
 */
static void
guarded_run_step(void *arg)
{
	executor_run_call *call = (executor_run_call *) arg;

	call->warmed = warm_statement_relations(call->queryDesc->plannedstmt, call->may_pin);
	run_uncorrelated_subqueries(call->queryDesc);
	executor_run_step(arg);
	/* unpinned first: the warming after the run prunes pages, which needs the only pin */
	warm_run_unpin(call->warmed);
	warm_run_end(warm_statement_relations(call->queryDesc->plannedstmt, 0));
	warm_run_end(call->warmed);
	call->warmed = NULL;
}

static void
anon_dp_executor_run(QueryDesc *queryDesc, ScanDirection direction, uint64 count,
					 bool execute_once)
{
	executor_run_call call = {queryDesc, direction, count, execute_once, 0, NULL};

	if (!error_channel_guards(queryDesc->plannedstmt))
		executor_run_step(&call);
	else if (!preloaded || !range_table_reads_marked_table(queryDesc->plannedstmt->rtable))
		error_channel_run(executor_run_step, &call);	/* a masked catalog read */
	else
	{
		/* in memory: the step sets what PG_CATCH reads */
		executor_run_call *guarded = palloc(sizeof(executor_run_call));
		int			settings = NewGUCNestLevel();

		*guarded = call;

		/*
		 * No synchronized scans: a sequential scan of a table larger than a
		 * quarter of shared_buffers records in shared memory where it got to,
		 * and the next scan of any session starts there; one that a private
		 * value stopped (a semi join's inner scan) left that block for a
		 * later query's time to read (red team round 19).  Off for the run
		 * whatever the session set (scans begin and rescan within it); the
		 * transaction's abort restores it after an error.  A function a
		 * superuser vouched for that sets it during the run turns it on for
		 * the rest of the run (round 20; doc/access.md §5).
		 */
		(void) set_config_option("synchronize_seqscans", "off", PGC_USERSET, PGC_S_SESSION,
								 GUC_ACTION_SAVE, true, 0, false);

		/*
		 * Before the error channel: waiting for other sessions' runs tells
		 * nothing of this one's rows, and a cancel while it waits is no
		 * failed run.
		 */
		guarded->may_pin = reserve_pins(queryDesc->plannedstmt);
		PG_TRY();
		{
			error_channel_run(guarded_run_step, guarded);
		}
		PG_CATCH();
		{
			if (guarded->warmed != NULL)
				warm_again_and_rethrow(guarded->warmed, queryDesc->plannedstmt,
									   guarded->may_pin);
			pin_pool_release(guarded->may_pin);
			PG_RE_THROW();
		}
		PG_END_TRY();
		pin_pool_release(guarded->may_pin);
		AtEOXact_GUC(true, settings);
		pfree(guarded);
	}
}

static void
executor_finish_step(void *arg)
{
	if (prev_executor_finish_hook)
		prev_executor_finish_hook((QueryDesc *) arg);
	else
		standard_ExecutorFinish((QueryDesc *) arg);
}

static void
anon_dp_executor_finish(QueryDesc *queryDesc)
{
	if (error_channel_guards(queryDesc->plannedstmt))
		error_channel_run(executor_finish_step, queryDesc);
	else
		executor_finish_step(queryDesc);
}

static void
executor_end_step(void *arg)
{
	if (prev_executor_end_hook)
		prev_executor_end_hook((QueryDesc *) arg);
	else
		standard_ExecutorEnd((QueryDesc *) arg);
}

/* ExecutorEnd ends sorts and hashes, which may log their sizes (trace_sort) */
static void
anon_dp_executor_end(QueryDesc *queryDesc)
{
	if (error_channel_guards(queryDesc->plannedstmt))
		error_channel_run(executor_end_step, queryDesc);
	else
		executor_end_step(queryDesc);
}

static void
anon_dp_emit_log(ErrorData *edata)
{
	error_channel_filter(edata);
	explain_unresolved_anon_call(edata);
	if (prev_emit_log_hook)
		prev_emit_log_hook(edata);
}

static void
anon_dp_process_utility(PlannedStmt *pstmt, const char *queryString, bool readOnlyTree,
						ProcessUtilityContext context, ParamListInfo params,
						QueryEnvironment *queryEnv, DestReceiver *dest, QueryCompletion *qc)
{
	Query	   *outer_explained = explained_query;
	key_labels *keys;
	int			outer_defining = defining_views;

	guard_parallel_worker_utility();
	keys = guard_utility_statement(pstmt->utilityStmt);

	if (IsA(pstmt->utilityStmt, ExplainStmt))
		explained_query = (Query *) ((ExplainStmt *) pstmt->utilityStmt)->query;
	if (IsA(pstmt->utilityStmt, ViewStmt))
		defining_views++;
	PG_TRY();
	{
		if (prev_process_utility_hook)
			prev_process_utility_hook(pstmt, queryString, readOnlyTree, context, params,
									  queryEnv, dest, qc);
		else
			standard_ProcessUtility(pstmt, queryString, readOnlyTree, context, params,
									queryEnv, dest, qc);
		guard_utility_finished(pstmt->utilityStmt, keys);
	}
	PG_FINALLY();
	{
		explained_query = outer_explained;
		defining_views = outer_defining;
	}
	PG_END_TRY();
}

/*
 * PostgreSQL prepares to call a function (OAT_FUNCTION_EXECUTE: every
 * function an expression, aggregate or window of the statement calls, built
 * in or not, after its EXECUTE privilege was checked): the backstop for the
 * built-ins an anonymized session may not call however the call was reached
 * (hidden_builtins.h) and for code anon_dp cannot follow (untrusted_code.h).
 */
static void
anon_dp_object_access(ObjectAccessType access, Oid classId, Oid objectId, int subId, void *arg)
{
	if (prev_object_access_hook)
		prev_object_access_hook(access, classId, objectId, subId, arg);
	if (access == OAT_FUNCTION_EXECUTE)
	{
		guard_function_lookup(objectId);
		guard_untrusted_code_call(objectId);
	}
}

void
anon_dp_install_hooks(bool loaded_at_start)
{
	preloaded = loaded_at_start;
	if (loaded_at_start)
	{
		prev_shmem_request_hook = shmem_request_hook;
		shmem_request_hook = anon_dp_shmem_request;
		prev_shmem_startup_hook = shmem_startup_hook;
		shmem_startup_hook = anon_dp_shmem_startup;
	}
	prev_post_parse_analyze_hook = post_parse_analyze_hook;
	post_parse_analyze_hook = anon_dp_post_parse_analyze;
	prev_planner_hook = planner_hook;
	planner_hook = anon_dp_planner;
	prev_get_relation_info_hook = get_relation_info_hook;
	get_relation_info_hook = anon_dp_get_relation_info;
	prev_get_relation_stats_hook = get_relation_stats_hook;
	get_relation_stats_hook = anon_dp_get_relation_stats;
	prev_get_index_stats_hook = get_index_stats_hook;
	get_index_stats_hook = anon_dp_get_index_stats;
	prev_get_attavgwidth_hook = get_attavgwidth_hook;
	get_attavgwidth_hook = anon_dp_get_attavgwidth;
	prev_executor_check_perms_hook = ExecutorCheckPerms_hook;
	ExecutorCheckPerms_hook = anon_dp_executor_check_perms;
	prev_executor_start_hook = ExecutorStart_hook;
	ExecutorStart_hook = anon_dp_executor_start;
	prev_executor_run_hook = ExecutorRun_hook;
	ExecutorRun_hook = anon_dp_executor_run;
	prev_executor_finish_hook = ExecutorFinish_hook;
	ExecutorFinish_hook = anon_dp_executor_finish;
	prev_executor_end_hook = ExecutorEnd_hook;
	ExecutorEnd_hook = anon_dp_executor_end;
	prev_emit_log_hook = emit_log_hook;
	emit_log_hook = anon_dp_emit_log;
	prev_process_utility_hook = ProcessUtility_hook;
	ProcessUtility_hook = anon_dp_process_utility;
	prev_object_access_hook = object_access_hook;
	object_access_hook = anon_dp_object_access;
}
