-- The leftover partition (issue 21 item 7, paper Sec. 5.1.2, doc/rewriter.md):
-- anon_dp.leftover_partition = on releases the partitions a grouped query
-- suppressed as one more row, every key NULL, with its own noise and its own
-- threshold; the epsilon split, the budget charge and the refusals.
-- Properties over runs, never printed noise.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS anon_dp;
RESET client_min_messages;
SET extra_float_digits = 0;

-- 10 partitions of 300 users, 200 partitions of 3 users (600 users)
CREATE TABLE lo_rows (uid int, g int, x float8);
INSERT INTO lo_rows SELECT u, u % 10, (u % 5)::float8 FROM generate_series(1, 3000) u;
INSERT INTO lo_rows SELECT 10000 + u, 100 + u / 3, 1 FROM generate_series(0, 599) u;
SECURITY LABEL FOR anon_dp ON COLUMN lo_rows.uid IS 'privacy_unit';
-- 2 users in partitions of their own, and 300 users with a NULL key
CREATE TABLE lo_tiny (uid int, g int);
INSERT INTO lo_tiny VALUES (1, 1), (2, 2);
SECURITY LABEL FOR anon_dp ON COLUMN lo_tiny.uid IS 'privacy_unit';
CREATE TABLE lo_nulls (uid int, g int);
INSERT INTO lo_nulls SELECT u, CASE WHEN u <= 300 THEN NULL ELSE u % 2 END FROM generate_series(1, 900) u;
INSERT INTO lo_nulls SELECT 10000 + u, 100 + u / 3 FROM generate_series(0, 599) u;
SECURITY LABEL FOR anon_dp ON COLUMN lo_nulls.uid IS 'privacy_unit';
CREATE TABLE lo_public (g int);
INSERT INTO lo_public SELECT generate_series(0, 9);
SECURITY LABEL FOR anon_dp ON TABLE lo_public IS 'public';

-- the release calls of a query's plan with their epsilon (and C_u, delta)
CREATE FUNCTION lo_blocks(query text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE line text; piece text; result text[] := '{}';
BEGIN
  FOR line IN EXECUTE 'EXPLAIN (VERBOSE, COSTS OFF) ' || query LOOP
    line := replace(line, 'anon_dp_internal.', '');   -- the blocks' schema
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
-- the sum of the epsilon arguments of every release call of the plan
CREATE FUNCTION lo_epsilon_sum(query text) RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE plan text := ''; line text; total float8 := 0; m text[];
BEGIN
  FOR line IN EXECUTE 'EXPLAIN (VERBOSE, COSTS OFF) ' || query LOOP
    plan := plan || line;
  END LOOP;
  -- dp_count_select / dp_partition_count / dp_sum / dp_count / dp_avg ...: the
  -- epsilon is the first double precision constant after the bounds
  FOR m IN SELECT regexp_matches(plan,
      'dp_(count_select|partition_count|partition_select|count|sum|avg)\(([^()]*)\)', 'g') LOOP
    total := total + CASE m[1]
      WHEN 'partition_count' THEN substring(m[2] from '^''([^'']*)''')::float8
      WHEN 'partition_select' THEN substring(m[2] from '^''([^'']*)''')::float8
      WHEN 'count_select' THEN substring(m[2] from ', ''([^'']*)''::double precision')::float8
      WHEN 'count' THEN substring(m[2] from ', ''([^'']*)''::double precision')::float8
      ELSE (regexp_match(m[2], '''([^'']*)''::double precision, ''([^'']*)''::double precision, ''([^'']*)''::double precision'))[3]::float8
    END;
  END LOOP;
  RETURN total;
END $$;

-- ==== off by default: no row with a NULL key ====
SHOW anon_dp.leftover_partition;
SET anon_dp.epsilon = 5;
SELECT count(*) FILTER (WHERE g IS NULL) AS leftover_rows_when_off
FROM (SELECT g, ANON_COUNT(*) FROM lo_rows GROUP BY g) s;

-- ==== on: one more row, every key NULL, holding the suppressed partitions' users ====
SET anon_dp.leftover_partition = on;
-- each user is in one partition (C_u = 1): the released counts and the leftover
-- count add up to the 3600 users, whichever partitions passed; the leftover row
-- holds most of the 600 users of the 3-user partitions (tau is about 8 here)
CREATE TEMP TABLE lo_runs (run int, leftover float8, total float8, rows_with_null int);
DO $$
BEGIN
  FOR i IN 1..5 LOOP
    INSERT INTO lo_runs
    SELECT i, max(n) FILTER (WHERE g IS NULL), sum(n), count(*) FILTER (WHERE g IS NULL)
    FROM (SELECT g, ANON_COUNT(*) AS n FROM lo_rows GROUP BY g) s;
  END LOOP;
END $$;
SELECT count(*) AS runs,
       bool_and(rows_with_null = 1) AS one_leftover_row,
       bool_and(abs(total - 3600) < 40) AS users_all_counted,
       bool_and(leftover BETWEEN 450 AND 620) AS leftover_holds_the_small_partitions
FROM lo_runs;
-- the sum and the mean of the leftover row: the 600 small-partition users have x = 1
SELECT bool_and(abs(s - n) < 0.1 * n) AS leftover_sum_tracks_count,
       bool_and(abs(a - 1) < 0.3) AS leftover_mean_near_one
FROM (SELECT g, ANON_COUNT(*) AS n, ANON_SUM(x, 0, 4) AS s, ANON_AVG(x, 0, 4) AS a
      FROM lo_rows GROUP BY g) q WHERE g IS NULL;
-- other aggregates and the level's HAVING, ORDER BY and LIMIT over the leftover row
-- (delta 1e-10 for the row count: the median's selection has its own user
-- count at epsilon 5/4, b = 0.8, tau about 10 at delta 1e-5, and one of the
-- 200 three-user partitions passed it in 28 of 2000 runs, printing 12 rows;
-- at 1e-10 tau is about 19 and that has probability below 1e-6)
SET anon_dp.delta = 1e-10;
SELECT count(*) AS rows, count(*) FILTER (WHERE g IS NULL) AS leftover
FROM (SELECT g, ANON_MEDIAN(x, 0, 4) FROM lo_rows GROUP BY g) q;
RESET anon_dp.delta;
SELECT g IS NULL AS is_leftover FROM lo_rows GROUP BY g HAVING ANON_COUNT(*) > 400
ORDER BY g NULLS FIRST LIMIT 1;

-- ==== the leftover row is thresholded itself ====
-- two users in suppressed partitions: never released over 100 runs at epsilon 1
-- (delta 1e-10: a one- or two-user row shows with probability about delta)
SET anon_dp.epsilon = 1;
SET anon_dp.delta = 1e-10;
CREATE TEMP TABLE lo_tiny_runs AS SELECT 0 AS rows WHERE false;
DO $$
BEGIN
  FOR i IN 1..100 LOOP
    INSERT INTO lo_tiny_runs SELECT count(*) FROM (SELECT g, ANON_COUNT(*) FROM lo_tiny GROUP BY g) s;
  END LOOP;
END $$;
RESET anon_dp.delta;
SELECT count(*) AS runs, sum(rows) AS rows_released FROM lo_tiny_runs;
-- ... while 600 suppressed users are released together at the same epsilon
SELECT count(*) FILTER (WHERE g IS NULL) AS leftover_of_600
FROM (SELECT g, ANON_COUNT(*) FROM lo_rows GROUP BY g) s;

-- ==== a real NULL key goes into the leftover row: one row with NULL keys ====
SET anon_dp.epsilon = 5;
SELECT count(*) FILTER (WHERE g IS NULL) AS null_rows,
       abs(max(n) FILTER (WHERE g IS NULL) - 900) < 60 AS null_key_users_in_leftover
FROM (SELECT g, ANON_COUNT(*) AS n FROM lo_nulls GROUP BY g) s;
SET anon_dp.leftover_partition = off;
SELECT count(*) FILTER (WHERE g IS NULL) AS null_rows_when_off,
       abs(max(n) FILTER (WHERE g IS NULL) - 300) < 30 AS null_key_partition_alone
FROM (SELECT g, ANON_COUNT(*) AS n FROM lo_nulls GROUP BY g) s;
SET anon_dp.leftover_partition = on;

-- ==== the epsilon split: each share epsilon / (C_u (n + N + 1)) ====
-- n releases and selections per partition, N releases + 1 user count in the
-- leftover row; one user adds up to C_u rows to it, so the plan's epsilon
-- arguments times C_u add up to anon_dp.epsilon
SET anon_dp.epsilon = 1;
-- ANON_COUNT(*) selects: n = 2, N = 2: 1 / (1 * 5) = 0.2 each
SELECT lo_blocks('SELECT g, ANON_COUNT(*), ANON_SUM(x, 0, 4) FROM lo_rows GROUP BY g') AS reused_cu1;
SELECT lo_epsilon_sum('SELECT g, ANON_COUNT(*), ANON_SUM(x, 0, 4) FROM lo_rows GROUP BY g') AS sum_cu1;
-- C_u = 2, a separate count: n = 2, N = 1: 1 / (2 * 4) = 0.125 each
SET anon_dp.max_groups_contributed = 2;
SELECT lo_blocks('SELECT g, ANON_SUM(x, 0, 4) FROM lo_rows GROUP BY g') AS separate_cu2;
SELECT 2 * lo_epsilon_sum('SELECT g, ANON_SUM(x, 0, 4) FROM lo_rows GROUP BY g') AS sum_cu2_times_cu;
-- Laplace noise everywhere with the leftover row (auto would pick Gaussian at C_u = 2)
SELECT lo_blocks('SELECT g, ANON_COUNT(*), ANON_SUM(x, 0, 4) FROM lo_rows GROUP BY g') !~ 'gaussian' AS laplace_only;
-- the leftover row's own count: delta split in two with the partitions' selection
SELECT lo_blocks('SELECT g, ANON_COUNT(*) FROM lo_rows GROUP BY g') AS delta_halves;
RESET anon_dp.max_groups_contributed;
-- off: the usual split, epsilon / (C_u n)
SET anon_dp.leftover_partition = off;
SELECT lo_blocks('SELECT g, ANON_COUNT(*), ANON_SUM(x, 0, 4) FROM lo_rows GROUP BY g') AS off_split;
SET anon_dp.leftover_partition = on;

-- anon_dp_explain: each release's share, and the charge with the leftover row (1 and 1e-5)
SELECT release, round(epsilon::numeric, 6) AS epsilon, round(charge_epsilon::numeric, 9) AS charge_epsilon,
       round(charge_delta::numeric, 12) AS charge_delta
FROM anon_dp_explain('SELECT g, ANON_COUNT(*), ANON_SUM(x, 0, 4) FROM lo_rows GROUP BY g') ORDER BY release;

-- ==== refused ====
SELECT ANON_COUNT(*) FROM lo_rows;
SELECT p.g, ANON_COUNT(*) FROM lo_public p LEFT JOIN lo_rows r ON r.g = p.g GROUP BY p.g;
SET anon_dp.noise = gaussian;
SELECT g, ANON_COUNT(*) FROM lo_rows GROUP BY g;
RESET anon_dp.noise;

-- ==== the budget charges the leftover row's releases ====
CREATE ROLE lo_analyst;
SECURITY LABEL FOR anon_dp ON ROLE lo_analyst IS 'anonymized';
SELECT anon_dp_set_budget('lo_analyst', 100, 0.01);
SET anon_dp.max_epsilon = 0.9;
SET SESSION AUTHORIZATION lo_analyst;
SET anon_dp.leftover_partition = on;
-- the caps apply to the whole query (the ledger sees two releases: 0.4 and 0.6)
SET anon_dp.epsilon = 1;
SELECT g, ANON_COUNT(*), ANON_SUM(x, 0, 4) FROM lo_rows GROUP BY g;
RESET SESSION AUTHORIZATION;
RESET anon_dp.max_epsilon;
SET SESSION AUTHORIZATION lo_analyst;
SET anon_dp.epsilon = 1;
SET anon_dp.leftover_partition = on;
SELECT count(*) FILTER (WHERE g IS NULL) AS leftover_rows
FROM (SELECT g, ANON_COUNT(*), ANON_SUM(x, 0, 4) FROM lo_rows GROUP BY g) s;
RESET SESSION AUTHORIZATION;
-- epsilon 1 (the partitions' 0.4 and the leftover row's 0.6), delta 1e-5
SELECT round(spent_epsilon, 9) AS spent_epsilon, round(spent_delta, 12) AS spent_delta, releases
FROM anon_dp_budgets WHERE role = 'lo_analyst'::regrole;
DELETE FROM anon_dp_budgets WHERE role = 'lo_analyst'::regrole;
DROP ROLE lo_analyst;
