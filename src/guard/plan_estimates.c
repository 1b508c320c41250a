/*
 * plan_estimates.c -- the planner's estimates of statements that read
 * private rows, kept from anonymized sessions (plan_estimates.h).
 */
#include "postgres.h"

#include "access/parallel.h"
#include "access/transam.h"
#include "catalog/pg_am.h"
#include "jit/jit.h"

#include "guard/catalog_masking.h"
#include "guard/marks.h"
#include "guard/plan_estimates.h"
#include "guard/roles.h"

void
hide_plan_estimates(PlannedStmt *planned)
{
	if (planned == NULL || planned->commandType == CMD_UTILITY || IsParallelWorker())
		return;
	if (!anon_dp_session_is_anonymized() || !range_table_has_marked_relation(planned->rtable))
		return;
	planned->jitFlags = PGJIT_NONE;
	if (planned->planTree != NULL)
	{
		planned->planTree->startup_cost = 0.0;
		planned->planTree->total_cost = ANON_DP_CONSTANT_PLAN_COST;
	}
}

/* ---- what the planner of an anonymized session sees of private relations ---- */

/*
 * The indexes of a public table or catalog that the buffer warming cannot
 * settle, left out: an index scan marks the entries it finds pointing only
 * to dead rows, and the warming marks every such entry around each run by a
 * scan of the whole index, which a hash index does not have; a lookup keyed
 * by a private value would mark its key's entries only (doc/access.md §5).
 */
static void
drop_unsettled_indexes(RelOptInfo *rel)
{
	List	   *indexes = NIL;
	ListCell   *lc;

	foreach(lc, rel->indexlist)
	{
		IndexOptInfo *index = (IndexOptInfo *) lfirst(lc);

		if (index->amhasgettuple && !index->amoptionalkey)
			continue;
		indexes = lappend(indexes, index);
	}
	rel->indexlist = indexes;
}

void
hide_relation_info(Oid relid, RelOptInfo *rel)
{
	List	   *indexes = NIL;
	ListCell   *lc;

	if (IsParallelWorker() || !anon_dp_session_is_anonymized())
		return;
	if (relation_statistics_visible(relid))
	{
		drop_unsettled_indexes(rel);
		return;
	}
	rel->pages = PRIVATE_RELATION_PAGES;
	rel->tuples = PRIVATE_RELATION_TUPLES;
	rel->allvisfrac = 0.0;
	rel->statlist = NIL;
	foreach(lc, rel->indexlist)
	{
		IndexOptInfo *index = (IndexOptInfo *) lfirst(lc);

		/* their cost estimates read the index's metapage and range map */
		if (index->relam == GIN_AM_OID || index->relam == BRIN_AM_OID)
			continue;
		index->pages = PRIVATE_RELATION_PAGES / 4;
		index->tuples = PRIVATE_RELATION_TUPLES;

		/*
		 * Bitmap scans only: an index scan marks the entries it finds
		 * pointing only to dead rows, and one keyed by a private value marked
		 * its key's, which a later scan of that key found faster (red team
		 * round 17: 2-4 ms for 30,000 dead versions); a bitmap scan marks
		 * none.  No index-only scans or ordered index scans either:
		 * get_index_paths adds only bitmap paths of an index without
		 * amgettuple, and build_index_paths adds a parallel index scan of
		 * any index that supports one (red team round 18: a parallel index
		 * scan under a merge join read a private index up to one user's
		 * key and marked the dead entries before it).
		 */
		index->amhasgettuple = false;
		index->amcanparallel = false;
		if (index->tree_height >= 0)
			index->tree_height = 1;
		indexes = lappend(indexes, index);
	}
	rel->indexlist = indexes;
}

/*
 * column statistics the planner may read in an anonymized session: those of
 * public tables and their indexes; not those of catalogs (and their indexes,
 * whose OIDs are below FirstNormalObjectId too), whose sizes catalog masking
 * shows but whose columns hold the sizes of private tables
 */
static bool
column_statistics_shown(Oid relid)
{
	return relid >= FirstNormalObjectId && relation_statistics_visible(relid);
}

bool
hide_column_statistics(Oid relid, VariableStatData *vardata)
{
	if (!OidIsValid(relid) || IsParallelWorker() || !anon_dp_session_is_anonymized() ||
		column_statistics_shown(relid))
		return false;
	vardata->statsTuple = NULL;
	vardata->freefunc = NULL;
	return true;
}

int32
hidden_column_width(Oid relid)
{
	if (IsParallelWorker() || !anon_dp_session_is_anonymized() || column_statistics_shown(relid))
		return 0;
	return PRIVATE_COLUMN_WIDTH;
}
