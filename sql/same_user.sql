-- What counts as the same user (issue 19 items 1, 3, 4; issue 23 item 2;
-- doc/rewriter.md "Joins of private inputs"): private inputs are joined when
-- an equality of their privacy units, with the unit type's default btree
-- equality under a deterministic collation, is a conjunct (AND trees
-- flattened) of WHERE or of an inner join's ON clause; an outer join's ON
-- clause only attaches its nullable side to one component of its preserved
-- side.  Fixed-size samples of private tables are refused.
--
-- Each refused query below was accepted before and released rows of one
-- user under the name of many (the sensitivity fuzzer, tests/fuzz/run,
-- found them; doc/fuzz-report.md).  Accepted queries print properties of
-- the released rows at epsilon 1e6, never noise.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS anon_dp;
CREATE EXTENSION IF NOT EXISTS tsm_system_rows;
CREATE EXTENSION IF NOT EXISTS tsm_system_time;
RESET client_min_messages;
SET anon_dp.epsilon = 1000000;

-- 60 users, each with one row in su_users and two in su_orders; su_one public
CREATE TABLE su_users AS SELECT u AS uid, 'ssn' || u AS ssn, u % 3 AS grp FROM generate_series(1, 60) u;
CREATE TABLE su_orders AS SELECT u AS uid, k AS item FROM generate_series(1, 60) u, generate_series(1, 2) k;
CREATE TABLE su_one (x int);
INSERT INTO su_one VALUES (1);
SECURITY LABEL FOR anon_dp ON COLUMN su_users.uid IS 'privacy_unit';
SECURITY LABEL FOR anon_dp ON COLUMN su_orders.uid IS 'privacy_unit';
SECURITY LABEL FOR anon_dp ON TABLE su_one IS 'public';

-- 1. An equality of two preserved inputs' units in an outer join's ON clause
-- joins nothing: every user of a would carry user 42's row.
SELECT b.ssn, ANON_COUNT(*) FROM su_users a CROSS JOIN su_users b LEFT JOIN su_one ON a.uid = b.uid
WHERE b.uid = 42 GROUP BY b.ssn;
SELECT ANON_COUNT(*) FROM su_users a JOIN su_users b ON a.grp = b.grp LEFT JOIN su_one ON a.uid = b.uid;
-- ... inside a FROM subquery, a WITH query, a correlated EXISTS
SELECT ANON_COUNT(*) FROM (SELECT a.uid, b.ssn FROM su_users a CROSS JOIN su_users b
                           LEFT JOIN su_one ON a.uid = b.uid) s;
WITH s AS (SELECT a.uid FROM su_users a CROSS JOIN su_orders b LEFT JOIN su_one ON a.uid = b.uid)
SELECT ANON_COUNT(*) FROM s;
SELECT ANON_COUNT(*) FROM su_users u
WHERE EXISTS (SELECT 1 FROM su_orders a CROSS JOIN su_users b LEFT JOIN su_one ON a.uid = b.uid
              WHERE a.uid = u.uid AND b.grp = 1);
-- ... through a nullable third private input: c is attached to a and to b,
-- which the outer join does not join with each other
SELECT ANON_COUNT(*) FROM su_users a CROSS JOIN su_users b
LEFT JOIN su_orders c ON a.uid = c.uid AND b.uid = c.uid;
-- ... through a FULL JOIN, which keeps the unmatched rows of both sides: its
-- ON clause joins neither side's inputs with each other
SELECT ANON_COUNT(*) FROM su_users y
JOIN (su_one x FULL JOIN (su_orders b CROSS JOIN su_users c) ON b.uid = c.uid AND x.x = b.item)
  ON y.uid = b.uid;
SELECT ANON_COUNT(*) FROM su_users y JOIN (su_users a CROSS JOIN su_orders b
  FULL JOIN su_orders c ON a.uid = c.uid AND b.uid = c.uid) ON y.uid = a.uid;
SELECT ANON_COUNT(*) = 60 AS full_join_matched FROM su_users y
JOIN (su_orders b FULL JOIN su_orders c ON b.uid = c.uid AND b.item = c.item) ON y.uid = b.uid AND y.uid = c.uid;
-- what stays accepted: the nullable side attached to one preserved input
-- (TPC-H Q13), also through a chain, and preserved inputs joined in WHERE
SELECT ANON_COUNT(*) = 60 AS q13 FROM su_users u LEFT JOIN su_orders o ON o.uid = u.uid AND o.item = 1;
SELECT ANON_COUNT(*) = 60 AS chain FROM su_users u LEFT JOIN su_orders o ON o.uid = u.uid
LEFT JOIN su_orders p ON p.uid = o.uid AND p.item = o.item;
SELECT ANON_COUNT(*) = 60 AS where_joins FROM su_users a CROSS JOIN su_users b
LEFT JOIN su_orders c ON a.uid = c.uid AND b.uid = c.uid WHERE a.uid = b.uid;
SELECT ANON_COUNT(*) = 60 AS nullable_pair FROM su_users a
LEFT JOIN (su_orders b CROSS JOIN su_orders c) ON a.uid = b.uid AND b.uid = c.uid AND b.item < c.item;

-- 4. AND trees are flattened at any depth, in ON, WHERE and EXISTS
SELECT ANON_COUNT(*) = 60 AS right_nested_on FROM su_users a JOIN su_orders b
ON a.grp >= 0 AND (b.item = 1 AND a.uid = b.uid);
SELECT ANON_COUNT(*) = 60 AS right_nested_where FROM su_users a, su_orders b
WHERE a.grp >= 0 AND (b.item = 1 AND (true AND a.uid = b.uid));
SELECT ANON_COUNT(*) = 60 AS right_nested_exists FROM su_users u
WHERE EXISTS (SELECT 1 FROM su_orders o WHERE o.item = 2 AND (o.item > 0 AND o.uid = u.uid));
-- an equality under OR is no join
SELECT ANON_COUNT(*) FROM su_users a JOIN su_orders b ON (a.uid = b.uid OR b.item = 1);

-- issue 23 item 2: an operator named = that is not the type's equality
CREATE SCHEMA su_ops;
CREATE FUNCTION su_ops.always(int, int) RETURNS bool LANGUAGE sql IMMUTABLE AS 'SELECT true';
CREATE OPERATOR su_ops.= (LEFTARG = int, RIGHTARG = int, FUNCTION = su_ops.always);
SELECT ANON_COUNT(*) FROM su_users a JOIN su_orders b ON a.uid OPERATOR(su_ops.=) b.uid;
SELECT ANON_COUNT(*) FROM su_users a, su_orders b WHERE a.uid OPERATOR(su_ops.=) b.uid;
SELECT ANON_COUNT(*) FROM su_users u
WHERE EXISTS (SELECT 1 FROM su_orders o WHERE o.uid OPERATOR(su_ops.=) u.uid);
-- ... also when it is found by name: USING and NATURAL JOIN with su_ops
-- ahead of pg_catalog on the search path
CREATE TABLE su_orders2 AS SELECT uid, item AS item2 FROM su_orders;
SECURITY LABEL FOR anon_dp ON COLUMN su_orders2.uid IS 'privacy_unit';
SET search_path = su_ops, pg_catalog, public;
SELECT ANON_COUNT(*) FROM su_users JOIN su_orders2 USING (uid);
SELECT ANON_COUNT(*) FROM su_users NATURAL JOIN su_orders2;
RESET search_path;
SELECT ANON_COUNT(*) = 60 AS using_equality FROM su_users JOIN su_orders2 USING (uid);

-- issue 23 item 2: text units and collations.  Users 'u1' and 'U1' are two
-- users; a comparison under a case-insensitive collation joins them.
CREATE COLLATION su_ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
CREATE TABLE su_tu AS SELECT (CASE WHEN u % 2 = 0 THEN 'u' ELSE 'U' END) || (u / 2) AS uid, u AS n
FROM generate_series(0, 59) u;
CREATE TABLE su_tv AS SELECT uid, n % 5 AS g FROM su_tu;
SECURITY LABEL FOR anon_dp ON COLUMN su_tu.uid IS 'privacy_unit';
SECURITY LABEL FOR anon_dp ON COLUMN su_tv.uid IS 'privacy_unit';
-- COLLATE on one side: a nondeterministic collation is refused, a
-- deterministic one compares the bytes (the same users) and is accepted
SELECT ANON_COUNT(*) FROM su_tu a JOIN su_tv b ON a.uid = b.uid COLLATE su_ci;
SELECT ANON_COUNT(*) FROM su_tu a JOIN su_tv b ON a.uid COLLATE su_ci = b.uid;
SELECT ANON_COUNT(*) FROM su_tu a WHERE EXISTS (SELECT 1 FROM su_tv b WHERE b.uid = a.uid COLLATE su_ci);
SELECT ANON_COUNT(*) = 60 AS collate_c FROM su_tu a JOIN su_tv b ON a.uid = b.uid COLLATE "C";
SELECT ANON_COUNT(*) = 60 AS exists_collate_c FROM su_tu a
WHERE EXISTS (SELECT 1 FROM su_tv b WHERE b.uid COLLATE "POSIX" = a.uid AND b.g >= 0);
-- column collations: both unit columns case-insensitive
CREATE TABLE su_tci (uid text COLLATE su_ci, g int);
CREATE TABLE su_tci2 (uid text COLLATE su_ci, h int);
INSERT INTO su_tci SELECT uid, n FROM su_tu;
INSERT INTO su_tci2 SELECT uid, n FROM su_tu;
SECURITY LABEL FOR anon_dp ON COLUMN su_tci.uid IS 'privacy_unit';
SECURITY LABEL FOR anon_dp ON COLUMN su_tci2.uid IS 'privacy_unit';
SELECT ANON_COUNT(*) FROM su_tci a JOIN su_tci2 b ON a.uid = b.uid;
SELECT ANON_COUNT(*) FROM su_tci a JOIN su_tci2 b USING (uid);
-- (joined under "C"; the per-user aggregation groups the units by the
-- column's own collation, so 'u1' and 'U1' are counted as one unit: 30)
SELECT ANON_COUNT(*) = 30 AS column_ci_under_c FROM su_tci a JOIN su_tci2 b ON a.uid = b.uid COLLATE "C";
-- domains over text: a cast to a domain is no unit column (and a domain's
-- collation would be the comparison's)
CREATE DOMAIN su_ci_text AS text COLLATE su_ci;
CREATE DOMAIN su_plain_text AS text;
SELECT ANON_COUNT(*) FROM su_tu a JOIN su_tv b ON a.uid::su_ci_text = b.uid;
SELECT ANON_COUNT(*) FROM su_tu a JOIN su_tv b ON a.uid::su_plain_text = b.uid::su_plain_text;
SELECT ANON_COUNT(*) FROM (SELECT uid::su_ci_text AS uid FROM su_tu) a JOIN su_tv b ON a.uid = b.uid;

-- 3. fixed-size samples of a private table: one user's rows push other
-- users' rows out
SELECT ANON_COUNT(*) FROM su_orders TABLESAMPLE system_rows(20);
SELECT ANON_COUNT(*) FROM su_orders TABLESAMPLE system_time(100);
SELECT ANON_COUNT(*) FROM (SELECT uid FROM su_orders TABLESAMPLE system_rows(20)) s;
CREATE VIEW su_sampled AS SELECT uid FROM su_orders TABLESAMPLE system_rows(20);
SELECT ANON_COUNT(*) FROM su_sampled;
DROP VIEW su_sampled;
SELECT ANON_COUNT(*) FROM su_users u WHERE EXISTS (SELECT 1 FROM su_orders o TABLESAMPLE system_rows(5) WHERE o.uid = u.uid);
-- accepted: per-row and per-block samples, per-user reservoirs, and any
-- method on a public table
SELECT ANON_COUNT(*) <= 60 AS bernoulli FROM su_orders TABLESAMPLE bernoulli(50);
SELECT ANON_COUNT(*) <= 60 AS system FROM su_orders TABLESAMPLE system(50) REPEATABLE (1);
SELECT ANON_COUNT(*) = 60 AS reservoir FROM su_orders TABLESAMPLE anon_reservoir(1);
SELECT ANON_COUNT(*) = 60 AS public_rows FROM su_users, su_one TABLESAMPLE system_rows(1);

DROP TABLE su_users, su_orders, su_orders2, su_one, su_tu, su_tv, su_tci, su_tci2;
DROP DOMAIN su_ci_text, su_plain_text;
DROP COLLATION su_ci;
DROP SCHEMA su_ops CASCADE;
