/*
 * charge.h -- every release of an anonymized session is paid for before it
 * runs (doc/budget.md).
 */
#ifndef ANON_DP_CHARGE_H
#define ANON_DP_CHARGE_H

#include "executor/execdesc.h"

/*
 * After ExecutorStart: when the session is anonymized and the statement
 * releases anything, check the data owner's caps (anon_dp.max_epsilon,
 * anon_dp.max_delta) on every release, charge the role's budget for all of
 * them (ledger.h) and watch each release so that it runs only once.  ERROR
 * before anything runs when a cap or the budget refuses.
 */
extern void budget_charge_statement(QueryDesc *queryDesc, int eflags);

#endif							/* ANON_DP_CHARGE_H */
