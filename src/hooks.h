/*
 * hooks.h -- the PostgreSQL hooks anon_dp installs (hooks.c).
 */
#ifndef ANON_DP_HOOKS_H
#define ANON_DP_HOOKS_H

extern void anon_dp_install_hooks(void);

#endif							/* ANON_DP_HOOKS_H */
