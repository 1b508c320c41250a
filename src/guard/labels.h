/*
 * labels.h -- anon_dp metadata held in security labels (provider "anon_dp").
 *
 *   SECURITY LABEL FOR anon_dp ON COLUMN t.c IS 'privacy_unit [unit]';
 *       t is private; c identifies the user of the privacy unit (named
 *       "default" when the label names none) owning each row
 *   SECURITY LABEL FOR anon_dp ON COLUMN t.c IS 'privacy_unit [unit] via r';
 *       t is private; a row belongs to the user of the row of r that t's
 *       foreign key through c references (unit_paths.h)
 *   SECURITY LABEL FOR anon_dp ON TABLE t IS 'public';
 *       t holds no personal data and may be joined freely
 *   SECURITY LABEL FOR anon_dp ON TABLE t IS 'public for u1, u2';
 *       the same, in anonymization queries that protect u1 or u2 only
 *       (anon_dp.privacy_unit chooses the unit a session's queries protect)
 *   SECURITY LABEL FOR anon_dp ON ROLE r IS 'anonymized';
 *       r sees private tables only through anonymization queries (roles.h)
 *   SECURITY LABEL FOR anon_dp ON FUNCTION f(...) IS 'trusted';
 *       anonymized roles may call f on private rows (query_guard.c)
 *
 * Labels are the only source of truth; they survive pg_dump / restore.
 * A table label holds for the table's whole inheritance tree (label_trees.h);
 * the syntax of the labels is label_syntax.h.
 */
#ifndef ANON_DP_LABELS_H
#define ANON_DP_LABELS_H

#include "guard/label_names.h"
#include "guard/label_syntax.h"

/*
 * Labels of tables hold for their inheritance trees and partition
 * hierarchies (label_trees.h): a table without a label of its own takes its
 * ancestors', and a table whose tree mixes labels is neither public nor has
 * a privacy unit.
 */

/* The privacy unit this session's anonymization queries protect (anon_dp.privacy_unit). */
extern const char *anon_dp_session_unit(void);

/* How a relation is labelled for one privacy unit. */
typedef enum unit_label_kind
{
	UNIT_LABEL_NONE,			/* no label of its own or of its tree */
	UNIT_LABEL_MIXED,			/* the labels its tree depends on disagree */
	UNIT_LABEL_PUBLIC,			/* 'public', or 'public for' the unit */
	UNIT_LABEL_COLUMN,			/* private: a column holds the unit */
	UNIT_LABEL_KEY,				/* private: its rows reach the unit through a
								 * foreign key (unit_paths.h) */
	UNIT_LABEL_OTHER			/* labelled for other units only */
} unit_label_kind;

typedef struct unit_label
{
	unit_label_kind kind;
	AttrNumber	column;			/* COLUMN: the unit; KEY: the labelled column */
	const char *via;			/* KEY: the table or constraint the label names */
	const relation_labels *labels;	/* its tree's labels, or NULL */
} unit_label;

extern unit_label anon_dp_unit_label(Oid relid, const char *unit);

/* The column holding the session's privacy unit, or InvalidAttrNumber. */
extern AttrNumber anon_dp_privacy_unit_column(Oid relid);

/*
 * Whether the relation is public for every privacy unit: labelled so, or a
 * descendant of one.  Only such tables are open to analysts outside
 * anonymization queries (privileges.h).
 */
extern bool anon_dp_relation_is_public(Oid relid);

/*
 * Whether a foreign key of a relation not labelled public references the
 * relation or one it is a partition of: writing a private row locks rows
 * of it (FOR KEY SHARE) until the writer's transaction ends.
 */
extern bool anon_dp_relation_referenced_by_private_rows(Oid relid);

/* Whether the relation is public for the session's privacy unit. */
extern bool anon_dp_relation_is_public_for_unit(Oid relid);

/* Whether the labels the relation depends on disagree (private, without a unit). */
extern bool anon_dp_relation_is_mixed(Oid relid);

/* ERROR naming the tables if the relation's labels disagree. */
extern void anon_dp_check_label_tree(Oid relid);

/* Whether a superuser labelled the function 'trusted' (see query_guard.c). */
extern bool anon_dp_function_is_trusted(Oid funcid);

/* Whether the role carries the 'anonymized' label (roles.h: the session's level). */
extern bool anon_dp_role_is_anonymized(Oid roleid);

#endif							/* ANON_DP_LABELS_H */
