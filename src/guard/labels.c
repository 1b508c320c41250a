/*
 * labels.c -- reading anon_dp security labels (labels.h); those of tables
 * through their inheritance trees (label_trees.c); who may set which label
 * is label_policy.c.
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "catalog/partition.h"
#include "catalog/pg_constraint.h"
#include "catalog/objectaddress.h"
#include "catalog/pg_attribute.h"
#include "catalog/pg_proc.h"
#include "utils/regproc.h"
#include "catalog/pg_class.h"
#include "catalog/pg_type.h"
#include "commands/seclabel.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/syscache.h"

#include "guard/label_cache.h"
#include "guard/label_trees.h"
#include "guard/labels.h"
#include "settings.h"

const char *
anon_dp_session_unit(void)
{
	return anon_dp_privacy_unit != NULL ? anon_dp_privacy_unit : ANON_DP_DEFAULT_UNIT;
}

/*
 * The label of the relation's tree (label_trees.h): a partition takes its
 * parent's.  Kept by this backend until a label or a tree changes
 * (label_cache.h).
 */
unit_label
anon_dp_unit_label(Oid relid, const char *unit)
{
	const relation_labels *labels;
	unit_label	result = {UNIT_LABEL_NONE, InvalidAttrNumber, NULL, NULL};
	unit_clause *clause;

	switch (label_cache_relation_label(relid, &labels))
	{
		case TREE_LABEL_NONE:
			return result;
		case TREE_LABEL_MIXED:
			result.kind = UNIT_LABEL_MIXED;
			return result;
		case TREE_LABEL_PUBLIC:
		case TREE_LABEL_PRIVATE:
			break;
	}
	result.labels = labels;
	clause = relation_labels_unit(labels, unit);
	if (clause != NULL)
	{
		result.kind = clause->via == NULL ? UNIT_LABEL_COLUMN : UNIT_LABEL_KEY;
		result.column = get_attnum(relid, clause->column);
		result.via = clause->via;
	}
	else
		result.kind = relation_labels_public_for(labels, unit) ? UNIT_LABEL_PUBLIC : UNIT_LABEL_OTHER;
	return result;
}

/* The column holding the session's unit, or InvalidAttrNumber. */
AttrNumber
anon_dp_privacy_unit_column(Oid relid)
{
	unit_label	label = anon_dp_unit_label(relid, anon_dp_session_unit());

	return label.kind == UNIT_LABEL_COLUMN ? label.column : InvalidAttrNumber;
}

bool
anon_dp_relation_is_public(Oid relid)
{
	const relation_labels *labels;

	return label_cache_relation_label(relid, &labels) == TREE_LABEL_PUBLIC;
}

bool
anon_dp_relation_is_public_for_unit(Oid relid)
{
	return anon_dp_unit_label(relid, anon_dp_session_unit()).kind == UNIT_LABEL_PUBLIC;
}

bool
anon_dp_relation_is_mixed(Oid relid)
{
	const relation_labels *labels;

	return label_cache_relation_label(relid, &labels) == TREE_LABEL_MIXED;
}

void
anon_dp_check_label_tree(Oid relid)
{
	if (anon_dp_relation_is_mixed(relid))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("table \"%s\" is in an inheritance tree whose anon_dp labels differ",
						get_rel_name(relid)),
				 errdetail_internal("%s", mixed_label_detail(relid)),
				 errhint("Give every table of the tree the same label (all public, or the privacy unit on the same column), or detach the table whose label differs.")));
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

/* kept by this backend until a role or a label changes (label_cache.h) */
bool
anon_dp_role_is_anonymized(Oid roleid)
{
	return label_cache_role_is_anonymized(roleid);
}

bool
anon_dp_relation_referenced_by_private_rows(Oid relid)
{
	List	   *referencable = lappend_oid(get_partition_ancestors(relid), relid);
	Relation	constraints = table_open(ConstraintRelationId, AccessShareLock);
	SysScanDesc scan = systable_beginscan(constraints, InvalidOid, false, NULL, 0, NULL);
	HeapTuple	tuple;
	bool		referenced = false;

	/* pg_constraint has no index on the referenced relation */
	while (!referenced && HeapTupleIsValid(tuple = systable_getnext(scan)))
	{
		Form_pg_constraint con = (Form_pg_constraint) GETSTRUCT(tuple);

		referenced = con->contype == CONSTRAINT_FOREIGN &&
			list_member_oid(referencable, con->confrelid) &&
			!anon_dp_relation_is_public(con->conrelid);
	}
	systable_endscan(scan);
	table_close(constraints, AccessShareLock);
	return referenced;
}
