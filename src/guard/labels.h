/*
 * labels.h -- anon_dp metadata held in security labels (provider "anon_dp").
 *
 *   SECURITY LABEL FOR anon_dp ON COLUMN t.c IS 'privacy_unit';
 *       t is private; c identifies the privacy unit (user) owning each row
 *   SECURITY LABEL FOR anon_dp ON TABLE t IS 'public';
 *       t holds no personal data and may be joined freely
 *   SECURITY LABEL FOR anon_dp ON ROLE r IS 'anonymized';
 *       r sees private tables only through anonymization queries (roles.h)
 *   SECURITY LABEL FOR anon_dp ON FUNCTION f(...) IS 'trusted';
 *       anonymized roles may call f on private rows (query_guard.c)
 *
 * Labels are the only source of truth; they survive pg_dump / restore.
 * A table label holds for the table's whole inheritance tree (label_trees.h).
 */
#ifndef ANON_DP_LABELS_H
#define ANON_DP_LABELS_H

#include "guard/label_names.h"

/*
 * Labels of tables hold for their inheritance trees and partition
 * hierarchies (label_trees.h): a table without a label of its own takes its
 * ancestors', and a table whose tree mixes labels is neither public nor has
 * a privacy unit.
 */

/* The privacy-unit column of a relation, or InvalidAttrNumber. */
extern AttrNumber anon_dp_privacy_unit_column(Oid relid);

/* Whether the relation is public: labelled so, or a descendant of one. */
extern bool anon_dp_relation_is_public(Oid relid);

/* Whether the labels the relation depends on disagree (private, without a unit). */
extern bool anon_dp_relation_is_mixed(Oid relid);

/* ERROR naming the tables if the relation's labels disagree. */
extern void anon_dp_check_label_tree(Oid relid);

/* Whether a superuser labelled the function 'trusted' (see query_guard.c). */
extern bool anon_dp_function_is_trusted(Oid funcid);

/* Whether the role carries the 'anonymized' label (roles.h: the session's level). */
extern bool anon_dp_role_is_anonymized(Oid roleid);

#endif							/* ANON_DP_LABELS_H */
