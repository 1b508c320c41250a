/*
 * label_policy.h -- the "anon_dp" security label provider: which label may
 * be set on which object, and by whom (doc/access.md, "Label administration").
 */
#ifndef ANON_DP_LABEL_POLICY_H
#define ANON_DP_LABEL_POLICY_H

extern void anon_dp_register_label_provider(void);

#endif							/* ANON_DP_LABEL_POLICY_H */
