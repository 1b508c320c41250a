-- anon_dp demonstration: the paper's access-log example (Sec. 2).
\set QUIET on
\pset footer off
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS anon_dp;
DROP TABLE IF EXISTS access_logs;

-- EXPLAIN with its long lines folded at ", " (the demo's own helper)
CREATE FUNCTION pg_temp.explain_folded(query text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
  line text;
  indent text;
  part text;
  out text;
BEGIN
  FOR line IN EXECUTE 'EXPLAIN (COSTS OFF, VERBOSE) ' || query LOOP
    CONTINUE WHEN line LIKE 'Query Identifier:%';
    IF length(line) <= 100 THEN
      RETURN NEXT line;
      CONTINUE;
    END IF;
    indent := repeat(' ', length(line) - length(ltrim(line)) + 4);
    out := '';
    FOREACH part IN ARRAY string_to_array(line, ', ') LOOP
      IF out <> '' AND length(out) + length(part) > 96 THEN
        RETURN NEXT out || ',';
        out := indent || part;
      ELSIF out = '' THEN
        out := part;
      ELSE
        out := out || ', ' || part;
      END IF;
    END LOOP;
    RETURN NEXT out;
  END LOOP;
END $$;

-- 20,000 users; each visits between 1 and 60 times with one browser.
-- A few heavy users have thousands of rows: exactly the users that row-level
-- DP would fail to protect.
CREATE TABLE access_logs AS
WITH users AS (
    SELECT u AS uid,
           (ARRAY['Firefox', 'Chrome', 'Safari', 'Edge', 'Opera'])[1 + (hashint4(u) & 1023) % 5] AS main_browser,
           CASE WHEN u % 1000 = 0 THEN 3000 ELSE 1 + (hashint4(u * 7) & 1023) % 60 END AS visits
    FROM generate_series(1, 20000) u
)
SELECT uid,
       main_browser AS browser_agent,
       (5 + (hashint4(uid * 31 + v) & 1023) % 600)::float8 AS duration_s,
       (hashint4(uid + v * 17) & 65535)::int8 AS bytes
FROM users, generate_series(1, users.visits) v;
ANALYZE access_logs;

\echo
\echo '=== The data: users own many rows ==='
SELECT count(*) AS rows, count(DISTINCT uid) AS users,
       (SELECT max(c) FROM (SELECT count(*) AS c FROM access_logs GROUP BY uid) x)
         AS rows_of_heaviest_user
FROM access_logs;

\echo
\echo '=== Label the data: which column identifies the user, which tables are public ==='
SECURITY LABEL FOR anon_dp ON COLUMN access_logs.uid IS 'privacy_unit';
SELECT objoid::regclass AS "table", objsubid AS "column", label FROM pg_seclabel WHERE provider = 'anon_dp';

\echo
\echo '=== An anonymization query: ordinary SQL with ANON_* aggregates ==='
\echo 'epsilon = 1, delta = 1e-5, each user in at most C_u = 1 partition.'
SET anon_dp.epsilon = 1.0;
SET anon_dp.delta = 1e-5;
SET anon_dp.max_groups_contributed = 1;
\echo
\echo 'SELECT browser_agent, ANON_COUNT(*) AS visitors, round(ANON_AVG(duration_s, 0, 600)::numeric, 1) AS avg_s,'
\echo '       round(ANON_MEDIAN(duration_s, 0, 600)::numeric, 1) AS median_s'
\echo 'FROM access_logs GROUP BY browser_agent ORDER BY visitors DESC;'
\echo '(rounding the released values is post-processing: it costs nothing)'
\echo
SELECT browser_agent, ANON_COUNT(*) AS visitors, round(ANON_AVG(duration_s, 0, 600)::numeric, 1) AS avg_s,
       round(ANON_MEDIAN(duration_s, 0, 600)::numeric, 1) AS median_s
FROM access_logs GROUP BY browser_agent ORDER BY visitors DESC;
\echo 'The exact answers, for comparison (an analyst would not see these):'
SELECT browser_agent, count(DISTINCT uid) AS visitors,
       round(avg(user_avg)::numeric, 1) AS avg_of_user_avgs
FROM (SELECT uid, browser_agent, avg(duration_s) AS user_avg
      FROM access_logs GROUP BY uid, browser_agent) per_user
GROUP BY browser_agent ORDER BY visitors DESC;
\echo
\echo 'How large the error is, in plain words: anon_dp_explain analyses the same query'
\echo '(without running it or charging anything) and states what the planner chose.  With'
\echo 'GROUP BY and N = 3 ANON_* calls, the noisy ANON_COUNT(*) also decides which browsers'
\echo 'appear (count reuse), so each release gets epsilon / (C_u N) = 1/3:'
-- a mean's noise is a noisy sum over a noisy count: its 95 % error is the sum's
-- half-width over the users of a browser (about 4,000 here); a median's comes
-- from a tree of noisy counts and has no scale of its own
SELECT function, round(epsilon::numeric, 3) AS epsilon, mechanism,
       coalesce(round(noise_scale::numeric, 2)::text,
                'sum b = ' || substring(note from 'midpoint \(b = ([0-9.]+)'),
                'no additive noise (a quantile)') AS noise_scale,
       coalesce(round(half_width::numeric, 2)::text,
                round((substring(note from 'midpoint \(b = ([0-9.]+)')::numeric * ln(20) / 4000)::numeric, 2)::text
                  || ' (4,000 users)',
                'depends on the users near the median') AS "95 % within",
       selection, round(users_for_50::numeric) AS "users for 50 %",
       round(users_for_95::numeric) AS "users for 95 %"
FROM anon_dp_explain('SELECT browser_agent, ANON_COUNT(*) AS visitors, ANON_AVG(duration_s, 0, 600) AS avg_s,
       ANON_MEDIAN(duration_s, 0, 600) AS median_s FROM access_logs GROUP BY browser_agent') \gx
\echo 'The count is within "95 % within" of the truth 95 % of the time (noise only: not the'
\echo 'clamping to [0, 600], nor users counted in one browser only with C_u = 1); a browser'
\echo 'needs about "users for 50 %" users to appear half of the time.  ANON_COUNT_CI(*) returns'
\echo 'the count with that interval in the same query, for the same epsilon.'
\echo 'doc/analyst-guide.md has the formulas and a plot of the error against epsilon.'

\echo
\echo '=== What the extension ran instead: EXPLAIN VERBOSE shows the epsilon share, delta and C_u ==='
\echo '(long lines folded at commas by the demo''s pg_temp.explain_folded; without parallel'
\echo 'workers, which would add a Gather and partial aggregates)'
SET max_parallel_workers_per_gather = 0;
SELECT * FROM pg_temp.explain_folded(
  'SELECT browser_agent, ANON_COUNT(*) FROM access_logs GROUP BY browser_agent') AS "QUERY PLAN";
RESET max_parallel_workers_per_gather;
\echo 'Read from the bottom: one aggregation by uid keeps each user''s partials for at most'
\echo 'C_u browsers (anon_dp_bound_partitions, with the secret $0 of this execution), the'
\echo 'ProjectSet turns them back into rows, dp_count_select adds noise at epsilon 1 (= 1 / (C_u N)'
\echo 'with N = 1: the released count itself selects the browsers, with delta 1e-5 and the'
\echo 'mechanism the planner chose) and returns NULL for a browser it does not keep, the Filter'
\echo 'drops those, and GREATEST(..., 0) keeps the count from going below 0.'

\echo
\echo '=== Queries that could leak, and mistakes, are refused (each query, then its error) ==='
\set ON_ERROR_STOP off
\set ECHO queries
SELECT browser_agent, ANON_COUNT(*), count(*) FROM access_logs GROUP BY browser_agent;
SELECT ANON_SUM(bytes, 0, bytes) FROM access_logs;
SELECT ANON_MIN(duration_s) FROM access_logs;
SELECT ANON_PERCENTILE_CONT(duration_s, 0.5) FROM access_logs;
SELECT ANON_AVG(duration_s, 600, 0) FROM access_logs;
SELECT ANON_COUNT(*) FROM access_logs a, access_logs b WHERE a.browser_agent = b.browser_agent;
\set ECHO none
\set ON_ERROR_STOP on

\echo
\echo '=== Below the rewriter: the dp_* building blocks, written by hand ==='
-- They live in the schema anon_dp_internal, off the default search path
-- (doc/functions.md): call them qualified or with the schema on the path.
SET search_path = public, anon_dp_internal;
-- The rewriter generates this shape: (1) per-user aggregation, (2) at most C_u
-- partitions per user chosen at random, (3) cross-user DP aggregation with
-- tau-thresholding on a noisy user count.
WITH per_user AS (
    SELECT uid, browser_agent, avg(duration_s) AS avg_duration
    FROM access_logs GROUP BY uid, browser_agent
), bounded AS (
    SELECT * FROM (
        SELECT per_user.*, row_number() OVER (PARTITION BY uid ORDER BY anon_dp_random()) AS pick
        FROM per_user) s
    WHERE pick <= 1
)
SELECT * FROM (
    SELECT browser_agent,
           dp_count(1::int8, 1, 0.25, 1) AS visitors,
           round(dp_avg(avg_duration, 0, 600, 0.25, 1)::numeric, 1) AS avg_s,
           round(dp_ntile(avg_duration, 0.5, 0, 600, 0.25, 1)::numeric, 1) AS median_s,
           round(dp_partition_count(0.25, 1e-5, 1))::bigint AS noisy_users
    FROM bounded GROUP BY browser_agent) released
WHERE noisy_users IS NOT NULL
ORDER BY visitors DESC;

\echo
\echo '=== Total traffic: bounded sum without GROUP BY (no threshold, always one row) ==='
SELECT round(dp_sum(user_bytes, 0, 2000000, 0.5, 1)) AS dp_total_bytes,
       (SELECT sum(bytes) FROM access_logs) AS true_total_bytes,
       dp_count(1::int8, 1, 0.5, 1) AS dp_users,
       (SELECT count(DISTINCT uid) FROM access_logs) AS true_users
FROM (SELECT uid, sum(bytes) AS user_bytes FROM access_logs GROUP BY uid) per_user;
\echo '(each user contributes at most 2,000,000 bytes: the heavy users are clamped)'

\echo
\echo '=== The same query three times: fresh noise every time ==='
\echo 'With epsilon = 0.05 (and no GROUP BY) the count has noise of scale 1/0.05 = 20:'
\echo 'three runs of the same query give three different numbers around the true 20,000.'
SET anon_dp.epsilon = 0.05;
SELECT ANON_COUNT(*) AS users_run_1 FROM access_logs;
SELECT ANON_COUNT(*) AS users_run_2 FROM access_logs;
SELECT ANON_COUNT(*) AS users_run_3 FROM access_logs;
RESET anon_dp.epsilon;

\echo
\echo '=== Partition selection: a browser used by a single user is never revealed ==='
INSERT INTO access_logs SELECT 424242, 'SecretBrowser 0.1', 60, 1000 FROM generate_series(1, 500);
SELECT browser_agent, ANON_COUNT(*) AS visitors
FROM access_logs GROUP BY browser_agent ORDER BY visitors DESC;
SELECT round(anon_dp_tau(anon_dp_epsilon_share(1.0, 1, 1), 1e-5, 1)::numeric, 2) AS tau_for_this_query;
\echo '(500 rows, but one user: the SecretBrowser partition stays below tau)'

\echo
\echo '=== Attacks that do not work ==='
\echo 'NaN injection (paper Sec. 5.2): NaN is ignored, the result stays finite noise'
SELECT round(ANON_SUM(CASE WHEN uid = 424242 THEN 'NaN'::float8 ELSE 0 END, -1, 1)::numeric, 2) AS nan_attack
FROM access_logs;
\echo 'Bounds computed from the data are refused, also by the building blocks:'
\set ON_ERROR_STOP off
\set ECHO queries
SELECT dp_sum(duration_s, 0, duration_s, 1.0, 1) FROM access_logs;
\set ECHO none
\set ON_ERROR_STOP on

\echo
\echo '=== An analyst role: anonymized results only (doc/access.md) ==='
DROP ROLE IF EXISTS demo_analyst;
CREATE ROLE demo_analyst;
-- no privilege on the private table: anon_dp lends it to anonymization queries
SECURITY LABEL FOR anon_dp ON ROLE demo_analyst IS 'anonymized';
SET SESSION AUTHORIZATION demo_analyst;
SELECT current_user, anon_dp_access_level();
SELECT browser_agent, ANON_COUNT(*) AS visitors
FROM access_logs GROUP BY browser_agent ORDER BY visitors DESC;
\echo 'Raw rows and exact counts are refused (each query, then its error):'
\set ON_ERROR_STOP off
\set ECHO queries
SELECT * FROM access_logs LIMIT 3;
SELECT count(*) FROM access_logs WHERE uid = 424242;
SELECT stanullfrac FROM pg_statistic LIMIT 1;
\set ECHO none
\set ON_ERROR_STOP on
\echo 'Catalogs and statistics views list the private table, with its counts masked:'
SELECT c.relname, c.reltuples, s.n_live_tup, has_table_privilege(c.oid, 'SELECT') AS may_query
FROM pg_class c JOIN pg_stat_user_tables s ON s.relid = c.oid WHERE c.relname = 'access_logs';
RESET SESSION AUTHORIZATION;

\echo
\echo '=== A privacy budget that runs out (doc/budget.md) ==='
\echo 'The analyst has spent epsilon 1 above.  The data owner gives it a total epsilon of'
\echo '2.5 in this database and puts its spending back to zero:'
\echo '  SELECT anon_dp_set_budget(''demo_analyst'', 2.5, 1e-4), anon_dp_reset_budget(''demo_analyst'');'
SELECT anon_dp_set_budget('demo_analyst', 2.5, 1e-4), anon_dp_reset_budget('demo_analyst');
SET SESSION AUTHORIZATION demo_analyst;
\echo 'Each anonymization query is charged its epsilon before it runs; ROLLBACK gives nothing back:'
SELECT ANON_COUNT(*) AS users FROM access_logs;
BEGIN;
SELECT ANON_COUNT(*) AS users FROM access_logs;
ROLLBACK;
SELECT role, budget_epsilon, spent_epsilon, remaining_epsilon, releases FROM anon_dp_budget;
\echo 'A query above the per-query cap anon_dp.max_epsilon (1 by default) is refused,'
\echo 'and so is one the remaining budget cannot pay:'
\set ON_ERROR_STOP off
\set ECHO queries
SET anon_dp.epsilon = 5;
SELECT ANON_COUNT(*) AS users FROM access_logs;
RESET anon_dp.epsilon;
SELECT ANON_COUNT(*) AS users FROM access_logs;
\set ECHO none
\set ON_ERROR_STOP on
\echo 'A smaller epsilon still fits (with more noise):'
SET anon_dp.epsilon = 0.5;
SELECT ANON_COUNT(*) AS users FROM access_logs;
RESET SESSION AUTHORIZATION;
\echo 'The ledger, for the data owner:'
SELECT at::time(0) AS at, role, epsilon, delta, outcome, left(statement, 40) AS statement
FROM anon_dp_ledger WHERE role = 'demo_analyst'::regrole ORDER BY entry;
DELETE FROM anon_dp_budgets WHERE role = 'demo_analyst'::regrole;
DROP OWNED BY demo_analyst;
DROP ROLE demo_analyst;
DROP TABLE access_logs;
