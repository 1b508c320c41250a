/*
 * catalog_visibility.c -- anon_dp_statistics_visible(oid): whether an
 * anonymized role may see the size statistics of a relation
 * (src/guard/catalog_masking.c).
 */
#include "postgres.h"

#include "fmgr.h"

#include "guard/catalog_masking.h"

PG_FUNCTION_INFO_V1(anon_dp_statistics_visible);
Datum
anon_dp_statistics_visible(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(relation_statistics_visible(PG_GETARG_OID(0)));
}
