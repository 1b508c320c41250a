-- anon_dp demonstration: the paper's access-log example (Sec. 2).
\set QUIET on
\pset footer off
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS anon_dp;
DROP TABLE IF EXISTS access_logs;

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
\echo '=== Visitors, average and median visit duration per browser ==='
\echo 'epsilon = 1, delta = 1e-5, each user counted in at most C_u = 1 browser partition.'
\echo 'Three DP releases per partition (count, average, median) plus the noisy user'
\echo 'count used for thresholding: each gets epsilon / (C_u (N + 1)) = 0.25.'
\echo
-- Until the anonymization rewriter lands, this is the two-stage plan it will
-- generate, written by hand: (1) per-user aggregation, (2) at most C_u
-- partitions per user chosen at random, (3) cross-user DP aggregation with
-- tau-thresholding on a noisy user count.
WITH per_user AS (              -- (1) one row per (user, browser)
    SELECT uid, browser_agent, count(*) AS visits, avg(duration_s) AS avg_duration
    FROM access_logs GROUP BY uid, browser_agent
), bounded AS (                 -- (2) keep C_u = 1 partition per user
    SELECT * FROM (
        SELECT per_user.*, row_number() OVER (PARTITION BY uid ORDER BY random()) AS pick
        FROM per_user) s
    WHERE pick <= 1
), private AS (                 -- (3) DP aggregates, threshold on the noisy user count
    SELECT browser_agent,
           dp_partition_count(0.25, 1e-5, 1) AS noisy_users,
           dp_count(1::int8, 1, 0.25, 1) AS dp_visitors,
           dp_avg(avg_duration, 0, 600, 0.25, 1) AS dp_avg_duration,
           dp_ntile(avg_duration, 0.5, 0, 600, 0.25, 1) AS dp_median_duration
    FROM bounded GROUP BY browser_agent
), exact AS (
    SELECT browser_agent, count(DISTINCT uid) AS true_visitors,
           avg(duration_s) AS true_avg_duration
    FROM access_logs GROUP BY browser_agent
)
SELECT e.browser_agent,
       p.dp_visitors, e.true_visitors,
       round(p.dp_avg_duration::numeric, 1) AS dp_avg_s,
       round(e.true_avg_duration::numeric, 1) AS true_avg_s,
       round(p.dp_median_duration::numeric, 1) AS dp_median_s,
       CASE WHEN p.noisy_users IS NULL THEN 'suppressed (below tau)' ELSE 'released' END AS partition
FROM exact e LEFT JOIN private p USING (browser_agent)
ORDER BY e.true_visitors DESC;
\echo '(every user here uses one browser, so keeping C_u = 1 partition per user loses'
\echo ' nothing; averages are of per-user averages, as in the paper.)'

\echo
\echo '=== Total traffic: bounded sum without GROUP BY (no threshold, always one row) ==='
SELECT dp_sum(user_bytes, 0, 2000000, 0.5, 1) AS dp_total_bytes,
       (SELECT sum(bytes) FROM access_logs) AS true_total_bytes,
       dp_count(1::int8, 1, 0.5, 1) AS dp_users,
       (SELECT count(DISTINCT uid) FROM access_logs) AS true_users
FROM (SELECT uid, sum(bytes) AS user_bytes FROM access_logs GROUP BY uid) per_user;
\echo '(each user contributes at most 2,000,000 bytes: the heavy users are clamped)'

\echo
\echo '=== The same query twice: fresh noise every time ==='
SELECT dp_count(1::int8, 1, 1.0, 1) AS dp_users_run_1 FROM (SELECT DISTINCT uid FROM access_logs) u;
SELECT dp_count(1::int8, 1, 1.0, 1) AS dp_users_run_2 FROM (SELECT DISTINCT uid FROM access_logs) u;

\echo
\echo '=== Partition selection: a browser used by a single user is never revealed ==='
INSERT INTO access_logs SELECT 424242, 'SecretBrowser 0.1', 60, 1000 FROM generate_series(1, 500);
SELECT browser_agent, round(noisy_users::numeric, 1) AS noisy_users,
       round(anon_dp_tau(0.5, 1e-5, 1)::numeric, 2) AS tau
FROM (SELECT browser_agent, dp_partition_count(0.5, 1e-5, 1) AS noisy_users
      FROM (SELECT uid, browser_agent,      -- per user, at most C_u = 1 partition
                   row_number() OVER (PARTITION BY uid ORDER BY random()) AS pick
            FROM (SELECT DISTINCT uid, browser_agent FROM access_logs) d) per_user
      WHERE pick <= 1
      GROUP BY browser_agent) s
WHERE noisy_users IS NOT NULL
ORDER BY noisy_users DESC;
\echo '(500 rows, but one user: the SecretBrowser partition stays below tau)'

\echo
\echo '=== Attacks that do not work ==='
\echo 'NaN injection (paper Sec. 5.2): NaN is ignored, the result stays finite noise'
SELECT dp_sum(CASE WHEN uid = 424242 THEN 'NaN'::float8 ELSE 0 END, -1, 1, 1.0, 1) AS nan_attack
FROM (SELECT DISTINCT uid FROM access_logs) u;
\echo 'Bounds computed from the data are refused:'
\set ON_ERROR_STOP off
SELECT dp_sum(duration_s, 0, duration_s, 1.0, 1) FROM access_logs;
\echo 'ANON_* aggregates without the rewriter refuse instead of releasing row-level results:'
SELECT browser_agent, ANON_COUNT(*) FROM access_logs GROUP BY browser_agent;
\set ON_ERROR_STOP on
DROP TABLE access_logs;
