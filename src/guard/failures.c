/*
 * failures.c -- the failed anonymization statements of each role
 * (failures.h).
 */
#include "postgres.h"

#include "miscadmin.h"
#include "storage/ipc.h"
#include "storage/lwlock.h"
#include "storage/shmem.h"
#include "utils/acl.h"
#include "utils/hsearch.h"
#include "utils/memutils.h"

#include "guard/failures.h"
#include "settings.h"

/* roles with failures the server keeps counts for (a full table refuses) */
#define FAILURE_ROLES 4096

typedef struct failure_key
{
	Oid			database;
	Oid			role;
} failure_key;

typedef struct failure_entry
{
	failure_key key;
	int			count;
} failure_entry;

static HTAB *failures = NULL;
static LWLock *failures_lock = NULL;

/* failures this backend recorded for statements still running (nested ones add up) */
static int	in_flight_here = 0;

void
failures_request_shmem(void)
{
	RequestAddinShmemSpace(hash_estimate_size(FAILURE_ROLES, sizeof(failure_entry)));
	RequestNamedLWLockTranche("anon_dp_failures", 1);
}

/*
 * The counts carried over a crash-restart.  After a backend crashes,
 * PostgreSQL builds shared memory anew; counts lost with it would let a role
 * whose statement crashed the server (the statement counts as failed from its
 * start) probe again from zero, as often as it can crash it.  The postmaster
 * copies the counts to its own memory as it leaves the old shared memory
 * (shmem_exit runs its on_shmem_exit callbacks) and fills the new table with
 * them.  Read without the lock: the backends are gone, and the copy stops at
 * the table's size whatever state a crash left the table in.
 */
static failure_entry *carried = NULL;	/* postmaster: TopMemoryContext */
static int	carried_count = 0;

static void
carry_counts(int code, Datum arg)
{
	HASH_SEQ_STATUS scan;
	failure_entry *entry;

	if (failures == NULL)
		return;
	if (carried == NULL)
		carried = MemoryContextAlloc(TopMemoryContext, sizeof(failure_entry) * FAILURE_ROLES);
	carried_count = 0;
	hash_seq_init(&scan, failures);
	while ((entry = hash_seq_search(&scan)) != NULL)
	{
		if (carried_count == FAILURE_ROLES)
		{
			hash_seq_term(&scan);
			break;
		}
		if (entry->count > 0)
			carried[carried_count++] = *entry;
	}
	failures = NULL;
}

static void
restore_counts(void)
{
	int			i;

	for (i = 0; i < carried_count; i++)
	{
		failure_entry *entry = hash_search(failures, &carried[i].key, HASH_ENTER_NULL, NULL);

		if (entry != NULL)
			entry->count = carried[i].count;
	}
	carried_count = 0;
}

void
failures_startup_shmem(void)
{
	HASHCTL		ctl;

	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	ctl.keysize = sizeof(failure_key);
	ctl.entrysize = sizeof(failure_entry);
	failures = ShmemInitHash("anon_dp failures", FAILURE_ROLES, FAILURE_ROLES, &ctl,
							 HASH_ELEM | HASH_BLOBS);
	failures_lock = &(GetNamedLWLockTranche("anon_dp_failures"))->lock;
	LWLockRelease(AddinShmemInitLock);
	if (!IsUnderPostmaster)
	{
		/* the postmaster, at its start or after a crash: no backend runs */
		restore_counts();
		on_shmem_exit(carry_counts, (Datum) 0);
	}
}

static failure_key
key_of(Oid roleid)
{
	failure_key key;

	memset(&key, 0, sizeof(key));
	key.database = MyDatabaseId;
	key.role = roleid;
	return key;
}

int
failures_of(Oid roleid)
{
	failure_key key = key_of(roleid);
	failure_entry *entry;
	int			count;

	if (failures == NULL)
		return 0;
	LWLockAcquire(failures_lock, LW_SHARED);
	entry = hash_search(failures, &key, HASH_FIND, NULL);
	count = entry != NULL ? entry->count : 0;
	LWLockRelease(failures_lock);
	/* this backend's statements in flight are not failures (yet) to itself */
	return Max(count - in_flight_here, 0);
}

/* a failure of the role could not be counted: the table is full */
static bool
table_full_without(Oid roleid)
{
	failure_key key = key_of(roleid);
	bool		full;

	LWLockAcquire(failures_lock, LW_SHARED);
	full = hash_get_num_entries(failures) >= FAILURE_ROLES &&
		hash_search(failures, &key, HASH_FIND, NULL) == NULL;
	LWLockRelease(failures_lock);
	return full;
}

void
failures_check(Oid roleid)
{
	int			count;

	if (anon_dp_max_failed_statements <= 0 || failures == NULL)
		return;
	count = failures_of(roleid);
	if (count < anon_dp_max_failed_statements && !table_full_without(roleid))
		return;
	ereport(ERROR,
			(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
			 errmsg("anonymization queries of role \"%s\" are suspended: %d of them failed in this database",
					GetUserNameFromId(roleid, true) ? GetUserNameFromId(roleid, true) : "?", count),
			 errdetail("Whether an anonymization query failed can depend on one user's value; anon_dp.max_failed_statements (%d) bounds how often.",
					   anon_dp_max_failed_statements),
			 errhint("A data owner reviews the role's failed statements in the server log and resets the count: SELECT anon_dp_reset_failures('%s').",
					 GetUserNameFromId(roleid, true) ? GetUserNameFromId(roleid, true) : "?")));
}

void
failures_begin(Oid roleid)
{
	failure_key key = key_of(roleid);
	failure_entry *entry;
	bool		found;

	if (failures == NULL)
		return;
	LWLockAcquire(failures_lock, LW_EXCLUSIVE);
	entry = hash_search(failures, &key, HASH_ENTER_NULL, &found);
	if (entry != NULL)
		entry->count = found ? entry->count + 1 : 1;
	LWLockRelease(failures_lock);
	in_flight_here++;
}

void
failures_end(Oid roleid, bool failed)
{
	failure_key key = key_of(roleid);
	failure_entry *entry;

	if (in_flight_here > 0)
		in_flight_here--;
	if (failed || failures == NULL)
		return;
	LWLockAcquire(failures_lock, LW_EXCLUSIVE);
	entry = hash_search(failures, &key, HASH_FIND, NULL);
	/* a reset while the statement ran, or a full table: nothing to take back */
	if (entry != NULL && entry->count > 0)
		entry->count--;
	LWLockRelease(failures_lock);
}

void
failures_reset(Oid roleid)
{
	failure_key key = key_of(roleid);

	if (failures == NULL)
		return;
	LWLockAcquire(failures_lock, LW_EXCLUSIVE);
	hash_search(failures, &key, HASH_REMOVE, NULL);
	LWLockRelease(failures_lock);
}
