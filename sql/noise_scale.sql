-- The noise scale of every aggregate, measured: 4000 independent partitions
-- of known content, empirical variance compared with 2 b^2 for the scale b
-- the privacy claim requires.  The relative standard error of a Laplace
-- sample variance over n = 4000 is sqrt(5/n) = 3.5%; the tolerance is 25%
-- (7 standard errors), so half or double the scale fails for certain.
-- Measured over 150 runs of this file at n = 4000: standard deviations of
-- the ratio 0.035 to 0.038.  The checks below that once used n = 2000 (the
-- variance of squares and the rewriter's splits) had 0.050 there, and the
-- rewriter's integer counts a mean ratio of 1.019 (rounding adds 1/12 to
-- the variance 2 b^2 = 4.5), i.e. 4.6 standard deviations to the upper
-- bound of a right-skewed statistic: they use 4000 partitions now too.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS anon_dp;
RESET client_min_messages;
-- the building blocks are called by name: their schema on the search path (doc/functions.md)
SET search_path = public, anon_dp_internal;

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

-- dp_var: the normalized sum of squares has sensitivity ((U - L)/2)^2 / 2
-- and epsilon / 3.  Bounds [0, 2] (half width h = 1, centre c = 1/2),
-- epsilon 3: b2 = c * 3 / 3 = 0.5.  200 users per partition at 1 +- 1/sqrt(2)
-- have d^2 = c exactly and sum 0: the released variance is
-- c + Z2 / (200 + Z0) - (Z1 / (200 + Z0))^2, i.e. c plus noise of scale
-- b2 / 200 = 0.0025 (the other terms are 100 times smaller).
INSERT INTO scale_check
SELECT 'var_squares', 0.0025, dp_var(1 + (CASE WHEN u % 2 = 0 THEN 1 ELSE -1 END) / sqrt(2.0), 0, 2, 3.0, 1) - 0.5
FROM generate_series(1, 4000) g, generate_series(1, 200) u GROUP BY g;

-- dp_contribution_histogram (anon_dp_contribution_bounds): two histograms at
-- epsilon / 2 each, sensitivity 1 -> b = 2 / epsilon = 4 at epsilon 0.5.
-- 1000 partitions of one user with 1 group and 1 row: every count is 0 but
-- the first of each histogram (elements 1 and 44); element 87 is the scale.
-- Each histogram at epsilon (not epsilon / 2) halves b and fails.
CREATE TEMP TABLE contribution_releases AS
SELECT dp_contribution_histogram(1, 1, 0.5, 1) AS h FROM generate_series(1, 1000) g GROUP BY g;
INSERT INTO scale_check
SELECT 'contribution_histogram', 4, v - CASE WHEN i IN (1, 44) THEN 1 ELSE 0 END
FROM contribution_releases, unnest(h[1:86]) WITH ORDINALITY AS u(v, i);
SELECT bool_and(h[87] >= 4 AND h[87] < 4.004) AS contribution_scale_stated,
       bool_and(array_length(h, 1) = 87) AS contribution_bins
FROM contribution_releases;

-- Through the rewriter: the epsilon split measured on released counts.
-- 4000 partitions of 60 users each (always above tau); N = 3 releases.
-- The noisy ANON_COUNT also selects the partitions (count reuse, issue 20),
-- so the split is eps / (C_u N): C_u = 1 at epsilon 2: b = 1 * 3 / 2 = 1.5;
-- every user in two partitions, C_u = 2 at epsilon 4: b = 2 * 3 / 4 = 1.5.
-- With reuse off a separate user count takes a share: eps / (C_u (N + 1)),
-- b = 4 / 2 = 2.  A split that ignores N or C_u halves b or less; Laplace
-- noise is pinned (anon_dp.noise) so that C_u = 2 cannot pick Gaussian.
CREATE TABLE ns_users AS
SELECT u AS uid, u % 4000 AS g, (u % 2)::float8 AS x FROM generate_series(1, 240000) u;
CREATE TABLE ns_twice AS
SELECT u AS uid, (u + k * 2000) % 4000 AS g, (u % 2)::float8 AS x
FROM generate_series(1, 120000) u, generate_series(0, 1) k;
SECURITY LABEL FOR anon_dp ON COLUMN ns_users.uid IS 'privacy_unit';
SECURITY LABEL FOR anon_dp ON COLUMN ns_twice.uid IS 'privacy_unit';
SET anon_dp.noise = laplace;
SET anon_dp.epsilon = 2;
INSERT INTO scale_check
SELECT 'rewriter_split_n3', 1.5, c - 60
FROM (SELECT g, ANON_COUNT(*) AS c, ANON_SUM(x, 0, 1) AS s, ANON_AVG(x, 0, 1) AS a FROM ns_users GROUP BY g) r;
SET anon_dp.reuse_counts = off;
INSERT INTO scale_check
SELECT 'rewriter_split_n3_separate', 2, c - 60
FROM (SELECT g, ANON_COUNT(*) AS c, ANON_SUM(x, 0, 1) AS s, ANON_AVG(x, 0, 1) AS a FROM ns_users GROUP BY g) r;
RESET anon_dp.reuse_counts;
SET anon_dp.epsilon = 4;
SET anon_dp.max_groups_contributed = 2;
INSERT INTO scale_check
SELECT 'rewriter_split_n3_cu2', 1.5, c - 60
FROM (SELECT g, ANON_COUNT(*) AS c, ANON_SUM(x, 0, 1) AS s, ANON_AVG(x, 0, 1) AS a FROM ns_twice GROUP BY g) r;
RESET anon_dp.noise;
RESET anon_dp.epsilon;
RESET anon_dp.max_groups_contributed;
DROP TABLE ns_users, ns_twice;

SELECT name,
       abs(avg(noise)) < 7 * sqrt(2) * max(expected_b) / sqrt(count(*)) AS centred,
       var_pop(noise) / (2 * max(expected_b) ^ 2) BETWEEN 0.75 AND 1.25 AS variance_matches_scale
FROM scale_check GROUP BY name ORDER BY name;

-- integer aggregates release integers, with noise on every value (not only
-- multiples of some coarse step): at b = 8 many distinct values appear
SELECT count(DISTINCT noise) > 40 AS count_noise_fine_grained
FROM scale_check WHERE name = 'count';

-- The quantile tree's noise per node: sensitivity DP_QTREE_HEIGHT = 4 per
-- contribution at the release's epsilon (one value changes one count per
-- level), so b = 4 / epsilon = 16 at epsilon 0.25.  120 users at the lower
-- bound (leaf 0): the median stays in the first of the root's 16 children
-- exactly when max(0, 120 + Z_0) >= sum over the 15 empty children of
-- max(0, Z_i).  The probability of leaving it, simulated here with
-- continuous Laplace noise of scale 16 (400000 draws), is compared with the
-- rate over 3000 releases (standard error 0.009; tolerance 0.05).  With b = 4
-- (epsilon not divided by the levels) the rate falls to 0.
CREATE TEMP TABLE qt_sim AS
SELECT s, sum(CASE WHEN i = 0 THEN 0 ELSE greatest(0, z) END) AS empty_mass,
       greatest(0, 120 + sum(CASE WHEN i = 0 THEN z ELSE 0 END)) AS first_mass
FROM (SELECT s, i, -16 * sign(u) * ln(1 - 2 * abs(u)) AS z
      FROM (SELECT s, i, random() - 0.5 AS u FROM generate_series(1, 25000) s, generate_series(0, 15) i) r) l
GROUP BY s;
SELECT abs(m.rate - r.rate) < 0.05 AS quantile_node_scale, r.rate BETWEEN 0.2 AND 0.8 AS informative
FROM (SELECT avg((x > 1)::int) AS rate
      FROM (SELECT dp_ntile(0::float8, 0.5, 0, 16, 0.25, 1) AS x
            FROM generate_series(1, 3000) g, generate_series(1, 120) u GROUP BY g) d) m,
     (SELECT avg((first_mass = 0 OR first_mass < empty_mass)::int) AS rate FROM qt_sim) r;
