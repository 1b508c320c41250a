/*
 * ledger_store.h -- the SQL of the privacy ledger: the two tables
 * anon_dp_budgets (one row per role: budget, spent, releases) and
 * anon_dp_ledger (one row per charge, refusal and budget change) of the
 * extension's schema (sql/anon_dp--1.0.sql and its upgrade scripts, doc/budget.md).
 *
 * Every function runs fixed SQL as the bootstrap superuser with the
 * search_path pinned to pg_catalog, inside the caller's transaction.
 */
#ifndef ANON_DP_LEDGER_STORE_H
#define ANON_DP_LEDGER_STORE_H

#include "budget/ledger_shared.h"
#include "funcapi.h"

/*
 * Charges the request of a slot unless the role's budget cannot pay, writes
 * its ledger row and fills the slot's answer (ledger worker).
 */
extern void ledger_store_charge(ledger_slot *request);

/* Sets a role's budget (totals), or puts its spending back to zero. */
extern void ledger_store_set_budget(Oid role, double epsilon, double delta);
extern void ledger_store_reset_budget(Oid role);

/*
 * The rows of anon_dp_budget into a materialized SRF result: every role's
 * when role is InvalidOid, else that role's (with the default budget when it
 * has none yet).
 */
extern void ledger_store_budget_rows(FunctionCallInfo fcinfo, Oid role,
									 double default_epsilon, double default_delta);

#endif							/* ANON_DP_LEDGER_STORE_H */
