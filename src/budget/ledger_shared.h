/*
 * ledger_shared.h -- the shared memory between charging backends and the
 * ledger workers (ledger.c, ledger_worker.c).  Not for other modules.
 *
 * Each backend owns one request slot (by its BackendId).  A slot moves
 *   FREE --backend--> PENDING --worker--> TAKEN --worker--> DONE --backend--> FREE
 * and a backend that gave up waiting (cancel, error) leaves it PENDING or
 * TAKEN: the next request of that slot first waits for DONE.  Each database
 * with charges has one worker entry.  One LWLock guards both arrays.
 */
#ifndef ANON_DP_LEDGER_SHARED_H
#define ANON_DP_LEDGER_SHARED_H

#include "access/xlogdefs.h"
#include "datatype/timestamp.h"
#include "storage/lwlock.h"

#include "dp/dp_accountant.h"

#define LEDGER_STATEMENT_MAX 1024
#define LEDGER_MESSAGE_MAX 256

typedef enum ledger_slot_state
{
	SLOT_FREE,
	SLOT_PENDING,
	SLOT_TAKEN,
	SLOT_DONE
} ledger_slot_state;

typedef enum ledger_outcome
{
	OUTCOME_CHARGED,
	OUTCOME_REFUSED,			/* the budget cannot pay */
	OUTCOME_FAILED				/* the ledger could not decide */
} ledger_outcome;

/* the roles a session acts as, whose groups' budgets it spends too */
#define LEDGER_SESSION_ROLES 3

/*
 * What a budget says about a charge: the budget that refused, or after a
 * charge the one with the smallest share left; its totals, its spending in
 * (epsilon, delta) after the charge (before it when refused) and before it,
 * what the statement needs of it, and how many more statements of the same
 * cost fit.
 */
typedef struct ledger_budget_answer
{
	Oid			role;
	int			budgets;		/* budgets the charge concerns */
	double		budget_epsilon;
	double		budget_delta;
	double		spent_epsilon;
	double		spent_delta;
	double		before_epsilon;	/* the spending before the statement */
	double		before_delta;
	double		need_epsilon;
	double		need_delta;
	double		fits;
} ledger_budget_answer;

typedef struct ledger_slot
{
	ledger_slot_state state;
	int			requester;		/* pgprocno of the backend, for its latch */
	/* the request */
	Oid			dbid;
	Oid			role;			/* the budget role: its own budget */
	Oid			session_roles[LEDGER_SESSION_ROLES];	/* session, SET ROLE, current user */
	dp_charge_cost cost;		/* of all the statement's releases */
	double		default_epsilon;	/* the budget of a role without one */
	double		default_delta;
	int			releases;
	int64		query_id;
	int			pid;
	char		statement[LEDGER_STATEMENT_MAX];
	/* the answer */
	ledger_outcome outcome;
	XLogRecPtr	commit_lsn;		/* end of the worker's commit record: the
								 * backend flushes the WAL up to it before it
								 * releases anything */
	ledger_budget_answer answer;
	char		message[LEDGER_MESSAGE_MAX];
} ledger_slot;

typedef enum ledger_worker_state
{
	WORKER_NONE,
	WORKER_STARTING,			/* registered, not yet connected */
	WORKER_RUNNING
} ledger_worker_state;

typedef struct ledger_worker_entry
{
	ledger_worker_state state;
	Oid			dbid;
	int			pgprocno;		/* when running: its latch */
	int			pid;
	TimestampTz since;			/* when it was registered */
} ledger_worker_entry;

typedef struct ledger_shared
{
	LWLock	   *lock;
	int			nworkers;
	int			nslots;
	ledger_worker_entry *workers;	/* nworkers entries */
	ledger_slot *slots;			/* nslots entries, by BackendId - 1 */
} ledger_shared;

/* set by ledger_startup_shmem() in every process */
extern ledger_shared *ledger;

/* The worker entry of a database, or NULL (hold ledger->lock). */
extern ledger_worker_entry *ledger_worker_of(Oid dbid);

/*
 * Answers every PENDING (and, when taken too, TAKEN) request of the
 * database as failed, with the message, and wakes its backend (hold
 * ledger->lock exclusively).
 */
extern void ledger_fail_requests(Oid dbid, bool taken_too, const char *message);

/* Wakes the backend that owns a slot. */
extern void ledger_wake(int pgprocno);

#endif							/* ANON_DP_LEDGER_SHARED_H */
