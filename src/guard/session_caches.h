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

/* code anon_dp has not vetted (not built in, not anon_dp's, not vouched for) */
extern bool session_code_unvetted(Oid funcid);

/* a built-in that reads what moves during a statement (clocks, other sessions) */
extern bool session_code_reads_moving_state(Oid funcid);


#endif							/* ANON_DP_SESSION_CACHES_H */
