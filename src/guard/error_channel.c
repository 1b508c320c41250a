/*
 * error_channel.c -- errors and notices of the anonymization statements of
 * an anonymized session (error_channel.h).
 *
 * While such a statement is planned too: the planner's estimates run its
 * operators on the statistics of private columns.
 *
 * What remains is one bit per statement: whether it failed.  The original
 * error's SQLSTATE (not its text, which may hold a private value) goes to
 * the server log, and the failure is counted for the role (failures.h).
 */
#include "postgres.h"

#include "access/parallel.h"
#include "access/xact.h"
#include "miscadmin.h"
#include "storage/latch.h"
#include "utils/elog.h"
#include "utils/timeout.h"

#include "guard/error_channel.h"
#include "guard/failures.h"
#include "guard/session_caches.h"
#include "guard/marks.h"
#include "guard/roles.h"
#include "settings.h"

/* runs of guarded statements in progress (they nest through functions) */
static int	guarded_runs = 0;

/* this backend has run a guarded statement: its resource leak warnings stay in the log */
static bool guarded_once = false;

/*
 * anon_dp.max_statement_time: a timeout of our own, registered in a backend
 * when first needed, that cancels the statement as a cancel request does.
 * statement_timeout serves the same purpose, but the analyst may SET it.
 */
static TimeoutId step_timeout = MAX_TIMEOUTS;
static volatile sig_atomic_t step_timed_out = false;

static void
step_timeout_handler(void)
{
	step_timed_out = true;
	QueryCancelPending = true;
	InterruptPending = true;
	SetLatch(MyLatch);
}

/* arms the timeout for the outermost guarded step; false when there is none */
static bool
arm_step_timeout(void)
{
	if (guarded_runs > 0 || anon_dp_max_statement_time <= 0)
		return false;
	if (step_timeout == MAX_TIMEOUTS)
		step_timeout = RegisterTimeout(USER_TIMEOUT, step_timeout_handler);
	step_timed_out = false;
	enable_timeout_after(step_timeout, anon_dp_max_statement_time);
	return true;
}

static void
disarm_step_timeout(void)
{
	disable_timeout(step_timeout, false);
}

bool
error_channel_guards(PlannedStmt *statement)
{
	if (IsParallelWorker() || !anon_dp_session_is_anonymized())
		return false;
	return range_table_has_marked_relation(statement->rtable);
}

static void
raise_generic_error(MemoryContext context, Oid role)
{
	int			sqlerrcode;

	MemoryContextSwitchTo(context);
	sqlerrcode = geterrcode();
	session_caches_reset();
	/* a cancel counts too: a statement_timeout can end a branch one value made slow */
	failures_end(role, true);
	if (sqlerrcode == ERRCODE_QUERY_CANCELED && step_timed_out)
	{
		step_timed_out = false;
		FlushErrorState();
		ereport(ERROR,
				(errcode(ERRCODE_QUERY_CANCELED),
				 errmsg("canceling the anonymization query: one step of it ran longer than anon_dp.max_statement_time (%d ms)",
						anon_dp_max_statement_time),
				 errdetail("The limit is a data owner's setting; the statement counts as failed."),
				 errhint("Ask a data owner for a higher anon_dp.max_statement_time, or query less data at once.")));
	}
	if (sqlerrcode == ERRCODE_QUERY_CANCELED)
		PG_RE_THROW();			/* a cancel or statement_timeout: the caller's own */
	FlushErrorState();
	ereport(LOG_SERVER_ONLY,
			(errmsg("anon_dp: an anonymization query of an anonymized session failed with SQLSTATE %s; its message was withheld",
					unpack_sql_state(sqlerrcode)),
			 errhidestmt(true), errhidecontext(true)));
	ereport(ERROR,
			(errcode(ERRCODE_DATA_EXCEPTION),
			 errmsg("the anonymization query failed"),
			 errdetail("anon_dp does not say why: an error raised on a private row could describe it."),
			 errhint("Make the query robust to every value of the columns it reads; see doc/access.md, \"Errors\".")));
}

void
error_channel_run(void (*step) (void *arg), void *arg)
{
	MemoryContext context = CurrentMemoryContext;
	Oid			role = anon_dp_budget_role();	/* whose failure it would be */
	bool		timed = arm_step_timeout();

	guarded_runs++;
	guarded_once = true;
	/* counted as failed until it completes: see failures.h */
	failures_begin(role);
	PG_TRY();
	{
		step(arg);
	}
	PG_CATCH();
	{
		guarded_runs--;
		if (timed)
			disarm_step_timeout();
		raise_generic_error(context, role);
	}
	PG_END_TRY();
	guarded_runs--;
	if (timed)
		disarm_step_timeout();
	failures_end(role, false);
	/* nothing the rows put in the session's caches outlasts the step */
	session_caches_reset();
}


void
error_channel_refuse_serializable(void)
{
	if (IsolationIsSerializable())
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("an anonymization query of an anonymized session cannot run in a SERIALIZABLE transaction"),
				 errdetail("Its predicate locks record which rows it read, also through private values; a write of another session to one of them would make this transaction fail at its end, outside the query."),
				 errhint("Run it at READ COMMITTED or REPEATABLE READ: SET TRANSACTION ISOLATION LEVEL REPEATABLE READ.")));
}

bool
error_channel_guards_planning(Query *query)
{
	if (IsParallelWorker() || !anon_dp_session_is_anonymized())
		return false;
	return query_reads_marked_table(query);
}

typedef struct planning
{
	void		(*step) (void *arg);
	void	   *arg;
} planning;

static void
plan_step(void *arg)
{
	planning   *p = (planning *) arg;

	p->step(p->arg);
	/* a cancel that arrived while planning is delivered here, not later */
	CHECK_FOR_INTERRUPTS();
}

void
error_channel_plan(void (*step) (void *arg), void *arg)
{
	planning	p = {step, arg};

	failures_check(anon_dp_budget_role());
	error_channel_run(plan_step, &p);
}

/*
 * The warnings PostgreSQL prints at the end of a transaction or portal about
 * resources a function left behind (a buffer pin, a snapshot, a catalog
 * cache reference).  A SAFE call that returned NULL for a rejected value may
 * leave one, so their presence would tell which value was rejected.
 */
static bool
is_leak_warning(ErrorData *edata)
{
	return edata->elevel == WARNING &&
		((edata->funcname != NULL && strstr(edata->funcname, "LeakWarning") != NULL) ||
		 (edata->filename != NULL && strcmp(edata->filename, "resowner.c") == 0));
}

/*
 * LOG and DEBUG messages of an anonymized session: debug_print_plan and its
 * siblings print the planner's row estimates (from the statistics of private
 * columns), trace_sort the sizes of sorts.  They stay in the server log,
 * whatever client_min_messages says.  (Reentrant: the check reads catalogs,
 * which may log.)
 */
static bool
debug_message_of_anonymized_session(ErrorData *edata)
{
	static bool checking = false;
	bool		anonymized;

	if (edata->elevel >= NOTICE || !edata->output_to_client || checking ||
		!IsTransactionState())
		return false;
	checking = true;
	PG_TRY();
	{
		anonymized = anon_dp_session_is_anonymized();
	}
	PG_FINALLY();
	{
		checking = false;
	}
	PG_END_TRY();
	return anonymized;
}

void
error_channel_filter(ErrorData *edata)
{
	if (guarded_runs > 0 && edata->elevel < ERROR)
		edata->output_to_client = false;
	else if (guarded_once && is_leak_warning(edata))
		edata->output_to_client = false;
	else if (debug_message_of_anonymized_session(edata))
		edata->output_to_client = false;
}
