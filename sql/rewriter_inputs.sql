-- Inputs of anonymization queries: subqueries in FROM, WITH queries, views,
-- set operations, VALUES, outer joins, expression subqueries (over public
-- tables, or over private ones within one user); the
-- shapes that are refused, with their errors; contribution bounding through
-- anon_dp_pick (and its fallback for domain-typed keys); TABLESAMPLE
-- anon_reservoir(n) and anon_dp.max_rows_contributed.
--
-- Accepted queries print properties of the released rows, never noise.
-- ANON_COUNT at epsilon e with N ANON_* aggregates and C_u has Laplace scale
-- b = C_u(N+1)/e (std sqrt(2) b) on its user count; a sum with bounds [L, U]
-- has scale max(|L|, |U|) C_u (N+1) / e.  Tolerances are at least 25 b: a
-- Laplace tail P(|X| > t) = exp(-t/b) is 1.4e-11 there (6 std = 8.5 b would
-- still fail with probability 2e-4).  Binomial checks use 6 std.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS anon_dp;
RESET client_min_messages;
SET extra_float_digits = 0;

-- 2000 users; user u has (u % 5) + 1 visits (pages 0 .. u % 5), all with one
-- browser (500 users each); ri_users: one row per user, premium = even id
CREATE TABLE ri_visits AS
SELECT u AS uid, (ARRAY['chrome', 'edge', 'firefox', 'safari'])[1 + u % 4] AS browser,
       k AS pages, (u % 600)::float8 AS dur
FROM generate_series(1, 2000) u, generate_series(0, 4) k WHERE k <= u % 5;
CREATE TABLE ri_users AS
SELECT u AS id, (u % 2 = 0) AS premium, (ARRAY['de', 'fr'])[1 + u % 2] AS country
FROM generate_series(1, 2000) u;
CREATE TABLE ri_big AS SELECT u::int8 AS uid, u % 3 AS grp FROM generate_series(1, 2000) u;
CREATE TABLE ri_browsers (name text, vendor text);
INSERT INTO ri_browsers VALUES ('chrome', 'Google'), ('edge', 'Microsoft'),
  ('firefox', 'Mozilla'), ('safari', 'Apple');
CREATE TABLE ri_unlab AS SELECT 1 AS uid;
SECURITY LABEL FOR anon_dp ON COLUMN ri_visits.uid IS 'privacy_unit';
SECURITY LABEL FOR anon_dp ON COLUMN ri_users.id IS 'privacy_unit';
SECURITY LABEL FOR anon_dp ON COLUMN ri_big.uid IS 'privacy_unit';
SECURITY LABEL FOR anon_dp ON TABLE ri_browsers IS 'public';

CREATE VIEW ri_v AS SELECT uid, browser, pages FROM ri_visits;
CREATE VIEW ri_v_renamed AS SELECT uid AS who, browser FROM ri_visits WHERE pages >= 0;
CREATE VIEW ri_v_v AS SELECT who, browser FROM ri_v_renamed WHERE browser <> 'edge';
CREATE VIEW ri_v_agg AS SELECT uid, count(*) AS n FROM ri_visits GROUP BY uid;
CREATE VIEW ri_v_pub AS SELECT name, vendor FROM ri_browsers;
CREATE VIEW ri_v_nouid AS SELECT browser, pages FROM ri_visits;
CREATE VIEW ri_v_badagg AS SELECT browser, count(*) AS n FROM ri_visits GROUP BY browser;
CREATE VIEW ri_v_limit AS SELECT uid FROM ri_visits ORDER BY uid LIMIT 10;

-- epsilon 10: ANON_COUNT with N = 1 and C_u <= 2 has b <= 0.4, tolerance 10
SET anon_dp.epsilon = 10;

-- ==== accepted: subqueries in FROM ====
-- the subquery selects the privacy unit
SELECT browser, abs(ANON_COUNT(*) - 500) < 10 AS ok
FROM (SELECT uid, browser FROM ri_visits WHERE pages >= 0) s GROUP BY browser ORDER BY browser;
-- renamed privacy unit
SELECT browser, abs(ANON_COUNT(*) - 500) < 10 AS ok
FROM (SELECT uid AS who, browser FROM ri_visits) s GROUP BY browser ORDER BY browser;
-- renamed by a column alias list
SELECT b, abs(ANON_COUNT(*) - 500) < 10 AS ok
FROM (SELECT uid, browser FROM ri_visits) s(who, b) GROUP BY b ORDER BY b;
-- quoted identifiers
SELECT "My Sub".browser, abs(ANON_COUNT(*) - 500) < 10 AS ok
FROM (SELECT uid AS "Who Id", browser FROM ri_visits) "My Sub" GROUP BY "My Sub".browser ORDER BY 1;
-- SELECT *, and ORDER BY inside the subquery
SELECT abs(ANON_COUNT(*) - 800) < 10 AS ok
FROM (SELECT * FROM ri_visits WHERE pages >= 3 ORDER BY dur) s;
-- nested subqueries
SELECT b, abs(ANON_COUNT(*) - 500) < 10 AS ok
FROM (SELECT who, b FROM (SELECT uid AS who, browser AS b FROM ri_visits) i WHERE b <> 'edge') o
GROUP BY b ORDER BY b;
-- aggregation inside, grouped by the privacy unit: 6000 visits, at most 5 per
-- user (b = 5 x 2 / 10 = 1)
SELECT abs(ANON_SUM(n, 0, 5) - 6000) < 30 AS ok
FROM (SELECT uid, count(*) AS n FROM ri_visits GROUP BY uid) s;
-- partitions defined by a per-user aggregate: 400 users with each visit count
SELECT n, abs(ANON_COUNT(*) - 400) < 10 AS ok
FROM (SELECT uid, count(*) AS n FROM ri_visits GROUP BY uid) s GROUP BY n ORDER BY n;
-- GROUP BY the privacy unit and more, with HAVING: 1200 users reach page 2
SELECT abs(ANON_COUNT(*) - 1200) < 10 AS ok
FROM (SELECT uid, browser, max(pages) AS mp FROM ri_visits GROUP BY uid, browser HAVING max(pages) >= 2) s;
-- DISTINCT over columns that include the privacy unit
SELECT abs(ANON_COUNT(*) - 2000) < 10 AS ok FROM (SELECT DISTINCT uid, browser FROM ri_visits) s;
-- no GROUP BY: one row even when the subquery is empty
SELECT ANON_COUNT(*) IS NOT NULL AS released FROM (SELECT uid FROM ri_visits WHERE false) s;

-- ==== accepted: WITH queries ====
WITH s AS (SELECT uid, browser FROM ri_visits)
SELECT browser, abs(ANON_COUNT(*) - 500) < 10 AS ok FROM s GROUP BY browser ORDER BY browser;
-- a WITH query reading an earlier one, renaming the unit
WITH a AS (SELECT uid, browser FROM ri_visits),
     b AS (SELECT uid AS who, browser FROM a WHERE browser <> 'edge')
SELECT browser, abs(ANON_COUNT(*) - 500) < 10 AS ok FROM b GROUP BY browser ORDER BY browser;
WITH a AS MATERIALIZED (SELECT uid, pages FROM ri_visits)
SELECT abs(ANON_COUNT(*) - 400) < 10 AS ok FROM a WHERE pages = 4;
-- read through a subquery of the anonymization level
WITH a AS (SELECT uid, browser FROM ri_visits)
SELECT abs(ANON_COUNT(*) - 1000) < 10 AS ok FROM (SELECT uid FROM a WHERE browser IN ('edge', 'safari')) s;
-- defined outside the anonymization level
WITH a AS (SELECT uid, browser FROM ri_visits)
SELECT count(*) AS partitions, bool_and(abs(n - 500) < 10) AS ok
FROM (SELECT browser, ANON_COUNT(*) AS n FROM a GROUP BY browser) x;
-- read twice, joined on the privacy unit
WITH a AS (SELECT uid, browser, pages FROM ri_visits)
SELECT abs(ANON_COUNT(*) - 400) < 10 AS ok FROM a x JOIN a y ON x.uid = y.uid WHERE y.pages = 4;
-- an anonymization query inside a WITH query: ordinary post-processing outside
WITH r AS (SELECT browser, ANON_COUNT(*) AS n FROM ri_visits GROUP BY browser)
SELECT count(*) AS partitions FROM r;

-- ==== accepted: views ====
SELECT browser, abs(ANON_COUNT(*) - 500) < 10 AS ok FROM ri_v GROUP BY browser ORDER BY browser;
SELECT browser, abs(ANON_COUNT(*) - 500) < 10 AS ok FROM ri_v_renamed GROUP BY browser ORDER BY browser;
-- a view over a view
SELECT browser, abs(ANON_COUNT(*) - 500) < 10 AS ok FROM ri_v_v GROUP BY browser ORDER BY browser;
-- a view aggregating by the privacy unit
SELECT abs(ANON_SUM(n, 0, 5) - 6000) < 30 AS ok FROM ri_v_agg;
-- a view joined with a private table on the privacy unit
SELECT u.premium, abs(ANON_COUNT(*) - 1000) < 10 AS ok
FROM ri_v v JOIN ri_users u ON u.id = v.uid GROUP BY u.premium ORDER BY 1;
-- a view over a public table joins freely
SELECT p.vendor, abs(ANON_COUNT(*) - 500) < 10 AS ok
FROM ri_visits v JOIN ri_v_pub p ON p.name = v.browser GROUP BY p.vendor ORDER BY 1;

-- ==== accepted: set operations (privacy unit in the same column) ====
-- a user is in one browser and one country partition: C_u = 2 keeps both
SET anon_dp.max_groups_contributed = 2;
SELECT k, abs(ANON_COUNT(*) - CASE WHEN k IN ('de', 'fr') THEN 1000 ELSE 500 END) < 10 AS ok
FROM (SELECT uid, browser AS k FROM ri_visits UNION ALL SELECT id, country FROM ri_users) u
GROUP BY k ORDER BY k;
RESET anon_dp.max_groups_contributed;
SELECT abs(ANON_COUNT(*) - 2000) < 10 AS ok
FROM (SELECT uid FROM ri_visits UNION SELECT id FROM ri_users) u;
-- users who reach page 3 and are premium: u % 10 in (4, 8)
SELECT abs(ANON_COUNT(*) - 400) < 10 AS ok
FROM (SELECT uid FROM ri_visits WHERE pages >= 3 INTERSECT SELECT id FROM ri_users WHERE premium) u;
SELECT abs(ANON_COUNT(*) - 1000) < 10 AS ok
FROM (SELECT uid FROM ri_visits EXCEPT SELECT id FROM ri_users WHERE premium) u;
-- nested: (chrome users, all even) UNION ALL (odd users) EXCEPT (even users)
SELECT abs(ANON_COUNT(*) - 1000) < 10 AS ok
FROM ((SELECT uid FROM ri_visits WHERE browser = 'chrome' UNION ALL SELECT id FROM ri_users WHERE country = 'fr')
      EXCEPT SELECT id FROM ri_users WHERE premium) u;
-- a set operation in a WITH query
WITH u AS (SELECT uid, browser AS k FROM ri_visits WHERE browser = 'edge'
           UNION ALL SELECT id, country FROM ri_users WHERE country = 'de')
SELECT abs(ANON_COUNT(*) - 1500) < 10 AS ok FROM u;

-- ==== accepted: joins ====
-- private subqueries joined on their privacy units (ON, USING, NATURAL, WHERE)
SELECT abs(ANON_COUNT(*) - 1000) < 10 AS ok
FROM (SELECT uid FROM ri_visits) a JOIN (SELECT id FROM ri_users WHERE premium) b ON a.uid = b.id;
SELECT abs(ANON_COUNT(*) - 1000) < 10 AS ok
FROM (SELECT uid AS id FROM ri_visits) a JOIN ri_users USING (id) WHERE country = 'fr';
SELECT abs(ANON_COUNT(*) - 1000) < 10 AS ok
FROM (SELECT uid AS id FROM ri_visits) a NATURAL JOIN ri_users WHERE premium;
SELECT abs(ANON_COUNT(*) - 1000) < 10 AS ok
FROM (SELECT uid AS who, pages FROM ri_visits) a, ri_users u WHERE a.who = u.id AND u.premium;
-- a subquery, a WITH query and a view chained on the privacy unit
WITH c AS (SELECT id, premium FROM ri_users)
SELECT c.premium, abs(ANON_COUNT(*) - 1000) < 10 AS ok
FROM (SELECT uid FROM ri_visits) s JOIN c ON c.id = s.uid JOIN ri_v v ON v.uid = c.id
GROUP BY c.premium ORDER BY 1;
-- a table joined with its own per-user aggregate: 400 users with 5 visits
SELECT abs(ANON_COUNT(*) - 400) < 10 AS ok
FROM ri_visits v JOIN (SELECT uid, count(*) AS n FROM ri_visits GROUP BY uid) c ON c.uid = v.uid
WHERE c.n = 5;
-- public subqueries may use anything (window functions, LIMIT, aggregates)
SELECT abs(ANON_COUNT(*) - 1000) < 10 AS ok
FROM ri_visits v JOIN (SELECT name, row_number() OVER (ORDER BY name) AS r FROM ri_browsers
                       ORDER BY name LIMIT 2) b ON b.name = v.browser;
SELECT abs(ANON_COUNT(*) - 2000) < 10 AS ok
FROM ri_visits v JOIN (SELECT vendor, min(name) AS name FROM ri_browsers GROUP BY vendor) b ON b.name = v.browser;
-- VALUES lists are public
SELECT b.r, abs(ANON_COUNT(*) - 500) < 10 AS ok
FROM ri_visits v JOIN (VALUES ('chrome', 1), ('edge', 2)) b(name, r) ON b.name = v.browser
GROUP BY b.r ORDER BY 1;
WITH p(name) AS (VALUES ('firefox'), ('safari'))
SELECT abs(ANON_COUNT(*) - 1000) < 10 AS ok FROM ri_visits v JOIN p ON p.name = v.browser;
-- a private subquery on the preserved side of an outer join with a public table
SELECT b.vendor, abs(ANON_COUNT(*) - 500) < 10 AS ok
FROM (SELECT uid, browser FROM ri_visits) s LEFT JOIN ri_browsers b ON b.name = s.browser
GROUP BY b.vendor ORDER BY 1;
-- outer joins of private inputs on their privacy units: the unit comes from
-- the preserved side; null-extended rows (odd users) keep it
SELECT p.id IS NULL AS not_premium, abs(ANON_COUNT(*) - 1000) < 10 AS ok
FROM ri_visits v LEFT JOIN (SELECT id FROM ri_users WHERE premium) p ON v.uid = p.id
GROUP BY p.id IS NULL ORDER BY 1;
SELECT u.premium, abs(ANON_COUNT(*) - 1000) < 10 AS ok
FROM ri_users u RIGHT JOIN ri_v v ON v.uid = u.id GROUP BY u.premium ORDER BY 1;
SELECT abs(ANON_COUNT(*) - 1000) < 10 AS ok
FROM (SELECT v.uid FROM ri_visits v LEFT JOIN ri_users u ON u.id = v.uid WHERE u.premium) s;

-- ==== accepted: expression subqueries over public tables ====
SELECT abs(ANON_COUNT(*) - 1500) < 10 AS ok
FROM (SELECT uid, browser FROM ri_visits) s
WHERE EXISTS (SELECT 1 FROM ri_browsers b WHERE b.name = s.browser AND b.vendor <> 'Apple');
SELECT abs(ANON_COUNT(*) - 500) < 10 AS ok
FROM ri_visits WHERE browser IN (SELECT name FROM ri_browsers WHERE vendor = 'Google');
-- pages >= 3: 800 users
SELECT abs(ANON_COUNT(*) - 800) < 10 AS ok
FROM ri_visits WHERE pages >= (SELECT count(*) FROM ri_browsers) - 1;
-- in ON: Microsoft and Mozilla
SELECT abs(ANON_COUNT(*) - 1000) < 10 AS ok
FROM ri_visits v JOIN ri_browsers b
  ON b.name = v.browser AND b.vendor IN (SELECT vendor FROM ri_browsers WHERE vendor LIKE 'M%');
-- inside a private subquery (WHERE and select list): nb = 1 on each of 6000
-- rows (b = 10 x 2 / 10 = 2)
SELECT abs(ANON_SUM(nb, 0, 10) - 6000) < 60 AS ok
FROM (SELECT uid, (SELECT count(*) FROM ri_browsers) / 4 AS nb FROM ri_visits
      WHERE browser IN (SELECT name FROM ri_browsers)) s;
-- over a VALUES list
SELECT abs(ANON_COUNT(*) - 1000) < 10 AS ok FROM ri_visits WHERE browser IN (VALUES ('chrome'), ('safari'));
-- LIMIT is post-processing, its subqueries follow the same rule
SELECT abs(ANON_COUNT(*) - 2000) < 10 AS ok FROM ri_visits LIMIT (SELECT count(*) FROM ri_browsers);

-- ==== accepted: expression subqueries over private data within one user ====
-- (the subquery equates its privacy unit with the enclosing level's)
SELECT abs(ANON_COUNT(*) - 1000) < 10 AS ok
FROM ri_visits v WHERE EXISTS (SELECT 1 FROM ri_users u WHERE u.id = v.uid AND u.premium);
SELECT abs(ANON_COUNT(*) - 1000) < 10 AS ok
FROM ri_visits v WHERE NOT EXISTS (SELECT 1 FROM ri_users u WHERE v.uid = u.id AND u.premium);
SELECT abs(ANON_COUNT(*) - 1000) < 10 AS ok
FROM ri_visits v WHERE v.browser IN (SELECT v.browser FROM ri_users u WHERE u.id = v.uid AND u.country = 'fr');
-- a per-user scalar: users whose visit count is 5
SELECT abs(ANON_COUNT(*) - 400) < 10 AS ok
FROM ri_users u WHERE (SELECT count(*) FROM ri_visits v WHERE v.uid = u.id) = 5;
-- through a view, a WITH query, and nested (the inner one correlated too)
SELECT abs(ANON_COUNT(*) - 400) < 10 AS ok
FROM ri_users u WHERE EXISTS (SELECT 1 FROM ri_v w WHERE w.uid = u.id AND w.pages = 4);
WITH c AS (SELECT uid, pages FROM ri_visits)
SELECT abs(ANON_COUNT(*) - 400) < 10 AS ok FROM ri_users u WHERE EXISTS (SELECT 1 FROM c WHERE c.uid = u.id AND c.pages = 4);
SELECT abs(ANON_COUNT(*) - 200) < 10 AS ok
FROM ri_visits v WHERE EXISTS (SELECT 1 FROM ri_users u WHERE u.id = v.uid AND u.premium
                               AND EXISTS (SELECT 1 FROM ri_visits x WHERE x.uid = u.id AND x.pages = 4));
-- inside a private subquery in FROM
SELECT abs(ANON_COUNT(*) - 1000) < 10 AS ok
FROM (SELECT uid FROM ri_visits v WHERE EXISTS (SELECT 1 FROM ri_users u WHERE u.id = v.uid AND u.premium)) s;

-- ==== output column names and types with subquery, WITH and view inputs ====
CREATE TEMP TABLE ri_shape_sub AS
SELECT s.b, ANON_COUNT(*), ANON_SUM(p, 0, 4) AS pages, ANON_AVG(d, 0, 600), ANON_SUM(amt, 0, 10) AS amt
FROM (SELECT uid AS who, browser AS b, pages AS p, dur AS d, pages::numeric AS amt FROM ri_visits) s
GROUP BY s.b;
SELECT attname, atttypid::regtype FROM pg_attribute
WHERE attrelid = 'ri_shape_sub'::regclass AND attnum > 0 ORDER BY attnum;
SELECT count(*) AS partitions FROM ri_shape_sub;
CREATE TEMP TABLE ri_shape_cte AS
WITH c AS (SELECT uid, pages::int8 AS big, dur::real AS r FROM ri_visits)
SELECT ANON_SUM(big, 0, 4) AS big_sum, ANON_SUM(r, 0, 600) AS real_sum, ANON_MEDIAN(r, 0, 600) FROM c;
SELECT attname, atttypid::regtype FROM pg_attribute
WHERE attrelid = 'ri_shape_cte'::regclass AND attnum > 0 ORDER BY attnum;
CREATE TEMP TABLE ri_shape_view AS
SELECT premium, ANON_COUNT(*) AS users, ANON_COUNT(pages, 5) FROM ri_v v JOIN ri_users u ON u.id = v.uid
GROUP BY premium;
SELECT attname, atttypid::regtype FROM pg_attribute
WHERE attrelid = 'ri_shape_view'::regclass AND attnum > 0 ORDER BY attnum;
CREATE TEMP TABLE ri_shape_union AS
SELECT k, ANON_COUNT(*) FROM (SELECT uid, browser AS k FROM ri_visits UNION ALL SELECT id, country FROM ri_users) u
GROUP BY k;
SELECT attname, atttypid::regtype FROM pg_attribute
WHERE attrelid = 'ri_shape_union'::regclass AND attnum > 0 ORDER BY attnum;

-- ==== refused: what private subqueries, WITH queries and views must do ====
-- they must select the privacy unit
SELECT ANON_COUNT(*) FROM (SELECT browser FROM ri_visits) s;
WITH a AS (SELECT browser FROM ri_visits) SELECT ANON_COUNT(*) FROM a;
SELECT ANON_COUNT(*) FROM ri_v_nouid;
SELECT ANON_COUNT(*) FROM (SELECT uid + 0 AS uid FROM ri_visits) s;
-- aggregation must GROUP BY the privacy unit and select it
SELECT ANON_COUNT(*) FROM (SELECT browser, count(*) AS n FROM ri_visits GROUP BY browser) s;
SELECT ANON_COUNT(*) FROM (SELECT count(*) AS n FROM ri_visits) s;
SELECT ANON_COUNT(*) FROM (SELECT count(*) AS n FROM ri_visits GROUP BY uid) s;
SELECT ANON_COUNT(*) FROM ri_v_badagg;
-- no LIMIT / OFFSET, window functions, set-returning functions, DISTINCT ON,
-- GROUPING SETS or FOR UPDATE below the anonymization level
SELECT ANON_COUNT(*) FROM (SELECT uid FROM ri_visits ORDER BY uid LIMIT 10) s;
WITH a AS (SELECT uid FROM ri_visits OFFSET 10) SELECT ANON_COUNT(*) FROM a;
SELECT ANON_COUNT(*) FROM ri_v_limit;
SELECT ANON_COUNT(*) FROM (SELECT uid, row_number() OVER (PARTITION BY uid) AS r FROM ri_visits) s;
SELECT ANON_COUNT(*) FROM (SELECT uid, generate_series(1, 2) AS g FROM ri_visits) s;
SELECT ANON_COUNT(*) FROM (SELECT DISTINCT ON (uid) uid, browser FROM ri_visits) s;
SELECT ANON_COUNT(*) FROM (SELECT uid, browser, count(*) FROM ri_visits GROUP BY ROLLUP (uid, browser)) s;
SELECT ANON_COUNT(*) FROM (SELECT uid FROM ri_visits FOR UPDATE) s;
WITH a AS (SELECT uid FROM ri_visits FOR SHARE) SELECT ANON_COUNT(*) FROM a;
-- LATERAL, functions in FROM
SELECT ANON_COUNT(*) FROM ri_visits v, LATERAL (SELECT v.pages + 1 AS p) l;
SELECT ANON_COUNT(*) FROM ri_visits v, LATERAL generate_series(0, v.pages) g;
SELECT ANON_COUNT(*) FROM ri_visits v, generate_series(1, 2) g;
SELECT ANON_COUNT(*) FROM ri_visits v, ROWS FROM (generate_series(1, 2)) g;
SELECT ANON_COUNT(*) FROM (SELECT uid, g FROM ri_visits, generate_series(1, 2) g) s;
-- recursive and data-modifying WITH queries
WITH RECURSIVE r AS (SELECT uid FROM ri_visits UNION ALL SELECT uid FROM r WHERE false)
SELECT ANON_COUNT(*) FROM r;
WITH d AS (DELETE FROM ri_visits WHERE uid = 1 RETURNING uid) SELECT ANON_COUNT(*) FROM d;
WITH i AS (INSERT INTO ri_users VALUES (9999, true, 'de') RETURNING id) SELECT ANON_COUNT(*) FROM i;
SELECT (SELECT count(*) FROM ri_visits WHERE uid = 1) AS user_1_rows,
       (SELECT count(*) FROM ri_users WHERE id = 9999) AS inserted;
-- an anonymization query cannot feed another one (subquery, WITH, view, view over it)
SELECT ANON_COUNT(*) FROM (SELECT uid, ANON_COUNT(*) AS n FROM ri_visits GROUP BY uid) s;
WITH r AS (SELECT browser, ANON_COUNT(*) AS n FROM ri_visits GROUP BY browser) SELECT ANON_SUM(n, 0, 10) FROM r;
CREATE VIEW ri_anon_view AS SELECT browser, ANON_COUNT(*) AS n FROM ri_visits GROUP BY browser;
CREATE VIEW ri_over_anon_view AS SELECT * FROM ri_anon_view;
SELECT ANON_COUNT(*) FROM ri_anon_view;
SELECT ANON_COUNT(*) FROM ri_over_anon_view;
-- an unlabelled table inside a subquery; only public inputs
SELECT ANON_COUNT(*) FROM (SELECT v.uid FROM ri_visits v JOIN ri_unlab x ON x.uid = v.pages) s;
SELECT ANON_COUNT(*) FROM (SELECT name FROM ri_browsers) b;
SELECT ANON_COUNT(*) FROM (VALUES (1), (2)) t(uid);
SELECT ANON_COUNT(*) FROM ri_v_pub;

-- ==== refused: set operations ====
SELECT ANON_COUNT(*) FROM (SELECT uid, pages FROM ri_visits UNION ALL SELECT 5, id FROM ri_users) u;
SELECT ANON_COUNT(*) FROM (SELECT uid, browser FROM ri_visits UNION ALL SELECT 1, name FROM ri_browsers) u;
SELECT ANON_COUNT(*) FROM (SELECT uid FROM ri_visits UNION ALL VALUES (1)) u;
SELECT ANON_COUNT(*) FROM (SELECT uid, browser FROM ri_visits UNION ALL SELECT 1, country FROM ri_users) u;
SELECT ANON_COUNT(*) FROM (SELECT uid FROM ri_visits UNION ALL SELECT id FROM ri_users LIMIT 5) u;
SELECT ANON_COUNT(*) FROM (SELECT uid FROM ri_visits UNION ALL (SELECT id FROM ri_users LIMIT 5)) u;

-- ==== refused: joins ====
SELECT ANON_COUNT(*) FROM (SELECT uid, pages FROM ri_visits) a JOIN (SELECT id FROM ri_users) b ON a.pages = b.id;
SELECT ANON_COUNT(*) FROM (SELECT uid FROM ri_visits) a JOIN (SELECT id FROM ri_users) b ON a.uid = b.id OR b.id = 1;
SELECT ANON_COUNT(*) FROM (SELECT uid FROM ri_visits) a, ri_users u;
SELECT ANON_COUNT(*) FROM ri_visits v JOIN ri_big b ON v.uid = b.uid;
SELECT ANON_COUNT(*) FROM ri_v v JOIN ri_users u ON v.pages = u.id;
SELECT ANON_COUNT(*) FROM ri_browsers b LEFT JOIN (SELECT uid, browser FROM ri_visits) s ON s.browser = b.name;
SELECT ANON_COUNT(*) FROM (SELECT v.uid FROM ri_browsers b LEFT JOIN ri_visits v ON v.browser = b.name) s;
WITH a AS (SELECT uid, browser FROM ri_visits) SELECT ANON_COUNT(*) FROM a FULL JOIN ri_browsers b ON b.name = a.browser;
-- outer joins of private inputs: on the privacy units, and with one input
-- never null-extended or both sides of a FULL JOIN (its unit is COALESCE of
-- theirs: accepted since issue 21, sql/peer_shapes.sql); a subquery must
-- select the preserved side's unit
SELECT abs(ANON_COUNT(*) - 2000) < 10 AS ok FROM ri_visits v FULL JOIN ri_users u ON v.uid = u.id;
SELECT ANON_COUNT(*) FROM ri_visits v LEFT JOIN ri_users u ON v.pages = u.id;
SELECT ANON_COUNT(*) FROM (SELECT u.id FROM ri_visits v LEFT JOIN ri_users u ON v.uid = u.id) s;

-- ==== refused: expression subqueries that read private data across users, views or WITH queries ====
SELECT ANON_COUNT(*) FROM ri_visits WHERE uid IN (SELECT id FROM ri_users);
SELECT ANON_COUNT(*) FROM ri_visits WHERE uid IN (SELECT uid FROM ri_unlab);
SELECT ANON_COUNT(*) FROM ri_visits WHERE browser IN (SELECT name FROM ri_v_pub);
WITH p AS (SELECT name FROM ri_browsers) SELECT ANON_COUNT(*) FROM ri_visits WHERE browser IN (SELECT name FROM p);
SELECT ANON_COUNT(*) FROM ri_visits v
WHERE EXISTS (SELECT 1 FROM ri_browsers b WHERE b.name IN (SELECT browser FROM ri_visits));
SELECT ANON_COUNT(*) FROM ri_visits WHERE browser IN (SELECT a FROM (SELECT browser AS a FROM ri_visits) q);
SELECT ANON_COUNT(*) FROM (SELECT uid FROM ri_visits WHERE uid IN (SELECT id FROM ri_users)) s;
SELECT ANON_COUNT(*) FROM ri_visits v
JOIN (SELECT name FROM ri_browsers WHERE name IN (SELECT browser FROM ri_visits)) b ON b.name = v.browser;
SELECT ANON_COUNT(*) FROM ri_visits v JOIN ri_browsers b ON b.name = v.browser AND v.uid IN (SELECT id FROM ri_users);
SELECT ANON_COUNT(*) FROM ri_visits WHERE pages < (SELECT ANON_COUNT(*) FROM ri_users);
-- correlated, but not on the privacy unit, inside OR, across types, or
-- reading private tables not joined on their units
SELECT ANON_COUNT(*) FROM ri_visits v WHERE EXISTS (SELECT 1 FROM ri_users u WHERE u.id = v.pages);
SELECT ANON_COUNT(*) FROM ri_visits v WHERE EXISTS (SELECT 1 FROM ri_users u WHERE u.id = v.uid OR u.premium);
SELECT ANON_COUNT(*) FROM ri_visits v WHERE EXISTS (SELECT 1 FROM ri_big b WHERE b.uid = v.uid);
SELECT ANON_COUNT(*) FROM ri_visits v WHERE EXISTS (SELECT 1 FROM ri_users u, ri_big b WHERE u.id = v.uid);
SELECT ANON_COUNT(*) FROM ri_visits v WHERE v.uid IN (SELECT u.id FROM ri_users u WHERE u.premium);
-- the inner subquery of a correlated one reads across users
SELECT ANON_COUNT(*) FROM ri_visits v
WHERE EXISTS (SELECT 1 FROM ri_users u WHERE u.id = v.uid AND u.id IN (SELECT uid FROM ri_visits WHERE pages = 4));
-- expressions of VALUES lists and TABLESAMPLE arguments are evaluated for all
-- users at once: subqueries there may read public tables only
SELECT ANON_COUNT(*) FROM ri_visits v, (VALUES ((SELECT max(uid) FROM ri_visits))) t(x) WHERE v.uid = t.x;
WITH t(x) AS (VALUES ((SELECT max(uid) FROM ri_visits))) SELECT ANON_COUNT(*) FROM ri_visits v JOIN t ON v.uid = t.x;
SELECT ANON_COUNT(*) FROM ri_visits TABLESAMPLE BERNOULLI ((SELECT count(*) FROM ri_users) / 20);
SELECT ANON_COUNT(*) FROM (SELECT uid FROM ri_visits TABLESAMPLE SYSTEM ((SELECT count(*) FROM ri_users) / 20)) s;


-- ==== refused: subqueries at the anonymization level itself ====
SELECT ANON_COUNT(*), (SELECT count(*) FROM ri_browsers) FROM ri_visits;
SELECT browser, ANON_COUNT(*) FROM ri_visits GROUP BY browser HAVING (SELECT true);
-- (accepted: a GROUP BY key over public data, sql/peer_shapes.sql)
SELECT count(*) AS keys, bool_and(abs(n - 500) < 10) AS counts_ok
FROM (SELECT ANON_COUNT(*) AS n FROM ri_visits GROUP BY browser || (SELECT min(vendor) FROM ri_browsers)) s;
SELECT browser, ANON_COUNT(*) FROM ri_visits GROUP BY browser ORDER BY (SELECT 1);
SELECT ANON_SUM((SELECT 1), 0, 1) FROM ri_visits;
SELECT ANON_COUNT(*) FROM ri_visits LIMIT (SELECT count(*) FROM ri_users);
-- a private join with an alias on the join: the unit is named through the alias
SELECT abs(ANON_COUNT(*) - 2000) < 10 AS ok FROM (ri_visits v JOIN ri_users u ON v.uid = u.id) j;


-- ==== contribution bounding: a user in 1000 partitions changes at most C_u ====
-- user 1 is alone in partitions 1..1000; users 2..401 share partition 0.
-- delta = 0.9 releases a kept one-user partition with probability >= 0.36
-- (epsilon 1), so over 30 runs user 1's partitions do show, about
-- 0.36-0.72 x C_u per run, never more than C_u; without bounding there would
-- be hundreds.  Which partitions are kept changes from run to run.
CREATE TABLE ri_spread AS SELECT 1 AS uid, g AS part FROM generate_series(1, 1000) g
  UNION ALL SELECT u, 0 FROM generate_series(2, 401) u;
SECURITY LABEL FOR anon_dp ON COLUMN ri_spread.uid IS 'privacy_unit';
CREATE DOMAIN ri_part_label AS int CHECK (VALUE >= 0);
CREATE TABLE ri_spread_dom AS SELECT uid, part::ri_part_label AS part FROM ri_spread;
SECURITY LABEL FOR anon_dp ON COLUMN ri_spread_dom.uid IS 'privacy_unit';
CREATE FUNCTION ri_bounding(query text, cu int) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  user1 bigint; big bigint; worst bigint := 0; total bigint := 0; all_big bool := true;
BEGIN
  PERFORM set_config('anon_dp.epsilon', '1', true);
  PERFORM set_config('anon_dp.delta', '0.9', true);
  PERFORM set_config('anon_dp.max_groups_contributed', cu::text, true);
  FOR i IN 1..30 LOOP
    EXECUTE format('SELECT count(*) FILTER (WHERE part > 0), count(*) FILTER (WHERE part = 0)
                    FROM (%s) q', query)
      INTO user1, big;
    worst := greatest(worst, user1);
    total := total + user1;
    all_big := all_big AND big = 1;
  END LOOP;
  RETURN format('at most C_u: %s, shown: %s, partition 0 always: %s', worst <= cu, total >= 2, all_big);
END $$;
-- the distinct partitions user 1 was released in, over runs (fresh choice each run)
CREATE FUNCTION ri_bounding_fresh(query text, cu int) RETURNS bool LANGUAGE plpgsql AS $$
DECLARE parts int[] := '{}'; seen int[];
BEGIN
  PERFORM set_config('anon_dp.epsilon', '1', true);
  PERFORM set_config('anon_dp.delta', '0.9', true);
  PERFORM set_config('anon_dp.max_groups_contributed', cu::text, true);
  FOR i IN 1..30 LOOP
    EXECUTE format('SELECT array_agg(part::int) FILTER (WHERE part > 0) FROM (%s) q', query) INTO seen;
    parts := parts || coalesce(seen, '{}');
  END LOOP;
  RETURN (SELECT count(DISTINCT p) > cu FROM unnest(parts) p);
END $$;
SELECT ri_bounding('SELECT part, ANON_COUNT(*) FROM ri_spread GROUP BY part', 1) AS table_cu_1;
SELECT ri_bounding('SELECT part, ANON_COUNT(*) FROM ri_spread GROUP BY part', 5) AS table_cu_5;
SELECT ri_bounding('SELECT p AS part, ANON_COUNT(*) FROM (SELECT uid AS who, part AS p FROM ri_spread) s GROUP BY p', 1) AS subquery_cu_1;
SELECT ri_bounding('SELECT p AS part, ANON_COUNT(*) FROM (SELECT uid AS who, part AS p FROM ri_spread) s GROUP BY p', 5) AS subquery_cu_5;
SELECT ri_bounding('WITH c AS (SELECT uid, part FROM ri_spread) SELECT part, ANON_COUNT(*) FROM c GROUP BY part', 5) AS with_cu_5;
-- domain-typed GROUP BY key: the row_number() fallback bounds as well
SELECT ri_bounding('SELECT part, ANON_COUNT(*) FROM ri_spread_dom GROUP BY part', 1) AS domain_cu_1;
SELECT ri_bounding('SELECT part, ANON_COUNT(*) FROM ri_spread_dom GROUP BY part', 5) AS domain_cu_5;
SELECT ri_bounding_fresh('SELECT part, ANON_COUNT(*) FROM ri_spread GROUP BY part', 1) AS fresh_choice_cu_1;
SELECT ri_bounding_fresh('SELECT p AS part, ANON_COUNT(*) FROM (SELECT uid, part AS p FROM ri_spread) s GROUP BY p', 5) AS fresh_choice_cu_5;
SELECT ri_bounding_fresh('SELECT part, ANON_COUNT(*) FROM ri_spread_dom GROUP BY part', 1) AS fresh_choice_domain;
SHOW anon_dp.max_groups_contributed;
SHOW anon_dp.delta;

-- the kept rows stay whole: every user is in partitions g = 1..10 with value
-- 10 g, and a second key 2 g.  C_u = 3 keeps 3 of each user's 10 rows, so
-- about 600 users per partition (binomial std 20.5); ANON_AVG of the kept
-- values must be 10 g (noise std < 0.3 at epsilon 10) and every released
-- (g, g2) pair must have g2 = 2 g.
CREATE TABLE ri_multi AS SELECT u AS uid, g, 2 * g AS g2, 10 * g AS val
FROM generate_series(1, 2000) u, generate_series(1, 10) g;
SECURITY LABEL FOR anon_dp ON COLUMN ri_multi.uid IS 'privacy_unit';
SET anon_dp.max_groups_contributed = 3;
SELECT count(*) AS partitions, bool_and(abs(a - 10 * g) < 5) AS values_aligned, bool_and(abs(n - 600) < 130) AS uniform
FROM (SELECT g, ANON_AVG(val, 0, 100) AS a, ANON_COUNT(*) AS n FROM ri_multi GROUP BY g) s;
SELECT count(*) AS partitions, bool_and(g2 = 2 * g) AS keys_aligned
FROM (SELECT g, g2, ANON_COUNT(*) FROM ri_multi GROUP BY g, g2) s;
SELECT count(*) AS partitions, bool_and(abs(a - 10 * k) < 5) AS values_aligned
FROM (SELECT k, ANON_AVG(v, 0, 100) AS a FROM (SELECT uid, g AS k, val AS v FROM ri_multi) s GROUP BY k) r;
RESET anon_dp.max_groups_contributed;

-- ==== anon_dp_pick ====
SET search_path = public, anon_dp_internal;   -- where the building blocks live
-- uniform: each of 10 values is kept with probability 3/10 in 20000 groups
-- (mean 6000, std 64.8, tolerance 6 std); every array has 3 distinct values
CREATE TEMP TABLE ri_picks AS
SELECT run, anon_dp_pick(anon_dp_random_key(), g, 3) AS kept
FROM generate_series(1, 20000) run, generate_series(1, 10) g GROUP BY run;
SELECT count(*) AS groups,
       bool_and(cardinality(kept) = 3 AND (SELECT count(DISTINCT x) FROM unnest(kept) x) = 3) AS three_distinct
FROM ri_picks;
SELECT g, abs(count(*) - 6000) < 389 AS uniform
FROM (SELECT unnest(kept) AS g FROM ri_picks) s GROUP BY g ORDER BY g;
-- same keys, same rows in the same positions
SELECT count(*) AS groups, bool_and(b = ARRAY(SELECT x * 10 FROM unnest(a) WITH ORDINALITY t(x, i) ORDER BY i)) AS aligned,
       bool_and(c = ARRAY(SELECT 'v' || x FROM unnest(a) WITH ORDINALITY t(x, i) ORDER BY i)) AS aligned_text
FROM (SELECT run, anon_dp_pick(k, g, 3) AS a, anon_dp_pick(k, g * 10, 3) AS b, anon_dp_pick(k, 'v' || g, 3) AS c
      FROM (SELECT run, g, anon_dp_random_key() AS k
            FROM generate_series(1, 2000) run, generate_series(1, 10) g OFFSET 0) r
      GROUP BY run) s;
-- deterministic given its keys: the rows with the smallest keys, NULL values kept
SELECT ARRAY(SELECT x FROM unnest(anon_dp_pick(k, v, 2)) x ORDER BY x) AS two_smallest,
       ARRAY(SELECT x FROM unnest(anon_dp_pick(k, v, 3)) x ORDER BY x NULLS LAST) AS three_smallest,
       cardinality(anon_dp_pick(k, v, 10)) AS all_rows
FROM (VALUES (5, 'a'), (1, 'b'), (3, NULL), (2, 'd')) t(k, v);
-- keys compare as bigint (negative keys first)
SELECT ARRAY(SELECT x FROM unnest(anon_dp_pick(k, v, 2)) x ORDER BY x) AS two_smallest
FROM (VALUES (-5, 'a'), (1, 'b'), (-3, 'c'), (0, 'd')) t(k, v);
SELECT anon_dp_pick(k, v, 1) IS NULL AS empty_group FROM (VALUES (1, 'a')) t(k, v) WHERE false;
SELECT anon_dp_pick(1, 1, NULL);
SELECT anon_dp_pick(1, 1, 0);
SELECT anon_dp_pick(1, 1, 1000001);
SELECT anon_dp_pick(NULL, 1, 1);
RESET search_path;

-- ==== fallback for GROUP BY keys without a usable array type ====
CREATE FUNCTION ri_plan_has(query text, pattern text) RETURNS bool LANGUAGE plpgsql AS $$
DECLARE line text;
BEGIN
  FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || query LOOP
    IF line LIKE '%' || pattern || '%' THEN RETURN true; END IF;
  END LOOP;
  RETURN false;
END $$;
CREATE DOMAIN ri_label AS text CHECK (VALUE <> '');
CREATE TABLE ri_dom AS SELECT u AS uid, ((ARRAY['a', 'b'])[1 + u % 2])::ri_label AS lab FROM generate_series(1, 2000) u;
SECURITY LABEL FOR anon_dp ON COLUMN ri_dom.uid IS 'privacy_unit';
SELECT lab, abs(ANON_COUNT(*) - 1000) < 10 AS ok FROM ri_dom GROUP BY lab ORDER BY lab;
SELECT ri_plan_has('SELECT lab, ANON_COUNT(*) FROM ri_dom GROUP BY lab', 'WindowAgg') AS domain_uses_row_number,
       NOT ri_plan_has('SELECT lab, ANON_COUNT(*) FROM ri_dom GROUP BY lab', 'anon_dp_pick') AS domain_avoids_pick,
       ri_plan_has('SELECT lab::text, ANON_COUNT(*) FROM ri_dom GROUP BY lab::text', 'anon_dp_bound_partitions') AS text_uses_one_pass;
-- a key type without a hash function (money) goes through anon_dp_pick (the
-- one-pass plan draws its key in an InitPlan)
SELECT NOT ri_plan_has('SELECT (uid % 2)::money, ANON_COUNT(*) FROM ri_dom GROUP BY (uid % 2)::money', 'InitPlan') AS money_avoids_one_pass,
       (SELECT bool_and(abs(n - 1000) < 10) FROM (SELECT (uid % 2)::numeric::money AS m, ANON_COUNT(*) AS n FROM ri_dom GROUP BY 1) s) AS money_ok;
-- the output keeps the domain type, through a subquery too
CREATE TEMP TABLE ri_dom_out AS SELECT lab, ANON_COUNT(*) FROM ri_dom GROUP BY lab;
SELECT attname, atttypid::regtype FROM pg_attribute
WHERE attrelid = 'ri_dom_out'::regclass AND attnum > 0 ORDER BY attnum;
SELECT pg_typeof(l) AS type, abs(n - 1000) < 10 AS ok
FROM (SELECT l, ANON_COUNT(*) AS n FROM (SELECT uid, lab AS l FROM ri_dom) s GROUP BY l) r ORDER BY l;
-- array-typed keys (no array of arrays) use the fallback; composite keys the pick
SELECT ARRAY[uid % 2] AS a, abs(ANON_COUNT(*) - 1000) < 10 AS ok FROM ri_dom GROUP BY ARRAY[uid % 2] ORDER BY 1;
SELECT ri_plan_has('SELECT ARRAY[uid % 2], ANON_COUNT(*) FROM ri_dom GROUP BY ARRAY[uid % 2]', 'WindowAgg') AS array_uses_row_number;
SELECT ROW(lab::text, uid % 3) AS r, abs(ANON_COUNT(*) - 333) < 10 AS ok
FROM ri_dom GROUP BY ROW(lab::text, uid % 3) ORDER BY 1;

-- ==== TABLESAMPLE anon_reservoir(n) ====
-- unit u has 1 + u % 12 rows; 7 rows without a unit belong to no unit and
-- are never returned
CREATE TABLE ri_res AS
SELECT u * 100 + k AS id, u AS uid FROM generate_series(1, 600) u, generate_series(1, 12) k WHERE k <= 1 + u % 12
UNION ALL SELECT -k, NULL FROM generate_series(1, 7) k;
CREATE TABLE ri_res_text AS SELECT 'user-' || u AS handle, k FROM generate_series(1, 300) u, generate_series(1, 4) k WHERE k <= 1 + u % 4;
SECURITY LABEL FOR anon_dp ON COLUMN ri_res.uid IS 'privacy_unit';
SECURITY LABEL FOR anon_dp ON COLUMN ri_res_text.handle IS 'privacy_unit';
CREATE FUNCTION ri_exact(n int) RETURNS text LANGUAGE plpgsql AS $$
DECLARE units bigint; exact bool; genuine bool; unitless bigint;
BEGIN
  EXECUTE format($q$
    WITH s AS (SELECT id, uid FROM ri_res TABLESAMPLE anon_reservoir(%s)),
         t AS (SELECT uid, count(*) AS total FROM ri_res WHERE uid IS NOT NULL GROUP BY uid),
         k AS (SELECT uid, count(*) AS kept, count(DISTINCT id) AS ids FROM s GROUP BY uid)
    SELECT count(*), bool_and(kept = least(%s, total) AND ids = kept),
           (SELECT count(*) FROM s JOIN ri_res r ON r.id = s.id AND r.uid = s.uid) = (SELECT count(*) FROM s),
           (SELECT count(*) FROM s WHERE uid IS NULL)
    FROM t FULL JOIN k ON t.uid = k.uid$q$, n, n) INTO units, exact, genuine, unitless;
  RETURN format('units: %s, exactly min(n, rows): %s, genuine rows: %s, rows without a unit: %s',
                units, exact, genuine, unitless);
END $$;
SELECT ri_exact(5) AS n_5;
SELECT ri_exact(1) AS n_1;
SELECT ri_exact(12) AS n_12;
SELECT ri_exact(1000) AS n_1000;
SELECT ri_exact(1000000) AS n_max;
SELECT count(*) AS units, bool_and(kept = least(2, 1 + substr(handle, 6)::int % 4)) AS exact_text_units
FROM (SELECT handle, count(*) AS kept FROM ri_res_text TABLESAMPLE anon_reservoir(2) GROUP BY handle) s;
-- deleted rows are not seen, rows inserted by this transaction are
BEGIN;
DELETE FROM ri_res WHERE id % 3 = 0;
INSERT INTO ri_res SELECT 90000 + k, 1 FROM generate_series(1, 4) k;
SELECT ri_exact(3) AS after_delete_and_insert;
ROLLBACK;
-- fresh at every scan: 550 units with more than 3 rows, two scans agree with
-- probability below 1e-100
SELECT (SELECT array_agg(id ORDER BY id) FROM ri_res TABLESAMPLE anon_reservoir(3))
       IS DISTINCT FROM (SELECT array_agg(id ORDER BY id) FROM ri_res TABLESAMPLE anon_reservoir(3)) AS scans_differ;
-- uniform over scans: one unit with 10 rows, n = 3, 20000 scans: each row
-- kept ~ Binomial(20000, 0.3), mean 6000, std 64.8, tolerance 6 std
CREATE TABLE ri_ten AS SELECT 1 AS uid, k AS pos FROM generate_series(1, 10) k;
SECURITY LABEL FOR anon_dp ON COLUMN ri_ten.uid IS 'privacy_unit';
SELECT count(*) AS n_max_all_rows FROM ri_ten TABLESAMPLE anon_reservoir(1000000);
CREATE FUNCTION ri_scans(scans int) RETURNS TABLE (pos int, kept int) LANGUAGE plpgsql AS $$
DECLARE c int[] := array_fill(0, ARRAY[10]); p int; rows_per_scan bool := true; n int;
BEGIN
  FOR i IN 1..scans LOOP
    n := 0;
    FOR p IN SELECT t.pos FROM ri_ten t TABLESAMPLE anon_reservoir(3) LOOP
      c[p] := c[p] + 1;
      n := n + 1;
    END LOOP;
    IF n <> 3 THEN RAISE EXCEPTION 'scan % returned % rows', i, n; END IF;
  END LOOP;
  RETURN QUERY SELECT i, c[i] FROM generate_series(1, 10) i;
END $$;
SELECT pos, abs(kept - 6000) < 389 AS uniform FROM ri_scans(20000) ORDER BY pos;
-- uniform over units in one scan: 10000 units of 10 rows spread over the
-- table, n = 3: each position kept ~ Binomial(10000, 0.3), std 45.8
CREATE TABLE ri_uni AS SELECT u AS uid, k AS pos FROM generate_series(1, 10) k, generate_series(1, 10000) u;
SECURITY LABEL FOR anon_dp ON COLUMN ri_uni.uid IS 'privacy_unit';
SELECT count(*) AS positions, bool_and(abs(n - 3000) < 275) AS uniform, sum(n) AS rows
FROM (SELECT pos, count(*) AS n FROM ri_uni TABLESAMPLE anon_reservoir(3) GROUP BY pos) s;
-- memory grows with the rows kept, not with n: 10000 units, n = 1000000
SELECT count(*) AS all_rows FROM ri_uni TABLESAMPLE anon_reservoir(1000000);
-- an anonymization query over an explicit reservoir: ANON_COUNT(item, 100)
-- counts rows; 300 users keep 10 of their 50 rows (truth 3000; epsilon 1000,
-- N = 1: b = 100 x 2 / 1000 = 0.2)
CREATE TABLE ri_rows AS SELECT u AS uid, k AS item, 1 AS v FROM generate_series(1, 300) u, generate_series(1, 50) k;
SECURITY LABEL FOR anon_dp ON COLUMN ri_rows.uid IS 'privacy_unit';
SET anon_dp.epsilon = 1000;
SELECT abs(ANON_COUNT(item, 100) - 3000) < 30 AS ok FROM ri_rows TABLESAMPLE anon_reservoir(10);
SELECT abs(ANON_COUNT(item, 100) - 15000) < 30 AS uncapped FROM ri_rows;
-- errors
SELECT count(*) FROM ri_browsers TABLESAMPLE anon_reservoir(3);
SELECT count(*) FROM ri_unlab TABLESAMPLE anon_reservoir(3);
SELECT count(*) FROM ri_res TABLESAMPLE anon_reservoir(0);
SELECT count(*) FROM ri_res TABLESAMPLE anon_reservoir(-1);
SELECT count(*) FROM ri_res TABLESAMPLE anon_reservoir(1000001);
SELECT count(*) FROM ri_res TABLESAMPLE anon_reservoir(3) REPEATABLE (1);
SELECT count(*) FROM ri_res TABLESAMPLE anon_reservoir(NULL);
SELECT count(*) FROM ri_v TABLESAMPLE anon_reservoir(3);

-- ==== anon_dp.max_rows_contributed ====
-- ANON_COUNT(item, 100) and ANON_SUM(v, 0, 100): each user contributes 10 of
-- 50 rows, truth 3000 (epsilon 1000, N = 2: b = 100 x 3 / 1000 = 0.3)
CREATE FUNCTION ri_sampling(query text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE line text;
BEGIN
  FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || query LOOP
    IF line ~ 'Sampl' THEN RETURN NEXT btrim(regexp_replace(line, '^[ ->]*', '')); END IF;
  END LOOP;
END $$;
-- 100 users, each with 25 rows in each of two partitions
CREATE TABLE ri_part (uid int, x int) PARTITION BY RANGE (x);
CREATE TABLE ri_part_a PARTITION OF ri_part FOR VALUES FROM (0) TO (25);
CREATE TABLE ri_part_b PARTITION OF ri_part FOR VALUES FROM (25) TO (100);
INSERT INTO ri_part SELECT u, k FROM generate_series(1, 100) u, generate_series(0, 49) k;
SECURITY LABEL FOR anon_dp ON COLUMN ri_part.uid IS 'privacy_unit';
-- TABLESAMPLE anon_reservoir refuses to sample a partitioned table partition by partition
SELECT max(n) = 3 AS at_most_n FROM (SELECT uid, count(*) AS n FROM ri_part TABLESAMPLE anon_reservoir(3) GROUP BY uid) s;
SET anon_dp.max_rows_contributed = 10;
SELECT ri_sampling('SELECT ANON_COUNT(item, 100) FROM ri_rows') AS plan;
SELECT abs(ANON_COUNT(item, 100) - 3000) < 40 AS count_capped, abs(ANON_SUM(v, 0, 100) - 3000) < 40 AS sum_capped
FROM ri_rows;
-- every private table of the level, through subqueries, WITH queries, set operations
SELECT ri_sampling('WITH c AS (SELECT uid, item FROM ri_rows) SELECT ANON_COUNT(item, 100) FROM c') AS plan;
SELECT abs(ANON_COUNT(item, 100) - 3000) < 40 AS ok FROM (SELECT uid, item FROM ri_rows) s;
WITH c AS (SELECT uid, item FROM ri_rows) SELECT abs(ANON_COUNT(item, 100) - 3000) < 40 AS ok FROM c;
SELECT abs(ANON_COUNT(item, 100) - 6000) < 40 AS ok
FROM (SELECT uid, item FROM ri_rows UNION ALL SELECT uid, item FROM ri_rows) s;
-- joined with a private table on the unit (ri_users: one row per user) and
-- with a public table (4 rows each, not capped)
SELECT abs(ANON_COUNT(item, 100) - 3000) < 40 AS ok FROM ri_rows r JOIN ri_users u ON u.id = r.uid;
SELECT abs(ANON_COUNT(item, 100) - 12000) < 40 AS ok FROM ri_rows r JOIN ri_browsers b ON true;
SELECT abs(ANON_COUNT(item, 100) - 12000) < 40 AS ok
FROM ri_rows r JOIN ri_browsers TABLESAMPLE BERNOULLI (100) ON true;
SELECT abs(ANON_COUNT(item, 100) - 3000) < 40 AS ok FROM ri_rows r JOIN ri_v_pub p ON p.name = 'edge';
-- schema-qualified and ONLY
SELECT abs(ANON_COUNT(item, 100) - 3000) < 40 AS ok FROM ONLY public.ri_rows;
-- a prepared statement follows the settings in force when it runs
-- (doc/budget.md): capped now, uncapped after the RESET below
PREPARE ri_capped AS SELECT abs(ANON_COUNT(item, 100) - 3000) < 40 AS capped,
                            abs(ANON_COUNT(item, 100) - 15000) < 40 AS uncapped FROM ri_rows;
EXECUTE ri_capped;
-- refused while the cap is on: views over private tables, TABLESAMPLE on private tables
SELECT ANON_COUNT(*) FROM ri_v;
SELECT ANON_COUNT(*) FROM (SELECT uid FROM ri_v) s;
WITH c AS (SELECT who FROM ri_v_renamed) SELECT ANON_COUNT(*) FROM c;
SELECT ANON_COUNT(*) FROM ri_rows TABLESAMPLE BERNOULLI (50);
SELECT ANON_COUNT(*) FROM ri_rows TABLESAMPLE anon_reservoir (5);
SELECT ANON_COUNT(*) FROM (SELECT uid FROM ri_rows TABLESAMPLE SYSTEM (50)) s;
-- private tables read by expression subqueries (correlated on the unit) are capped
-- too, and views or TABLESAMPLE clauses there are refused
SELECT abs(ANON_COUNT(*) - 0) < 40 AS capped FROM ri_users u WHERE 25 < (SELECT count(*) FROM ri_rows r WHERE r.uid = u.id);
SELECT ANON_COUNT(*) FROM ri_users u WHERE EXISTS (SELECT 1 FROM ri_v w WHERE w.uid = u.id);
SELECT ANON_COUNT(*) FROM ri_users u WHERE EXISTS (SELECT 1 FROM ri_rows r TABLESAMPLE BERNOULLI (10) WHERE r.uid = u.id);
-- private WITH queries defined outside the anonymization level (also one
-- named like a private table, and one read through a subquery)
WITH c AS (SELECT uid, item FROM ri_rows) SELECT * FROM (SELECT ANON_COUNT(item, 100) FROM c) x;
WITH ri_rows AS (SELECT uid, item FROM ri_rows) SELECT * FROM (SELECT ANON_COUNT(item, 100) FROM ri_rows) x;
WITH c AS (SELECT uid, item FROM ri_rows) SELECT * FROM (SELECT ANON_COUNT(item, 100) FROM (SELECT * FROM c) s) x;
-- partitioned private tables (PostgreSQL samples each partition on its own)
SELECT ANON_COUNT(x, 100) FROM ri_part;
-- a public WITH query outside the level is fine
WITH c AS (SELECT 'edge'::text AS name)
SELECT * FROM (SELECT abs(ANON_COUNT(item, 100) - 3000) < 40 AS ok FROM ri_rows JOIN c ON true) x;
RESET anon_dp.max_rows_contributed;
EXECUTE ri_capped;
DEALLOCATE ri_capped;
-- RESET restores the uncapped behaviour
SELECT count(*) AS sampling_lines FROM ri_sampling('SELECT ANON_COUNT(item, 100) FROM ri_rows');
SELECT abs(ANON_COUNT(item, 100) - 15000) < 40 AS uncapped FROM ri_rows;
SELECT abs(ANON_COUNT(*) - 2000) < 10 AS view_ok FROM ri_v;
-- without the cap, partitioned private tables are read as usual: 100 users
SELECT abs(ANON_COUNT(*) - 100) < 40 AS ok FROM ri_part;

-- ==== prepared statements over WITH and subquery inputs ====
-- epsilon 2: b = 1, tolerance 30; the discrete noise takes its most likely
-- value with probability tanh(1/2) = 0.46, so 30 executions all with the same
-- noise have probability < 1e-10
SET anon_dp.epsilon = 2;
PREPARE ri_with_param(int) AS
  WITH s AS (SELECT uid, pages FROM ri_visits) SELECT ANON_COUNT(*) AS n FROM s WHERE pages >= $1;
PREPARE ri_sub_param(int) AS
  SELECT browser, ANON_COUNT(*) AS n FROM (SELECT uid, browser FROM ri_visits WHERE pages >= $1) s
  GROUP BY browser ORDER BY browser;
-- users with pages >= p: (5 - p) x 400, a quarter of them per browser
CREATE FUNCTION ri_run_prepared(mode text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE n bigint; p int; ok bool := true; errors bigint[] := '{}'; r record; partitions int;
BEGIN
  PERFORM set_config('plan_cache_mode', mode, true);
  FOR i IN 1..30 LOOP
    p := i % 3;
    EXECUTE 'EXECUTE ri_with_param(' || p || ')' INTO n;
    ok := ok AND abs(n - (5 - p) * 400) < 30;
    errors := errors || (n - (5 - p) * 400);
    partitions := 0;
    FOR r IN EXECUTE 'EXECUTE ri_sub_param(' || p || ')' LOOP
      ok := ok AND abs(r.n - (5 - p) * 100) < 30;
      partitions := partitions + 1;
    END LOOP;
    ok := ok AND partitions = 4;
  END LOOP;
  RETURN format('accurate: %s, fresh noise: %s', ok, (SELECT count(DISTINCT e) > 1 FROM unnest(errors) e));
END $$;
SELECT ri_run_prepared('force_custom_plan') AS custom_plans;
SELECT ri_run_prepared('force_generic_plan') AS generic_plans;
SHOW plan_cache_mode;
DEALLOCATE ri_with_param;
DEALLOCATE ri_sub_param;
RESET anon_dp.epsilon;

DROP FUNCTION ri_bounding(text, int), ri_bounding_fresh(text, int), ri_plan_has(text, text),
  ri_exact(int), ri_scans(int), ri_sampling(text), ri_run_prepared(text);
DROP VIEW ri_over_anon_view, ri_anon_view, ri_v_v, ri_v_renamed, ri_v, ri_v_agg, ri_v_pub,
  ri_v_nouid, ri_v_badagg, ri_v_limit;
DROP TABLE ri_visits, ri_users, ri_big, ri_browsers, ri_unlab, ri_spread, ri_spread_dom,
  ri_multi, ri_dom, ri_res, ri_res_text, ri_ten, ri_uni, ri_rows, ri_part;
DROP TABLE ri_shape_sub, ri_shape_cte, ri_shape_view, ri_shape_union, ri_dom_out, ri_picks;
DROP DOMAIN ri_part_label;
DROP DOMAIN ri_label;
