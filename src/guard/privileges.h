/*
 * privileges.h -- fail-closed privileges of anonymized roles (doc/access.md,
 * "Privileges").
 *
 * An anonymized role holds privileges only on relations open to analysts:
 * catalogs, tables labelled 'public', and views that read nothing else.  It
 * reads private tables only through anonymization queries, whose validated
 * inputs anon_dp lends it for the one statement (lend_private_inputs); so
 * without anon_dp, PostgreSQL's own privilege check refuses every read.
 */
#ifndef ANON_DP_PRIVILEGES_H
#define ANON_DP_PRIVILEGES_H

#include "nodes/parsenodes.h"

/* GRANT, GRANT role and ALTER ... OWNER TO of every session: ERROR if they
 * would give an anonymized role a privilege on a relation not open to it. */
extern void guard_privilege_statement(Node *statement);

/* Before a role is labelled 'anonymized': ERROR if it holds such a privilege. */
extern void check_role_may_be_anonymized(Oid roleid);

/* Before a relation stops being open to analysts (labelled private, or its
 * 'public' label removed): ERROR if an anonymized role holds a privilege on
 * it or on a view that reads it. */
extern void check_relation_may_close(Oid relid);

/* At planning, in an anonymized session: the marked private inputs are read
 * with their owners' rights (RLS was applied for the analyst already).
 * Returns whether the statement had any. */
extern bool lend_private_inputs(Query *query);

#endif							/* ANON_DP_PRIVILEGES_H */
