/*
 * utility_guard.c -- utility statements (guard.h).  In every session:
 * privileges of anonymized roles stay fail-closed (privileges.c), one
 * label holds for each inheritance tree (tree_policy.c), and no statement
 * breaks a privacy unit reached through foreign keys (key_policy.c).  In
 * anonymized sessions:
 * EXPLAIN shows no statistics, COPY no private or unlabelled rows, and no
 * rule, policy or unchecked function body is created that would run inside
 * other statements unchecked.
 */
#include "postgres.h"

#include "access/parallel.h"
#include "catalog/namespace.h"
#include "commands/defrem.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"

#include "guard/guard.h"
#include "guard/key_policy.h"
#include "guard/labels.h"
#include "guard/objects.h"
#include "guard/privileges.h"
#include "guard/roles.h"
#include "guard/tree_policy.h"

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
guard_explain(ExplainStmt *explain)
{
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
}

static void
guard_copy(CopyStmt *copy)
{
	Oid			relid;

	if (copy->relation == NULL)
		return;					/* COPY (query): the query is checked like any other */
	relid = RangeVarGetRelid(copy->relation, NoLock, true);
	if (!OidIsValid(relid))
		return;
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
}

/*
 * A table lock on a table that private rows reference waits for (or, with
 * NOWAIT, fails on) the lock a writer's foreign-key check holds: whether a
 * private row referencing it is being written (query_guard.c refuses the
 * row locks that would say which row).
 */
static void
refuse_locking_referenced_tables(List *relations, const char *what)
{
	ListCell   *lc;

	foreach(lc, relations)
	{
		Oid			relid = RangeVarGetRelid((RangeVar *) lfirst(lc), NoLock, true);

		if (OidIsValid(relid) && anon_dp_relation_referenced_by_private_rows(relid))
			ereport(ERROR,
					(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
					 errmsg("an anonymized role cannot %s \"%s\": private rows reference it",
							what, get_rel_name(relid)),
					 errdetail("Writing a private row locks the table its foreign key references until the writer's transaction ends; a lock of yours that waits for it would tell when."),
					 errhint("Let a role that is not anonymized lock or empty the table.")));
	}
}

key_labels *
guard_utility_statement(Node *statement)
{
	key_labels *keys;

	guard_privilege_statement(statement);
	guard_inheritance_statement(statement);
	keys = key_labels_before(statement);
	if (IsParallelWorker() || !anon_dp_session_is_anonymized())
		return keys;
	switch (nodeTag(statement))
	{
		case T_ExplainStmt:
			guard_explain((ExplainStmt *) statement);
			break;
		case T_CopyStmt:
			guard_copy((CopyStmt *) statement);
			break;
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
		case T_CreateForeignTableStmt:
		case T_ImportForeignSchemaStmt:
			refuse_statement(IsA(statement, CreateForeignTableStmt) ?
							 "CREATE FOREIGN TABLE" : "IMPORT FOREIGN SCHEMA",
							 "A foreign table shows the rows of another server, which may be private rows that anon_dp cannot see are private.",
							 "Ask a role that is not anonymized to create the foreign table and label it, or to make it a partition of a private table (doc/scale-out.md).");
			break;
		case T_LockStmt:
			refuse_locking_referenced_tables(((LockStmt *) statement)->relations, "LOCK TABLE");
			break;
		case T_TruncateStmt:
			refuse_locking_referenced_tables(((TruncateStmt *) statement)->relations, "TRUNCATE");
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
	return keys;
}

void
guard_utility_finished(Node *statement, key_labels *keys)
{
	key_labels_after(statement, keys);
}
