/*
 * statistics_views.c -- the statistics views of pg_catalog as anonymized
 * sessions read them (catalog_masking.h; doc/access.md, "Catalogs").
 *
 * pgAdmin's, DataGrip's and DBeaver's statistics panels read
 * pg_stat_user_tables and its siblings, pg_statio_*, and the planner
 * statistics views (pg_stats, ...).  Anonymized sessions may not call the
 * pg_stat_get_*() counters these views are made of (hidden_builtins.c), so
 * the views are masked once view expansion has revealed them (at planning),
 * row by row:
 *
 *   - the counters that only writes and explicit maintenance move (rows
 *     inserted, updated, deleted, live; changes since the last VACUUM or
 *     ANALYZE; when and how often VACUUM and ANALYZE ran by hand) read
 *     anon_dp_masked_statistic(counter, relation, NULL::type): the counter
 *     for a relation whose statistics are visible (a catalog, a table
 *     labelled public, their indexes), NULL for the others;
 *   - every counter that reads move is NULL, for public relations too:
 *     scans, rows returned and fetched, blocks read and hit, and dead rows
 *     (a read prunes pages), also what autovacuum does (it runs when dead
 *     rows pile up).  A query over private rows that walks a public table,
 *     an index scan per private row, would move them by what the private
 *     rows say;
 *   - the planner statistics keep the rows of tables labelled public (not
 *     those of catalogs, keep_visible_statistics).
 *
 * The view's own entry is marked as read masked; the executor guard refuses
 * a plan of it made without this masking.
 */
#include "postgres.h"

#include "access/transam.h"
#include "catalog/pg_class.h"
#include "catalog/pg_namespace.h"
#include "catalog/pg_statistic.h"
#include "catalog/pg_statistic_ext.h"
#include "catalog/pg_statistic_ext_data.h"
#include "catalog/pg_type.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "utils/fmgroids.h"
#include "utils/fmgrprotos.h"
#include "utils/lsyscache.h"

#include "catalog.h"
#include "guard/catalog_masking.h"
#include "guard/marks.h"
#include "query_nodes.h"

/* views of pg_catalog read masked; every other pg_stat* view stays refused */
static const char *const masked_statistics_views[] = {
	"pg_stat_all_tables", "pg_stat_user_tables", "pg_stat_sys_tables",
	"pg_stat_xact_all_tables", "pg_stat_xact_user_tables", "pg_stat_xact_sys_tables",
	"pg_statio_all_tables", "pg_statio_user_tables", "pg_statio_sys_tables",
	"pg_stat_all_indexes", "pg_stat_user_indexes", "pg_stat_sys_indexes",
	"pg_statio_all_indexes", "pg_statio_user_indexes", "pg_statio_sys_indexes",
	"pg_statio_all_sequences", "pg_statio_user_sequences", "pg_statio_sys_sequences",
	"pg_stats", "pg_stats_ext", "pg_stats_ext_exprs",
};

/* the counters shown for relations whose statistics are visible */
static const struct
{
	Oid			counter;
	PGFunction	function;
}			shown_counters[] = {
	{F_PG_STAT_GET_TUPLES_INSERTED, pg_stat_get_tuples_inserted},
	{F_PG_STAT_GET_TUPLES_UPDATED, pg_stat_get_tuples_updated},
	{F_PG_STAT_GET_TUPLES_DELETED, pg_stat_get_tuples_deleted},
	{F_PG_STAT_GET_TUPLES_HOT_UPDATED, pg_stat_get_tuples_hot_updated},
	{F_PG_STAT_GET_LIVE_TUPLES, pg_stat_get_live_tuples},
	{F_PG_STAT_GET_MOD_SINCE_ANALYZE, pg_stat_get_mod_since_analyze},
	{F_PG_STAT_GET_INS_SINCE_VACUUM, pg_stat_get_ins_since_vacuum},
	{F_PG_STAT_GET_LAST_VACUUM_TIME, pg_stat_get_last_vacuum_time},
	{F_PG_STAT_GET_LAST_ANALYZE_TIME, pg_stat_get_last_analyze_time},
	{F_PG_STAT_GET_LAST_AUTOANALYZE_TIME, pg_stat_get_last_autoanalyze_time},
	{F_PG_STAT_GET_VACUUM_COUNT, pg_stat_get_vacuum_count},
	{F_PG_STAT_GET_ANALYZE_COUNT, pg_stat_get_analyze_count},
	{F_PG_STAT_GET_AUTOANALYZE_COUNT, pg_stat_get_autoanalyze_count},
	{F_PG_STAT_GET_XACT_TUPLES_INSERTED, pg_stat_get_xact_tuples_inserted},
	{F_PG_STAT_GET_XACT_TUPLES_UPDATED, pg_stat_get_xact_tuples_updated},
	{F_PG_STAT_GET_XACT_TUPLES_DELETED, pg_stat_get_xact_tuples_deleted},
	{F_PG_STAT_GET_XACT_TUPLES_HOT_UPDATED, pg_stat_get_xact_tuples_hot_updated},
};

PGFunction
shown_relation_counter(Oid counter)
{
	size_t		i;

	for (i = 0; i < lengthof(shown_counters); i++)
		if (shown_counters[i].counter == counter)
			return shown_counters[i].function;
	return NULL;
}

bool
statistics_view_is_masked(Oid relid)
{
	const char *name;
	size_t		i;

	if (get_rel_relkind(relid) != RELKIND_VIEW || get_rel_namespace(relid) != PG_CATALOG_NAMESPACE ||
		!OidIsValid(anon_dp_emitted_function_if_installed(EMIT_MASKED_STATISTIC)))
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

/* anon_dp_masked_statistic(counter, relation, NULL::type), or NULL::type */
static Node *
counter_masking_mutator(Node *node, void *context)
{
	FuncExpr   *counter;
	FuncExpr   *masked;

	if (node == NULL)
		return NULL;
	if (IsA(node, Query))
		return (Node *) query_tree_mutator((Query *) node, counter_masking_mutator, context,
										   QTW_DONT_COPY_QUERY);
	if (!IsA(node, FuncExpr) || !is_relation_counter((FuncExpr *) node))
		return expression_tree_mutator(node, counter_masking_mutator, context);
	counter = (FuncExpr *) node;
	if (shown_relation_counter(counter->funcid) == NULL)
		return (Node *) makeNullConst(counter->funcresulttype, -1, InvalidOid);
	masked = (FuncExpr *) call_function(anon_dp_emitted_function(EMIT_MASKED_STATISTIC),
										list_make3(makeConst(OIDOID, -1, InvalidOid, sizeof(Oid),
															 ObjectIdGetDatum(counter->funcid),
															 false, true),
												   linitial(counter->args),
												   makeNullConst(counter->funcresulttype, -1,
																 InvalidOid)));
	/* polymorphic: the call returns the counter's type */
	masked->funcresulttype = counter->funcresulttype;
	masked->location = counter->location;
	return (Node *) masked;
}

/*
 * Planner statistics: the rows of tables labelled public (WHERE ... AND
 * relation >= FirstNormalObjectId AND anon_dp_statistics_visible(relation)),
 * and the hidden catalogs they are read from marked as read masked.  Not
 * those of catalogs: their columns hold what is masked in them (pg_class's
 * reltuples, relpages and relallvisible are the sizes of private tables),
 * and an ANALYZE of the catalog, which autovacuum runs when the analyst
 * churns temporary tables, stores those values as its most common values
 * and histogram.
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
		{
			Var		   *relation = makeVar(rti, relation_column, OIDOID, -1, InvalidOid, 0);
			Expr	   *not_catalog = call_function(F_OIDGE,
													list_make2(relation,
															   makeConst(OIDOID, -1, InvalidOid,
																		 sizeof(Oid),
																		 ObjectIdGetDatum(FirstNormalObjectId),
																		 false, true)));
			Expr	   *visible = call_function(anon_dp_emitted_function(EMIT_STATISTICS_VISIBLE),
												list_make1(copyObject(relation)));

			view->jointree->quals = make_and_qual(view->jointree->quals,
												  (Node *) make_andclause(list_make2(not_catalog,
																					 visible)));
		}
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
	/* in place; the range table's entries are copies after it */
	query_tree_mutator(expanded_view, counter_masking_mutator, NULL, QTW_DONT_COPY_QUERY);
	keep_visible_statistics(expanded_view);
	/* the view's own entry, checked at executor start: read masked */
	mark_entry((RangeTblEntry *) linitial(expanded_view->rtable));
}

/*
 * pg_stat_get_activity(pid) in a FROM -- the definition of pg_stat_activity,
 * pg_stat_ssl and pg_stat_gssapi, once expanded -- becomes
 * anon_dp_masked_activity(pid): the same rows and columns, without wait
 * events, parallel workers and leader_pid (src/functions/activity_masking.c).
 * Any other call of pg_stat_get_activity stays refused (hidden_builtins.c),
 * also in a database whose anon_dp objects predate the function.
 */
void
mask_activity_functions(Query *query)
{
	ListCell   *lc;

	foreach(lc, query->rtable)
	{
		RangeTblEntry *rte = (RangeTblEntry *) lfirst(lc);
		ListCell   *f;

		if (rte->rtekind != RTE_FUNCTION)
			continue;
		foreach(f, rte->functions)
		{
			RangeTblFunction *rtfunc = (RangeTblFunction *) lfirst(f);
			FuncExpr   *call = (FuncExpr *) rtfunc->funcexpr;
			Oid			masked;

			if (call == NULL || !IsA(call, FuncExpr) || call->funcid != F_PG_STAT_GET_ACTIVITY)
				continue;
			masked = anon_dp_emitted_function_if_installed(EMIT_MASKED_ACTIVITY);
			if (OidIsValid(masked))
				call->funcid = masked;
		}
	}
}
