/*
 * failures.h -- how many anonymization statements of a role have failed
 * (doc/access.md §5, "One bit per failed statement").
 *
 * Whether such a statement failed is the one thing its error says, and an
 * analyst can make it depend on one user's value; each failure is a bit.
 * The failures of each (database, role) are counted in shared memory; a role
 * that reaches anon_dp.max_failed_statements runs no more anonymization
 * queries until a data owner resets the count (anon_dp_reset_failures), which
 * bounds what the channel can carry per role.  The count lives as long as
 * the server: a restart resets it.
 */
#ifndef ANON_DP_FAILURES_H
#define ANON_DP_FAILURES_H

/* shared memory (shmem_request_hook, shmem_startup_hook) */
extern void failures_request_shmem(void);
extern void failures_startup_shmem(void);

/* ERROR if the role has reached the limit (before the statement runs) */
extern void failures_check(Oid roleid);

/*
 * A statement counts as failed from the moment it starts: failures_begin
 * before it runs, failures_end once it has completed or failed.  An exit between
 * the two that no PG_CATCH sees (a FATAL: pg_terminate_backend of the
 * statement's backend from a second session, a lost connection) leaves it
 * counted, as does an error.  Statements of this backend in flight do not
 * count against its own nested statements (failures_check).
 */
extern void failures_begin(Oid roleid);
extern void failures_end(Oid roleid, bool failed);

/*
 * the role's count (0 when none, or without the preloaded library): with the
 * statements in flight in other backends, without this backend's own
 */
extern int	failures_of(Oid roleid);

/* back to 0 */
extern void failures_reset(Oid roleid);

#endif							/* ANON_DP_FAILURES_H */
