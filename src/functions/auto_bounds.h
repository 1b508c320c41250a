/*
 * auto_bounds.h -- building blocks of ANON_SUM(x), ANON_AVG(x), ANON_VAR(x)
 * and ANON_STDDEV(x) without bounds (src/functions/auto_bounds.c).
 */
#ifndef ANON_DP_AUTO_BOUNDS_H
#define ANON_DP_AUTO_BOUNDS_H

#include "nodes/pg_list.h"

/*
 * The checks the final function of block (dp_sum_auto, dp_avg_auto_bounds,
 * ...) makes on a call's constants (epsilon, contributions), with errors
 * naming function: for the rewriter's anon_dp_check_block_arguments.
 */
extern void anon_dp_check_auto_arguments(List *args, const char *block, const char *function);

#endif							/* ANON_DP_AUTO_BOUNDS_H */
