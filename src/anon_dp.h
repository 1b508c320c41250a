/*
 * anon_dp.h -- declarations shared by the PostgreSQL side of anon_dp.
 */
#ifndef ANON_DP_H
#define ANON_DP_H

#include "postgres.h"

#include "dp/dp_core.h"

/* settings (anon_dp.*), read by the query rewriter; see doc/functions.md */
extern double anon_dp_epsilon;
extern double anon_dp_delta;
extern int	anon_dp_max_groups_contributed;
extern int	anon_dp_max_rows_contributed;

/*
 * Raise an ERROR for a failed validation of a query constant.  function is
 * the SQL function being evaluated, argument the name of the offending
 * argument as the documentation spells it.
 */
extern void anon_dp_report_status(dp_status status, const char *function,
								  const char *argument) pg_attribute_noreturn();

/* ERROR naming delta, max_groups_contributed or epsilon for a failed dp_threshold_make. */
extern void anon_dp_check_threshold_status(dp_status status, const char *function);

#endif							/* ANON_DP_H */
