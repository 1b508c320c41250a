/*
 * statement_cost.c -- what a statement would cost the privacy budget
 * (statement_cost.h).
 */
#include "postgres.h"

#include "access/xact.h"
#include "executor/executor.h"
#include "nodes/parsenodes.h"
#include "tcop/dest.h"
#include "tcop/tcopprot.h"
#include "utils/memutils.h"
#include "utils/resowner.h"
#include "utils/snapmgr.h"

#include "budget/releases.h"
#include "budget/statement_cost.h"

/* the releases of one planned statement, its executor state built and ended */
static bool
planned_cost(PlannedStmt *planned, const char *text, dp_charge_cost *cost, int *releases)
{
	QueryDesc  *desc = CreateQueryDesc(planned, text, GetActiveSnapshot(), InvalidSnapshot,
									   None_Receiver, NULL, NULL, 0);
	const char *refused;
	List	   *found;

	ExecutorStart(desc, EXEC_FLAG_EXPLAIN_ONLY);
	found = statement_releases(desc, &refused);
	ExecutorEnd(desc);
	FreeQueryDesc(desc);
	if (refused != NULL)
		return false;
	*cost = releases_cost(found);
	*releases = list_length(found);
	return true;
}

static bool
plan_and_cost(const char *text, dp_charge_cost *cost, int *releases)
{
	List	   *raw = pg_parse_query(text);
	RawStmt    *statement;
	List	   *queries;
	Query	   *query;

	if (list_length(raw) != 1)
		return false;
	statement = linitial_node(RawStmt, raw);
	if (!IsA(statement->stmt, SelectStmt) || ((SelectStmt *) statement->stmt)->intoClause != NULL)
		return false;
	queries = pg_analyze_and_rewrite_fixedparams(statement, text, NULL, 0, NULL);
	if (list_length(queries) != 1)
		return false;
	query = linitial_node(Query, queries);
	if (query->commandType != CMD_SELECT || query->utilityStmt != NULL)
		return false;
	return planned_cost(pg_plan_query(query, text, CURSOR_OPT_PARALLEL_OK, NULL),
						text, cost, releases);
}

bool
statement_text_cost(const char *text, dp_charge_cost *cost, int *releases)
{
	MemoryContext context = CurrentMemoryContext;
	ResourceOwner owner = CurrentResourceOwner;
	volatile bool ok = false;

	/* an error (a dropped table, a refusal) leaves no trace: a subtransaction */
	BeginInternalSubTransaction(NULL);
	MemoryContextSwitchTo(context);
	PG_TRY();
	{
		ok = plan_and_cost(text, cost, releases);
		ReleaseCurrentSubTransaction();
	}
	PG_CATCH();
	{
		ErrorData  *error;

		MemoryContextSwitchTo(context);
		error = CopyErrorData();
		FlushErrorState();
		RollbackAndReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(context);
		CurrentResourceOwner = owner;
		/* a cancel is the caller's, not a reason to answer "unknown" */
		if (error->sqlerrcode == ERRCODE_QUERY_CANCELED ||
			error->sqlerrcode == ERRCODE_ADMIN_SHUTDOWN)
			ReThrowError(error);
		FreeErrorData(error);
		ok = false;
	}
	PG_END_TRY();
	MemoryContextSwitchTo(context);
	CurrentResourceOwner = owner;
	return ok;
}
