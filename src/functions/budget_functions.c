/*
 * budget_functions.c -- SQL functions of the privacy budget (doc/budget.md):
 * anon_dp_set_budget, anon_dp_reset_budget and anon_dp_budget_status (the
 * rows of the view anon_dp_budget).
 */
#include "postgres.h"

#include <math.h>

#include "fmgr.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/syscache.h"

#include "budget/charge.h"
#include "budget/ledger_store.h"
#include "dp/dp_core.h"
#include "guard/roles.h"
#include "settings.h"

static void
check_budget_admin(const char *function)
{
	if (anon_dp_is_label_admin())
		return;
	ereport(ERROR,
			(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
			 errmsg("permission denied for %s", function),
			 errdetail("Only superusers and members of anon_dp.label_admin_role, in a session that is not anonymized, may change privacy budgets."),
			 errhint("Ask the data owner.")));
}

static Oid
budget_role(FunctionCallInfo fcinfo, const char *function)
{
	Oid			role;

	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("role of %s must not be NULL", function),
				 errhint("Name the role: %s('analyst', ...).", function)));
	role = PG_GETARG_OID(0);
	if (!SearchSysCacheExists1(AUTHOID, ObjectIdGetDatum(role)))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("role with OID %u does not exist", role)));
	return role;
}

static double
budget_amount(FunctionCallInfo fcinfo, int argno, const char *name, double max)
{
	double		value;

	if (PG_ARGISNULL(argno))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("%s of anon_dp_set_budget must not be NULL", name),
				 errhint("Write a number between 0 and %.15g.", max)));
	value = PG_GETARG_FLOAT8(argno);
	if (!(value >= 0.0 && value <= max))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s of anon_dp_set_budget must lie between 0 and %.15g, not %g", name, max, value),
				 errhint("A budget is the total %s an anonymized role may spend in this database.", name)));
	return value;
}

PG_FUNCTION_INFO_V1(anon_dp_set_budget);
Datum
anon_dp_set_budget(PG_FUNCTION_ARGS)
{
	Oid			role;
	double		epsilon;
	double		delta;

	check_budget_admin("anon_dp_set_budget");
	role = budget_role(fcinfo, "anon_dp_set_budget");
	epsilon = budget_amount(fcinfo, 1, "epsilon", DP_EPSILON_MAX);
	delta = budget_amount(fcinfo, 2, "delta", 1.0);
	ledger_store_set_budget(role, epsilon, delta);
	PG_RETURN_VOID();
}

PG_FUNCTION_INFO_V1(anon_dp_reset_budget);
Datum
anon_dp_reset_budget(PG_FUNCTION_ARGS)
{
	Oid			role;

	check_budget_admin("anon_dp_reset_budget");
	role = budget_role(fcinfo, "anon_dp_reset_budget");
	ledger_store_reset_budget(role);
	PG_RETURN_VOID();
}

/*
 * An administrator sees every role; anyone else the budgets its statements
 * are charged to: its budget role's and its groups'.  The releases that fit
 * are those of the session's last anonymization statement, at its current
 * settings.
 */
PG_FUNCTION_INFO_V1(anon_dp_budget_status);
Datum
anon_dp_budget_status(PG_FUNCTION_ARGS)
{
	ledger_session session = ledger_current_session(anon_dp_is_label_admin() ?
													InvalidOid : anon_dp_budget_role());
	dp_charge_cost last;
	bool		known = budget_last_statement_cost(&last);

	ledger_store_budget_rows(fcinfo, &session, known ? &last : NULL);
	return (Datum) 0;
}
