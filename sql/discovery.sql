-- Discovery through the standard interfaces (issue 32, item 4; doc/access.md,
-- "Discovery"): an anonymized role finds the private tables it may query in
-- information_schema and through has_*_privilege, the empty probes of BI
-- tools (Metabase's SELECT TRUE FROM t WHERE 1 <> 1 LIMIT 0) return their
-- columns and no row, and the statistics views show public tables and mask
-- private ones row by row -- without any privilege on the private tables:
-- every read is still refused, and PostgreSQL's own answers come back in a
-- session that is not anonymized (and without the library: tests/preload/run).
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS anon_dp;
RESET client_min_messages;

CREATE TABLE dis_visits (uid int, browser text, d float8, note text);
INSERT INTO dis_visits SELECT u % 300, (ARRAY['a', 'b', 'c'])[1 + u % 3], u % 600, 'secret ' || u
FROM generate_series(1, 3000) u;
CREATE INDEX dis_visits_uid ON dis_visits (uid);
ALTER TABLE dis_visits DROP COLUMN note;     -- a dropped column keeps its place
ALTER TABLE dis_visits ADD COLUMN pages int DEFAULT 1;
SECURITY LABEL FOR anon_dp ON COLUMN dis_visits.uid IS 'privacy_unit';
CREATE TABLE dis_browsers (name text PRIMARY KEY, vendor text);
INSERT INTO dis_browsers VALUES ('a', 'A Inc.'), ('b', 'B Ltd.'), ('c', 'C GmbH');
SECURITY LABEL FOR anon_dp ON TABLE dis_browsers IS 'public';
CREATE TABLE dis_notes (id int, note text);  -- unlabelled: not for analysts
CREATE ROLE dis_analyst;
SECURITY LABEL FOR anon_dp ON ROLE dis_analyst IS 'anonymized';
GRANT SELECT ON dis_browsers TO dis_analyst;
SELECT anon_dp_set_budget('dis_analyst', 100, 1e-3);
ANALYZE dis_visits, dis_browsers;
VACUUM dis_visits, dis_browsers;	-- sets their freeze horizons
-- pg_class's own planner statistics hold every table's reltuples and relpages
-- (autovacuum analyzes pg_class; an analyst can make it run by churning
-- temporary tables)
ANALYZE pg_class;
SELECT count(*) > 0 AS sizes_in_pg_class_statistics FROM pg_stats
WHERE tablename = 'pg_class' AND attname IN ('reltuples', 'relpages');
SELECT count(*) FROM dis_browsers;
SELECT pg_stat_force_next_flush();
-- a DBA's view that decides by has_table_privilege keeps PostgreSQL's answer
CREATE VIEW dis_dba_view AS SELECT name FROM dis_browsers WHERE has_table_privilege('dis_visits', 'SELECT');
GRANT SELECT ON dis_dba_view TO dis_analyst;
-- an immutable function that is not built in (says when it runs)
CREATE FUNCTION dis_says(x int) RETURNS bool IMMUTABLE LANGUAGE plpgsql AS $$
BEGIN RAISE NOTICE 'dis_says ran with %', x; RETURN false; END $$;
-- the lines of a plan (run by the analyst, with its rights)
CREATE FUNCTION dis_plan_lines(query text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE line text;
BEGIN FOR line IN EXECUTE 'EXPLAIN (COSTS OFF, VERBOSE) ' || query LOOP RETURN NEXT line; END LOOP; END $$;

SET SESSION AUTHORIZATION dis_analyst;

-- ==== information_schema ====
-- the private table is listed (it may be queried through anonymization
-- queries), the public one as before, the unlabelled one not
SELECT table_name, table_type FROM information_schema.tables
WHERE table_schema = 'public' AND table_name LIKE 'dis\_%' ORDER BY 1;
SELECT table_name, column_name, ordinal_position, data_type FROM information_schema.columns
WHERE table_schema = 'public' AND table_name IN ('dis_visits', 'dis_notes') ORDER BY 1, 3;
-- its own views over information_schema too (answered at planning)
CREATE TEMP VIEW dis_my_tables AS
SELECT table_name FROM information_schema.tables WHERE table_name LIKE 'dis\_v%';
SELECT * FROM dis_my_tables;

-- ==== has_*_privilege: SELECT through anonymization queries, nothing else ====
SELECT has_table_privilege('dis_visits', 'SELECT') AS by_name,
       has_table_privilege('dis_visits'::regclass, 'select') AS by_oid,
       has_table_privilege('dis_visits', ' Select , INSERT') AS in_a_list,
       has_table_privilege('dis_visits', 'INSERT') AS insert,
       has_table_privilege('dis_visits', 'SELECT WITH GRANT OPTION') AS grant_option,
       has_table_privilege('dis_notes', 'SELECT') AS unlabelled,
       has_table_privilege('dis_browsers', 'SELECT') AS public;
SELECT has_column_privilege('dis_visits', 'uid', 'SELECT') AS column_by_name,
       has_column_privilege('dis_visits'::regclass, 2::int2, 'SELECT') AS column_by_number,
       has_column_privilege('dis_visits', 'd', 'UPDATE') AS column_update,
       has_any_column_privilege('dis_visits', 'SELECT') AS any_column,
       has_any_column_privilege('dis_notes', 'SELECT') AS any_column_unlabelled;
-- the answer lends nothing: reads are refused as before
SELECT * FROM dis_visits LIMIT 1;
SELECT count(*) FROM dis_visits;
-- a DBA's view keeps PostgreSQL's answer (no privilege: no row)
SELECT count(*) AS dba_view_rows FROM dis_dba_view;
-- the functions behind the answers are not for analysts
-- (internal: not on the search path, refused qualified)
SELECT anon_dp_queryable('dis_visits'::regclass, 'SELECT');
SELECT anon_dp_internal.anon_dp_queryable('dis_visits'::regclass, 'SELECT');
SELECT anon_dp_internal.anon_dp_masked_statistic('pg_stat_get_live_tuples'::regproc, 'dis_browsers'::regclass, NULL::bigint);
-- nor inside an anonymization query (a catalog lookup by a value)
SELECT ANON_COUNT(*) FROM dis_visits WHERE has_table_privilege('dis_visits', 'SELECT');

-- ==== empty probes: the columns, no row, nothing of the table read ====
-- Metabase's privilege probe, older and newer form
SELECT TRUE FROM "public"."dis_visits" WHERE 1 <> 1 LIMIT 0;
SELECT TRUE AS "_" FROM "public"."dis_visits" WHERE 1 <> 1 LIMIT 0;
-- QGIS asks by quoted name
SELECT has_table_privilege('"public"."dis_visits"', 'select') AS quoted_name;
SELECT * FROM dis_visits WHERE false;
SELECT * FROM dis_visits WHERE 1 = 0 \gdesc
SELECT uid, pages FROM dis_visits LIMIT 0;
SELECT v.uid, b.vendor FROM dis_visits v JOIN dis_browsers b ON b.name = v.browser WHERE 1 = 0;
SELECT * FROM dis_visits WHERE NULL ORDER BY d;
-- a BI tool's metadata probe of its wrapped custom SQL: the anonymization
-- query inside is read empty, so it neither runs nor is charged
SELECT releases AS releases_before FROM anon_dp_budget \gset
SELECT * FROM (SELECT browser, ANON_COUNT(*) AS users FROM dis_visits GROUP BY browser) "Custom SQL Query" LIMIT 0;
SELECT * FROM (SELECT browser, ANON_COUNT(*) AS users FROM dis_visits GROUP BY browser) q WHERE 1 = 0 \gdesc
SELECT releases = :releases_before AS nothing_charged FROM anon_dp_budget;
-- a wrapped query whose window or sort keys are unnamed entries (sqlsmith
-- found the backend crashing on them): read empty as well
SELECT w.c0 FROM (SELECT sum(v.pages) OVER (PARTITION BY v.uid ORDER BY v.d) AS c0 FROM dis_visits v) w WHERE NULL::timetz <= NULL::timetz LIMIT 141;
SELECT q.c0 FROM (SELECT v.uid AS c0 FROM dis_visits v ORDER BY v.d + 1) q WHERE false;
-- (an aggregate over it is no probe: it runs, on released rows)
SELECT count(*) AS browsers FROM (SELECT browser, ANON_COUNT(*) AS users FROM dis_visits GROUP BY browser) q LIMIT 0;
SELECT releases > :releases_before AS charged FROM anon_dp_budget;
-- not empty probes, refused as any read of the table: an aggregate, a
-- condition that is not constant, a row lock, a system column, a whole row,
-- a sample, a subquery expression, a WITH query, a set operation, a LIMIT
-- that is not 0, a parameter, an unlabelled table
SELECT count(*) FROM dis_visits WHERE 1 <> 1;
SELECT * FROM dis_visits WHERE 1 <> 1 OR uid = 42;
SELECT * FROM dis_visits WHERE false FOR UPDATE;
SELECT ctid FROM dis_visits WHERE false;
SELECT v FROM dis_visits v WHERE false;
SELECT * FROM dis_visits TABLESAMPLE SYSTEM (50) WHERE false;
SELECT (SELECT max(uid) FROM dis_visits) FROM dis_visits WHERE false;
WITH w AS (SELECT * FROM dis_visits) SELECT * FROM w WHERE false;
SELECT uid FROM dis_visits WHERE false UNION ALL SELECT uid FROM dis_visits WHERE false;
SELECT * FROM dis_visits LIMIT 1;
PREPARE dis_limit(bigint) AS SELECT * FROM dis_visits LIMIT $1;
SELECT * FROM dis_notes WHERE false;
-- a condition folded only when everything it calls is built in: a function
-- that is not runs before the guard in no probe (no NOTICE), and the
-- statement is refused as a read; with LIMIT 0 it is a probe, its condition
-- is left to the guard
SELECT * FROM dis_visits WHERE dis_says(1);
SELECT uid FROM dis_visits WHERE dis_says(2) LIMIT 0;
-- an anonymization query is still one
SELECT ANON_COUNT(*) > 0 AS counted FROM dis_visits WHERE d >= 0;

-- ==== statistics views: public tables shown, private ones masked row by row ====
-- what writes and maintenance move is shown for the public table; what
-- reads move (scans, rows read, blocks, dead rows) is NULL for every table
SELECT relname, n_live_tup > 0 AS live_shown, n_tup_ins, last_analyze IS NOT NULL AS analyze_shown,
       analyze_count, seq_scan, seq_tup_read, idx_scan, n_dead_tup, autovacuum_count
FROM pg_stat_user_tables WHERE relname LIKE 'dis\_%' ORDER BY 1;
SELECT relname, heap_blks_read IS NOT NULL AS blocks_shown FROM pg_statio_user_tables
WHERE relname LIKE 'dis\_%' ORDER BY 1;
SELECT relname, indexrelname, idx_scan IS NOT NULL AS scans_shown FROM pg_stat_user_indexes
WHERE relname LIKE 'dis\_%' ORDER BY 1;
SELECT relname, n_tup_ins IS NOT NULL AS shown FROM pg_stat_xact_user_tables
WHERE relname LIKE 'dis\_%' ORDER BY 1;
SELECT count(*) > 0 AS catalogs_shown FROM pg_stat_sys_tables WHERE n_live_tup IS NOT NULL;
-- planner statistics: the public table's rows, none of the private one's
SELECT tablename, attname, n_distinct FROM pg_stats WHERE tablename LIKE 'dis\_%' ORDER BY 1, 2;
SELECT count(*) AS extended_rows FROM pg_stats_ext WHERE tablename LIKE 'dis\_%';
-- no planner statistics of catalogs: pg_class's would give the sizes of
-- private tables that pg_class itself masks
SELECT count(*) AS catalog_planner_statistics FROM pg_stats WHERE schemaname = 'pg_catalog';
SELECT count(*) AS pg_class_sizes FROM pg_stats
WHERE tablename = 'pg_class' AND attname IN ('reltuples', 'relpages', 'relallvisible');
SELECT count(*) AS catalog_extended FROM pg_stats_ext WHERE schemaname = 'pg_catalog';
-- the catalogs that hold planner statistics (their sizes follow the values of
-- private columns), their TOAST tables and indexes: sizes masked like a
-- private table's; other catalogs' shown
SELECT c.relname, c.reltuples, c.relpages, pg_relation_size(c.oid) AS size,
       s.n_live_tup, s.n_tup_ins
FROM pg_class c LEFT JOIN pg_stat_sys_tables s ON s.relid = c.oid
WHERE c.oid IN ('pg_statistic'::regclass, 'pg_statistic_ext_data'::regclass,
                'pg_statistic_relid_att_inh_index'::regclass,
                (SELECT reltoastrelid FROM pg_class WHERE oid = 'pg_statistic'::regclass))
ORDER BY c.oid;
SELECT reltuples > 0 AS shown, pg_relation_size(oid) > 0 AS size_shown FROM pg_class
WHERE oid = 'pg_attribute'::regclass;
-- the freeze horizons of a private table: after a VACUUM, the transaction that
-- wrote its oldest row still unfrozen (they move when that row is deleted);
-- masked as 0, shown for the public table
SELECT relname, relfrozenxid <> '0'::xid AS frozenxid_shown, relminmxid <> '0'::xid AS minmxid_shown
FROM pg_class WHERE relname IN ('dis_visits', 'dis_browsers', 'dis_notes') ORDER BY 1;
-- the plan calls no counter itself: the shown ones through
-- anon_dp_masked_statistic, the others are NULL constants
SELECT count(*) AS masked_counters FROM dis_plan_lines('SELECT n_live_tup, seq_scan FROM pg_stat_user_tables') l
WHERE l LIKE '%anon_dp_masked_statistic(''2878''::oid, c.oid, NULL::bigint)%';
SELECT count(*) AS counters_called FROM dis_plan_lines('SELECT * FROM pg_stat_all_tables') l
WHERE l LIKE '%pg\_stat\_get\_%';
SELECT count(*) AS visible_rows_only FROM dis_plan_lines('SELECT * FROM pg_stats') l
WHERE l LIKE '%anon_dp_statistics_visible(s.starelid)%';
-- xmax (and cmax, which shares its storage) of any relation: a row's xmax is
-- the transaction that last locked it, and inserting a private row locks the
-- public row its foreign key references (red team: which products a user's
-- basket held, grouped by transaction); the table's own columns still read
SELECT count(*) FROM dis_browsers WHERE xmax <> '0';
SELECT xmax, name FROM dis_browsers;
SELECT cmax FROM dis_browsers;
SELECT * FROM (SELECT xmax AS x FROM dis_browsers) s;
SELECT count(*) > 0 AS own_columns, min(xmin::text) IS NOT NULL AS xmin_read FROM dis_browsers;
-- ... and the row lock itself: while a writer's transaction inserts a private
-- row, a lock of the analyst's on the public row it references waits or is
-- skipped (red team: FOR UPDATE SKIP LOCKED listed every code but the one a
-- patient being admitted had).  No row lock, UPDATE or DELETE of a table that
-- private rows reference, whatever the analyst's privileges
RESET SESSION AUTHORIZATION;
CREATE TABLE dis_codes (code text PRIMARY KEY, label text);
INSERT INTO dis_codes VALUES ('D1', 'one'), ('D2', 'two');
SECURITY LABEL FOR anon_dp ON TABLE dis_codes IS 'public';
CREATE TABLE dis_admissions (uid int, code text REFERENCES dis_codes);
SECURITY LABEL FOR anon_dp ON COLUMN dis_admissions.uid IS 'privacy_unit';
GRANT SELECT, UPDATE, DELETE, TRUNCATE ON dis_codes TO dis_analyst;
GRANT UPDATE ON dis_browsers TO dis_analyst;
CREATE VIEW dis_codes_view AS SELECT * FROM dis_codes;
GRANT SELECT, UPDATE ON dis_codes_view TO dis_analyst;
SET SESSION AUTHORIZATION dis_analyst;
SELECT code FROM dis_codes FOR UPDATE SKIP LOCKED;
SELECT code FROM dis_codes WHERE code = 'D1' FOR KEY SHARE NOWAIT;
SELECT code FROM dis_codes_view FOR SHARE;
UPDATE dis_codes SET label = label WHERE code = 'D1';
DELETE FROM dis_codes WHERE code = 'D2';
-- a table lock waits for the writer's lock too (whether a row is being written)
BEGIN;
LOCK TABLE dis_codes IN EXCLUSIVE MODE NOWAIT;
ROLLBACK;
TRUNCATE dis_codes;
SELECT count(*) AS read_without_locks FROM dis_codes;
-- a public table that no private row references: locked as PostgreSQL allows
SELECT count(*) AS locked FROM (SELECT name FROM dis_browsers FOR UPDATE) s;
-- a SERIALIZABLE transaction: the anonymization query's predicate locks would
-- record the rows it read (through private values), and another session's
-- write to one of them would fail this transaction at COMMIT, outside the query
BEGIN ISOLATION LEVEL SERIALIZABLE;
SELECT ANON_COUNT(*) > -1000 AS released FROM dis_visits;
ROLLBACK;
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT ANON_COUNT(*) > -1000 AS released FROM dis_visits;
COMMIT;
RESET SESSION AUTHORIZATION;
DROP VIEW dis_codes_view;
DROP TABLE dis_admissions, dis_codes;
REVOKE UPDATE ON dis_browsers FROM dis_analyst;
SET SESSION AUTHORIZATION dis_analyst;
-- still refused: the catalogs and functions behind them, other statistics views
SELECT count(*) FROM pg_statistic;
SELECT pg_stat_get_live_tuples('dis_visits'::regclass);
SELECT calls FROM pg_stat_user_functions;
SELECT tup_returned FROM pg_stat_database;

RESET SESSION AUTHORIZATION;

-- ==== a session that is not anonymized: PostgreSQL's answers ====
SELECT has_table_privilege('dis_analyst', 'dis_visits', 'SELECT') AS analyst_holds_select,
       has_table_privilege('dis_visits', 'SELECT') AS owner_select;
SELECT anon_dp_internal.anon_dp_queryable('dis_visits'::regclass, 'SELECT') AS queryable_outside;
-- the masked statistic called by hand: a shown counter of a public table, of
-- the private one NULL; no other function, no other result type
SELECT anon_dp_internal.anon_dp_masked_statistic('pg_stat_get_tuples_inserted'::regproc, 'dis_browsers'::regclass, NULL::bigint) AS public_inserted,
       anon_dp_internal.anon_dp_masked_statistic('pg_stat_get_tuples_inserted'::regproc, 'dis_visits'::regclass, NULL::bigint) AS private_inserted;
SELECT anon_dp_internal.anon_dp_masked_statistic('pg_stat_get_numscans'::regproc, 'dis_browsers'::regclass, NULL::bigint);
SELECT anon_dp_internal.anon_dp_masked_statistic('pg_stat_get_tuples_inserted'::regproc, 'dis_browsers'::regclass, NULL::text);
SELECT relname, n_live_tup IS NOT NULL AS live_shown FROM pg_stat_user_tables WHERE relname = 'dis_visits';
SELECT count(*) > 0 AS private_planner_statistics FROM pg_stats WHERE tablename = 'dis_visits';

DROP VIEW dis_dba_view;
DROP FUNCTION dis_plan_lines(text);
DROP FUNCTION dis_says(int);
DROP TABLE dis_visits, dis_browsers, dis_notes;
DELETE FROM anon_dp_budgets WHERE role = 'dis_analyst'::regrole;
DROP OWNED BY dis_analyst;
DROP ROLE dis_analyst;
