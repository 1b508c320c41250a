/*
 * guard.h -- no path to raw private rows for anonymized sessions.
 *
 * Three layers (doc/access.md), called from src/hooks.c:
 *   1. after parse analysis, before the anonymizer rewrites anything
 *      (query_guard.c): every statement of an anonymized session is checked
 *      -- private tables, views over them and unlabelled tables only inside
 *      anonymization queries; no internal building blocks, statistics
 *      catalogs or sequence counters; inside anonymization queries no
 *      user-defined or side-effecting functions;
 *   2. the anonymizer marks the private inputs it validated (marks.c); the
 *      planner carries the mark into the views they read;
 *   3. at executor start (every statement, including function bodies, rules,
 *      COPY and plans cached before the level changed; executor_guard.c) an
 *      anonymized session may touch a private table only through a marked
 *      range table entry.
 * Utility statements are checked by utility_guard.c.
 */
#ifndef ANON_DP_GUARD_H
#define ANON_DP_GUARD_H

#include "nodes/parsenodes.h"

/* Layer 1: the analyzed statement, before anonymization queries are rewritten. */
extern void guard_analyzed_statement(Query *query);

/* The planner's input: marks carried into views, hidden built-ins after view expansion. */
extern void guard_planned_statement(Query *query);

/* Layer 3: ExecutorCheckPerms_hook; false (or an ERROR) refuses. */
extern bool guard_executor_permissions(List *range_table, bool ereport_on_violation);

/*
 * Statements of their own inside a parallel worker (a function's body, run
 * there): in an anonymized session, an ERROR for one that reads a private
 * relation or holds an anonymization query (a view over one), and for any
 * utility statement.  A worker runs a part of the leader's plan, which the
 * leader checked and charged; the other layers of the guard and the charge
 * leave workers alone for that reason, so such a query would be neither
 * checked nor charged (red team round 10).
 */
extern void guard_parallel_worker_statement(List *range_table);
extern void guard_parallel_worker_utility(void);

/*
 * Utility statements, before they run; what to check after they ran
 * (guard_utility_finished), or NULL.
 */
typedef struct key_labels key_labels;
extern key_labels *guard_utility_statement(Node *statement);
extern void guard_utility_finished(Node *statement, key_labels *keys);

#endif							/* ANON_DP_GUARD_H */
