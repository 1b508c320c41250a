/*
 * statement_cost.h -- what a statement would cost the privacy budget, from
 * its text alone (anon_dp_budget's releases that fit, anon_dp_explain).
 */
#ifndef ANON_DP_STATEMENT_COST_H
#define ANON_DP_STATEMENT_COST_H

#include "dp/dp_accountant.h"

/*
 * The cost of one SELECT statement's releases at the session's current
 * settings: planned as EXPLAIN plans it, its executor state built without
 * running anything (EXEC_FLAG_EXPLAIN_ONLY), its releases read as a charge
 * reads them (releases.c).  Nothing runs and nothing is charged.  false,
 * quietly, when the text is not one SELECT, does not plan, or holds a
 * release the charge would refuse.
 */
extern bool statement_text_cost(const char *text, dp_charge_cost *cost, int *releases);

#endif							/* ANON_DP_STATEMENT_COST_H */
