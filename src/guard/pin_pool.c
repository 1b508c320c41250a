/*
 * pin_pool.c -- the pages that anonymization runs of all sessions keep
 * pinned, at most a quarter of shared_buffers together (pin_pool.h).
 *
 * The buffer warming keeps the pages of the public tables and catalogs a
 * run names pinned while it goes on (buffer_warming.c); without a limit
 * across sessions, four analyst sessions pinned the whole pool and other
 * roles' queries failed with "no unpinned buffers available" (red team
 * round 14).  A run reserves what it will pin before its error channel and
 * waits on a condition variable while other runs hold too much; its share
 * goes back after the run, after a failed one, at the end of the
 * transaction (a backstop for a path that missed it) and when the backend
 * exits.
 */
#include "postgres.h"

#include "access/xact.h"
#include "miscadmin.h"
#include "storage/condition_variable.h"
#include "storage/ipc.h"
#include "storage/lwlock.h"
#include "storage/shmem.h"
#include "storage/spin.h"
#include "utils/wait_event.h"

#include "guard/pin_pool.h"

typedef struct pin_pool
{
	slock_t		mutex;
	int			reserved;		/* pages reserved by running runs */
	ConditionVariable released;
} pin_pool;

static pin_pool *pins = NULL;

/* what this backend reserved (a nested run adds to an outer one's) */
static int	reserved_here = 0;

int
pin_pool_limit(void)
{
	return Max(1, NBuffers / 4);
}

bool
pin_pool_ready(void)
{
	return pins != NULL;
}

int
pin_pool_reserved_here(void)
{
	return reserved_here;
}

void
pin_pool_request_shmem(void)
{
	RequestAddinShmemSpace(MAXALIGN(sizeof(pin_pool)));
}

void
pin_pool_startup_shmem(void)
{
	bool		found;

	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	pins = ShmemInitStruct("anon_dp pinned pages", sizeof(pin_pool), &found);
	if (!found)
	{
		SpinLockInit(&pins->mutex);
		pins->reserved = 0;
		ConditionVariableInit(&pins->released);
	}
	LWLockRelease(AddinShmemInitLock);
}

/* a session that leaves during a run (FATAL, a terminated backend) */
static void
release_at_exit(int code, Datum arg)
{
	if (reserved_here > 0)
		pin_pool_release(reserved_here);
}

/*
 * No run is going on when a transaction ends: what is still reserved then
 * was left by a path that missed its release, and would otherwise stay
 * reserved for the session's life.
 */
static void
release_at_transaction_end(XactEvent event, void *arg)
{
	if (reserved_here > 0 &&
		(event == XACT_EVENT_COMMIT || event == XACT_EVENT_ABORT || event == XACT_EVENT_PREPARE))
		pin_pool_release(reserved_here);
}

bool
pin_pool_reserve(int wanted, bool may_wait)
{
	static bool callbacks = false;
	int			limit = pin_pool_limit();

	if (pins == NULL || wanted <= 0)
		return true;
	if (!callbacks)
	{
		before_shmem_exit(release_at_exit, (Datum) 0);
		RegisterXactCallback(release_at_transaction_end, NULL);
		callbacks = true;
	}
	for (;;)
	{
		bool		granted;

		SpinLockAcquire(&pins->mutex);
		granted = pins->reserved + wanted <= limit;
		if (granted)
			pins->reserved += wanted;
		SpinLockRelease(&pins->mutex);
		if (granted)
			break;
		if (!may_wait)
		{
			ConditionVariableCancelSleep();
			return false;
		}
		ConditionVariableSleep(&pins->released, PG_WAIT_EXTENSION);
	}
	ConditionVariableCancelSleep();
	reserved_here += wanted;
	return true;
}

void
pin_pool_release(int reserved)
{
	if (pins == NULL || reserved <= 0)
		return;
	SpinLockAcquire(&pins->mutex);
	pins->reserved -= reserved;
	Assert(pins->reserved >= 0);
	SpinLockRelease(&pins->mutex);
	reserved_here -= reserved;
	ConditionVariableBroadcast(&pins->released);
}
