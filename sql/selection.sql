-- More accuracy at the same privacy (issue 20, doc/noise.md): which release
-- selects the partitions (count reuse), which selection and noise the
-- planner picks, their settings, ANON_COUNT(DISTINCT col, k), row-level
-- ANON_MEDIAN, the delta each charges, and no analyst path to the new
-- internal blocks.  Plans are read from EXPLAIN (no noise printed).
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS anon_dp;
RESET client_min_messages;
-- the building blocks are called by name: their schema on the search path (doc/functions.md)
SET search_path = public, anon_dp_internal;
SET extra_float_digits = 0;

CREATE TABLE sel_rows (uid int, g int, x float8, tag text);
INSERT INTO sel_rows SELECT u, u % 4, (u % 10)::float8, 't' || (u % 7) FROM generate_series(1, 4000) u;
INSERT INTO sel_rows VALUES (99999, 77, 1, 'lonely');
SECURITY LABEL FOR anon_dp ON COLUMN sel_rows.uid IS 'privacy_unit';

-- the release calls of a query's plan with their constant arguments
CREATE FUNCTION sel_blocks(query text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE line text; piece text; result text[] := '{}';
BEGIN
  FOR line IN EXECUTE 'EXPLAIN (VERBOSE, COSTS OFF) ' || query LOOP
    line := regexp_replace(line, 'anon_dp_bound_partitions\([^)]*\)', '', 'g');
    FOR piece IN SELECT regexp_split_to_table(line, '(Output: |, )(?=dp_[a-z_]+\()') LOOP
      IF piece ~ '^dp_[a-z_]+\(' THEN
        result := result || (substring(piece from '^(dp_[a-z_]+)') || '(' || array_to_string(ARRAY(
          SELECT coalesce(m[1], m[2]) FROM regexp_matches(piece, '''([^'']*)''::|, ([0-9]+)(?=[,)])', 'g') m), ', ') || ')');
      END IF;
    END LOOP;
  END LOOP;
  RETURN array_to_string(result, ' ');
END $$;

-- ==== count reuse: which release selects, and the epsilon split ====
SET anon_dp.epsilon = 1;
-- ANON_COUNT(*) selects with its own noisy count: N = 2, 1 / (1 * 2) = 0.5 each,
-- and no separate selection block
SELECT sel_blocks('SELECT g, ANON_COUNT(*), ANON_SUM(x, 0, 10) FROM sel_rows GROUP BY g') AS reuse_count;
-- ANON_COUNT(*) is preferred over ANON_COUNT(col) and the mean's count
SELECT sel_blocks('SELECT g, ANON_COUNT(x), ANON_AVG(x, 0, 10), ANON_COUNT(*) FROM sel_rows GROUP BY g') AS count_star_selects;
-- ANON_COUNT(col) (per-user counts clamped to [0, 1]) counts users too
SELECT sel_blocks('SELECT g, ANON_COUNT(x), ANON_SUM(x, 0, 10) FROM sel_rows GROUP BY g') AS count_col_selects;
-- ANON_COUNT(col, 3) counts rows, not users: it cannot select
SELECT sel_blocks('SELECT g, ANON_COUNT(x, 3) FROM sel_rows GROUP BY g') AS bounded_count_cannot;
-- no count of users: a separate selection block, N + 1 = 2 shares
SELECT sel_blocks('SELECT g, ANON_SUM(x, 0, 10) FROM sel_rows GROUP BY g') AS separate;
-- reuse off: the separate block, 1 / (1 * 3) each
SET anon_dp.reuse_counts = off;
SELECT sel_blocks('SELECT g, ANON_COUNT(*), ANON_SUM(x, 0, 10) FROM sel_rows GROUP BY g') AS reuse_off;
RESET anon_dp.reuse_counts;
-- C_u = 5 at epsilon 1: 1 / (5 * 2) = 0.1 each; Gaussian selection keeps half
-- the partitions with fewer users there, and the planner picks it
SET anon_dp.max_groups_contributed = 5;
SELECT sel_blocks('SELECT g, ANON_COUNT(*), ANON_SUM(x, 0, 10) FROM sel_rows GROUP BY g') AS cu5;
-- each mechanism on demand (anon_dp.partition_selection)
SET anon_dp.partition_selection = laplace;
SELECT sel_blocks('SELECT g, ANON_COUNT(*) FROM sel_rows GROUP BY g') AS laplace;
SET anon_dp.partition_selection = optimal;
SELECT sel_blocks('SELECT g, ANON_COUNT(*) FROM sel_rows GROUP BY g') AS optimal;
SELECT sel_blocks('SELECT g, ANON_SUM(x, 0, 10) FROM sel_rows GROUP BY g') AS optimal_separate;
SET anon_dp.partition_selection = gaussian;
SELECT sel_blocks('SELECT g, ANON_COUNT(*) FROM sel_rows GROUP BY g') AS gaussian;
RESET anon_dp.partition_selection;
-- Gaussian noise on demand: the release carries delta and C_u; the delta is
-- split between the Gaussian releases and the selection (1e-5 / 2)
SET anon_dp.noise = gaussian;
SELECT sel_blocks('SELECT g, ANON_COUNT(*), ANON_SUM(x, 0, 10) FROM sel_rows GROUP BY g') AS gaussian_noise;
SET anon_dp.noise = laplace;
SELECT sel_blocks('SELECT g, ANON_COUNT(*), ANON_SUM(x, 0, 10) FROM sel_rows GROUP BY g') AS laplace_noise;
RESET anon_dp.noise;
RESET anon_dp.max_groups_contributed;

-- Gaussian noise through the glue: dp_gaussian_count(count, upper, epsilon per
-- partition, delta, C_u) draws one Gaussian for all C_u partitions at C_u * epsilon
-- with L2 sensitivity sqrt(C_u): sigma(0.2, C_u 5) = sqrt(5) sigma(1, C_u 1), a
-- variance ratio of 5 (+- 25 %, 8 standard errors over 4000 draws each). L1
-- sensitivity, or epsilon not multiplied by C_u, would give 25. The analytic sigma
-- at epsilon 1, delta 1e-5 lies below the classic sqrt(2 ln(1.25/delta)) = 4.84.
CREATE TEMP TABLE sel_gauss AS
SELECT 'cu1' AS name, dp_gaussian_count(1::int8, 1, 1.0, 1e-5, 1) - 1 AS noise FROM generate_series(1, 4000) g GROUP BY g
UNION ALL
SELECT 'cu5', dp_gaussian_count(1::int8, 1, 0.2, 1e-5, 5) - 1 FROM generate_series(1, 4000) g GROUP BY g;
SELECT (SELECT var_pop(noise) FROM sel_gauss WHERE name = 'cu5') /
       (SELECT var_pop(noise) FROM sel_gauss WHERE name = 'cu1') BETWEEN 3.75 AND 6.25 AS l2_sqrt_cu,
       (SELECT stddev_pop(noise) FROM sel_gauss WHERE name = 'cu1') BETWEEN 3.0 AND 4.84 AS analytic_sigma,
       (SELECT abs(avg(noise)) < 0.7 FROM sel_gauss WHERE name = 'cu5') AS centred;

-- every mechanism keeps the big partitions (1000 users) and drops the
-- one-user partition 77, over 20 runs each (delta 1e-10: a one-user
-- partition is kept with probability at most delta per run)
CREATE TEMP TABLE sel_runs (mechanism text, g int);
SET anon_dp.delta = 1e-10;
DO $$
DECLARE m text; i int;
BEGIN
  FOREACH m IN ARRAY ARRAY['laplace', 'optimal', 'gaussian'] LOOP
    PERFORM set_config('anon_dp.partition_selection', m, false);
    FOR i IN 1 .. 20 LOOP
      INSERT INTO sel_runs SELECT m, g FROM (SELECT g, ANON_COUNT(*) FROM sel_rows GROUP BY g) s;
      INSERT INTO sel_runs SELECT m || ' separate', g FROM (SELECT g, ANON_SUM(x, 0, 10) FROM sel_rows GROUP BY g) s;
    END LOOP;
  END LOOP;
END $$;
RESET anon_dp.partition_selection;
RESET anon_dp.delta;
SELECT mechanism, count(*) FILTER (WHERE g BETWEEN 0 AND 3) AS big_kept,
       count(*) FILTER (WHERE g = 77) AS lonely_kept
FROM sel_runs GROUP BY mechanism ORDER BY mechanism;

-- ==== settings ====
SET anon_dp.partition_selection = 'bogus';
SET anon_dp.partition_selection = 'Optimal';
SET anon_dp.noise = 'discrete';
SET anon_dp.reuse_counts = 'sometimes';
SET anon_dp.max_rows_contributed = -1;
SHOW anon_dp.partition_selection;
SHOW anon_dp.noise;
SHOW anon_dp.reuse_counts;
-- a Gaussian selection that cannot be planned names the setting and what to change
SET anon_dp.partition_selection = gaussian;
SET anon_dp.epsilon = 1e-11;
SELECT g, ANON_COUNT(*) FROM sel_rows GROUP BY g;
RESET anon_dp.partition_selection;
SET anon_dp.epsilon = 1;

-- ==== ANON_COUNT(DISTINCT col[, k]) ====
-- 7 distinct tags of 4000 users, 'lonely' of one user: sensitivity k per user
SELECT abs(ANON_COUNT(DISTINCT tag) - 8) < 30 AS distinct_tags FROM sel_rows;
-- the plan: k = 2 at epsilon / N
SELECT sel_blocks('SELECT ANON_COUNT(DISTINCT tag, 2), ANON_COUNT(*) FROM sel_rows') AS distinct_k2;
SELECT sel_blocks('SELECT ANON_COUNT(DISTINCT tag) FROM sel_rows') AS distinct_default_k1;
-- the noise scale is k / epsilon: k = 4 at epsilon 4, scale 1.  The noise is
-- drawn on a grid finer than 1 and the count rounds half away from zero, so
-- P(k) = e^-|k| sinh(1/2) and the variance is 2 sinh(1/2) e (e + 1) / (e - 1)^3
-- = 2.076; over 2000 runs +- 25 % is 5 standard errors.  (The true count is
-- 8: at scale 1 the released count's floor at 0 is reached with probability
-- about e^-8 / 2, so it does not shrink the variance; sensitivity 1 would give
-- a variance of about 0.13, k / epsilon with epsilon 1 one of about 32.)
SET anon_dp.epsilon = 4;
CREATE TEMP TABLE sel_distinct (noise int8);
DO $$ BEGIN FOR i IN 1 .. 2000 LOOP
  INSERT INTO sel_distinct SELECT ANON_COUNT(DISTINCT tag, 4) - 8 FROM sel_rows;
END LOOP; END $$;
SET anon_dp.epsilon = 1;
SELECT var_pop(noise) / 2.076 BETWEEN 0.75 AND 1.25 AS distinct_scale_k_over_eps,
       abs(avg(noise)) < 0.17 AS centred FROM sel_distinct;
-- bad k: the errors name ANON_COUNT
SELECT ANON_COUNT(DISTINCT tag, 0) FROM sel_rows;
SELECT ANON_COUNT(DISTINCT tag, -3) FROM sel_rows;
SELECT ANON_COUNT(DISTINCT tag, 100000000) FROM sel_rows;
SELECT ANON_COUNT(DISTINCT tag, NULL) FROM sel_rows;
SELECT ANON_COUNT(DISTINCT tag, g) FROM sel_rows;
SELECT ANON_SUM(DISTINCT x, 0, 10) FROM sel_rows;

-- ==== row-level ANON_MEDIAN ====
-- skewed: 1200 users with one row at 10, 800 users with five rows at 90.
-- The rows' median is 90; the median of per-user values would be 10.
CREATE TABLE sel_skew (uid int, v float8);
INSERT INTO sel_skew SELECT u, 10 FROM generate_series(1, 1200) u;
INSERT INTO sel_skew SELECT u, 90 FROM generate_series(1201, 2000) u, generate_series(1, 5) r;
SECURITY LABEL FOR anon_dp ON COLUMN sel_skew.uid IS 'privacy_unit';
SET anon_dp.max_rows_contributed = 5;
SELECT abs(ANON_MEDIAN(v, 0, 100) - 90) < 2 AS row_median_90 FROM sel_skew;
SELECT abs(ANON_NTILE(v, 0.1, 0, 100) - 10) < 2 AS row_p10_10 FROM sel_skew;
SELECT sel_blocks('SELECT ANON_MEDIAN(v, 0, 100) FROM sel_skew') AS row_median_plan;
-- anon_dp.quantile_rows = auto: the release chooses m <= 5 from a noisy
-- histogram of row counts (dp_ntile_rows_adaptive, same arguments); here
-- dropping rows of the five-row users costs more predicted sampling error
-- than it saves in noise, so it keeps them (m = 5): about 90 as well
SET anon_dp.quantile_rows = auto;
SELECT sel_blocks('SELECT ANON_MEDIAN(v, 0, 100) FROM sel_skew') AS adaptive_plan;
SELECT abs(ANON_MEDIAN(v, 0, 100) - 90) < 2 AS auto_keeps_rows FROM sel_skew;
-- the documented bias of auto (doc/noise.md 10.6): 5000 users with 2 rows in
-- [0, 20) and 200 users with 60 rows in [80, 100); the rows' median is in
-- [80, 100) (12000 of 22000 rows).  auto predicts the least error at m = 8 or
-- 16 (its model sees sizes, not values) and keeps at most 3200 of the heavy
-- rows: the median of that sample is below 20.  max (all rows) stays above 80
-- (the empty leaves between 20 and 80 are 1000 ranks from the target: weight
-- e^-15.6 each).  Values spread over many leaves (not ties).
CREATE TABLE sel_heavy (uid int, v float8);
INSERT INTO sel_heavy SELECT u, ((u * 7919 + r * 104729) % 10007) / 500.35
  FROM generate_series(1, 5000) u, generate_series(1, 2) r;
INSERT INTO sel_heavy SELECT u, 80 + ((u * 7919 + r * 104729) % 10007) / 500.35
  FROM generate_series(5001, 5200) u, generate_series(1, 60) r;
SECURITY LABEL FOR anon_dp ON COLUMN sel_heavy.uid IS 'privacy_unit';
SET anon_dp.max_rows_contributed = 64;
SELECT ANON_MEDIAN(v, 0, 100) < 20 AS auto_reweighs_heavy_users FROM sel_heavy;
SET anon_dp.quantile_rows = max;
SELECT ANON_MEDIAN(v, 0, 100) >= 80 AS max_keeps_all_rows FROM sel_heavy;
SET anon_dp.quantile_rows = auto;
-- with M = 1 there is nothing to choose: dp_ntile_rows
SET anon_dp.max_rows_contributed = 1;
SELECT sel_blocks('SELECT ANON_MEDIAN(v, 0, 100) FROM sel_skew') AS one_row_plan;
SET anon_dp.max_rows_contributed = 5;
RESET anon_dp.quantile_rows;
SELECT sel_blocks('SELECT ANON_MEDIAN(v, 0, 100) FROM sel_skew') AS max_is_default;
SET anon_dp.quantile_rows = bogus;
-- exchangeable rows: 300 users with 40 rows each, v uniform over 0..99 (the
-- rows' median 49.5); auto (M = 64) chooses 32 rows (the model: predicted
-- errors 3.6e-5 at 32, 5.0e-5 at 64, 6.2e-5 at 16) and lands within 3 of it
-- (rank noise of scale 32 / 0.9 = 36 of 9,600 rows: about 0.4 in value; a
-- simulation put 0.9 % of releases 2 or more off, 0.06 % 3 or more: >= 18
-- of 20 within 3 fails about 3e-7 of runs)
CREATE TABLE sel_even (uid int, v float8);
INSERT INTO sel_even SELECT u, (u * 37 + r * 11) % 100 FROM generate_series(1, 300) u, generate_series(1, 40) r;
SECURITY LABEL FOR anon_dp ON COLUMN sel_even.uid IS 'privacy_unit';
SET anon_dp.quantile_rows = auto;
SET anon_dp.max_rows_contributed = 64;
CREATE TEMP TABLE sel_even_runs (v float8);
DO $$ BEGIN FOR i IN 1..20 LOOP
  INSERT INTO sel_even_runs SELECT ANON_MEDIAN(v, 0, 100) FROM sel_even;
END LOOP; END $$;
SELECT count(*) FILTER (WHERE abs(v - 49.5) < 3) >= 18 AS auto_accurate FROM sel_even_runs;
RESET anon_dp.quantile_rows;
-- one row per user by default (anon_dp.max_rows_contributed unset): rows
-- 1200 x 10 and 800 x 90, median 10
RESET anon_dp.max_rows_contributed;
SELECT abs(ANON_MEDIAN(v, 0, 100) - 10) < 2 AS one_row_each FROM sel_skew;

-- ==== budget: tau selection and Gaussian noise charge their delta ====
CREATE ROLE sel_analyst;
SECURITY LABEL FOR anon_dp ON ROLE sel_analyst IS 'anonymized';
SELECT anon_dp_set_budget('sel_analyst', 100, 0.01);
SET SESSION AUTHORIZATION sel_analyst;
SET anon_dp.delta = 1e-6;
-- ledger: 1. ungrouped, Laplace: delta 0
SELECT abs(ANON_COUNT(*) - 4001) < 50 AS ok FROM sel_rows;
-- 2.-4. grouped, each selection mechanism: 1e-6
SET anon_dp.partition_selection = laplace;
SELECT count(*) >= 4 AS ok FROM (SELECT g, ANON_COUNT(*) FROM sel_rows GROUP BY g) s;
SET anon_dp.partition_selection = optimal;
SELECT count(*) >= 4 AS ok FROM (SELECT g, ANON_SUM(x, 0, 10) FROM sel_rows GROUP BY g) s;
SET anon_dp.partition_selection = gaussian;
SELECT count(*) >= 4 AS ok FROM (SELECT g, ANON_COUNT(*) FROM sel_rows GROUP BY g) s;
RESET anon_dp.partition_selection;
-- 5. grouped with Gaussian noise (C_u = 5): the noise's and the selection's parts add up to 1e-6
SET anon_dp.noise = gaussian;
SET anon_dp.max_groups_contributed = 5;
SELECT count(*) >= 4 AS ok FROM (SELECT g, ANON_COUNT(*), ANON_SUM(x, 0, 10) FROM sel_rows GROUP BY g) s;
RESET anon_dp.noise;
RESET anon_dp.max_groups_contributed;
-- 6. ANON_COUNT(DISTINCT) and row-level ANON_MEDIAN without GROUP BY: delta 0
SET anon_dp.max_rows_contributed = 3;
SELECT ANON_COUNT(DISTINCT tag, 2) IS NOT NULL AS ok, ANON_MEDIAN(x, 0, 10) IS NOT NULL AS ok2 FROM sel_rows;
-- 7. the same median with the rows per user chosen: its whole share, delta 0
SET anon_dp.quantile_rows = auto;
SELECT ANON_MEDIAN(x, 0, 10) IS NOT NULL AS ok FROM sel_rows;
RESET anon_dp.quantile_rows;
RESET anon_dp.max_rows_contributed;
RESET SESSION AUTHORIZATION;
SELECT epsilon, delta, outcome FROM anon_dp_ledger WHERE role = 'sel_analyst'::regrole ORDER BY entry;
SELECT spent_epsilon, spent_delta FROM anon_dp_budgets WHERE role = 'sel_analyst'::regrole;

-- ==== no analyst path to the internal blocks ====
SET SESSION AUTHORIZATION sel_analyst;
\set VERBOSITY terse
-- over a private table: the table is closed outside ANON_* aggregates
SELECT anon_dp_sample(x, 10) FROM sel_rows GROUP BY uid;
SELECT anon_dp_distinct_sample(tag, 10) FROM sel_rows GROUP BY uid;
-- inside an anonymization query, as a per-user step of the analyst's own
SELECT g, ANON_COUNT(*) FROM (SELECT uid, g, anon_dp_sample(x, 3) AS s FROM sel_rows GROUP BY uid, g) t GROUP BY g;
SELECT ANON_COUNT(*), anon_dp_sample(x, 3) FROM sel_rows;
-- the blocks called directly: over private rows the table is closed, and over
-- any other input they are refused as internal blocks
SELECT dp_partition_select(1e6, 0.5, 1, 'optimal') FROM sel_rows GROUP BY tag;
SELECT dp_count_select(1::int8, 1e6, 0.5, 1, 'laplace') FROM sel_rows GROUP BY tag;
SELECT dp_count_distinct(ARRAY[tag], 1, 1e6, 1) FROM sel_rows;
SELECT dp_ntile_rows(ARRAY[x], 0.5, 0, 10, 1e6, 1) FROM sel_rows;
SELECT dp_ntile_rows_adaptive(ARRAY[x], 0.5, 0, 10, 1e6, 4) FROM sel_rows;
SELECT dp_gaussian_count(1, 1, 1e6, 0.5, 1) FROM sel_rows;
SELECT anon_dp_sample(g::float8, 10) FROM generate_series(1, 3) g;
SELECT anon_dp_distinct_sample(g, 10) FROM generate_series(1, 3) g;
SELECT dp_partition_public(true, 1) FROM generate_series(1, 3) g;
SELECT dp_gaussian_sum(g::float8, 0, 1, 1e6, 0.5, 1) FROM generate_series(1, 3) g;
\set VERBOSITY default
RESET SESSION AUTHORIZATION;

RESET anon_dp.epsilon;
DROP FUNCTION sel_blocks(text);
DROP TABLE sel_rows, sel_skew;
DELETE FROM anon_dp_budgets WHERE role = 'sel_analyst'::regrole;
DROP OWNED BY sel_analyst;
DROP ROLE sel_analyst;
