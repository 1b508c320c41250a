/*
 * ledger_store.h -- the SQL of the privacy ledger: the two tables
 * anon_dp_budgets (one row per role: budget, the accountant's state,
 * spending, releases) and anon_dp_ledger (one row per charge, refusal and
 * budget change) of the extension's schema (sql/anon_dp--1.0.sql and its
 * upgrade scripts, doc/budget.md).
 *
 * Every function runs fixed SQL as the bootstrap superuser with the
 * search_path pinned to pg_catalog, inside the caller's transaction.
 */
#ifndef ANON_DP_LEDGER_STORE_H
#define ANON_DP_LEDGER_STORE_H

#include "budget/ledger_shared.h"
#include "funcapi.h"

/*
 * Charges the request of each of n slots, in order, to each of its budgets
 * unless one of them cannot pay, writes the ledger rows and fills the slots'
 * answers (ledger worker, one transaction).  The statements are prepared
 * once per process and kept.
 */
extern void ledger_store_charges(ledger_slot *requests, int n);

/* Sets a role's budget (totals), or puts its spending back to zero. */
extern void ledger_store_set_budget(Oid role, double epsilon, double delta);
extern void ledger_store_reset_budget(Oid role);

/* The session a question about budgets is asked for. */
typedef struct ledger_session
{
	Oid			role;			/* its budget role; InvalidOid: every role */
	Oid			session_roles[LEDGER_SESSION_ROLES];
	double		default_epsilon;
	double		default_delta;
} ledger_session;

/* The session's roles and defaults now (role: its budget role). */
extern ledger_session ledger_current_session(Oid role);

/*
 * The rows of anon_dp_budget into a materialized SRF result: with
 * session->role InvalidOid every role's, else the budgets the session's
 * statements are charged to.  last: the cost of the session's last
 * anonymization statement at its current settings (NULL when unknown), for
 * the releases that still fit.
 */
extern void ledger_store_budget_rows(FunctionCallInfo fcinfo, const ledger_session *session,
									 const dp_charge_cost *last);

/*
 * What the session's budgets say about a statement of this cost now, without
 * charging it: false with *answer the budget that would refuse, or true with
 * the budget that would have the smallest share left.
 */
extern bool ledger_store_outlook(const ledger_session *session, const dp_charge_cost *cost,
								 ledger_budget_answer *answer);

#endif							/* ANON_DP_LEDGER_STORE_H */
