/*
 * safe_evaluation.h -- SAFE semantics for the calls that see private values
 * in an anonymized session (doc/access.md, "Errors").
 */
#ifndef ANON_DP_SAFE_EVALUATION_H
#define ANON_DP_SAFE_EVALUATION_H

#include "nodes/parsenodes.h"

/*
 * In every query level that reads marked private inputs, and every level
 * below it, wrap each built-in call that could raise a data exception in
 * anon_dp_safe_call_* or anon_dp_safe_io_* (src/functions/safe_calls.c).
 * Called on the planner's input, in place.
 */
extern void make_private_calls_safe(Query *query);

#endif							/* ANON_DP_SAFE_EVALUATION_H */
