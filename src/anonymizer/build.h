/*
 * build.h -- shared by the files of the build step: build.c (the levels put
 * together, post-processing), build_released.c (the released level, the
 * building blocks of releases, the fence), build_bounding.c (per-user rows,
 * at most C_u per user), row_cap.c (anon_dp.max_rows_contributed),
 * build_public.c (public partitions) and build_leftover.c (the leftover
 * partition).
 */
#ifndef ANON_DP_BUILD_H
#define ANON_DP_BUILD_H

#include "anonymizer/pipeline.h"

/* The rows the released level aggregates: at most C_u per user. */
typedef struct bounded_rows
{
	Query	   *query;			/* columns: the keys, then the partials */
	const char *alias;			/* its name in the released level */
	AttrNumber	first_key;		/* resno of the first key column */
	AttrNumber	first_partial;	/* resno of the first partial column */
	Query	   *per_user;		/* the innermost level, reading the level's FROM */
	int			depth;			/* levels between query and per_user (0: the same) */
	AttrNumber	listed;			/* public partitions: the column marking listed
								 * keys (build_public.c); 0 otherwise */
	AttrNumber	uid;			/* leftover partition: each row's user (sort
								 * strategy only); 0 otherwise */
} bounded_rows;

/* Steps 1 and 2 of the rewrite (doc/rewriter.md), by plan->bounding. */
extern bounded_rows build_bounded_rows(anon_plan *plan);

/* Step 1 alone: GROUP BY uid, keys; columns anon_uid, the keys, the partials. */
extern Query *two_step_per_user(anon_plan *plan);

/* Public partitions: the bounded rows and the public keys, marked (build_public.c). */
extern bounded_rows public_partition_rows(anon_plan *plan, bounded_rows rows);

/* The building block of a release over its partial (selecting or not; build_released.c). */
extern Aggref *release_block(anon_plan *plan, anon_release *release, Var *partial);

/* TABLESAMPLE anon_reservoir(n) on every private table per_user reads. */
extern void cap_rows_per_user(anon_plan *plan, Query *per_user);

/* row_number() OVER (PARTITION BY uid ORDER BY anon_dp_random()), a column of ranked */
extern TargetEntry *add_random_rank(Query *ranked, Var *uid);

/* rank <= n, for a bigint rank */
extern Expr *at_most(Var *rank, int64 n);

/* left UNION ALL right, columns named as left's (build_public.c) */
extern Query *union_all(Query *left, Query *right, const char *left_alias,
						const char *right_alias);

/* The released level over rows (build_released.c). */
extern Query *build_released(anon_plan *plan, bounded_rows *rows, AttrNumber *users_column);

/* The released partitions behind the fence, over released (build_released.c). */
extern Query *build_thresholded(Query *released, AttrNumber users_column, int nkeys);

/* the released partitions in the order of their keys, the first nkeys columns */
extern void order_by_keys(Query *thresholded, int nkeys);

/* The leftover partition: the thresholded level with the leftover row (build_leftover.c). */
extern Query *build_leftover_thresholded(anon_plan *plan, bounded_rows *rows,
										 anonymized_level *built, List **ctes);

/* A release's Laplace building block over the leftover row's partials (build_released.c). */
extern Aggref *leftover_block(anon_plan *plan, anon_release *release, Var *partial);

#endif							/* ANON_DP_BUILD_H */
