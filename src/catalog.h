/*
 * catalog.h -- the extension's own objects, as this backend sees them.
 *
 * OIDs of what the anonymizer recognises (the ANON_* aggregates) and emits
 * (the dp_* building blocks, the bounding aggregates, the TABLESAMPLE
 * method), resolved once by name and argument types in the schema each lives
 * in (the extension's schema for what users call, its member schema
 * anon_dp_internal for the rest), among the extension's members only, and
 * cached until pg_proc changes (CREATE / DROP / ALTER EXTENSION all change
 * it).  Nothing else in the module looks up its own functions by name.
 */
#ifndef ANON_DP_CATALOG_H
#define ANON_DP_CATALOG_H

#include "nodes/parsenodes.h"

struct anon_kind;

/* functions the anonymizer emits besides the building blocks of the kinds */
typedef enum anon_dp_emitted
{
	EMIT_PARTITION_COUNT,		/* dp_partition_count: noisy user count, tau */
	EMIT_PARTITION_SELECT,		/* dp_partition_select: optimal or Gaussian selection */
	EMIT_PARTITION_PUBLIC,		/* dp_partition_public: public partitions, C_u */
	EMIT_COUNT_SELECT,			/* dp_count_select: ANON_COUNT that selects */
	EMIT_AVG_SELECT,			/* dp_avg_select: ANON_AVG that selects */
	EMIT_NTILE_ROWS_ADAPTIVE,	/* dp_ntile_rows_adaptive: rows per user chosen */
	EMIT_BOUND_PARTITIONS,		/* anon_dp_bound_partitions: one-pass bounding */
	EMIT_BOUNDED_COLUMN,		/* anon_dp_bounded_column: its kept pairs */
	EMIT_BOUNDED_SAMPLE,		/* anon_dp_bounded_sample: a kept sample as float8[] */
	EMIT_BOUND_WITNESS,			/* anon_dp_bound_witness: a key's type */
	EMIT_BOUNDING_SECRET,		/* anon_dp_bounding_secret: key of one execution */
	EMIT_PICK,					/* anon_dp_pick: fallback bounding */
	EMIT_RANDOM_KEY,			/* anon_dp_random_key: its keys */
	EMIT_RANDOM,				/* anon_dp_random: the sort fallback's order */
	EMIT_RESERVOIR,				/* anon_reservoir: TABLESAMPLE handler */
	EMIT_SAFE_CALL_IMMUTABLE,	/* anon_dp_safe_call_*: SAFE built-in calls, */
	EMIT_SAFE_CALL_STABLE,		/* one per volatility */
	EMIT_SAFE_CALL_VOLATILE,
	EMIT_SAFE_IO_IMMUTABLE,		/* anon_dp_safe_io_*: SAFE I/O casts */
	EMIT_SAFE_IO_STABLE,
	EMIT_SAFE_IO_VOLATILE,
	EMIT_STATISTICS_VISIBLE,	/* anon_dp_statistics_visible: catalog masking */
	EMIT_MASKED_SIZE,			/* anon_dp_masked_size: a size, masked */
	EMIT_CANONICAL_NUMERIC,		/* anon_dp_canonical_key: released keys, */
	EMIT_CANONICAL_FLOAT8,		/* one per type */
	EMIT_CANONICAL_FLOAT4,
	EMIT_CANONICAL_INTERVAL,
	EMIT_CANONICAL_BPCHAR,
	EMIT_INTERVAL_OF,			/* anon_dp_interval_of: an ANON_*_CI interval */
	EMIT_INTERVAL_WITHIN,		/* ... within what the value can be (1.1) */
	EMIT_QUERYABLE,				/* anon_dp_queryable: has_*_privilege of analysts (1.1) */
	EMIT_MASKED_STATISTIC,		/* anon_dp_masked_statistic: statistics views (1.1) */
	EMIT_MASKED_ACTIVITY,		/* anon_dp_masked_activity: pg_stat_activity (1.1) */
	EMIT_CONTRIBUTION_HISTOGRAM,	/* dp_contribution_histogram: what users
									 * contribute (1.1) */
	EMIT_COUNT_
} anon_dp_emitted;

/* The anon_dp extension of this database, or InvalidOid when not installed. */
extern Oid	anon_dp_extension(void);

/* The extension's schema, of what users call (ERROR when not installed). */
extern const char *anon_dp_schema(void);

/*
 * ERROR unless this database's extension objects are of the library's
 * version (ANON_DP_VERSION, from anon_dp.control): a library newer than the
 * objects refuses anonymization until ALTER EXTENSION anon_dp UPDATE.
 */
extern void anon_dp_check_extension_version(void);

/*
 * The result type of the ANON_*_CI forms, anon_dp_interval (value, lower,
 * upper double precision), or InvalidOid when the extension is not installed.
 */
extern Oid	anon_dp_interval_type(void);

/* OID of an emitted function (the extension must be installed). */
extern Oid	anon_dp_emitted_function(anon_dp_emitted which);

/*
 * The same, or InvalidOid when this database's objects lack it (an
 * extension not yet updated to the library's version): for what may fall
 * back to PostgreSQL's behaviour.
 */
extern Oid	anon_dp_emitted_function_if_installed(anon_dp_emitted which);

/*
 * Whether funcid is that emitted function; false, without an error, when the
 * extension is not installed or the function is missing.
 */
extern bool anon_dp_is_emitted_function(Oid funcid, anon_dp_emitted which);

/*
 * The OIDs of an ANON_* kind's aggregate, of its building block, of its
 * Gaussian building block (kind->gaussian_block) and of its extension
 * partial (kind->partial->sample).
 */
extern Oid	anon_dp_kind_aggregate(const struct anon_kind *kind);
extern Oid	anon_dp_kind_block(const struct anon_kind *kind);
extern Oid	anon_dp_kind_gaussian_block(const struct anon_kind *kind);
extern Oid	anon_dp_kind_sample(const struct anon_kind *kind);

/*
 * The kind of an ANON_* aggregate, or NULL when aggfnoid is not one (the
 * kind without DISTINCT); anon_dp_kind_of_call also reads the call's
 * DISTINCT (anon_kind_distinct_twin, or NULL when the kind has no twin).
 */
extern const struct anon_kind *anon_dp_kind_of(Oid aggfnoid);
extern const struct anon_kind *anon_dp_kind_of_call(Aggref *aggref);

/* Whether the function belongs to the extension. */
extern bool anon_dp_is_extension_function(Oid funcid);

/*
 * Whether the function is one of the extension's internal building blocks:
 * every extension function but the ANON_* aggregates and the few functions
 * doc/functions.md gives analysts (an allow-list).
 */
extern bool anon_dp_is_building_block(Oid funcid);

/*
 * Releases: the aggregates that draw noise or select partitions (the kinds'
 * building blocks, their Gaussian variants, and the selection aggregates).
 * Positions (0-based) of their privacy parameters, -1 where a release has
 * none: the epsilon of one partition (the release spends C_u times it),
 * the delta it spends, C_u, and the text naming a selection's mechanism
 * (-1: 'laplace').  structure: how the block spends its epsilon, for the
 * accountant's zCDP charge (a dp_block_structure of dp/dp_accountant.h).
 */
typedef struct anon_dp_release_args
{
	int			epsilon;
	int			delta;
	int			max_groups;
	int			mechanism;
	int			structure;
} anon_dp_release_args;

/* false when aggfnoid is not a release */
extern bool anon_dp_release_arguments(Oid aggfnoid, anon_dp_release_args *args);

/*
 * The analyzed query a utility statement holds (EXPLAIN, DECLARE CURSOR,
 * CREATE TABLE AS / SELECT INTO), or NULL.  The one unwrapper: PREPARE,
 * CREATE VIEW and COPY analyze their query on their own, which passes
 * through the post-parse hook again.
 */
extern Query *anon_dp_utility_query(Node *utility);

extern void anon_dp_catalog_init(void);

#endif							/* ANON_DP_CATALOG_H */
