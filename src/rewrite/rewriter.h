/*
 * rewriter.h -- the anonymization rewriter (post_parse_analyze_hook).
 */
#ifndef ANON_DP_REWRITER_H
#define ANON_DP_REWRITER_H

extern void anon_dp_install_rewriter(void);

#endif							/* ANON_DP_REWRITER_H */
