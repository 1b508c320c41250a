/*
 * label_trees.c -- anon_dp labels over inheritance trees and partition
 * hierarchies (label_trees.h).
 *
 * A tree is read into a small model: its members, each with its own labels
 * and its parents.  Reading a relation needs only the members its label
 * depends on -- itself, its descendants and the ancestors of all of these
 * (siblings under a partitioned table do not matter); checking a change
 * needs the whole tree, since one table's label decides for every other.
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "catalog/indexing.h"
#include "catalog/pg_class.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_seclabel.h"
#include "miscadmin.h"
#include "storage/lmgr.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"

#include "guard/label_names.h"
#include "guard/label_syntax.h"
#include "guard/label_trees.h"

typedef struct tree_member
{
	Oid			relid;			/* InvalidOid: a table being created */
	relation_labels *labels;	/* its own labels */
	List	   *parents;		/* Oid */
	int			component;		/* members linked to each other share it */
} tree_member;

/*
 * Members of several trees, when a statement would join them; the
 * components are the trees as the model's links make them.
 */
struct label_tree
{
	List	   *members;		/* tree_member * */
	bool		components_valid;
};

/* ---- the catalogs ---- */

relation_labels *
relation_own_labels(Oid relid)
{
	Relation	catalog = table_open(SecLabelRelationId, AccessShareLock);
	ScanKeyData keys[2];
	SysScanDesc scan;
	HeapTuple	tuple;
	relation_labels *labels = relation_labels_new();

	ScanKeyInit(&keys[0], Anum_pg_seclabel_objoid, BTEqualStrategyNumber, F_OIDEQ,
				ObjectIdGetDatum(relid));
	ScanKeyInit(&keys[1], Anum_pg_seclabel_classoid, BTEqualStrategyNumber, F_OIDEQ,
				ObjectIdGetDatum(RelationRelationId));
	scan = systable_beginscan(catalog, SecLabelObjectIndexId, true, NULL, 2, keys);
	while (HeapTupleIsValid(tuple = systable_getnext(scan)))
	{
		FormData_pg_seclabel *row = (FormData_pg_seclabel *) GETSTRUCT(tuple);
		bool		isnull;
		Datum		provider = heap_getattr(tuple, Anum_pg_seclabel_provider,
											RelationGetDescr(catalog), &isnull);
		Datum		label;
		char	   *column;

		if (isnull || strcmp(TextDatumGetCString(provider), ANON_DP_LABEL_PROVIDER) != 0)
			continue;
		label = heap_getattr(tuple, Anum_pg_seclabel_label, RelationGetDescr(catalog), &isnull);
		if (isnull)
			continue;
		if (row->objsubid == 0)
		{
			relation_labels_set_table(labels, TextDatumGetCString(label));
			continue;
		}
		column = get_attname(relid, row->objsubid, true);
		if (column != NULL)
			relation_labels_set_column(labels, column, TextDatumGetCString(label));
	}
	systable_endscan(scan);
	table_close(catalog, AccessShareLock);
	return labels;
}

/* the parents (or children) of relid in pg_inherits, detached-pending included */
static List *
inheritance_neighbours(Oid relid, bool parents)
{
	Relation	inherits;
	ScanKeyData key;
	SysScanDesc scan;
	HeapTuple	tuple;
	List	   *found = NIL;

	if (!parents && !has_subclass(relid))
		return NIL;
	inherits = table_open(InheritsRelationId, AccessShareLock);
	ScanKeyInit(&key, parents ? Anum_pg_inherits_inhrelid : Anum_pg_inherits_inhparent,
				BTEqualStrategyNumber, F_OIDEQ, ObjectIdGetDatum(relid));
	scan = systable_beginscan(inherits, parents ? InheritsRelidSeqnoIndexId : InheritsParentIndexId,
							  true, NULL, 1, &key);
	while (HeapTupleIsValid(tuple = systable_getnext(scan)))
	{
		Form_pg_inherits row = (Form_pg_inherits) GETSTRUCT(tuple);

		found = lappend_oid(found, parents ? row->inhparent : row->inhrelid);
	}
	systable_endscan(scan);
	table_close(inherits, AccessShareLock);
	return found;
}

/* ---- the model ---- */

static tree_member *
find_member(label_tree *tree, Oid relid)
{
	ListCell   *lc;

	foreach(lc, tree->members)
		if (((tree_member *) lfirst(lc))->relid == relid)
			return (tree_member *) lfirst(lc);
	return NULL;
}

static tree_member *
load_member(label_tree *tree, Oid relid)
{
	tree_member *member = palloc0(sizeof(tree_member));

	member->relid = relid;
	member->labels = relation_own_labels(relid);
	member->parents = inheritance_neighbours(relid, true);
	tree->members = lappend(tree->members, member);
	tree->components_valid = false;
	return member;
}

/* relid and everything connected to it, unless it is in tree already */
void
label_tree_add(label_tree *tree, Oid relid)
{
	List	   *queue = list_make1_oid(relid);

	while (queue != NIL)
	{
		Oid			next = linitial_oid(queue);
		tree_member *member;

		queue = list_delete_first(queue);
		if (find_member(tree, next) != NULL)
			continue;
		CHECK_FOR_INTERRUPTS();
		member = load_member(tree, next);
		queue = list_concat(queue, member->parents);
		queue = list_concat(queue, inheritance_neighbours(next, false));
	}
}

label_tree *
label_tree_new(void)
{
	return palloc0(sizeof(label_tree));
}

label_tree *
label_tree_read(Oid relid)
{
	label_tree *tree = label_tree_new();

	label_tree_add(tree, relid);
	return tree;
}

/* relid, its descendants, and the ancestors of all of them */
static label_tree *
label_tree_read_for(Oid relid)
{
	label_tree *tree = palloc0(sizeof(label_tree));
	List	   *queue = list_make1_oid(relid);
	int			i;

	while (queue != NIL)
	{
		Oid			next = linitial_oid(queue);

		queue = list_delete_first(queue);
		if (find_member(tree, next) != NULL)
			continue;
		CHECK_FOR_INTERRUPTS();
		load_member(tree, next);
		queue = list_concat(queue, inheritance_neighbours(next, false));
	}
	for (i = 0; i < list_length(tree->members); i++)
	{
		ListCell   *lc;

		foreach(lc, ((tree_member *) list_nth(tree->members, i))->parents)
			if (find_member(tree, lfirst_oid(lc)) == NULL)
				load_member(tree, lfirst_oid(lc));
	}
	return tree;
}

List *
label_tree_members(label_tree *tree)
{
	List	   *relids = NIL;
	ListCell   *lc;

	foreach(lc, tree->members)
		relids = lappend_oid(relids, ((tree_member *) lfirst(lc))->relid);
	return relids;
}

void
label_tree_link(label_tree *tree, Oid parent, Oid child)
{
	tree_member *member = find_member(tree, child);

	Assert(find_member(tree, parent) != NULL);
	member->parents = list_append_unique_oid(member->parents, parent);
	tree->components_valid = false;
}

void
label_tree_add_new(label_tree *tree, List *parents)
{
	tree_member *member = palloc0(sizeof(tree_member));

	member->relid = InvalidOid;
	member->labels = relation_labels_new();
	member->parents = list_copy(parents);
	tree->members = lappend(tree->members, member);
	tree->components_valid = false;
}

void
label_tree_unlink(label_tree *tree, Oid parent, Oid child)
{
	tree_member *member = find_member(tree, child);

	member->parents = list_delete_oid(member->parents, parent);
	tree->components_valid = false;
}

void
label_tree_relabel(label_tree *tree, Oid relid, AttrNumber attnum, const char *label)
{
	tree_member *member = find_member(tree, relid);

	if (attnum == 0)
		relation_labels_set_table(member->labels, label);
	else
		relation_labels_set_column(member->labels, get_attname(relid, attnum, false), label);
}

/* ---- what the model says ---- */

static bool
has_own_label(tree_member *member)
{
	return relation_labels_present(member->labels);
}

static bool
same_labels(tree_member *a, tree_member *b)
{
	return relation_labels_equal(a->labels, b->labels);
}

/* the representative of a member's component (union-find over the links) */
static tree_member *
component_root(List *roots, tree_member *member)
{
	int			i = member->component;

	while (((tree_member *) list_nth(roots, i))->component != i)
		i = ((tree_member *) list_nth(roots, i))->component;
	return (tree_member *) list_nth(roots, i);
}

static void
assign_components(label_tree *tree)
{
	ListCell   *lc;
	ListCell   *lp;
	int			i = 0;

	if (tree->components_valid)
		return;
	foreach(lc, tree->members)
		((tree_member *) lfirst(lc))->component = i++;
	foreach(lc, tree->members)
	{
		tree_member *member = (tree_member *) lfirst(lc);

		foreach(lp, member->parents)
		{
			tree_member *parent = find_member(tree, lfirst_oid(lp));

			if (parent != NULL)
				component_root(tree->members, member)->component =
					component_root(tree->members, parent)->component;
		}
	}
	foreach(lc, tree->members)
		((tree_member *) lfirst(lc))->component =
			component_root(tree->members, (tree_member *) lfirst(lc))->component;
	tree->components_valid = true;
}

bool
label_tree_conflict(label_tree *tree, Oid member_relid, Oid *first, Oid *second)
{
	tree_member *member = find_member(tree, member_relid);
	tree_member *reference = NULL;
	ListCell   *lc;

	assign_components(tree);
	if (has_own_label(member))
		reference = member;
	else
		foreach(lc, tree->members)
		{
			tree_member *other = (tree_member *) lfirst(lc);

			if (other->component == member->component && has_own_label(other))
			{
				reference = other;
				break;
			}
		}
	if (reference == NULL)
		return false;
	*first = *second = reference->relid;
	if (reference->labels->broken != NULL)
		return true;
	foreach(lc, tree->members)
	{
		tree_member *other = (tree_member *) lfirst(lc);

		if (other->component == member->component && has_own_label(other) &&
			!same_labels(reference, other))
		{
			*second = other->relid;
			return true;
		}
	}
	return false;
}

/* whether the member or one of its ancestors in the tree has a label of its own */
static bool
labelled_from_above(label_tree *tree, tree_member *member)
{
	ListCell   *lc;

	check_stack_depth();
	if (has_own_label(member))
		return true;
	foreach(lc, member->parents)
	{
		tree_member *parent = find_member(tree, lfirst_oid(lc));

		if (parent != NULL && labelled_from_above(tree, parent))
			return true;
	}
	return false;
}

/* whether ancestor is a proper ancestor of member in the tree */
static bool
descends_from(label_tree *tree, tree_member *member, Oid ancestor)
{
	ListCell   *lc;

	check_stack_depth();
	foreach(lc, member->parents)
	{
		tree_member *parent = find_member(tree, lfirst_oid(lc));

		if (lfirst_oid(lc) == ancestor ||
			(parent != NULL && descends_from(tree, parent, ancestor)))
			return true;
	}
	return false;
}

/* whether a descendant of member has a label, its own or from one of its other ancestors */
static bool
has_labelled_descendant(label_tree *tree, tree_member *member)
{
	ListCell   *lc;

	foreach(lc, tree->members)
	{
		tree_member *other = (tree_member *) lfirst(lc);

		if (other != member && other->component == member->component &&
			labelled_from_above(tree, other) && descends_from(tree, other, member->relid))
			return true;
	}
	return false;
}

/*
 * A member labelled itself or by an ancestor has the tree's label.  One
 * without either is classified by its descendants: private when one of
 * them is (its own rows are then read as private rows, which fails
 * closed), unlabelled otherwise -- public descendants do not make its own
 * rows public.
 */
tree_label
label_tree_label_of(label_tree *tree, Oid relid)
{
	Oid			first = InvalidOid;
	Oid			second;
	tree_member *member = find_member(tree, relid);
	tree_label	agreed;

	if (label_tree_conflict(tree, relid, &first, &second))
		return TREE_LABEL_MIXED;
	if (!OidIsValid(first))
		return TREE_LABEL_NONE;		/* no member of the tree has a label */
	/* no conflict: every member with a label of its own has first's */
	agreed = find_member(tree, first)->labels->is_public ? TREE_LABEL_PUBLIC : TREE_LABEL_PRIVATE;
	if (labelled_from_above(tree, member))
		return agreed;
	if (agreed == TREE_LABEL_PRIVATE && has_labelled_descendant(tree, member))
		return TREE_LABEL_PRIVATE;
	return TREE_LABEL_NONE;
}

const relation_labels *
label_tree_own_labels(label_tree *tree, Oid relid)
{
	return find_member(tree, relid)->labels;
}

char *
label_tree_own_label_text(label_tree *tree, Oid relid)
{
	return relation_labels_text(find_member(tree, relid)->labels);
}

char *
label_tree_conflict_text(label_tree *tree, Oid first, Oid second)
{
	if (first == second)
		return psprintf("Table \"%s\" is %s.", get_rel_name(first),
						label_tree_own_label_text(tree, first));
	return psprintf("Table \"%s\" is %s and table \"%s\" is %s.",
					get_rel_name(first), label_tree_own_label_text(tree, first),
					get_rel_name(second), label_tree_own_label_text(tree, second));
}

/* the labels of the tree: those of a member labelled itself (no conflict) */
static const relation_labels *
tree_labels(label_tree *tree)
{
	ListCell   *lc;

	foreach(lc, tree->members)
		if (has_own_label((tree_member *) lfirst(lc)))
			return ((tree_member *) lfirst(lc))->labels;
	return NULL;
}

/* a column of the tree's labels that relid lacks, or NULL */
static const char *
missing_column(Oid relid, const relation_labels *labels)
{
	ListCell   *lc;

	foreach(lc, labels->units)
		if (get_attnum(relid, ((unit_clause *) lfirst(lc))->column) == InvalidAttrNumber)
			return ((unit_clause *) lfirst(lc))->column;
	return NULL;
}

/* ---- reading a relation ---- */

tree_label
relation_label(Oid relid, const relation_labels **labels)
{
	label_tree *tree = label_tree_read_for(relid);
	tree_label label = label_tree_label_of(tree, relid);

	*labels = NULL;
	if (label == TREE_LABEL_PRIVATE || label == TREE_LABEL_PUBLIC)
	{
		*labels = tree_labels(tree);

		/*
		 * An inherited column cannot be dropped or renamed in a child alone;
		 * a parent classified by its children may lack the column.
		 */
		if (missing_column(relid, *labels) != NULL)
		{
			*labels = NULL;
			return TREE_LABEL_MIXED;
		}
	}
	return label;
}

char *
mixed_label_detail(Oid relid)
{
	label_tree *tree = label_tree_read_for(relid);
	Oid			first;
	Oid			second;

	if (!label_tree_conflict(tree, relid, &first, &second))
		return psprintf("Table \"%s\" has no column \"%s\", the privacy unit of its inheritance tree.",
						get_rel_name(relid), missing_column(relid, tree_labels(tree)));
	return label_tree_conflict_text(tree, first, second);
}

void
lock_label_trees(void)
{
	/* an object lock of this database that nothing else takes */
	LockDatabaseObject(SecLabelRelationId, SecLabelRelationId, 0, ExclusiveLock);
}
