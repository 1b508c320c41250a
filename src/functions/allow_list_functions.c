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
		case ALLOW_CONSTANT_SYNTAX:
			return "syntax";
		case ALLOW_CONSTANT_NONE:
			break;
	}
	return "";
}

/* the arguments that must be constants, in order, and the reason of each */
static void
constant_arguments(const allow_constant *constants, Datum *positions_array, Datum *reasons_array)
{
	Datum		positions[32];
	Datum		reasons[32];
	int			count = 0;
	int			n;
	int			i;

	for (n = 1; n <= 32; n++)
		for (i = 0; constants != NULL && i < ALLOW_MAX_CONSTANT_REASONS; i++)
			if (constants[i].args & ARG(n))
			{
				positions[count] = Int32GetDatum(n);
				reasons[count++] = CStringGetTextDatum(constant_reason_name(constants[i].reason));
			}
	*positions_array = PointerGetDatum(construct_array(positions, count, INT4OID, sizeof(int32),
													   true, TYPALIGN_INT));
	*reasons_array = PointerGetDatum(construct_array(reasons, count, TEXTOID, -1, false,
													 TYPALIGN_INT));
}

static void
add_row(ReturnSetInfo *rsinfo, const char *kind, Oid object, const char *signature,
		allow_category category, const allow_constant *constants)
{
	Datum		values[6];
	bool		nulls[6] = {false, false, false, false, false, false};

	values[0] = CStringGetTextDatum(kind);
	values[1] = ObjectIdGetDatum(object);
	values[2] = CStringGetTextDatum(signature);
	values[3] = CStringGetTextDatum(allow_category_name(category));
	constant_arguments(constants, &values[4], &values[5]);
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
}

/* anon_dp_allow_list(OUT kind, OUT object, OUT signature, OUT category, OUT constant_arguments, OUT constant_reasons) */
Datum
anon_dp_allow_list(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	const allowed_type *types;
	int			count;
	int			i;

	InitMaterializedSRF(fcinfo, 0);
	for (i = 0; i < allowed_numeric_function_count; i++)
		add_row(rsinfo, "function", allowed_numeric_functions[i].oid,
				allowed_numeric_functions[i].signature, allowed_numeric_functions[i].category,
				allowed_numeric_functions[i].constants);
	for (i = 0; i < allowed_value_function_count; i++)
		add_row(rsinfo, "function", allowed_value_functions[i].oid,
				allowed_value_functions[i].signature, allowed_value_functions[i].category,
				allowed_value_functions[i].constants);
	types = allowed_types(&count);
	for (i = 0; i < count; i++)
		add_row(rsinfo, "type", types[i].oid, types[i].name, types[i].category, NULL);
	return (Datum) 0;
}
