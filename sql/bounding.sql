-- One-pass per-user aggregation and contribution bounding
-- (anon_dp_bound_partitions, src/bound/partition_bound.c): the partials of
-- every kept (user, partition) pair are exact, each user keeps exactly
-- min(C_u, its partitions), GROUP BY equality (NULLs, collations) decides
-- what a partition is, the choice is uniform and fresh at each execution,
-- parallel plans give the same properties, and bad calls get clear errors.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS anon_dp;
RESET client_min_messages;
-- the building blocks are called by name: their schema on the search path (doc/functions.md)
SET search_path = public, anon_dp_internal;
SET extra_float_digits = 0;

-- 300 users; user u has rows in 1 + u % 9 partitions (g1 text, g2 int, with
-- NULL keys), values of every kind with NULLs; 5 rows with a NULL uid, which
-- belong to no user: anon_dp_bound_partitions skips them
CREATE TABLE bd AS
SELECT u AS uid,
       CASE WHEN p % 4 = 3 THEN NULL ELSE 'p' || (p % 4) END AS g1,
       CASE WHEN p = 7 THEN NULL ELSE p / 4 END AS g2,
       CASE WHEN r % 5 = 0 THEN NULL ELSE (u * 7 + p * 3 + r) % 50 END AS xi,
       CASE WHEN r % 6 = 0 THEN NULL ELSE ((u * 13 + r) % 1000)::bigint * 1000000000000 END AS xb,
       CASE WHEN r % 7 = 0 THEN NULL ELSE ((u + p + r) % 97) / 8.0 END AS xn,
       CASE WHEN r % 4 = 0 THEN NULL ELSE ((u * 31 + p * 17 + r) % 1000) / 10.0 END::float8 AS xf
FROM generate_series(1, 300) u, generate_series(0, 8) p, generate_series(1, 6) r
WHERE p <= u % 9 AND r <= 1 + (u + p) % 6
UNION ALL
SELECT NULL, 'p1', 1, 1, 1, 1, 1 FROM generate_series(1, 5);
ANALYZE bd;

-- the exact per-user partials of every (user, partition) pair
CREATE TEMP TABLE bd_exact AS
SELECT uid, g1, g2, count(*) AS n, count(xi) AS c, sum(xi)::bigint AS si, sum(xb)::numeric AS sb,
       sum(xn) AS sn, sum(xf) AS sf, avg(xf) AS af, min(xf) AS lf, max(xf) AS hf
FROM bd WHERE uid IS NOT NULL GROUP BY uid, g1, g2;

-- the kept pairs of anon_dp_bound_partitions with C_u = keep, as rows
CREATE FUNCTION bd_kept(keep int) RETURNS TABLE (uid int, g1 text, g2 int, n bigint, c bigint,
  si bigint, sb numeric, sn numeric, sf float8, af float8, lf float8, hf float8)
LANGUAGE plpgsql AS $$
BEGIN
  RETURN QUERY EXECUTE format($q$
    SELECT uid,
           unnest(anon_dp_bounded_column(k, 0, NULL::text)), unnest(anon_dp_bounded_column(k, 1, NULL::int)),
           unnest(anon_dp_bounded_column(k, 2, NULL::bigint)), unnest(anon_dp_bounded_column(k, 3, NULL::bigint)),
           unnest(anon_dp_bounded_column(k, 4, NULL::bigint)), unnest(anon_dp_bounded_column(k, 5, NULL::numeric)),
           unnest(anon_dp_bounded_column(k, 6, NULL::numeric)), unnest(anon_dp_bounded_column(k, 7, NULL::float8)),
           unnest(anon_dp_bounded_column(k, 8, NULL::float8)), unnest(anon_dp_bounded_column(k, 9, NULL::float8)),
           unnest(anon_dp_bounded_column(k, 10, NULL::float8))
    FROM (SELECT uid, anon_dp_bound_partitions((SELECT anon_dp_bounding_secret()), %s, 'ggncibmfalh',
                                               uid, g1, g2, xi, xi::bigint, xb, xn, xf, xf, xf, xf) AS k
          FROM bd GROUP BY uid) s$q$, keep);
END $$;

-- a kept pair is genuine and complete: all its partials equal the exact ones
-- (float sums and averages up to rounding: a parallel plan adds in another order)
CREATE FUNCTION bd_check(keep int) RETURNS text LANGUAGE plpgsql AS $$
DECLARE pairs bigint; genuine bigint; users_ok bool;
BEGIN
  CREATE TEMP TABLE bd_k AS SELECT * FROM bd_kept(keep);
  SELECT count(*) INTO pairs FROM bd_k;
  SELECT count(*) INTO genuine FROM bd_k k JOIN bd_exact e
    ON k.uid IS NOT DISTINCT FROM e.uid AND k.g1 IS NOT DISTINCT FROM e.g1 AND k.g2 IS NOT DISTINCT FROM e.g2
   AND k.n = e.n AND k.c = e.c AND k.si IS NOT DISTINCT FROM e.si AND k.sb IS NOT DISTINCT FROM e.sb
   AND k.sn IS NOT DISTINCT FROM e.sn
   AND (k.sf IS NULL AND e.sf IS NULL OR abs(k.sf - e.sf) < 1e-9)
   AND (k.af IS NULL AND e.af IS NULL OR abs(k.af - e.af) < 1e-9)
   AND k.lf IS NOT DISTINCT FROM e.lf AND k.hf IS NOT DISTINCT FROM e.hf;
  SELECT bool_and(kept = least(keep, total)) INTO users_ok
  FROM (SELECT uid, count(*) AS total FROM bd_exact GROUP BY uid) t
  JOIN (SELECT uid, count(*) AS kept FROM bd_k GROUP BY uid) k ON t.uid IS NOT DISTINCT FROM k.uid;
  DROP TABLE bd_k;
  RETURN format('pairs kept: %s, genuine and complete: %s, min(C_u, partitions) per user: %s',
                pairs, pairs = genuine, users_ok);
END $$;

-- C_u at least every user's partitions: all 1494 pairs, partials exact
SELECT count(*) AS exact_pairs FROM bd_exact;
-- the rows without a privacy unit are kept in no pair (the NULL group of
-- GROUP BY uid gets no kept pairs at all)
SELECT count(*) AS null_uid_pairs FROM bd_kept(9) WHERE uid IS NULL;
SELECT anon_dp_bound_partitions((SELECT anon_dp_bounding_secret()), 1, 'gn', uid, g1) IS NULL AS null_uid_keeps_nothing
FROM bd WHERE uid IS NULL GROUP BY uid;
SELECT bd_check(9) AS keep_all;
SELECT bd_check(1000000) AS keep_max;
-- smaller C_u: only min(C_u, partitions) pairs per user, each complete
SELECT bd_check(1) AS keep_1;
SELECT bd_check(3) AS keep_3;

-- the same under a parallel plan (partial aggregation, combine, serialization)
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET parallel_leader_participation = off;
CREATE FUNCTION bd_plan_has(query text, pattern text) RETURNS bool LANGUAGE plpgsql AS $$
DECLARE line text;
BEGIN
  FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || query LOOP
    IF line LIKE '%' || pattern || '%' THEN RETURN true; END IF;
  END LOOP;
  RETURN false;
END $$;
-- the Partial aggregation runs in the bounding node (Finalize: hash aggregation)
SELECT bd_plan_has($$SELECT uid, anon_dp_bound_partitions((SELECT anon_dp_bounding_secret()), 1, 'gn', uid, g1)
                    FROM bd GROUP BY uid$$, 'Gather') AS parallel_plan,
       bd_plan_has($$SELECT uid, anon_dp_bound_partitions((SELECT anon_dp_bounding_secret()), 1, 'gn', uid, g1)
                    FROM bd GROUP BY uid$$, 'Finalize HashAggregate') AS finalize_hash;
SELECT bd_check(9) AS parallel_keep_all;
SELECT bd_check(1) AS parallel_keep_1;
SELECT bd_check(2) AS parallel_keep_2;
-- and with PostgreSQL's partial hash aggregation (anon_dp.bounding_node off)
SET anon_dp.bounding_node = off;
SELECT bd_plan_has($$SELECT uid, anon_dp_bound_partitions((SELECT anon_dp_bounding_secret()), 1, 'gn', uid, g1)
                    FROM bd GROUP BY uid$$, 'Partial HashAggregate') AS parallel_hash_plan;
SELECT bd_check(9) AS parallel_hash_keep_all;
SELECT bd_check(2) AS parallel_hash_keep_2;
RESET anon_dp.bounding_node;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
RESET parallel_leader_participation;

-- The bounding node (src/bound/bound_users_node.c) holds users within
-- hash_mem.  At 64 kB the 300 users do not fit: the rows of the users it
-- cannot hold go to temporary files, in partitions by the users' hash, and
-- each partition is aggregated afterwards.  Every user must come out once,
-- complete: a user split between two batches would keep up to 2 C_u pairs.
CREATE FUNCTION bd_node(query text) RETURNS TABLE (node text, batches int, spilled bool)
LANGUAGE plpgsql AS $$
DECLARE plan json;
BEGIN
  EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, FORMAT JSON) ' || query INTO plan;
  RETURN QUERY WITH RECURSIVE n(j) AS (SELECT plan -> 0 -> 'Plan' UNION ALL
                                       SELECT c FROM n, json_array_elements(n.j -> 'Plans') c)
    SELECT j ->> 'Custom Plan Provider', (j ->> 'Batches')::int, (j ->> 'Rows Spilled')::bigint > 0
    FROM n WHERE j ->> 'Custom Plan Provider' IS NOT NULL;
END $$;
SET work_mem = '64kB';
SET hash_mem_multiplier = 1;
SELECT node, batches > 1 AS batches, spilled FROM bd_node($$SELECT uid, anon_dp_bound_partitions((SELECT anon_dp_bounding_secret()), 9, 'ggn', uid, g1, g2)
                    FROM bd GROUP BY uid$$);
SELECT bd_check(9) AS spilled_keep_all;
SELECT bd_check(1) AS spilled_keep_1;
SELECT bd_check(3) AS spilled_keep_3;
-- every user once, the NULL group (rows without a unit) once, as GROUP BY uid
SELECT count(*) AS users, count(DISTINCT uid) AS distinct_users, count(*) FILTER (WHERE uid IS NULL) AS null_group,
       bool_and(k IS NULL) FILTER (WHERE uid IS NULL) AS null_group_keeps_nothing
FROM (SELECT uid, anon_dp_bound_partitions((SELECT anon_dp_bounding_secret()), 1, 'gn', uid, g1) AS k
      FROM bd GROUP BY uid) s;
RESET work_mem;
RESET hash_mem_multiplier;
-- a text privacy unit (equality through its function, uids copied into the
-- node's memory): 3000 users of 4 rows in 4 partitions, in memory and spilled
CREATE TABLE bd_text AS SELECT 'user-' || (u % 3000) AS uid, u % 7 AS g FROM generate_series(1, 12000) u;
SELECT count(*) AS users, sum(cardinality(anon_dp_bounded_column(k, 1, NULL::bigint))) AS pairs,
       sum((SELECT sum(x) FROM unnest(anon_dp_bounded_column(k, 1, NULL::bigint)) x)) AS rows_kept
FROM (SELECT uid, anon_dp_bound_partitions((SELECT anon_dp_bounding_secret()), 7, 'gn', uid, g) AS k
      FROM bd_text GROUP BY uid) s;
SET work_mem = '64kB';
SELECT node, batches > 1 AS batches FROM bd_node($$SELECT uid, anon_dp_bound_partitions((SELECT anon_dp_bounding_secret()), 7, 'gn', uid, g)
                    FROM bd_text GROUP BY uid$$);
SELECT count(*) AS users, sum(cardinality(anon_dp_bounded_column(k, 1, NULL::bigint))) AS pairs,
       sum((SELECT sum(x) FROM unnest(anon_dp_bounded_column(k, 1, NULL::bigint)) x)) AS rows_kept
FROM (SELECT uid, anon_dp_bound_partitions((SELECT anon_dp_bounding_secret()), 7, 'gn', uid, g) AS k
      FROM bd_text GROUP BY uid) s;
RESET work_mem;
-- with a memory limit of 32 MB or more the node's table lives in 2 MB regions
-- advised as huge pages (its chunks, and an index of 2 MB or more, grown
-- twice here): 140,000 users of 2 rows each, every user once with both pairs,
-- as with a small limit (spilled)
CREATE TABLE bd_many AS SELECT u AS uid, j AS g FROM generate_series(1, 140000) u, generate_series(1, 2) j;
ANALYZE bd_many;
SET work_mem = '64MB';
SELECT node, batches FROM bd_node($$SELECT uid, anon_dp_bound_partitions((SELECT anon_dp_bounding_secret()), 2, 'gn', uid, g)
                    FROM bd_many GROUP BY uid$$);
SELECT count(*) AS users, count(DISTINCT uid) AS distinct_users,
       sum(cardinality(anon_dp_bounded_column(k, 1, NULL::bigint))) AS pairs
FROM (SELECT uid, anon_dp_bound_partitions((SELECT anon_dp_bounding_secret()), 2, 'gn', uid, g) AS k
      FROM bd_many GROUP BY uid) s;
SET work_mem = '1MB';
SELECT node, batches > 1 AS batches FROM bd_node($$SELECT uid, anon_dp_bound_partitions((SELECT anon_dp_bounding_secret()), 2, 'gn', uid, g)
                    FROM bd_many GROUP BY uid$$);
SELECT count(*) AS users, count(DISTINCT uid) AS distinct_users,
       sum(cardinality(anon_dp_bounded_column(k, 1, NULL::bigint))) AS pairs
FROM (SELECT uid, anon_dp_bound_partitions((SELECT anon_dp_bounding_secret()), 2, 'gn', uid, g) AS k
      FROM bd_many GROUP BY uid) s;
RESET work_mem;
DROP TABLE bd_many;
-- rescans with a new parameter (the inner side of a lateral join): each
-- rescan aggregates afresh; every user of g2 = k keeps all of its pairs there
SELECT v.k, l.users, l.pairs, e.users AS exact_users, e.pairs AS exact_pairs
FROM (VALUES (0), (1), (2)) v(k)
CROSS JOIN LATERAL (SELECT count(*) AS users, sum(cardinality(anon_dp_bounded_column(b, 1, NULL::bigint))) AS pairs
                    FROM (SELECT uid, anon_dp_bound_partitions((SELECT anon_dp_bounding_secret()), 9, 'gn', uid, g1) AS b
                          FROM bd WHERE g2 = v.k AND uid IS NOT NULL GROUP BY uid) s) l
CROSS JOIN LATERAL (SELECT count(DISTINCT uid) AS users, count(DISTINCT (uid, g1)) AS pairs
                    FROM (SELECT DISTINCT uid, g1 FROM bd WHERE g2 = v.k AND uid IS NOT NULL) d) e
ORDER BY v.k;
-- the setting: off keeps PostgreSQL's hash aggregation
SET anon_dp.bounding_node = off;
SELECT count(*) AS nodes_when_off FROM bd_node($$SELECT uid, anon_dp_bound_partitions((SELECT anon_dp_bounding_secret()), 1, 'gn', uid, g1)
                    FROM bd GROUP BY uid$$);
SELECT bd_check(3) AS hash_keep_3;
RESET anon_dp.bounding_node;
DROP TABLE bd_text;
DROP FUNCTION bd_node(text);

-- a partition is what GROUP BY says it is: under a case-insensitive
-- collation 'A' and 'a' are one partition (user 1 has 2, not 3)
CREATE COLLATION bd_ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
CREATE TABLE bd_coll AS SELECT 1 AS uid, v COLLATE bd_ci AS g FROM unnest(ARRAY['A', 'a', 'B', 'b', 'a']) v;
SELECT cardinality(anon_dp_bounded_column(anon_dp_bound_partitions((SELECT anon_dp_bounding_secret()), 10, 'gn', uid, g), 1, NULL::bigint)) AS partitions,
       (SELECT sum(x) FROM unnest(anon_dp_bounded_column(anon_dp_bound_partitions((SELECT anon_dp_bounding_secret()), 10, 'gn', uid, g), 1, NULL::bigint)) x) AS rows
FROM bd_coll GROUP BY uid;
SELECT cardinality(anon_dp_bounded_column(anon_dp_bound_partitions((SELECT anon_dp_bounding_secret()), 10, 'gn', uid, g COLLATE "C"), 1, NULL::bigint)) AS partitions_under_c
FROM bd_coll GROUP BY uid;
-- equal floats with different bits (0 and -0) are one partition, as in GROUP BY
SELECT cardinality(anon_dp_bounded_column(anon_dp_bound_partitions((SELECT anon_dp_bounding_secret()), 10, 'gn', 1, v), 0, NULL::float8)) AS zero_partitions
FROM (VALUES (0.0::float8), (-0.0::float8), ('NaN'::float8), ('NaN'::float8)) t(v);

-- through the rewriter: with the background users always released and
-- epsilon large, ANON_SUM(x, 0, 1) shows which of its 4 partitions user 0
-- kept (C_u = 1).  800 executions: each partition about 200 times (binomial
-- std 12.2; tolerance 6 std), i.e. uniform and fresh at every execution.
CREATE TABLE bd_pick AS
SELECT 0 AS uid, g, 1 AS x FROM unnest(ARRAY['a', 'b', 'c', 'd']) g
UNION ALL SELECT u, (ARRAY['a', 'b', 'c', 'd'])[1 + u % 4], 0 FROM generate_series(1, 400) u;
SECURITY LABEL FOR anon_dp ON COLUMN bd_pick.uid IS 'privacy_unit';
CREATE TEMP TABLE bd_choices (g text);
DO $$
BEGIN
  SET LOCAL anon_dp.epsilon = 1e6;
  SET LOCAL anon_dp.max_groups_contributed = 1;
  FOR i IN 1 .. 800 LOOP
    INSERT INTO bd_choices SELECT g FROM (SELECT g, ANON_SUM(x, 0, 1) AS s FROM bd_pick GROUP BY g) r WHERE s >= 1;
  END LOOP;
END $$;
SELECT count(*) AS choices FROM bd_choices;
SELECT g, abs(count(*) - 200) < 74 AS uniform FROM bd_choices GROUP BY g ORDER BY g;
EXPLAIN (COSTS OFF) SELECT g, ANON_SUM(x, 0, 1) FROM bd_pick GROUP BY g;

-- constant GROUP BY keys stay in the query; several keys with NULLs
SECURITY LABEL FOR anon_dp ON COLUMN bd.uid IS 'privacy_unit';
SET anon_dp.epsilon = 1e6;
SET anon_dp.max_groups_contributed = 9;
SELECT k, g1, g2, ANON_COUNT(*) AS users
FROM (SELECT 'all'::text AS k, g1, g2, uid FROM bd) s GROUP BY k, g1, g2 ORDER BY g1, g2;
-- the rows without a privacy unit belong to no user: they are not counted
SELECT g1, g2, count(DISTINCT uid) AS users FROM bd GROUP BY g1, g2 ORDER BY g1, g2;
RESET anon_dp.epsilon;
RESET anon_dp.max_groups_contributed;

-- a bigint sum that leaves bigint continues in numeric (sum(bigint) semantics);
-- a sum of integers that leaves bigint saturates (it is clamped to bigint
-- bounds afterwards anyway): a per-user partial never raises on data
SELECT unnest(anon_dp_bounded_column(anon_dp_bound_partitions((SELECT anon_dp_bounding_secret()), 1, 'b', 1, v), 0, NULL::numeric)) AS wide_sum,
       sum(v) AS exact
FROM (VALUES (9000000000000000000::bigint), (9000000000000000000), (-5)) t(v);
SELECT unnest(anon_dp_bounded_column(anon_dp_bound_partitions((SELECT anon_dp_bounding_secret()), 1, 'i', 1, v), 0, NULL::bigint)) AS saturated
FROM (VALUES (9000000000000000000::bigint), (9000000000000000000)) t(v);
SELECT unnest(anon_dp_bounded_column(anon_dp_bound_partitions((SELECT anon_dp_bounding_secret()), 1, 'i', 1, v), 0, NULL::bigint)) AS saturated
FROM (VALUES (-9000000000000000000::bigint), (-9000000000000000000)) t(v);
-- sums of double precision and numeric past their range are infinite, never an error
SELECT unnest(anon_dp_bounded_column(anon_dp_bound_partitions((SELECT anon_dp_bounding_secret()), 1, 'f', 1, v), 0, NULL::float8)) AS float_sum,
       unnest(anon_dp_bounded_column(anon_dp_bound_partitions((SELECT anon_dp_bounding_secret()), 1, 'a', 1, v), 0, NULL::float8)) AS float_avg_sum
FROM (VALUES (1e308::float8), (1e308)) t(v);
SELECT unnest(anon_dp_bounded_column(anon_dp_bound_partitions((SELECT anon_dp_bounding_secret()), 1, 'm', 1, v), 0, NULL::numeric)) AS numeric_sum
FROM (VALUES (('9' || repeat('0', 131071))::numeric), (('9' || repeat('0', 131071))::numeric)) t(v);

-- bad calls: clear errors, nothing read out of place
SELECT anon_dp_bound_partitions(NULL, 1, 'n', 1);
SELECT anon_dp_bound_partitions('\x00'::bytea, 1, 'n', 1);
SELECT anon_dp_bound_partitions(anon_dp_bounding_secret(), 0, 'n', 1);
SELECT anon_dp_bound_partitions(anon_dp_bounding_secret(), 1, 'x', 1);
SELECT anon_dp_bound_partitions(anon_dp_bounding_secret(), 1, 'gn', 1);
SELECT anon_dp_bound_partitions(anon_dp_bounding_secret(), 1, 'n', 1, 2);
SELECT anon_dp_bound_partitions(anon_dp_bounding_secret(), 1, 'f', 1, 2);
SELECT anon_dp_bound_partitions(anon_dp_bounding_secret(), 1, 'g', 1, point '(1,1)');
SELECT anon_dp_bounded_column('\x0102'::bytea, 0, NULL::int);
SELECT anon_dp_bounded_column(decode(repeat('41', 40), 'hex'), 0, NULL::int);
CREATE TEMP TABLE bd_blob AS
SELECT anon_dp_bound_partitions((SELECT anon_dp_bounding_secret()), 2, 'gn', uid, g1) AS b FROM bd WHERE uid = 8 GROUP BY uid;
SELECT anon_dp_bounded_column(b, 2, NULL::bigint) FROM bd_blob;
SELECT anon_dp_bounded_column(b, 0, NULL::int) FROM bd_blob;
SELECT anon_dp_bounded_column(b, NULL, NULL::int) FROM bd_blob;
SELECT anon_dp_bounded_column(substr(b, 1, length(b) - 3), 1, NULL::bigint) FROM bd_blob;
SELECT cardinality(anon_dp_bounded_column(b, 1, NULL::bigint)) AS kept, anon_dp_bounded_column(NULL, 0, NULL::int) AS null_blob FROM bd_blob;

DROP TABLE bd, bd_coll, bd_pick;
DROP COLLATION bd_ci;
DROP FUNCTION bd_kept(int), bd_check(int), bd_plan_has(text, text);

-- an anonymized session cannot call the building blocks
SET anon_dp.access_level = 'anonymized';
SELECT anon_dp_bounding_secret();
SELECT anon_dp_bounded_column(NULL, 0, NULL::int);
