/*
 * guard.c -- no path to raw private rows for anonymized sessions.
 *
 * See guard.h for the three layers and doc/access.md for what they refuse.
 *
 * The mark of layer 2.  An anonymization query rewritten by this extension
 * marks the range table entries of the private tables (and views) it reads by
 * putting member 0 into the entry's extraUpdatedCols.  Member 0 stands for
 * attribute number FirstLowInvalidHeapAttributeNumber, which is no column:
 * PostgreSQL never sets it, SQL cannot set it, and the set is copied with the
 * entry everywhere it goes (plan cache, stored views, the planner's flat range
 * table, parallel workers).  extraUpdatedCols is only read for the target of
 * an UPDATE, which a marked entry never is, and view expansion moves it to
 * the view's OLD entry together with the permission fields.
 */
#include "postgres.h"

#include "access/parallel.h"
#include "access/relation.h"
#include "access/sysattr.h"
#include "catalog/dependency.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "catalog/pg_proc.h"
#include "commands/defrem.h"
#include "commands/extension.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/planner.h"
#include "parser/parsetree.h"
#include "rewrite/rewriteHandler.h"
#include "tcop/utility.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/regproc.h"
#include "utils/rel.h"

#include "access/guard.h"
#include "access/labels.h"
#include "access/roles.h"

#define MARK_MEMBER 0			/* FirstLowInvalidHeapAttributeNumber: no column */

static planner_hook_type prev_planner_hook = NULL;
static ExecutorCheckPerms_hook_type prev_executor_check_perms_hook = NULL;
static ProcessUtility_hook_type prev_process_utility_hook = NULL;

/* the query of the EXPLAIN being run: ExplainQuery passes it to the post-parse hook */
static Query *explained_query = NULL;

/* ---- marks ---- */

static void
mark_entry(RangeTblEntry *rte)
{
	rte->extraUpdatedCols = bms_add_member(rte->extraUpdatedCols, MARK_MEMBER);
}

static bool
entry_is_marked(RangeTblEntry *rte)
{
	return bms_is_member(MARK_MEMBER, rte->extraUpdatedCols);
}

/* ---- what a relation is, for an anonymized session ---- */

typedef enum relation_class
{
	RELATION_CATALOG,			/* created by initdb: pg_catalog, information_schema */
	RELATION_PUBLIC,			/* labelled 'public' */
	RELATION_VIEW,				/* judged by what it reads */
	RELATION_PRIVATE,			/* has a privacy unit column */
	RELATION_UNLABELLED			/* anything else: not readable */
} relation_class;

static relation_class
classify_relation(Oid relid)
{
	if (relid < FirstNormalObjectId)
		return RELATION_CATALOG;
	if (get_rel_relkind(relid) == RELKIND_VIEW)
		return RELATION_VIEW;
	if (anon_dp_privacy_unit_column(relid) != InvalidAttrNumber)
		return RELATION_PRIVATE;
	if (anon_dp_relation_is_public(relid))
		return RELATION_PUBLIC;
	return RELATION_UNLABELLED;
}

static char *
relation_name(Oid relid)
{
	char	   *name = get_rel_name(relid);

	return name ? name : psprintf("%u", relid);
}

/*
 * Catalogs that show values or exact counts of other tables' rows: planner
 * statistics (pg_statistic*, pg_stats*) and the cumulative statistics views
 * (pg_stat_*, pg_statio_*), except those about sessions; pg_sequences shows
 * how many rows a serial column has numbered.
 */
static bool
catalog_is_hidden(const char *name)
{
	if (strcmp(name, "pg_stat_activity") == 0 ||
		strcmp(name, "pg_stat_ssl") == 0 ||
		strcmp(name, "pg_stat_gssapi") == 0 ||
		strcmp(name, "pg_statistic_ext") == 0)	/* definitions, read by psql \d+ */
		return false;
	return strncmp(name, "pg_stat", 7) == 0 || strcmp(name, "pg_sequences") == 0;
}

/* pg_class columns that give row counts and sizes (exact after VACUUM/ANALYZE) */
static const char *
hidden_pg_class_column(Bitmapset *columns)
{
	static const struct
	{
		AttrNumber	attnum;
		const char *name;
	}			hidden[] = {
		{Anum_pg_class_reltuples, "reltuples"},
		{Anum_pg_class_relpages, "relpages"},
		{Anum_pg_class_relallvisible, "relallvisible"},
		{InvalidAttrNumber, "pg_class (the whole row)"},
	};
	size_t		i;

	for (i = 0; i < lengthof(hidden); i++)
		if (bms_is_member(hidden[i].attnum - FirstLowInvalidHeapAttributeNumber, columns))
			return hidden[i].name;
	return NULL;
}

static void
check_catalog(Oid relid, Bitmapset *selected)
{
	char	   *name = relation_name(relid);
	const char *column;

	if (catalog_is_hidden(name))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied for \"%s\": anonymized roles cannot read statistics about table contents", name),
				 errdetail("\"%s\" shows column values or exact row counts of private tables.", name),
				 errhint("Ask for the numbers with an anonymization query, for example SELECT ANON_COUNT(*) FROM t.")));
	if (relid == RelationRelationId && (column = hidden_pg_class_column(selected)) != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied for column %s of pg_class: anonymized roles cannot read row counts", column),
				 errdetail("reltuples, relpages and relallvisible give the number of rows of private tables."),
				 errhint("Select the pg_class columns you need by name, leaving out reltuples, relpages and relallvisible.")));
}

/* ---- functions ---- */

typedef struct guard_context
{
	Oid			extension;		/* anon_dp, or InvalidOid */
	int			anonymization_depth;	/* > 0 inside an anonymization query */
} guard_context;

static bool
builtin_function_is_hidden(const char *name)
{
	if (strncmp(name, "pg_stat_get_", 12) == 0)
		return strcmp(name, "pg_stat_get_activity") != 0 &&
			strncmp(name, "pg_stat_get_backend_", 20) != 0;
	return strcmp(name, "nextval") == 0 || strcmp(name, "currval") == 0 ||
		strcmp(name, "setval") == 0 || strcmp(name, "lastval") == 0 ||
		strcmp(name, "pg_sequence_last_value") == 0;
}

/* volatile built-ins without side effects other sessions or later queries can see */
static bool
volatile_builtin_is_harmless(const char *name)
{
	return strcmp(name, "random") == 0 || strcmp(name, "clock_timestamp") == 0 ||
		strcmp(name, "timeofday") == 0 || strcmp(name, "gen_random_uuid") == 0;
}

static bool
extension_function_is_internal(const char *name)
{
	return strncmp(name, "dp_", 3) == 0 ||
		strncmp(name, "anon_dp_requires_rewrite", 24) == 0 ||
		strncmp(name, "anon_dp_pick", 12) == 0 ||
		strncmp(name, "anon_dp_bound", 13) == 0 ||
		strcmp(name, "anon_dp_random_key") == 0;
}

static bool
function_in_extension(Oid funcid, Oid extension)
{
	return OidIsValid(extension) &&
		getExtensionOfObject(ProcedureRelationId, funcid) == extension;
}

/* statistics and sequence counters: refused everywhere */
static void
check_hidden_builtin(Oid funcid, void *unused)
{
	char	   *name;

	if (funcid >= FirstNormalObjectId)
		return;
	name = get_func_name(funcid);
	if (name != NULL && builtin_function_is_hidden(name))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied for function %s: anonymized roles cannot read row counters", name),
				 errdetail("%s() reveals how many rows a table holds or has numbered.", name),
				 errhint("Ask for the numbers with an anonymization query, for example SELECT ANON_COUNT(*) FROM t.")));
}

static void
check_function(Oid funcid, void *arg)
{
	guard_context *cxt = (guard_context *) arg;
	char	   *name;

	if (!OidIsValid(funcid))
		return;
	check_hidden_builtin(funcid, NULL);
	name = get_func_name(funcid);
	if (name == NULL)
		return;
	if (funcid < FirstNormalObjectId)
	{
		if (cxt->anonymization_depth > 0 &&
			func_volatile(funcid) == PROVOLATILE_VOLATILE &&
			!volatile_builtin_is_harmless(name))
			ereport(ERROR,
					(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
					 errmsg("function %s() cannot be used in an anonymization query of an anonymized role", name),
					 errdetail("%s() is volatile: its side effects could carry private values out of the query.", name),
					 errhint("Remove the call, or compute it outside the anonymization query.")));
		return;
	}
	if (function_in_extension(funcid, cxt->extension))
	{
		if (extension_function_is_internal(name))
			ereport(ERROR,
					(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
					 errmsg("function %s() is an internal building block of anon_dp", name),
					 errdetail("Called directly it would not bound each user's contribution."),
					 errhint("Use the ANON_* aggregates, for example ANON_COUNT(*) or ANON_SUM(x, 0, 100).")));
		return;
	}
	if (cxt->anonymization_depth > 0 && !anon_dp_function_is_trusted(funcid))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("function %s cannot be used in an anonymization query of an anonymized role",
						format_procedure(funcid)),
				 errdetail("A function that is not built in sees private rows and could pass them on through notices, errors or writes."),
				 errhint("Use built-in functions, or ask a superuser to vouch for it: SECURITY LABEL FOR anon_dp ON FUNCTION %s IS 'trusted'.",
						 format_procedure(funcid))));
}

static Oid
operator_function(Oid opno, Oid opfuncid)
{
	return OidIsValid(opfuncid) ? opfuncid : get_opcode(opno);
}

/* calls check(funcid, arg) for every function the node itself calls */
static void
for_each_called_function(Node *node, void (*check) (Oid funcid, void *arg), void *arg)
{
	ListCell   *lc;

	switch (nodeTag(node))
	{
		case T_FuncExpr:
			check(((FuncExpr *) node)->funcid, arg);
			break;
		case T_OpExpr:
		case T_DistinctExpr:
		case T_NullIfExpr:
			check(operator_function(((OpExpr *) node)->opno, ((OpExpr *) node)->opfuncid), arg);
			break;
		case T_ScalarArrayOpExpr:
			check(operator_function(((ScalarArrayOpExpr *) node)->opno,
									((ScalarArrayOpExpr *) node)->opfuncid), arg);
			break;
		case T_RowCompareExpr:
			foreach(lc, ((RowCompareExpr *) node)->opnos)
				check(get_opcode(lfirst_oid(lc)), arg);
			break;
		case T_Aggref:
			check(((Aggref *) node)->aggfnoid, arg);
			break;
		case T_WindowFunc:
			check(((WindowFunc *) node)->winfnoid, arg);
			break;
		default:
			break;
	}
}

typedef struct aggregate_search
{
	Oid			extension;
	const char *prefix;			/* "anon_": the analyst's; "dp_": the rewriter's */
} aggregate_search;

/* calls, at its own level, an aggregate of anon_dp whose name starts with prefix */
static bool
extension_aggregate_walker(Node *node, aggregate_search *search)
{
	if (node == NULL)
		return false;
	if (IsA(node, Query))
		return false;			/* sublinks are other levels */
	if (IsA(node, Aggref))
	{
		Aggref	   *aggref = (Aggref *) node;
		char	   *name;

		if (aggref->agglevelsup == 0 && function_in_extension(aggref->aggfnoid, search->extension) &&
			(name = get_func_name(aggref->aggfnoid)) != NULL &&
			strncmp(name, search->prefix, strlen(search->prefix)) == 0)
			return true;
	}
	return expression_tree_walker(node, extension_aggregate_walker, (void *) search);
}

static bool
calls_extension_aggregate(Node *node, Oid extension, const char *prefix)
{
	aggregate_search search;

	search.extension = extension;
	search.prefix = prefix;
	return extension_aggregate_walker(node, &search);
}

static bool
is_anonymization_query(Query *query, guard_context *cxt)
{
	if (!query->hasAggs || !OidIsValid(cxt->extension))
		return false;
	return calls_extension_aggregate((Node *) query->targetList, cxt->extension, "anon_") ||
		calls_extension_aggregate(query->havingQual, cxt->extension, "anon_");
}

/* ---- layer 1: the analyzed query of an anonymized session ---- */

static bool view_reads_private(Oid viewid, char **table);

/*
 * Whether the query reads a private table through an unmarked entry, or an
 * unlabelled table; *table names it.  Views are followed.
 */
static bool
reads_private_walker(Node *node, char **table)
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
		return query_tree_walker(query, reads_private_walker, (void *) table, 0);
	}
	return expression_tree_walker(node, reads_private_walker, (void *) table);
}

static bool
view_reads_private(Oid viewid, char **table)
{
	Relation	view;
	Query	   *definition;
	bool		result;

	check_stack_depth();
	view = relation_open(viewid, AccessShareLock);
	definition = get_view_query(view);
	result = reads_private_walker((Node *) definition, table);
	relation_close(view, AccessShareLock);
	return result;
}

static void
refuse_read(const char *what, const char *name, const char *through)
{
	if (through)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied for view \"%s\": it reads %s table \"%s\" and the session is anonymized",
						through, what, name),
				 errdetail("Anonymized roles see private tables only through anonymization queries."),
				 errhint("Aggregate with ANON_* functions, for example SELECT ANON_COUNT(*) FROM %s.", through)));
	if (strcmp(what, "unlabelled") == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied for table \"%s\": it has no anon_dp label and the session is anonymized", name),
				 errdetail("Anonymized roles may read tables labelled 'public' and, through anonymization queries, private tables."),
				 errhint("Ask a superuser to label it: SECURITY LABEL FOR anon_dp ON TABLE %s IS 'public', or label its privacy unit column 'privacy_unit'.",
						 name)));
	ereport(ERROR,
			(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
			 errmsg("permission denied for private table \"%s\": the session is anonymized", name),
			 errdetail("Anonymized roles see private tables only through anonymization queries: ANON_* aggregates, with no other aggregate or raw column of the table in the result."),
			 errhint("Aggregate with ANON_* functions, for example SELECT ANON_COUNT(*) FROM %s.", name)));
}

static void
refuse_write(const char *name)
{
	ereport(ERROR,
			(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
			 errmsg("permission denied to modify private table \"%s\": the session is anonymized", name),
			 errdetail("Row counts, RETURNING lists and constraint errors of writes reveal private rows."),
			 errhint("Modify private tables from a role that is not anonymized.")));
}

static void
guard_range_table(Query *query, guard_context *cxt)
{
	ListCell   *lc;
	int			rti = 0;

	foreach(lc, query->rtable)
	{
		RangeTblEntry *rte = (RangeTblEntry *) lfirst(lc);
		bool		reads;
		bool		writes;
		char	   *table;

		rti++;
		if (rte->rtekind != RTE_RELATION || rte->requiredPerms == 0)
			continue;
		reads = (rte->requiredPerms & ACL_SELECT) != 0;
		writes = rti == query->resultRelation ||
			(rte->requiredPerms & (ACL_INSERT | ACL_UPDATE | ACL_DELETE)) != 0;
		switch (classify_relation(rte->relid))
		{
			case RELATION_CATALOG:
				if (reads)
					check_catalog(rte->relid, rte->selectedCols);
				break;
			case RELATION_PUBLIC:
				break;
			case RELATION_PRIVATE:
				if (writes)
					refuse_write(relation_name(rte->relid));
				if (cxt->anonymization_depth == 0 && !entry_is_marked(rte))
					refuse_read("private", relation_name(rte->relid), NULL);
				break;
			case RELATION_UNLABELLED:
				if (reads)
					refuse_read("unlabelled", relation_name(rte->relid), NULL);
				break;
			case RELATION_VIEW:
				if (!entry_is_marked(rte) && view_reads_private(rte->relid, &table))
				{
					if (writes)
						refuse_write(relation_name(rte->relid));
					if (cxt->anonymization_depth == 0)
						refuse_read("private or unlabelled", table, relation_name(rte->relid));
				}
				break;
		}
	}
}

static Query *
utility_inner_query(Node *utility)
{
	if (utility == NULL)
		return NULL;
	switch (nodeTag(utility))
	{
		case T_ExplainStmt:
			return (Query *) ((ExplainStmt *) utility)->query;
		case T_DeclareCursorStmt:
			return (Query *) ((DeclareCursorStmt *) utility)->query;
		case T_CreateTableAsStmt:
			return (Query *) ((CreateTableAsStmt *) utility)->query;
		default:
			return NULL;
	}
}

static bool
guard_walker(Node *node, guard_context *cxt)
{
	if (node == NULL)
		return false;
	if (IsA(node, Query))
	{
		Query	   *query = (Query *) node;
		bool		anonymization = is_anonymization_query(query, cxt);
		Query	   *inner = utility_inner_query(query->utilityStmt);

		if (inner != NULL && IsA(inner, Query))
			guard_walker((Node *) inner, cxt);
		if (anonymization)
			cxt->anonymization_depth++;
		guard_range_table(query, cxt);
		query_tree_walker(query, guard_walker, (void *) cxt, 0);
		if (anonymization)
			cxt->anonymization_depth--;
		return false;
	}
	for_each_called_function(node, check_function, cxt);
	return expression_tree_walker(node, guard_walker, (void *) cxt);
}

void
anon_dp_guard_query(Query *query)
{
	guard_context cxt;

	/* EXPLAIN hands its query, checked and rewritten already, to the hook again */
	if (query == explained_query)
		return;
	if (IsParallelWorker() || !anon_dp_session_is_anonymized())
		return;
	cxt.extension = get_extension_oid("anon_dp", true);
	cxt.anonymization_depth = 0;
	guard_walker((Node *) query, &cxt);
}

/* ---- layer 2: marks ---- */

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

/*
 * A rewritten anonymization query is the level whose FROM holds the release
 * subquery (see rewriter.c): everything below it was validated.
 */
static bool
find_anonymization_walker(Node *node, guard_context *cxt)
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

			/* the release level calls the dp_* aggregates */
			if (rte->rtekind == RTE_SUBQUERY && rte->subquery->hasAggs &&
				calls_extension_aggregate((Node *) rte->subquery->targetList, cxt->extension, "dp_"))
			{
				mark_walker(node, NULL);
				return false;
			}
		}
		return query_tree_walker(query, find_anonymization_walker, (void *) cxt, 0);
	}
	return expression_tree_walker(node, find_anonymization_walker, (void *) cxt);
}

void
anon_dp_mark_anonymization_inputs(Query *query)
{
	guard_context cxt;

	cxt.extension = get_extension_oid("anon_dp", true);
	cxt.anonymization_depth = 0;
	if (!OidIsValid(cxt.extension))
		return;
	find_anonymization_walker((Node *) query, &cxt);
	/* the statement an EXPLAIN, DECLARE or CREATE TABLE AS wraps */
	if (query->utilityStmt && utility_inner_query(query->utilityStmt))
		find_anonymization_walker((Node *) utility_inner_query(query->utilityStmt), &cxt);
}

/* ---- the planner: views read by a marked entry, hidden functions ---- */

static bool
plan_guard_walker(Node *node, void *context)
{
	if (node == NULL)
		return false;
	if (IsA(node, Query))
	{
		Query	   *query = (Query *) node;

		/* an expanded view keeps its own entry first (OLD): carry its mark inside */
		if (query->rtable != NIL)
		{
			RangeTblEntry *first = (RangeTblEntry *) linitial(query->rtable);

			if (first->rtekind == RTE_RELATION && first->relkind == RELKIND_VIEW &&
				entry_is_marked(first))
				mark_walker(node, NULL);
		}
		return query_tree_walker(query, plan_guard_walker, context, 0);
	}
	for_each_called_function(node, check_hidden_builtin, NULL);
	return expression_tree_walker(node, plan_guard_walker, context);
}

static PlannedStmt *
guard_planner(Query *parse, const char *query_string, int cursorOptions, ParamListInfo boundParams)
{
	if (!IsParallelWorker() && anon_dp_session_is_anonymized())
		plan_guard_walker((Node *) parse, NULL);
	if (prev_planner_hook)
		return prev_planner_hook(parse, query_string, cursorOptions, boundParams);
	return standard_planner(parse, query_string, cursorOptions, boundParams);
}

/* ---- layer 3: every statement an anonymized session executes ---- */

static bool
guard_executor_check_perms(List *range_table, bool ereport_on_violation)
{
	ListCell   *lc;

	if (prev_executor_check_perms_hook &&
		!prev_executor_check_perms_hook(range_table, ereport_on_violation))
		return false;
	/* a parallel worker runs a plan its leader has checked */
	if (IsParallelWorker() || !anon_dp_session_is_anonymized())
		return true;

	foreach(lc, range_table)
	{
		RangeTblEntry *rte = (RangeTblEntry *) lfirst(lc);
		bool		reads;
		bool		writes;

		if (rte->rtekind != RTE_RELATION || rte->requiredPerms == 0)
			continue;
		reads = (rte->requiredPerms & ACL_SELECT) != 0;
		writes = (rte->requiredPerms & ~ACL_SELECT) != 0;
		switch (classify_relation(rte->relid))
		{
			case RELATION_CATALOG:
				if (reads)
				{
					if (!ereport_on_violation &&
						(catalog_is_hidden(relation_name(rte->relid)) ||
						 (rte->relid == RelationRelationId && hidden_pg_class_column(rte->selectedCols))))
						return false;
					check_catalog(rte->relid, rte->selectedCols);
				}
				break;
			case RELATION_PUBLIC:
			case RELATION_VIEW: /* what it reads has entries of its own */
				break;
			case RELATION_PRIVATE:
				if (writes || !entry_is_marked(rte))
				{
					if (!ereport_on_violation)
						return false;
					if (writes)
						refuse_write(relation_name(rte->relid));
					refuse_read("private", relation_name(rte->relid), NULL);
				}
				break;
			case RELATION_UNLABELLED:
				if (reads)
				{
					if (!ereport_on_violation)
						return false;
					refuse_read("unlabelled", relation_name(rte->relid), NULL);
				}
				break;
		}
	}
	return true;
}

/* ---- utility statements ---- */

static void
refuse_statement(const char *what, const char *detail, const char *hint)
{
	ereport(ERROR,
			(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
			 errmsg("%s is not allowed: the session is anonymized", what),
			 errdetail("%s", detail),
			 errhint("%s", hint)));
}

static void
guard_utility(Node *statement)
{
	switch (nodeTag(statement))
	{
		case T_ExplainStmt:
			{
				ExplainStmt *explain = (ExplainStmt *) statement;
				ListCell   *lc;
				bool		costs = true;

				foreach(lc, explain->options)
				{
					DefElem    *option = (DefElem *) lfirst(lc);

					if (strcmp(option->defname, "analyze") == 0 && defGetBoolean(option))
						refuse_statement("EXPLAIN ANALYZE",
										 "Actual row counts and timings of the plan nodes reveal exact counts of private rows.",
										 "Run EXPLAIN (COSTS OFF) to see the plan, or the query itself to get its anonymized result.");
					if (strcmp(option->defname, "costs") == 0)
						costs = defGetBoolean(option);
				}
				if (costs)
					refuse_statement("EXPLAIN with costs",
									 "Row estimates come from planner statistics of the values in private columns.",
									 "Write EXPLAIN (COSTS OFF) followed by the query.");
				break;
			}
		case T_CopyStmt:
			{
				CopyStmt   *copy = (CopyStmt *) statement;
				Oid			relid;

				if (copy->relation == NULL)
					break;		/* COPY (query): the query is checked like any other */
				relid = RangeVarGetRelid(copy->relation, NoLock, true);
				if (!OidIsValid(relid))
					break;
				switch (classify_relation(relid))
				{
					case RELATION_PRIVATE:
						if (copy->is_from)
							refuse_write(relation_name(relid));
						refuse_read("private", relation_name(relid), NULL);
						break;
					case RELATION_UNLABELLED:
						if (!copy->is_from)
							refuse_read("unlabelled", relation_name(relid), NULL);
						break;
					case RELATION_CATALOG:
						if (!copy->is_from)
							check_catalog(relid, NULL);
						break;
					default:
						break;
				}
				break;
			}
		case T_RuleStmt:
			refuse_statement("CREATE RULE",
							 "A rule runs its actions on behalf of other statements, where anon_dp cannot check them in advance.",
							 "Ask a role that is not anonymized to create the rule.");
			break;
		case T_CreatePolicyStmt:
		case T_AlterPolicyStmt:
			refuse_statement("creating or changing a row security policy",
							 "A policy's expressions run inside other statements, where anon_dp cannot check them in advance.",
							 "Ask a role that is not anonymized to manage policies.");
			break;
		case T_CreateFunctionStmt:
			if (!check_function_bodies)
				refuse_statement("CREATE FUNCTION with check_function_bodies off",
								 "anon_dp checks a function body when it is validated; an unchecked SQL function could be inlined into queries unchecked.",
								 "RESET check_function_bodies and create the function again.");
			break;
		default:
			break;
	}
}

static void
guard_process_utility(PlannedStmt *pstmt, const char *queryString, bool readOnlyTree,
					  ProcessUtilityContext context, ParamListInfo params,
					  QueryEnvironment *queryEnv, DestReceiver *dest, QueryCompletion *qc)
{
	Query	   *outer_explained = explained_query;

	if (!IsParallelWorker() && anon_dp_session_is_anonymized())
		guard_utility(pstmt->utilityStmt);
	if (IsA(pstmt->utilityStmt, ExplainStmt))
		explained_query = (Query *) ((ExplainStmt *) pstmt->utilityStmt)->query;
	PG_TRY();
	{
		if (prev_process_utility_hook)
			prev_process_utility_hook(pstmt, queryString, readOnlyTree, context, params,
									  queryEnv, dest, qc);
		else
			standard_ProcessUtility(pstmt, queryString, readOnlyTree, context, params,
									queryEnv, dest, qc);
	}
	PG_FINALLY();
	{
		explained_query = outer_explained;
	}
	PG_END_TRY();
}

void
anon_dp_install_guard(void)
{
	prev_planner_hook = planner_hook;
	planner_hook = guard_planner;
	prev_executor_check_perms_hook = ExecutorCheckPerms_hook;
	ExecutorCheckPerms_hook = guard_executor_check_perms;
	prev_process_utility_hook = ProcessUtility_hook;
	ProcessUtility_hook = guard_process_utility;
}
