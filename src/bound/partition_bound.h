/*
 * partition_bound.h -- the per-user states of anon_dp_bound_partitions for
 * callers other than the aggregate itself: the bounding node
 * (bound_users_node.c) keeps the states in its own hash table and calls
 * these functions with the aggregate's arguments.
 *
 * Arguments are numbered as the aggregate's transition function numbers
 * them (0 is the state, unused here): secret, C_u, spec, uid, then the
 * GROUP BY values and the values of the partials.
 */
#ifndef ANON_DP_PARTITION_BOUND_H
#define ANON_DP_PARTITION_BOUND_H

#include "fmgr.h"

#define BOUND_ARG_SECRET 1
#define BOUND_ARG_KEEP 2
#define BOUND_ARG_SPEC 3
#define BOUND_ARG_UID 4
#define BOUND_FIRST_VALUE_ARG 5

typedef struct bound_layout bound_layout;
typedef struct bound_state bound_state;

/* the layout of a call site from its (constant) C_u and spec arguments, types, collations */
extern bound_layout *bound_layout_create(const NullableDatum *args, int nargs, const Oid *argtypes,
										 const Oid *collations, MemoryContext context);
/* take the execution's secret (argument 1); a new secret starts new states */
extern void bound_layout_take_secret(bound_layout *layout, const NullableDatum *args);
/* the seeded hash of a privacy unit that is not NULL */
extern uint64 bound_uid_hash(bound_layout *layout, Datum uid);

/* a state lives in bound_state_size() bytes; parts beyond them are palloc'd */
extern Size bound_state_size(bound_layout *layout);
extern bound_state *bound_state_init(bound_layout *layout, void *memory, uint64 uid_hash);
extern void bound_state_add_row(bound_state *state, const NullableDatum *args, MemoryContext context);
extern bytea *bound_state_serialize(bound_state *state);

#endif
