/*
 * bound_users_node.h -- the per-user bounding in anon_dp's own executor node
 * (bound_users_node.c): a CustomScan that replaces, after planning, a hash
 * aggregation grouped by the privacy unit whose aggregate is
 * anon_dp_bound_partitions (bound_users_plan.h).
 */
#ifndef ANON_DP_BOUND_USERS_NODE_H
#define ANON_DP_BOUND_USERS_NODE_H

/* register the node's methods (at load, in every backend and worker) */
extern void bound_users_node_register(void);

#endif
