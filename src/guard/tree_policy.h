/*
 * tree_policy.h -- which label changes and which changes of inheritance
 * trees anon_dp allows (label_trees.h says what a label of a tree is).
 *
 * Refused, in every session: a label, an ATTACH PARTITION, ALTER TABLE ...
 * INHERIT or CREATE TABLE ... INHERITS that would make the labels of one tree
 * disagree; and a label, DETACH PARTITION or NO INHERIT that would close a
 * table to analysts (it stops being public, or becomes private) while an
 * anonymized role holds a privilege on it (privileges.h).
 */
#ifndef ANON_DP_TREE_POLICY_H
#define ANON_DP_TREE_POLICY_H

#include "nodes/nodes.h"

/*
 * Before SECURITY LABEL on a table (attnum 0: 'public') or on one of its
 * columns ('privacy_unit'; label NULL removes it): ERROR if it would close a
 * table of the tree to analysts while an anonymized role holds a privilege
 * on it; ERROR if it would make two labels of the tree disagree.
 */
extern void check_tree_label_closing(Oid relid, AttrNumber attnum, const char *label);
extern void check_tree_label_conflict(Oid relid, AttrNumber attnum, const char *label);

/* CREATE [FOREIGN] TABLE and ALTER TABLE statements, before they run. */
extern void guard_inheritance_statement(Node *statement);

#endif							/* ANON_DP_TREE_POLICY_H */
