/*
 * failure_functions.c -- SQL functions over the failed anonymization
 * statements of roles (src/guard/failures.h, doc/access.md §5):
 *
 *   anon_dp_failed_statements(role): how many failed in this database
 *       since the server started or the count was reset;
 *   anon_dp_reset_failures(role): back to 0 (data owners only), which lifts
 *       a suspension by anon_dp.max_failed_statements.
 */
#include "postgres.h"

#include "fmgr.h"
#include "utils/syscache.h"

#include "guard/failures.h"
#include "guard/roles.h"

static Oid
existing_role(FunctionCallInfo fcinfo, const char *function)
{
	Oid			role;

	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("role of %s must not be NULL", function),
				 errhint("Name the role: %s('analyst').", function)));
	role = PG_GETARG_OID(0);
	if (!SearchSysCacheExists1(AUTHOID, ObjectIdGetDatum(role)))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("role with OID %u does not exist", role)));
	return role;
}

PG_FUNCTION_INFO_V1(anon_dp_failed_statements);
Datum
anon_dp_failed_statements(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT32(failures_of(existing_role(fcinfo, "anon_dp_failed_statements")));
}

PG_FUNCTION_INFO_V1(anon_dp_reset_failures);
Datum
anon_dp_reset_failures(PG_FUNCTION_ARGS)
{
	Oid			role = existing_role(fcinfo, "anon_dp_reset_failures");

	if (!anon_dp_is_label_admin())
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied for anon_dp_reset_failures"),
				 errdetail("Only superusers and members of anon_dp.label_admin_role, in a session that is not anonymized, may reset the count of failed statements."),
				 errhint("Ask the data owner.")));
	failures_reset(role);
	PG_RETURN_VOID();
}
