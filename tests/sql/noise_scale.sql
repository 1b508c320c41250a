-- The noise scale of every aggregate, measured: 4000 independent partitions
-- of known content, empirical variance compared with 2 b^2 for the scale b
-- the privacy claim requires.  The relative standard error of a Laplace
-- sample variance over n = 4000 is sqrt(5/n) = 3.5%; the tolerance is 25%
-- (7 standard errors), so half or double the scale fails for certain.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS anon_dp;
RESET client_min_messages;

CREATE TEMP TABLE scale_check (name text, expected_b float8, noise float8);

-- dp_sum float: bounds [0, 10], epsilon 1 -> b = 10
INSERT INTO scale_check
SELECT 'sum_float', 10, dp_sum(5.0::float8, 0, 10, 1.0, 1) - 5
FROM generate_series(1, 4000) g GROUP BY g;
-- dp_sum integer: bounds [-3, 7], epsilon 0.5 -> b = 14
INSERT INTO scale_check
SELECT 'sum_int', 14, dp_sum(2::int4, -3, 7, 0.5, 1) - 2
FROM generate_series(1, 4000) g GROUP BY g;
-- dp_sum numeric: bounds [-20, 5], epsilon 2 -> b = 10
INSERT INTO scale_check
SELECT 'sum_numeric', 10, dp_sum(1::numeric, -20, 5, 2.0, 1) - 1
FROM generate_series(1, 4000) g GROUP BY g;
-- dp_count: per-user counts clamped to [0, 2], epsilon 0.25 -> b = 8
INSERT INTO scale_check
SELECT 'count', 8, dp_count(1::int8, 2, 0.25, 1) - 1
FROM generate_series(1, 4000) g GROUP BY g;
-- contributions = 3 triples the sensitivity: bounds [0, 1], epsilon 1 -> b = 3
INSERT INTO scale_check
SELECT 'sum_k3', 3, dp_sum(1.0::float8, 0, 1, 1.0, 3) - 1
FROM generate_series(1, 4000) g GROUP BY g;
-- the noisy user count of partition selection: sensitivity 1, epsilon 0.5 -> b = 2
-- (partitions of 200 users are always above tau)
INSERT INTO scale_check
SELECT 'partition_count', 2, dp_partition_count(0.5, 1e-5, 1) - 200
FROM generate_series(1, 4000) g, generate_series(1, 200) u GROUP BY g;

SELECT name,
       abs(avg(noise)) < 7 * sqrt(2) * max(expected_b) / sqrt(count(*)) AS centred,
       var_pop(noise) / (2 * max(expected_b) ^ 2) BETWEEN 0.75 AND 1.25 AS variance_matches_scale
FROM scale_check GROUP BY name ORDER BY name;

-- integer aggregates release integers, with noise on every value (not only
-- multiples of some coarse step): at b = 8 many distinct values appear
SELECT count(DISTINCT noise) > 40 AS count_noise_fine_grained
FROM scale_check WHERE name = 'count';
