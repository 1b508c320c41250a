/*
 * guard.h -- no path to raw private rows for anonymized sessions.
 *
 * Three layers (doc/access.md):
 *   1. after parse analysis, before the rewrite: every query of an anonymized
 *      session is checked -- private tables, views over them and unlabelled
 *      tables only inside anonymization queries; no internal building blocks,
 *      statistics catalogs or sequence counters; inside anonymization
 *      queries no user-defined or side-effecting functions;
 *   2. after the rewrite, the private tables an anonymization query reads are
 *      marked; the planner carries the mark into the views they read;
 *   3. at executor start (every statement, including function bodies, rules,
 *      COPY and plans cached before the level changed) an anonymized session
 *      may touch a private table only through a marked range table entry.
 */
#ifndef ANON_DP_GUARD_H
#define ANON_DP_GUARD_H

#include "postgres.h"
#include "nodes/parsenodes.h"

/* Layer 1: call on the analyzed query before anonymization queries are rewritten. */
extern void anon_dp_guard_query(Query *query);

/* Layer 2: call on the rewritten query. */
extern void anon_dp_mark_anonymization_inputs(Query *query);

/* Installs the planner, executor and utility hooks. */
extern void anon_dp_install_guard(void);

#endif							/* ANON_DP_GUARD_H */
