/*
 * session_caches.h -- what an anonymization query leaves in the session's
 * caches, made independent of the rows (session_caches.c).
 */
#ifndef ANON_DP_SESSION_CACHES_H
#define ANON_DP_SESSION_CACHES_H

#include "nodes/parsenodes.h"

/* the caches of regular expressions and formats refilled with fixed entries */
extern void session_caches_reset(void);

/* what the statement's calls would set up on first use, set up now */
extern void session_caches_warm(Query *query);

/* a function of the analyst's own (not built in, owned by a superuser or vouched for) */
extern bool session_code_is_analysts(Oid funcid);


#endif							/* ANON_DP_SESSION_CACHES_H */
