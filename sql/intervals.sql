-- Confidence intervals (doc/functions.md, "ANON_*_CI"): ANON_COUNT_CI,
-- ANON_SUM_CI and ANON_AVG_CI return (value, lower, upper) at 95 %, noise
-- only, in the same query and for the same epsilon as their plain forms.
-- Printed results are facts that hold whatever the noise.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS anon_dp;
RESET client_min_messages;
SET extra_float_digits = 0;

-- 3000 users, one row each: x in [0, 10], 3 groups
CREATE TABLE ci_visits (uid int, g int, x float8, n int, big bigint, amount numeric);
INSERT INTO ci_visits SELECT u, u % 3, u % 10, u % 7, u % 5, (u % 4)::numeric / 2
FROM generate_series(1, 3000) u;
SECURITY LABEL FOR anon_dp ON COLUMN ci_visits.uid IS 'privacy_unit';

-- ==== the form ====
-- ci_type: a composite (value, lower, upper) of double precision
SELECT pg_typeof(ANON_COUNT_CI(*)) AS count_type, pg_typeof(ANON_SUM_CI(x, 0, 10)) AS sum_type,
       pg_typeof(ANON_AVG_CI(x, 0, 10)) AS avg_type FROM ci_visits;
-- ci_fields: each field, and the value inside its interval
SELECT (c).lower <= (c).value AND (c).value <= (c).upper AS count_inside,
       (s).lower <= (s).value AND (s).value <= (s).upper AS sum_inside,
       (a).lower <= (a).value AND (a).value <= (a).upper AS avg_inside,
       (a).lower >= 0 AND (a).upper <= 10 AS avg_within_bounds
FROM (SELECT ANON_COUNT_CI(*) c, ANON_SUM_CI(x, 0, 10) s, ANON_AVG_CI(x, 0, 10) a FROM ci_visits) r;
-- ci_fields_of_one_release: fields of equal calls read one release
SELECT g, (ANON_SUM_CI(x, 0, 10)).lower < (ANON_SUM_CI(x, 0, 10)).upper AS one_release
FROM ci_visits GROUP BY g ORDER BY g;

-- ==== half-widths: b ln 20 (Laplace), the ceiling for integer releases ====
-- one release, epsilon 1, no GROUP BY: the whole epsilon is its own
SET anon_dp.epsilon = 1;
-- ci_count_half_width: sensitivity 1, b = 1, b ln 20 = 2.996, an integer count: 3
SELECT (c).upper - (c).value BETWEEN 3 AND 3.000001 AS count_h_3,
       (c).value - (c).lower BETWEEN 3 AND 3.000001 AS count_h_3_below
FROM (SELECT ANON_COUNT_CI(*) c FROM ci_visits) r;
-- ci_count_bound: ANON_COUNT_CI(col, 4): sensitivity 4, b = 4, 4 ln 20 = 11.98 -> 12
SELECT (c).upper - (c).value BETWEEN 12 AND 12.000001 AS count_u4_h_12
FROM (SELECT ANON_COUNT_CI(n, 4) c FROM ci_visits) r;
-- ci_sum_float_half_width: sensitivity 10, b = 10: 10 ln 20 = 29.957 (the plan's
-- scale is at most 2^-30 above b)
SELECT (s).upper - (s).value BETWEEN 10 * ln(20) AND 10 * ln(20) * (1 + 1e-8) AS sum_h_b_ln20
FROM (SELECT ANON_SUM_CI(x, 0, 10) s FROM ci_visits) r;
-- ci_sum_numeric: bounds [-20, 5], b = 20: 59.915
SELECT (s).upper - (s).value BETWEEN 20 * ln(20) AND 20 * ln(20) * (1 + 1e-8) AS numeric_h
FROM (SELECT ANON_SUM_CI(amount, -20, 5) s FROM ci_visits) r;
-- ci_sum_integer: int and bigint sums are integers; two releases, epsilon 1/2
-- each, sensitivity 7: b = 14, ceil(14 ln 20) = 42
SELECT (s).upper - (s).value BETWEEN 42 AND 42.000001 AS int_h_42,
       (t).upper - (t).value BETWEEN 42 AND 42.000001 AS bigint_h_42
FROM (SELECT ANON_SUM_CI(n, -7, 3) s, ANON_SUM_CI(big, 0::bigint, 7::bigint) t FROM ci_visits) r;
-- ci_epsilon_split: two releases share epsilon: b doubles
SELECT (s).upper - (s).value BETWEEN 20 * ln(20) AND 20 * ln(20) * (1 + 1e-8) AS sum_h_doubled
FROM (SELECT ANON_SUM_CI(x, 0, 10) s, ANON_COUNT(*) FROM ci_visits) r;
-- ci_count_non_negative: a count's interval never goes below 0 (empty input)
SELECT (c).value >= 0 AND (c).lower >= 0 AND (c).lower <= (c).upper AS non_negative
FROM (SELECT ANON_COUNT_CI(*) c FROM ci_visits WHERE uid < 0) r;
-- ci_avg_interval: the mean's interval lies in the bounds and is not a constant width
SELECT (a).lower >= 2 AND (a).upper <= 8 AND (a).upper > (a).lower AS avg_interval
FROM (SELECT ANON_AVG_CI(x, 2, 8) a FROM ci_visits) r;
-- ci_explain_agrees: the half-width anon_dp_explain states is the one the query shows
SELECT abs((SELECT half_width FROM anon_dp_explain('SELECT ANON_SUM_CI(x, 0, 10) FROM ci_visits'))
           - (s).upper + (s).value) < 1e-6 AS explain_agrees
FROM (SELECT ANON_SUM_CI(x, 0, 10) s FROM ci_visits) r;

-- ==== Gaussian noise (C_u > 1, anon_dp.noise = gaussian): 1.96 sigma ====
SET anon_dp.max_groups_contributed = 3;
SET anon_dp.noise = gaussian;
-- ci_gaussian_half_width: the half-width over anon_dp_explain's sigma is the
-- 97.5 % normal quantile (1.959964), up to the grid
SELECT mechanism, half_width / noise_scale BETWEEN 1.959963 AND 1.96 AS h_is_1_96_sigma
FROM anon_dp_explain('SELECT g, ANON_SUM_CI(x, 0, 10) FROM ci_visits GROUP BY g');
SELECT bool_and((s).upper - (s).value BETWEEN e.half_width AND e.half_width * (1 + 1e-9)) AS gaussian_query_h
FROM (SELECT g, ANON_SUM_CI(x, 0, 10) s FROM ci_visits GROUP BY g) r,
     anon_dp_explain('SELECT g, ANON_SUM_CI(x, 0, 10) FROM ci_visits GROUP BY g') e;
RESET anon_dp.noise;
RESET anon_dp.max_groups_contributed;

-- ==== the same release as the plain form ====
-- ci_not_selecting: a CI count never selects partitions (its noise would be
-- conditioned on passing tau): the selection is a count of its own
SELECT release, function, selection LIKE '%its own noisy user count%' AS own_count
FROM anon_dp_explain('SELECT g, ANON_COUNT_CI(*) FROM ci_visits GROUP BY g');
-- ci_plain_selects: the plain count's noisy count does
SELECT release, function, selection LIKE '%noisy count of ANON_COUNT%' AS reused
FROM anon_dp_explain('SELECT g, ANON_COUNT(*) FROM ci_visits GROUP BY g');
-- ci_explain_plan: the CI aggregate is rewritten like its plain form
SET compute_query_id = off;
EXPLAIN (VERBOSE, COSTS OFF) SELECT ANON_SUM_CI(x, 0, 10) FROM ci_visits;

-- ==== refusals ====
-- ci_no_interval: quantiles, extremes, variance
SELECT ANON_MEDIAN_CI(x, 0, 10) FROM ci_visits;
SELECT ANON_NTILE_CI(x, 0.9, 0, 10) FROM ci_visits;
SELECT ANON_MIN_CI(x, 0, 10) FROM ci_visits;
SELECT ANON_MAX_CI(x, 0, 10) FROM ci_visits;
SELECT ANON_VAR_CI(x, 0, 10) FROM ci_visits;
SELECT ANON_STDDEV_CI(x, 0, 10) FROM ci_visits;
-- ci_missing_bounds: the full form in the hint
SELECT ANON_SUM_CI(x) FROM ci_visits;
SELECT ANON_AVG_CI(x, 0) FROM ci_visits;
-- ci_bad_bounds: named by the CI aggregate
SELECT ANON_SUM_CI(x, 10, 0) FROM ci_visits;
SELECT ANON_AVG_CI(x, 0, 'Infinity') FROM ci_visits;
SELECT ANON_COUNT_CI(n, -1) FROM ci_visits;
-- ci_bound_from_data: bounds are constants
SELECT ANON_SUM_CI(x, 0, n) FROM ci_visits;
-- ci_distinct: ANON_COUNT_CI(DISTINCT col) counts distinct values with its interval
SELECT (c).upper - (c).value BETWEEN 3 AND 3.000001 AS distinct_h
FROM (SELECT ANON_COUNT_CI(DISTINCT n) c FROM ci_visits) r;
SELECT ANON_SUM_CI(DISTINCT x, 0, 10) FROM ci_visits;
RESET anon_dp.epsilon;

-- ==== an analyst ====
CREATE ROLE ci_analyst;
SECURITY LABEL FOR anon_dp ON ROLE ci_analyst IS 'anonymized';
SELECT anon_dp_set_budget('ci_analyst', 10, 1e-3);
SET SESSION AUTHORIZATION ci_analyst;
-- ci_analyst_allowed: the CI forms are ANON_* aggregates of the allow-list
SELECT (c).lower <= (c).upper AS analyst_ci FROM (SELECT ANON_COUNT_CI(*) c FROM ci_visits) r;
-- ci_as_array: the interval as {value, lower, upper}, a built-in array drivers
-- read as numbers (one release: the cast is post-processing)
SELECT pg_typeof(a) AS type, array_length(a, 1) AS elements, a[2] <= a[1] AND a[1] <= a[3] AS ordered
FROM (SELECT ANON_AVG_CI(x, 0, 10)::float8[] AS a FROM ci_visits) r;
-- ci_charged_like_plain: one release, anon_dp.epsilon charged, as ANON_SUM
SELECT spent_epsilon, releases FROM anon_dp_budget;
SELECT (s).value IS NOT NULL AS ran FROM (SELECT ANON_SUM_CI(x, 0, 10) s FROM ci_visits) r;
SELECT spent_epsilon, releases FROM anon_dp_budget;
SELECT ANON_SUM(x, 0, 10) IS NOT NULL AS ran FROM ci_visits;
SELECT spent_epsilon, releases FROM anon_dp_budget;
-- ci_grouped_charge: with GROUP BY, epsilon and the selection's delta, as the plain form
SELECT count(*) > 0 AS ran FROM (SELECT g, ANON_AVG_CI(x, 0, 10) FROM ci_visits GROUP BY g) r;
SELECT spent_epsilon, spent_delta, releases FROM anon_dp_budget;
-- ci_blocks_closed: the emitted functions cannot be called directly
SELECT anon_dp_internal.anon_dp_interval_of(1, 2, false, true);
SELECT anon_dp_internal.dp_avg_ci(1, 0, 10, 1, 1);
-- ci_refusal_as_analyst: the refusal names the CI form, not the error channel's error
SELECT ANON_MEDIAN_CI(x, 0, 10) FROM ci_visits;
SELECT ANON_SUM_CI(x, 10, 0) FROM ci_visits;
RESET SESSION AUTHORIZATION;

-- ==== coverage: 2,000 partitions of known content, 95 % +- 2 % ====
-- Public partitions (every key released, no selection) of 20 users each,
-- one row per user, x in [0, 10] (no clamping, no contribution dropped), so
-- each released value differs from the truth by its noise only.  Over 2,000
-- partitions the rate of an exact 95 % interval has a standard error of
-- 0.48 %: the bounds below are at least 4.5 standard errors from the
-- expected rate (95.26 % for counts, 95 % for sums).  An integer count covers at
-- P(|round(Z)| <= ceil(h)), 95.26 % for b = 10; the mean's interval is
-- conservative (a union bound over count and sum): at least 93 %.
CREATE TABLE ci_keys (g int);
INSERT INTO ci_keys SELECT generate_series(0, 1999);
SECURITY LABEL FOR anon_dp ON TABLE ci_keys IS 'public';
CREATE TABLE ci_rows (uid int, g int, x float8);
INSERT INTO ci_rows SELECT u, u % 2000, (u * 7) % 11 FROM generate_series(1, 40000) u;
SECURITY LABEL FOR anon_dp ON COLUMN ci_rows.uid IS 'privacy_unit';
CREATE TABLE ci_truth AS SELECT g, count(*) n, sum(x) s, avg(x) a FROM ci_rows GROUP BY g;
-- epsilon 0.3 over three releases: count b = 10, sum b = 100
SET anon_dp.epsilon = 0.3;
CREATE TEMP TABLE ci_laplace AS
SELECT k.g, ANON_COUNT_CI(*) c, ANON_SUM_CI(r.x, 0, 10) s, ANON_AVG_CI(r.x, 0, 10) a
FROM ci_keys k LEFT JOIN ci_rows r ON r.g = k.g GROUP BY k.g;
-- coverage_laplace
SELECT count(*) AS partitions,
       avg((t.n BETWEEN (l.c).lower AND (l.c).upper)::int) BETWEEN 0.93 AND 0.975 AS count_covers,
       avg((t.s BETWEEN (l.s).lower AND (l.s).upper)::int) BETWEEN 0.927 AND 0.973 AS sum_covers,
       avg((t.a BETWEEN (l.a).lower AND (l.a).upper)::int) >= 0.93 AS avg_covers
FROM ci_laplace l JOIN ci_truth t USING (g);
-- coverage_gaussian: each user in two partitions (g and g + 1), C_u = 2,
-- Gaussian noise for count and sum
CREATE TABLE ci_rows2 (uid int, g int, x float8);
INSERT INTO ci_rows2 SELECT uid, g, x FROM ci_rows
UNION ALL SELECT uid, (g + 1) % 2000, 10 - x FROM ci_rows;
SECURITY LABEL FOR anon_dp ON COLUMN ci_rows2.uid IS 'privacy_unit';
CREATE TABLE ci_truth2 AS SELECT g, count(*) n, sum(x) s FROM ci_rows2 GROUP BY g;
SET anon_dp.max_groups_contributed = 2;
SET anon_dp.noise = gaussian;
SELECT DISTINCT mechanism FROM anon_dp_explain(
  'SELECT k.g, ANON_COUNT_CI(*), ANON_SUM_CI(r.x, 0, 10) FROM ci_keys k LEFT JOIN ci_rows2 r ON r.g = k.g GROUP BY k.g');
CREATE TEMP TABLE ci_gauss AS
SELECT k.g, ANON_COUNT_CI(*) c, ANON_SUM_CI(r.x, 0, 10) s
FROM ci_keys k LEFT JOIN ci_rows2 r ON r.g = k.g GROUP BY k.g;
SELECT count(*) AS partitions,
       avg((t.n BETWEEN (l.c).lower AND (l.c).upper)::int) BETWEEN 0.93 AND 0.975 AS count_covers,
       avg((t.s BETWEEN (l.s).lower AND (l.s).upper)::int) BETWEEN 0.927 AND 0.973 AS sum_covers
FROM ci_gauss l JOIN ci_truth2 t USING (g);
RESET anon_dp.noise;
RESET anon_dp.max_groups_contributed;
RESET anon_dp.epsilon;

-- clean up
DROP TABLE ci_visits, ci_keys, ci_rows, ci_truth, ci_rows2, ci_truth2;
DROP ROLE ci_analyst;
