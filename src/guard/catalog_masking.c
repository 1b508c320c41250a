/*
 * catalog_masking.c -- catalogs as BI tools read them, in anonymized
 * sessions (catalog_masking.h).
 *
 * Table lists of BI tools and JDBC's getIndexInfo() select pg_class rows
 * with all their columns; refusing them breaks the tools.  Instead, the
 * statistics that give the number of rows of a relation (reltuples,
 * relpages, relallvisible, and its size on disk) are masked for relations
 * that are not open to analysts, and shown as they are for the others.
 * The sizes of whole databases and tablespaces (pg_database_size,
 * pg_tablespace_size), which hold private tables, are NULL.
 *
 * The statistics views of tables and indexes (pg_stat_*_tables, ...) and the
 * planner statistics views (pg_stats, ...) are read the same way, row by
 * row, once view expansion has revealed them (at planning): their counters
 * are NULL and their rows of planner statistics absent for those relations.
 */
#include "postgres.h"

#include "access/relation.h"
#include "access/sysattr.h"
#include "access/transam.h"
#include "catalog/index.h"
#include "catalog/pg_class.h"
#include "catalog/pg_namespace.h"
#include "catalog/pg_statistic.h"
#include "catalog/pg_statistic_ext.h"
#include "catalog/pg_statistic_ext_data.h"
#include "catalog/pg_type.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"

#include "catalog.h"
#include "guard/catalog_masking.h"
#include "guard/labels.h"
#include "guard/marks.h"
#include "query_nodes.h"

bool
relation_statistics_visible(Oid relid)
{
	char		relkind;

	if (relid < FirstNormalObjectId)
		return true;
	relkind = get_rel_relkind(relid);
	if (relkind == RELKIND_INDEX || relkind == RELKIND_PARTITIONED_INDEX)
		return relation_statistics_visible(IndexGetRelation(relid, false));
	return relkind != '\0' && anon_dp_relation_is_public(relid);
}

/* CASE WHEN anon_dp_statistics_visible(oid) THEN value ELSE masked END */
static Expr *
masked(Expr *relid, Expr *value, Expr *mask)
{
	CaseExpr   *test = makeNode(CaseExpr);
	CaseWhen   *when = makeNode(CaseWhen);

	when->expr = call_function(anon_dp_emitted_function(EMIT_STATISTICS_VISIBLE),
							   list_make1(cast_to(relid, OIDOID)));
	when->result = value;
	when->location = -1;
	test->casetype = exprType((Node *) value);
	test->casecollid = exprCollation((Node *) value);
	test->args = list_make1(when);
	test->defresult = mask;
	test->location = -1;
	return (Expr *) test;
}

/* SELECT <pg_class's columns, statistics masked> FROM pg_catalog.pg_class */
static Query *
masked_pg_class(void)
{
	Relation	pg_class = relation_open(RelationRelationId, AccessShareLock);
	TupleDesc	desc = RelationGetDescr(pg_class);
	Query	   *select = new_select();
	RangeTblEntry *rte = makeNode(RangeTblEntry);
	RangeTblRef *ref = makeNode(RangeTblRef);
	List	   *colnames = NIL;
	int			i;

	for (i = 0; i < desc->natts; i++)
		colnames = lappend(colnames, makeString(pstrdup(NameStr(TupleDescAttr(desc, i)->attname))));
	rte->rtekind = RTE_RELATION;
	rte->relid = RelationRelationId;
	rte->relkind = RELKIND_RELATION;
	rte->rellockmode = AccessShareLock;
	rte->requiredPerms = ACL_SELECT;
	rte->eref = makeAlias("pg_class", colnames);
	rte->inFromCl = true;
	for (i = 0; i < desc->natts; i++)
		rte->selectedCols = bms_add_member(rte->selectedCols,
										   i + 1 - FirstLowInvalidHeapAttributeNumber);
	mark_entry(rte);			/* read by anon_dp, which masks what it must */
	select->rtable = list_make1(rte);
	ref->rtindex = 1;
	select->jointree->fromlist = list_make1(ref);
	for (i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);
		Expr	   *column = (Expr *) makeVar(1, att->attnum, att->atttypid, att->atttypmod,
											  att->attcollation, 0);
		Expr	   *oid = (Expr *) makeVar(1, Anum_pg_class_oid, OIDOID, -1, InvalidOid, 0);

		if (att->attnum == Anum_pg_class_reltuples)
			column = masked(oid, column, (Expr *) typed_const(FLOAT4OID, "-1"));
		else if (att->attnum == Anum_pg_class_relpages || att->attnum == Anum_pg_class_relallvisible)
			column = masked(oid, column, (Expr *) makeConst(INT4OID, -1, InvalidOid, 4,
															Int32GetDatum(0), false, true));
		add_column(select, column, NameStr(att->attname));
	}
	relation_close(pg_class, AccessShareLock);
	return select;
}

/* pg_class read by columns (no system column, no whole row): read it masked */
static void
mask_pg_class_entry(RangeTblEntry *rte)
{
	int			member = -1;

	if (rte->rtekind != RTE_RELATION || rte->relid != RelationRelationId || entry_is_marked(rte))
		return;
	while ((member = bms_next_member(rte->selectedCols, member)) >= 0)
		if (member + FirstLowInvalidHeapAttributeNumber <= 0)
			return;
	rte->rtekind = RTE_SUBQUERY;
	rte->subquery = masked_pg_class();
	rte->relid = InvalidOid;
	rte->relkind = 0;
	rte->rellockmode = 0;
	rte->requiredPerms = 0;
	rte->selectedCols = NULL;
	rte->inh = false;
}

static bool
is_size_function(Oid funcid)
{
	return funcid == F_PG_RELATION_SIZE_REGCLASS || funcid == F_PG_RELATION_SIZE_REGCLASS_TEXT ||
		funcid == F_PG_TOTAL_RELATION_SIZE || funcid == F_PG_TABLE_SIZE ||
		funcid == F_PG_INDEXES_SIZE;
}

/* sizes of whole databases and tablespaces: they hold private tables */
static bool
is_storage_size_function(Oid funcid)
{
	return funcid == F_PG_DATABASE_SIZE_NAME || funcid == F_PG_DATABASE_SIZE_OID ||
		funcid == F_PG_TABLESPACE_SIZE_NAME || funcid == F_PG_TABLESPACE_SIZE_OID;
}

static Node *
mask_mutator(Node *node, void *context)
{
	if (node == NULL)
		return NULL;
	if (IsA(node, Query))
	{
		Query	   *query = (Query *) node;
		ListCell   *lc;

		foreach(lc, query->rtable)
			mask_pg_class_entry((RangeTblEntry *) lfirst(lc));
		return (Node *) query_tree_mutator(query, mask_mutator, context, QTW_DONT_COPY_QUERY);
	}
	node = expression_tree_mutator(node, mask_mutator, context);
	if (IsA(node, FuncExpr) && is_size_function(((FuncExpr *) node)->funcid))
	{
		FuncExpr   *size = (FuncExpr *) node;

		return (Node *) masked(copyObject(linitial(size->args)), (Expr *) size,
							   (Expr *) makeNullConst(size->funcresulttype, -1, InvalidOid));
	}
	if (IsA(node, FuncExpr) && is_storage_size_function(((FuncExpr *) node)->funcid))
		return (Node *) makeNullConst(((FuncExpr *) node)->funcresulttype, -1, InvalidOid);
	return node;
}

void
mask_catalog_statistics(Query *query)
{
	Query	   *inner;

	/* without the extension's masking function the statistics stay refused */
	if (!OidIsValid(anon_dp_extension()))
		return;
	inner = anon_dp_utility_query(query->utilityStmt);
	mask_mutator((Node *) (inner != NULL ? inner : query), NULL);
}

/* ---- statistics views, at planning ---- */

/* views of pg_catalog read masked (mask_statistics_view); every other pg_stat* stays refused */
static const char *const masked_statistics_views[] = {
	"pg_stat_all_tables", "pg_stat_user_tables", "pg_stat_sys_tables",
	"pg_stat_xact_all_tables", "pg_stat_xact_user_tables", "pg_stat_xact_sys_tables",
	"pg_statio_all_tables", "pg_statio_user_tables", "pg_statio_sys_tables",
	"pg_stat_all_indexes", "pg_stat_user_indexes", "pg_stat_sys_indexes",
	"pg_statio_all_indexes", "pg_statio_user_indexes", "pg_statio_sys_indexes",
	"pg_statio_all_sequences", "pg_statio_user_sequences", "pg_statio_sys_sequences",
	"pg_stats", "pg_stats_ext", "pg_stats_ext_exprs",
};

bool
statistics_view_is_masked(Oid relid)
{
	const char *name;
	size_t		i;

	if (get_rel_relkind(relid) != RELKIND_VIEW || get_rel_namespace(relid) != PG_CATALOG_NAMESPACE ||
		!OidIsValid(anon_dp_emitted_function_if_installed(EMIT_VISIBLE_RELATION)))
		return false;
	name = get_rel_name(relid);
	for (i = 0; name != NULL && i < lengthof(masked_statistics_views); i++)
		if (strcmp(name, masked_statistics_views[i]) == 0)
			return true;
	return false;
}

/* pg_stat_get_<counter>(relation oid): the per-relation counters of the views */
static bool
is_relation_counter(FuncExpr *call)
{
	char	   *name;

	if (call->funcid >= FirstNormalObjectId || list_length(call->args) != 1 ||
		exprType((Node *) linitial(call->args)) != OIDOID)
		return false;
	name = get_func_name(call->funcid);
	return name != NULL && strncmp(name, "pg_stat_get_", 12) == 0;
}

bool
statistics_call_is_masked(Node *node)
{
	FuncExpr   *call = (FuncExpr *) node;
	Node	   *arg;

	if (!IsA(node, FuncExpr) || !is_relation_counter(call))
		return false;
	arg = (Node *) linitial(call->args);
	return IsA(arg, FuncExpr) &&
		anon_dp_is_emitted_function(((FuncExpr *) arg)->funcid, EMIT_VISIBLE_RELATION);
}

/* pg_stat_get_<counter>(anon_dp_visible_relation(relation)), in place */
static bool
counter_masking_walker(Node *node, void *context)
{
	if (node == NULL)
		return false;
	if (IsA(node, Query))
		return query_tree_walker((Query *) node, counter_masking_walker, context, 0);
	if (IsA(node, FuncExpr) && is_relation_counter((FuncExpr *) node) &&
		!statistics_call_is_masked(node))
		((FuncExpr *) node)->args =
			list_make1(call_function(anon_dp_emitted_function(EMIT_VISIBLE_RELATION),
									 ((FuncExpr *) node)->args));
	return expression_tree_walker(node, counter_masking_walker, context);
}

/*
 * Planner statistics: the rows of relations whose statistics are visible
 * (WHERE ... AND anon_dp_statistics_visible(relation)), and the hidden
 * catalogs they are read from marked as read masked.
 */
static void
keep_visible_statistics(Query *view)
{
	ListCell   *lc;
	int			rti = 0;

	foreach(lc, view->rtable)
	{
		RangeTblEntry *rte = (RangeTblEntry *) lfirst(lc);
		AttrNumber	relation_column = InvalidAttrNumber;

		rti++;
		if (rte->rtekind != RTE_RELATION)
			continue;
		if (rte->relid == StatisticRelationId)
			relation_column = Anum_pg_statistic_starelid;
		else if (rte->relid == StatisticExtRelationId)
			relation_column = Anum_pg_statistic_ext_stxrelid;
		else if (rte->relid != StatisticExtDataRelationId)
			continue;
		mark_entry(rte);
		if (relation_column != InvalidAttrNumber)
			view->jointree->quals =
				make_and_qual(view->jointree->quals,
							  (Node *) call_function(anon_dp_emitted_function(EMIT_STATISTICS_VISIBLE),
													 list_make1(makeVar(rti, relation_column, OIDOID,
																		-1, InvalidOid, 0))));
	}
}

void
mask_statistics_view(Query *expanded_view)
{
	RangeTblEntry *first;

	/* an expanded view keeps its own entry first (OLD) */
	if (expanded_view->rtable == NIL)
		return;
	first = (RangeTblEntry *) linitial(expanded_view->rtable);
	if (first->rtekind != RTE_RELATION || !statistics_view_is_masked(first->relid))
		return;
	query_tree_walker(expanded_view, counter_masking_walker, NULL, 0);
	keep_visible_statistics(expanded_view);
	/* the view's own entry, checked at executor start: read masked */
	mark_entry(first);
}
