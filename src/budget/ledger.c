/*
 * ledger.c -- the charging backend's side of the privacy ledger (ledger.h):
 * shared memory, starting a database's ledger worker, handing it a charge
 * and waiting for the answer.
 */
#include "postgres.h"

#include "access/xlog.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/proc.h"
#include "storage/shmem.h"
#include "mb/pg_wchar.h"
#include "utils/builtins.h"
#include "utils/timestamp.h"

#include "budget/ledger.h"
#include "budget/ledger_shared.h"
#include "settings.h"

ledger_shared *ledger = NULL;

/* a worker that has not connected after this long has failed to start */
#define LEDGER_START_TIMEOUT_MS 30000

static Size
ledger_shmem_size(void)
{
	Size		size = MAXALIGN(sizeof(ledger_shared));

	size = add_size(size, mul_size(max_worker_processes, sizeof(ledger_worker_entry)));
	size = add_size(size, mul_size(MaxBackends, sizeof(ledger_slot)));
	return size;
}

void
ledger_request_shmem(void)
{
	RequestAddinShmemSpace(ledger_shmem_size());
	RequestNamedLWLockTranche("anon_dp_ledger", 1);
}

void
ledger_startup_shmem(void)
{
	bool		found;
	char	   *base;

	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	base = ShmemInitStruct("anon_dp ledger", ledger_shmem_size(), &found);
	ledger = (ledger_shared *) base;
	if (!found)
	{
		memset(base, 0, ledger_shmem_size());
		ledger->lock = &(GetNamedLWLockTranche("anon_dp_ledger"))->lock;
		ledger->nworkers = max_worker_processes;
		ledger->nslots = MaxBackends;
	}
	/* pointers are per process (EXEC_BACKEND): recompute them */
	ledger->workers = (ledger_worker_entry *) (base + MAXALIGN(sizeof(ledger_shared)));
	ledger->slots = (ledger_slot *) (ledger->workers + ledger->nworkers);
	LWLockRelease(AddinShmemInitLock);
}

ledger_worker_entry *
ledger_worker_of(Oid dbid)
{
	int			i;

	for (i = 0; i < ledger->nworkers; i++)
		if (ledger->workers[i].state != WORKER_NONE && ledger->workers[i].dbid == dbid)
			return &ledger->workers[i];
	return NULL;
}

void
ledger_wake(int pgprocno)
{
	SetLatch(&ProcGlobal->allProcs[pgprocno].procLatch);
}

void
ledger_fail_requests(Oid dbid, bool taken_too, const char *message)
{
	int			i;

	for (i = 0; i < ledger->nslots; i++)
	{
		ledger_slot *slot = &ledger->slots[i];

		if (slot->dbid != dbid ||
			!(slot->state == SLOT_PENDING || (taken_too && slot->state == SLOT_TAKEN)))
			continue;
		slot->outcome = OUTCOME_FAILED;
		strlcpy(slot->message, message, LEDGER_MESSAGE_MAX);
		slot->state = SLOT_DONE;
		ledger_wake(slot->requester);
	}
}

static ledger_slot *
my_slot(void)
{
	if (ledger == NULL || MyBackendId == InvalidBackendId || MyBackendId > ledger->nslots)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("the anon_dp privacy ledger is not available in this process"),
				 errhint("Load anon_dp through shared_preload_libraries.")));
	return &ledger->slots[MyBackendId - 1];
}

static void
wait_a_little(void)
{
	(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, 100L,
					 PG_WAIT_EXTENSION);
	ResetLatch(MyLatch);
	CHECK_FOR_INTERRUPTS();
}

/* a request this slot left behind (cancelled while waiting) must end first */
static void
wait_until_free(ledger_slot *slot)
{
	for (;;)
	{
		ledger_slot_state state;

		LWLockAcquire(ledger->lock, LW_SHARED);
		state = slot->state;
		LWLockRelease(ledger->lock);
		if (state == SLOT_FREE || state == SLOT_DONE)
			return;
		wait_a_little();
	}
}

/* a free worker entry for the database (hold the lock), or NULL */
static ledger_worker_entry *
new_worker_entry(Oid dbid)
{
	int			i;

	for (i = 0; i < ledger->nworkers; i++)
	{
		ledger_worker_entry *entry = &ledger->workers[i];

		if (entry->state == WORKER_NONE)
		{
			entry->state = WORKER_STARTING;
			entry->dbid = dbid;
			entry->pid = 0;
			entry->since = GetCurrentTimestamp();
			return entry;
		}
	}
	return NULL;
}

static BackgroundWorkerHandle *
register_worker(Oid dbid)
{
	BackgroundWorker worker;
	BackgroundWorkerHandle *handle;

	memset(&worker, 0, sizeof(worker));
	worker.bgw_flags = BGWORKER_SHMEM_ACCESS | BGWORKER_BACKEND_DATABASE_CONNECTION;
	worker.bgw_start_time = BgWorkerStart_RecoveryFinished;
	worker.bgw_restart_time = BGW_NEVER_RESTART;
	strlcpy(worker.bgw_library_name, "anon_dp", BGW_MAXLEN);
	strlcpy(worker.bgw_function_name, "anon_dp_ledger_worker_main", BGW_MAXLEN);
	snprintf(worker.bgw_name, BGW_MAXLEN, "anon_dp ledger worker for database %u", dbid);
	strlcpy(worker.bgw_type, "anon_dp ledger worker", BGW_MAXLEN);
	worker.bgw_main_arg = ObjectIdGetDatum(dbid);
	worker.bgw_notify_pid = MyProcPid;
	if (!RegisterDynamicBackgroundWorker(&worker, &handle))
		return NULL;
	return handle;
}

/* the worker this process registered stopped, or one never connected */
static void
check_worker_start(Oid dbid, BackgroundWorkerHandle *handle)
{
	ledger_worker_entry *entry;
	pid_t		pid;
	bool		stopped;

	stopped = handle != NULL && GetBackgroundWorkerPid(handle, &pid) == BGWH_STOPPED;
	LWLockAcquire(ledger->lock, LW_EXCLUSIVE);
	entry = ledger_worker_of(dbid);
	if (entry != NULL && entry->state == WORKER_STARTING &&
		(stopped || TimestampDifferenceExceeds(entry->since, GetCurrentTimestamp(),
											   LEDGER_START_TIMEOUT_MS)))
	{
		entry->state = WORKER_NONE;
		ledger_fail_requests(dbid, false, "the ledger worker of this database could not start (see the server log)");
	}
	LWLockRelease(ledger->lock);
}

/* the statement's text, cut at a character boundary */
static void
copy_statement(char *dest, const char *statement)
{
	int			len;

	if (statement == NULL)
		statement = "";
	len = pg_mbcliplen(statement, strlen(statement), LEDGER_STATEMENT_MAX - 1);
	memcpy(dest, statement, len);
	dest[len] = '\0';
}

/* Put the request in the slot and make sure a worker will see it. */
static BackgroundWorkerHandle *
submit(ledger_slot *slot, const ledger_charge_request *request)
{
	ledger_worker_entry *entry;
	int			wake = -1;
	bool		start = false;
	BackgroundWorkerHandle *handle = NULL;

	LWLockAcquire(ledger->lock, LW_EXCLUSIVE);
	slot->requester = MyProc->pgprocno;
	slot->dbid = MyDatabaseId;
	slot->role = request->role;
	slot->session_roles[0] = GetSessionUserId();
	slot->session_roles[1] = GetOuterUserId();
	slot->session_roles[2] = GetUserId();
	slot->cost = request->cost;
	slot->default_epsilon = anon_dp_default_budget_epsilon;
	slot->default_delta = anon_dp_default_budget_delta;
	slot->releases = request->releases;
	slot->query_id = request->query_id;
	slot->pid = MyProcPid;
	copy_statement(slot->statement, request->statement);
	slot->message[0] = '\0';
	entry = ledger_worker_of(MyDatabaseId);
	if (entry == NULL)
	{
		entry = new_worker_entry(MyDatabaseId);
		start = entry != NULL;
	}
	else if (entry->state == WORKER_RUNNING)
		wake = entry->pgprocno;
	if (entry != NULL)
		slot->state = SLOT_PENDING;
	LWLockRelease(ledger->lock);

	if (entry == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
				 errmsg("too many databases are charging anon_dp privacy budgets at once"),
				 errhint("Raise max_worker_processes: each database with anonymization queries running needs one ledger worker.")));
	if (wake >= 0)
		ledger_wake(wake);
	if (start)
	{
		handle = register_worker(MyDatabaseId);
		if (handle == NULL)
		{
			LWLockAcquire(ledger->lock, LW_EXCLUSIVE);
			entry->state = WORKER_NONE;
			ledger_fail_requests(MyDatabaseId, false,
								 "no background worker slot is free for the ledger worker (raise max_worker_processes)");
			LWLockRelease(ledger->lock);
		}
	}
	return handle;
}

static void
wait_for_answer(ledger_slot *slot, BackgroundWorkerHandle *handle)
{
	for (;;)
	{
		ledger_slot_state state;

		LWLockAcquire(ledger->lock, LW_SHARED);
		state = slot->state;
		LWLockRelease(ledger->lock);
		if (state == SLOT_DONE)
			return;
		check_worker_start(MyDatabaseId, handle);
		wait_a_little();
	}
}

static void
report_refusal(const ledger_budget_answer *answer)
{
	ereport(ERROR,
			(errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
			 errmsg("privacy budget of role \"%s\" exhausted: this statement needs epsilon %g and delta %g, %g and %g remain",
					GetUserNameFromId(answer->role, false), answer->need_epsilon, answer->need_delta,
					Max(answer->budget_epsilon - answer->spent_epsilon, 0.0),
					Max(answer->budget_delta - answer->spent_delta, 0.0)),
			 errdetail("The budget is epsilon %g and delta %g in this database; %g and %g have been spent.",
					   answer->budget_epsilon, answer->budget_delta,
					   answer->spent_epsilon, answer->spent_delta),
			 errhint("Lower anon_dp.epsilon or anon_dp.delta, run fewer anonymization queries in one statement, or ask the data owner for a larger budget (anon_dp_set_budget).")));
}

void
ledger_charge(const ledger_charge_request *request, ledger_budget_answer *result)
{
	ledger_slot *slot = my_slot();
	ledger_slot answer;
	BackgroundWorkerHandle *handle;

	if (RecoveryInProgress())
		ereport(ERROR,
				(errcode(ERRCODE_READ_ONLY_SQL_TRANSACTION),
				 errmsg("anonymization queries of anonymized roles cannot run on a standby"),
				 errdetail("The privacy ledger can be charged only on the primary server."),
				 errhint("Run the query on the primary.")));
	wait_until_free(slot);
	handle = submit(slot, request);
	wait_for_answer(slot, handle);
	LWLockAcquire(ledger->lock, LW_EXCLUSIVE);
	memcpy(&answer, slot, sizeof(ledger_slot));
	slot->state = SLOT_FREE;
	LWLockRelease(ledger->lock);

	/*
	 * The worker's commit is durable only once the WAL is flushed past its
	 * commit record, and nothing may be released before (ledger_worker.c).
	 * The sessions of one batch, and of the batches committed during a
	 * flush, share the next flush: XLogFlush returns at once when another
	 * process has flushed far enough, and otherwise writes and flushes all
	 * the WAL written so far.  Refusals are flushed too, so that the
	 * 'refused' row the error mentions survives a crash, as before.
	 */
	if (!XLogRecPtrIsInvalid(answer.commit_lsn))
		XLogFlush(answer.commit_lsn);
	if (answer.outcome == OUTCOME_REFUSED)
		report_refusal(&answer.answer);
	if (answer.outcome != OUTCOME_CHARGED)
		ereport(ERROR,
				(errcode(ERRCODE_SYSTEM_ERROR),
				 errmsg("the anon_dp privacy ledger could not charge this statement: %s", answer.message),
				 errdetail("Nothing was released."),
				 errhint("Try again; if it fails again, see the server log.")));
	*result = answer.answer;
}
