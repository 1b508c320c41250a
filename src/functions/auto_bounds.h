/*
 * auto_bounds.h -- building blocks of ANON_SUM(x) and ANON_AVG(x) without
 * bounds (src/functions/auto_bounds.c).
 */
#ifndef ANON_DP_AUTO_BOUNDS_H
#define ANON_DP_AUTO_BOUNDS_H

#include "nodes/pg_list.h"

/*
 * The checks the final functions make on a call's constants (epsilon,
 * contributions) for a sum or a mean (mean), with errors naming function:
 * for the rewriter's anon_dp_check_block_arguments.
 */
extern void anon_dp_check_auto_arguments(List *args, bool mean, const char *function);

#endif							/* ANON_DP_AUTO_BOUNDS_H */
