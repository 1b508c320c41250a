/*
 * hooks.h -- the PostgreSQL hooks anon_dp installs (hooks.c).
 */
#ifndef ANON_DP_HOOKS_H
#define ANON_DP_HOOKS_H

/*
 * preloaded: the library is loaded through shared_preload_libraries.  A
 * library loaded later in a session (LOAD, or a call of one of its
 * functions) has not guarded that session from its start: it refuses
 * anonymization queries.
 */
extern void anon_dp_install_hooks(bool preloaded);

#endif							/* ANON_DP_HOOKS_H */
