/*
 * catalog_masking.h -- catalogs as BI tools read them, in anonymized sessions
 * (doc/access.md, "Catalogs").
 */
#ifndef ANON_DP_CATALOG_MASKING_H
#define ANON_DP_CATALOG_MASKING_H

#include "fmgr.h"
#include "nodes/parsenodes.h"

/*
 * Rewrite the analyzed statement in place so that it shows no size
 * statistic of a relation that is not open to analysts: pg_class is read
 * through a subquery in which reltuples is -1 and relpages and
 * relallvisible are 0 for those relations, and pg_relation_size,
 * pg_total_relation_size, pg_table_size and pg_indexes_size return NULL for
 * them (they become anon_dp_masked_size, which calls PostgreSQL's function
 * for the others).  A read of pg_class's system columns or whole row is left as it is
 * (and refused), and so is every read in a database without the extension.
 */
extern void mask_catalog_statistics(Query *query);

/* Whether an anonymized role may see the size statistics of a relation. */
extern bool relation_statistics_visible(Oid relid);

/* The size functions anon_dp_masked_size(which, rel, fork) stands in for */
typedef enum masked_size_function
{
	MASKED_RELATION_SIZE = 1,	/* pg_relation_size(rel[, fork]) */
	MASKED_TOTAL_RELATION_SIZE,	/* pg_total_relation_size(rel) */
	MASKED_TABLE_SIZE,			/* pg_table_size(rel) */
	MASKED_INDEXES_SIZE			/* pg_indexes_size(rel) */
} masked_size_function;

/*
 * Whether a statistics view of pg_catalog (pg_stat_user_tables, pg_stats,
 * ...) is read masked, at planning, rather than refused after parse analysis
 * (statistics_views.c).
 */
extern bool statistics_view_is_masked(Oid relid);

/*
 * At planning, in such a view once expanded: each per-relation counter
 * pg_stat_get_<counter>(relation) that only writes and explicit maintenance
 * move becomes anon_dp_masked_statistic(counter, relation, NULL::type) (NULL
 * for a relation whose statistics are masked); every other counter (scans,
 * rows read, blocks, dead rows: what reads move, also of public tables) is
 * NULL; and planner statistics keep the rows of relations whose statistics
 * are visible.
 */
extern void mask_statistics_view(Query *expanded_view);

/*
 * At planning, in any query of an anonymized session: pg_stat_get_activity
 * in a FROM (pg_stat_activity, pg_stat_ssl, pg_stat_gssapi once expanded)
 * becomes anon_dp_masked_activity, which leaves out wait events, parallel
 * workers and leader_pid.
 */
extern void mask_activity_functions(Query *query);

/*
 * The C function of a counter anon_dp_masked_statistic shows, or NULL: it
 * calls it directly (anonymized sessions may not call pg_stat_get_*() by OID,
 * src/guard/hidden_builtins.h).
 */
extern PGFunction shown_relation_counter(Oid counter);

#endif							/* ANON_DP_CATALOG_MASKING_H */
