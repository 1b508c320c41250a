/*
 * roles.h -- access levels of sessions.
 *
 * A role labelled
 *     SECURITY LABEL FOR anon_dp ON ROLE analyst IS 'anonymized';
 * sees private tables only through anonymization queries.  The level of a
 * session is decided by its session user (and, to be safe, by the role it
 * has SET ROLE to and the role a SECURITY DEFINER function runs as): any of
 * them labelled makes the session anonymized.  The setting
 * anon_dp.access_level may lower a session to 'anonymized', never raise it.
 */
#ifndef ANON_DP_ROLES_H
#define ANON_DP_ROLES_H

/* Whether the current session (or the role it runs as) is anonymized. */
extern bool anon_dp_session_is_anonymized(void);

/*
 * Runs step(arg) as anon_dp's own work: the statements it runs through SPI
 * are not the session's, and the guard treats them as a full session's.
 * Only for fixed SQL text of the extension over its own tables, with the
 * search_path pinned (budget/ledger_store.c).
 */
extern void anon_dp_run_internal(void (*step) (void *), void *arg);

/*
 * The role whose privacy budget an anonymized session spends: the first of
 * its session user, outer user (SET ROLE) and current user that is labelled
 * 'anonymized'; for a session lowered by anon_dp.access_level, its outer
 * user.
 */
extern Oid	anon_dp_budget_role(void);

/*
 * Whether the current user administers anon_dp (labels and budgets): a
 * superuser, or a member of anon_dp.label_admin_role, in a session that is
 * not anonymized.
 */
extern bool anon_dp_is_label_admin(void);

/*
 * Refuses (ERROR) unless the current user may change anon_dp labels: a
 * superuser, or a member of anon_dp.label_admin_role, in a session that is
 * not anonymized.
 */
extern void anon_dp_check_label_admin(void);

/* Checks a label on a role; NULL removes it. */
extern void anon_dp_check_role_label(Oid roleid, const char *label);

#endif							/* ANON_DP_ROLES_H */
