-- Shapes that ZetaSQL's differential privacy analyzer accepts (issue 21,
-- item 6; doc/rewriter.md section 2): unnest() of an array column of a
-- private table (each element a row of the same user), unnest of a constant
-- array in FROM, a FULL JOIN of two private inputs on the privacy unit (the
-- unit of a row is COALESCE of both sides'), the unit selected under two
-- names, GROUP BY uid against SELECT t.uid, subqueries over public data in
-- GROUP BY; and what stays refused around each of them.  The sensitivity
-- fuzzer (tests/fuzz/run) generates these shapes too.
--
-- Accepted queries print properties of the released rows at epsilon 1e6
-- (noise far below 1), compared with the exact answer of a plain query.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS anon_dp;
RESET client_min_messages;
SET anon_dp.epsilon = 1000000;
SET anon_dp.max_groups_contributed = 10;

-- 300 users in ps_visits (users 1-300), 200 in ps_users (users 201-400):
-- 100 users in both; each visit row has an array of 0 to 3 tags
CREATE TABLE ps_visits AS
SELECT u AS uid, (ARRAY['a', 'b', 'c'])[1 + u % 3] AS browser, k AS pages,
       (ARRAY[NULL, '{}', '{1}', '{1,2}', '{2,3,7}'])[1 + (u + k) % 5]::int[] AS tags,
       (ARRAY['{x}', '{y,x}'])[1 + u % 2]::text[] AS labels
FROM generate_series(1, 300) u, generate_series(1, 1 + u % 3) k;
INSERT INTO ps_visits VALUES (NULL, 'a', 1, '{1,2,3}', '{x}');   -- a row of no user
CREATE TABLE ps_users AS SELECT u AS uid, (u % 2 = 0) AS premium FROM generate_series(201, 400) u;
INSERT INTO ps_users VALUES (NULL, true);                       -- a row of no user
CREATE TABLE ps_orders AS SELECT u AS uid, u % 4 AS item FROM generate_series(350, 450) u;
CREATE TABLE ps_tags (tag int, name text);
INSERT INTO ps_tags VALUES (1, 'one'), (2, 'two'), (3, 'three');
SECURITY LABEL FOR anon_dp ON COLUMN ps_visits.uid IS 'privacy_unit';
SECURITY LABEL FOR anon_dp ON COLUMN ps_users.uid IS 'privacy_unit';
SECURITY LABEL FOR anon_dp ON COLUMN ps_orders.uid IS 'privacy_unit';
SECURITY LABEL FOR anon_dp ON TABLE ps_tags IS 'public';
CREATE VIEW ps_tag_rows AS SELECT uid, t FROM ps_visits, unnest(tags) t;

-- released rows beside the exact answer: how many keys either has, and on how
-- many both have the key with values less than 1 apart
CREATE FUNCTION ps_compare(anonymized text, exact text)
RETURNS TABLE (keys bigint, equal bigint) LANGUAGE plpgsql AS $$
BEGIN
  RETURN QUERY EXECUTE format(
    'SELECT count(*), count(*) FILTER (WHERE abs(a - e) < 1)
     FROM (SELECT k, max(v) FILTER (WHERE src = 1) AS a, max(v) FILTER (WHERE src = 2) AS e
           FROM (SELECT 1 AS src, k, v::float8 FROM (%s) a(k, v)
                 UNION ALL SELECT 2, k, v::float8 FROM (%s) e(k, v)) b GROUP BY k) c', anonymized, exact);
END $$;

CREATE FUNCTION ps_plan(query text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE line text;
BEGIN
  FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || query LOOP RETURN NEXT line; END LOOP;
END $$;

-- ==== 1. unnest() of an array column: each element a row of the same user ====
-- users per tag (a user with the tag in several rows counts once)
SELECT * FROM ps_compare(
  'SELECT t, ANON_COUNT(*) FROM ps_visits, unnest(tags) t GROUP BY t',
  'SELECT t, count(DISTINCT uid) FROM ps_visits, unnest(tags) t WHERE uid IS NOT NULL GROUP BY t');
-- the same through every way of writing it
SELECT * FROM ps_compare(
  'SELECT t, ANON_COUNT(*) FROM ps_visits CROSS JOIN LATERAL unnest(ps_visits.tags) AS t GROUP BY t',
  'SELECT t, count(DISTINCT uid) FROM ps_visits, unnest(tags) t WHERE uid IS NOT NULL GROUP BY t');
SELECT * FROM ps_compare(
  'SELECT t, ANON_COUNT(*) FROM ps_visits v JOIN unnest(v.tags) WITH ORDINALITY AS x(t, i) ON true GROUP BY t',
  'SELECT t, count(DISTINCT uid) FROM ps_visits, unnest(tags) t WHERE uid IS NOT NULL GROUP BY t');
SELECT * FROM ps_compare(
  'SELECT t, ANON_COUNT(*) FROM ps_visits v LEFT JOIN LATERAL unnest(v.tags) t ON true GROUP BY t',
  'SELECT t, count(DISTINCT uid) FROM ps_visits v LEFT JOIN LATERAL unnest(v.tags) t ON true WHERE uid IS NOT NULL GROUP BY t');
SELECT * FROM ps_compare(
  'SELECT l, ANON_COUNT(*) FROM ps_visits, unnest(tags, labels) AS x(t, l) GROUP BY l',
  'SELECT l, count(DISTINCT uid) FROM ps_visits, unnest(tags, labels) AS x(t, l) WHERE uid IS NOT NULL GROUP BY l');
-- in a private subquery, a WITH query and a view, joined with a public table
SELECT * FROM ps_compare(
  'SELECT name, ANON_COUNT(*) FROM (SELECT uid, t FROM ps_visits, unnest(tags) t) s JOIN ps_tags ON tag = t GROUP BY name',
  'SELECT name, count(DISTINCT uid) FROM ps_visits, unnest(tags) t JOIN ps_tags ON tag = t WHERE uid IS NOT NULL GROUP BY name');
SELECT * FROM ps_compare(
  'WITH e AS (SELECT uid, t FROM ps_visits, unnest(tags) t) SELECT t, ANON_COUNT(*) FROM e GROUP BY t',
  'SELECT t, count(DISTINCT uid) FROM ps_visits, unnest(tags) t WHERE uid IS NOT NULL GROUP BY t');
SELECT * FROM ps_compare(
  'SELECT t, ANON_COUNT(*) FROM ps_tag_rows GROUP BY t',
  'SELECT t, count(DISTINCT uid) FROM ps_visits, unnest(tags) t WHERE uid IS NOT NULL GROUP BY t');
-- a user's elements are aggregated per user: the sum of a user's elements, clamped
SELECT * FROM ps_compare(
  'SELECT 1, ANON_SUM(t, 0, 5) FROM ps_visits, unnest(tags) t',
  'SELECT 1, sum(least(s, 5)) FROM (SELECT uid, sum(t) AS s FROM ps_visits, unnest(tags) t
                                    WHERE uid IS NOT NULL GROUP BY uid) u');
-- with C_u = 1 each user counts in one of its tags only
SET anon_dp.max_groups_contributed = 1;
SELECT sum(n) = (SELECT count(DISTINCT uid) FROM ps_visits, unnest(tags) t) AS one_tag_per_user
FROM (SELECT t, ANON_COUNT(*) AS n FROM ps_visits, unnest(tags) t GROUP BY t) s;
SET anon_dp.max_groups_contributed = 10;

-- ==== 2. unnest of a constant array in FROM ====
SELECT * FROM ps_compare(
  'SELECT k, ANON_COUNT(*) FROM ps_visits, unnest(ARRAY[''a'', ''b'']) k WHERE browser = k GROUP BY k',
  'SELECT browser, count(DISTINCT uid) FROM ps_visits WHERE browser IN (''a'', ''b'') AND uid IS NOT NULL GROUP BY browser');
-- every user under each element
SELECT * FROM ps_compare(
  'SELECT k, ANON_COUNT(*) FROM ps_visits CROSS JOIN unnest(''{10,20,30}''::int[]) k GROUP BY k',
  'SELECT k, 300 FROM unnest(''{10,20,30}''::int[]) k');

-- ==== refused around unnest ====
-- other functions in FROM: they could read tables or return rows of several users
SELECT ANON_COUNT(*) FROM ps_visits, generate_series(1, pages) g;
SELECT ANON_COUNT(*) FROM ps_visits, jsonb_array_elements(to_jsonb(tags)) e;
SELECT ANON_COUNT(*) FROM ps_visits, unnest(to_tsvector('a b')) w;
CREATE SCHEMA ps_s;
CREATE FUNCTION ps_s.unnest(int[]) RETURNS SETOF int LANGUAGE sql AS 'SELECT uid FROM ps_users';
SELECT ANON_COUNT(*) FROM ps_visits, ps_s.unnest(tags) t;
-- an array computed by a subquery over private rows mixes users
SELECT ANON_COUNT(*) FROM ps_visits, unnest((SELECT array_agg(uid) FROM ps_users)) t;
SELECT ANON_COUNT(*) FROM ps_visits v, unnest(ARRAY(SELECT item FROM ps_orders o WHERE o.uid = v.uid)) t;
-- over public data it is a constant
SELECT * FROM ps_compare(
  'SELECT t, ANON_COUNT(*) FROM ps_visits, unnest((SELECT array_agg(tag) FROM ps_tags)) t GROUP BY t',
  'SELECT tag, 300 FROM ps_tags');
-- LATERAL subqueries stay refused
SELECT ANON_COUNT(*) FROM ps_visits v, LATERAL (SELECT v.pages) s;

-- ==== 3. FULL JOIN of two private inputs on the privacy unit ====
-- every user of either side: 300 + 200 - 100 = 400 (rows of no user dropped)
SELECT * FROM ps_compare(
  'SELECT 1, ANON_COUNT(*) FROM ps_visits v FULL JOIN ps_users u ON v.uid = u.uid',
  'SELECT 1, 400');
SELECT * FROM ps_compare(
  'SELECT 1, ANON_COUNT(*) FROM ps_visits v FULL JOIN ps_users u USING (uid)',
  'SELECT 1, 400');
SELECT * FROM ps_compare(
  'SELECT 1, ANON_COUNT(*) FROM ps_users u FULL OUTER JOIN ps_visits v ON u.uid = v.uid AND v.pages > 1',
  'SELECT 1, 400');
-- grouped by a column of one side: the users only on the other side form the NULL partition
SELECT * FROM ps_compare(
  'SELECT u.premium, ANON_COUNT(*) FROM ps_visits v FULL JOIN ps_users u USING (uid) GROUP BY u.premium',
  'SELECT premium, count(DISTINCT COALESCE(v.uid, u.uid)) FROM ps_visits v FULL JOIN ps_users u USING (uid)
   WHERE COALESCE(v.uid, u.uid) IS NOT NULL GROUP BY premium');
-- each user's rows of both sides aggregated together
SELECT * FROM ps_compare(
  'SELECT 1, ANON_SUM(v.pages, 0, 100) FROM ps_visits v FULL JOIN ps_users u ON v.uid = u.uid',
  'SELECT 1, sum(pages) FROM ps_visits WHERE uid IS NOT NULL');
-- three private inputs, chained FULL JOINs with USING
SELECT * FROM ps_compare(
  'SELECT 1, ANON_COUNT(*) FROM ps_visits FULL JOIN ps_users USING (uid) FULL JOIN ps_orders USING (uid)',
  'SELECT 1, 450');
-- with an inner join on one side, and a FULL JOIN below an inner join
SELECT * FROM ps_compare(
  'SELECT 1, ANON_COUNT(*) FROM (ps_visits v JOIN ps_orders o ON o.uid = v.uid) FULL JOIN ps_users u ON u.uid = o.uid',
  'SELECT 1, 200');
SELECT * FROM ps_compare(
  'SELECT 1, ANON_COUNT(*) FROM ps_orders o JOIN (ps_visits v FULL JOIN ps_users u USING (uid)) ON o.uid = u.uid',
  'SELECT 1, 51');
-- in a subquery: the USING column or COALESCE of both sides carries the unit
SELECT * FROM ps_compare(
  'SELECT 1, ANON_COUNT(*) FROM (SELECT uid, count(*) AS n FROM ps_visits FULL JOIN ps_users USING (uid) GROUP BY uid) s',
  'SELECT 1, 400');
SELECT * FROM ps_compare(
  'SELECT 1, ANON_COUNT(*) FROM (SELECT COALESCE(u.uid, v.uid) AS who FROM ps_visits v FULL JOIN ps_users u ON v.uid = u.uid) s',
  'SELECT 1, 400');
SELECT * FROM ps_compare(
  'SELECT 1, ANON_COUNT(*) FROM (SELECT uid FROM ps_visits FULL JOIN ps_users USING (uid)) s JOIN ps_orders o USING (uid)',
  'SELECT 1, 51');
-- EXISTS within one user of a FULL JOIN row
SELECT * FROM ps_compare(
  'SELECT 1, ANON_COUNT(*) FROM ps_visits FULL JOIN ps_users USING (uid) AS j
   WHERE EXISTS (SELECT 1 FROM ps_orders o WHERE o.uid = j.uid)',
  'SELECT 1, 51');
-- the rewrite groups by COALESCE of both units
SELECT line FROM (SELECT trim(p) AS line FROM ps_plan(
  'SELECT ANON_COUNT(*) FROM ps_visits v FULL JOIN ps_users u ON v.uid = u.uid') p) l
WHERE line LIKE 'Group Key%' OR line LIKE '%Filter%';

-- ==== refused around FULL JOIN ====
-- not joined on the units, or a side without a unit: a row could have no user or two
SELECT ANON_COUNT(*) FROM ps_visits v FULL JOIN ps_users u ON v.pages = u.uid;
SELECT ANON_COUNT(*) FROM ps_visits v FULL JOIN ps_users u ON v.uid = u.uid OR v.pages = 1;
SELECT ANON_COUNT(*) FROM ps_visits v FULL JOIN ps_tags t ON t.tag = v.pages;
SELECT ANON_COUNT(*) FROM ps_visits v FULL JOIN (SELECT 1 AS x) s ON s.x = v.pages;
-- a subquery over a FULL JOIN must select the unit of every row, not one side's
SELECT ANON_COUNT(*) FROM (SELECT v.uid FROM ps_visits v FULL JOIN ps_users u ON v.uid = u.uid) s;
SELECT ANON_COUNT(*) FROM (SELECT COALESCE(v.uid, 0) AS who FROM ps_visits v FULL JOIN ps_users u ON v.uid = u.uid) s;
SELECT ANON_COUNT(*) FROM (SELECT v.uid, count(*) FROM ps_visits v FULL JOIN ps_users u ON v.uid = u.uid GROUP BY v.uid) s;
-- a FULL JOIN's ON clause joins nothing within one side (doc/rewriter.md, joins)
SELECT ANON_COUNT(*) FROM (ps_visits a CROSS JOIN ps_users b) FULL JOIN ps_orders c ON a.uid = c.uid AND b.uid = c.uid;

-- ==== 4. the unit selected under two names ====
SELECT * FROM ps_compare(
  'SELECT 1, ANON_COUNT(*) FROM (SELECT uid AS a, uid AS b FROM ps_visits) s JOIN ps_users u ON u.uid = s.b',
  'SELECT 1, 100');
SELECT * FROM ps_compare(
  'SELECT 1, ANON_COUNT(*) FROM (SELECT uid AS a, uid AS b FROM ps_visits) s JOIN ps_users u ON u.uid = s.a',
  'SELECT 1, 100');
SELECT * FROM ps_compare(
  'SELECT 1, ANON_COUNT(*) FROM (SELECT uid AS a, pages, uid AS b, count(*) FROM ps_visits GROUP BY b, pages) s
   JOIN ps_users u ON u.uid = s.b',
  'SELECT 1, 100');
-- in a set operation: the positions where every branch selects it
SELECT * FROM ps_compare(
  'SELECT 1, ANON_COUNT(*) FROM (SELECT uid AS a, uid AS b FROM ps_visits UNION SELECT pages, uid FROM ps_visits) s
   JOIN ps_users u ON u.uid = s.b',
  'SELECT 1, 100');
SELECT ANON_COUNT(*) FROM (SELECT uid AS a, uid AS b FROM ps_visits UNION SELECT pages, uid FROM ps_visits) s
JOIN ps_users u ON u.uid = s.a;
-- a copy computed from the unit is not the unit
SELECT ANON_COUNT(*) FROM (SELECT uid AS a, uid + 0 AS b FROM ps_visits) s JOIN ps_users u ON u.uid = s.b;

-- ==== 5. GROUP BY uid against SELECT t.uid ====
SELECT * FROM ps_compare(
  'SELECT 1, ANON_COUNT(*) FROM (SELECT t.uid, count(*) FROM ps_visits t GROUP BY uid) s',
  'SELECT 1, 300');
SELECT * FROM ps_compare(
  'SELECT 1, ANON_COUNT(*) FROM (SELECT t.uid, count(*) FROM ps_visits t JOIN ps_users USING (uid) GROUP BY uid) s',
  'SELECT 1, 100');
SELECT * FROM ps_compare(
  'SELECT 1, ANON_COUNT(*) FROM (SELECT uid, count(*) FROM ps_visits t JOIN ps_users USING (uid) GROUP BY t.uid) s',
  'SELECT 1, 100');
SELECT * FROM ps_compare(
  'SELECT n, ANON_COUNT(*) FROM (SELECT t.uid, count(*) AS n FROM ps_visits t GROUP BY 1) s GROUP BY n',
  'SELECT n, count(*) FROM (SELECT uid, count(*) AS n FROM ps_visits WHERE uid IS NOT NULL GROUP BY uid) s GROUP BY n');
-- grouped by the nullable side's unit as well: accepted; by it alone: not the unit of every row
SELECT ANON_COUNT(*) = 300 AS both_units FROM (SELECT t.uid, count(*) FROM ps_visits t LEFT JOIN ps_users u ON u.uid = t.uid GROUP BY u.uid, t.uid) s;
SELECT ANON_COUNT(*) FROM (SELECT u.uid, count(*) FROM ps_visits t LEFT JOIN ps_users u ON u.uid = t.uid GROUP BY u.uid) s;

-- ==== 6. subqueries over public data in GROUP BY ====
SELECT * FROM ps_compare(
  'SELECT (SELECT 1) AS k, ANON_COUNT(*) FROM ps_visits GROUP BY 1',
  'SELECT 1, 300');
SELECT * FROM ps_compare(
  'SELECT 1, ANON_COUNT(*) FROM ps_visits GROUP BY (SELECT 1)',
  'SELECT 1, 300');
SELECT * FROM ps_compare(
  'SELECT browser || (SELECT ''!''), ANON_COUNT(*) FROM ps_visits GROUP BY browser, (SELECT ''!'')',
  'SELECT browser || ''!'', count(DISTINCT uid) FROM ps_visits WHERE uid IS NOT NULL GROUP BY browser');
-- a lookup in a public table, correlated with the row
SELECT * FROM ps_compare(
  'SELECT (SELECT name FROM ps_tags WHERE tag = v.pages), ANON_COUNT(*) FROM ps_visits v GROUP BY 1',
  'SELECT name, count(DISTINCT uid) FROM ps_visits v LEFT JOIN ps_tags ON tag = pages WHERE uid IS NOT NULL GROUP BY name');
-- refused: a key reading private data, a subquery outside the keys
SELECT ANON_COUNT(*) FROM ps_visits GROUP BY (SELECT count(*) FROM ps_users);
SELECT (SELECT count(*) FROM ps_orders o WHERE o.uid = v.uid) AS n, ANON_COUNT(*) FROM ps_visits v GROUP BY 1;
SELECT browser, ANON_COUNT(*), (SELECT 1) FROM ps_visits GROUP BY browser;
SELECT browser, ANON_COUNT(*) FROM ps_visits GROUP BY browser HAVING ANON_COUNT(*) > (SELECT 0);
SELECT browser, ANON_COUNT(*) FROM ps_visits GROUP BY browser ORDER BY (SELECT 1);
SELECT ANON_SUM(pages, (SELECT 0), 10) FROM ps_visits;
SELECT ANON_SUM(pages + (SELECT 0), 0, 10) FROM ps_visits;

-- ==== the same shapes in an anonymized session ====
CREATE ROLE ps_analyst;
SECURITY LABEL FOR anon_dp ON ROLE ps_analyst IS 'anonymized';
GRANT SELECT ON ps_tags TO ps_analyst;
SELECT anon_dp_set_budget('ps_analyst', 1000000, 1) IS NOT NULL AS budget_set;
SET anon_dp.max_epsilon = 100000;
SET SESSION AUTHORIZATION ps_analyst;
SET anon_dp.epsilon = 100000;
SELECT bool_and(n BETWEEN 1 AND 300) AS unnest_ok FROM (SELECT t, ANON_COUNT(*) AS n FROM ps_visits, unnest(tags) t GROUP BY t) s;
SELECT count(*) = 3 AS constant_unnest_ok FROM (SELECT k, ANON_COUNT(*) FROM ps_visits, unnest('{1,2,3}'::int[]) k GROUP BY k) s;
SELECT ANON_COUNT(*) = 400 AS full_join_ok FROM ps_visits v FULL JOIN ps_users u USING (uid);
SELECT ANON_COUNT(*) = 100 AS two_names_ok FROM (SELECT uid AS a, uid AS b FROM ps_visits) s JOIN ps_users u ON u.uid = s.b;
SELECT ANON_COUNT(*) = 300 AS group_by_subquery_ok FROM ps_visits GROUP BY (SELECT 1);
SELECT ANON_COUNT(*) FROM ps_visits, generate_series(1, 2) g;
RESET SESSION AUTHORIZATION;
RESET anon_dp.max_epsilon;

DELETE FROM anon_dp_budgets WHERE role = 'ps_analyst'::regrole;
DROP OWNED BY ps_analyst;
DROP ROLE ps_analyst;
DROP FUNCTION ps_compare(text, text);
DROP FUNCTION ps_plan(text);
DROP SCHEMA ps_s CASCADE;
DROP VIEW ps_tag_rows;
DROP TABLE ps_visits, ps_users, ps_orders, ps_tags;
