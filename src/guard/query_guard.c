/*
 * query_guard.c -- layer 1 of the guard: the analyzed statement of an
 * anonymized session, before the anonymizer rewrites it; and the planner's
 * input, after view expansion (guard.h).
 */
#include "postgres.h"

#include "access/relation.h"
#include "access/table.h"
#include "access/sysattr.h"
#include "access/transam.h"
#include "catalog/pg_class.h"
#include "catalog/pg_proc.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "parser/parsetree.h"
#include "rewrite/rewriteHandler.h"
#include "utils/rel.h"
#include "utils/acl.h"
#include "utils/lsyscache.h"
#include "utils/regproc.h"

#include "catalog.h"
#include "guard/allow_list.h"
#include "guard/catalog_masking.h"
#include "guard/discovery.h"
#include "guard/guard.h"
#include "guard/hidden_builtins.h"
#include "guard/untrusted_code.h"
#include "guard/labels.h"
#include "guard/marks.h"
#include "guard/objects.h"
#include "guard/privileges.h"
#include "guard/roles.h"
#include "guard/safe_evaluation.h"
#include "guard/session_caches.h"

typedef struct guard_context
{
	int			anonymization_depth;	/* > 0 inside an anonymization query */
	bool		anonymization_found;	/* the statement has one */
} guard_context;

static void
check_function(Oid funcid, void *arg)
{
	char	   *name;

	if (!OidIsValid(funcid))
		return;
	refuse_hidden_builtin_call(funcid, NULL);
	refuse_untrusted_code_call(funcid, NULL);
	name = get_func_name(funcid);
	if (name == NULL)
		return;
	if (anon_dp_is_building_block(funcid))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("function %s() is an internal building block of anon_dp", name),
				 errdetail("Called directly it would not bound each user's contribution."),
				 errhint("Use the ANON_* aggregates, for example ANON_COUNT(*) or ANON_SUM(x, 0, 100).")));
}

/* an ANON_* aggregate of this very level (not of a sublevel) */
static bool
anon_aggregate_walker(Node *node, void *context)
{
	if (node == NULL)
		return false;
	if (IsA(node, Query))
		return false;
	if (IsA(node, Aggref) && ((Aggref *) node)->agglevelsup == 0 &&
		anon_dp_kind_of(((Aggref *) node)->aggfnoid) != NULL)
		return true;
	return expression_tree_walker(node, anon_aggregate_walker, context);
}

static bool
is_anonymization_query(Query *query)
{
	return query->hasAggs &&
		(anon_aggregate_walker((Node *) query->targetList, NULL) ||
		 anon_aggregate_walker(query->havingQual, NULL));
}

static bool guard_walker(Node *node, guard_context *cxt);

/* the stored query of a view an anonymization query reads: it sees private rows too */
static void
guard_view_definition(Oid viewid, guard_context *cxt)
{
	Relation	view;
	Query	   *definition;

	check_stack_depth();
	view = relation_open(viewid, AccessShareLock);
	definition = copyObject(get_view_query(view));
	relation_close(view, AccessShareLock);
	guard_walker((Node *) definition, cxt);
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
				/* a marked pg_class is catalog_masking.c's own, masked; so
				 * are the statistics views it masks at planning */
				if (reads && !entry_is_marked(rte) && !statistics_view_is_masked(rte->relid))
					check_catalog(rte->relid, rte->selectedCols);
				break;
			case RELATION_PUBLIC:
			case RELATION_OWN:
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
				if (cxt->anonymization_depth > 0)
					guard_view_definition(rte->relid, cxt);
				break;
		}
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
		bool		anonymization = is_anonymization_query(query);
		Query	   *inner = anon_dp_utility_query(query->utilityStmt);

		if (inner != NULL)
			guard_walker((Node *) inner, cxt);
		if (anonymization)
		{
			cxt->anonymization_depth++;
			cxt->anonymization_found = true;
		}
		guard_range_table(query, cxt);
		if (cxt->anonymization_depth > 0)
			allow_list_check_query(query);
		query_tree_walker(query, guard_walker, (void *) cxt, 0);
		if (anonymization)
			cxt->anonymization_depth--;
		return false;
	}
	if (cxt->anonymization_depth > 0)
		allow_list_check_node(node);
	for_each_called_function(node, check_function, cxt);
	return expression_tree_walker(node, guard_walker, (void *) cxt);
}

/*
 * A statement with an anonymization query writes nothing but its released
 * rows: a SELECT, or an INSERT ... SELECT / CREATE TABLE AS of them, with no
 * data-modifying WITH query beside it.
 */
static void
guard_anonymization_statement(Query *query)
{
	Query	   *inner = anon_dp_utility_query(query->utilityStmt);

	if (inner != NULL)
		query = inner;
	if (query->hasModifyingCTE)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("a data-modifying WITH query cannot run beside an anonymization query of an anonymized role"),
				 errdetail("It could store or show private rows the anonymization query reads."),
				 errhint("Run the data-modifying statement on its own.")));
	if (query->commandType != CMD_SELECT && query->commandType != CMD_INSERT)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("%s with an anonymization query is not allowed for an anonymized role",
						query->commandType == CMD_UPDATE ? "UPDATE" :
						query->commandType == CMD_DELETE ? "DELETE" :
						query->commandType == CMD_MERGE ? "MERGE" : "this statement"),
				 errdetail("An anonymized role writes anonymized results only as new rows."),
				 errhint("Write the released rows with INSERT INTO ... SELECT or CREATE TABLE ... AS SELECT.")));
}

/*
 * EXPLAIN of a statement that reads private rows (an anonymization query,
 * directly or in a view), for a role labelled 'anonymized': the plan the
 * optimizer chooses depends on the statistics of private columns
 * (their histograms hold single users' values), and plans compared as a
 * filter's constant moves reveal them, with nothing run or charged.  A data
 * owner who lowered a session with anon_dp.access_level may look.
 */
static bool reads_private_rows_walker(Node *node, void *context);

/*
 * a view whose definition reads private rows, also in anonymization queries
 * (expanding lists the views in progress: a stored view names itself)
 */
static bool
view_reads_private_rows(Oid viewid, List **expanding)
{
	Relation	view;
	Query	   *definition;
	bool		result;

	if (list_member_oid(*expanding, viewid))
		return false;
	check_stack_depth();
	*expanding = lappend_oid(*expanding, viewid);
	view = relation_open(viewid, AccessShareLock);
	definition = copyObject(get_view_query(view));
	relation_close(view, AccessShareLock);
	result = reads_private_rows_walker((Node *) definition, expanding);
	*expanding = list_delete_last(*expanding);
	return result;
}

static bool
reads_private_rows_walker(Node *node, void *context)
{
	if (node == NULL)
		return false;
	if (IsA(node, Query))
	{
		ListCell   *lc;

		foreach(lc, ((Query *) node)->rtable)
		{
			RangeTblEntry *rte = (RangeTblEntry *) lfirst(lc);

			if (rte->rtekind != RTE_RELATION)
				continue;
			switch (classify_relation(rte->relid))
			{
				case RELATION_PRIVATE:
					return true;
				case RELATION_VIEW:
					if (view_reads_private_rows(rte->relid, (List **) context))
						return true;
					break;
				default:
					break;
			}
		}
		return query_tree_walker((Query *) node, reads_private_rows_walker, context, 0);
	}
	return expression_tree_walker(node, reads_private_rows_walker, context);
}

static void
guard_explained_anonymization(Query *query)
{
	Query	   *explained;
	List	   *expanding = NIL;

	if (query->utilityStmt == NULL || !IsA(query->utilityStmt, ExplainStmt) ||
		!anon_dp_role_is_anonymized(anon_dp_budget_role()))
		return;
	explained = anon_dp_utility_query(query->utilityStmt);
	if (explained == NULL || !reads_private_rows_walker((Node *) explained, &expanding))
		return;
	ereport(ERROR,
			(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
			 errmsg("EXPLAIN of an anonymization query is not allowed for an anonymized role"),
			 errdetail("The plan the optimizer chooses depends on the statistics of private columns, which hold single users' values."),
			 errhint("SELECT * FROM anon_dp_explain('<query>') states what the query releases, its noise and its cost.")));
}

/*
 * Also in a parallel worker: it parses and plans no part of the leader's
 * plan, only statements of its own (a PARALLEL SAFE function's body), which
 * the leader never saw (red team round 12 read xmax and the masked freeze
 * horizons through one).
 */
void
guard_analyzed_statement(Query *query)
{
	guard_context cxt;

	if (!anon_dp_session_is_anonymized())
		return;
	cxt.anonymization_depth = 0;
	cxt.anonymization_found = false;
	answer_empty_probe(query);
	mask_catalog_statistics(query);
	guard_walker((Node *) query, &cxt);
	guard_explained_anonymization(query);
	if (cxt.anonymization_found)
		guard_anonymization_statement(query);
	answer_privilege_questions(query);
}

/* ---- rows that writes of private rows lock ---- */

/*
 * Inserting a private row locks the public row its foreign key references
 * (FOR KEY SHARE) until the writer's transaction ends; a row lock or a
 * write of the analyst's that conflicts with it (FOR UPDATE, with NOWAIT,
 * SKIP LOCKED or a lock_timeout; DELETE; an UPDATE of the key) tells which
 * public row a private row being written references.  An anonymized session
 * neither locks nor updates nor deletes rows of a table (or partition of
 * one) that private rows reference.
 */
static void
refuse_locking_referenced_row(RangeTblEntry *rte, const char *how)
{
	if (rte == NULL || rte->rtekind != RTE_RELATION)
		return;
	if (anon_dp_relation_referenced_by_private_rows(rte->relid))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("an anonymized role cannot %s rows of \"%s\": private rows reference it",
						how, get_rel_name(rte->relid)),
				 errdetail("Writing a private row locks the row its foreign key references until the writer's transaction ends; a lock of yours that waits for it, or skips it, would tell which row that is."),
				 errhint("Read the table without FOR UPDATE or FOR SHARE, and let a role that is not anonymized change it.")));
}

static void
refuse_locks_on_referenced_rows(Query *query)
{
	ListCell   *lc;

	foreach(lc, query->rowMarks)
	{
		RowMarkClause *mark = (RowMarkClause *) lfirst(lc);

		refuse_locking_referenced_row(rt_fetch(mark->rti, query->rtable), "lock");
	}
	if (query->resultRelation > 0 &&
		(query->commandType == CMD_UPDATE || query->commandType == CMD_DELETE ||
		 query->commandType == CMD_MERGE ||
		 (query->onConflict != NULL && query->onConflict->action == ONCONFLICT_UPDATE)))
		refuse_locking_referenced_row(rt_fetch(query->resultRelation, query->rtable),
									  query->commandType == CMD_DELETE ? "delete" : "update");
}

/* ---- the planner's input ---- */

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
				mark_private_inputs(query);
		}
		refuse_locks_on_referenced_rows(query);
		/* what tools read: information_schema, statistics views */
		answer_information_schema(query);
		mask_statistics_view(query);
		mask_activity_functions(query);
		return query_tree_walker(query, plan_guard_walker, context, 0);
	}
	if (IsA(node, Var) && (((Var *) node)->varattno == MaxTransactionIdAttributeNumber ||
						   ((Var *) node)->varattno == MaxCommandIdAttributeNumber))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("system column %s cannot be read by an anonymized role",
						((Var *) node)->varattno == MaxTransactionIdAttributeNumber ? "xmax" : "cmax"),
				 errdetail("A row's xmax holds the transaction that last locked it: inserting a private row locks the public row its foreign key references."),
				 errhint("Select the table's own columns.")));
	for_each_called_function(node, refuse_hidden_builtin_call, NULL);
	return expression_tree_walker(node, plan_guard_walker, context);
}

/*
 * What an anonymization statement calls besides its anonymization queries
 * (views expanded, and the triggers of an INSERT's target): nothing that
 * moves while it runs and no code anon_dp has not vetted (which could read
 * such a thing).  Timed from inside, the statement could read what one
 * user's rows left in the session's caches before the step's end resets them
 * (session_caches.c).
 */
typedef struct timing_code
{
	Oid			moving;			/* a built-in that reads what moves */
	Oid			unvetted;		/* code anon_dp has not vetted */
	bool		sequence;		/* a sequence read as a relation */
} timing_code;

static void
note_timing_code(Oid funcid, void *context)
{
	timing_code *found = (timing_code *) context;

	if (!OidIsValid(found->moving) && session_code_reads_moving_state(funcid))
		found->moving = funcid;
	else if (!OidIsValid(found->unvetted) && session_code_unvetted(funcid))
		found->unvetted = funcid;
}

static bool
timing_code_walker(Node *node, void *context)
{
	if (node == NULL)
		return false;
	if (IsA(node, Query))
	{
		ListCell   *lc;

		foreach(lc, ((Query *) node)->rtable)
			if (((RangeTblEntry *) lfirst(lc))->rtekind == RTE_RELATION &&
				((RangeTblEntry *) lfirst(lc))->relkind == RELKIND_SEQUENCE)
				((timing_code *) context)->sequence = true;
		return query_tree_walker((Query *) node, timing_code_walker, context, 0);
	}
	for_each_called_function(node, note_timing_code, context);
	return expression_tree_walker(node, timing_code_walker, context);
}

/* the triggers of the table an INSERT writes the released rows into */
static void
note_trigger_code(Query *query, timing_code *found)
{
	Relation	relation;
	int			i;

	if (query->commandType != CMD_INSERT || query->resultRelation == 0)
		return;
	relation = table_open(rt_fetch(query->resultRelation, query->rtable)->relid, AccessShareLock);
	for (i = 0; relation->trigdesc != NULL && i < relation->trigdesc->numtriggers; i++)
		note_timing_code(relation->trigdesc->triggers[i].tgfoid, found);
	table_close(relation, AccessShareLock);
}

static void
refuse_timing_code(Query *query)
{
	timing_code found = {InvalidOid, InvalidOid, false};

	timing_code_walker((Node *) query, &found);
	note_trigger_code(query, &found);
	if (OidIsValid(found.moving) || found.sequence)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("a statement with an anonymization query of an anonymized role cannot use %s",
						found.sequence ? "a sequence" : psprintf("%s()", get_func_name(found.moving))),
				 errdetail("It changes while the statement runs, so it would time the statement from inside, which could read what one user's rows left in the session's caches."),
				 errhint("Run it in a statement of its own.")));
	if (OidIsValid(found.unvetted))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("a statement with an anonymization query of an anonymized role cannot call function %s()",
						get_func_name(found.unvetted)),
				 errdetail("Beside an anonymization query run only built-in functions, anon_dp's and functions a superuser vouched for: other code could time the statement from inside."),
				 errhint("Call it in a statement of its own, or ask a superuser to vouch for it (SECURITY LABEL FOR anon_dp ON FUNCTION ... IS 'trusted').")));
}

void
guard_planned_statement(Query *query)
{
	bool		anonymization;

	if (!anon_dp_session_is_anonymized())
		return;
	plan_guard_walker((Node *) query, NULL);

	/*
	 * What reads lent inputs is an anonymization query, possibly one a view
	 * holds as the library of its CREATE VIEW rewrote it: its releases are
	 * charged as this library recognises them, so only with the objects of
	 * this library's version (doc/versioning.md).
	 */
	anonymization = lend_private_inputs(query);
	if (anonymization)
	{
		anon_dp_check_extension_version();
		/* on the calls as written, before SAFE wrappers stand in for them */
		refuse_timing_code(query);
	}
	make_private_calls_safe(query);
	/* what its calls would set up in the session when a row reaches them */
	if (anonymization)
		session_caches_warm(query);
}
