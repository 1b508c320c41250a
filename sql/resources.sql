--
-- resources.sql -- memory stays bounded (issue 22, item 2).
--
-- 1. The parallel combine path: the Finalize aggregation of the per-user
--    bounding states reads each worker's states back (deserialize); they must
--    not stay in the aggregation's memory, which hash aggregation counts
--    against hash_mem and spills beyond.
-- 2. TABLESAMPLE anon_reservoir(n) beyond work_mem: the samples go to a sort
--    (temporary files), with the same guarantees: exactly min(n, rows) rows
--    of each unit, real rows, uniform.
-- 3. anon_dp.bounding_batch_memory: the per-user hash aggregation works in
--    batches of about that size although its users fit in hash_mem; the
--    plan and the results are those of one batch.
-- 4. The bounding node (anon_dp.bounding_node, on by default; 1 and 3 test
--    PostgreSQL's hash aggregation with it off): within hash_mem, spilling
--    beyond it, the same results as the hash aggregation.
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS anon_dp;
RESET client_min_messages;
SET anon_dp.epsilon = 1;

-- every node of a query's plan, run (EXPLAIN ANALYZE, JSON)
CREATE FUNCTION rs_nodes(query text) RETURNS SETOF json LANGUAGE plpgsql AS $$
DECLARE plan json;
BEGIN
  EXECUTE 'EXPLAIN (ANALYZE, TIMING OFF, COSTS OFF, SUMMARY OFF, FORMAT JSON) ' || query INTO plan;
  RETURN QUERY WITH RECURSIVE n(node) AS (
    SELECT plan->0->'Plan'
    UNION ALL SELECT c FROM n, json_array_elements(n.node->'Plans') c)
  SELECT node FROM n;
END $$;
-- the largest "Peak Memory Usage" (kB) of an aggregation node of a plan, by
-- its partial mode ('Finalize', 'Partial', 'Simple'), or with 'Node' the
-- "Memory Usage" of the bounding node
CREATE FUNCTION rs_node_memory(query text, mode text) RETURNS bigint LANGUAGE sql AS $$
  SELECT max(CASE WHEN mode = 'Node' THEN node->>'Memory Usage' ELSE node->>'Peak Memory Usage' END::bigint)
  FROM rs_nodes(query) node
  WHERE CASE WHEN mode = 'Node' THEN node->>'Custom Plan Provider' = 'AnonDPBoundUsers'
             ELSE node->>'Partial Mode' = mode END
$$;

-- ==== 1. Finalize HashAggregate of the per-user states within hash_mem ====
-- 20000 users with 10 rows in 10 of 50 partitions.  hash_mem is 512 kB; the
-- states read back from the workers once took 1.2 kB each in the
-- aggregation's memory (69 MB here).  Without workers the leader runs the
-- partial aggregation and the Finalize node still reads its states back.
CREATE TABLE rs_rows (uid int, g int, x float8);
INSERT INTO rs_rows SELECT u, (u * 7 + r * 13) % 50, r FROM generate_series(1, 20000) u, generate_series(1, 10) r;
SECURITY LABEL FOR anon_dp ON COLUMN rs_rows.uid IS 'privacy_unit';
ANALYZE rs_rows;
SET work_mem = '256kB';
SET hash_mem_multiplier = 2;
SET enable_sort = off;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET anon_dp.bounding_node = off;
SELECT rs_node_memory('SELECT g, ANON_COUNT(*), ANON_SUM(x, 0, 10) FROM rs_rows GROUP BY g', 'Finalize')
         BETWEEN 1 AND 4 * 512 AS finalize_within_hash_mem,
       rs_node_memory('SELECT g, ANON_COUNT(*), ANON_SUM(x, 0, 10) FROM rs_rows GROUP BY g', 'Partial')
         BETWEEN 1 AND 4 * 512 AS partial_within_hash_mem;
-- the bounding node as the partial aggregation: its table within hash_mem
-- (512 kB), the Finalize node as before
RESET anon_dp.bounding_node;
SELECT rs_node_memory('SELECT g, ANON_COUNT(*), ANON_SUM(x, 0, 10) FROM rs_rows GROUP BY g', 'Finalize')
         BETWEEN 1 AND 4 * 512 AS node_finalize_within_hash_mem,
       rs_node_memory('SELECT g, ANON_COUNT(*), ANON_SUM(x, 0, 10) FROM rs_rows GROUP BY g', 'Node')
         BETWEEN 1 AND 512 AS node_within_hash_mem;
-- C_u = 3, every user's pairs merged from several processes: still exact,
-- with the node and with the hash aggregation
SET anon_dp.max_groups_contributed = 3;
SET anon_dp.epsilon = 1000;
SELECT count(*) AS partitions, abs(sum(n) - 60000) < 100 AS three_per_user
FROM (SELECT g, ANON_COUNT(*) AS n FROM rs_rows GROUP BY g) s;
SET anon_dp.bounding_node = off;
SELECT count(*) AS partitions, abs(sum(n) - 60000) < 100 AS three_per_user
FROM (SELECT g, ANON_COUNT(*) AS n FROM rs_rows GROUP BY g) s;
RESET anon_dp.bounding_node;
RESET anon_dp.max_groups_contributed;
RESET anon_dp.epsilon;
RESET enable_sort;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;

-- ==== 2. anon_reservoir beyond work_mem ====
-- unit u has 1 + u % 12 rows, 7 rows without a unit belong to no user and
-- are never returned; 30000 units: the samples outgrow 64 kB of work_mem and
-- go to temporary files
CREATE TABLE rs_res AS
SELECT u * 100 + k AS id, u AS uid FROM generate_series(1, 30000) u, generate_series(1, 12) k WHERE k <= 1 + u % 12
UNION ALL SELECT -k, NULL FROM generate_series(1, 7) k;
SECURITY LABEL FOR anon_dp ON COLUMN rs_res.uid IS 'privacy_unit';
CREATE TABLE rs_res_text AS SELECT 'user-' || u AS handle, k FROM generate_series(1, 20000) u, generate_series(1, 4) k WHERE k <= 1 + u % 4;
SECURITY LABEL FOR anon_dp ON COLUMN rs_res_text.handle IS 'privacy_unit';
CREATE FUNCTION rs_exact(n int) RETURNS text LANGUAGE plpgsql AS $$
DECLARE units bigint; exact bool; genuine bool;
BEGIN
  EXECUTE format($q$
    WITH s AS (SELECT id, uid FROM rs_res TABLESAMPLE anon_reservoir(%s)),
         t AS (SELECT uid, count(*) AS total FROM rs_res GROUP BY uid),
         k AS (SELECT uid, count(*) AS kept, count(DISTINCT id) AS ids FROM s GROUP BY uid)
    SELECT count(*), bool_and(kept = least(%s, total) AND ids = kept),
           (SELECT count(*) FROM s JOIN rs_res r ON r.id = s.id WHERE r.uid IS NOT DISTINCT FROM s.uid) = (SELECT count(*) FROM s)
    FROM t JOIN k ON coalesce(t.uid, -1) = coalesce(k.uid, -1)$q$, n, n) INTO units, exact, genuine;
  RETURN format('units: %s, exactly min(n, rows): %s, genuine rows: %s', units, exact, genuine);
END $$;
CREATE FUNCTION rs_temp_files() RETURNS bigint LANGUAGE sql AS
$$ SELECT temp_files FROM pg_stat_database WHERE datname = current_database() $$;
SET work_mem = '64kB';
SELECT pg_stat_force_next_flush();
SELECT rs_temp_files() AS before_files \gset
SELECT count(*) AS kept_rows FROM rs_res TABLESAMPLE anon_reservoir(5);
SELECT pg_stat_force_next_flush();
SELECT rs_temp_files() > :before_files AS used_temporary_files;
SELECT rs_exact(5) AS spilled_n_5;
SELECT rs_exact(1) AS spilled_n_1;
SELECT rs_exact(1000000) AS spilled_n_max;
SELECT count(*) AS units, bool_and(kept = least(2, 1 + substr(handle, 6)::int % 4)) AS exact_text_units
FROM (SELECT handle, count(*) AS kept FROM rs_res_text TABLESAMPLE anon_reservoir(2) GROUP BY handle) s;
-- uniform over units in one scan: 20000 units of 10 rows spread over the
-- table, n = 3: each position kept ~ Binomial(20000, 0.3), std 64.8,
-- tolerance 6 std
CREATE TABLE rs_uni AS SELECT u AS uid, k AS pos FROM generate_series(1, 10) k, generate_series(1, 20000) u;
SECURITY LABEL FOR anon_dp ON COLUMN rs_uni.uid IS 'privacy_unit';
SELECT count(*) AS positions, bool_and(abs(n - 6000) < 389) AS uniform, sum(n) AS rows
FROM (SELECT pos, count(*) AS n FROM rs_uni TABLESAMPLE anon_reservoir(3) GROUP BY pos) s;
-- the same in memory
RESET work_mem;
SELECT rs_exact(5) AS in_memory_n_5;
SELECT count(*) AS positions, bool_and(abs(n - 6000) < 389) AS uniform, sum(n) AS rows
FROM (SELECT pos, count(*) AS n FROM rs_uni TABLESAMPLE anon_reservoir(3) GROUP BY pos) s;
-- a rescan draws a new sample (the inner side of a nested loop)
SET work_mem = '64kB';
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_material = off;
SELECT count(*) AS rows_over_rescans
FROM (VALUES (1), (2)) v(x), LATERAL (SELECT id FROM rs_res TABLESAMPLE anon_reservoir(1) WHERE v.x > 0) s;
RESET enable_hashjoin;
RESET enable_mergejoin;
RESET enable_material;
RESET work_mem;

-- ==== 3. the per-user aggregation in cache-sized batches ====
-- 3000 users, 1 to 3 rows each, all in one of 30 partitions: 100 users per
-- partition, C_u = 1 keeps every user's only partition, and at epsilon 1000
-- the noise (scale about 0.004 for the count, 0.04 for the sum) rounds away:
-- the rounded results are exact and equal with and without batches.
CREATE TABLE rs_batch (uid int, g int, x float8);
INSERT INTO rs_batch SELECT u, u % 30, u % 4 FROM generate_series(1, 3000) u, generate_series(1, 3) k WHERE k <= 1 + u % 3;
SECURITY LABEL FOR anon_dp ON COLUMN rs_batch.uid IS 'privacy_unit';
ANALYZE rs_batch;
-- the "HashAgg Batches" of the aggregation grouped by the privacy unit
CREATE FUNCTION rs_unit_batches(query text) RETURNS bigint LANGUAGE sql AS $$
  SELECT max((node->>'HashAgg Batches')::bigint) FROM rs_nodes(query) node
  WHERE node->>'Strategy' = 'Hashed' AND node->'Group Key'->>0 IN ('uid', 'rs_batch.uid')
$$;
CREATE FUNCTION rs_plan(query text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE line text; plan text := '';
BEGIN
  FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || query LOOP plan := plan || line || E'\n'; END LOOP;
  RETURN plan;
END $$;
CREATE TEMP TABLE rs_exact_batch AS
SELECT g, count(DISTINCT uid) AS n, sum(x) AS s FROM rs_batch GROUP BY g;
SET anon_dp.bounding_node = off;
SET max_parallel_workers_per_gather = 0;
SET work_mem = '1MB';
SET hash_mem_multiplier = 2;
SET anon_dp.epsilon = 1000;
-- one batch: 3000 users take about 1 MB of the 2 MB of hash_mem
SET anon_dp.bounding_batch_memory = 0;
SELECT rs_unit_batches('SELECT g, ANON_COUNT(*), ANON_SUM(x, 0, 10) FROM rs_batch GROUP BY g') AS batches_without;
SELECT rs_plan('SELECT g, ANON_COUNT(*), ANON_SUM(x, 0, 10) FROM rs_batch GROUP BY g') AS plan_without \gset
CREATE TEMP TABLE rs_one_batch AS
SELECT g, round(n) AS n, round(s) AS s FROM (SELECT g, ANON_COUNT(*) AS n, ANON_SUM(x, 0, 10) AS s FROM rs_batch GROUP BY g) q;
-- batches of 256 kB
SET anon_dp.bounding_batch_memory = '256kB';
SELECT rs_unit_batches('SELECT g, ANON_COUNT(*), ANON_SUM(x, 0, 10) FROM rs_batch GROUP BY g') > 1 AS batches_with;
SELECT rs_plan('SELECT g, ANON_COUNT(*), ANON_SUM(x, 0, 10) FROM rs_batch GROUP BY g') = :'plan_without' AS same_plan;
CREATE TEMP TABLE rs_batched AS
SELECT g, round(n) AS n, round(s) AS s FROM (SELECT g, ANON_COUNT(*) AS n, ANON_SUM(x, 0, 10) AS s FROM rs_batch GROUP BY g) q;
SELECT (SELECT count(*) FROM rs_batched) AS partitions,
       NOT EXISTS (SELECT * FROM rs_batched EXCEPT SELECT * FROM rs_one_batch)
         AND NOT EXISTS (SELECT * FROM rs_one_batch EXCEPT SELECT * FROM rs_batched) AS same_results,
       NOT EXISTS (SELECT * FROM rs_batched EXCEPT SELECT g, n, s FROM rs_exact_batch) AS exact_results;
-- the per-user aggregation in a subplan (a materialized WITH query)
SELECT rs_unit_batches('WITH q AS MATERIALIZED (SELECT g, ANON_COUNT(*) FROM rs_batch GROUP BY g) SELECT count(*) FROM q') > 1 AS subplan_batches;
-- and in a parallel plan: 3000 users of 40 rows, whose sum is clamped to 10;
-- the Partial node runs in the workers and the leader (or the leader alone
-- when no worker starts), its states merged by the Finalize node
CREATE TABLE rs_par (uid int, g int, x float8);
INSERT INTO rs_par SELECT u, u % 30, k % 4 FROM generate_series(1, 3000) u, generate_series(1, 40) k;
SECURITY LABEL FOR anon_dp ON COLUMN rs_par.uid IS 'privacy_unit';
ANALYZE rs_par;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
CREATE FUNCTION rs_partial_batches() RETURNS bigint LANGUAGE sql AS $$
  SELECT max((node->>'HashAgg Batches')::bigint)
  FROM rs_nodes('SELECT g, ANON_COUNT(*), ANON_SUM(x, 0, 10) FROM rs_par GROUP BY g') node
  WHERE node->>'Partial Mode' = 'Partial'
$$;
SET anon_dp.bounding_batch_memory = 0;
SELECT rs_partial_batches() AS partial_batches_without;
SET anon_dp.bounding_batch_memory = '256kB';
SELECT rs_partial_batches() > 1 AS partial_batches_with;
SELECT count(*) AS partitions, bool_and(round(n) = 100 AND round(s) = 1000) AS exact_results
FROM (SELECT g, ANON_COUNT(*) AS n, ANON_SUM(x, 0, 10) AS s FROM rs_par GROUP BY g) q;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
SET max_parallel_workers_per_gather = 0;
-- a prepared statement follows a change of the setting
PREPARE rs_q AS SELECT g, ANON_COUNT(*), ANON_SUM(x, 0, 10) FROM rs_batch GROUP BY g;
EXECUTE rs_q \g /dev/null
EXECUTE rs_q \g /dev/null
EXECUTE rs_q \g /dev/null
EXECUTE rs_q \g /dev/null
EXECUTE rs_q \g /dev/null
SELECT rs_unit_batches('EXECUTE rs_q') > 1 AS prepared_batches;
SET anon_dp.bounding_batch_memory = 0;
SELECT rs_unit_batches('EXECUTE rs_q') AS prepared_batches_without;
DEALLOCATE rs_q;
-- an aggregation grouped by the unit without anon_dp_bound_partitions keeps
-- PostgreSQL's sizing
SET anon_dp.bounding_batch_memory = '256kB';
SELECT rs_unit_batches('SELECT uid, count(*), sum(x) FROM rs_batch GROUP BY uid') AS plain_batches;
-- the setting: a memory size, 0 or more
SET anon_dp.bounding_batch_memory = -1;
RESET anon_dp.bounding_batch_memory;
SHOW anon_dp.bounding_batch_memory;
RESET anon_dp.bounding_node;

-- ==== 4. the bounding node ====
-- the node in the plan, where the hash aggregation was (costs, children and
-- the other nodes unchanged); with 1 MB of work_mem its 3000 users fit
SHOW anon_dp.bounding_node;
SELECT rs_plan('SELECT g, ANON_COUNT(*), ANON_SUM(x, 0, 10) FROM rs_batch GROUP BY g') AS node_plan;
SELECT node->>'Batches' AS node_batches, (node->>'Memory Usage')::int BETWEEN 1 AND 2048 AS node_within_hash_mem
FROM rs_nodes('SELECT g, ANON_COUNT(*), ANON_SUM(x, 0, 10) FROM rs_batch GROUP BY g') node
WHERE node->>'Custom Plan Provider' = 'AnonDPBoundUsers';
CREATE TEMP TABLE rs_node_results AS
SELECT g, round(n) AS n, round(s) AS s FROM (SELECT g, ANON_COUNT(*) AS n, ANON_SUM(x, 0, 10) AS s FROM rs_batch GROUP BY g) q;
SELECT (SELECT count(*) FROM rs_node_results) AS partitions,
       NOT EXISTS (SELECT * FROM rs_node_results EXCEPT SELECT * FROM rs_one_batch)
         AND NOT EXISTS (SELECT * FROM rs_one_batch EXCEPT SELECT * FROM rs_node_results) AS same_results_as_hash,
       NOT EXISTS (SELECT * FROM rs_node_results EXCEPT SELECT g, n, s FROM rs_exact_batch) AS exact_results;
-- at 64 kB of hash_mem it spills (users in partitions by hash, aggregated
-- after), its table stays within hash_mem, and the results stay exact (the
-- planner would sort at that size: sorting is off to keep a hash aggregation)
SET enable_sort = off;
SET work_mem = '64kB';
SET hash_mem_multiplier = 1;
SELECT (node->>'Batches')::int > 1 AS node_batches, (node->>'Rows Spilled')::int > 0 AS node_spilled,
       (node->>'Memory Usage')::int BETWEEN 1 AND 64 AS node_within_hash_mem
FROM rs_nodes('SELECT g, ANON_COUNT(*), ANON_SUM(x, 0, 10) FROM rs_batch GROUP BY g') node
WHERE node->>'Custom Plan Provider' = 'AnonDPBoundUsers';
CREATE TEMP TABLE rs_node_spilled AS
SELECT g, round(n) AS n, round(s) AS s FROM (SELECT g, ANON_COUNT(*) AS n, ANON_SUM(x, 0, 10) AS s FROM rs_batch GROUP BY g) q;
SELECT (SELECT count(*) FROM rs_node_spilled) AS partitions,
       NOT EXISTS (SELECT * FROM rs_node_spilled EXCEPT SELECT g, n, s FROM rs_exact_batch) AS exact_results;
-- an anonymized role chooses the settings that make the node spill (and
-- turns it off and on): every user still counts once, in one partition
CREATE ROLE rs_analyst;
SECURITY LABEL FOR anon_dp ON ROLE rs_analyst IS 'anonymized';
SET anon_dp.max_epsilon = 1000;
SELECT anon_dp_set_budget('rs_analyst', 1000000, 1) IS NOT NULL AS budget_set;
RESET work_mem;
RESET hash_mem_multiplier;
RESET enable_sort;
SET SESSION AUTHORIZATION rs_analyst;
SET work_mem = '64kB';
SET hash_mem_multiplier = 1;
SET enable_sort = off;
SET anon_dp.epsilon = 1000;
SELECT anon_dp_access_level();
SELECT count(*) AS raw_rows FROM rs_batch;
CREATE TEMP TABLE rs_analyst_node AS
SELECT g, round(n) AS n, round(s) AS s FROM (SELECT g, ANON_COUNT(*) AS n, ANON_SUM(x, 0, 10) AS s FROM rs_batch GROUP BY g) q;
SET anon_dp.bounding_node = off;
CREATE TEMP TABLE rs_analyst_hash AS
SELECT g, round(n) AS n, round(s) AS s FROM (SELECT g, ANON_COUNT(*) AS n, ANON_SUM(x, 0, 10) AS s FROM rs_batch GROUP BY g) q;
RESET SESSION AUTHORIZATION;
SELECT (SELECT count(*) FROM rs_analyst_node) AS partitions,
       NOT EXISTS (SELECT * FROM rs_analyst_node EXCEPT SELECT g, n, s FROM rs_exact_batch) AS node_exact,
       NOT EXISTS (SELECT * FROM rs_analyst_hash EXCEPT SELECT g, n, s FROM rs_exact_batch) AS hash_exact;
RESET anon_dp.bounding_node;
RESET anon_dp.max_epsilon;
DROP TABLE rs_analyst_node, rs_analyst_hash;
SECURITY LABEL FOR anon_dp ON ROLE rs_analyst IS NULL;
DROP OWNED BY rs_analyst;
DROP ROLE rs_analyst;
RESET enable_sort;
RESET work_mem;
RESET hash_mem_multiplier;
-- a prepared statement follows a change of the setting
SET work_mem = '1MB';
PREPARE rs_q AS SELECT g, ANON_COUNT(*), ANON_SUM(x, 0, 10) FROM rs_batch GROUP BY g;
EXECUTE rs_q \g /dev/null
EXECUTE rs_q \g /dev/null
EXECUTE rs_q \g /dev/null
EXECUTE rs_q \g /dev/null
EXECUTE rs_q \g /dev/null
SELECT count(*) AS prepared_nodes FROM rs_nodes('EXECUTE rs_q') node WHERE node->>'Custom Plan Provider' = 'AnonDPBoundUsers';
SET anon_dp.bounding_node = off;
SELECT count(*) AS prepared_nodes_off FROM rs_nodes('EXECUTE rs_q') node WHERE node->>'Custom Plan Provider' = 'AnonDPBoundUsers';
DEALLOCATE rs_q;
-- the setting: a boolean
SET anon_dp.bounding_node = 'sometimes';
RESET anon_dp.bounding_node;
RESET anon_dp.epsilon;
RESET work_mem;
RESET hash_mem_multiplier;
RESET max_parallel_workers_per_gather;

DROP FUNCTION rs_node_memory(text, text), rs_unit_batches(text), rs_partial_batches(), rs_nodes(text), rs_exact(int), rs_temp_files(), rs_plan(text);
DROP TABLE rs_rows, rs_res, rs_res_text, rs_uni, rs_batch, rs_par;
