/*
 * labels.c -- the "anon_dp" security label provider.
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
#include "guard/roles.h"

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

static bool
privacy_unit_type_allowed(Oid type)
{
	switch (type)
	{
		case INT2OID:
		case INT4OID:
		case INT8OID:
		case TEXTOID:
		case VARCHAROID:
		case UUIDOID:
			return true;
	}
	return false;
}

static void
check_relabel(const ObjectAddress *object, const char *label)
{
	Oid			relid = object->objectId;
	char		relkind;
	char	   *relname;

	anon_dp_check_label_admin();

	if (object->classId == AuthIdRelationId)
	{
		anon_dp_check_role_label(object->objectId, label);
		return;
	}
	if (object->classId == ProcedureRelationId)
	{
		if (label != NULL && strcmp(label, ANON_DP_LABEL_TRUSTED) != 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("invalid anon_dp label \"%s\" for function %s", label,
							format_procedure(object->objectId)),
					 errhint("A function label must be 'trusted': it lets anonymized roles call the function on private rows.")));
		return;
	}
	if (object->classId != RelationRelationId)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("anon_dp labels apply to tables, columns, roles and functions only"),
				 errhint("Write SECURITY LABEL FOR anon_dp ON COLUMN table.column IS 'privacy_unit', ON TABLE table IS 'public', ON ROLE role IS 'anonymized' or ON FUNCTION f(...) IS 'trusted'.")));

	relkind = get_rel_relkind(relid);
	relname = get_rel_name(relid);

	if (label == NULL)
		return;					/* removing a label is always allowed */

	if (object->objectSubId == 0)
	{
		AttrNumber	unit;

		if (strcmp(label, ANON_DP_LABEL_PUBLIC) != 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("invalid anon_dp label \"%s\" for table \"%s\"", label, relname),
					 errhint("A table label must be 'public'; mark a private table by labelling its privacy unit column: SECURITY LABEL FOR anon_dp ON COLUMN %s.<column> IS 'privacy_unit'.",
							 relname)));
		if (relkind != RELKIND_RELATION && relkind != RELKIND_PARTITIONED_TABLE &&
			relkind != RELKIND_MATVIEW && relkind != RELKIND_FOREIGN_TABLE)
			ereport(ERROR,
					(errcode(ERRCODE_WRONG_OBJECT_TYPE),
					 errmsg("cannot label \"%s\" as public: it is not a table", relname),
					 errhint("Label the tables a view reads instead.")));
		unit = anon_dp_privacy_unit_column(relid);
		if (unit != InvalidAttrNumber)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("table \"%s\" cannot be public: column \"%s\" is its privacy unit",
							relname, get_attname(relid, unit, false)),
					 errhint("Remove the column label first: SECURITY LABEL FOR anon_dp ON COLUMN %s.%s IS NULL.",
							 relname, get_attname(relid, unit, false))));
		return;
	}

	/* a column label */
	if (strcmp(label, ANON_DP_LABEL_PRIVACY_UNIT) != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid anon_dp label \"%s\" for column \"%s.%s\"", label, relname,
						get_attname(relid, object->objectSubId, false)),
				 errhint("A column label must be 'privacy_unit'.")));
	if (relkind != RELKIND_RELATION && relkind != RELKIND_PARTITIONED_TABLE)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("cannot label a column of \"%s\" as privacy_unit: it is not a table", relname),
				 errhint("Label the privacy unit column of the underlying table.")));
	{
		Oid			type = get_atttype(relid, object->objectSubId);
		AttrNumber	unit = anon_dp_privacy_unit_column(relid);

		if (!privacy_unit_type_allowed(type))
			ereport(ERROR,
					(errcode(ERRCODE_DATATYPE_MISMATCH),
					 errmsg("column \"%s.%s\" of type %s cannot be a privacy unit",
							relname, get_attname(relid, object->objectSubId, false),
							format_type_be(type)),
					 errhint("A privacy unit column must be smallint, integer, bigint, text, varchar or uuid.")));
		if (unit != InvalidAttrNumber && unit != object->objectSubId)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("table \"%s\" already has privacy unit column \"%s\"",
							relname, get_attname(relid, unit, false)),
					 errhint("A table has one privacy unit column; remove the other label first with IS NULL.")));
		if (anon_dp_relation_is_public(relid))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("table \"%s\" is labelled public and cannot have a privacy unit", relname),
					 errhint("Remove the table label first: SECURITY LABEL FOR anon_dp ON TABLE %s IS NULL.",
							 relname)));
	}
}

void
anon_dp_register_labels(void)
{
	register_label_provider(ANON_DP_LABEL_PROVIDER, check_relabel);
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
