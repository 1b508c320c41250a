/*
 * charge.h -- every release of an anonymized session is paid for before it
 * runs (doc/budget.md).
 */
#ifndef ANON_DP_CHARGE_H
#define ANON_DP_CHARGE_H

#include "executor/execdesc.h"

#include "dp/dp_accountant.h"

/*
 * After ExecutorStart: when the session is anonymized and the statement
 * releases anything, check the data owner's caps (anon_dp.max_epsilon,
 * anon_dp.max_delta) on every release, charge the role's budget for all of
 * them (ledger.h) and watch each release so that it runs only once.  ERROR
 * before anything runs when a cap or the budget refuses.
 */
extern void budget_charge_statement(QueryDesc *queryDesc, int eflags);

/*
 * The cost of the session's last charged statement at the session's current
 * settings (planned again when they changed since); false when there was
 * none or it cannot be planned again (not a plain SELECT).
 */
extern bool budget_last_statement_cost(dp_charge_cost *cost);

#endif							/* ANON_DP_CHARGE_H */
