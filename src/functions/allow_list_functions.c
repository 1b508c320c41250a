/*
 * allow_list_functions.c -- anon_dp_allow_list(): the reviewed list of
 * built-in functions and types that may see private values inside the
 * anonymization queries of anonymized roles (src/guard/allowed_builtins.h),
 * one row per entry, for analysts, DBAs and sql/allow_list_catalog.sql.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "fmgr.h"
#include "funcapi.h"
#include "utils/array.h"
#include "utils/builtins.h"

#include "guard/allowed_builtins.h"

PG_FUNCTION_INFO_V1(anon_dp_allow_list);

static const char *
constant_reason_name(allow_constant_reason reason)
{
	switch (reason)
	{
		case ALLOW_CONSTANT_SIZE:
			return "size";
		case ALLOW_CONSTANT_PATTERN:
			return "pattern";
		case ALLOW_CONSTANT_FORMAT:
			return "format";
		case ALLOW_CONSTANT_ZONE:
			return "time zone";
		case ALLOW_CONSTANT_NONE:
			break;
	}
	return NULL;
}

/* the positions of ARG(n) bits, as int4[] (empty when none) */
static Datum
constant_positions(uint32 mask)
{
	Datum		positions[32];
	int			count = 0;
	int			n;

	for (n = 1; n <= 32; n++)
		if (mask & ARG(n))
			positions[count++] = Int32GetDatum(n);
	return PointerGetDatum(construct_array(positions, count, INT4OID, sizeof(int32), true,
										   TYPALIGN_INT));
}

static void
add_functions(ReturnSetInfo *rsinfo, const allowed_builtin *entries, int count)
{
	int			i;

	for (i = 0; i < count; i++)
	{
		const allowed_builtin *entry = &entries[i];
		const char *reason = constant_reason_name(entry->constant_reason);
		Datum		values[6];
		bool		nulls[6] = {false, false, false, false, false, reason == NULL};

		values[0] = CStringGetTextDatum("function");
		values[1] = ObjectIdGetDatum(entry->oid);
		values[2] = CStringGetTextDatum(entry->signature);
		values[3] = CStringGetTextDatum(allow_category_name(entry->category));
		values[4] = constant_positions(entry->constant_args);
		values[5] = reason != NULL ? CStringGetTextDatum(reason) : (Datum) 0;
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
}

/* anon_dp_allow_list(OUT kind, OUT object, OUT signature, OUT category, OUT constant_arguments, OUT constant_reason) */
Datum
anon_dp_allow_list(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	const allowed_type *types;
	int			count;
	int			i;

	InitMaterializedSRF(fcinfo, 0);
	add_functions(rsinfo, allowed_numeric_functions, allowed_numeric_function_count);
	add_functions(rsinfo, allowed_value_functions, allowed_value_function_count);
	types = allowed_types(&count);
	for (i = 0; i < count; i++)
	{
		Datum		values[6];
		bool		nulls[6] = {false, false, false, false, false, true};

		values[0] = CStringGetTextDatum("type");
		values[1] = ObjectIdGetDatum(types[i].oid);
		values[2] = CStringGetTextDatum(types[i].name);
		values[3] = CStringGetTextDatum(allow_category_name(types[i].category));
		values[4] = constant_positions(0);
		values[5] = (Datum) 0;
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}
