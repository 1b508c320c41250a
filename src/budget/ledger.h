/*
 * ledger.h -- the privacy ledger, as a backend uses it.
 *
 * Budgets and charges live in two tables of the extension
 * (anon_dp_budgets, anon_dp_ledger; sql/anon_dp--1.0.sql and its upgrade scripts).  A charge must
 * survive ROLLBACK, errors, a killed backend and a crash, so the charging
 * backend does not write them in its own transaction: it hands the charge
 * to the ledger worker of its database (ledger_worker.c), a background
 * worker that checks the budget, writes the charge and the ledger row, and
 * commits with a synchronous commit, one transaction for every charge
 * waiting at that moment.  The backend waits for the answer; only then may a
 * release run.  One worker per database serializes the charges of that
 * database, so concurrent sessions of one role never overspend.
 * doc/budget.md explains the choice.
 */
#ifndef ANON_DP_LEDGER_H
#define ANON_DP_LEDGER_H

#include "fmgr.h"

#include "budget/ledger_shared.h"

/* one charge: the releases of one statement */
typedef struct ledger_charge_request
{
	Oid			role;			/* the budget role */
	dp_charge_cost cost;		/* the releases' costs together */
	int			releases;
	int64		query_id;		/* PlannedStmt.queryId; 0 (NULL in the ledger)
								 * unless compute_query_id computes one */
	const char *statement;		/* the statement's text */
} ledger_charge_request;

/*
 * Charges the budgets of the session in this database (the role's own and
 * its groups', ledger_store.h), durably, before returning, and says in
 * *answer what the budget with the smallest share left has after it.  ERROR
 * when a budget cannot pay (the message says what remains and what the
 * statement needs), or when the ledger cannot be reached: then nothing may
 * be released.
 */
extern void ledger_charge(const ledger_charge_request *request, ledger_budget_answer *answer);

/* shared memory of the ledger (shmem_request_hook, shmem_startup_hook) */
extern void ledger_request_shmem(void);
extern void ledger_startup_shmem(void);

/* the ledger worker's entry point (bgw_function_name) */
extern PGDLLEXPORT void anon_dp_ledger_worker_main(Datum arg);

#endif							/* ANON_DP_LEDGER_H */
