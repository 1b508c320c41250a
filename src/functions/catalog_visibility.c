/*
 * catalog_visibility.c -- what an anonymized role sees of relations in the
 * catalogs (src/guard/catalog_masking.c, src/guard/discovery.c):
 *
 *   anon_dp_statistics_visible(oid)   whether it may see the size
 *                                     statistics of a relation
 *   anon_dp_visible_relation(oid)     the relation, or NULL when its
 *                                     statistics are masked (the argument of
 *                                     pg_stat_get_*() in statistics views)
 *   anon_dp_queryable(oid, text)      whether it may SELECT from the
 *                                     relation through anonymization queries
 *                                     (has_*_privilege of anonymized sessions)
 *
 * The last two answer as PostgreSQL does (the relation; false) in a session
 * that is not anonymized.
 */
#include "postgres.h"

#include "fmgr.h"
#include "utils/builtins.h"

#include "guard/catalog_masking.h"
#include "guard/discovery.h"
#include "guard/roles.h"

PG_FUNCTION_INFO_V1(anon_dp_statistics_visible);
Datum
anon_dp_statistics_visible(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(relation_statistics_visible(PG_GETARG_OID(0)));
}

PG_FUNCTION_INFO_V1(anon_dp_visible_relation);
Datum
anon_dp_visible_relation(PG_FUNCTION_ARGS)
{
	Oid			relid = PG_GETARG_OID(0);

	if (anon_dp_session_is_anonymized() && !relation_statistics_visible(relid))
		PG_RETURN_NULL();
	PG_RETURN_OID(relid);
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
