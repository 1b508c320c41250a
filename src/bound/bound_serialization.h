/*
 * bound_serialization.h -- the kept pairs of a state as bytes
 * (bound_serialization.c): the aggregate's final value, which is also its
 * serialized state, and the state read back from them.
 */
#ifndef ANON_DP_BOUND_SERIALIZATION_H
#define ANON_DP_BOUND_SERIALIZATION_H

#include "bound/bound_state.h"

extern bytea *bound_state_serialize(bound_state *state);

/*
 * The pairs of a blob, read into a new state in the current memory context;
 * the layout must already have been read from buf (bound_layout_read).
 */
extern bound_state *bound_state_read(bound_layout *layout, StringInfo buf);

#endif							/* ANON_DP_BOUND_SERIALIZATION_H */
