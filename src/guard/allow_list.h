/*
 * allow_list.h -- what may run inside the anonymization queries of an
 * anonymized session (doc/access.md, "The allow-list").
 *
 * Private rows flow through the anonymization query, its inputs and the
 * views it reads; everything evaluated there must be known to be free of
 * side effects and of code the analyst wrote: known node kinds, built-in
 * types (no domains) and collations, built-in operators and table sampling
 * methods, built-in functions that do not write, functions of anon_dp meant
 * for analysts, and functions a superuser labelled 'trusted'.  Everything
 * else is refused with an error naming the object.
 */
#ifndef ANON_DP_ALLOW_LIST_H
#define ANON_DP_ALLOW_LIST_H

#include "nodes/nodes.h"

/* ERROR unless the node kind, its type, collations and operators are allowed. */
extern void allow_list_check_node(Node *node);

/*
 * ERROR unless the function may be called: built-in and free of side
 * effects, an analysts' function of anon_dp, or labelled 'trusted'.
 */
extern void allow_list_check_function(Oid funcid);

#endif							/* ANON_DP_ALLOW_LIST_H */
