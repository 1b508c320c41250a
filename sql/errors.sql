-- Bad input gets an ERROR with an errcode, the offending argument, and a
-- hint; nothing is computed.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS anon_dp;
RESET client_min_messages;
-- the building blocks are called by name: their schema on the search path (doc/functions.md)
SET search_path = public, anon_dp_internal;
\set VERBOSITY default
CREATE TABLE e AS SELECT g::float8 AS v, g::int4 AS i FROM generate_series(1, 10) g;

-- epsilon
SELECT dp_sum(v, 0, 1, 0, 1) FROM e;
SELECT dp_sum(v, 0, 1, -1, 1) FROM e;
SELECT dp_sum(v, 0, 1, 'NaN', 1) FROM e;
SELECT dp_sum(v, 0, 1, 'Infinity', 1) FROM e;
SELECT dp_sum(v, 0, 1, 1e7, 1) FROM e;
SELECT dp_avg(v, 0, 1, 1e-13, 1) FROM e;
SELECT dp_avg(v, 0, 1, 2e6, 1) FROM e;
SELECT dp_avg(v, 0, 1, 1.5e-12, 1) FROM e;
-- bounds
SELECT dp_sum(v, 1, 0, 1.0, 1) FROM e;
SELECT dp_sum(i, 10, -10, 1.0, 1) FROM e;
SELECT dp_avg(v, 0, 'Infinity', 1.0, 1) FROM e;
SELECT dp_var(v, '-Infinity', 0, 1.0, 1) FROM e;
SELECT dp_sum(v, 'NaN', 1, 1.0, 1) FROM e;
SELECT dp_sum(v::numeric, 0, 1e400, 1.0, 1) FROM e;
SELECT dp_count(1::int8, -1, 1.0, 1) FROM e;
-- bounds so large that a sum could overflow, or the noise scale leaves the grid
SELECT dp_sum(v, 0, 1e300, 1.0, 1) FROM e;
SELECT dp_var(v, -1e200, 1e200, 1.0, 1) FROM e;
-- percentile
SELECT dp_ntile(v, 1.5, 0, 10, 1.0, 1) FROM e;
SELECT dp_ntile(v, -0.1, 0, 10, 1.0, 1) FROM e;
SELECT dp_ntile(v, 'NaN', 0, 10, 1.0, 1) FROM e;
-- contributions
SELECT dp_sum(v, 0, 1, 1.0, 0) FROM e;
-- NULL parameters
SELECT dp_sum(v, NULL, 1, 1.0, 1) FROM e;
SELECT dp_sum(v, 0, 1, NULL, 1) FROM e;
SELECT dp_ntile(v, NULL, 0, 1, 1.0, 1) FROM e;
SELECT dp_count(1::int8, 1, 1.0, NULL) FROM e;
-- the same errors on empty input (parameters are checked before release)
SELECT dp_sum(v, 1, 0, 1.0, 1) FROM e WHERE false;
SELECT dp_avg(v, 0, 1, 0, 1) FROM e WHERE false;
-- bounds and parameters must be constants of the query
SELECT dp_sum(v, 0, v, 1.0, 1) FROM e;
SELECT dp_sum(v, 0, 1, random(), 1) FROM e;
SELECT dp_sum(v, 0, 1, 1.0, i) FROM e;
PREPARE bounds_from_parameter(float8) AS SELECT dp_sum(v, 0, $1, 1.0, 1) FROM e;
SET plan_cache_mode = force_generic_plan;
EXECUTE bounds_from_parameter(10);
RESET plan_cache_mode;
DEALLOCATE bounds_from_parameter;
-- partition selection and query-level arithmetic
SELECT dp_partition_count(1.0, 0, 1) FROM e;
SELECT dp_partition_count(1.0, 1, 1) FROM e;
SELECT dp_partition_count(1.0, 1e-5, 0) FROM e;
SELECT dp_partition_count(0, 1e-5, 1) FROM e;
SELECT anon_dp_tau(1.0, 1.5, 1);
SELECT anon_dp_tau(1.0, 1e-5, 0);
SELECT anon_dp_tau(1.0, NULL, 1);
SELECT anon_dp_epsilon_share(0, 1, 1);
SELECT anon_dp_epsilon_share(1.0, 0, 1);
SELECT anon_dp_epsilon_share(1.0, 1, -1);
-- settings are validated
SET anon_dp.epsilon = 0;
SET anon_dp.epsilon = 'NaN';
SET anon_dp.delta = 1;
SET anon_dp.delta = 0;
SET anon_dp.max_groups_contributed = 0;
SET anon_dp.no_such_setting = 1;
SET anon_dp.epsilon = 0.5;
SHOW anon_dp.epsilon;
RESET anon_dp.epsilon;

DROP TABLE e;
