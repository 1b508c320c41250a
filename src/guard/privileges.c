/*
 * privileges.c -- fail-closed privileges of anonymized roles (privileges.h).
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/heapam.h"
#include "access/htup_details.h"
#include "access/relation.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/transam.h"
#include "catalog/namespace.h"
#include "catalog/pg_authid.h"
#include "catalog/pg_class.h"
#include "catalog/pg_shseclabel.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "rewrite/rewriteHandler.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/syscache.h"

#include "guard/label_trees.h"
#include "guard/labels.h"
#include "guard/marks.h"
#include "guard/objects.h"
#include "guard/privileges.h"

/* the rights a relation can grant */
#define ANY_RELATION_RIGHT (ACL_ALL_RIGHTS_RELATION | ACL_ALL_RIGHTS_SEQUENCE)

/* ---- what is open to analysts ---- */

static bool view_reads_only_open(Oid viewid);

static bool
entries_only_open_walker(Node *node, void *context)
{
	if (node == NULL)
		return false;
	if (IsA(node, Query))
	{
		ListCell   *lc;

		foreach(lc, ((Query *) node)->rtable)
		{
			RangeTblEntry *rte = (RangeTblEntry *) lfirst(lc);

			/*
			 * requiredPerms 0: a view's own OLD and NEW entries; marked: an
			 * input of a stored anonymization query, which releases only
			 * anonymized rows even without anon_dp
			 */
			if (rte->rtekind != RTE_RELATION || rte->relid < FirstNormalObjectId ||
				rte->requiredPerms == 0 || entry_is_marked(rte))
				continue;
			if (rte->relkind == RELKIND_VIEW ? !view_reads_only_open(rte->relid) :
				!anon_dp_relation_is_public(rte->relid))
				return true;
		}
		return query_tree_walker((Query *) node, entries_only_open_walker, context, 0);
	}
	return expression_tree_walker(node, entries_only_open_walker, context);
}

static bool
view_reads_only_open(Oid viewid)
{
	Relation	view;
	bool		closed;

	check_stack_depth();
	view = relation_open(viewid, AccessShareLock);
	closed = entries_only_open_walker((Node *) get_view_query(view), NULL);
	relation_close(view, AccessShareLock);
	return !closed;
}

/* catalogs, tables labelled public, views over nothing else */
static bool
relation_open_to_analysts(Oid relid)
{
	char		relkind = get_rel_relkind(relid);

	if (relid < FirstNormalObjectId)
		return true;
	if (relkind == RELKIND_VIEW)
		return view_reads_only_open(relid);
	return relkind != RELKIND_SEQUENCE && anon_dp_relation_is_public(relid);
}

/* any privilege, held directly, through PUBLIC, membership or ownership */
static bool
holds_privilege_on(Oid roleid, Oid relid)
{
	return pg_class_aclmask(relid, roleid, ANY_RELATION_RIGHT, ACLMASK_ANY) != 0 ||
		pg_attribute_aclcheck_all(relid, roleid, ACL_SELECT | ACL_INSERT | ACL_UPDATE | ACL_REFERENCES,
								  ACLMASK_ANY) == ACLCHECK_OK;
}

/* ---- anonymized roles ---- */

static List *
anonymized_roles(void)
{
	Relation	labels = table_open(SharedSecLabelRelationId, AccessShareLock);
	SysScanDesc scan = systable_beginscan(labels, InvalidOid, false, NULL, 0, NULL);
	HeapTuple	tuple;
	List	   *roles = NIL;

	while (HeapTupleIsValid(tuple = systable_getnext(scan)))
	{
		Form_pg_shseclabel label = (Form_pg_shseclabel) GETSTRUCT(tuple);

		if (label->classoid == AuthIdRelationId && anon_dp_role_is_anonymized(label->objoid))
			roles = list_append_unique_oid(roles, label->objoid);
	}
	systable_endscan(scan);
	table_close(labels, AccessShareLock);
	return roles;
}

/* an anonymized role that grantee stands for (itself, PUBLIC, or a member), or InvalidOid */
static Oid
anonymized_role_behind(Oid grantee)
{
	ListCell   *lc;

	foreach(lc, anonymized_roles())
	{
		Oid			role = lfirst_oid(lc);

		if (grantee == ACL_ID_PUBLIC || role == grantee || is_member_of_role(role, grantee))
			return role;
	}
	return InvalidOid;
}

static void
refuse_privilege(Oid roleid, Oid relid, const char *how)
{
	char	   *role = GetUserNameFromId(roleid, false);
	char	   *relation = get_rel_name(relid);

	ereport(ERROR,
			(errcode(ERRCODE_INVALID_GRANT_OPERATION),
			 errmsg("anonymized role \"%s\" would hold a privilege on \"%s\"%s", role, relation, how),
			 errdetail("Anonymized roles hold privileges only on tables labelled public and views over them; anon_dp lends them private tables for anonymization queries only, so that without anon_dp PostgreSQL refuses every read."),
			 errhint("Anonymization queries need no privilege on private tables: REVOKE ALL ON %s FROM %s, or grant it to a role that is not anonymized.",
					 quote_identifier(relation), quote_identifier(role))));
}

/* ---- relations held ---- */

static bool
relkind_has_privileges(char relkind)
{
	return relkind == RELKIND_RELATION || relkind == RELKIND_PARTITIONED_TABLE ||
		relkind == RELKIND_VIEW || relkind == RELKIND_MATVIEW ||
		relkind == RELKIND_FOREIGN_TABLE || relkind == RELKIND_SEQUENCE;
}

/*
 * The relations created after initdb that can carry privileges; only views
 * when views_only; only those of one schema unless schema is InvalidOid.
 */
static List *
user_relations(bool views_only, Oid schema)
{
	Relation	pg_class = table_open(RelationRelationId, AccessShareLock);
	TableScanDesc scan = table_beginscan_catalog(pg_class, 0, NULL);
	HeapTuple	tuple;
	List	   *relids = NIL;

	while (HeapTupleIsValid(tuple = heap_getnext(scan, ForwardScanDirection)))
	{
		Form_pg_class rel = (Form_pg_class) GETSTRUCT(tuple);

		if (rel->oid >= FirstNormalObjectId && relkind_has_privileges(rel->relkind) &&
			(!views_only || rel->relkind == RELKIND_VIEW) &&
			(!OidIsValid(schema) || rel->relnamespace == schema))
			relids = lappend_oid(relids, rel->oid);
	}
	table_endscan(scan);
	table_close(pg_class, AccessShareLock);
	return relids;
}

/*
 * The first relation not open to analysts on which roleid holds a privilege,
 * or InvalidOid.  The role's own relations do not count: they hold what it
 * wrote (objects.c, RELATION_OWN), and a private label on one is refused.
 */
static Oid
closed_relation_held_by(Oid roleid)
{
	ListCell   *lc;

	foreach(lc, user_relations(false, InvalidOid))
		if (holds_privilege_on(roleid, lfirst_oid(lc)) && relation_owner(lfirst_oid(lc)) != roleid &&
			!relation_open_to_analysts(lfirst_oid(lc)))
			return lfirst_oid(lc);
	return InvalidOid;
}

/* whether the view, or a view it reads, reads relid */
static bool
references_walker(Node *node, Oid *relid)
{
	if (node == NULL)
		return false;
	if (IsA(node, Query))
	{
		ListCell   *lc;

		foreach(lc, ((Query *) node)->rtable)
		{
			RangeTblEntry *rte = (RangeTblEntry *) lfirst(lc);

			if (rte->rtekind != RTE_RELATION || rte->relid < FirstNormalObjectId ||
				rte->requiredPerms == 0)
				continue;
			if (rte->relid == *relid)
				return true;
			if (rte->relkind == RELKIND_VIEW)
			{
				Relation	view = relation_open(rte->relid, AccessShareLock);
				bool		found;

				check_stack_depth();
				found = references_walker((Node *) get_view_query(view), relid);
				relation_close(view, AccessShareLock);
				if (found)
					return true;
			}
		}
		return query_tree_walker((Query *) node, references_walker, (void *) relid, 0);
	}
	return expression_tree_walker(node, references_walker, (void *) relid);
}

/* the relations that close with relid: itself and the views reading it */
static List *
closing_with(Oid relid)
{
	List	   *closing = list_make1_oid(relid);
	ListCell   *lc;

	foreach(lc, user_relations(true, InvalidOid))
	{
		Relation	view = relation_open(lfirst_oid(lc), AccessShareLock);

		if (references_walker((Node *) get_view_query(view), &relid))
			closing = lappend_oid(closing, lfirst_oid(lc));
		relation_close(view, AccessShareLock);
	}
	return closing;
}

void
check_role_may_be_anonymized(Oid roleid)
{
	Oid			held = closed_relation_held_by(roleid);

	if (OidIsValid(held))
		refuse_privilege(roleid, held, " (directly, through PUBLIC, a role it is a member of, or ownership)");
}

void
check_relation_may_close(Oid relid)
{
	ListCell   *lr;
	ListCell   *la;

	foreach(lr, closing_with(relid))
		foreach(la, anonymized_roles())
			if (holds_privilege_on(lfirst_oid(la), lfirst_oid(lr)))
				refuse_privilege(lfirst_oid(la), lfirst_oid(lr), " once it is no longer public");
}

/* ---- GRANT, GRANT role, ALTER ... OWNER TO ---- */

/* the anonymized role a grantee reaches (PUBLIC reaches them all), or InvalidOid */
static Oid
anonymized_grantee(RoleSpec *spec)
{
	Oid			grantee;

	if (spec->roletype == ROLESPEC_PUBLIC)
		return anonymized_role_behind(ACL_ID_PUBLIC);
	grantee = get_rolespec_oid(spec, true);
	return OidIsValid(grantee) ? anonymized_role_behind(grantee) : InvalidOid;
}

static const char *
reached_how(RoleSpec *spec, Oid anonymized)
{
	if (spec->roletype == ROLESPEC_PUBLIC)
		return " through PUBLIC";
	return get_rolespec_oid(spec, true) == anonymized ? "" : " as a member of the grantee";
}

/* the relations a GRANT names */
static List *
granted_relations(GrantStmt *grant)
{
	List	   *relids = NIL;
	ListCell   *lc;

	if (grant->objtype != OBJECT_TABLE && grant->objtype != OBJECT_SEQUENCE)
		return NIL;
	foreach(lc, grant->objects)
	{
		if (grant->targtype == ACL_TARGET_OBJECT && IsA(lfirst(lc), RangeVar))
		{
			Oid			relid = RangeVarGetRelid((RangeVar *) lfirst(lc), NoLock, true);

			if (OidIsValid(relid))
				relids = lappend_oid(relids, relid);
		}
		else if (grant->targtype == ACL_TARGET_ALL_IN_SCHEMA)
		{
			Oid			schema = get_namespace_oid(strVal(lfirst(lc)), true);

			if (OidIsValid(schema))
				relids = list_concat(relids, user_relations(false, schema));
		}
	}
	return relids;
}

static void
guard_grant(GrantStmt *grant)
{
	List	   *relids = granted_relations(grant);
	ListCell   *lg;
	ListCell   *lr;

	if (!grant->is_grant || relids == NIL)
		return;
	foreach(lg, grant->grantees)
	{
		Oid			anonymized = anonymized_grantee((RoleSpec *) lfirst(lg));

		if (!OidIsValid(anonymized))
			continue;
		lock_label_trees();		/* no label or tree changes meanwhile */
		foreach(lr, relids)
			if (!relation_open_to_analysts(lfirst_oid(lr)))
				refuse_privilege(anonymized, lfirst_oid(lr),
								 reached_how((RoleSpec *) lfirst(lg), anonymized));
	}
}

static void
guard_grant_role(GrantRoleStmt *grant)
{
	ListCell   *lg;
	ListCell   *lr;

	if (!grant->is_grant)
		return;
	foreach(lg, grant->grantee_roles)
	{
		Oid			anonymized = anonymized_grantee((RoleSpec *) lfirst(lg));

		if (!OidIsValid(anonymized))
			continue;
		lock_label_trees();
		foreach(lr, grant->granted_roles)
		{
			Oid			granted = get_role_oid(((AccessPriv *) lfirst(lr))->priv_name, true);
			Oid			held = OidIsValid(granted) ? closed_relation_held_by(granted) : InvalidOid;

			if (OidIsValid(held))
				refuse_privilege(anonymized, held, " through the role granted");
		}
	}
}

static void
guard_owner_change(AlterTableStmt *alter)
{
	ListCell   *lc;
	Oid			relid;

	foreach(lc, alter->cmds)
	{
		AlterTableCmd *cmd = (AlterTableCmd *) lfirst(lc);
		Oid			anonymized;

		if (cmd->subtype != AT_ChangeOwner)
			continue;
		relid = RangeVarGetRelid(alter->relation, NoLock, true);
		anonymized = anonymized_role_behind(get_rolespec_oid(cmd->newowner, false));
		if (!OidIsValid(relid) || !OidIsValid(anonymized))
			continue;
		lock_label_trees();
		if (!relation_open_to_analysts(relid))
			refuse_privilege(anonymized, relid, " as its owner");
	}
}

void
guard_privilege_statement(Node *statement)
{
	switch (nodeTag(statement))
	{
		case T_GrantStmt:
			guard_grant((GrantStmt *) statement);
			break;
		case T_GrantRoleStmt:
			guard_grant_role((GrantRoleStmt *) statement);
			break;
		case T_AlterTableStmt:
			guard_owner_change((AlterTableStmt *) statement);
			break;
		default:
			break;
	}
}

/* ---- lending ---- */

static bool
lend_walker(Node *node, bool *lent)
{
	if (node == NULL)
		return false;
	if (IsA(node, Query))
	{
		ListCell   *lc;

		foreach(lc, ((Query *) node)->rtable)
		{
			RangeTblEntry *rte = (RangeTblEntry *) lfirst(lc);

			/* also inside a view of the analyst's own: the analyst holds nothing */
			if (rte->rtekind == RTE_RELATION && rte->requiredPerms != 0 && entry_is_marked(rte))
			{
				rte->checkAsUser = relation_owner(rte->relid);
				*lent = true;
			}
		}
		return query_tree_walker((Query *) node, lend_walker, lent, 0);
	}
	return expression_tree_walker(node, lend_walker, lent);
}

bool
lend_private_inputs(Query *query)
{
	bool		lent = false;

	lend_walker((Node *) query, &lent);
	return lent;
}
