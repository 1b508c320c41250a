-- anon_dp 1.0: user-level differential privacy for SQL aggregate queries
\echo Use "CREATE EXTENSION anon_dp" to load this file. \quit

--------------------------------------------------------------------------
-- Query-level privacy arithmetic (pure functions of their arguments)
--------------------------------------------------------------------------

-- epsilon / (C_u (N + 1)): the share of each ANON aggregate and of the
-- noisy user count of a query with N ANON aggregates
CREATE FUNCTION anon_dp_epsilon_share(epsilon float8, max_groups_contributed int8,
                                      n_aggregates int4)
RETURNS float8 AS 'MODULE_PATHNAME', 'anon_dp_epsilon_share'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

-- tau: a partition is released iff its noisy user count (drawn with this
-- epsilon by dp_partition_count) is at least tau
CREATE FUNCTION anon_dp_tau(epsilon float8, delta float8, max_groups_contributed int8)
RETURNS float8 AS 'MODULE_PATHNAME', 'anon_dp_tau'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

-- the paper's Theorem 2 tau for continuous Laplace noise of the same scale
CREATE FUNCTION anon_dp_tau_continuous(epsilon float8, delta float8,
                                       max_groups_contributed int8)
RETURNS float8 AS 'MODULE_PATHNAME', 'anon_dp_tau_continuous'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

-- a uniform double in [0, 1) from the CSPRNG (random choice of kept rows)
-- The access level of this session: 'anonymized' or 'full' (doc/access.md).
CREATE FUNCTION anon_dp_access_level() RETURNS text
    AS 'MODULE_PATHNAME', 'anon_dp_access_level'
    LANGUAGE C STABLE STRICT PARALLEL SAFE;

CREATE FUNCTION anon_dp_random() RETURNS float8
AS 'MODULE_PATHNAME', 'anon_dp_random' LANGUAGE C VOLATILE PARALLEL SAFE;

--------------------------------------------------------------------------
-- Cross-user DP aggregates (building blocks; every input row is one
-- contribution of one privacy unit).  Bounds and privacy parameters must be
-- constants of the query.  Transition, combine and (de)serialize functions
-- are deterministic; final functions draw noise and are VOLATILE.
-- The aggregates are PARALLEL RESTRICTED: a release runs once, in the
-- leader; a plan subtree below Gather may run in every participant, each
-- drawing its own noise (doc/budget.md).  Combine and (de)serialize functions
-- stay for other callers of the states.
--------------------------------------------------------------------------

-- shared support functions for flat states
CREATE FUNCTION dp_sum_combine(internal, internal) RETURNS internal
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION dp_sum_serialize(internal) RETURNS bytea
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dp_sum_deserialize(bytea, internal) RETURNS internal
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- dp_count(per_unit_count, upper, epsilon, contributions) -> bigint
-- sum of per-unit counts clamped to [0, upper]; sensitivity upper
CREATE FUNCTION dp_count_transfn(internal, int8, int8, float8, int4) RETURNS internal
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION dp_count_final(internal, int8, int8, float8, int4) RETURNS int8
AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE AGGREGATE dp_count(int8, int8, float8, int4) (
    SFUNC = dp_count_transfn, STYPE = internal, SSPACE = 256,
    COMBINEFUNC = dp_sum_combine,
    SERIALFUNC = dp_sum_serialize, DESERIALFUNC = dp_sum_deserialize,
    FINALFUNC = dp_count_final, FINALFUNC_EXTRA,
    PARALLEL = RESTRICTED);

-- dp_sum(value, lower, upper, epsilon, contributions); sensitivity max(|lower|, |upper|)
CREATE FUNCTION dp_sum_int4_transfn(internal, int4, int4, int4, float8, int4) RETURNS internal
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION dp_sum_int8_transfn(internal, int8, int8, int8, float8, int4) RETURNS internal
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION dp_sum_float8_transfn(internal, float8, float8, float8, float8, int4) RETURNS internal
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION dp_sum_numeric_transfn(internal, numeric, numeric, numeric, float8, int4) RETURNS internal
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION dp_sum_int4_final(internal, int4, int4, int4, float8, int4) RETURNS int8
AS 'MODULE_PATHNAME', 'dp_sum_int_final' LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE FUNCTION dp_sum_int8_final(internal, int8, int8, int8, float8, int4) RETURNS int8
AS 'MODULE_PATHNAME', 'dp_sum_int_final' LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE FUNCTION dp_sum_float8_final(internal, float8, float8, float8, float8, int4) RETURNS float8
AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE FUNCTION dp_sum_numeric_final(internal, numeric, numeric, numeric, float8, int4) RETURNS numeric
AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL SAFE;

CREATE AGGREGATE dp_sum(int4, int4, int4, float8, int4) (
    SFUNC = dp_sum_int4_transfn, STYPE = internal, SSPACE = 256,
    COMBINEFUNC = dp_sum_combine,
    SERIALFUNC = dp_sum_serialize, DESERIALFUNC = dp_sum_deserialize,
    FINALFUNC = dp_sum_int4_final, FINALFUNC_EXTRA, PARALLEL = RESTRICTED);
CREATE AGGREGATE dp_sum(int8, int8, int8, float8, int4) (
    SFUNC = dp_sum_int8_transfn, STYPE = internal, SSPACE = 256,
    COMBINEFUNC = dp_sum_combine,
    SERIALFUNC = dp_sum_serialize, DESERIALFUNC = dp_sum_deserialize,
    FINALFUNC = dp_sum_int8_final, FINALFUNC_EXTRA, PARALLEL = RESTRICTED);
CREATE AGGREGATE dp_sum(float8, float8, float8, float8, int4) (
    SFUNC = dp_sum_float8_transfn, STYPE = internal, SSPACE = 256,
    COMBINEFUNC = dp_sum_combine,
    SERIALFUNC = dp_sum_serialize, DESERIALFUNC = dp_sum_deserialize,
    FINALFUNC = dp_sum_float8_final, FINALFUNC_EXTRA, PARALLEL = RESTRICTED);
-- dp_sum_bigint: per-user sums of bigint columns (numeric) with bigint bounds -> bigint
-- (a separate name: as an overload of dp_sum it would make calls ambiguous)
CREATE FUNCTION dp_sum_numeric_int8_transfn(internal, numeric, int8, int8, float8, int4) RETURNS internal
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION dp_sum_numeric_int8_final(internal, numeric, int8, int8, float8, int4) RETURNS int8
AS 'MODULE_PATHNAME', 'dp_sum_int_final' LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE AGGREGATE dp_sum_bigint(numeric, int8, int8, float8, int4) (
    SFUNC = dp_sum_numeric_int8_transfn, STYPE = internal, SSPACE = 256,
    COMBINEFUNC = dp_sum_combine,
    SERIALFUNC = dp_sum_serialize, DESERIALFUNC = dp_sum_deserialize,
    FINALFUNC = dp_sum_numeric_int8_final, FINALFUNC_EXTRA, PARALLEL = RESTRICTED);
CREATE AGGREGATE dp_sum(numeric, numeric, numeric, float8, int4) (
    SFUNC = dp_sum_numeric_transfn, STYPE = internal, SSPACE = 256,
    COMBINEFUNC = dp_sum_combine,
    SERIALFUNC = dp_sum_serialize, DESERIALFUNC = dp_sum_deserialize,
    FINALFUNC = dp_sum_numeric_final, FINALFUNC_EXTRA, PARALLEL = RESTRICTED);

-- dp_avg(value, lower, upper, epsilon, contributions) -> float8 in [lower, upper]
CREATE FUNCTION dp_avg_transfn(internal, float8, float8, float8, float8, int4) RETURNS internal
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION dp_avg_combine(internal, internal) RETURNS internal
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION dp_avg_serialize(internal) RETURNS bytea
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dp_avg_deserialize(bytea, internal) RETURNS internal
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dp_avg_final(internal, float8, float8, float8, float8, int4) RETURNS float8
AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE AGGREGATE dp_avg(float8, float8, float8, float8, int4) (
    SFUNC = dp_avg_transfn, STYPE = internal, SSPACE = 256,
    COMBINEFUNC = dp_avg_combine,
    SERIALFUNC = dp_avg_serialize, DESERIALFUNC = dp_avg_deserialize,
    FINALFUNC = dp_avg_final, FINALFUNC_EXTRA, PARALLEL = RESTRICTED);

-- anon_dp_interval: a released value with its 95 % confidence interval
-- (noise only; doc/functions.md, the ANON_*_CI forms)
CREATE TYPE anon_dp_interval AS (value double precision, lower double precision,
                                 upper double precision);
-- anon_dp_interval_of(value, half_width, non_negative, integer): (value, value - h, value + h)
CREATE FUNCTION anon_dp_interval_of(float8, float8, bool, bool) RETURNS anon_dp_interval
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
-- dp_avg_ci(value, lower, upper, epsilon, contributions) -> dp_avg with its interval
CREATE FUNCTION dp_avg_ci_final(internal, float8, float8, float8, float8, int4)
RETURNS anon_dp_interval AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE AGGREGATE dp_avg_ci(float8, float8, float8, float8, int4) (
    SFUNC = dp_avg_transfn, STYPE = internal, SSPACE = 256,
    COMBINEFUNC = dp_avg_combine,
    SERIALFUNC = dp_avg_serialize, DESERIALFUNC = dp_avg_deserialize,
    FINALFUNC = dp_avg_ci_final, FINALFUNC_EXTRA, PARALLEL = RESTRICTED);

-- dp_var / dp_stddev(value, lower, upper, epsilon, contributions) -> float8
CREATE FUNCTION dp_var_transfn(internal, float8, float8, float8, float8, int4) RETURNS internal
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION dp_var_combine(internal, internal) RETURNS internal
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION dp_var_serialize(internal) RETURNS bytea
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dp_var_deserialize(bytea, internal) RETURNS internal
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dp_var_final(internal, float8, float8, float8, float8, int4) RETURNS float8
AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE FUNCTION dp_stddev_final(internal, float8, float8, float8, float8, int4) RETURNS float8
AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE AGGREGATE dp_var(float8, float8, float8, float8, int4) (
    SFUNC = dp_var_transfn, STYPE = internal, SSPACE = 512,
    COMBINEFUNC = dp_var_combine,
    SERIALFUNC = dp_var_serialize, DESERIALFUNC = dp_var_deserialize,
    FINALFUNC = dp_var_final, FINALFUNC_EXTRA, PARALLEL = RESTRICTED);
CREATE AGGREGATE dp_stddev(float8, float8, float8, float8, int4) (
    SFUNC = dp_var_transfn, STYPE = internal, SSPACE = 512,
    COMBINEFUNC = dp_var_combine,
    SERIALFUNC = dp_var_serialize, DESERIALFUNC = dp_var_deserialize,
    FINALFUNC = dp_stddev_final, FINALFUNC_EXTRA, PARALLEL = RESTRICTED);

-- dp_ntile(value, percentile, lower, upper, epsilon, contributions) -> float8
CREATE FUNCTION dp_ntile_transfn(internal, float8, float8, float8, float8, float8, int4) RETURNS internal
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION dp_ntile_combine(internal, internal) RETURNS internal
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION dp_ntile_serialize(internal) RETURNS bytea
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dp_ntile_deserialize(bytea, internal) RETURNS internal
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION dp_ntile_final(internal, float8, float8, float8, float8, float8, int4) RETURNS float8
AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE AGGREGATE dp_ntile(float8, float8, float8, float8, float8, int4) (
    SFUNC = dp_ntile_transfn, STYPE = internal,
    COMBINEFUNC = dp_ntile_combine,
    SERIALFUNC = dp_ntile_serialize, DESERIALFUNC = dp_ntile_deserialize,
    FINALFUNC = dp_ntile_final, FINALFUNC_EXTRA, PARALLEL = RESTRICTED);

-- dp_partition_count(epsilon, delta, max_groups_contributed) -> float8 or NULL
-- noisy number of rows (privacy units) if it reaches tau, else NULL
CREATE FUNCTION dp_partition_count_transfn(int8, float8, float8, int8) RETURNS int8
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION dp_partition_count_final(int8, float8, float8, int8) RETURNS float8
AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE AGGREGATE dp_partition_count(float8, float8, int8) (
    SFUNC = dp_partition_count_transfn, STYPE = int8, INITCOND = '0',
    COMBINEFUNC = int8pl,
    FINALFUNC = dp_partition_count_final, FINALFUNC_EXTRA, PARALLEL = RESTRICTED);

-- Partition selection (doc/noise.md, "Partition selection"): the mechanism
-- is 'laplace', 'optimal' or 'gaussian'; epsilon is per partition (a query
-- spends C_u times it), delta the selection's whole.
-- dp_partition_select(epsilon, delta, max_groups_contributed, mechanism) -> true or NULL
CREATE FUNCTION dp_partition_select_final(int8, float8, float8, int8, text) RETURNS bool
AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE FUNCTION dp_partition_select_transfn(int8, float8, float8, int8, text) RETURNS int8
AS 'MODULE_PATHNAME', 'dp_partition_count_transfn' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE dp_partition_select(float8, float8, int8, text) (
    SFUNC = dp_partition_select_transfn, STYPE = int8, INITCOND = '0',
    COMBINEFUNC = int8pl,
    FINALFUNC = dp_partition_select_final, FINALFUNC_EXTRA, PARALLEL = RESTRICTED);

-- dp_partition_public(listed, max_groups_contributed) -> true or NULL: public
-- partitions; true when a row of the partition is a listed key of the public
-- table, else NULL (the partition is dropped); C_u is written here for the budget
CREATE FUNCTION dp_partition_public_transfn(int8, bool, int8) RETURNS int8
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION dp_partition_public_final(int8, bool, int8) RETURNS bool
AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE AGGREGATE dp_partition_public(bool, int8) (
    SFUNC = dp_partition_public_transfn, STYPE = int8, INITCOND = '0',
    COMBINEFUNC = int8pl,
    FINALFUNC = dp_partition_public_final, FINALFUNC_EXTRA, PARALLEL = RESTRICTED);

-- dp_count_select(per_unit_count, epsilon, delta, max_groups_contributed, mechanism)
-- -> bigint or NULL: the noisy number of units (per-unit counts clamped to
-- [0, 1]) that also selects the partition (ANON_COUNT(*) reused)
CREATE FUNCTION dp_count_select_transfn(internal, int8, float8, float8, int8, text) RETURNS internal
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION dp_count_select_final(internal, int8, float8, float8, int8, text) RETURNS int8
AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE AGGREGATE dp_count_select(int8, float8, float8, int8, text) (
    SFUNC = dp_count_select_transfn, STYPE = internal, SSPACE = 512,
    FINALFUNC = dp_count_select_final, FINALFUNC_EXTRA, PARALLEL = RESTRICTED);

-- dp_avg_select(value, lower, upper, epsilon, delta, max_groups_contributed, mechanism)
-- -> float8 or NULL: dp_avg whose noisy count also selects the partition
CREATE FUNCTION dp_avg_select_transfn(internal, float8, float8, float8, float8, float8, int8, text)
RETURNS internal AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION dp_avg_select_final(internal, float8, float8, float8, float8, float8, int8, text)
RETURNS float8 AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE AGGREGATE dp_avg_select(float8, float8, float8, float8, float8, int8, text) (
    SFUNC = dp_avg_select_transfn, STYPE = internal, SSPACE = 768,
    FINALFUNC = dp_avg_select_final, FINALFUNC_EXTRA, PARALLEL = RESTRICTED);

-- Gaussian noise (doc/noise.md): (value, [lower,] upper, epsilon, delta,
-- max_groups_contributed): the noise of the C_u partitions of one unit is
-- (C_u epsilon, delta)-DP together, one contribution per unit and partition
CREATE FUNCTION dp_gaussian_count_final(internal, int8, int8, float8, float8, int8) RETURNS int8
AS 'MODULE_PATHNAME', 'dp_count_final' LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE FUNCTION dp_gaussian_count_transfn(internal, int8, int8, float8, float8, int8) RETURNS internal
AS 'MODULE_PATHNAME', 'dp_count_transfn' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE dp_gaussian_count(int8, int8, float8, float8, int8) (
    SFUNC = dp_gaussian_count_transfn, STYPE = internal, SSPACE = 256,
    COMBINEFUNC = dp_sum_combine,
    SERIALFUNC = dp_sum_serialize, DESERIALFUNC = dp_sum_deserialize,
    FINALFUNC = dp_gaussian_count_final, FINALFUNC_EXTRA, PARALLEL = RESTRICTED);

CREATE FUNCTION dp_gaussian_sum_int4_transfn(internal, int4, int4, int4, float8, float8, int8) RETURNS internal
AS 'MODULE_PATHNAME', 'dp_sum_int4_transfn' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION dp_gaussian_sum_int8_transfn(internal, int8, int8, int8, float8, float8, int8) RETURNS internal
AS 'MODULE_PATHNAME', 'dp_sum_int8_transfn' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION dp_gaussian_sum_float8_transfn(internal, float8, float8, float8, float8, float8, int8) RETURNS internal
AS 'MODULE_PATHNAME', 'dp_sum_float8_transfn' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION dp_gaussian_sum_numeric_transfn(internal, numeric, numeric, numeric, float8, float8, int8) RETURNS internal
AS 'MODULE_PATHNAME', 'dp_sum_numeric_transfn' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION dp_gaussian_sum_numeric_int8_transfn(internal, numeric, int8, int8, float8, float8, int8) RETURNS internal
AS 'MODULE_PATHNAME', 'dp_sum_numeric_int8_transfn' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION dp_gaussian_sum_int4_final(internal, int4, int4, int4, float8, float8, int8) RETURNS int8
AS 'MODULE_PATHNAME', 'dp_sum_int_final' LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE FUNCTION dp_gaussian_sum_int8_final(internal, int8, int8, int8, float8, float8, int8) RETURNS int8
AS 'MODULE_PATHNAME', 'dp_sum_int_final' LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE FUNCTION dp_gaussian_sum_float8_final(internal, float8, float8, float8, float8, float8, int8) RETURNS float8
AS 'MODULE_PATHNAME', 'dp_sum_float8_final' LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE FUNCTION dp_gaussian_sum_numeric_final(internal, numeric, numeric, numeric, float8, float8, int8) RETURNS numeric
AS 'MODULE_PATHNAME', 'dp_sum_numeric_final' LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE FUNCTION dp_gaussian_sum_numeric_int8_final(internal, numeric, int8, int8, float8, float8, int8) RETURNS int8
AS 'MODULE_PATHNAME', 'dp_sum_int_final' LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE AGGREGATE dp_gaussian_sum(int4, int4, int4, float8, float8, int8) (
    SFUNC = dp_gaussian_sum_int4_transfn, STYPE = internal, SSPACE = 256,
    COMBINEFUNC = dp_sum_combine,
    SERIALFUNC = dp_sum_serialize, DESERIALFUNC = dp_sum_deserialize,
    FINALFUNC = dp_gaussian_sum_int4_final, FINALFUNC_EXTRA, PARALLEL = RESTRICTED);
CREATE AGGREGATE dp_gaussian_sum(int8, int8, int8, float8, float8, int8) (
    SFUNC = dp_gaussian_sum_int8_transfn, STYPE = internal, SSPACE = 256,
    COMBINEFUNC = dp_sum_combine,
    SERIALFUNC = dp_sum_serialize, DESERIALFUNC = dp_sum_deserialize,
    FINALFUNC = dp_gaussian_sum_int8_final, FINALFUNC_EXTRA, PARALLEL = RESTRICTED);
CREATE AGGREGATE dp_gaussian_sum(float8, float8, float8, float8, float8, int8) (
    SFUNC = dp_gaussian_sum_float8_transfn, STYPE = internal, SSPACE = 256,
    COMBINEFUNC = dp_sum_combine,
    SERIALFUNC = dp_sum_serialize, DESERIALFUNC = dp_sum_deserialize,
    FINALFUNC = dp_gaussian_sum_float8_final, FINALFUNC_EXTRA, PARALLEL = RESTRICTED);
CREATE AGGREGATE dp_gaussian_sum(numeric, numeric, numeric, float8, float8, int8) (
    SFUNC = dp_gaussian_sum_numeric_transfn, STYPE = internal, SSPACE = 256,
    COMBINEFUNC = dp_sum_combine,
    SERIALFUNC = dp_sum_serialize, DESERIALFUNC = dp_sum_deserialize,
    FINALFUNC = dp_gaussian_sum_numeric_final, FINALFUNC_EXTRA, PARALLEL = RESTRICTED);
CREATE AGGREGATE dp_gaussian_sum_bigint(numeric, int8, int8, float8, float8, int8) (
    SFUNC = dp_gaussian_sum_numeric_int8_transfn, STYPE = internal, SSPACE = 256,
    COMBINEFUNC = dp_sum_combine,
    SERIALFUNC = dp_sum_serialize, DESERIALFUNC = dp_sum_deserialize,
    FINALFUNC = dp_gaussian_sum_numeric_int8_final, FINALFUNC_EXTRA, PARALLEL = RESTRICTED);

-- dp_ntile_rows(values float8[], percentile, lower, upper, epsilon, max_values)
-- -> float8: each row is one unit's sample of at most max_values values; the
-- exponential mechanism over the quantile tree's leaves (row-level quantiles)
CREATE FUNCTION dp_ntile_rows_transfn(internal, float8[], float8, float8, float8, float8, int4) RETURNS internal
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION dp_ntile_rows_final(internal, float8[], float8, float8, float8, float8, int4) RETURNS float8
AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE AGGREGATE dp_ntile_rows(float8[], float8, float8, float8, float8, int4) (
    SFUNC = dp_ntile_rows_transfn, STYPE = internal,
    COMBINEFUNC = dp_ntile_combine,
    SERIALFUNC = dp_ntile_serialize, DESERIALFUNC = dp_ntile_deserialize,
    FINALFUNC = dp_ntile_rows_final, FINALFUNC_EXTRA, PARALLEL = RESTRICTED);

-- dp_ntile_rows_adaptive: the same arguments; spends a tenth of epsilon on a
-- noisy histogram of the units' sample sizes and uses up to max_values of
-- each unit's values, as many as that histogram predicts is most accurate
CREATE FUNCTION dp_ntile_rows_adaptive_transfn(internal, float8[], float8, float8, float8, float8, int4) RETURNS internal
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION dp_ntile_rows_adaptive_final(internal, float8[], float8, float8, float8, float8, int4) RETURNS float8
AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE AGGREGATE dp_ntile_rows_adaptive(float8[], float8, float8, float8, float8, int4) (
    SFUNC = dp_ntile_rows_adaptive_transfn, STYPE = internal,
    COMBINEFUNC = dp_ntile_combine,
    SERIALFUNC = dp_ntile_serialize, DESERIALFUNC = dp_ntile_deserialize,
    FINALFUNC = dp_ntile_rows_adaptive_final, FINALFUNC_EXTRA, PARALLEL = RESTRICTED);

-- dp_count_distinct(values anyarray, k, epsilon, contributions) -> bigint:
-- distinct values over all rows, each row one unit's at most k values
CREATE FUNCTION dp_count_distinct_transfn(internal, anyarray, int8, float8, int4) RETURNS internal
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION dp_count_distinct_final(internal, anyarray, int8, float8, int4) RETURNS int8
AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE AGGREGATE dp_count_distinct(anyarray, int8, float8, int4) (
    SFUNC = dp_count_distinct_transfn, STYPE = internal,
    FINALFUNC = dp_count_distinct_final, FINALFUNC_EXTRA, PARALLEL = RESTRICTED);

--------------------------------------------------------------------------
-- Public ANON_* aggregates.  The anonymization rewriter replaces them by
-- per-user aggregation, contribution bounding and the dp_* aggregates
-- above; evaluated directly they raise an error instead of releasing
-- row-level results.
--------------------------------------------------------------------------

CREATE FUNCTION anon_dp_requires_rewrite(internal) RETURNS internal
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION anon_dp_requires_rewrite(internal, "any") RETURNS internal
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION anon_dp_requires_rewrite(internal, "any", int8) RETURNS internal
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION anon_dp_requires_rewrite(internal, anyelement, anyelement, anyelement) RETURNS internal
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION anon_dp_requires_rewrite(internal, float8, float8, float8, float8) RETURNS internal
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION anon_dp_requires_rewrite(internal, float8, float8) RETURNS internal
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION anon_dp_requires_rewrite_count(internal) RETURNS int8
AS 'MODULE_PATHNAME', 'anon_dp_requires_rewrite' LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE FUNCTION anon_dp_requires_rewrite_int(internal) RETURNS int8
AS 'MODULE_PATHNAME', 'anon_dp_requires_rewrite' LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE FUNCTION anon_dp_requires_rewrite_float8(internal) RETURNS float8
AS 'MODULE_PATHNAME', 'anon_dp_requires_rewrite' LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE FUNCTION anon_dp_requires_rewrite_numeric(internal) RETURNS numeric
AS 'MODULE_PATHNAME', 'anon_dp_requires_rewrite' LANGUAGE C VOLATILE PARALLEL SAFE;

-- ANON_COUNT(*), ANON_COUNT(col), ANON_COUNT(col, U) -> bigint
CREATE AGGREGATE anon_count(*) (
    SFUNC = anon_dp_requires_rewrite, STYPE = internal,
    FINALFUNC = anon_dp_requires_rewrite_count, PARALLEL = SAFE);
CREATE AGGREGATE anon_count("any") (
    SFUNC = anon_dp_requires_rewrite, STYPE = internal,
    FINALFUNC = anon_dp_requires_rewrite_count, PARALLEL = SAFE);
CREATE AGGREGATE anon_count("any", int8) (
    SFUNC = anon_dp_requires_rewrite, STYPE = internal,
    FINALFUNC = anon_dp_requires_rewrite_count, PARALLEL = SAFE);

-- ANON_SUM(col, L, U): integer input -> bigint, float -> double precision,
-- numeric -> numeric
CREATE AGGREGATE anon_sum(int4, int4, int4) (
    SFUNC = anon_dp_requires_rewrite, STYPE = internal,
    FINALFUNC = anon_dp_requires_rewrite_int, PARALLEL = SAFE);
CREATE AGGREGATE anon_sum(int8, int8, int8) (
    SFUNC = anon_dp_requires_rewrite, STYPE = internal,
    FINALFUNC = anon_dp_requires_rewrite_int, PARALLEL = SAFE);
CREATE AGGREGATE anon_sum(float8, float8, float8) (
    SFUNC = anon_dp_requires_rewrite, STYPE = internal,
    FINALFUNC = anon_dp_requires_rewrite_float8, PARALLEL = SAFE);
CREATE AGGREGATE anon_sum(numeric, numeric, numeric) (
    SFUNC = anon_dp_requires_rewrite, STYPE = internal,
    FINALFUNC = anon_dp_requires_rewrite_numeric, PARALLEL = SAFE);

-- ANON_AVG, ANON_VAR, ANON_STDDEV, ANON_MIN, ANON_MAX, ANON_MEDIAN(col, L, U)
-- -> double precision (any numeric input converts implicitly)
CREATE AGGREGATE anon_avg(float8, float8, float8) (
    SFUNC = anon_dp_requires_rewrite, STYPE = internal,
    FINALFUNC = anon_dp_requires_rewrite_float8, PARALLEL = SAFE);
CREATE AGGREGATE anon_var(float8, float8, float8) (
    SFUNC = anon_dp_requires_rewrite, STYPE = internal,
    FINALFUNC = anon_dp_requires_rewrite_float8, PARALLEL = SAFE);
CREATE AGGREGATE anon_stddev(float8, float8, float8) (
    SFUNC = anon_dp_requires_rewrite, STYPE = internal,
    FINALFUNC = anon_dp_requires_rewrite_float8, PARALLEL = SAFE);
CREATE AGGREGATE anon_min(float8, float8, float8) (
    SFUNC = anon_dp_requires_rewrite, STYPE = internal,
    FINALFUNC = anon_dp_requires_rewrite_float8, PARALLEL = SAFE);
CREATE AGGREGATE anon_max(float8, float8, float8) (
    SFUNC = anon_dp_requires_rewrite, STYPE = internal,
    FINALFUNC = anon_dp_requires_rewrite_float8, PARALLEL = SAFE);
CREATE AGGREGATE anon_median(float8, float8, float8) (
    SFUNC = anon_dp_requires_rewrite, STYPE = internal,
    FINALFUNC = anon_dp_requires_rewrite_float8, PARALLEL = SAFE);
-- ANON_NTILE(col, p, L, U) -> double precision
CREATE AGGREGATE anon_ntile(float8, float8, float8, float8) (
    SFUNC = anon_dp_requires_rewrite, STYPE = internal,
    FINALFUNC = anon_dp_requires_rewrite_float8, PARALLEL = SAFE);

-- ANON_COUNT_CI, ANON_SUM_CI, ANON_AVG_CI: the value with its 95 % interval,
-- an anon_dp_interval (value, lower, upper)
CREATE FUNCTION anon_dp_requires_rewrite_interval(internal) RETURNS anon_dp_interval
AS 'MODULE_PATHNAME', 'anon_dp_requires_rewrite' LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE AGGREGATE anon_count_ci(*) (
    SFUNC = anon_dp_requires_rewrite, STYPE = internal,
    FINALFUNC = anon_dp_requires_rewrite_interval, PARALLEL = SAFE);
CREATE AGGREGATE anon_count_ci("any") (
    SFUNC = anon_dp_requires_rewrite, STYPE = internal,
    FINALFUNC = anon_dp_requires_rewrite_interval, PARALLEL = SAFE);
CREATE AGGREGATE anon_count_ci("any", int8) (
    SFUNC = anon_dp_requires_rewrite, STYPE = internal,
    FINALFUNC = anon_dp_requires_rewrite_interval, PARALLEL = SAFE);
CREATE AGGREGATE anon_sum_ci(int4, int4, int4) (
    SFUNC = anon_dp_requires_rewrite, STYPE = internal,
    FINALFUNC = anon_dp_requires_rewrite_interval, PARALLEL = SAFE);
CREATE AGGREGATE anon_sum_ci(int8, int8, int8) (
    SFUNC = anon_dp_requires_rewrite, STYPE = internal,
    FINALFUNC = anon_dp_requires_rewrite_interval, PARALLEL = SAFE);
CREATE AGGREGATE anon_sum_ci(float8, float8, float8) (
    SFUNC = anon_dp_requires_rewrite, STYPE = internal,
    FINALFUNC = anon_dp_requires_rewrite_interval, PARALLEL = SAFE);
CREATE AGGREGATE anon_sum_ci(numeric, numeric, numeric) (
    SFUNC = anon_dp_requires_rewrite, STYPE = internal,
    FINALFUNC = anon_dp_requires_rewrite_interval, PARALLEL = SAFE);
CREATE AGGREGATE anon_avg_ci(float8, float8, float8) (
    SFUNC = anon_dp_requires_rewrite, STYPE = internal,
    FINALFUNC = anon_dp_requires_rewrite_interval, PARALLEL = SAFE);

-- Calls that lack their bounds (ANON_SUM(x), ANON_AVG(x, 0), ANON_NTILE(x, 0.5)):
-- declared only so that the rewriter refuses them with the full signature in
-- its hint, where PostgreSQL would say "function does not exist"
-- (doc/functions.md section 10).
CREATE FUNCTION anon_dp_requires_rewrite_incomplete(internal, "any") RETURNS internal
AS 'MODULE_PATHNAME', 'anon_dp_requires_rewrite' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION anon_dp_requires_rewrite_incomplete(internal, "any", "any") RETURNS internal
AS 'MODULE_PATHNAME', 'anon_dp_requires_rewrite' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION anon_dp_requires_rewrite_incomplete(internal, "any", "any", "any") RETURNS internal
AS 'MODULE_PATHNAME', 'anon_dp_requires_rewrite' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE anon_sum("any") (SFUNC = anon_dp_requires_rewrite_incomplete, STYPE = internal,
    FINALFUNC = anon_dp_requires_rewrite_float8, PARALLEL = SAFE);
CREATE AGGREGATE anon_sum("any", "any") (SFUNC = anon_dp_requires_rewrite_incomplete, STYPE = internal,
    FINALFUNC = anon_dp_requires_rewrite_float8, PARALLEL = SAFE);
CREATE AGGREGATE anon_avg("any") (SFUNC = anon_dp_requires_rewrite_incomplete, STYPE = internal,
    FINALFUNC = anon_dp_requires_rewrite_float8, PARALLEL = SAFE);
CREATE AGGREGATE anon_avg("any", "any") (SFUNC = anon_dp_requires_rewrite_incomplete, STYPE = internal,
    FINALFUNC = anon_dp_requires_rewrite_float8, PARALLEL = SAFE);
CREATE AGGREGATE anon_var("any") (SFUNC = anon_dp_requires_rewrite_incomplete, STYPE = internal,
    FINALFUNC = anon_dp_requires_rewrite_float8, PARALLEL = SAFE);
CREATE AGGREGATE anon_var("any", "any") (SFUNC = anon_dp_requires_rewrite_incomplete, STYPE = internal,
    FINALFUNC = anon_dp_requires_rewrite_float8, PARALLEL = SAFE);
CREATE AGGREGATE anon_stddev("any") (SFUNC = anon_dp_requires_rewrite_incomplete, STYPE = internal,
    FINALFUNC = anon_dp_requires_rewrite_float8, PARALLEL = SAFE);
CREATE AGGREGATE anon_stddev("any", "any") (SFUNC = anon_dp_requires_rewrite_incomplete, STYPE = internal,
    FINALFUNC = anon_dp_requires_rewrite_float8, PARALLEL = SAFE);
CREATE AGGREGATE anon_min("any") (SFUNC = anon_dp_requires_rewrite_incomplete, STYPE = internal,
    FINALFUNC = anon_dp_requires_rewrite_float8, PARALLEL = SAFE);
CREATE AGGREGATE anon_min("any", "any") (SFUNC = anon_dp_requires_rewrite_incomplete, STYPE = internal,
    FINALFUNC = anon_dp_requires_rewrite_float8, PARALLEL = SAFE);
CREATE AGGREGATE anon_max("any") (SFUNC = anon_dp_requires_rewrite_incomplete, STYPE = internal,
    FINALFUNC = anon_dp_requires_rewrite_float8, PARALLEL = SAFE);
CREATE AGGREGATE anon_max("any", "any") (SFUNC = anon_dp_requires_rewrite_incomplete, STYPE = internal,
    FINALFUNC = anon_dp_requires_rewrite_float8, PARALLEL = SAFE);
CREATE AGGREGATE anon_median("any") (SFUNC = anon_dp_requires_rewrite_incomplete, STYPE = internal,
    FINALFUNC = anon_dp_requires_rewrite_float8, PARALLEL = SAFE);
CREATE AGGREGATE anon_median("any", "any") (SFUNC = anon_dp_requires_rewrite_incomplete, STYPE = internal,
    FINALFUNC = anon_dp_requires_rewrite_float8, PARALLEL = SAFE);
CREATE AGGREGATE anon_ntile("any") (SFUNC = anon_dp_requires_rewrite_incomplete, STYPE = internal,
    FINALFUNC = anon_dp_requires_rewrite_float8, PARALLEL = SAFE);
CREATE AGGREGATE anon_ntile("any", "any") (SFUNC = anon_dp_requires_rewrite_incomplete, STYPE = internal,
    FINALFUNC = anon_dp_requires_rewrite_float8, PARALLEL = SAFE);
CREATE AGGREGATE anon_ntile("any", "any", "any") (SFUNC = anon_dp_requires_rewrite_incomplete, STYPE = internal,
    FINALFUNC = anon_dp_requires_rewrite_float8, PARALLEL = SAFE);
CREATE AGGREGATE anon_sum_ci("any") (SFUNC = anon_dp_requires_rewrite_incomplete, STYPE = internal,
    FINALFUNC = anon_dp_requires_rewrite_interval, PARALLEL = SAFE);
CREATE AGGREGATE anon_sum_ci("any", "any") (SFUNC = anon_dp_requires_rewrite_incomplete, STYPE = internal,
    FINALFUNC = anon_dp_requires_rewrite_interval, PARALLEL = SAFE);
CREATE AGGREGATE anon_avg_ci("any") (SFUNC = anon_dp_requires_rewrite_incomplete, STYPE = internal,
    FINALFUNC = anon_dp_requires_rewrite_interval, PARALLEL = SAFE);
CREATE AGGREGATE anon_avg_ci("any", "any") (SFUNC = anon_dp_requires_rewrite_incomplete, STYPE = internal,
    FINALFUNC = anon_dp_requires_rewrite_interval, PARALLEL = SAFE);
-- ANON_*_CI forms without an interval: declared only so that the rewriter
-- refuses them saying so (quantiles, extremes, variance: doc/functions.md)
CREATE FUNCTION anon_dp_requires_rewrite_incomplete(internal, "any", "any", "any", "any") RETURNS internal
AS 'MODULE_PATHNAME', 'anon_dp_requires_rewrite' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE anon_var_ci("any", "any", "any") (SFUNC = anon_dp_requires_rewrite_incomplete, STYPE = internal,
    FINALFUNC = anon_dp_requires_rewrite_interval, PARALLEL = SAFE);
CREATE AGGREGATE anon_stddev_ci("any", "any", "any") (SFUNC = anon_dp_requires_rewrite_incomplete, STYPE = internal,
    FINALFUNC = anon_dp_requires_rewrite_interval, PARALLEL = SAFE);
CREATE AGGREGATE anon_min_ci("any", "any", "any") (SFUNC = anon_dp_requires_rewrite_incomplete, STYPE = internal,
    FINALFUNC = anon_dp_requires_rewrite_interval, PARALLEL = SAFE);
CREATE AGGREGATE anon_max_ci("any", "any", "any") (SFUNC = anon_dp_requires_rewrite_incomplete, STYPE = internal,
    FINALFUNC = anon_dp_requires_rewrite_interval, PARALLEL = SAFE);
CREATE AGGREGATE anon_median_ci("any", "any", "any") (SFUNC = anon_dp_requires_rewrite_incomplete, STYPE = internal,
    FINALFUNC = anon_dp_requires_rewrite_interval, PARALLEL = SAFE);
CREATE AGGREGATE anon_ntile_ci("any", "any", "any", "any") (SFUNC = anon_dp_requires_rewrite_incomplete, STYPE = internal,
    FINALFUNC = anon_dp_requires_rewrite_interval, PARALLEL = SAFE);

-- SSPACE of the dp_* aggregates above: their states are fixed-size structs
-- of a few hundred bytes; without it the planner assumes 8 kB per partition
-- and a hash aggregation over a few thousand partitions spills to disk.

--------------------------------------------------------------------------
-- Contribution bounding (doc/rewriter.md, "Step 2: contribution bounding")
--------------------------------------------------------------------------

-- a uniform 64-bit key from the CSPRNG: the random order of a user's rows
CREATE FUNCTION anon_dp_random_key() RETURNS int8
AS 'MODULE_PATHNAME', 'anon_dp_random_key' LANGUAGE C VOLATILE PARALLEL SAFE;

-- anon_dp_pick(key, value, keep) -> array of the values of the `keep` rows
-- with the smallest keys of the group; calls over the same rows with the
-- same keys keep the same rows in the same array positions
CREATE FUNCTION anon_dp_pick_transfn(internal, int8, anyelement, int8) RETURNS internal
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION anon_dp_pick_final(internal, int8, anyelement, int8) RETURNS anyarray
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
-- SSPACE: the state of a small reservoir (C_u up to 8) is about 200 bytes;
-- without it the planner assumes 8 kB per user and hash aggregation spills
CREATE AGGREGATE anon_dp_pick(int8, anyelement, int8) (
    SFUNC = anon_dp_pick_transfn, STYPE = internal, SSPACE = 256,
    FINALFUNC = anon_dp_pick_final, FINALFUNC_EXTRA,
    PARALLEL = SAFE);

-- One-pass per-user aggregation and bounding (src/bound/partition_bound.c):
-- anon_dp_bound_partitions(secret, C_u, spec, uid, group keys .., values ..)
-- grouped by user keeps the user's C_u partitions with the smallest keyed
-- SipHash of (uid, partition) under a secret drawn once per execution by
-- anon_dp_bounding_secret(), with their per-user partials;
-- anon_dp_bounded_column(kept, i, NULL::type) returns column i as an array.
CREATE FUNCTION anon_dp_bounding_secret() RETURNS bytea
AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE FUNCTION anon_dp_bound_partitions_transfn(internal, bytea, int8, text, VARIADIC "any")
RETURNS internal AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION anon_dp_bound_partitions_combine(internal, internal) RETURNS internal
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION anon_dp_bound_partitions_serialize(internal) RETURNS bytea
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION anon_dp_bound_partitions_deserialize(bytea, internal) RETURNS internal
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
-- SSPACE: the state of a user with C_u = 1 and three columns takes 128 bytes
-- (src/bound/partition_bound.c), plus its arena and hash-table overhead.
-- The estimate sets how many users hash aggregation admits before it spills
-- and into how many batches it splits the rest: on 3M rows and 100k users
-- 256 ran faster than 128, which split the spill into too few batches.
CREATE AGGREGATE anon_dp_bound_partitions(bytea, int8, text, VARIADIC "any") (
    SFUNC = anon_dp_bound_partitions_transfn, STYPE = internal, SSPACE = 256,
    FINALFUNC = anon_dp_bound_partitions_serialize,
    COMBINEFUNC = anon_dp_bound_partitions_combine,
    SERIALFUNC = anon_dp_bound_partitions_serialize,
    DESERIALFUNC = anon_dp_bound_partitions_deserialize,
    PARALLEL = SAFE);
CREATE FUNCTION anon_dp_bounded_column(bytea, int4, anyelement) RETURNS anyarray
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
-- anon_dp_bound_witness(g) FILTER (WHERE false): a NULL of g's type, which
-- tells anon_dp_bounded_column the type of a GROUP BY key; never runs
CREATE FUNCTION anon_dp_bound_witness_transfn(anyelement, anyelement) RETURNS anyelement
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE anon_dp_bound_witness(anyelement) (
    SFUNC = anon_dp_bound_witness_transfn, STYPE = anyelement,
    COMBINEFUNC = anon_dp_bound_witness_transfn, PARALLEL = SAFE);

-- Per-user samples, the partials of row-level aggregates
-- (src/functions/user_samples.c): at most n values of a group, at random
CREATE FUNCTION anon_dp_sample_transfn(internal, float8, int4) RETURNS internal
AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE FUNCTION anon_dp_sample_final(internal, float8, int4) RETURNS float8[]
AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE AGGREGATE anon_dp_sample(float8, int4) (
    SFUNC = anon_dp_sample_transfn, STYPE = internal,
    FINALFUNC = anon_dp_sample_final, FINALFUNC_EXTRA, PARALLEL = SAFE);
CREATE FUNCTION anon_dp_distinct_sample_transfn(internal, anyelement, int4) RETURNS internal
AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE FUNCTION anon_dp_distinct_sample_final(internal, anyelement, int4) RETURNS anyarray
AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE AGGREGATE anon_dp_distinct_sample(anyelement, int4) (
    SFUNC = anon_dp_distinct_sample_transfn, STYPE = internal,
    FINALFUNC = anon_dp_distinct_sample_final, FINALFUNC_EXTRA, PARALLEL = SAFE);

-- TABLESAMPLE anon_reservoir(n): at most n rows of each privacy unit of a
-- private table, chosen uniformly at random at every scan
CREATE FUNCTION anon_reservoir(internal) RETURNS tsm_handler
AS 'MODULE_PATHNAME', 'anon_dp_reservoir_handler' LANGUAGE C STRICT;

--------------------------------------------------------------------------
-- CREATE AGGREGATE records every aggregate as IMMUTABLE in pg_proc and has
-- no option to change it.  The dp_* and ANON_* aggregates draw fresh noise
-- (or refuse to run) at every evaluation, so mark them VOLATILE: the planner
-- then never merges two calls into one result or treats them as constant.
--------------------------------------------------------------------------
UPDATE pg_catalog.pg_proc SET provolatile = 'v'
WHERE prokind = 'a'
  AND proname NOT IN ('anon_dp_pick', 'anon_dp_bound_partitions', 'anon_dp_bound_witness')   -- deterministic
  AND oid IN (SELECT objid FROM pg_catalog.pg_depend
              WHERE classid = 'pg_catalog.pg_proc'::regclass
                AND refclassid = 'pg_catalog.pg_extension'::regclass
                AND refobjid = (SELECT oid FROM pg_catalog.pg_extension
                                WHERE extname = 'anon_dp')
                AND deptype = 'e');

--------------------------------------------------------------------------
-- SAFE evaluation (doc/access.md, "Errors"): in anonymization queries of
-- anonymized sessions the planner hook wraps each built-in call that sees
-- private values; a data exception then gives NULL.  One function per
-- volatility, so that the planner treats the wrapped call as the original.
-- The second argument of each is a NULL of the result type (a witness), so
-- that the call, printed as SQL, means the same on another server:
-- postgres_fdw ships these wrappers to shards that have anon_dp
-- (doc/scale-out.md), and the target is a regprocedure, which names one
-- function unambiguously.
--------------------------------------------------------------------------
CREATE FUNCTION anon_dp_safe_call_immutable(regprocedure, anyelement, VARIADIC "any")
RETURNS anyelement AS 'MODULE_PATHNAME', 'anon_dp_safe_call' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION anon_dp_safe_call_stable(regprocedure, anyelement, VARIADIC "any")
RETURNS anyelement AS 'MODULE_PATHNAME', 'anon_dp_safe_call' LANGUAGE C STABLE PARALLEL SAFE;
CREATE FUNCTION anon_dp_safe_call_volatile(regprocedure, anyelement, VARIADIC "any")
RETURNS anyelement AS 'MODULE_PATHNAME', 'anon_dp_safe_call' LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE FUNCTION anon_dp_safe_io_immutable(anyelement, "any") RETURNS anyelement
AS 'MODULE_PATHNAME', 'anon_dp_safe_io' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION anon_dp_safe_io_stable(anyelement, "any") RETURNS anyelement
AS 'MODULE_PATHNAME', 'anon_dp_safe_io' LANGUAGE C STABLE PARALLEL SAFE;
CREATE FUNCTION anon_dp_safe_io_volatile(anyelement, "any") RETURNS anyelement
AS 'MODULE_PATHNAME', 'anon_dp_safe_io' LANGUAGE C VOLATILE PARALLEL SAFE;

-- Whether an anonymized role may see the size statistics of a relation
-- (catalogs, tables labelled public and their indexes); anonymized sessions
-- read pg_class and the relation-size functions masked through it
-- (doc/access.md, "Catalogs").
CREATE FUNCTION anon_dp_statistics_visible(oid) RETURNS bool
AS 'MODULE_PATHNAME' LANGUAGE C STABLE STRICT PARALLEL SAFE;

--------------------------------------------------------------------------
-- The privacy budget (doc/budget.md).  Charges are written by the ledger
-- worker of the database in its own transactions, never by the session that
-- runs the query; pg_dump keeps both tables (configuration tables of the
-- extension).  No role but the superusers may read or change them directly.
--------------------------------------------------------------------------
CREATE TABLE anon_dp_budgets (
    role regrole PRIMARY KEY,
    epsilon numeric CHECK (epsilon >= 0),                -- NULL: anon_dp.default_budget_epsilon
    delta numeric CHECK (delta >= 0 AND delta <= 1),     -- NULL: anon_dp.default_budget_delta
    spent_epsilon numeric NOT NULL DEFAULT 0,
    spent_delta numeric NOT NULL DEFAULT 0,
    releases bigint NOT NULL DEFAULT 0,
    changed timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE TABLE anon_dp_ledger (
    entry bigserial PRIMARY KEY,
    at timestamptz NOT NULL DEFAULT clock_timestamp(),
    database name NOT NULL DEFAULT current_database(),
    role regrole NOT NULL,                  -- whose budget
    epsilon numeric NOT NULL,               -- charged, refused, set, or given back by a reset
    delta numeric NOT NULL,
    releases int NOT NULL,                  -- anonymization queries run by the statement
    outcome text NOT NULL CHECK (outcome IN ('charged', 'refused', 'budget set', 'budget reset')),
    actor regrole,                          -- who asked
    backend_pid int,
    query_id bigint,                        -- the statement's query id (pg_stat_statements)
    statement text                          -- its text, cut at 1023 bytes
);
REVOKE ALL ON anon_dp_budgets, anon_dp_ledger, anon_dp_ledger_entry_seq FROM PUBLIC;
SELECT pg_catalog.pg_extension_config_dump('anon_dp_budgets', '');
SELECT pg_catalog.pg_extension_config_dump('anon_dp_ledger', '');
SELECT pg_catalog.pg_extension_config_dump('anon_dp_ledger_entry_seq', '');

-- anon_dp_set_budget(role, epsilon, delta): the role's totals in this
-- database; what it spent stays spent.  Superusers and members of
-- anon_dp.label_admin_role.
CREATE FUNCTION anon_dp_set_budget(role regrole, epsilon float8, delta float8) RETURNS void
AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE;
-- anon_dp_reset_budget(role): its spending back to zero (a new budget).
CREATE FUNCTION anon_dp_reset_budget(role regrole) RETURNS void
AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE;
-- the budget of every anonymized role (administrators) or of the caller's own
CREATE FUNCTION anon_dp_budget_status(
    OUT role regrole, OUT budget_epsilon numeric, OUT budget_delta numeric,
    OUT spent_epsilon numeric, OUT spent_delta numeric,
    OUT remaining_epsilon numeric, OUT remaining_delta numeric,
    OUT releases bigint, OUT budget text)
RETURNS SETOF record
AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE;
CREATE VIEW anon_dp_budget AS SELECT * FROM anon_dp_budget_status();
GRANT SELECT ON anon_dp_budget TO PUBLIC;

-- anon_dp_explain(query): what each release of an anonymization query adds
-- as noise and what running the query charges, from its analysis alone (it is
-- neither planned nor run, and charges nothing); anon_dp_epsilon_for(query,
-- half_width): the anon_dp.epsilon at which each release's 95 % half-width is
-- at most half_width (doc/functions.md)
CREATE FUNCTION anon_dp_explain(query text,
    OUT level int, OUT release int, OUT function text, OUT epsilon float8, OUT delta float8,
    OUT mechanism text, OUT noise_scale float8, OUT half_width float8,
    OUT selection text, OUT tau float8, OUT users_for_50 float8, OUT users_for_95 float8,
    OUT charge_epsilon float8, OUT charge_delta float8, OUT note text)
RETURNS SETOF record
AS 'MODULE_PATHNAME' LANGUAGE C STABLE PARALLEL UNSAFE;
CREATE FUNCTION anon_dp_epsilon_for(query text, half_width float8,
    OUT level int, OUT release int, OUT function text, OUT half_width_now float8,
    OUT epsilon float8, OUT half_width float8)
RETURNS SETOF record
AS 'MODULE_PATHNAME' LANGUAGE C STABLE PARALLEL UNSAFE;

--------------------------------------------------------------------------
-- anon_dp_canonical_key(key): one written form for equal GROUP BY keys of
-- the types whose equality is not equality of the stored value (numeric
-- 5 = 5.000, float 0 = -0, interval '1 day' = '24 hours', character
-- 'a' = 'a  '); the rewriter
-- groups by it so that a released key is no user's own form
-- (src/functions/canonical_keys.c, doc/rewriter.md "Released keys")
--------------------------------------------------------------------------
CREATE FUNCTION anon_dp_canonical_key(numeric) RETURNS numeric
AS 'MODULE_PATHNAME', 'anon_dp_canonical_numeric' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION anon_dp_canonical_key(float8) RETURNS float8
AS 'MODULE_PATHNAME', 'anon_dp_canonical_float8' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION anon_dp_canonical_key(float4) RETURNS float4
AS 'MODULE_PATHNAME', 'anon_dp_canonical_float4' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION anon_dp_canonical_key(interval) RETURNS interval
AS 'MODULE_PATHNAME', 'anon_dp_canonical_interval' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION anon_dp_canonical_key(bpchar) RETURNS bpchar
AS 'MODULE_PATHNAME', 'anon_dp_canonical_bpchar' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

--------------------------------------------------------------------------
-- Automatic bounds (paper Sec. 5.1.1, doc/functions.md): ANON_SUM(x),
-- ANON_AVG(x), ANON_VAR(x) and ANON_STDDEV(x) without bounds, and their
-- _WITH_BOUNDS forms that return {value, lower bound, upper bound}: the
-- bounds the noisy histogram chose (an array of a built-in type, which
-- anonymized sessions may read) (src/functions/auto_bounds.c).  The float8
-- overloads take every numeric column (implicit cast); other types reach the
-- "any" declarations and their refusal.
--------------------------------------------------------------------------
CREATE FUNCTION anon_dp_requires_rewrite_bounded(internal) RETURNS float8[]
AS 'MODULE_PATHNAME', 'anon_dp_requires_rewrite' LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE FUNCTION dp_auto_transfn(internal, float8, float8, int4) RETURNS internal
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE anon_sum(float8) (
    SFUNC = anon_dp_requires_rewrite, STYPE = internal,
    FINALFUNC = anon_dp_requires_rewrite_float8, PARALLEL = SAFE);
CREATE AGGREGATE anon_sum_with_bounds(float8) (
    SFUNC = anon_dp_requires_rewrite, STYPE = internal,
    FINALFUNC = anon_dp_requires_rewrite_bounded, PARALLEL = SAFE);
CREATE AGGREGATE anon_sum_with_bounds("any") (SFUNC = anon_dp_requires_rewrite_incomplete,
    STYPE = internal, FINALFUNC = anon_dp_requires_rewrite_bounded, PARALLEL = SAFE);
-- dp_sum_auto(value, epsilon, contributions): half of epsilon chooses the
-- bounds, half the value; NULL when no bounds could be chosen
CREATE FUNCTION dp_sum_auto_final(internal, float8, float8, int4) RETURNS float8
AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE FUNCTION dp_sum_auto_bounds_final(internal, float8, float8, int4) RETURNS float8[]
AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE AGGREGATE dp_sum_auto(float8, float8, int4) (
    SFUNC = dp_auto_transfn, STYPE = internal, SSPACE = 8192,
    FINALFUNC = dp_sum_auto_final, FINALFUNC_EXTRA, PARALLEL = RESTRICTED);
CREATE AGGREGATE dp_sum_auto_bounds(float8, float8, int4) (
    SFUNC = dp_auto_transfn, STYPE = internal, SSPACE = 8192,
    FINALFUNC = dp_sum_auto_bounds_final, FINALFUNC_EXTRA, PARALLEL = RESTRICTED);

-- ANON_MEDIAN(x), ANON_NTILE(x, p): bounds chosen from a noisy histogram of
-- the users' values (one value per user: the user's mean), then the quantile
-- tree with them; NULL when no bounds could be chosen
CREATE AGGREGATE anon_median(float8) (
    SFUNC = anon_dp_requires_rewrite, STYPE = internal,
    FINALFUNC = anon_dp_requires_rewrite_float8, PARALLEL = SAFE);
CREATE AGGREGATE anon_ntile(float8, float8) (
    SFUNC = anon_dp_requires_rewrite, STYPE = internal,
    FINALFUNC = anon_dp_requires_rewrite_float8, PARALLEL = SAFE);
-- dp_ntile_auto(value, percentile, epsilon, contributions)
CREATE FUNCTION dp_ntile_auto_transfn(internal, float8, float8, float8, int4) RETURNS internal
AS 'MODULE_PATHNAME', 'dp_auto_transfn' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION dp_ntile_auto_final(internal, float8, float8, float8, int4) RETURNS float8
AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE AGGREGATE dp_ntile_auto(float8, float8, float8, int4) (
    SFUNC = dp_ntile_auto_transfn, STYPE = internal, SSPACE = 8192,
    FINALFUNC = dp_ntile_auto_final, FINALFUNC_EXTRA, PARALLEL = RESTRICTED);

CREATE AGGREGATE anon_avg(float8) (
    SFUNC = anon_dp_requires_rewrite, STYPE = internal,
    FINALFUNC = anon_dp_requires_rewrite_float8, PARALLEL = SAFE);
CREATE AGGREGATE anon_avg_with_bounds(float8) (
    SFUNC = anon_dp_requires_rewrite, STYPE = internal,
    FINALFUNC = anon_dp_requires_rewrite_bounded, PARALLEL = SAFE);
CREATE AGGREGATE anon_avg_with_bounds("any") (SFUNC = anon_dp_requires_rewrite_incomplete,
    STYPE = internal, FINALFUNC = anon_dp_requires_rewrite_bounded, PARALLEL = SAFE);
-- dp_avg_auto(value, epsilon, contributions): half of epsilon chooses the
-- bounds, half the value; NULL when no bounds could be chosen
CREATE FUNCTION dp_avg_auto_final(internal, float8, float8, int4) RETURNS float8
AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE FUNCTION dp_avg_auto_bounds_final(internal, float8, float8, int4) RETURNS float8[]
AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE AGGREGATE dp_avg_auto(float8, float8, int4) (
    SFUNC = dp_auto_transfn, STYPE = internal, SSPACE = 8192,
    FINALFUNC = dp_avg_auto_final, FINALFUNC_EXTRA, PARALLEL = RESTRICTED);
CREATE AGGREGATE dp_avg_auto_bounds(float8, float8, int4) (
    SFUNC = dp_auto_transfn, STYPE = internal, SSPACE = 8192,
    FINALFUNC = dp_avg_auto_bounds_final, FINALFUNC_EXTRA, PARALLEL = RESTRICTED);

CREATE AGGREGATE anon_var(float8) (
    SFUNC = anon_dp_requires_rewrite, STYPE = internal,
    FINALFUNC = anon_dp_requires_rewrite_float8, PARALLEL = SAFE);
CREATE AGGREGATE anon_var_with_bounds(float8) (
    SFUNC = anon_dp_requires_rewrite, STYPE = internal,
    FINALFUNC = anon_dp_requires_rewrite_bounded, PARALLEL = SAFE);
CREATE AGGREGATE anon_var_with_bounds("any") (SFUNC = anon_dp_requires_rewrite_incomplete,
    STYPE = internal, FINALFUNC = anon_dp_requires_rewrite_bounded, PARALLEL = SAFE);
-- dp_var_auto(value, epsilon, contributions): half of epsilon chooses the
-- bounds, half the value; NULL when no bounds could be chosen
CREATE FUNCTION dp_var_auto_final(internal, float8, float8, int4) RETURNS float8
AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE FUNCTION dp_var_auto_bounds_final(internal, float8, float8, int4) RETURNS float8[]
AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE AGGREGATE dp_var_auto(float8, float8, int4) (
    SFUNC = dp_auto_transfn, STYPE = internal, SSPACE = 8192,
    FINALFUNC = dp_var_auto_final, FINALFUNC_EXTRA, PARALLEL = RESTRICTED);
CREATE AGGREGATE dp_var_auto_bounds(float8, float8, int4) (
    SFUNC = dp_auto_transfn, STYPE = internal, SSPACE = 8192,
    FINALFUNC = dp_var_auto_bounds_final, FINALFUNC_EXTRA, PARALLEL = RESTRICTED);

CREATE AGGREGATE anon_stddev(float8) (
    SFUNC = anon_dp_requires_rewrite, STYPE = internal,
    FINALFUNC = anon_dp_requires_rewrite_float8, PARALLEL = SAFE);
CREATE AGGREGATE anon_stddev_with_bounds(float8) (
    SFUNC = anon_dp_requires_rewrite, STYPE = internal,
    FINALFUNC = anon_dp_requires_rewrite_bounded, PARALLEL = SAFE);
CREATE AGGREGATE anon_stddev_with_bounds("any") (SFUNC = anon_dp_requires_rewrite_incomplete,
    STYPE = internal, FINALFUNC = anon_dp_requires_rewrite_bounded, PARALLEL = SAFE);
-- dp_stddev_auto(value, epsilon, contributions): half of epsilon chooses the
-- bounds, half the value; NULL when no bounds could be chosen
CREATE FUNCTION dp_stddev_auto_final(internal, float8, float8, int4) RETURNS float8
AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE FUNCTION dp_stddev_auto_bounds_final(internal, float8, float8, int4) RETURNS float8[]
AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE AGGREGATE dp_stddev_auto(float8, float8, int4) (
    SFUNC = dp_auto_transfn, STYPE = internal, SSPACE = 8192,
    FINALFUNC = dp_stddev_auto_final, FINALFUNC_EXTRA, PARALLEL = RESTRICTED);
CREATE AGGREGATE dp_stddev_auto_bounds(float8, float8, int4) (
    SFUNC = dp_auto_transfn, STYPE = internal, SSPACE = 8192,
    FINALFUNC = dp_stddev_auto_bounds_final, FINALFUNC_EXTRA, PARALLEL = RESTRICTED);
