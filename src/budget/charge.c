/*
 * charge.c -- caps and charges of an anonymized session's statement
 * (charge.h): the ExecutorStart step of the privacy budget.
 */
#include "postgres.h"

#include "access/parallel.h"
#include "access/relation.h"
#include "catalog/pg_class.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "rewrite/rewriteHandler.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

#include "budget/charge.h"
#include "budget/ledger.h"
#include "budget/releases.h"
#include "budget/statement_cost.h"
#include "catalog.h"
#include "guard/roles.h"
#include "settings.h"

/* floating-point sums of epsilon shares may exceed their total by rounding */
#define CAP_TOLERANCE (1.0 + 1e-9)

/*
 * The session's last charged statement: its cost, the settings generation it
 * was planned under, and its text (TopMemoryContext), for the releases of
 * its kind that still fit (anon_dp_budget).
 */
static struct
{
	bool		known;
	dp_charge_cost cost;
	uint64		generation;
	char	   *text;
}			last_statement;

static void
check_caps(List *releases)
{
	ListCell   *lc;

	foreach(lc, releases)
	{
		release    *r = (release *) lfirst(lc);

		if (r->epsilon > anon_dp_max_epsilon * CAP_TOLERANCE)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("an anonymization query of this statement uses epsilon %g, more than anon_dp.max_epsilon = %g",
							r->epsilon, anon_dp_max_epsilon),
					 errdetail("The data owner limits the epsilon of each anonymization query of an anonymized role."),
					 errhint("SET anon_dp.epsilon = %g or less.", anon_dp_max_epsilon)));
		if (r->delta > anon_dp_max_delta * CAP_TOLERANCE)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("an anonymization query of this statement uses delta %g, more than anon_dp.max_delta = %g",
							r->delta, anon_dp_max_delta),
					 errdetail("The data owner limits the delta of each anonymization query of an anonymized role."),
					 errhint("SET anon_dp.delta = %g or less.", anon_dp_max_delta)));
	}
}

/* a noise-drawing call stored in a view's query */
static bool
stored_release_walker(Node *node, void *context)
{
	anon_dp_release_args args;

	if (node == NULL)
		return false;
	if (IsA(node, Aggref))
		return anon_dp_release_arguments(((Aggref *) node)->aggfnoid, &args);
	if (IsA(node, Query))
		return query_tree_walker((Query *) node, stored_release_walker, context, 0);
	return expression_tree_walker(node, stored_release_walker, context);
}

/*
 * Views read at the reader's settings or not at all: a view whose stored
 * query was anonymized when it was created (by anon_dp 1.0, or by a rule
 * written by hand) would release noise at its creator's epsilon and delta.
 * Views anon_dp 1.1 creates keep their ANON_* calls and are anonymized for
 * each reader (src/anonymizer/view_expansion.c).
 */
static void
refuse_stored_releases(PlannedStmt *planned)
{
	ListCell   *lc;

	foreach(lc, planned->rtable)
	{
		RangeTblEntry *rte = (RangeTblEntry *) lfirst(lc);
		Relation	view;
		bool		stored;

		if (rte->rtekind != RTE_RELATION || rte->relkind != RELKIND_VIEW)
			continue;
		view = relation_open(rte->relid, AccessShareLock);
		stored = stored_release_walker((Node *) get_view_query(view), NULL);
		relation_close(view, AccessShareLock);
		if (stored)
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("view \"%s\" holds an anonymization query anonymized when the view was created",
							get_rel_name(rte->relid)),
					 errdetail("It would release noise at its creator's epsilon and delta; views over anonymization queries are read at the reader's settings (anon_dp 1.1) or not at all."),
					 errhint("Ask the view's owner to create it again from its ANON_* query: CREATE OR REPLACE VIEW ... AS SELECT ... ANON_...")));
	}
}

/* the statement's own text within a string of several */
static char *
statement_text(QueryDesc *queryDesc)
{
	const char *source = queryDesc->sourceText ? queryDesc->sourceText : "";
	int			location = queryDesc->plannedstmt->stmt_location;
	int			length = queryDesc->plannedstmt->stmt_len;

	if (location < 0 || location > (int) strlen(source))
		return pstrdup(source);
	if (length <= 0)
		return pstrdup(source + location);
	return pnstrdup(source + location, length);
}

static void
remember_statement(QueryDesc *queryDesc, const dp_charge_cost *cost)
{
	MemoryContext old = MemoryContextSwitchTo(TopMemoryContext);

	if (last_statement.text != NULL)
		pfree(last_statement.text);
	last_statement.text = statement_text(queryDesc);
	MemoryContextSwitchTo(old);
	last_statement.cost = *cost;
	last_statement.generation = anon_dp_settings_generation;
	last_statement.known = true;
}

bool
budget_last_statement_cost(dp_charge_cost *cost)
{
	int			releases;

	if (!last_statement.known)
		return false;
	if (last_statement.generation == anon_dp_settings_generation)
	{
		*cost = last_statement.cost;
		return true;
	}
	/* the settings changed since: its cost now, if it is a SELECT to plan again */
	return statement_text_cost(last_statement.text, cost, &releases) && releases > 0;
}

/* a NOTICE when the charge left less than anon_dp.budget_notice of a budget */
static void
notice_low_budget(const ledger_budget_answer *answer)
{
	double		left_epsilon = Max(answer->budget_epsilon - answer->spent_epsilon, 0.0);
	double		left_delta = Max(answer->budget_delta - answer->spent_delta, 0.0);

	if (!OidIsValid(answer->role) || !(anon_dp_budget_notice > 0.0))
		return;
	if (!(left_epsilon < anon_dp_budget_notice * answer->budget_epsilon ||
		  left_delta < anon_dp_budget_notice * answer->budget_delta))
		return;
	ereport(NOTICE,
			(errmsg("role \"%s\" has little privacy budget left: epsilon %g and delta %g of %g and %g remain",
					GetUserNameFromId(answer->role, false), left_epsilon, left_delta,
					answer->budget_epsilon, answer->budget_delta),
			 errdetail_plural("%.0f more statement like this one fits (the data owner asks to be told below %g %% of the budget).",
							  "%.0f more statements like this one fit (the data owner asks to be told below %g %% of the budget).",
							  answer->fits == 1.0 ? 1 : 2,
							  answer->fits, 100.0 * anon_dp_budget_notice),
			 errhint("SELECT * FROM anon_dp_budget shows the budgets; ask the data owner for more (anon_dp_set_budget) before it runs out.")));
}

void
budget_charge_statement(QueryDesc *queryDesc, int eflags)
{
	List	   *releases;
	const char *refused;
	ledger_charge_request request = {0};
	ledger_budget_answer answer;

	/* only anonymized sessions are charged: the plan is walked for them alone */
	if (IsParallelWorker() || (eflags & EXEC_FLAG_EXPLAIN_ONLY) ||
		queryDesc->planstate == NULL || !anon_dp_session_is_anonymized() ||
		!OidIsValid(anon_dp_extension()))
		return;
	releases = statement_releases(queryDesc, &refused);
	if (releases == NIL && refused == NULL)
		return;
	refuse_stored_releases(queryDesc->plannedstmt);
	if (refused != NULL)
		refuse_release_plan(refused);
	check_caps(releases);
	request.cost = releases_cost(releases);
	request.releases = list_length(releases);
	request.role = anon_dp_budget_role();
	/* PostgreSQL's query id when compute_query_id asks for one (pg_stat_statements) */
	request.query_id = (int64) queryDesc->plannedstmt->queryId;
	request.statement = queryDesc->sourceText;
	ledger_charge(&request, &answer);
	watch_releases(releases);
	remember_statement(queryDesc, &request.cost);
	notice_low_budget(&answer);
}
