/*
 * marks.c -- the mark of a validated private input (marks.h).
 *
 * A marked range table entry has member 0 in its extraUpdatedCols.  Member 0
 * stands for attribute number FirstLowInvalidHeapAttributeNumber, which is
 * no column: PostgreSQL never sets it, SQL cannot set it, and the set is
 * copied with the entry everywhere it goes (plan cache, stored views, the
 * planner's flat range table, parallel workers).  extraUpdatedCols is only
 * read for the target of an UPDATE, which a marked entry never is, and view
 * expansion moves it to the view's OLD entry together with the permission
 * fields (the planner's guard marks the subquery that replaced the view
 * entry again, query_guard.c).  Subquery and WITH entries are marked too
 * when they read a marked entry: only safe_evaluation.c looks at those.
 */
#include "postgres.h"

#include "access/relation.h"
#include "catalog/pg_class.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "rewrite/rewriteHandler.h"

#include "guard/marks.h"
#include "guard/objects.h"

#define MARK_MEMBER 0			/* FirstLowInvalidHeapAttributeNumber: no column */

void
mark_entry(RangeTblEntry *rte)
{
	rte->extraUpdatedCols = bms_add_member(rte->extraUpdatedCols, MARK_MEMBER);
}

bool
entry_is_marked(RangeTblEntry *rte)
{
	return bms_is_member(MARK_MEMBER, rte->extraUpdatedCols);
}

/* whether an entry of the level is marked: a table or view, or a FROM item reading one */
static bool
level_has_marked_entry(Query *query)
{
	ListCell   *lc;

	foreach(lc, query->rtable)
		if (entry_is_marked((RangeTblEntry *) lfirst(lc)))
			return true;
	return false;
}

/* the WITH query an RTE_CTE entry of query reads; outer: the levels around query, innermost first */
static Query *
cte_query(RangeTblEntry *rte, Query *query, List *outer)
{
	Query	   *owner;
	ListCell   *lc;

	if (rte->ctelevelsup > (Index) list_length(outer))
		return NULL;
	owner = rte->ctelevelsup == 0 ? query : (Query *) list_nth(outer, rte->ctelevelsup - 1);
	foreach(lc, owner->cteList)
	{
		CommonTableExpr *cte = (CommonTableExpr *) lfirst(lc);

		if (strcmp(cte->ctename, rte->ctename) == 0 && IsA(cte->ctequery, Query))
			return (Query *) cte->ctequery;
	}
	return NULL;
}

/*
 * Mark the private tables and views of a level, then (after the levels below
 * it: WITH queries first, which later ones may read) its FROM subqueries and
 * WITH references that read a marked entry: values of private rows come into
 * the level through them (safe_evaluation.c).  A recursive reference to its
 * own WITH query is marked: what it reads is not known yet.
 */
static bool
mark_walker(Node *node, List **outer)
{
	if (node == NULL)
		return false;
	if (IsA(node, Query))
	{
		Query	   *query = (Query *) node;
		ListCell   *lc;

		check_stack_depth();
		foreach(lc, query->rtable)
		{
			RangeTblEntry *rte = (RangeTblEntry *) lfirst(lc);

			if (rte->rtekind == RTE_RELATION && rte->requiredPerms != 0)
			{
				relation_class class = classify_relation(rte->relid);

				if (class == RELATION_PRIVATE || class == RELATION_VIEW)
					mark_entry(rte);
			}
		}
		*outer = lcons(query, *outer);
		foreach(lc, query->cteList)
			mark_walker(((CommonTableExpr *) lfirst(lc))->ctequery, outer);
		query_tree_walker(query, mark_walker, (void *) outer, QTW_IGNORE_CTE_SUBQUERIES);
		*outer = list_delete_first(*outer);
		foreach(lc, query->rtable)
		{
			RangeTblEntry *rte = (RangeTblEntry *) lfirst(lc);
			Query	   *from = NULL;

			if (rte->rtekind == RTE_SUBQUERY)
				from = rte->subquery;
			else if (rte->rtekind == RTE_CTE && rte->self_reference)
				mark_entry(rte);
			else if (rte->rtekind == RTE_CTE)
				from = cte_query(rte, query, *outer);
			if (from != NULL && level_has_marked_entry(from))
				mark_entry(rte);
		}
		return false;
	}
	return expression_tree_walker(node, mark_walker, (void *) outer);
}

void
mark_private_inputs(Query *query)
{
	List	   *outer = NIL;

	mark_walker((Node *) query, &outer);
}

/* a private table through an unmarked entry, or an unlabelled table; views followed */
static bool
reads_private_unmarked_walker(Node *node, char **table)
{
	if (node == NULL)
		return false;
	if (IsA(node, Query))
	{
		Query	   *query = (Query *) node;
		ListCell   *lc;

		foreach(lc, query->rtable)
		{
			RangeTblEntry *rte = (RangeTblEntry *) lfirst(lc);

			if (rte->rtekind != RTE_RELATION || rte->requiredPerms == 0)
				continue;
			switch (classify_relation(rte->relid))
			{
				case RELATION_PRIVATE:
				case RELATION_UNLABELLED:
					if (!entry_is_marked(rte))
					{
						*table = relation_name(rte->relid);
						return true;
					}
					break;
				case RELATION_VIEW:
					if (!entry_is_marked(rte) && view_reads_private(rte->relid, table))
						return true;
					break;
				default:
					break;
			}
		}
		return query_tree_walker(query, reads_private_unmarked_walker, (void *) table, 0);
	}
	return expression_tree_walker(node, reads_private_unmarked_walker, (void *) table);
}

bool
view_reads_private(Oid viewid, char **table)
{
	Relation	view;
	Query	   *definition;
	bool		result;

	check_stack_depth();
	view = relation_open(viewid, AccessShareLock);
	definition = get_view_query(view);
	result = reads_private_unmarked_walker((Node *) definition, table);
	relation_close(view, AccessShareLock);
	return result;
}
