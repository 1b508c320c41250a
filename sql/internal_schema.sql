-- internal_schema: what anon_dp shows the users of a database, and its
-- schema of internals (doc/functions.md, "Where the functions live").  As an
-- anonymized role with the default search path, \df lists the ANON_*
-- aggregates and the functions analysts and data owners call, nothing else
-- of anon_dp; the rewriter emits the functions of anon_dp_internal, found as
-- the extension's members, never a look-alike an analyst made; the extension
-- in another schema than public; a database whose objects are still at 1.0.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS anon_dp;
RESET client_min_messages;
SET anon_dp.epsilon = 1.0;
SET anon_dp.delta = 1e-10;   -- a one-user group is never released

CREATE TABLE is_rows (uid int, g text);
-- 'big': 300 users; 'solo_1' .. 'solo_40': one user each (never released)
INSERT INTO is_rows SELECT u, 'big' FROM generate_series(1, 300) u;
INSERT INTO is_rows SELECT 1000 + s, 'solo_' || s FROM generate_series(1, 40) s, generate_series(1, 5) r;
SECURITY LABEL FOR anon_dp ON COLUMN is_rows.uid IS 'privacy_unit';
CREATE ROLE is_analyst;
SECURITY LABEL FOR anon_dp ON ROLE is_analyst IS 'anonymized';
CREATE SCHEMA is_own AUTHORIZATION is_analyst;

-- the extension's functions by schema: the extension's own (here public) and
-- anon_dp_internal, which is the extension's member; every role may use it
-- (postgres_fdw's shards and DBAs call its functions qualified), none but its
-- owner create in it
CREATE VIEW is_members AS
SELECT p.oid, p.proname, p.prokind, n.nspname
FROM pg_proc p
JOIN pg_namespace n ON n.oid = p.pronamespace
JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'anon_dp';
GRANT SELECT ON is_members TO is_analyst;
SELECT DISTINCT nspname AS schema FROM is_members ORDER BY 1;
SELECT pg_describe_object(d.classid, d.objid, 0) AS member_schema
FROM pg_depend d JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'anon_dp'
WHERE d.classid = 'pg_namespace'::regclass AND d.deptype = 'e';
SELECT has_schema_privilege('is_analyst', 'anon_dp_internal', 'USAGE') AS analyst_usage,
       has_schema_privilege('is_analyst', 'anon_dp_internal', 'CREATE') AS analyst_create,
       has_schema_privilege('public', 'anon_dp_internal', 'USAGE') AS public_usage;

-- ==== as the analyst, with the default search path ====
SET SESSION AUTHORIZATION is_analyst;
SHOW search_path;
-- \df: the extension's functions the analyst sees (pg_function_is_visible)
SELECT proname AS name, CASE prokind WHEN 'a' THEN 'agg' ELSE 'func' END AS type,
       count(*) AS overloads
FROM is_members WHERE pg_function_is_visible(oid)
GROUP BY 1, 2 ORDER BY 1, 2;
-- the others are all in anon_dp_internal
SELECT count(*) > 100 AS many_hidden, bool_and(nspname = 'anon_dp_internal') AS all_internal
FROM is_members WHERE NOT pg_function_is_visible(oid);
-- the type and the relations analysts and data owners read
SELECT 'anon_dp_interval'::regtype AS type, 'anon_dp_budget'::regclass AS view,
       'anon_dp_budgets'::regclass AS budgets, 'anon_dp_ledger'::regclass AS ledger;
-- what analysts call works as before
SELECT g, ANON_COUNT(*) > 200 AS many_users FROM is_rows GROUP BY g ORDER BY g;
SELECT count(*) AS releases FROM anon_dp_explain('SELECT g, ANON_COUNT(*) FROM is_rows GROUP BY g');
SELECT anon_dp_access_level() AS level, anon_dp_tau(1, 1e-5, 1) > 1 AS tau;
-- a building block is not on the path; called qualified, it is refused as before
SELECT dp_count(1::int8, 1, 1.0, 1);
SELECT anon_dp_internal.dp_count(1::int8, 1, 1.0, 1);
SELECT anon_dp_internal.anon_dp_pick(anon_dp_internal.anon_dp_random_key(), 1, 1::int8);

-- ==== look-alikes the analyst makes in a schema of its own, first on its path ====
SET search_path = is_own, public;
-- a partition selection that always selects, and a secret the analyst knows
CREATE FUNCTION is_own.huge(int8, float8, float8, int8) RETURNS int8
LANGUAGE sql AS 'SELECT 1000000::int8';
CREATE FUNCTION is_own.huge(int8, float8, float8, int8, text) RETURNS int8
LANGUAGE sql AS 'SELECT 1000000::int8';
CREATE FUNCTION is_own.yes(int8) RETURNS bool LANGUAGE sql AS 'SELECT true';
CREATE AGGREGATE is_own.dp_partition_count(float8, float8, int8) (SFUNC = is_own.huge, STYPE = int8);
CREATE AGGREGATE is_own.dp_partition_select(float8, float8, int8, text) (
    SFUNC = is_own.huge, STYPE = int8, FINALFUNC = is_own.yes);
CREATE FUNCTION is_own.anon_dp_bounding_secret() RETURNS bytea
LANGUAGE sql AS $$SELECT '\x00000000000000000000000000000000'::bytea$$;
-- an ANON_* name of its own is an ordinary aggregate: no anonymization
-- query, so the private table is refused
CREATE AGGREGATE is_own.anon_count(*) (SFUNC = int8inc, STYPE = int8, INITCOND = '0');
SELECT g, ANON_COUNT(*) FROM is_rows GROUP BY g;
-- the extension's ANON_COUNT: the one-user groups stay suppressed
SELECT count(*) AS released, bool_or(g = 'big') AS big_released
FROM (SELECT g, public.ANON_COUNT(*) FROM is_rows GROUP BY g) r;
SELECT count(*) AS released, bool_or(g = 'big') AS big_released
FROM (SELECT g, public.ANON_COUNT(*), public.ANON_SUM(uid, 0, 10) FROM is_rows GROUP BY g) r;
RESET SESSION AUTHORIZATION;
RESET search_path;

-- the plans name the extension's functions only, qualified: the look-alikes
-- on the path (which a plan would print unqualified) are never emitted
CREATE FUNCTION is_calls(query text, OUT internal_calls int, OUT unqualified_calls int,
                         OUT look_alikes int) LANGUAGE plpgsql AS $$
DECLARE line text;
BEGIN
  internal_calls := 0; unqualified_calls := 0; look_alikes := 0;
  FOR line IN EXECUTE 'EXPLAIN (VERBOSE, COSTS OFF) ' || query LOOP
    internal_calls := internal_calls + (SELECT count(*) FROM regexp_matches(line, 'anon_dp_internal\.\w+\(', 'g'));
    unqualified_calls := unqualified_calls +
      (SELECT count(*) FROM regexp_matches(line, '(^|[^.\w])(dp_\w+|anon_dp_bounding_secret)\(', 'g'));
    look_alikes := look_alikes + (SELECT count(*) FROM regexp_matches(line, 'is_own\.', 'g'));
  END LOOP;
END $$;
SET search_path = is_own, public;
SELECT internal_calls > 0 AS internal_calls, unqualified_calls, look_alikes
FROM is_calls('SELECT g, public.ANON_COUNT(*) FROM is_rows GROUP BY g');
-- C_u = 2: a separate partition selection (dp_partition_select)
SET anon_dp.max_groups_contributed = 2;
SELECT internal_calls > 0 AS internal_calls, unqualified_calls, look_alikes
FROM is_calls('SELECT g, public.ANON_SUM(uid, 0, 10) FROM is_rows GROUP BY g');
RESET anon_dp.max_groups_contributed;
-- control: a call of the look-alike itself shows unqualified
SELECT internal_calls, unqualified_calls, look_alikes
FROM is_calls('SELECT dp_partition_count(1, 1e-5, 1) FROM is_rows');
RESET search_path;
DROP FUNCTION is_calls(text);
SET client_min_messages = warning;
DROP SCHEMA is_own CASCADE;
RESET client_min_messages;

-- ==== another database: the extension in a schema of its own, then at 1.0 ====
\set regression_database :DBNAME
CREATE DATABASE anon_dp_internal_schema;
\c anon_dp_internal_schema
SET client_min_messages = warning;
CREATE SCHEMA dp;
CREATE EXTENSION anon_dp SCHEMA dp;
RESET client_min_messages;
CREATE TABLE v (uid int, g text);
INSERT INTO v SELECT u, 'g' || u % 2 FROM generate_series(1, 400) u;
SECURITY LABEL FOR anon_dp ON COLUMN v.uid IS 'privacy_unit';
-- the users' functions in dp, the internals in anon_dp_internal
SELECT n.nspname AS schema, bool_or(p.proname = 'anon_count') AS anon_count,
       bool_or(p.proname = 'anon_dp_explain') AS anon_dp_explain, bool_or(p.proname = 'dp_count') AS dp_count,
       bool_or(p.proname = 'anon_dp_bound_partitions') AS anon_dp_bound_partitions
FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
WHERE n.nspname IN ('dp', 'anon_dp_internal') GROUP BY 1 ORDER BY 1;
SET search_path = public, dp;
SELECT g, ANON_COUNT(*) > 150 AS many_users FROM v GROUP BY g ORDER BY g;
SELECT ANON_SUM(uid, 0, 400) > 0 AS sum_runs FROM v TABLESAMPLE anon_reservoir(1);
RESET search_path;

-- at 1.0, with a look-alike schema of internals made before the update: the
-- library refuses anonymization, and the analyst's catalog reads, without
-- using the look-alike (its statistics function would show every relation's size)
DROP EXTENSION anon_dp;
CREATE EXTENSION anon_dp VERSION '1.0';
CREATE SCHEMA anon_dp_internal;
CREATE FUNCTION anon_dp_internal.anon_dp_statistics_visible(oid) RETURNS bool
LANGUAGE sql AS 'SELECT true';
SELECT ANON_COUNT(*) FROM v;
CREATE ROLE is_old_analyst;
SECURITY LABEL FOR anon_dp ON ROLE is_old_analyst IS 'anonymized';
SET SESSION AUTHORIZATION is_old_analyst;
SELECT reltuples FROM pg_class WHERE relname = 'v';
RESET SESSION AUTHORIZATION;
-- the update stops at the schema it did not create; without it, it runs
ALTER EXTENSION anon_dp UPDATE;
DROP FUNCTION anon_dp_internal.anon_dp_statistics_visible(oid);
DROP SCHEMA anon_dp_internal;
ALTER EXTENSION anon_dp UPDATE;
SELECT extversion FROM pg_extension WHERE extname = 'anon_dp';
SELECT g, ANON_COUNT(*) > 150 AS many_users FROM v GROUP BY g ORDER BY g;
SET SESSION AUTHORIZATION is_old_analyst;
SELECT reltuples FROM pg_class WHERE relname = 'v';
RESET SESSION AUTHORIZATION;
DROP ROLE is_old_analyst;

\c :regression_database
DROP DATABASE anon_dp_internal_schema WITH (FORCE);
DROP VIEW is_members;
DROP TABLE is_rows;
DROP ROLE is_analyst;
