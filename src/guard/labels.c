/*
 * labels.c -- reading anon_dp security labels (labels.h); those of tables
 * through their inheritance trees (label_trees.c); who may set which label
 * is label_policy.c.
 */
#include "postgres.h"

#include "access/htup_details.h"
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

/*
 * The label of the relation's tree (label_trees.h): a partition takes its
 * parent's.  Kept by this backend until a label or a tree changes
 * (label_cache.h).
 */
AttrNumber
anon_dp_privacy_unit_column(Oid relid)
{
	AttrNumber	unit;

	return label_cache_relation_label(relid, &unit) == TREE_LABEL_PRIVATE ? unit : InvalidAttrNumber;
}

bool
anon_dp_relation_is_public(Oid relid)
{
	AttrNumber	unit;

	return label_cache_relation_label(relid, &unit) == TREE_LABEL_PUBLIC;
}

bool
anon_dp_relation_is_mixed(Oid relid)
{
	AttrNumber	unit;

	return label_cache_relation_label(relid, &unit) == TREE_LABEL_MIXED;
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
