-- The anonymization rewriter: labels, accepted queries (properties of the
-- released rows, not printed noise), and refused queries with their errors.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS anon_dp;
RESET client_min_messages;
SET extra_float_digits = 0;

-- 3000 users; user u visits (u % 7) + 1 pages of one browser; 'rare' has one user
CREATE TABLE visits AS
SELECT u AS uid, (ARRAY['firefox', 'chrome', 'safari'])[1 + u % 3] AS browser,
       (u % 600)::float8 AS duration, (u % 100)::int8 AS bytes, (u % 50)::int4 AS pages
FROM generate_series(1, 3000) u, generate_series(0, 6) k WHERE k <= u % 7;
INSERT INTO visits VALUES (99999, 'rare', 10, 10, 1), (99999, 'rare', 20, 20, 2);
CREATE TABLE users AS SELECT u AS uid, (u % 5 = 0) AS premium FROM generate_series(1, 3000) u;
CREATE TABLE browsers (name text, vendor text);
INSERT INTO browsers VALUES ('firefox', 'Mozilla'), ('chrome', 'Google'), ('safari', 'Apple');
CREATE TABLE unlabelled AS SELECT 1 AS uid;

-- ---- labels ----
SECURITY LABEL FOR anon_dp ON COLUMN visits.uid IS 'privacy_unit';
SECURITY LABEL FOR anon_dp ON COLUMN users.uid IS 'privacy_unit';
SECURITY LABEL FOR anon_dp ON TABLE browsers IS 'public';
SELECT objoid::regclass, objsubid, label FROM pg_seclabel WHERE provider = 'anon_dp' ORDER BY 1, 2;
-- bad labels
SECURITY LABEL FOR anon_dp ON COLUMN visits.browser IS 'privacy_unit';
SECURITY LABEL FOR anon_dp ON COLUMN visits.duration IS 'privacy_unit';
SECURITY LABEL FOR anon_dp ON COLUMN visits.uid IS 'owner';
SECURITY LABEL FOR anon_dp ON TABLE visits IS 'public';
SECURITY LABEL FOR anon_dp ON TABLE visits IS 'private';
SECURITY LABEL FOR anon_dp ON COLUMN browsers.name IS 'privacy_unit';
CREATE VIEW v_visits AS SELECT * FROM visits;
SECURITY LABEL FOR anon_dp ON VIEW v_visits IS 'public';
SECURITY LABEL FOR anon_dp ON COLUMN v_visits.uid IS 'privacy_unit';
SECURITY LABEL FOR anon_dp ON SCHEMA public IS 'public';

-- ---- accepted queries ----
-- output column names and types are those of the original query
SELECT browser, ANON_COUNT(*), ANON_SUM(pages, 0, 10) AS pages, ANON_AVG(duration, 0, 600)
FROM visits GROUP BY browser LIMIT 0;
CREATE TEMP TABLE shape AS
SELECT browser, ANON_COUNT(*), ANON_SUM(pages, 0, 10) AS pages, ANON_SUM(bytes, 0, 100) AS bytes,
       ANON_AVG(duration, 0, 600) AS avg_d, ANON_MEDIAN(duration, 0, 600) AS med
FROM visits GROUP BY browser;
SELECT attname, atttypid::regtype FROM pg_attribute
WHERE attrelid = 'shape'::regclass AND attnum > 0 ORDER BY attnum;

-- counts are users, not rows (each user counted once, C_u = 1): truth 1000 per browser
SET anon_dp.epsilon = 1.0;
SELECT browser, abs(ANON_COUNT(*) - 1000) < 60 AS users_counted_once
FROM visits GROUP BY browser ORDER BY browser;
-- the one-user partition is never released (delta 1e-5)
SELECT count(*) AS released_rare FROM (
  SELECT browser, ANON_COUNT(*) FROM visits GROUP BY browser) s WHERE browser = 'rare';
-- average of per-user averages stays in the bounds and near the truth
SELECT bool_and(a BETWEEN 0 AND 600) AS avg_in_bounds, bool_and(abs(a - 299.5) < 30) AS avg_close
FROM (SELECT browser, ANON_AVG(duration, 0, 600) AS a FROM visits GROUP BY browser) s;
-- no GROUP BY: one row, no threshold, noisy even on empty input
SELECT abs(ANON_COUNT(*) - 3001) < 60 AS total_users FROM visits;
SELECT ANON_COUNT(*) IS NOT NULL AS empty_input_released FROM visits WHERE uid < 0;
-- HAVING, ORDER BY, LIMIT apply to released rows; the same call is one release
SELECT browser FROM visits GROUP BY browser HAVING ANON_COUNT(*) > 500 ORDER BY ANON_COUNT(*) > 0, browser;
SELECT browser, ANON_COUNT(*) > 0 AS released FROM visits GROUP BY 1 ORDER BY 1 LIMIT 1;
-- joins: private tables on the privacy unit, public tables freely
SELECT b.vendor, abs(ANON_COUNT(*) - 1000) < 60 AS ok
FROM visits v JOIN browsers b ON b.name = v.browser GROUP BY b.vendor ORDER BY 1;
SELECT u.premium, ANON_COUNT(*) > 0 AS ok
FROM visits v JOIN users u ON u.uid = v.uid GROUP BY u.premium ORDER BY 1;
SELECT u.premium, ANON_COUNT(*) > 0 AS ok
FROM visits v, users u WHERE v.uid = u.uid GROUP BY u.premium ORDER BY 1;
SELECT ANON_COUNT(*) > 0 AS ok FROM visits v LEFT JOIN browsers b ON b.name = v.browser;
-- a subquery around an anonymization query is ordinary post-processing
SELECT count(*) AS partitions FROM (SELECT browser, ANON_COUNT(*) AS n FROM visits GROUP BY browser) s;
-- C_u bounds how many partitions one user changes: user 99999 is in 'rare' only;
-- a user in 1000 partitions is kept in at most C_u of them
CREATE TABLE spread AS SELECT 1 AS uid, g AS part FROM generate_series(1, 1000) g
  UNION ALL SELECT u, 0 FROM generate_series(2, 400) u;
SECURITY LABEL FOR anon_dp ON COLUMN spread.uid IS 'privacy_unit';
SET anon_dp.delta = 0.4;  -- a low threshold, so kept one-user partitions would show
SET anon_dp.max_groups_contributed = 3;
SELECT count(*) FILTER (WHERE part > 0) <= 3 AS at_most_cu_partitions_of_user_1
FROM (SELECT part, ANON_COUNT(*) FROM spread GROUP BY part) s;
RESET anon_dp.delta;
RESET anon_dp.max_groups_contributed;
-- EXPLAIN shows the rewritten plan with the epsilon share and delta baked in
EXPLAIN (COSTS OFF) SELECT browser, ANON_COUNT(*) FROM visits GROUP BY browser;
-- the epsilon split: with GROUP BY e/(C_u(N+1)) for each release and the user
-- count; without GROUP BY (no user count, one row per user) e/N for each release
SET anon_dp.epsilon = 1.2;
SET anon_dp.max_groups_contributed = 2;
CREATE FUNCTION epsilon_shares(query text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE line text; shares text := '';
BEGIN
  FOR line IN EXECUTE 'EXPLAIN (VERBOSE, COSTS OFF) ' || query LOOP
    IF line ~ 'Output: .*dp_' THEN
      shares := shares || array_to_string(ARRAY(
        SELECT m[1] FROM regexp_matches(line, '''([0-9.e-]+)''::double precision', 'g') m), ' ');
    END IF;
  END LOOP;
  RETURN shares;
END $$;
SELECT epsilon_shares('SELECT ANON_COUNT(*), ANON_SUM(pages, 0, 10) FROM visits') AS ungrouped;
SELECT epsilon_shares('SELECT browser, ANON_COUNT(*), ANON_SUM(pages, 0, 10) FROM visits GROUP BY browser') AS grouped;
DROP FUNCTION epsilon_shares(text);
RESET anon_dp.epsilon;
RESET anon_dp.max_groups_contributed;
-- prepared statements: $n in WHERE, custom and generic plans, fresh noise
PREPARE by_min_pages(int) AS
  SELECT ANON_COUNT(*) AS n FROM visits WHERE pages >= $1;
CREATE FUNCTION run_prepared(mode text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE n bigint; ok bool := true; vals bigint[] := '{}';
BEGIN
  EXECUTE format('SET plan_cache_mode = %s', mode);
  FOR i IN 1..8 LOOP
    EXECUTE 'EXECUTE by_min_pages(0)' INTO n;
    ok := ok AND abs(n - 3001) < 60;
    vals := vals || n;
  END LOOP;
  RESET plan_cache_mode;
  RETURN format('accurate: %s, fresh noise: %s', ok,
                (SELECT count(DISTINCT v) > 1 FROM unnest(vals) v));
END $$;
SELECT run_prepared('force_custom_plan') AS custom_plans;
SELECT run_prepared('force_generic_plan') AS generic_plans;
SELECT run_prepared('auto') AS auto_plans;
DEALLOCATE by_min_pages;
DROP FUNCTION run_prepared(text);

-- ---- refused queries ----
SELECT ANON_COUNT(*), count(*) FROM visits;
SELECT browser, ANON_COUNT(*) FROM unlabelled, visits WHERE unlabelled.uid = visits.uid GROUP BY browser;
SELECT ANON_COUNT(*) FROM browsers;
SELECT ANON_COUNT(*) FROM visits v, users u WHERE v.pages = u.uid;
SELECT ANON_COUNT(*) FROM browsers b LEFT JOIN visits v ON b.name = v.browser;
SELECT ANON_COUNT(*) > 0 AS ok FROM v_visits;
SELECT ANON_COUNT(*) > 0 AS ok FROM (SELECT * FROM visits) s;
WITH s AS (SELECT * FROM visits) SELECT ANON_COUNT(*) > 0 AS ok FROM s;
SELECT ANON_COUNT(*) FROM visits WHERE uid IN (SELECT uid FROM users);
SELECT DISTINCT ANON_COUNT(*) FROM visits;
SELECT browser, ANON_COUNT(*) FROM visits GROUP BY ROLLUP (browser);
SELECT ANON_COUNT(*), row_number() OVER () FROM visits;
SELECT ANON_SUM(pages, 0, pages) FROM visits;
SELECT ANON_SUM(pages, 0, random()::int) FROM visits;
PREPARE bad_bound(int) AS SELECT ANON_SUM(pages, 0, $1) FROM visits;
-- supported since issue 20 (3001 distinct uids, sensitivity 1 at epsilon 1): a property, not the noisy value
SELECT abs(ANON_COUNT(DISTINCT uid) - 3001) < 40 AS distinct_uids_near_3001 FROM visits;
SELECT ANON_COUNT(*) FILTER (WHERE pages > 1) FROM visits;
SELECT ANON_COUNT(*) FROM visits, generate_series(1, 2) g;
SELECT ANON_COUNT(*) FROM visits FOR UPDATE;
SELECT ANON_COUNT(*) FROM (VALUES (1)) v(x);
SET anon_dp.epsilon = 1e-12;
SELECT browser, ANON_COUNT(*), ANON_SUM(pages, 0, 1) FROM visits GROUP BY browser;
RESET anon_dp.epsilon;

DROP TABLE visits, users, browsers, unlabelled, spread CASCADE;
