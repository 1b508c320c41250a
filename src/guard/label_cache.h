/*
 * label_cache.h -- the anon_dp labels this backend has read, kept until a
 * change could have made them wrong.
 *
 * Every statement asks whether its session is anonymized (the label of up
 * to three roles), and the guard of an anonymized session asks for the
 * label of every relation it reads.  The answers live in pg_shseclabel and
 * pg_seclabel, which have no syscache; reading them for every question made
 * ordinary statements of every session pay two catalog scans each.
 *
 * An answer is kept until this backend sees an invalidation that could
 * concern it:
 *   - any relcache invalidation (local or from another backend): the label
 *     provider's hook (label_policy.c) invalidates the relcache entry of the
 *     labelled table, or of pg_shseclabel for a role label, so that every
 *     backend of the cluster hears of a new label when it commits; a tree
 *     changes with relcache invalidations of its members, and
 *     tree_policy.c adds one to every ATTACH/DETACH PARTITION and
 *     INHERIT/NO INHERIT;
 *   - any change of pg_authid (a role created, dropped, altered);
 *   - any shared invalidation message at all from another backend.
 * Labels written into pg_seclabel or pg_shseclabel by hand (a superuser's
 * INSERT or UPDATE of the catalog) send no message of their own: they hold
 * from the next invalidation on, at the latest when the session reconnects;
 * SECURITY LABEL is the way to change a label (access.md section 2).
 * Pending invalidations are accepted whenever the answer is asked for, so a
 * label committed by another session holds from this session's next
 * statement on, even inside an open transaction.
 */
#ifndef ANON_DP_LABEL_CACHE_H
#define ANON_DP_LABEL_CACHE_H

#include "catalog/objectaddress.h"

#include "guard/label_trees.h"

/* Registers the invalidation callbacks (_PG_init). */
extern void label_cache_init(void);

/*
 * A number that changes whenever what this backend has read about labels
 * may be out of date; accepts pending invalidations first.  Callers keeping
 * an answer of their own (roles.c) keep it with this number.
 */
extern uint64 label_cache_generation(void);

/* Whether the role carries the 'anonymized' label. */
extern bool label_cache_role_is_anonymized(Oid roleid);

/*
 * The label of a relation as reading it sees it (label_trees.h:
 * relation_label), with a copy of its labels in the caller's memory context.
 */
extern tree_label label_cache_relation_label(Oid relid, const relation_labels **labels);

/*
 * Called before a label of the object changes (the label provider's hook),
 * or a table's inheritance tree (tree_policy.c: a relation): makes every
 * backend, this one included, forget what it read about labels once the
 * change is made -- this backend at the end of the statement, the others
 * when the transaction commits.  One message suffices for a whole tree,
 * since any relcache invalidation empties the cache.
 */
extern void label_cache_announce_change(const ObjectAddress *object);

#endif							/* ANON_DP_LABEL_CACHE_H */
