-- The anonymization pipeline (doc/architecture.md): the rewrite works on the
-- analyzed query tree, so what runs is what was validated, whatever the
-- session's settings when a plan is rebuilt; references to enclosing query
-- levels keep their meaning across the levels the rewrite adds, for every
-- bounding strategy; output columns keep their types.
--
-- epsilon 100: a count of N = 1 release with C_u = 1 has Laplace scale
-- 2/100, so counts below are exact to well within the tolerance of 5.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS anon_dp;
RESET client_min_messages;

-- 2000 users, one row each: 500 per browser, pages 0..6, money 0..2
CREATE TABLE pl_visits AS
SELECT u AS uid, (ARRAY['a', 'b', 'c', 'd'])[1 + u % 4] AS browser, u % 7 AS pages,
       (u % 3)::money AS amount
FROM generate_series(1, 2000) u;
CREATE TABLE pl_browsers (name text, vendor text);
INSERT INTO pl_browsers VALUES ('a', 'Ax'), ('b', 'Bxx'), ('c', 'Cxxx'), ('d', 'Dxxxx');
SECURITY LABEL FOR anon_dp ON COLUMN pl_visits.uid IS 'privacy_unit';
SECURITY LABEL FOR anon_dp ON TABLE pl_browsers IS 'public';
CREATE DOMAIN pl_label AS text;
SET anon_dp.epsilon = 100;

-- ==== what runs is what was validated ====
-- A literal that reads as code under standard_conforming_strings = off: the
-- plan rebuilt after DISCARD PLANS under that setting still returns the
-- literal (the rewrite never parses the statement text again).
PREPARE pl_literal AS
SELECT ANON_COUNT(*) > 0 AS released, 'a\' AS x, ' || (SELECT string_agg(uid::text, ',') FROM pl_visits) AS y FROM pl_visits --' AS z
FROM pl_visits;
EXECUTE pl_literal;
SET standard_conforming_strings = off;
DISCARD PLANS;
EXECUTE pl_literal;
RESET standard_conforming_strings;
DEALLOCATE pl_literal;
-- the same in one multi-statement message
SET standard_conforming_strings = off \; SELECT ANON_COUNT(*) > 0 AS released, 'a\' AS x, ' || (SELECT string_agg(uid::text, ',') FROM pl_visits) AS y FROM pl_visits --' AS z FROM pl_visits;
RESET standard_conforming_strings;

-- ==== correlated anonymization subqueries: outer references ====
-- in WHERE, for each bounding strategy: one pass (integer key), anon_dp_pick
-- (money key: no hash opclass), the sort (domain key), none (no GROUP BY)
SELECT b.name, abs((SELECT ANON_COUNT(*) FROM pl_visits v WHERE v.browser = b.name) - 500) < 5 AS ok
FROM pl_browsers b ORDER BY 1;
SELECT b.name, (SELECT count(*) FROM (SELECT v.pages, ANON_COUNT(*) FROM pl_visits v
                                      WHERE v.browser = b.name GROUP BY v.pages) s) AS partitions
FROM pl_browsers b ORDER BY 1;
SELECT b.name, (SELECT count(*) FROM (SELECT v.amount, ANON_COUNT(*) FROM pl_visits v
                                      WHERE v.browser = b.name GROUP BY v.amount) s) AS partitions
FROM pl_browsers b ORDER BY 1;
SELECT b.name, (SELECT count(*) FROM (SELECT v.browser::pl_label, ANON_COUNT(*) FROM pl_visits v
                                      WHERE v.browser = b.name GROUP BY 1) s) AS partitions
FROM pl_browsers b ORDER BY 1;
-- in the aggregated value: sum of (pages + length(vendor)) over 2000 users,
-- each clamped to [0, 20]
SELECT b.name, abs((SELECT ANON_SUM(v.pages + length(b.vendor), 0, 20) FROM pl_visits v)
                   - (SELECT sum(v.pages + length(b.vendor)) FROM pl_visits v)) < 5 AS ok
FROM pl_browsers b ORDER BY 1;
-- in a GROUP BY key
SELECT b.name, (SELECT count(*) FROM (SELECT v.pages + length(b.vendor) AS k, ANON_COUNT(*)
                                      FROM pl_visits v GROUP BY 1) s) AS partitions
FROM pl_browsers b ORDER BY 1;
-- in a bound: refused, a bound is a constant of the query
SELECT b.name, (SELECT ANON_SUM(v.pages, 0, length(b.vendor)) FROM pl_visits v) FROM pl_browsers b;

-- ==== WITH queries across the new levels ====
-- defined outside the anonymization query, read in its FROM
WITH w AS (SELECT uid, browser FROM pl_visits)
SELECT x.k, abs(x.n - 500) < 5 AS ok
FROM (SELECT browser AS k, ANON_COUNT(*) AS n FROM w GROUP BY browser) x ORDER BY 1;
-- defined outside, public, joined inside a scalar anonymization subquery
WITH w AS (SELECT name FROM pl_browsers WHERE name <> 'a')
SELECT abs((SELECT ANON_COUNT(*) FROM pl_visits v JOIN w ON w.name = v.browser) - 1500) < 5 AS ok;
-- the level's own WITH query, read by a subquery correlated on the unit:
-- 286 users have pages = 4 (u = 4, 11, ..., 1999)
WITH c AS (SELECT uid, pages FROM pl_visits)
SELECT abs(ANON_COUNT(*) - 286) < 5 AS ok
FROM pl_visits v WHERE EXISTS (SELECT 1 FROM c WHERE c.uid = v.uid AND c.pages = 4);

-- ==== GROUP BY keys are matched as PostgreSQL matches them ====
-- qualified in one place, not in the other; an output alias; an expression
-- over a key in ORDER BY; any expression form around a release
SELECT v.browser, abs(ANON_COUNT(*) - 500) < 5 AS ok FROM pl_visits v GROUP BY browser ORDER BY 1;
SELECT upper(browser) AS b, abs(ANON_COUNT(*) - 500) < 5 AS ok FROM pl_visits GROUP BY b ORDER BY b;
SELECT browser FROM pl_visits v GROUP BY v.browser HAVING ANON_COUNT(*) > 0 ORDER BY upper(v.browser) DESC;
SELECT xmlelement(name ok, abs(ANON_COUNT(*) - 2000) < 5) AS xml FROM pl_visits;

-- ==== the level's clauses over released rows ====
-- HAVING and ORDER BY on releases that are not in the select list (the
-- sums are 2000, 1500, 1000 and 500, far apart for the noise)
SELECT browser FROM pl_visits GROUP BY browser
HAVING ANON_COUNT(*) > 100
ORDER BY ANON_SUM(CASE browser WHEN 'a' THEN 4 WHEN 'b' THEN 3 WHEN 'c' THEN 2 ELSE 1 END, 0, 4) DESC;
-- LIMIT with a subquery over a public table
SELECT browser, abs(ANON_COUNT(*) - 500) < 5 AS ok FROM pl_visits GROUP BY browser
ORDER BY 1 LIMIT (SELECT count(*) - 2 FROM pl_browsers);
-- INSERT ... SELECT of released rows
CREATE TEMP TABLE pl_report (b text, n bigint);
INSERT INTO pl_report SELECT browser, ANON_COUNT(*) FROM pl_visits GROUP BY browser;
SELECT b, abs(n - 500) < 5 AS ok FROM pl_report ORDER BY 1;
-- output columns keep type and typmod (CREATE TABLE AS)
CREATE TEMP TABLE pl_shape AS
SELECT browser::varchar(5) AS b, amount, ANON_COUNT(*) AS n, ANON_AVG(pages, 0, 6) AS avg_pages
FROM pl_visits GROUP BY 1, 2;
SELECT attname, format_type(atttypid, atttypmod) FROM pg_attribute
WHERE attrelid = 'pl_shape'::regclass AND attnum > 0 ORDER BY attnum;

-- ==== released partitions are a fence ====
-- Nothing written around an anonymization query runs on a partition key
-- before the partition passed tau: a HAVING, the WHERE of an enclosing query
-- or of a view over it, here a cast that fails on the key of a one-user
-- partition, runs only on the released partition '5' (500 users; at delta
-- 1e-9 the one-user partition 'x-secret' is never released).
CREATE TABLE pl_notes AS
SELECT u AS uid, '5' AS note FROM generate_series(1, 500) u
UNION ALL SELECT 501, 'x-secret';
SECURITY LABEL FOR anon_dp ON COLUMN pl_notes.uid IS 'privacy_unit';
SET anon_dp.epsilon = 1;
SET anon_dp.delta = 1e-9;
SELECT note, ANON_COUNT(*) > 400 AS big FROM pl_notes GROUP BY note HAVING note::int > 0;
SELECT * FROM (SELECT note, ANON_COUNT(*) > 400 AS big FROM pl_notes GROUP BY note) s
WHERE note::int > 0;
CREATE VIEW pl_notes_released AS SELECT note, ANON_COUNT(*) > 400 AS big FROM pl_notes GROUP BY note;
SELECT * FROM pl_notes_released WHERE note::int > 0;
-- the plan: the condition is a Filter above the tau Filter, never below it
EXPLAIN (COSTS OFF) SELECT * FROM pl_notes_released WHERE note::int > 0;
DROP VIEW pl_notes_released;
DROP TABLE pl_notes;
RESET anon_dp.delta;
SET anon_dp.epsilon = 100;

-- ==== refused: clauses the rewrite cannot carry ====
-- a column that is grouped only through a primary key
CREATE TABLE pl_keyed (id int PRIMARY KEY, x int, uid int);
SECURITY LABEL FOR anon_dp ON COLUMN pl_keyed.uid IS 'privacy_unit';
SELECT id, x, ANON_COUNT(*) FROM pl_keyed GROUP BY id;
-- SELECT INTO
SELECT browser, ANON_COUNT(*) INTO TEMP pl_into FROM pl_visits GROUP BY browser;
-- a WINDOW clause
SELECT ANON_COUNT(*) FROM pl_visits WINDOW w AS ();

RESET anon_dp.epsilon;

DROP TABLE pl_visits, pl_browsers, pl_keyed;
DROP DOMAIN pl_label;
