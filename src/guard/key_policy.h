/*
 * key_policy.h -- statements that would break a privacy unit reached
 * through foreign keys (unit_paths.h; doc/rewriter.md §1, "When the schema
 * changes").
 *
 * Every label 'privacy_unit [unit] via ...' of the database is resolved
 * before and after each statement that can change a key, a label, a table
 * name or a schema (SECURITY LABEL, ALTER TABLE, DROP, DROP OWNED, RENAME,
 * ALTER ... SET SCHEMA).  One that resolved before and does not after is
 * refused: the statement fails with the label and the problem named.  A
 * label being set that does not resolve yet (its key or the referenced
 * table's label comes later, as in a restore) is accepted with a WARNING;
 * queries that read the table are refused until it resolves.  These
 * statements take the label trees' lock (label_trees.h) while the database
 * has such labels, so that each one's check sees the others' results.
 */
#ifndef ANON_DP_KEY_POLICY_H
#define ANON_DP_KEY_POLICY_H

#include "nodes/nodes.h"

typedef struct key_labels key_labels;

/* Before a utility statement runs: the labels it must keep resolving, or NULL. */
extern key_labels *key_labels_before(Node *statement);

/* After it ran: ERROR if it broke one of them (WARNING for a label it set). */
extern void key_labels_after(Node *statement, key_labels *before);

#endif							/* ANON_DP_KEY_POLICY_H */
