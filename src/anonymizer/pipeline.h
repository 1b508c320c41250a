/*
 * pipeline.h -- the steps of the anonymizer and what each hands to the next
 * (doc/architecture.md):
 *
 *   find_levels.c      statement       -> anon_level *      (one per level)
 *   validate_level.c   anon_level      -> validated_level  (paper Table 2)
 *   plan.c             validated_level -> anon_plan        (settings read here)
 *   build.c            anon_plan       -> anonymized_level (new query trees)
 *   verify.c           anonymized_level: invariants, then the guard's marks
 *   release_arguments.c  the releases' constants, checked as their building
 *                      blocks will check them, under the ANON_* names
 *
 * Every step works on the analyzed query tree; nothing reads the statement
 * text again, so what runs is what was validated.
 */
#ifndef ANON_DP_PIPELINE_H
#define ANON_DP_PIPELINE_H

#include "nodes/parsenodes.h"

#include "anonymizer/anon_kinds.h"
#include "dp/dp_selection.h"
#include "functions/noisy_aggregates.h"

/* ---- find_levels.c ---- */

/* One anonymization level of the statement. */
typedef struct anon_level
{
	Query	   *query;			/* the level; rewritten in place at the end */
	List	   *outer;			/* Query *: enclosing levels, innermost first */
} anon_level;

extern List *find_anonymization_levels(Query *statement);

/* The aggregates of exactly this level (Aggref *), wherever they are written. */
extern List *level_aggregates(Query *query);

/* Whether one of the aggregates of exactly this level is an ANON_* aggregate. */
extern bool is_anonymization_level(Query *query);

/* ---- validate_level.c ---- */

/* One ANON_* call of a level. */
typedef struct anon_call
{
	Aggref	   *aggref;
	const anon_kind *kind;
} anon_call;

/* What validation proved about a level. */
typedef struct validated_level
{
	anon_level *level;
	List	   *calls;			/* anon_call *: every aggregate of the level */
	Expr	   *unit;			/* the privacy unit of each row of its FROM: a
								 * column, or COALESCE over the sides of FULL
								 * JOINs */
	List	   *key_forms;		/* Expr *: each GROUP BY key as it is released */
	struct public_partitions *public_keys;	/* GROUP BY keys of a public table
											 * (public_partitions.c), or NULL */
	List	   *outer_private_ctes; /* String: private WITH queries it reads
									 * that are defined around the level */
} validated_level;

extern validated_level *validate_anonymization_level(anon_level *level);

/* ---- released_keys.c ---- */

/*
 * Each GROUP BY key of the level as it is released: itself when equal values
 * are written alike, else anon_dp_canonical_key(key); refuses the others.
 */
extern List *released_key_forms(Query *level);

/* ---- plan.c ---- */

/* How at most C_u partitions of each user are kept (doc/rewriter.md, step 2). */
typedef enum bounding_strategy
{
	BOUNDING_NONE,				/* no GROUP BY: one per-user row per user */
	BOUNDING_ONE_PASS,			/* anon_dp_bound_partitions, grouped by user */
	BOUNDING_PICK,				/* GROUP BY user, keys; anon_dp_pick per user */
	BOUNDING_SORT				/* GROUP BY user, keys; row_number() in random order */
} bounding_strategy;

/* One noisy value: equal ANON_* calls of a level share it. */
typedef struct anon_release
{
	const anon_kind *kind;
	Aggref	   *call;			/* its first call: the arguments */
	double		epsilon;		/* its share of anon_dp.epsilon, per partition */
	bool		gaussian;		/* Gaussian noise over all partitions of a user
								 * (kind->gaussian_block) */
	double		delta;			/* the delta its Gaussian noise spends, else 0 */
	int32		values;			/* VALUES_ROWS: rows of a user it aggregates (m) */
	bool		choose_rows;	/* VALUES_ROWS, m > 1, anon_dp.quantile_rows = auto:
								 * dp_ntile_rows_adaptive chooses up to m */
} anon_release;

/* How a grouped level selects the partitions it releases (doc/noise.md). */
typedef enum selection_kind
{
	SELECTION_NONE,				/* no GROUP BY: one partition, always released */
	SELECTION_SEPARATE,			/* its own noisy user count (or optimal choice) */
	SELECTION_REUSED,			/* the noisy count of a release (ANON_COUNT, ANON_AVG) */
	SELECTION_PUBLIC			/* public partitions: every key of a public table */
} selection_kind;

typedef struct anon_plan
{
	Query	   *level;			/* the validated level */
	Expr	   *unit;			/* its privacy unit */
	List	   *keys;			/* TargetEntry *: GROUP BY keys, in order */
	List	   *key_forms;		/* Expr *: what the per-user level computes
								 * for each key (released_keys.c) */
	List	   *releases;		/* anon_release * */
	bool		grouped;		/* GROUP BY: partitions are thresholded */
	double		epsilon;		/* anon_dp.epsilon: the whole query's */
	double		user_count_epsilon; /* SELECTION_SEPARATE: its share */
	double		delta;			/* anon_dp.delta: the whole query's */
	selection_kind selection;
	dp_selection_mechanism mechanism;	/* SEPARATE or REUSED */
	anon_release *selecting;	/* REUSED: the release whose count selects */
	double		selection_delta;	/* delta of the selection (0 without) */
	double		users_for_half; /* partitions of this many users kept at 50 % */
	struct public_partitions *public_keys;	/* SELECTION_PUBLIC */
	int64		max_groups;		/* C_u */
	bounding_strategy bounding;
	int64		row_cap;		/* anon_dp.max_rows_contributed; 0: none */
	List	   *outer_private_ctes; /* from validation, for the row cap */
	bool		leftover;		/* anon_dp.leftover_partition: the suppressed
								 * partitions released as one more row */
	double		leftover_delta; /* delta of the leftover row's selection */
} anon_plan;

extern anon_plan *plan_anonymization(validated_level *valid);

/* ---- build.c ---- */

/* The rewritten level and the levels it is made of, outermost first. */
typedef struct anonymized_level
{
	Query	   *query;			/* post-processing: takes the level's place */
	Query	   *thresholded;	/* GROUP BY: the partitions that passed tau,
								 * behind a fence (OFFSET 0); else NULL */
	Query	   *released;		/* GROUP BY keys: noisy values, noisy user count */
	Query	   *per_user;		/* the level's FROM and WHERE, one row per user
								 * (and partition) */
	AttrNumber	users_column;	/* of released: the noisy user count, or 0 */
	Query	   *leftover;		/* leftover partition: its released level (no
								 * keys, its own user count), else NULL */
	AttrNumber	leftover_users; /* of leftover: its noisy user count */
} anonymized_level;

extern anonymized_level *build_anonymized_level(anon_plan *plan);

/* ---- verify.c ---- */

extern void verify_anonymized_level(anon_plan *plan, anonymized_level *built);

/* ---- release_arguments.c ---- */

/*
 * The checks of each release's building block on its constant arguments
 * (bounds, percentile, epsilon share), made now and naming the ANON_* call.
 */
extern void check_release_arguments(anon_plan *plan, anonymized_level *built);

/* The arguments of a built building block, folded as the planner folds them. */
extern List *folded_block_arguments(Aggref *block);

/* ---- release_noise.c ---- */

/* The noise of a release, from the plan its building block will make. */
extern anon_block_noise release_noise(anon_plan *plan, anon_release *release);

/*
 * What a release's true value can be, from its kind and its call's bounds
 * (-Infinity, +Infinity: no limit): a count is at least 0, a sum of values
 * in [lower, upper] at least 0 when lower >= 0 and at most 0 when upper <= 0.
 */
typedef struct release_range
{
	double		least;
	double		greatest;
} release_range;

extern release_range release_possible_range(anon_release *release);

/*
 * An ANON_*_CI release with additive noise: its interval, over its column,
 * the value and both ends within the range.
 */
extern Expr *released_interval(anon_plan *plan, anon_release *release, Var *column,
							   release_range range);

/* ERROR for an ANON_*_CI form that has no interval (a quantile's, ...). */
extern void refuse_without_interval(const char *display) pg_attribute_noreturn();

/* ---- refusals.c ---- */

/* ERROR "anonymization query: <message>" with a hint, SQLSTATE 0A000. */
extern void refuse(const char *message, const char *hint) pg_attribute_noreturn();

#endif							/* ANON_DP_PIPELINE_H */
