/*
 * ledger_worker.c -- the ledger worker of one database (ledger.h).
 *
 * Started by the first charge in a database, it takes every pending charge
 * of that database, checks and writes them in one transaction
 * (ledger_store.c), commits, and answers the waiting backends with the end
 * of its commit record.  A backend releases nothing before the WAL is
 * flushed up to that point (ledger.c), so a charge whose release ran is
 * never given back: not by the requester's ROLLBACK, error or death, nor by
 * a crash.  Without synchronous standbys the worker does not wait for that
 * flush itself: it decides the next batch while the backends of this one
 * wait for the disk, and their flushes are grouped by PostgreSQL's own
 * group commit (XLogFlush).  With synchronous standbys it commits
 * synchronously, so that the standbys too have the charge before the
 * answer.  It leaves after a short idle time so that DROP DATABASE and
 * CREATE DATABASE ... TEMPLATE do not find it connected.
 */
#include "postgres.h"

#include "access/xact.h"
#include "access/xlog.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "replication/syncrep.h"
#include "replication/walsender_private.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/proc.h"
#include "tcop/tcopprot.h"
#include "utils/guc.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"
#include "utils/timestamp.h"

#include "budget/ledger.h"
#include "budget/ledger_shared.h"
#include "budget/ledger_store.h"

/* charges decided in one transaction, at most */
#define LEDGER_BATCH 64
/* the worker leaves after this long without a charge */
#define LEDGER_IDLE_EXIT_MS 2000

static Oid	worker_dbid = InvalidOid;

/* Answers what this worker still holds as failed, and frees its entry. */
static void
worker_exit(int code, Datum arg)
{
	ledger_worker_entry *entry;

	LWLockAcquire(ledger->lock, LW_EXCLUSIVE);
	entry = ledger_worker_of(worker_dbid);
	if (entry != NULL && entry->pid == MyProcPid)
	{
		entry->state = WORKER_NONE;
		ledger_fail_requests(worker_dbid, true, "the ledger worker of this database stopped");
	}
	LWLockRelease(ledger->lock);
}

/* Registers this process as the database's worker; false if another is. */
static bool
claim_entry(void)
{
	ledger_worker_entry *entry;
	bool		claimed = false;

	LWLockAcquire(ledger->lock, LW_EXCLUSIVE);
	entry = ledger_worker_of(worker_dbid);
	if (entry != NULL && entry->state == WORKER_STARTING)
	{
		entry->state = WORKER_RUNNING;
		entry->pid = MyProcPid;
		entry->pgprocno = MyProc->pgprocno;
		claimed = true;
	}
	LWLockRelease(ledger->lock);
	return claimed;
}

/* Copies up to LEDGER_BATCH pending requests, marking them TAKEN. */
static int
take_batch(ledger_slot *batch, int *indexes)
{
	int			n = 0;
	int			i;

	LWLockAcquire(ledger->lock, LW_EXCLUSIVE);
	for (i = 0; i < ledger->nslots && n < LEDGER_BATCH; i++)
	{
		ledger_slot *slot = &ledger->slots[i];

		if (slot->state != SLOT_PENDING || slot->dbid != worker_dbid)
			continue;
		slot->state = SLOT_TAKEN;
		memcpy(&batch[n], slot, sizeof(ledger_slot));
		indexes[n++] = i;
	}
	LWLockRelease(ledger->lock);
	return n;
}

static void
answer_batch(ledger_slot *batch, int *indexes, int n)
{
	int			i;

	LWLockAcquire(ledger->lock, LW_EXCLUSIVE);
	for (i = 0; i < n; i++)
	{
		ledger_slot *slot = &ledger->slots[indexes[i]];

		if (slot->state != SLOT_TAKEN)
			continue;
		slot->outcome = batch[i].outcome;
		slot->commit_lsn = batch[i].commit_lsn;
		slot->answer = batch[i].answer;
		strlcpy(slot->message, batch[i].message, LEDGER_MESSAGE_MAX);
		slot->state = SLOT_DONE;
		ledger_wake(slot->requester);
	}
	LWLockRelease(ledger->lock);
}

/*
 * Whether the commit must wait for synchronous standbys: then the worker
 * commits synchronously, since only a commit waits for them.  Either the
 * worker's synchronous_standby_names (reloaded on SIGHUP) or the flag the
 * commit itself consults (kept by the checkpointer; its layout changed in
 * 15.13) says so.
 */
static bool
standbys_must_confirm(void)
{
	volatile WalSndCtlData *ctl = (volatile WalSndCtlData *) WalSndCtl;

	if (SyncRepStandbyNames != NULL && SyncRepStandbyNames[0] != '\0')
		return true;
	if (ctl == NULL)
		return false;
#ifdef SYNC_STANDBY_DEFINED
	return (ctl->sync_standbys_status & SYNC_STANDBY_DEFINED) != 0;
#else
	return ctl->sync_standbys_defined;
#endif
}

/*
 * One transaction for the batch; any error fails all of it, nothing
 * committed.  Without synchronous standbys the commit does not wait for its
 * WAL flush (synchronous_commit = off for this transaction only): each
 * backend flushes up to commit_lsn before it releases (ledger.c), so while
 * the disk flushes this batch the worker can already decide the next one.
 * A crash before that flush loses the batch, whose releases never ran; a
 * later batch's flush covers every earlier commit record, so the ledger
 * that survives is always a prefix of the decisions, and no decision was
 * made against spending that a surviving decision does not also include.
 */
static void
decide_batch(ledger_slot *batch, int n, MemoryContext context)
{
	int			i;

	SetCurrentStatementStartTimestamp();
	StartTransactionCommand();
	PG_TRY();
	{
		/* PGC_S_OVERRIDE: worker_settings may have raised the setting at that level */
		if (!standbys_must_confirm())
			(void) set_config_option("synchronous_commit", "off", PGC_SUSET, PGC_S_OVERRIDE,
									 GUC_ACTION_LOCAL, true, 0, false);
		PushActiveSnapshot(GetTransactionSnapshot());
		pgstat_report_activity(STATE_RUNNING, "charging privacy budgets");
		ledger_store_charges(batch, n);
		PopActiveSnapshot();
		CommitTransactionCommand();
		for (i = 0; i < n; i++)
			batch[i].commit_lsn = XactLastCommitEnd;
		/* WAL and table statistics, so that autovacuum sees the ledger grow */
		pgstat_report_stat(false);
	}
	PG_CATCH();
	{
		ErrorData  *error;

		MemoryContextSwitchTo(context);
		error = CopyErrorData();
		FlushErrorState();
		AbortCurrentTransaction();
		for (i = 0; i < n; i++)
		{
			batch[i].outcome = OUTCOME_FAILED;
			batch[i].commit_lsn = InvalidXLogRecPtr;
			strlcpy(batch[i].message, error->message, LEDGER_MESSAGE_MAX);
		}
		ereport(LOG,
				(errmsg("anon_dp ledger worker: %d charges failed: %s", n, error->message)));
		FreeErrorData(error);
	}
	PG_END_TRY();
	pgstat_report_activity(STATE_IDLE, NULL);
}

/* Leaves the entry when nothing is pending; true when the worker may exit. */
static bool
retire_if_idle(void)
{
	bool		retired = true;
	ledger_worker_entry *entry;
	int			i;

	LWLockAcquire(ledger->lock, LW_EXCLUSIVE);
	for (i = 0; i < ledger->nslots; i++)
		if (ledger->slots[i].state == SLOT_PENDING && ledger->slots[i].dbid == worker_dbid)
			retired = false;
	entry = ledger_worker_of(worker_dbid);
	if (retired && entry != NULL && entry->pid == MyProcPid)
		entry->state = WORKER_NONE;
	LWLockRelease(ledger->lock);
	return retired;
}

/* Settings of the database or the cluster must not weaken the worker. */
static void
worker_settings(void)
{
	if (synchronous_commit < SYNCHRONOUS_COMMIT_REMOTE_FLUSH)
		SetConfigOption("synchronous_commit", "on", PGC_SUSET, PGC_S_OVERRIDE);
	SetConfigOption("default_transaction_read_only", "off", PGC_SUSET, PGC_S_OVERRIDE);
	SetConfigOption("default_transaction_isolation", "read committed", PGC_SUSET, PGC_S_OVERRIDE);
	SetConfigOption("statement_timeout", "0", PGC_SUSET, PGC_S_OVERRIDE);
	SetConfigOption("lock_timeout", "0", PGC_SUSET, PGC_S_OVERRIDE);
	SetConfigOption("idle_in_transaction_session_timeout", "0", PGC_SUSET, PGC_S_OVERRIDE);
}

void
anon_dp_ledger_worker_main(Datum arg)
{
	ledger_slot *batch;
	int			indexes[LEDGER_BATCH];
	MemoryContext context;
	TimestampTz last_work;

	worker_dbid = DatumGetObjectId(arg);
	pqsignal(SIGTERM, die);
	/* synchronous_standby_names and synchronous_commit may change while it runs */
	pqsignal(SIGHUP, SignalHandlerForConfigReload);
	BackgroundWorkerUnblockSignals();
	BackgroundWorkerInitializeConnectionByOid(worker_dbid, InvalidOid, 0);
	if (ledger == NULL || !claim_entry())
		proc_exit(0);
	before_shmem_exit(worker_exit, (Datum) 0);
	worker_settings();
	context = AllocSetContextCreate(TopMemoryContext, "anon_dp ledger worker",
									ALLOCSET_DEFAULT_SIZES);
	batch = MemoryContextAlloc(TopMemoryContext, sizeof(ledger_slot) * LEDGER_BATCH);
	last_work = GetCurrentTimestamp();
	for (;;)
	{
		int			n;

		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
		if (ConfigReloadPending)
		{
			ConfigReloadPending = false;
			ProcessConfigFile(PGC_SIGHUP);
			worker_settings();
		}
		n = take_batch(batch, indexes);
		if (n > 0)
		{
			MemoryContextSwitchTo(context);
			decide_batch(batch, n, context);
			answer_batch(batch, indexes, n);
			MemoryContextReset(context);
			last_work = GetCurrentTimestamp();
			continue;
		}
		if (TimestampDifferenceExceeds(last_work, GetCurrentTimestamp(), LEDGER_IDLE_EXIT_MS) &&
			retire_if_idle())
			proc_exit(0);
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 LEDGER_IDLE_EXIT_MS / 4, PG_WAIT_EXTENSION);
	}
}
