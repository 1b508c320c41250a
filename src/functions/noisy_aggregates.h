/*
 * noisy_aggregates.h -- what the dp_* building blocks (noisy_aggregates.c)
 * offer besides their SQL functions.
 */
#ifndef ANON_DP_NOISY_AGGREGATES_H
#define ANON_DP_NOISY_AGGREGATES_H

#include "nodes/pg_list.h"

/*
 * Make the checks that building block's final function makes on the
 * constant arguments of a call (args: TargetEntry list, constants folded),
 * raising its errors under the name function (an ANON_* display name).
 */
extern void anon_dp_check_block_arguments(const char *block, List *args,
										  const char *function);

#endif							/* ANON_DP_NOISY_AGGREGATES_H */
