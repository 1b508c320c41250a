/*
 * catalog_visibility.c -- what an anonymized role may see of a relation's
 * size (src/guard/catalog_masking.c):
 *
 *   anon_dp_statistics_visible(oid): whether it may see its statistics;
 *   anon_dp_masked_size(which, rel, fork): the size function `which` of
 *       PostgreSQL (pg_relation_size, pg_total_relation_size, pg_table_size,
 *       pg_indexes_size) for a relation it may see, NULL for the others.
 *
 * The masked size calls PostgreSQL's size functions directly, not through
 * the function manager: anonymized sessions may not call them by OID at all
 * (src/guard/hidden_builtins.h), since a function body, a constraint or a
 * default would call them unmasked.
 */
#include "postgres.h"

#include "fmgr.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"

#include "guard/catalog_masking.h"

PG_FUNCTION_INFO_V1(anon_dp_statistics_visible);
Datum
anon_dp_statistics_visible(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(relation_statistics_visible(PG_GETARG_OID(0)));
}

/* anon_dp_masked_size(which int4, rel regclass, fork text): bigint or NULL */
PG_FUNCTION_INFO_V1(anon_dp_masked_size);
Datum
anon_dp_masked_size(PG_FUNCTION_ARGS)
{
	LOCAL_FCINFO(size_call, 2);
	Oid			relid;
	Datum		result;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
		PG_RETURN_NULL();
	relid = PG_GETARG_OID(1);
	if (!relation_statistics_visible(relid))
		PG_RETURN_NULL();
	InitFunctionCallInfoData(*size_call, NULL, 2, InvalidOid, NULL, NULL);
	size_call->args[0].value = ObjectIdGetDatum(relid);
	size_call->args[0].isnull = false;
	size_call->args[1].value = PG_ARGISNULL(2) ? CStringGetTextDatum("main") : PG_GETARG_DATUM(2);
	size_call->args[1].isnull = false;
	switch (PG_GETARG_INT32(0))
	{
		case MASKED_RELATION_SIZE:
			result = pg_relation_size(size_call);
			break;
		case MASKED_TOTAL_RELATION_SIZE:
			result = pg_total_relation_size(size_call);
			break;
		case MASKED_TABLE_SIZE:
			result = pg_table_size(size_call);
			break;
		case MASKED_INDEXES_SIZE:
			result = pg_indexes_size(size_call);
			break;
		default:
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("anon_dp_masked_size: no size function %d", PG_GETARG_INT32(0)),
					 errhint("anon_dp_masked_size is placed by anon_dp's catalog masking; call pg_relation_size and its siblings directly.")));
	}
	if (size_call->isnull)
		PG_RETURN_NULL();
	return result;
}
