/*
 * anon_kinds.h -- what each ANON_* aggregate is made of.
 *
 * One row per signature of an ANON_* aggregate (sql/anon_dp--1.0.sql and its upgrade scripts).  Every
 * step of the anonymizer reads this table instead of switching on the kind:
 * the catalog resolves the OIDs of the aggregate and of its building block
 * from it, validation names the call by its display name, the plan groups
 * calls into releases, and the builder assembles the per-user partial and the
 * cross-user DP aggregate from it.  Adding an ANON_* aggregate means adding
 * its row here, its building block (src/functions) and tests
 * (doc/architecture.md).
 */
#ifndef ANON_DP_ANON_KINDS_H
#define ANON_DP_ANON_KINDS_H

#define ANON_KIND_MAX_ARGS 4
#define ANON_BLOCK_MAX_ARGS 6

/*
 * The per-user partial of a release (step 1 of the rewrite): one value per
 * user and partition.  The same partial is computed by the one-pass bounding
 * aggregate (a letter of its spec, bound/bound_spec.h) or, on the fallback
 * paths, by an aggregate of pg_catalog.
 */
typedef struct anon_partial
{
	char		bound_letter;	/* BOUND_SPEC_* of anon_dp_bound_partitions: its
								 * argument and result types are in
								 * bound_spec_column_of(); 0: none (the
								 * planner takes a two-step path).  A
								 * partial with both a letter and a sample
								 * is the sample in one pass and
								 * sample(value, n) on the sort path */
	Oid			aggregate;		/* fallback: a pg_catalog aggregate (F_*) ... */
	Oid			aggregate_input;	/* ... over the value cast to this type
									 * (InvalidOid: count(*)), cast to the
									 * letter's result type */
	const char *sample;			/* or the extension's sample(value, n int4),
								 * a bounded array of the user's values
								 * (src/functions/user_samples.c) */
	Oid			sample_input;	/* its value's type: float8 or anyelement */
} anon_partial;

/* how many values of a user a release aggregates per partition */
typedef enum anon_values
{
	VALUES_ONE,					/* one per-user partial */
	VALUES_ROWS,				/* up to m rows (the plan's), contributions m */
	VALUES_DISTINCT				/* up to k distinct values, k the bound argument */
} anon_values;

/* whether a release's noisy count of users can also select partitions */
typedef enum anon_selects
{
	SELECTS_NONE,
	SELECTS_COUNT,				/* per-user counts clamped to [0, 1] (upper bound 1) */
	SELECTS_AVG					/* the count inside ANON_AVG */
} anon_selects;

/* the ANON_*_CI forms: the value with its 95 % interval (doc/functions.md) */
typedef enum anon_interval
{
	INTERVAL_NONE,				/* the plain aggregate: the value */
	INTERVAL_ADDITIVE,			/* value +- the constant half-width of its noise,
								 * written by the post-processing level
								 * (release_noise.c) */
	INTERVAL_BLOCK,				/* the building block returns the interval
								 * (ANON_AVG_CI: it depends on the noisy count) */
	INTERVAL_REFUSED			/* declared only to be refused: no interval */
} anon_interval;

/*
 * What the bounds of a call say about its released value, beyond what its
 * building block keeps it within (a mean, a variance and a quantile stay in
 * [lower, upper] already; a count is non_negative).
 */
typedef enum anon_range
{
	RANGE_FREE,					/* nothing more */
	RANGE_SIGN_OF_BOUNDS		/* a sum of values in [lower, upper] (arguments 2
								 * and 3): at least 0 when lower >= 0, at most 0
								 * when upper <= 0 */
} anon_range;

/* One signature of an ANON_* aggregate and what it becomes. */
typedef struct anon_kind
{
	const char *name;			/* SQL name of the ANON_* aggregate */
	const char *display;		/* its name in messages: "ANON_SUM" */
	int			nargs;			/* its arguments (0: ANON_COUNT(*)) */
	Oid			argtypes[ANON_KIND_MAX_ARGS];	/* ANYOID for "any" */
	const anon_partial *partial;	/* NULL: a call that lacks arguments
									 * (ANON_SUM(x)), declared only to be
									 * refused with the full signature */
	/*
	 * The cross-user DP aggregate over the partial ("building block"):
	 *   block(partial, [fixed_arg], arguments 2..nargs of the call, epsilon, 1)
	 * each argument after the partial cast to the block's declared type;
	 * epsilon is the share of the release, 1 the contributions of one user.
	 */
	const char *block;
	int			block_nargs;
	Oid			block_argtypes[ANON_BLOCK_MAX_ARGS];
	const char *fixed_arg;		/* a constant argument the call does not
								 * write (count's upper bound 1, a quantile's
								 * percentile), or NULL */
	const char *sensitivity;	/* L1 sensitivity of the release per
								 * partition, for documentation and EXPLAIN */
	bool		distinct;		/* ANON_COUNT(DISTINCT ...): the call has
								 * DISTINCT (same aggregate as its twin) */
	anon_values values;
	anon_selects selects;
	const char *gaussian_block; /* the block with Gaussian noise: the same
								 * arguments with (epsilon, delta, C_u) in
								 * place of (epsilon, contributions); NULL */
	bool		non_negative;	/* post-processing: the query sees
								 * GREATEST(release, 0) (a count) */
	anon_interval interval;		/* an ANON_*_CI form */
	anon_range	range;			/* what else bounds the released value */
} anon_kind;

/* All rows, and their number. */
extern const anon_kind anon_kinds[];
extern const int anon_kind_count;

/* What an ANON_* aggregate needs besides its value, for messages. */
typedef struct anon_usage
{
	const char *display;		/* "ANON_SUM" */
	const char *needs;			/* "a lower and an upper bound" */
	const char *usage;			/* "ANON_SUM(value, lower, upper), for example ..." */
} anon_usage;

/* The usage of the aggregate of that display name, or NULL. */
extern const anon_usage *anon_kind_usage(const char *display);

/* position of epsilon among a building block's arguments (0-based) */
#define ANON_BLOCK_EPSILON_ARG(kind) ((kind)->block_nargs - 2)

/*
 * The form of the aggregate of that SQL name that chooses its bounds
 * automatically (ANON_SUM(x), ANON_AVG(x)), or NULL.
 */
extern const anon_kind *anon_kind_automatic(const char *name);

/* The ANON_*(DISTINCT ...) twin of a kind, or NULL when it has none. */
extern const anon_kind *anon_kind_distinct_twin(const anon_kind *kind);

#endif							/* ANON_DP_ANON_KINDS_H */
