/*
 * reservoir_tablesample.h -- TABLESAMPLE anon_reservoir(n)
 * (reservoir_tablesample.c).
 */
#ifndef ANON_DP_RESERVOIR_TABLESAMPLE_H
#define ANON_DP_RESERVOIR_TABLESAMPLE_H

/* n when it is a valid number of rows per privacy unit; an error otherwise */
extern int64 anon_reservoir_checked_rows(int64 keep);

#endif							/* ANON_DP_RESERVOIR_TABLESAMPLE_H */
