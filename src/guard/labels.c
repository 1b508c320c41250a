/*
 * labels.c -- reading anon_dp security labels (labels.h); who may set
 * which label is label_policy.c.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/objectaddress.h"
#include "catalog/pg_attribute.h"
#include "catalog/pg_authid.h"
#include "catalog/pg_proc.h"
#include "utils/regproc.h"
#include "catalog/pg_class.h"
#include "catalog/pg_type.h"
#include "commands/seclabel.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/syscache.h"

#include "guard/labels.h"

static char *
relation_label(Oid relid, int32 attnum)
{
	ObjectAddress object;

	object.classId = RelationRelationId;
	object.objectId = relid;
	object.objectSubId = attnum;
	return GetSecurityLabel(&object, ANON_DP_LABEL_PROVIDER);
}

AttrNumber
anon_dp_privacy_unit_column(Oid relid)
{
	HeapTuple	tuple = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	int16		natts;
	AttrNumber	attnum;

	if (!HeapTupleIsValid(tuple))
		return InvalidAttrNumber;
	natts = ((Form_pg_class) GETSTRUCT(tuple))->relnatts;
	ReleaseSysCache(tuple);

	for (attnum = 1; attnum <= natts; attnum++)
	{
		char	   *label = relation_label(relid, attnum);

		if (label && strcmp(label, ANON_DP_LABEL_PRIVACY_UNIT) == 0)
			return attnum;
	}
	return InvalidAttrNumber;
}

bool
anon_dp_relation_is_public(Oid relid)
{
	char	   *label = relation_label(relid, 0);

	return label && strcmp(label, ANON_DP_LABEL_PUBLIC) == 0;
}

bool
anon_dp_function_is_trusted(Oid funcid)
{
	ObjectAddress object;
	char	   *label;

	object.classId = ProcedureRelationId;
	object.objectId = funcid;
	object.objectSubId = 0;
	label = GetSecurityLabel(&object, ANON_DP_LABEL_PROVIDER);
	return label != NULL && strcmp(label, ANON_DP_LABEL_TRUSTED) == 0;
}

bool
anon_dp_role_is_anonymized(Oid roleid)
{
	ObjectAddress object;
	char	   *label;

	if (!OidIsValid(roleid))
		return false;
	object.classId = AuthIdRelationId;
	object.objectId = roleid;
	object.objectSubId = 0;
	label = GetSecurityLabel(&object, ANON_DP_LABEL_PROVIDER);
	return label != NULL && strcmp(label, ANON_DP_LABEL_ANONYMIZED) == 0;
}
