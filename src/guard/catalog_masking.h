/*
 * catalog_masking.h -- catalogs as BI tools read them, in anonymized sessions
 * (doc/access.md, "Catalogs").
 */
#ifndef ANON_DP_CATALOG_MASKING_H
#define ANON_DP_CATALOG_MASKING_H

#include "nodes/parsenodes.h"

/*
 * Rewrite the analyzed statement in place so that it shows no size
 * statistic of a relation that is not open to analysts: pg_class is read
 * through a subquery in which reltuples is -1 and relpages and
 * relallvisible are 0 for those relations, and pg_relation_size,
 * pg_total_relation_size, pg_table_size and pg_indexes_size return NULL for
 * them.  A read of pg_class's system columns or whole row is left as it is
 * (and refused), and so is every read in a database without the extension.
 */
extern void mask_catalog_statistics(Query *query);

/* Whether an anonymized role may see the size statistics of a relation. */
extern bool relation_statistics_visible(Oid relid);

/*
 * Whether a statistics view of pg_catalog (pg_stat_user_tables, pg_stats,
 * ...) is read masked, at planning, rather than refused after parse analysis.
 */
extern bool statistics_view_is_masked(Oid relid);

/*
 * At planning, in such a view once expanded: every per-relation counter
 * pg_stat_get_*(relation) reads anon_dp_visible_relation(relation) (NULL for
 * a relation whose statistics are masked), and planner statistics keep the
 * rows of relations whose statistics are visible.
 */
extern void mask_statistics_view(Query *expanded_view);

/* A pg_stat_get_*() call that mask_statistics_view masked. */
extern bool statistics_call_is_masked(Node *node);

#endif							/* ANON_DP_CATALOG_MASKING_H */
