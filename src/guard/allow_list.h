/*
 * allow_list.h -- what may run inside the anonymization queries of an
 * anonymized session (doc/access.md, "The allow-list").
 *
 * Private rows flow through the anonymization query, its inputs and the
 * views it reads; everything evaluated there must be enumerated: known node
 * kinds, the reviewed list of built-in functions and types
 * (allowed_builtins.h; operators through their functions, casts through
 * their functions or their types' I/O), built-in collations and sampling
 * methods, functions of anon_dp meant for analysts, and functions a
 * superuser labelled 'trusted'.  Everything else is refused with an error
 * naming the object, why, and what to write instead.
 */
#ifndef ANON_DP_ALLOW_LIST_H
#define ANON_DP_ALLOW_LIST_H

#include "nodes/parsenodes.h"

/*
 * ERROR unless the node kind, its type and collations, and the functions and
 * operators it calls (with arguments that must be constants) are allowed.
 */
extern void allow_list_check_node(Node *node);

/*
 * Whether values of the type may be private there: a listed type or an array
 * of one, or anon_dp's interval type (three double precision fields).
 */
extern bool allow_list_type_allowed(Oid type);

/* ERROR unless the sort, group and window operators of the level are allowed. */
extern void allow_list_check_query(Query *query);

/* an expression node of the list: it has a type and collations (exprType, exprCollation) */
extern bool allow_list_is_typed_expression(Node *node);

#endif							/* ANON_DP_ALLOW_LIST_H */
