-- buffer_warming: before an anonymization statement of an anonymized session
-- runs (and again after), every relation it names -- heap, visibility map, indexes,
-- TOAST -- is read into the buffers (src/guard/buffer_warming.c;
-- doc/access.md §5, "Timing").  Which pages a statement reads can depend on
-- private values (a subquery in a branch that one user's row reaches, an
-- index lookup keyed by a private value), and what it leaves in the buffers a
-- later statement of any session can time (red team round 9: twenty public
-- tables, one per bit of a salary).  Counted here with the blocks the session
-- fetched in this transaction (pg_stat_get_xact_blocks_fetched): a block
-- fetched is in the buffers afterwards.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS anon_dp;
RESET client_min_messages;

CREATE TABLE bw_people (uid int, salary int);
INSERT INTO bw_people SELECT u, 1000 * u FROM generate_series(1, 2000) u;
CREATE INDEX bw_people_salary ON bw_people (salary);
SECURITY LABEL FOR anon_dp ON COLUMN bw_people.uid IS 'privacy_unit';
-- a public table of about 60 pages, with an index and a TOAST table
CREATE TABLE bw_probe (id int PRIMARY KEY, note text);
INSERT INTO bw_probe SELECT g, repeat('x', 100) FROM generate_series(1, 3000) g;
INSERT INTO bw_probe SELECT 0, string_agg(md5(g::text), '') FROM generate_series(1, 2000) g;
SECURITY LABEL FOR anon_dp ON TABLE bw_probe IS 'public';
VACUUM bw_probe, bw_people;
CREATE ROLE bw_analyst;
SECURITY LABEL FOR anon_dp ON ROLE bw_analyst IS 'anonymized';
GRANT SELECT ON bw_probe TO bw_analyst;
SELECT anon_dp_set_budget('bw_analyst', 1000, 1);
SELECT pg_relation_size('bw_probe') / 8192 > 40 AS probe_pages,
       pg_relation_size((SELECT reltoastrelid FROM pg_class WHERE oid = 'bw_probe'::regclass)) > 0 AS probe_toasted;

-- the blocks of a relation, with its visibility map, and the blocks this
-- transaction fetched of it
CREATE FUNCTION bw_blocks(rel regclass) RETURNS bigint LANGUAGE sql AS $$
  SELECT (pg_relation_size(rel) + pg_relation_size(rel, 'vm')) / 8192 $$;
CREATE FUNCTION bw_fetched(rel regclass) RETURNS bigint LANGUAGE sql AS $$
  SELECT pg_stat_get_xact_blocks_fetched(rel) $$;
CREATE VIEW bw_counts AS
SELECT bw_fetched('bw_probe') AS heap, bw_fetched('bw_probe_pkey') AS idx,
       bw_fetched(t.reltoastrelid) AS toast, bw_fetched(i.indexrelid) AS toast_idx,
       bw_fetched('bw_people') AS people, bw_fetched('bw_people_salary') AS people_idx
FROM pg_class t JOIN pg_index i ON i.indrelid = t.reltoastrelid
WHERE t.oid = 'bw_probe'::regclass;
CREATE VIEW bw_sizes AS
SELECT bw_blocks('bw_probe') AS heap, bw_blocks('bw_probe_pkey') AS idx,
       bw_blocks(t.reltoastrelid) AS toast, bw_blocks(i.indexrelid) AS toast_idx,
       bw_blocks('bw_people') AS people, bw_blocks('bw_people_salary') AS people_idx
FROM pg_class t JOIN pg_index i ON i.indrelid = t.reltoastrelid
WHERE t.oid = 'bw_probe'::regclass;

-- (1) a subquery in a branch that no row reaches: the superuser's statement
-- does not read the probe; the analyst's finds every page of it, its index
-- and its TOAST table read before its first row, and those of the private
-- table's index, which the statement does not use
BEGIN;
SELECT * FROM bw_counts \gset before_
SELECT count(*) > 0 AS released FROM (
  SELECT ANON_COUNT(*) FROM bw_people
  WHERE CASE WHEN salary = -1 THEN (SELECT count(*) FROM bw_probe) > 0 ELSE true END) s;
SELECT c.heap - :before_heap AS superuser_heap, c.idx - :before_idx AS superuser_idx,
       c.toast - :before_toast AS superuser_toast
FROM bw_counts c;
SELECT * FROM bw_counts \gset before_
SET SESSION AUTHORIZATION bw_analyst;
SET anon_dp.epsilon = 0.1;
SELECT count(*) > 0 AS released FROM (
  SELECT ANON_COUNT(*) FROM bw_people
  WHERE CASE WHEN salary = -1 THEN (SELECT count(*) FROM bw_probe) > 0 ELSE true END) s;
RESET SESSION AUTHORIZATION;
SELECT c.heap - :before_heap >= s.heap AS heap_warmed, c.idx - :before_idx >= s.idx AS index_warmed,
       c.toast - :before_toast >= s.toast AS toast_warmed,
       c.toast_idx - :before_toast_idx >= s.toast_idx AS toast_index_warmed,
       c.people_idx - :before_people_idx >= s.people_idx AS private_index_warmed,
       -- and the subquery itself ran, before the rows, though no row needed
       -- it (its scan of the heap on top of the two warmings of heap and
       -- visibility map)
       c.heap - :before_heap >= 2 * s.heap + pg_relation_size('bw_probe') / 8192 AS subquery_ran
FROM bw_counts c, bw_sizes s;
COMMIT;

-- (1c) subqueries that run per row read their table only when a row reaches
-- them and cannot run first: refused when they read a table (red team round
-- 12: an IN subquery the planner keeps hashed under CASE, a correlated EXISTS)
SET SESSION AUTHORIZATION bw_analyst;
SET anon_dp.epsilon = 0.1;
SELECT count(*) > 0 AS released FROM (
  SELECT ANON_COUNT(*) FROM bw_people
  WHERE CASE WHEN salary = -1 THEN uid IN (SELECT id FROM bw_probe) ELSE true END) s;
SELECT count(*) > 0 AS released FROM (
  SELECT ANON_COUNT(*) FROM bw_people
  WHERE salary > 0 OR EXISTS (SELECT 1 FROM bw_probe WHERE id = uid)) s;
-- the same lookup as a join runs
SELECT count(*) > 0 AS released FROM (
  SELECT ANON_COUNT(*) FROM bw_people b LEFT JOIN bw_probe p ON p.id = b.uid
  WHERE b.salary > 0 OR p.id IS NOT NULL) s;
RESET SESSION AUTHORIZATION;

-- (1b) a cursor: its rows run at FETCH, so every FETCH warms, before the run
-- and again after it (whatever pushed pages out since the DECLARE or during
-- the run): twice the pages for one FETCH
BEGIN;
SET SESSION AUTHORIZATION bw_analyst;
SET anon_dp.epsilon = 0.1;
DECLARE bw_cursor CURSOR FOR
  SELECT ANON_COUNT(*) > 0 AS released FROM bw_people
  WHERE CASE WHEN salary = -1 THEN (SELECT count(*) FROM bw_probe) > 0 ELSE true END;
RESET SESSION AUTHORIZATION;
SELECT * FROM bw_counts \gset before_
SET SESSION AUTHORIZATION bw_analyst;
FETCH 1 FROM bw_cursor;
RESET SESSION AUTHORIZATION;
SELECT c.heap - :before_heap >= 2 * s.heap AS heap_warmed_twice,
       c.idx - :before_idx >= 2 * s.idx AS index_warmed_twice
FROM bw_counts c, bw_sizes s;
COMMIT;

-- (2) an index lookup keyed by a private value (a join whose key only one
-- user's row sets), nested loops forced by the analyst's settings
BEGIN;
SELECT * FROM bw_counts \gset before_
SET SESSION AUTHORIZATION bw_analyst;
SET anon_dp.epsilon = 0.1;
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SELECT count(*) > 0 AS released FROM (
  SELECT ANON_COUNT(*) FROM bw_people b
  LEFT JOIN bw_probe p ON p.id = CASE WHEN b.salary = -1 THEN b.uid END) s;
RESET enable_hashjoin;
RESET enable_mergejoin;
RESET SESSION AUTHORIZATION;
SELECT c.heap - :before_heap >= s.heap AS heap_warmed, c.idx - :before_idx >= s.idx AS index_warmed
FROM bw_counts c, bw_sizes s;
COMMIT;

-- (2b) hint bits: rows nobody read since they were written get theirs before
-- the run, as a scan would set them, so that a join that reads some of them
-- only when a private row reaches them leaves no faster page behind (red team
-- round 11); here the lookup's key is NULL for every row
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS pageinspect;
RESET client_min_messages;
CREATE TABLE bw_fresh (id int PRIMARY KEY, v text);
SECURITY LABEL FOR anon_dp ON TABLE bw_fresh IS 'public';
GRANT SELECT ON bw_fresh TO bw_analyst;
INSERT INTO bw_fresh SELECT g, 'x' FROM generate_series(1, 100) g;
SELECT count(*) FILTER (WHERE t_infomask & 256 <> 0) AS hinted_before
FROM heap_page_items(get_raw_page('bw_fresh', 0));
SET SESSION AUTHORIZATION bw_analyst;
SET anon_dp.epsilon = 0.1;
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SELECT count(*) > 0 AS released FROM (
  SELECT ANON_COUNT(*) FROM bw_people b
  LEFT JOIN bw_fresh f ON f.id = CASE WHEN b.salary = -1 THEN b.uid END) s;
RESET enable_hashjoin;
RESET enable_mergejoin;
RESET SESSION AUTHORIZATION;
SELECT count(*) FILTER (WHERE t_infomask & 256 <> 0) AS hinted_after, count(*) AS rows
FROM heap_page_items(get_raw_page('bw_fresh', 0));
DROP TABLE bw_fresh;

-- (2c) dead rows: a read prunes a nearly full page of dead rows, and an
-- index scan that finds only dead rows behind an entry marks the entry dead
-- (later scans skip it): a lookup keyed by a private value did both only
-- where its key led (one entry of 500, before this section's change).  The
-- warming prunes every page and, for a table with dead rows, marks every
-- such entry, so the run's rows change nothing.  Keys 0..999, 20 rows each;
-- the even keys deleted, nothing has read the table since.
CREATE TABLE bw_dead (k int, pad text) WITH (autovacuum_enabled = off);
SECURITY LABEL FOR anon_dp ON TABLE bw_dead IS 'public';
GRANT SELECT ON bw_dead TO bw_analyst;
INSERT INTO bw_dead SELECT k, repeat('x', 100) FROM generate_series(0, 999) k, generate_series(1, 20) r;
CREATE INDEX bw_dead_k ON bw_dead (k);
DELETE FROM bw_dead WHERE k % 2 = 0;
CREATE VIEW bw_dead_state AS
SELECT (SELECT count(*) FROM generate_series(0, (pg_relation_size('bw_dead') / 8192)::int - 1) b,
          heap_page_items(get_raw_page('bw_dead', b)) WHERE lp_flags = 3) AS pruned_rows,
       (SELECT count(*) FROM generate_series(1, (pg_relation_size('bw_dead_k') / 8192)::int - 1) b,
          bt_page_items('bw_dead_k', b) WHERE dead) AS dead_index_entries;
SELECT * FROM bw_dead_state;
SET SESSION AUTHORIZATION bw_analyst;
SET anon_dp.epsilon = 0.1;
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT count(*) > 0 AS released FROM (
  SELECT ANON_COUNT(*) FROM bw_people b JOIN bw_dead d ON d.k = 2 * b.uid WHERE b.uid = 7) s;
RESET enable_hashjoin;
RESET enable_mergejoin;
RESET enable_seqscan;
RESET enable_bitmapscan;
RESET SESSION AUTHORIZATION;
-- all or none: none when a transaction of another session (an autovacuum's
-- ANALYZE) still saw the rows while the statement ran; the lookup alone
-- marked 1 entry and pruned about 60 rows
SELECT dead_index_entries IN (0, 500) AS entries_all_or_none,
       pruned_rows = 0 OR pruned_rows > 9900 AS pages_all_or_none
FROM bw_dead_state;
-- (2e) a private table's dead rows: its indexes are scanned only through
-- bitmaps in an anonymized session (an index scan would mark the dead
-- entries of the private key it looks up: red team round 17), and its pages
-- are settled like a public table's.  User 7's key is 14.
CREATE TABLE bw_hist (uid int, k int, pad text) WITH (autovacuum_enabled = off);
SECURITY LABEL FOR anon_dp ON COLUMN bw_hist.uid IS 'privacy_unit';
INSERT INTO bw_hist SELECT 1 + k % 2000, k, repeat('x', 100) FROM generate_series(0, 999) k, generate_series(1, 20) r;
CREATE INDEX bw_hist_k ON bw_hist (k);
DELETE FROM bw_hist WHERE k % 2 = 0;
SET SESSION AUTHORIZATION bw_analyst;
SET anon_dp.epsilon = 0.1;
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_seqscan = off;
SELECT count(*) > 0 AS released FROM (
  SELECT ANON_COUNT(*) FROM bw_people b JOIN bw_hist d ON d.uid = b.uid AND d.k = b.salary / 500
  WHERE b.uid = 7) s;
RESET enable_hashjoin;
RESET enable_mergejoin;
RESET enable_seqscan;
RESET SESSION AUTHORIZATION;
SELECT (SELECT count(*) FROM generate_series(1, (pg_relation_size('bw_hist_k') / 8192)::int - 1) b,
          bt_page_items('bw_hist_k', b) WHERE dead) AS private_entries_marked;
-- nor through a parallel index scan, which a merge join would read up to
-- user 7's key (red team round 18: the dead entries of every key up to 14)
SET SESSION AUTHORIZATION bw_analyst;
SET enable_hashjoin = off;
SET enable_nestloop = off;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SET enable_sort = off;
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_index_scan_size = 0;
SET min_parallel_table_scan_size = 0;
SELECT count(*) > 0 AS released FROM (
  SELECT ANON_COUNT(*) FROM bw_people b JOIN bw_hist d ON d.uid = b.uid AND d.k = b.salary / 500
  WHERE b.uid + 0 = 7) s;
RESET enable_hashjoin;
RESET enable_nestloop;
RESET enable_seqscan;
RESET enable_bitmapscan;
RESET enable_sort;
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_index_scan_size;
RESET min_parallel_table_scan_size;
RESET SESSION AUTHORIZATION;
SELECT (SELECT count(*) FROM generate_series(1, (pg_relation_size('bw_hist_k') / 8192)::int - 1) b,
          bt_page_items('bw_hist_k', b) WHERE dead) AS private_entries_marked,
       (SELECT count(*) FROM generate_series(0, (pg_relation_size('bw_hist') / 8192)::int - 1) b,
          heap_page_items(get_raw_page('bw_hist', b)) WHERE lp_flags = 3) NOT BETWEEN 1 AND 9000
         AS private_pages_all_or_none;
DROP TABLE bw_hist;

-- (2f) no synchronized scans during an anonymization run, whatever the
-- session set: a scan of a table larger than a quarter of shared_buffers
-- leaves in shared memory where it stopped, for the next scan of any session
-- to start there (red team round 19: a semi join's scan stopped at one
-- user's row, and a later query's time read the block).  A function a
-- superuser vouched for sees the setting during the run; the session's own
-- value is back after it.
CREATE FUNCTION bw_sync_off() RETURNS boolean LANGUAGE plpgsql STABLE AS
$$ BEGIN RETURN current_setting('synchronize_seqscans') = 'off'; END $$;
SECURITY LABEL FOR anon_dp ON FUNCTION bw_sync_off() IS 'trusted';
SET SESSION AUTHORIZATION bw_analyst;
SET anon_dp.epsilon = 1;
SET synchronize_seqscans = on;
SELECT ANON_COUNT(*) > 1000 AS off_during_the_run FROM bw_people WHERE bw_sync_off();
SHOW synchronize_seqscans;
RESET synchronize_seqscans;
RESET SESSION AUTHORIZATION;
DROP FUNCTION bw_sync_off();

-- a hash index cannot be scanned whole, so the warming could not mark its
-- entries: an anonymized session's planner does not see the hash indexes of
-- public tables (the superuser's uses it)
CREATE INDEX bw_dead_hash ON bw_dead USING hash (k);
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT pad FROM bw_dead WHERE k = 5;
SET SESSION AUTHORIZATION bw_analyst;
EXPLAIN (COSTS OFF) SELECT pad FROM bw_dead WHERE k = 5;
RESET SESSION AUTHORIZATION;
RESET enable_seqscan;
RESET enable_bitmapscan;
DROP VIEW bw_dead_state;
DROP TABLE bw_dead;
DROP EXTENSION pageinspect;

-- (3) a temporary table, in the session's local buffers (labelled public
-- by the superuser of this session: an anonymized session may not label)
BEGIN;
CREATE TEMP TABLE bw_mine (k int PRIMARY KEY, t text);
INSERT INTO bw_mine SELECT g, repeat('y', 100) FROM generate_series(1, 2000) g;
SECURITY LABEL FOR anon_dp ON TABLE bw_mine IS 'public';
GRANT SELECT ON bw_mine TO bw_analyst;
SELECT bw_fetched('bw_mine') AS mine_before \gset
SET SESSION AUTHORIZATION bw_analyst;
SELECT count(*) > 0 AS released FROM (
  SELECT ANON_COUNT(*) FROM bw_people
  WHERE CASE WHEN salary = -1 THEN (SELECT count(*) FROM bw_mine) > 0 ELSE true END) s;
RESET SESSION AUTHORIZATION;
SELECT bw_fetched('bw_mine') - :mine_before >= bw_blocks('bw_mine') AS temporary_warmed;
ROLLBACK;

-- (4) an analyst's statement without private rows warms nothing
BEGIN;
SELECT * FROM bw_counts \gset before_
SET SESSION AUTHORIZATION bw_analyst;
SELECT count(*) FROM bw_probe WHERE id = 5;
RESET SESSION AUTHORIZATION;
SELECT c.heap - :before_heap < s.heap AS public_read_not_warmed
FROM bw_counts c, bw_sizes s;
COMMIT;

-- (4b) nor does a catalog read (psql's \d, a BI tool's discovery), though
-- it reads the catalogs through masked entries: pg_class's index of
-- relfilenodes, which the read does not use, is not fetched
BEGIN;
SELECT bw_fetched('pg_class_tblspc_relfilenode_index') AS catalog_index_before \gset
SET SESSION AUTHORIZATION bw_analyst;
SELECT count(*) > 0 AS classes FROM pg_class WHERE relname LIKE 'bw%';
RESET SESSION AUTHORIZATION;
SELECT bw_fetched('pg_class_tblspc_relfilenode_index') - :catalog_index_before AS catalog_index_fetched;
COMMIT;

-- (5) what the analyst chooses must fit: a public table larger than a
-- quarter of shared_buffers is refused before anything is read (53400), and
-- nothing is charged
-- (rows of 1,800 bytes, four to a page, stored as they are)
CREATE TABLE bw_big (id int, pad text);
INSERT INTO bw_big SELECT g, repeat('z', 1800)
FROM generate_series(1, 4 * ((SELECT setting::int FROM pg_settings WHERE name = 'shared_buffers') / 4 + 64)) g;
SECURITY LABEL FOR anon_dp ON TABLE bw_big IS 'public';
GRANT SELECT ON bw_big TO bw_analyst;
SELECT bw_blocks('bw_big') > (SELECT setting::int FROM pg_settings WHERE name = 'shared_buffers') / 4 AS big_enough;
SELECT count(*) AS charges_before FROM anon_dp_ledger WHERE role = 'bw_analyst'::regrole \gset
SET SESSION AUTHORIZATION bw_analyst;
SET anon_dp.epsilon = 0.1;
\set VERBOSITY sqlstate
SELECT count(*) > 0 AS released FROM (
  SELECT ANON_COUNT(*) FROM bw_people
  WHERE CASE WHEN salary = -1 THEN (SELECT count(*) FROM bw_big) > 0 ELSE true END) s;
\set VERBOSITY default
RESET SESSION AUTHORIZATION;
SELECT count(*) - :charges_before AS charged FROM anon_dp_ledger WHERE role = 'bw_analyst'::regrole;
SELECT anon_dp_failed_statements('bw_analyst') AS failed;
DROP TABLE bw_big;

-- (6) temporary tables must fit half of temp_buffers (a new session sets
-- them before its first temporary table: 100 buffers, 800 kB)
\c
SET temp_buffers = 100;
CREATE TEMP TABLE bw_wide (k int, t text);
INSERT INTO bw_wide SELECT g, repeat('w', 200) FROM generate_series(1, 3000) g;
SECURITY LABEL FOR anon_dp ON TABLE bw_wide IS 'public';
GRANT SELECT ON bw_wide TO bw_analyst;
SET SESSION AUTHORIZATION bw_analyst;
SET anon_dp.epsilon = 0.1;
SELECT count(*) > 0 AS released FROM (
  SELECT ANON_COUNT(*) FROM bw_people
  WHERE CASE WHEN salary = -1 THEN (SELECT count(*) FROM bw_wide) > 0 ELSE true END) s;
RESET SESSION AUTHORIZATION;
DROP TABLE bw_wide;

DROP VIEW bw_counts, bw_sizes;
DROP FUNCTION bw_blocks(regclass), bw_fetched(regclass);
DROP TABLE bw_people, bw_probe;
DROP OWNED BY bw_analyst;
DROP ROLE bw_analyst;
