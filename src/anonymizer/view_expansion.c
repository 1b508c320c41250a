/*
 * view_expansion.c -- views over anonymization queries, read at the reader's
 * settings (view_expansion.h).
 */
#include "postgres.h"

#include "access/relation.h"
#include "catalog/pg_class.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "parser/parsetree.h"
#include "rewrite/prs2lock.h"
#include "rewrite/rewriteHandler.h"
#include "rewrite/rewriteManip.h"
#include "utils/rel.h"

#include "anonymizer/anonymizer.h"
#include "anonymizer/pipeline.h"
#include "anonymizer/view_expansion.h"
#include "catalog.h"
#include "guard/guard.h"
#include "guard/marks.h"

static bool
anon_aggregate_walker(Node *node, void *context)
{
	if (node == NULL)
		return false;
	if (IsA(node, Aggref))
		return anon_dp_kind_of(((Aggref *) node)->aggfnoid) != NULL;
	if (IsA(node, Query))
		return query_tree_walker((Query *) node, anon_aggregate_walker, context, 0);
	return expression_tree_walker(node, anon_aggregate_walker, context);
}

bool
query_has_anon_aggregates(Query *query)
{
	return anon_aggregate_walker((Node *) query, NULL);
}

/*
 * The stored query of a view over an anonymization query, copied and with
 * the locks its relations need, or NULL for any other relation.
 */
static Query *
anonymization_view_query(RangeTblEntry *rte, bool *security_barrier)
{
	Relation	view;
	Query	   *stored = NULL;

	if (rte->rtekind != RTE_RELATION || rte->relkind != RELKIND_VIEW)
		return NULL;
	/* the parser locked the view already */
	view = relation_open(rte->relid, NoLock);
	if (query_has_anon_aggregates(get_view_query(view)))
	{
		stored = copyObject(get_view_query(view));
		*security_barrier = RelationIsSecurityView(view);
	}
	relation_close(view, NoLock);
	if (stored != NULL)
		AcquireRewriteLocks(stored, true, false);
	return stored;
}

/*
 * The view's entry becomes a subquery of its stored query; the view's
 * permission check moves to the query's own first entry (OLD), which
 * PostgreSQL checks, and the planner keeps the view among the plan's
 * dependencies through it (plans are invalidated when the view changes).
 */
static void
expand_entry(RangeTblEntry *rte, Query *stored, bool security_barrier)
{
	RangeTblEntry *old = rt_fetch(PRS2_OLD_VARNO, stored->rtable);

	old->requiredPerms = rte->requiredPerms;
	old->checkAsUser = rte->checkAsUser;
	old->selectedCols = rte->selectedCols;
	old->insertedCols = rte->insertedCols;
	old->updatedCols = rte->updatedCols;
	old->extraUpdatedCols = rte->extraUpdatedCols;
	rte->rtekind = RTE_SUBQUERY;
	rte->subquery = stored;
	rte->security_barrier = security_barrier;
	rte->relid = InvalidOid;
	rte->relkind = 0;
	rte->rellockmode = 0;
	rte->tablesample = NULL;
	rte->inh = false;
	rte->requiredPerms = 0;
	rte->checkAsUser = InvalidOid;
	rte->selectedCols = NULL;
	rte->insertedCols = NULL;
	rte->updatedCols = NULL;
	rte->extraUpdatedCols = NULL;
}

static bool expansion_walker(Node *node, void *context);

static void
expand_query(Query *query)
{
	ListCell   *lc;

	check_stack_depth();
	foreach(lc, query->rtable)
	{
		RangeTblEntry *rte = (RangeTblEntry *) lfirst(lc);
		bool		security_barrier = false;
		Query	   *stored;

		/*
		 * entries no part of the query uses (a view's own OLD and NEW), the
		 * result relation and locked rows stay as they are
		 */
		if (!rangeTableEntry_used((Node *) query, foreach_current_index(lc) + 1, 0) ||
			foreach_current_index(lc) + 1 == query->resultRelation ||
			get_parse_rowmark(query, foreach_current_index(lc) + 1) != NULL)
			continue;
		stored = anonymization_view_query(rte, &security_barrier);
		if (stored != NULL)
			expand_entry(rte, stored, security_barrier);
	}
	/* subqueries (those just made included), WITH queries and sublinks */
	query_tree_walker(query, expansion_walker, NULL, 0);
}

static bool
expansion_walker(Node *node, void *context)
{
	if (node == NULL)
		return false;
	if (IsA(node, Query))
	{
		expand_query((Query *) node);
		return false;
	}
	return expression_tree_walker(node, expansion_walker, context);
}

void
expand_anonymization_views(Query *query)
{
	Query	   *inner = anon_dp_utility_query(query->utilityStmt);

	if (inner != NULL)
		expand_query(inner);
	expand_query(query);
}

/*
 * The anonymization levels (query levels with ANON_* calls of their own):
 * their inputs marked, as the anonymizer validated them.
 */
static bool
mark_levels_walker(Node *node, void *context)
{
	if (node == NULL)
		return false;
	if (IsA(node, Query))
	{
		Query	   *query = (Query *) node;

		if (is_anonymization_level(query))
		{
			mark_private_inputs(query);
			return false;
		}
		return query_tree_walker(query, mark_levels_walker, context, 0);
	}
	return expression_tree_walker(node, mark_levels_walker, context);
}

void
prepare_view_definition(Query *query)
{
	Query	   *copy = copyObject(query);

	expand_anonymization_views(copy);
	guard_analyzed_statement(copy);
	anonymize_statement(copy);
	mark_levels_walker((Node *) query, NULL);
}
