/*
 * bound_users_node.h -- the per-user bounding in anon_dp's own executor node
 * (bound_users_node.c): a CustomScan that replaces, after planning, a hash
 * aggregation grouped by the privacy unit whose aggregate is
 * anon_dp_bound_partitions.
 */
#ifndef ANON_DP_BOUND_USERS_NODE_H
#define ANON_DP_BOUND_USERS_NODE_H

#include "nodes/plannodes.h"

/* register the node's methods (at load, in every backend and worker) */
extern void bound_users_node_register(void);
/* the node doing agg's work, or NULL when agg is not such an aggregation */
extern Plan *bound_users_replace_agg(Agg *agg);

#endif
