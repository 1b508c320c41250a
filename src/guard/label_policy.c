/*
 * label_policy.c -- the check hook of the "anon_dp" security label provider
 * (label_policy.h).  Only label administrators change labels (roles.c); each
 * kind of object takes one label, a table is either public or private, and
 * so is its whole inheritance tree (tree_policy.c).
 */
#include "postgres.h"

#include "catalog/objectaddress.h"
#include "catalog/pg_authid.h"
#include "catalog/pg_class.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "commands/seclabel.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/regproc.h"

#include "guard/label_cache.h"
#include "guard/label_names.h"
#include "guard/label_policy.h"
#include "guard/label_trees.h"
#include "guard/roles.h"
#include "guard/tree_policy.h"

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
check_function_label(Oid funcid, const char *label)
{
	if (label != NULL && strcmp(label, ANON_DP_LABEL_TRUSTED) != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid anon_dp label \"%s\" for function %s", label,
						format_procedure(funcid)),
				 errhint("A function label must be 'trusted': it lets anonymized roles call the function on private rows.")));
}

/* 'public' on a table that has no privacy unit */
static void
check_table_label(Oid relid, const char *label)
{
	char		relkind = get_rel_relkind(relid);
	char	   *relname = get_rel_name(relid);
	bool		is_public;
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
	relation_own_labels(relid, &is_public, &unit);
	if (unit != InvalidAttrNumber)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("table \"%s\" cannot be public: column \"%s\" is its privacy unit",
						relname, get_attname(relid, unit, false)),
				 errhint("Remove the column label first: SECURITY LABEL FOR anon_dp ON COLUMN %s.%s IS NULL.",
						 relname, get_attname(relid, unit, false))));
}

/* 'privacy_unit' on one column of a type that identifies users, of a table that is not public */
static void
check_column_label(Oid relid, AttrNumber attnum, const char *label)
{
	char		relkind = get_rel_relkind(relid);
	char	   *relname = get_rel_name(relid);
	char	   *column = get_attname(relid, attnum, false);
	Oid			type = get_atttype(relid, attnum);
	bool		is_public;
	AttrNumber	unit;

	if (strcmp(label, ANON_DP_LABEL_PRIVACY_UNIT) != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid anon_dp label \"%s\" for column \"%s.%s\"", label, relname, column),
				 errhint("A column label must be 'privacy_unit'.")));
	if (relkind != RELKIND_RELATION && relkind != RELKIND_PARTITIONED_TABLE)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("cannot label a column of \"%s\" as privacy_unit: it is not a table", relname),
				 errhint("Label the privacy unit column of the underlying table.")));
	if (!privacy_unit_type_allowed(type))
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("column \"%s.%s\" of type %s cannot be a privacy unit",
						relname, column, format_type_be(type)),
				 errhint("A privacy unit column must be smallint, integer, bigint, text, varchar or uuid.")));
	check_tree_label_closing(relid, attnum, label);
	relation_own_labels(relid, &is_public, &unit);
	if (unit != InvalidAttrNumber && unit != attnum)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("table \"%s\" already has privacy unit column \"%s\"",
						relname, get_attname(relid, unit, false)),
				 errhint("A table has one privacy unit column; remove the other label first with IS NULL.")));
	if (is_public)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("table \"%s\" is labelled public and cannot have a privacy unit", relname),
				 errhint("Remove the table label first: SECURITY LABEL FOR anon_dp ON TABLE %s IS NULL.",
						 relname)));
}

/* whether the label may be set: label is NULL when the label is removed */
static void
check_label(const ObjectAddress *object, const char *label)
{
	switch (object->classId)
	{
		case AuthIdRelationId:
			anon_dp_check_role_label(object->objectId, label);
			return;
		case ProcedureRelationId:
			check_function_label(object->objectId, label);
			return;
		case RelationRelationId:
			if (label == NULL)
			{
				/* removing 'public' closes the table (and its tree) to analysts */
				check_tree_label_closing(object->objectId, object->objectSubId, NULL);
				return;
			}
			if (object->objectSubId == 0)
				check_table_label(object->objectId, label);
			else
				check_column_label(object->objectId, object->objectSubId, label);
			/* one label for the whole inheritance tree */
			check_tree_label_conflict(object->objectId, object->objectSubId, label);
			return;
		default:
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("anon_dp labels apply to tables, columns, roles and functions only"),
					 errhint("Write SECURITY LABEL FOR anon_dp ON COLUMN table.column IS 'privacy_unit', ON TABLE table IS 'public', ON ROLE role IS 'anonymized' or ON FUNCTION f(...) IS 'trusted'.")));
	}
}

/* the provider's hook */
static void
check_relabel(const ObjectAddress *object, const char *label)
{
	anon_dp_check_label_admin();
	/* labels, inheritance and analysts' privileges change one at a time */
	lock_label_trees();
	check_label(object, label);
	/* every backend forgets what it read about the object's labels */
	label_cache_announce_change(object);
}

void
anon_dp_register_label_provider(void)
{
	register_label_provider(ANON_DP_LABEL_PROVIDER, check_relabel);
}
