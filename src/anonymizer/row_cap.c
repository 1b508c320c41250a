/*
 * row_cap.c -- anon_dp.max_rows_contributed (part of the build step): every
 * private table the per-user level reads, at any depth, is read through
 * TABLESAMPLE anon_reservoir(n), at most n rows per privacy unit
 * (src/bound/reservoir_tablesample.c).  What it cannot cap is refused:
 * views over private tables (they take no TABLESAMPLE), partitioned tables
 * and inheritance parents (PostgreSQL samples each partition or child on
 * its own), private tables that already have a TABLESAMPLE clause, tables
 * whose unit comes through a foreign key (no column to sample by), and
 * private WITH queries defined outside the anonymization query.
 */
#include "postgres.h"

#include "catalog/pg_class.h"
#include "catalog/pg_inherits.h"
#include "nodes/nodeFuncs.h"
#include "utils/lsyscache.h"

#include "anonymizer/build.h"
#include "query_nodes.h"
#include "anonymizer/validate.h"
#include "catalog.h"
#include "guard/labels.h"

typedef struct cap_context
{
	int64		rows;			/* n */
	Oid			handler;		/* anon_reservoir */
} cap_context;

static void
cap_entry(RangeTblEntry *rte, cap_context *cxt)
{
	TableSampleClause *sample;

	if (rte->rtekind != RTE_RELATION)
		return;
	if (rte->relkind == RELKIND_VIEW)
	{
		if (view_has_privacy_unit(rte->relid))
			refuse(psprintf("anon_dp.max_rows_contributed cannot cap the rows read through view \"%s\"",
							get_rel_name(rte->relid)),
				   "Query the tables the view reads, or SET anon_dp.max_rows_contributed = 0.");
		return;
	}
	if (anon_dp_unit_label(rte->relid, anon_dp_session_unit()).kind == UNIT_LABEL_KEY)
		refuse(psprintf("anon_dp.max_rows_contributed cannot cap the rows of \"%s\", whose privacy unit comes through a foreign key",
						get_rel_name(rte->relid)),
			   "The cap samples rows per value of a table's privacy unit column; SET anon_dp.max_rows_contributed = 0 for queries over such tables.");
	if (anon_dp_privacy_unit_column(rte->relid) == InvalidAttrNumber)
		return;
	if (rte->tablesample)
		refuse(psprintf("private table \"%s\" already has a TABLESAMPLE clause",
						get_rel_name(rte->relid)),
			   "Remove the TABLESAMPLE clause, or SET anon_dp.max_rows_contributed = 0 to sample it yourself.");
	if (rte->relkind == RELKIND_PARTITIONED_TABLE)
		refuse(psprintf("anon_dp.max_rows_contributed cannot cap the rows of partitioned table \"%s\"",
						get_rel_name(rte->relid)),
			   "PostgreSQL samples each partition separately; SET anon_dp.max_rows_contributed = 0 for queries over partitioned tables.");
	if (rte->inh && find_inheritance_children(rte->relid, NoLock) != NIL)
		refuse(psprintf("anon_dp.max_rows_contributed cannot cap the rows of table \"%s\", which has inheritance children",
						get_rel_name(rte->relid)),
			   "PostgreSQL samples each child table separately; read the parent with ONLY, or SET anon_dp.max_rows_contributed = 0.");
	sample = makeNode(TableSampleClause);
	sample->tsmhandler = cxt->handler;
	sample->args = list_make1(int8_const(cxt->rows));
	rte->tablesample = sample;
}

static bool
cap_walker(Node *node, cap_context *cxt)
{
	if (node == NULL)
		return false;
	if (IsA(node, Query))
	{
		ListCell   *lc;

		foreach(lc, ((Query *) node)->rtable)
			cap_entry((RangeTblEntry *) lfirst(lc), cxt);
		return query_tree_walker((Query *) node, cap_walker, (void *) cxt, 0);
	}
	return expression_tree_walker(node, cap_walker, (void *) cxt);
}

void
cap_rows_per_user(anon_plan *plan, Query *per_user)
{
	cap_context cxt;

	if (plan->row_cap <= 0)
		return;
	if (plan->outer_private_ctes != NIL)
		refuse(psprintf("anon_dp.max_rows_contributed cannot cap the rows of WITH query \"%s\", defined outside the anonymization query",
						strVal(linitial(plan->outer_private_ctes))),
			   "Move the WITH clause into the query that uses ANON_* aggregates, or SET anon_dp.max_rows_contributed = 0.");
	cxt.rows = plan->row_cap;
	cxt.handler = anon_dp_emitted_function(EMIT_RESERVOIR);
	cap_walker((Node *) per_user, &cxt);
}
