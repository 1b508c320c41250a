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
#include "guard/label_syntax.h"
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

static void
refuse_syntax(const char *what, const char *label, const char *error, const char *hint)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("invalid anon_dp label \"%s\" for %s", label, what),
			 error ? errdetail_internal("%s", error) : 0,
			 errhint("%s", hint)));
}

/* the own clause of unit on another column than column, or NULL */
static unit_clause *
other_column_of_unit(const relation_labels *labels, const char *unit, const char *column)
{
	unit_clause *clause = relation_labels_unit(labels, unit);

	return clause != NULL && (column == NULL || strcmp(clause->column, column) != 0) ? clause : NULL;
}

/* 'public' or 'public for u, ...' on a table none of whose columns holds those units */
static void
check_table_label(Oid relid, const char *label)
{
	char		relkind = get_rel_relkind(relid);
	char	   *relname = get_rel_name(relid);
	bool		is_public;
	List	   *public_for;
	char	   *error = NULL;
	relation_labels *own;
	ListCell   *lc;

	if (!parse_table_label(label, &is_public, &public_for, &error))
		refuse_syntax(psprintf("table \"%s\"", relname), label, error,
					  psprintf("A table label must be 'public', or 'public for <unit>, ...' for some privacy units only; mark a private table by labelling its privacy unit column: SECURITY LABEL FOR anon_dp ON COLUMN %s.<column> IS 'privacy_unit'.",
							   relname));
	if (relkind != RELKIND_RELATION && relkind != RELKIND_PARTITIONED_TABLE &&
		relkind != RELKIND_MATVIEW && relkind != RELKIND_FOREIGN_TABLE)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("cannot label \"%s\" as public: it is not a table", relname),
				 errhint("Label the tables a view reads instead.")));
	own = relation_own_labels(relid);
	if (is_public && own->units != NIL)
	{
		unit_clause *clause = (unit_clause *) linitial(own->units);

		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("table \"%s\" cannot be public: column \"%s\" is its privacy unit",
						relname, clause->column),
				 errhint("Remove the column label first: SECURITY LABEL FOR anon_dp ON COLUMN %s.%s IS NULL.",
						 relname, clause->column)));
	}
	foreach(lc, public_for)
	{
		unit_clause *clause = relation_labels_unit(own, strVal(lfirst(lc)));

		if (clause != NULL)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("table \"%s\" cannot be public for privacy unit %s: column \"%s\" holds it",
							relname, clause->unit, clause->column),
					 errhint("Leave %s out of the label, or remove the column label first: SECURITY LABEL FOR anon_dp ON COLUMN %s.%s IS NULL.",
							 clause->unit, relname, clause->column)));
	}
	/* 'public for': analysts read the table through anonymization queries only */
	check_tree_label_closing(relid, 0, label);
}

/* a column that holds a unit has a type that identifies users */
static void
check_unit_types(Oid relid, AttrNumber attnum, List *clauses)
{
	Oid			type = get_atttype(relid, attnum);
	ListCell   *lc;

	foreach(lc, clauses)
		if (((unit_clause *) lfirst(lc))->via == NULL && !privacy_unit_type_allowed(type))
			ereport(ERROR,
					(errcode(ERRCODE_DATATYPE_MISMATCH),
					 errmsg("column \"%s.%s\" of type %s cannot be a privacy unit",
							get_rel_name(relid), get_attname(relid, attnum, false),
							format_type_be(type)),
					 errhint("A privacy unit column must be smallint, integer, bigint, text, varchar or uuid.")));
}

/* one column (or key) per unit; none for the units the table is public for */
static void
check_unit_clauses(Oid relid, AttrNumber attnum, List *clauses)
{
	char	   *relname = get_rel_name(relid);
	char	   *column = get_attname(relid, attnum, false);
	relation_labels *own = relation_own_labels(relid);
	ListCell   *lc;

	foreach(lc, clauses)
	{
		unit_clause *clause = (unit_clause *) lfirst(lc);
		unit_clause *other = other_column_of_unit(own, clause->unit, column);

		if (other != NULL && strcmp(clause->unit, ANON_DP_DEFAULT_UNIT) == 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("table \"%s\" already has privacy unit column \"%s\"",
							relname, other->column),
					 errhint("A table has one privacy unit column; remove the other label first with IS NULL.")));
		if (other != NULL)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("table \"%s\" already has column \"%s\" for privacy unit %s",
							relname, other->column, clause->unit),
					 errhint("A table has one column (or key) per privacy unit; remove the other label first: SECURITY LABEL FOR anon_dp ON COLUMN %s.%s IS NULL.",
							 relname, other->column)));
		if (own->is_public)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("table \"%s\" is labelled public and cannot have a privacy unit", relname),
					 errhint("Remove the table label first: SECURITY LABEL FOR anon_dp ON TABLE %s IS NULL.",
							 relname)));
		if (relation_labels_public_for(own, clause->unit))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("table \"%s\" is labelled public for privacy unit %s and cannot be private to it",
							relname, clause->unit),
					 errhint("Remove %s from the table label first: SECURITY LABEL FOR anon_dp ON TABLE %s IS ... (or IS NULL).",
							 clause->unit, relname)));
	}
}

/* 'privacy_unit [unit] [via target], ...' on a column of a table */
static void
check_column_label(Oid relid, AttrNumber attnum, const char *label)
{
	char		relkind = get_rel_relkind(relid);
	char	   *relname = get_rel_name(relid);
	char	   *column = get_attname(relid, attnum, false);
	List	   *clauses;
	char	   *error = NULL;

	if (!parse_column_label(label, column, &clauses, &error))
		refuse_syntax(psprintf("column \"%s.%s\"", relname, column), label,
					  strncmp(label, ANON_DP_LABEL_PRIVACY_UNIT, strlen(ANON_DP_LABEL_PRIVACY_UNIT)) == 0 ? error : NULL,
					  "A column label must be 'privacy_unit', 'privacy_unit <unit>' for a named privacy unit, or 'privacy_unit [<unit>] via <table>' for a column of a foreign key to the table that holds the unit.");
	if (relkind != RELKIND_RELATION && relkind != RELKIND_PARTITIONED_TABLE)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("cannot label a column of \"%s\" as privacy_unit: it is not a table", relname),
				 errhint("Label the privacy unit column of the underlying table.")));
	check_unit_types(relid, attnum, clauses);
	check_tree_label_closing(relid, attnum, label);
	check_unit_clauses(relid, attnum, clauses);
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
