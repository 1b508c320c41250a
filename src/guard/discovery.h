/*
 * discovery.h -- the private tables an anonymized role may query, as the
 * standard interfaces show them (doc/access.md, "Discovery").
 *
 * An anonymized role holds no privilege on private tables, by design: it
 * reads them only through anonymization queries, which anon_dp lends their
 * inputs.  PostgreSQL therefore answers "no privilege" for them, and the
 * tools that list tables by privilege (information_schema, the
 * has_*_privilege functions, the empty probe `SELECT ... WHERE 1 <> 1`)
 * would not offer them.  In anonymized sessions, without lending anything:
 *
 *   - has_table_privilege, has_column_privilege and has_any_column_privilege
 *     (the forms that ask about the current role) answer SELECT for the
 *     tables the role may query through anonymization queries, in the
 *     statement as written and inside information_schema's views;
 *   - a statement that returns no row whatever the tables hold (its WHERE
 *     is constant false, or LIMIT 0) reads an empty relation of the same
 *     columns in place of each private table and each subquery (the custom
 *     SQL a BI tool wraps, an anonymization query), so it returns what it
 *     would have returned, nothing of the table is opened, and no release
 *     runs or is charged.
 */
#ifndef ANON_DP_DISCOVERY_H
#define ANON_DP_DISCOVERY_H

#include "nodes/parsenodes.h"

/* After parse analysis, before the guard: an empty probe reads empty relations. */
extern void answer_empty_probe(Query *query);

/*
 * After the guard: has_*_privilege in the statement as written answers
 * SELECT for queryable tables (anon_dp_queryable, an internal function the
 * guard refuses in analysts' own text).
 */
extern void answer_privilege_questions(Query *query);

/*
 * At planning, after view expansion: the privilege questions inside an
 * expanded information_schema view (a no-op for other queries).
 */
extern void answer_information_schema(Query *expanded_view);

/* Whether the privilege list (as has_table_privilege takes it) asks for SELECT. */
extern bool privilege_list_asks_select(const char *privileges);

/* Whether an anonymized role may query the relation through anonymization queries. */
extern bool relation_is_queryable(Oid relid);

#endif							/* ANON_DP_DISCOVERY_H */
