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
 * fields.
 */
#include "postgres.h"

#include "access/transam.h"

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

bool
range_table_has_marked_relation(List *range_table)
{
	ListCell   *lc;

	foreach(lc, range_table)
	{
		RangeTblEntry *rte = (RangeTblEntry *) lfirst(lc);

		if (rte->rtekind == RTE_RELATION && entry_is_marked(rte))
			return true;
	}
	return false;
}

/* a marked table of the database (not a catalog read masked), at any depth */
static bool
reads_marked_table_walker(Node *node, void *context)
{
	if (node == NULL)
		return false;
	if (IsA(node, RangeTblEntry))
	{
		RangeTblEntry *rte = (RangeTblEntry *) node;

		return rte->rtekind == RTE_RELATION && rte->relid >= FirstNormalObjectId &&
			entry_is_marked(rte);
	}
	if (IsA(node, Query))
		return query_tree_walker((Query *) node, reads_marked_table_walker, context,
								 QTW_EXAMINE_RTES_BEFORE);
	return expression_tree_walker(node, reads_marked_table_walker, context);
}

bool
query_reads_marked_table(Query *query)
{
	return reads_marked_table_walker((Node *) query, NULL);
}

bool
range_table_reads_marked_table(List *range_table)
{
	ListCell   *lc;

	foreach(lc, range_table)
		if (reads_marked_table_walker(lfirst(lc), NULL))
			return true;
	return false;
}

static bool
mark_walker(Node *node, void *context)
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

			if (rte->rtekind == RTE_RELATION && rte->requiredPerms != 0)
			{
				relation_class class = classify_relation(rte->relid);

				if (class == RELATION_PRIVATE || class == RELATION_VIEW)
					mark_entry(rte);
			}
		}
		return query_tree_walker(query, mark_walker, context, 0);
	}
	return expression_tree_walker(node, mark_walker, context);
}

void
mark_private_inputs(Query *query)
{
	mark_walker((Node *) query, NULL);
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
