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
 */
#ifndef ANON_DP_LABELS_H
#define ANON_DP_LABELS_H

#define ANON_DP_LABEL_PROVIDER "anon_dp"
#define ANON_DP_LABEL_PRIVACY_UNIT "privacy_unit"
#define ANON_DP_LABEL_PUBLIC "public"
#define ANON_DP_LABEL_ANONYMIZED "anonymized"
#define ANON_DP_LABEL_TRUSTED "trusted"

extern void anon_dp_register_labels(void);

/* The privacy-unit column of a relation, or InvalidAttrNumber. */
extern AttrNumber anon_dp_privacy_unit_column(Oid relid);

/* Whether the relation is labelled 'public'. */
extern bool anon_dp_relation_is_public(Oid relid);

/* Whether a superuser labelled the function 'trusted' (see access/guard.c). */
extern bool anon_dp_function_is_trusted(Oid funcid);

#endif							/* ANON_DP_LABELS_H */
