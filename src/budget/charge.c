/*
 * charge.c -- caps and charges of an anonymized session's statement
 * (charge.h): the ExecutorStart step of the privacy budget.
 */
#include "postgres.h"

#include "access/parallel.h"
#include "executor/executor.h"
#include "miscadmin.h"

#include "budget/charge.h"
#include "budget/ledger.h"
#include "budget/releases.h"
#include "catalog.h"
#include "guard/roles.h"
#include "settings.h"

/* floating-point sums of epsilon shares may exceed their total by rounding */
#define CAP_TOLERANCE (1.0 + 1e-9)

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
					 errhint("SET anon_dp.epsilon = %g or less (a view over an anonymization query keeps the epsilon of its CREATE VIEW).",
							 anon_dp_max_epsilon)));
		if (r->delta > anon_dp_max_delta * CAP_TOLERANCE)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("an anonymization query of this statement uses delta %g, more than anon_dp.max_delta = %g",
							r->delta, anon_dp_max_delta),
					 errdetail("The data owner limits the delta of each anonymization query of an anonymized role."),
					 errhint("SET anon_dp.delta = %g or less (a view over an anonymization query keeps the delta of its CREATE VIEW).",
							 anon_dp_max_delta)));
	}
}

void
budget_charge_statement(QueryDesc *queryDesc, int eflags)
{
	List	   *releases;
	const char *refused;
	ledger_charge_request request = {0};
	ListCell   *lc;

	/* only anonymized sessions are charged: the plan is walked for them alone */
	if (IsParallelWorker() || (eflags & EXEC_FLAG_EXPLAIN_ONLY) ||
		queryDesc->planstate == NULL || !anon_dp_session_is_anonymized() ||
		!OidIsValid(anon_dp_extension()))
		return;
	releases = statement_releases(queryDesc, &refused);
	if (releases == NIL && refused == NULL)
		return;
	if (refused != NULL)
		refuse_release_plan(refused);
	check_caps(releases);
	foreach(lc, releases)
	{
		release    *r = (release *) lfirst(lc);

		request.epsilon += r->epsilon;
		request.delta += r->delta;
		request.releases++;
	}
	request.role = anon_dp_budget_role();
	/* PostgreSQL's query id when compute_query_id asks for one (pg_stat_statements) */
	request.query_id = (int64) queryDesc->plannedstmt->queryId;
	request.statement = queryDesc->sourceText;
	ledger_charge(&request);
	watch_releases(releases);
}
