/*
 * tree_policy.c -- label changes and inheritance changes, tried on a model
 * of the trees they touch before they are made (tree_policy.h).
 *
 * Each check locks the label trees (lock_label_trees), reads the whole
 * trees involved, notes every member's label, applies the change to the
 * model, refuses it if two labels of one tree now disagree, and checks
 * every member whose change closes it to analysts.
 */
#include "postgres.h"

#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "lib/stringinfo.h"
#include "nodes/parsenodes.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"

#include "guard/label_names.h"
#include "guard/label_cache.h"
#include "guard/label_trees.h"
#include "guard/privileges.h"
#include "guard/tree_policy.h"

#define TREE_DETAIL "One anon_dp label holds for a whole inheritance tree or partition hierarchy, since reading a parent reads the rows of all its descendants."

/* ---- texts ---- */

static const char *
quoted_name(Oid relid)
{
	return quote_identifier(get_rel_name(relid));
}

/* the statement that removes the own label of a member (its first one) */
static char *
removal_statement(label_tree *tree, Oid relid)
{
	const relation_labels *labels = label_tree_own_labels(tree, relid);

	if (labels->units != NIL)
		return psprintf("SECURITY LABEL FOR anon_dp ON COLUMN %s.%s IS NULL", quoted_name(relid),
						quote_identifier(((unit_clause *) linitial(labels->units))->column));
	return psprintf("SECURITY LABEL FOR anon_dp ON TABLE %s IS NULL", quoted_name(relid));
}

/* the statement that gives target the label model has, or NULL (none, or several) */
static char *
alike_statement(label_tree *tree, Oid model, Oid target)
{
	const relation_labels *labels = label_tree_own_labels(tree, model);
	const char *column;
	ListCell   *lc;

	if (labels->broken != NULL)
		return NULL;
	if (labels->is_public && labels->units == NIL)
		return psprintf("SECURITY LABEL FOR anon_dp ON TABLE %s IS 'public'", quoted_name(target));
	if (labels->is_public || labels->public_for != NIL || labels->units == NIL)
		return NULL;
	column = ((unit_clause *) linitial(labels->units))->column;
	foreach(lc, labels->units)
		if (strcmp(((unit_clause *) lfirst(lc))->column, column) != 0)
			return NULL;
	return psprintf("SECURITY LABEL FOR anon_dp ON COLUMN %s.%s IS %s",
					quoted_name(target), quote_identifier(column),
					quote_literal_cstr(relation_labels_column_label(labels, column)));
}

/* ---- the members a change closes ---- */

static tree_label *
labels_of(label_tree *tree, List *members)
{
	tree_label *labels = palloc(sizeof(tree_label) * Max(list_length(members), 1));
	ListCell   *lc;
	int			i = 0;

	foreach(lc, members)
		labels[i++] = label_tree_label_of(tree, lfirst_oid(lc));
	return labels;
}

/*
 * A member closes when it stops being public or becomes private: no
 * anonymized role may then hold a privilege on it (privileges.h).
 */
static void
check_closing(label_tree *tree, List *members, tree_label *before)
{
	ListCell   *lc;
	int			i = 0;

	foreach(lc, members)
	{
		tree_label after = label_tree_label_of(tree, lfirst_oid(lc));

		if ((before[i] == TREE_LABEL_PUBLIC && after != TREE_LABEL_PUBLIC) ||
			(before[i] != TREE_LABEL_PRIVATE && after == TREE_LABEL_PRIVATE))
			check_relation_may_close(lfirst_oid(lc));
		i++;
	}
}

/* ---- SECURITY LABEL ---- */

static void
refuse_label(label_tree *tree, Oid relid, AttrNumber attnum, const char *label, Oid first,
			 Oid second)
{
	const char *plain = attnum == 0 ? ANON_DP_LABEL_PUBLIC : ANON_DP_LABEL_PRIVACY_UNIT;
	const char *written = strcmp(label, plain) == 0 ? plain : quote_literal_cstr(label);
	char	   *what = attnum == 0 ?
		psprintf("table \"%s\" %s", get_rel_name(relid), written) :
		psprintf("column \"%s.%s\" %s", get_rel_name(relid), get_attname(relid, attnum, false),
				 written);
	Oid			other = first == relid ? second : first;
	char	   *alike;

	if (first != relid && second != relid)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("cannot label %s: its inheritance tree mixes anon_dp labels", what),
				 errdetail("%s %s", label_tree_conflict_text(tree, first, second), TREE_DETAIL),
				 errhint("Give every table of the tree the same label first, for example: %s.",
						 removal_statement(tree, second))));
	alike = other == relid ? NULL : alike_statement(tree, other, relid);
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("cannot label %s: table \"%s\" of its inheritance tree is %s", what,
					get_rel_name(other), label_tree_own_label_text(tree, other)),
			 errdetail("%s", TREE_DETAIL),
			 alike ? errhint("Label every table of the tree alike (%s), or first remove the label of \"%s\": %s.",
							 alike, get_rel_name(other), removal_statement(tree, other)) :
			 errhint("Remove the label of \"%s\" first: %s.",
					 get_rel_name(other), removal_statement(tree, other))));
}

void
check_tree_label_closing(Oid relid, AttrNumber attnum, const char *label)
{
	label_tree *tree;
	List	   *members;
	tree_label *before;

	lock_label_trees();
	tree = label_tree_read(relid);
	members = label_tree_members(tree);
	before = labels_of(tree, members);
	label_tree_relabel(tree, relid, attnum, label);
	check_closing(tree, members, before);
}

void
check_tree_label_conflict(Oid relid, AttrNumber attnum, const char *label)
{
	label_tree *tree;
	Oid			first;
	Oid			second;

	lock_label_trees();
	tree = label_tree_read(relid);
	label_tree_relabel(tree, relid, attnum, label);
	if (label_tree_conflict(tree, relid, &first, &second))
		refuse_label(tree, relid, attnum, label, first, second);
}

/* ---- CREATE TABLE ... INHERITS / PARTITION OF, ALTER TABLE ---- */

static Oid
existing_relation(RangeVar *name)
{
	return name ? RangeVarGetRelid(name, NoLock, true) : InvalidOid;
}

/* ERROR if the tree's labels disagree once action joined child to its parents */
static void
refuse_join(label_tree *tree, Oid child, const char *action)
{
	Oid			first;
	Oid			second;

	if (!label_tree_conflict(tree, child, &first, &second))
		return;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_TABLE_DEFINITION),
			 errmsg("cannot %s: the anon_dp labels of their inheritance trees differ", action),
			 errdetail("%s %s", label_tree_conflict_text(tree, first, second), TREE_DETAIL),
			 errhint("Label the tables of both trees alike first (all public, or the privacy unit on columns of one name), or keep them in separate trees.")));
}

/*
 * A new table with several parents joins their trees (with one parent it
 * takes that tree's label and changes nothing else).
 */
static void
guard_create(CreateStmt *create)
{
	label_tree *tree;
	ListCell   *lc;
	List	   *parents = NIL;
	StringInfoData names;

	if (list_length(create->inhRelations) < 2)
		return;
	lock_label_trees();
	tree = label_tree_new();
	initStringInfo(&names);
	foreach(lc, create->inhRelations)
	{
		Oid			parent = existing_relation((RangeVar *) lfirst(lc));

		if (!OidIsValid(parent))
			continue;
		label_tree_add(tree, parent);
		parents = lappend_oid(parents, parent);
		appendStringInfo(&names, "%s\"%s\"", names.len ? ", " : "", get_rel_name(parent));
	}
	label_tree_add_new(tree, parents);
	refuse_join(tree, InvalidOid,
				psprintf("create \"%s\" inheriting from %s", create->relation->relname, names.data));
}

/* one ATTACH / DETACH PARTITION, INHERIT / NO INHERIT of an ALTER TABLE */
typedef struct tree_step
{
	Oid			parent;
	Oid			child;
	bool		link;			/* else unlink */
	const char *action;			/* for messages about a link */
} tree_step;

static tree_step *
alter_step(AlterTableStmt *alter, AlterTableCmd *cmd)
{
	tree_step  *step = palloc0(sizeof(tree_step));
	Oid			named = existing_relation(alter->relation);

	switch (cmd->subtype)
	{
		case AT_AttachPartition:
		case AT_DetachPartition:
		case AT_DetachPartitionFinalize:
			step->parent = named;
			step->child = existing_relation(((PartitionCmd *) cmd->def)->name);
			step->link = cmd->subtype == AT_AttachPartition;
			break;
		case AT_AddInherit:
		case AT_DropInherit:
			step->child = named;
			step->parent = existing_relation((RangeVar *) cmd->def);
			step->link = cmd->subtype == AT_AddInherit;
			break;
		default:
			return NULL;
	}
	if (!OidIsValid(step->parent) || !OidIsValid(step->child))
		return NULL;			/* PostgreSQL reports it */
	if (step->link)
		step->action = psprintf(cmd->subtype == AT_AttachPartition ?
								"attach \"%s\" as a partition of \"%s\"" :
								"make \"%s\" inherit from \"%s\"",
								get_rel_name(step->child), get_rel_name(step->parent));
	return step;
}

static void
guard_alter(AlterTableStmt *alter)
{
	List	   *steps = NIL;
	ListCell   *lc;
	label_tree *tree;
	List	   *members;
	tree_label *before;

	if (alter->objtype == OBJECT_INDEX)
		return;					/* ALTER INDEX ... ATTACH PARTITION */
	foreach(lc, alter->cmds)
	{
		tree_step  *step = alter_step(alter, (AlterTableCmd *) lfirst(lc));

		if (step != NULL)
			steps = lappend(steps, step);
	}
	if (steps == NIL)
		return;
	lock_label_trees();
	tree = label_tree_new();
	foreach(lc, steps)
	{
		label_tree_add(tree, ((tree_step *) lfirst(lc))->parent);
		label_tree_add(tree, ((tree_step *) lfirst(lc))->child);
	}
	members = label_tree_members(tree);
	before = labels_of(tree, members);
	foreach(lc, steps)
	{
		tree_step  *step = (tree_step *) lfirst(lc);

		if (step->link)
		{
			label_tree_link(tree, step->parent, step->child);
			refuse_join(tree, step->child, step->action);
		}
		else
			label_tree_unlink(tree, step->parent, step->child);
	}
	check_closing(tree, members, before);
	/* every backend forgets the labels it read of the trees' members */
	foreach(lc, steps)
	{
		ObjectAddress child;

		ObjectAddressSet(child, RelationRelationId, ((tree_step *) lfirst(lc))->child);
		label_cache_announce_change(&child);
	}
}

void
guard_inheritance_statement(Node *statement)
{
	switch (nodeTag(statement))
	{
		case T_CreateStmt:
			guard_create((CreateStmt *) statement);
			break;
		case T_CreateForeignTableStmt:
			guard_create(&((CreateForeignTableStmt *) statement)->base);
			break;
		case T_AlterTableStmt:
			guard_alter((AlterTableStmt *) statement);
			break;
		default:
			break;
	}
}
