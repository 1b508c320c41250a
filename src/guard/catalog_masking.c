/*
 * catalog_masking.c -- catalogs as BI tools read them, in anonymized
 * sessions (catalog_masking.h).
 *
 * Table lists of BI tools and JDBC's getIndexInfo() select pg_class rows
 * with all their columns; refusing them breaks the tools.  Instead, the
 * statistics that give the number of rows of a relation (reltuples,
 * relpages, relallvisible, and its size on disk) and its freeze horizons
 * (relfrozenxid, relminmxid: which transaction wrote its oldest row) are
 * masked for relations
 * that are not open to analysts, and shown as they are for the others.
 * The sizes of whole databases and tablespaces (pg_database_size,
 * pg_tablespace_size), which hold private tables, are NULL.
 *
 * The statistics views are masked at planning (statistics_views.c).
 */
#include "postgres.h"

#include "access/relation.h"
#include "access/sysattr.h"
#include "access/transam.h"
#include "catalog/index.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "catalog/pg_collation.h"
#include "catalog/pg_statistic.h"
#include "catalog/pg_statistic_ext_data.h"
#include "catalog/pg_type.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/syscache.h"

#include "catalog.h"
#include "guard/catalog_masking.h"
#include "guard/labels.h"
#include "guard/marks.h"
#include "query_nodes.h"

/* a relation's TOAST table (InvalidOid: none) */
static Oid
toast_of(Oid relid)
{
	HeapTuple	tuple = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	Oid			toast;

	if (!HeapTupleIsValid(tuple))
		return InvalidOid;
	toast = ((Form_pg_class) GETSTRUCT(tuple))->reltoastrelid;
	ReleaseSysCache(tuple);
	return toast;
}

/*
 * The catalogs that hold what ANALYZE found in the columns of other
 * relations (histograms, most common values, widths): their sizes grow
 * and shrink with the values of private columns.
 */
static bool
holds_planner_statistics(Oid relid)
{
	return relid == StatisticRelationId || relid == StatisticExtDataRelationId ||
		relid == toast_of(StatisticRelationId) || relid == toast_of(StatisticExtDataRelationId);
}

/*
 * Catalogs, except those that hold planner statistics, relations labelled
 * public, and this session's own temporary tables; an index as its table.
 * A temporary table is the session's: only what the session wrote is in it,
 * and an anonymized session can write nothing private (released rows of
 * anonymization queries, public rows), so its sizes and statistics say
 * nothing about a user.
 */
bool
relation_statistics_visible(Oid relid)
{
	char		relkind = get_rel_relkind(relid);

	if (relkind == RELKIND_INDEX || relkind == RELKIND_PARTITIONED_INDEX)
		return relation_statistics_visible(IndexGetRelation(relid, false));
	if (relid < FirstNormalObjectId)
		return !holds_planner_statistics(relid);
	if (relkind == '\0')
		return false;
	return anon_dp_relation_is_public(relid) || isTempNamespace(get_rel_namespace(relid));
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

		/*
		 * After a VACUUM the freeze horizons are the transaction that wrote
		 * the oldest row still unfrozen, and they move when it is deleted
		 */
		else if (att->attnum == Anum_pg_class_relfrozenxid || att->attnum == Anum_pg_class_relminmxid)
			column = masked(oid, column, (Expr *) makeConst(XIDOID, -1, InvalidOid, sizeof(TransactionId),
															TransactionIdGetDatum(InvalidTransactionId),
															false, true));
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
	replace_by_subquery(rte, masked_pg_class());
}

/* which masked size a size function of PostgreSQL stands for, or 0 */
static masked_size_function
masked_size_of(Oid funcid)
{
	switch (funcid)
	{
		case F_PG_RELATION_SIZE_REGCLASS:
		case F_PG_RELATION_SIZE_REGCLASS_TEXT:
			return MASKED_RELATION_SIZE;
		case F_PG_TOTAL_RELATION_SIZE:
			return MASKED_TOTAL_RELATION_SIZE;
		case F_PG_TABLE_SIZE:
			return MASKED_TABLE_SIZE;
		case F_PG_INDEXES_SIZE:
			return MASKED_INDEXES_SIZE;
	}
	return 0;
}

/* anon_dp_masked_size(which, rel, fork or NULL) */
static Expr *
masked_size(FuncExpr *size)
{
	List	   *args = list_make3(makeConst(INT4OID, -1, InvalidOid, 4,
											Int32GetDatum(masked_size_of(size->funcid)), false, true),
								  linitial(size->args),
								  list_length(size->args) > 1 ? lsecond(size->args) :
								  (Node *) makeNullConst(TEXTOID, -1, DEFAULT_COLLATION_OID));
	FuncExpr   *call = (FuncExpr *) call_function(anon_dp_emitted_function(EMIT_MASKED_SIZE), args);

	call->location = size->location;
	return (Expr *) call;
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
	if (IsA(node, FuncExpr) && masked_size_of(((FuncExpr *) node)->funcid) != 0)
		return (Node *) masked_size((FuncExpr *) node);
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
