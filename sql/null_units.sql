-- null_units: a row whose privacy unit is NULL belongs to no user and is not
-- anonymized (doc/privacy-model.md, "NULL privacy units").  Every path is
-- checked with epsilon so large that the noise rounds away: the answers are
-- those of the users alone, whatever the rows without a unit hold -- 50 of
-- them in partition 'a' with x = 1000, 30 alone in partition 'z', 40 orders.
-- Were they one pseudo-user, 'a' would count 201 users and sum 1200.
CREATE EXTENSION IF NOT EXISTS anon_dp;
SET anon_dp.epsilon = 1e6;
SET anon_dp.max_groups_contributed = 1;

CREATE TABLE nu_visits (uid int, g text, x int);
INSERT INTO nu_visits SELECT u, 'a', 1 FROM generate_series(1, 200) u;
INSERT INTO nu_visits SELECT NULL, 'a', 1000 FROM generate_series(1, 50);
INSERT INTO nu_visits SELECT NULL, 'z', 1000 FROM generate_series(1, 30);
SECURITY LABEL FOR anon_dp ON COLUMN nu_visits.uid IS 'privacy_unit';
-- users 1 .. 100 have an order of 10
CREATE TABLE nu_orders (uid int, amount int);
INSERT INTO nu_orders SELECT u, 10 FROM generate_series(1, 100) u;
INSERT INTO nu_orders SELECT NULL, 10 FROM generate_series(1, 40);
SECURITY LABEL FOR anon_dp ON COLUMN nu_orders.uid IS 'privacy_unit';
ANALYZE nu_visits, nu_orders;

CREATE FUNCTION nu_plan_has(query text, pattern text) RETURNS bool LANGUAGE plpgsql AS $$
DECLARE line text;
BEGIN
  FOR line IN EXECUTE 'EXPLAIN (COSTS OFF, VERBOSE) ' || query LOOP
    IF line LIKE '%' || pattern || '%' THEN RETURN true; END IF;
  END LOOP;
  RETURN false;
END $$;

-- ==== per-user aggregation ====
-- without GROUP BY: one per-user row per user, none for the rows without a unit
SELECT ANON_COUNT(*) AS users, round(ANON_SUM(x, 0, 1000)) AS total FROM nu_visits;
-- with GROUP BY, one pass (anon_dp_bound_partitions): 'z' has no user at all
SELECT g, ANON_COUNT(*) AS users, round(ANON_SUM(x, 0, 1000)) AS total
FROM nu_visits GROUP BY g ORDER BY g;
SELECT nu_plan_has('SELECT g, ANON_COUNT(*) FROM nu_visits GROUP BY g', 'anon_dp_bound_partitions') AS one_pass;
-- the fallback paths: anon_dp_pick (a money key) and the sort (an array key)
SELECT k, ANON_COUNT(*) AS users, round(ANON_SUM(x, 0, 1000)) AS total
FROM (SELECT uid, x, (x * 0)::numeric::money AS k FROM nu_visits) s GROUP BY k;
SELECT nu_plan_has('SELECT (x * 0)::numeric::money, ANON_COUNT(*) FROM nu_visits GROUP BY 1', 'anon_dp_pick') AS pick_path;
SELECT ARRAY[g] AS k, ANON_COUNT(*) AS users, round(ANON_SUM(x, 0, 1000)) AS total
FROM nu_visits GROUP BY ARRAY[g] ORDER BY 1;
SELECT nu_plan_has('SELECT ARRAY[g], ANON_COUNT(*) FROM nu_visits GROUP BY ARRAY[g]', 'WindowAgg') AS sort_path;
-- the rewrite filters the unit before anything else
EXPLAIN (COSTS OFF) SELECT ANON_COUNT(*) FROM nu_visits;

-- ==== joins ====
-- an equality of privacy units never matches NULL (SQL's =)
SELECT ANON_COUNT(*) AS users FROM nu_visits v JOIN nu_orders o USING (uid);
SELECT ANON_COUNT(*) AS users FROM nu_visits v, nu_orders o WHERE o.uid = v.uid;
-- the preserved side of an outer join carries the unit: its NULL rows go,
-- the orders without a unit join nobody
SELECT ANON_COUNT(*) AS users, round(ANON_SUM(o.amount, 0, 1000)) AS ordered
FROM nu_visits v LEFT JOIN nu_orders o ON o.uid = v.uid;
EXPLAIN (COSTS OFF) SELECT ANON_COUNT(*) FROM nu_visits v LEFT JOIN nu_orders o ON o.uid = v.uid;

-- ==== EXISTS / NOT EXISTS within one user ====
SELECT ANON_COUNT(*) AS with_orders
FROM nu_visits v WHERE EXISTS (SELECT 1 FROM nu_orders o WHERE o.uid = v.uid);
-- a visit without a unit has no order either, but it is nobody's visit
SELECT ANON_COUNT(*) AS without_orders
FROM nu_visits v WHERE NOT EXISTS (SELECT 1 FROM nu_orders o WHERE o.uid = v.uid);

-- ==== set operations ====
-- UNION, INTERSECT and EXCEPT treat NULLs as equal: rows without a unit only
-- meet each other there, and are dropped afterwards
SELECT ANON_COUNT(*) AS either FROM (SELECT uid FROM nu_visits UNION SELECT uid FROM nu_orders) s;
SELECT ANON_COUNT(*) AS both_ FROM (SELECT uid FROM nu_visits INTERSECT SELECT uid FROM nu_orders) s;
SELECT ANON_COUNT(*) AS visits_only
FROM (SELECT uid, g FROM nu_visits EXCEPT SELECT uid, 'a' FROM nu_orders) s;
SELECT ANON_COUNT(*) AS rows_all FROM (SELECT uid FROM nu_visits UNION ALL SELECT uid FROM nu_orders) s;

-- ==== subqueries, WITH queries, views ====
-- the NULL group of GROUP BY uid (80 rows) is not a user
SELECT ANON_COUNT(*) AS users, round(ANON_SUM(n, 0, 100)) AS rows_
FROM (SELECT uid, count(*) AS n FROM nu_visits GROUP BY uid) s;
WITH w AS (SELECT uid, x FROM nu_visits) SELECT ANON_COUNT(*) AS users FROM w;
CREATE VIEW nu_view AS SELECT uid, x FROM nu_visits;
SELECT round(ANON_SUM(x, 0, 1000)) AS total FROM nu_view;

-- ==== TABLESAMPLE anon_reservoir and the row cap ====
-- the sample never returns a row without a unit
SELECT count(*) AS rows_, count(*) FILTER (WHERE uid IS NULL) AS unitless
FROM nu_visits TABLESAMPLE anon_reservoir(5);
SET anon_dp.max_rows_contributed = 1;
SELECT ANON_COUNT(*) AS users, round(ANON_SUM(x, 0, 1000)) AS total FROM nu_visits;
RESET anon_dp.max_rows_contributed;

-- ==== anon_dp_bound_partitions on its own ====
-- the group of the NULL uid keeps no pair
SELECT anon_dp_internal.anon_dp_bound_partitions((SELECT anon_dp_internal.anon_dp_bounding_secret()), 1, 'gn', uid, g) IS NULL AS keeps_nothing
FROM nu_visits WHERE uid IS NULL GROUP BY uid;
SELECT count(*) AS pairs
FROM (SELECT unnest(anon_dp_internal.anon_dp_bounded_column(anon_dp_internal.anon_dp_bound_partitions((SELECT anon_dp_internal.anon_dp_bounding_secret()), 5, 'gn', uid, g), 1, NULL::bigint))
      FROM nu_visits GROUP BY uid) s;

-- ==== text units, and an anonymized role ====
CREATE TABLE nu_handles (handle text, g text);
INSERT INTO nu_handles SELECT 'user-' || u, 'a' FROM generate_series(1, 150) u;
INSERT INTO nu_handles SELECT NULL, 'a' FROM generate_series(1, 20);
SECURITY LABEL FOR anon_dp ON COLUMN nu_handles.handle IS 'privacy_unit';
SELECT g, ANON_COUNT(*) AS users FROM nu_handles GROUP BY g;
CREATE ROLE nu_analyst;
SECURITY LABEL FOR anon_dp ON ROLE nu_analyst IS 'anonymized';
-- the data owner's limits (doc/budget.md): wide enough for epsilon 1e6
SET anon_dp.max_epsilon = 1e6;
SELECT anon_dp_set_budget('nu_analyst', 1e6, 1);
GRANT USAGE ON SCHEMA public TO nu_analyst;
SET SESSION AUTHORIZATION nu_analyst;
SET anon_dp.epsilon = 1e6;
SELECT g, ANON_COUNT(*) AS users, round(ANON_SUM(x, 0, 1000)) AS total
FROM nu_visits GROUP BY g ORDER BY g;
RESET SESSION AUTHORIZATION;

-- ==== the users' answers do not depend on the rows without a unit ====
CREATE TEMP TABLE nu_with AS
SELECT g, ANON_COUNT(*) AS users, round(ANON_SUM(x, 0, 1000)) AS total FROM nu_visits GROUP BY g;
DELETE FROM nu_visits WHERE uid IS NULL;
CREATE TEMP TABLE nu_without AS
SELECT g, ANON_COUNT(*) AS users, round(ANON_SUM(x, 0, 1000)) AS total FROM nu_visits GROUP BY g;
SELECT (SELECT array_agg(ROW(g, users, total) ORDER BY g) FROM nu_with) =
       (SELECT array_agg(ROW(g, users, total) ORDER BY g) FROM nu_without) AS same_answers;

-- ==== clean up ====
DROP VIEW nu_view;
DROP FUNCTION nu_plan_has(text, text);
DROP TABLE nu_visits, nu_orders, nu_handles;
DROP OWNED BY nu_analyst;
DROP ROLE nu_analyst;
