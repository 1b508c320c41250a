/*
 * catalog_visibility.c -- what an anonymized role sees of relations in the
 * catalogs (src/guard/catalog_masking.c, src/guard/statistics_views.c,
 * src/guard/discovery.c):
 *
 *   anon_dp_statistics_visible(oid): whether it may see the size
 *       statistics of a relation;
 *   anon_dp_masked_size(which, rel, fork): the size function `which` of
 *       PostgreSQL (pg_relation_size, pg_total_relation_size, pg_table_size,
 *       pg_indexes_size) for a relation it may see, NULL for the others;
 *   anon_dp_masked_statistic(counter, rel, NULL::type): the pg_stat_get_*
 *       counter of a relation it may see, NULL for the others (statistics
 *       views);
 *   anon_dp_queryable(oid, text): whether it may SELECT from the relation
 *       through anonymization queries (has_*_privilege of anonymized
 *       sessions; false in other sessions).
 *
 * The masked size and statistic call PostgreSQL's functions directly, not
 * through the function manager: anonymized sessions may not call them by
 * OID at all (src/guard/hidden_builtins.h), since a function body, a
 * constraint or a default would call them unmasked.
 */
#include "postgres.h"

#include "fmgr.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/lsyscache.h"
#include "utils/regproc.h"

#include "guard/catalog_masking.h"
#include "guard/discovery.h"
#include "guard/roles.h"

PG_FUNCTION_INFO_V1(anon_dp_statistics_visible);
Datum
anon_dp_statistics_visible(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(relation_statistics_visible(PG_GETARG_OID(0)));
}

/*
 * A built-in called directly with the relation (and a fork, for the sizes),
 * not through the function manager; its NULL stays NULL.
 */
static Datum
call_directly(FunctionCallInfo fcinfo, PGFunction function, Oid relid, Datum fork)
{
	LOCAL_FCINFO(call, 2);
	Datum		result;

	InitFunctionCallInfoData(*call, NULL, 2, InvalidOid, NULL, NULL);
	call->args[0].value = ObjectIdGetDatum(relid);
	call->args[0].isnull = false;
	call->args[1].value = fork;
	call->args[1].isnull = false;
	result = function(call);
	if (call->isnull)
		PG_RETURN_NULL();
	return result;
}

/* anon_dp_masked_size(which int4, rel regclass, fork text): bigint or NULL */
PG_FUNCTION_INFO_V1(anon_dp_masked_size);
Datum
anon_dp_masked_size(PG_FUNCTION_ARGS)
{
	PGFunction	size;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
		PG_RETURN_NULL();
	switch (PG_GETARG_INT32(0))
	{
		case MASKED_RELATION_SIZE:
			size = pg_relation_size;
			break;
		case MASKED_TOTAL_RELATION_SIZE:
			size = pg_total_relation_size;
			break;
		case MASKED_TABLE_SIZE:
			size = pg_table_size;
			break;
		case MASKED_INDEXES_SIZE:
			size = pg_indexes_size;
			break;
		default:
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("anon_dp_masked_size: no size function %d", PG_GETARG_INT32(0)),
					 errhint("anon_dp_masked_size is placed by anon_dp's catalog masking; call pg_relation_size and its siblings directly.")));
	}
	if (!relation_statistics_visible(PG_GETARG_OID(1)))
		PG_RETURN_NULL();
	return call_directly(fcinfo, size, PG_GETARG_OID(1),
						 PG_ARGISNULL(2) ? CStringGetTextDatum("main") : PG_GETARG_DATUM(2));
}

/* anon_dp_masked_statistic(counter oid, rel oid, type anyelement): the counter or NULL */
PG_FUNCTION_INFO_V1(anon_dp_masked_statistic);
Datum
anon_dp_masked_statistic(PG_FUNCTION_ARGS)
{
	PGFunction	counter;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
		PG_RETURN_NULL();
	counter = shown_relation_counter(PG_GETARG_OID(0));
	if (counter == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("anon_dp_masked_statistic: %s is not a counter anon_dp shows",
						format_procedure(PG_GETARG_OID(0))),
				 errhint("anon_dp_masked_statistic is placed by anon_dp's masking of the statistics views; read the views or call the pg_stat_get_* functions directly.")));
	if (get_fn_expr_rettype(fcinfo->flinfo) != get_func_rettype(PG_GETARG_OID(0)))
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("anon_dp_masked_statistic: the third argument must have the type of the counter's result")));
	if (!relation_statistics_visible(PG_GETARG_OID(1)))
		PG_RETURN_NULL();
	return call_directly(fcinfo, counter, PG_GETARG_OID(1), (Datum) 0);
}

PG_FUNCTION_INFO_V1(anon_dp_queryable);
Datum
anon_dp_queryable(PG_FUNCTION_ARGS)
{
	Oid			relid = PG_GETARG_OID(0);
	char	   *privileges = text_to_cstring(PG_GETARG_TEXT_PP(1));

	PG_RETURN_BOOL(anon_dp_session_is_anonymized() && privilege_list_asks_select(privileges) &&
				   relation_is_queryable(relid));
}
