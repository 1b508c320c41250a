/*
 * label_trees.h -- anon_dp labels of tables in inheritance trees and
 * partition hierarchies (doc/rewriter.md §1, "Inheritance and partitions").
 *
 * Reading a parent reads the rows of all its descendants, so a label holds
 * for a whole tree: the tables connected through pg_inherits (with multiple
 * inheritance, also a child's other parents and their relatives).  The
 * labels set on tables of one tree must agree: the same table label
 * ('public', or 'public for' the same units) and the same clauses on
 * columns of the same names (an inherited column keeps its name).
 * A table without a label of its own takes the label of its labelled
 * ancestors -- a new partition of a private table is private.  A table
 * without a label of its own or of an ancestor is classified by its
 * descendants: private if one of them is (its own rows are then read as
 * private rows), else unlabelled -- public children do not make a parent's
 * own rows public.
 *
 * label_policy.c and tree_policy.c refuse every label and every ATTACH
 * PARTITION, INHERIT, PARTITION OF and INHERITS that would make the labels
 * of a tree disagree.  A tree whose labels disagree anyway (changed while
 * anon_dp was not loaded) is mixed: every table that reads or takes a label
 * from a disagreeing table counts as private without a privacy unit, which
 * the guard refuses to analysts and the anonymizer refuses to use.
 */
#ifndef ANON_DP_LABEL_TREES_H
#define ANON_DP_LABEL_TREES_H

#include "nodes/pg_list.h"

#include "guard/label_syntax.h"

typedef enum tree_label
{
	TREE_LABEL_NONE,			/* no label of its own or of an ancestor */
	TREE_LABEL_PUBLIC,
	TREE_LABEL_PRIVATE,
	TREE_LABEL_MIXED			/* the labels it depends on disagree */
} tree_label;

/* The labels set on the relation itself (not on its tree). */
extern relation_labels *relation_own_labels(Oid relid);

/*
 * The label of relid as reading it sees it: its own, its ancestors' or its
 * descendants' (above), and TREE_LABEL_MIXED unless its descendants, and
 * every table their labels come from, agree (and relid has every column
 * they name).  With TREE_LABEL_PRIVATE or TREE_LABEL_PUBLIC, *labels are
 * the tree's labels (else NULL).  TREE_LABEL_PUBLIC is 'public' for every
 * privacy unit; a table public for some units only is private to the others.
 */
extern tree_label relation_label(Oid relid, const relation_labels **labels);

/* For messages about a mixed relation: 'table "a" is public and table "b" is private ...'. */
extern char *mixed_label_detail(Oid relid);

/* ---- a whole tree, to try a change before it is made (tree_policy.c) ---- */

typedef struct label_tree label_tree;

/* An empty model; the whole tree of relid, as the catalogs hold it now. */
extern label_tree *label_tree_new(void);
extern label_tree *label_tree_read(Oid relid);

/* Add the whole tree of relid, if it is not in tree already. */
extern void label_tree_add(label_tree *tree, Oid relid);

/* The relations of the tree (Oid). */
extern List *label_tree_members(label_tree *tree);

/* A table being created, with these parents (in the tree); its Oid is InvalidOid. */
extern void label_tree_add_new(label_tree *tree, List *parents);

/* Changes of the model; the relations must be in the tree. */
extern void label_tree_link(label_tree *tree, Oid parent, Oid child);
extern void label_tree_unlink(label_tree *tree, Oid parent, Oid child);
extern void label_tree_relabel(label_tree *tree, Oid relid, AttrNumber attnum, const char *label);

/* The label of a member in the model. */
extern tree_label label_tree_label_of(label_tree *tree, Oid relid);

/*
 * Two members of member's tree (as the model links it) whose labels
 * disagree: member itself first if it has a label; one member twice if it
 * has both labels.
 */
extern bool label_tree_conflict(label_tree *tree, Oid member, Oid *first, Oid *second);

/* The member's own labels. */
extern const relation_labels *label_tree_own_labels(label_tree *tree, Oid relid);

/* "public", "private (privacy unit "uid")", or "unlabelled": the member's own label. */
extern char *label_tree_own_label_text(label_tree *tree, Oid relid);

/* 'Table "a" is public and table "b" is private (privacy unit "uid").' */
extern char *label_tree_conflict_text(label_tree *tree, Oid first, Oid second);

/*
 * Serializes, until the end of the transaction, the statements that change
 * labels, inheritance or analysts' privileges, so that each one's checks
 * see the others' results.
 */
extern void lock_label_trees(void);

#endif							/* ANON_DP_LABEL_TREES_H */
