/*
 * view_expansion.h -- views over anonymization queries are anonymized at the
 * settings of the statement that reads them (doc/budget.md, "Views").
 *
 * CREATE VIEW keeps an anonymization query as it was written (its ANON_*
 * calls), after checking a copy of it as if it ran then; a statement that
 * reads such a view gets the view's query in place of the view before
 * anything else looks at it, as PostgreSQL's rewriter would put it there
 * later, so that the guard, the anonymizer, the caps and the budget treat it
 * like a subquery the reader wrote: anonymized with the reader's
 * anon_dp.epsilon, delta and C_u, charged to the reader's budgets.
 */
#ifndef ANON_DP_VIEW_EXPANSION_H
#define ANON_DP_VIEW_EXPANSION_H

#include "nodes/parsenodes.h"

/* Whether the query holds an ANON_* aggregate at any level. */
extern bool query_has_anon_aggregates(Query *query);

/*
 * Replaces, in place and at every level, each view whose stored query holds
 * an ANON_* aggregate by a subquery of that query (recursively): the view's
 * locks and permission check stay, the tables it reads are checked as its
 * owner (or as the reader for a security_invoker view), as after
 * PostgreSQL's own view expansion.
 */
extern void expand_anonymization_views(Query *query);

/*
 * The query of a CREATE VIEW that holds ANON_* aggregates: checked now on a
 * copy (the guard and the anonymizer, as if it ran), kept as written; the
 * private inputs of its anonymization levels are marked, since they were
 * validated and release only anonymized rows (an ANON_* aggregate that was
 * not rewritten refuses to run).
 */
extern void prepare_view_definition(Query *query);

#endif							/* ANON_DP_VIEW_EXPANSION_H */
