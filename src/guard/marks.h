/*
 * marks.h -- the mark of a validated private input (layer 2 of the guard).
 *
 * The anonymizer marks the range table entries of the private tables (and
 * views) an anonymization query reads once it has validated and rewritten
 * the query; the executor check of anonymized sessions admits a private
 * table only through a marked entry.
 */
#ifndef ANON_DP_MARKS_H
#define ANON_DP_MARKS_H

#include "nodes/parsenodes.h"

/* Mark every private table and view the query (at any depth) reads. */
extern void mark_private_inputs(Query *query);

extern bool entry_is_marked(RangeTblEntry *rte);

/* Whether a range table (a query's or a planned statement's) holds a marked table. */
extern bool range_table_has_marked_relation(List *range_table);

/* Whether the query, at any depth, reads a marked table (not a catalog read masked). */
extern bool query_reads_marked_table(Query *query);

/* The same for a planned statement's range table. */
extern bool range_table_reads_marked_table(List *range_table);

/* Mark one entry: anon_dp validated (or itself wrote) what reads it. */
extern void mark_entry(RangeTblEntry *rte);

/*
 * Whether the view (at any depth) reads a private table through an unmarked
 * entry, or an unlabelled table; *table names it.
 */
extern bool view_reads_private(Oid viewid, char **table);

#endif							/* ANON_DP_MARKS_H */
