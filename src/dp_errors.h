/*
 * dp_errors.h -- ERRORs for the DP core's validation results (dp_status).
 *
 * The DP core validates privacy parameters and bounds and returns a status;
 * these functions turn a failed status into an ereport that names the SQL
 * function and the argument, with a hint saying what to write instead.
 */
#ifndef ANON_DP_DP_ERRORS_H
#define ANON_DP_DP_ERRORS_H

#include "dp/dp_core.h"

/*
 * Raise an ERROR for a failed validation of a query constant.  function is
 * the SQL function being evaluated, argument the name of the offending
 * argument as the documentation spells it.
 */
extern void anon_dp_report_status(dp_status status, const char *function,
								  const char *argument) pg_attribute_noreturn();

/* ERROR naming delta, max_groups_contributed or epsilon for a failed dp_threshold_make. */
extern void anon_dp_check_threshold_status(dp_status status, const char *function);

#endif							/* ANON_DP_DP_ERRORS_H */
