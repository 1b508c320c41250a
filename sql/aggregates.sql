-- Properties of the cross-user DP aggregates: accuracy with large margins,
-- result types, integer results, NULL handling, empty input, parallel plans.
-- Noise makes values random: every check compares against the truth with a
-- margin of at least 25 noise scales (failure probability below e^-25).
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS anon_dp;
RESET client_min_messages;
-- the building blocks are called by name: their schema on the search path (doc/functions.md)
SET search_path = public, anon_dp_internal;
SET extra_float_digits = 0;

CREATE TABLE contrib AS
SELECT g AS uid, (g % 100)::int4 AS i4, (g % 100)::int8 AS i8,
       (g % 100)::float8 AS f8, (g % 100)::numeric AS num,
       CASE WHEN g % 10 = 0 THEN NULL ELSE (g % 100)::float8 END AS with_nulls
FROM generate_series(1, 100000) g;
ANALYZE contrib;

-- result types follow the input: integers give bigint
SELECT pg_typeof(dp_count(1::int8, 1, 1.0, 1)) AS count_type,
       pg_typeof(dp_sum(i4, 0, 100, 1.0, 1)) AS sum_int4,
       pg_typeof(dp_sum(i8, 0, 100, 1.0, 1)) AS sum_int8,
       pg_typeof(dp_sum(f8, 0, 100, 1.0, 1)) AS sum_float8,
       pg_typeof(dp_sum(num, 0, 100, 1.0, 1)) AS sum_numeric,
       pg_typeof(dp_avg(f8, 0, 100, 1.0, 1)) AS avg_type,
       pg_typeof(dp_ntile(f8, 0.5, 0, 100, 1.0, 1)) AS ntile_type
FROM contrib;

-- sum: truth 4950000, sensitivity 100, epsilon 1 -> scale 100
SELECT abs(dp_sum(i4, 0, 100, 1.0, 1) - 4950000) < 2500 AS sum_int4_ok,
       abs(dp_sum(i8, 0, 100, 1.0, 1) - 4950000) < 2500 AS sum_int8_ok,
       abs(dp_sum(f8, 0, 100, 1.0, 1) - 4950000) < 2500 AS sum_float8_ok,
       abs(dp_sum(num, 0, 100, 1.0, 1) - 4950000) < 2500 AS sum_numeric_ok
FROM contrib;

-- clamping to [0, 10]: truth is sum(least(v, 10)) = 1000 * (0+..+9) + 90000 * 10
SELECT abs(dp_sum(i4, 0, 10, 1.0, 1) - (45000 + 900000)) < 250 AS clamped_sum_ok
FROM contrib;

-- count of per-user counts clamped to [0, 1]: truth 100000, scale 1
SELECT abs(dp_count(1::int8, 1, 1.0, 1) - 100000) < 25 AS count_ok,
       abs(dp_count(5::int8, 3, 1.0, 1) - 300000) < 75 AS count_clamped_to_upper_ok
FROM contrib;

-- integer results are integers even when the noise grid is finer than 1
SELECT dp_sum(i4, 0, 1, 1000.0, 1) = round(dp_sum(i4, 0, 1, 1000.0, 1)) AS sum_is_integer
FROM contrib;

-- mean, variance, stddev, quantiles (values uniform on 0..99)
SELECT abs(dp_avg(f8, 0, 100, 1.0, 1) - 49.5) < 0.1 AS avg_ok,
       abs(dp_var(f8, 0, 100, 1.0, 1) - 833.25) < 10 AS var_ok,
       abs(dp_stddev(f8, 0, 100, 1.0, 1) - 28.866) < 0.5 AS stddev_ok,
       abs(dp_ntile(f8, 0.5, 0, 100, 1.0, 1) - 50) < 1.5 AS median_ok,
       abs(dp_ntile(f8, 0.1, 0, 100, 1.0, 1) - 10) < 1.5 AS p10_ok,
       abs(dp_ntile(f8, 0.0, 0, 100, 1.0, 1) - 0) < 1.5 AS min_ok,
       abs(dp_ntile(f8, 1.0, 0, 100, 1.0, 1) - 100) < 1.5 AS max_ok
FROM contrib;

-- NULL inputs are ignored (10% NULLs; values of the others average 50)
SELECT abs(dp_avg(with_nulls, 0, 100, 1.0, 1) - 50) < 0.1 AS avg_ignores_nulls,
       abs(dp_sum(with_nulls, 0, 100, 1.0, 1) - 4500000) < 2500 AS sum_ignores_nulls
FROM contrib;

-- contributions k multiplies the sensitivity: still accurate at k = 10
SELECT abs(dp_sum(f8, 0, 100, 1.0, 10) - 4950000) < 25000 AS sum_k10_ok
FROM contrib;

-- empty input releases a noisy value, never NULL
SELECT dp_count(1::int8, 1, 1.0, 1) IS NOT NULL AS count_not_null,
       dp_sum(i4, 0, 100, 1.0, 1) IS NOT NULL AS sum_not_null,
       dp_sum(f8, 0, 100, 1.0, 1) IS NOT NULL AS sum_float_not_null,
       dp_sum(num, 0, 100, 1.0, 1) IS NOT NULL AS sum_numeric_not_null,
       dp_avg(f8, 0, 100, 1.0, 1) BETWEEN 0 AND 100 AS avg_in_range,
       dp_var(f8, 0, 100, 1.0, 1) BETWEEN 0 AND 2500 AS var_in_range,
       dp_ntile(f8, 0.5, 0, 100, 1.0, 1) BETWEEN 0 AND 100 AS ntile_in_range
FROM contrib WHERE false;

-- empty input: the noise is real (over 200 partitions of nothing, values vary)
SELECT count(DISTINCT s) > 100 AS empty_sums_vary
FROM (SELECT g, (SELECT dp_sum(f8, 0, 100, 1.0, 1) FROM contrib WHERE uid < -g) AS s
      FROM generate_series(1, 200) g) x;

-- every grouped partition gets its own independent noise
SELECT count(DISTINCT s) = 100 AS independent_noise
FROM (SELECT i4, dp_sum(f8, 0, 1000, 1.0, 1) AS s FROM contrib GROUP BY i4) x;

-- parallel plans: the scan runs in workers, the aggregates (PARALLEL
-- RESTRICTED: each release runs once) in the leader, with the same accuracy
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF)
SELECT dp_sum(f8, 0, 100, 1.0, 1), dp_avg(f8, 0, 100, 1.0, 1),
       dp_var(f8, 0, 100, 1.0, 1), dp_ntile(f8, 0.5, 0, 100, 1.0, 1)
FROM contrib;
SELECT abs(dp_sum(f8, 0, 100, 1.0, 1) - 4950000) < 2500 AS par_sum_ok,
       abs(dp_sum(i8, 0, 100, 1.0, 1) - 4950000) < 2500 AS par_sum_int_ok,
       abs(dp_count(1::int8, 1, 1.0, 1) - 100000) < 25 AS par_count_ok,
       abs(dp_avg(f8, 0, 100, 1.0, 1) - 49.5) < 0.1 AS par_avg_ok,
       abs(dp_var(f8, 0, 100, 1.0, 1) - 833.25) < 10 AS par_var_ok,
       abs(dp_ntile(f8, 0.5, 0, 100, 1.0, 1) - 50) < 1.5 AS par_median_ok,
       dp_partition_count(1.0, 1e-5, 1) > 99000 AS par_partition_count_ok
FROM contrib;
-- parallel plan over empty input still releases noisy values
SELECT dp_sum(f8, 0, 100, 1.0, 1) IS NOT NULL AS par_empty_sum,
       dp_ntile(f8, 0.5, 0, 100, 1.0, 1) BETWEEN 0 AND 100 AS par_empty_ntile,
       dp_partition_count(1.0, 1e-5, 1) IS NULL AS par_empty_partition_dropped
FROM contrib WHERE uid < 0;
SELECT count(*) = 100 AS par_grouped_ok
FROM (SELECT i4, dp_sum(f8, 0, 100, 1.0, 1) s FROM contrib GROUP BY i4) x
WHERE abs(s - 1000 * i4) < 2500;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
SELECT DISTINCT proparallel FROM pg_proc
WHERE prokind = 'a' AND proname IN ('dp_count', 'dp_sum', 'dp_sum_bigint', 'dp_avg', 'dp_var',
                                    'dp_stddev', 'dp_ntile', 'dp_partition_count');

-- partial aggregation and combine: partitionwise aggregation over partitions
-- (1000 users per group; the average's noise has a scale of about 0.13 here,
-- the bounds below are 25 or more noise scales)
CREATE TABLE contrib_parts (uid int, i4 int, f8 float8) PARTITION BY RANGE (uid);
CREATE TABLE contrib_parts_1 PARTITION OF contrib_parts FOR VALUES FROM (MINVALUE) TO (50000);
CREATE TABLE contrib_parts_2 PARTITION OF contrib_parts FOR VALUES FROM (50000) TO (MAXVALUE);
INSERT INTO contrib_parts SELECT uid, i4, f8 FROM contrib;
ANALYZE contrib_parts;
SET enable_partitionwise_aggregate = on;
SET max_parallel_workers_per_gather = 0;
EXPLAIN (COSTS OFF)
SELECT i4, dp_sum(f8, 0, 100, 1.0, 1), dp_avg(f8, 0, 100, 1.0, 1),
       dp_var(f8, 0, 100, 1.0, 1), dp_ntile(f8, 0.5, 0, 100, 1.0, 1)
FROM contrib_parts GROUP BY i4;
SELECT count(*) = 100 AS combined_sum_ok,
       bool_and(abs(a - i4) < 4) AS combined_avg_ok,
       bool_and(abs(m - i4) < 5) AS combined_median_ok,
       bool_and(p > 900) AS combined_partition_count_ok
FROM (SELECT i4, dp_sum(f8, 0, 100, 1.0, 1) s, dp_avg(f8, 0, 100, 1.0, 1) a,
             dp_ntile(f8, 0.5, 0, 100, 1.0, 1) m, dp_partition_count(1.0, 1e-5, 1) p
      FROM contrib_parts GROUP BY i4) x
WHERE abs(s - 1000 * i4) < 2500;
RESET enable_partitionwise_aggregate;
RESET max_parallel_workers_per_gather;
DROP TABLE contrib_parts;

-- the aggregates are recorded as volatile (they draw noise)
SELECT DISTINCT provolatile FROM pg_proc
WHERE prokind = 'a' AND proname IN ('dp_count', 'dp_sum', 'dp_avg', 'dp_var',
                                    'dp_stddev', 'dp_ntile', 'dp_partition_count');
SELECT DISTINCT p.provolatile, p.proparallel
FROM pg_aggregate a JOIN pg_proc p ON p.oid = a.aggfinalfn
WHERE a.aggfnoid::regproc::text LIKE 'dp\_%';

DROP TABLE contrib;
