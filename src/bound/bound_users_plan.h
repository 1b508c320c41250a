/*
 * bound_users_plan.h -- after planning, a hash aggregation of the per-user
 * bounding replaced by the bounding node (bound_users_plan.c), called by
 * src/anonymizer/bounding_plan.c.
 */
#ifndef ANON_DP_BOUND_USERS_PLAN_H
#define ANON_DP_BOUND_USERS_PLAN_H

#include "nodes/plannodes.h"

/*
 * The bounding node doing the work of agg, or NULL when agg is not a hash
 * aggregation by one column whose only aggregate is anon_dp_bound_partitions
 * on that column (simple or partial), with an output the node can compute.
 */
extern Plan *bound_users_replace_agg(Agg *agg);

#endif							/* ANON_DP_BOUND_USERS_PLAN_H */
