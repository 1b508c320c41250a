/*
 * contributions.h -- the measurement behind anon_dp_contribution_bounds:
 * an anonymization level rewritten into one noisy histogram of how many
 * groups, and how many rows in one group, its users contribute
 * (contributions.c, doc/noise.md §11).
 */
#ifndef ANON_DP_CONTRIBUTIONS_H
#define ANON_DP_CONTRIBUTIONS_H

#include "anonymizer/pipeline.h"

/* The level as its measurement at epsilon: one row, one float8[] column. */
extern Query *build_contribution_measurement(anon_plan *plan, double epsilon);

/*
 * NOTICE when a grouped level is grouped by its privacy unit: every group
 * holds one user and none passes the threshold (the query returns nothing).
 */
extern void notice_grouped_by_unit(anon_plan *plan);

/* ERROR unless the level is the whole statement, its only level. */
extern void check_measured_level(Query *statement, anon_level *level, int levels);

#endif							/* ANON_DP_CONTRIBUTIONS_H */
