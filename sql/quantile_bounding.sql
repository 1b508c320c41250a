-- Row-level quantiles in one pass (issue 35): the sample column 's' of
-- anon_dp_bound_partitions keeps, for every kept (user, partition) pair, up
-- to m of the pair's non-NULL, non-NaN values, a uniformly random subset in
-- uniformly random order (the distribution of anon_dp_sample), in memory
-- and spilled, serially and merged from parallel workers; grouped
-- ANON_MEDIAN and ANON_NTILE use it through the bounding node.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS anon_dp;
RESET client_min_messages;
SET search_path = public, anon_dp_internal;

-- 3000 users, user u in 1 + u % 4 partitions with 1 + (u + p) % 7 rows
-- each; x is unique per row (its id), a NULL or NaN on some rows
CREATE TABLE qb AS
SELECT u AS uid, p AS g,
       CASE WHEN r = 3 THEN NULL WHEN r = 5 THEN 'NaN'::float8 ELSE (u * 100 + p * 10 + r)::float8 END AS x
FROM generate_series(1, 3000) u, generate_series(0, 3) p, generate_series(1, 7) r
WHERE p <= u % 4 AND r <= 1 + (u + p) % 7;
ANALYZE qb;

-- each user's kept pairs, C_u = keep, m = size, as rows (uid, g, sample)
CREATE FUNCTION qb_kept(keep int, size int) RETURNS TABLE (uid int, g int, s float8[])
LANGUAGE plpgsql AS $$
BEGIN
  RETURN QUERY EXECUTE format($q$
    SELECT uid, unnest(anon_dp_bounded_column(k, 0, NULL::int)),
           anon_dp_bounded_sample(unnest(anon_dp_bounded_column(k, 1, NULL::bytea)))
    FROM (SELECT uid, anon_dp_bound_partitions((SELECT anon_dp_bounding_secret()), %s, 'gs',
                                               uid, g, x, %s) AS k
          FROM qb GROUP BY uid) t$q$, keep, size);
END $$;

-- every kept pair: min(keep, partitions) per user; its sample holds
-- min(size, its values) distinct values of the pair, none NULL or NaN
CREATE FUNCTION qb_check(keep int, size int) RETURNS TABLE (pairs bigint, users_ok bool,
  sizes_ok bool, values_ok bool) LANGUAGE sql AS $$
  WITH k AS (SELECT * FROM qb_kept(keep, size)),
  per_pair AS (SELECT uid, g, count(x) FILTER (WHERE x <> 'NaN') AS n FROM qb GROUP BY uid, g),
  per_user AS (SELECT uid, count(*) AS parts FROM per_pair GROUP BY uid)
  SELECT (SELECT count(*) FROM k),
         (SELECT bool_and(kept = least(keep, parts))
          FROM per_user JOIN (SELECT uid, count(*) AS kept FROM k GROUP BY uid) c USING (uid)),
         (SELECT bool_and(coalesce(cardinality(k.s), 0) = least(size, p.n))
          FROM k JOIN per_pair p USING (uid, g)),
         (SELECT bool_and(v IS NOT NULL AND v <> 'NaN' AND (v::bigint / 100) = uid
                          AND (v::bigint / 10) % 10 = g)
            AND count(*) = count(DISTINCT (uid, v))
          FROM k, unnest(k.s) v)
$$;

SET max_parallel_workers_per_gather = 0;
SELECT * FROM qb_check(1, 1);
SELECT * FROM qb_check(2, 3);
SELECT * FROM qb_check(4, 65536);
-- spilled by the node (64kB of work_mem, hash aggregation preferred): the same
CREATE FUNCTION qb_spills(keep int, size int) RETURNS TABLE (node bool, spilled bool)
LANGUAGE plpgsql AS $$
DECLARE plan text := '';
  line text;
BEGIN
  FOR line IN EXECUTE format('EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) SELECT uid, '
      'anon_dp_bound_partitions((SELECT anon_dp_bounding_secret()), %s, ''gs'', uid, g, x, %s) '
      'FROM qb GROUP BY uid', keep, size) LOOP
    plan := plan || line || E'\n';
  END LOOP;
  RETURN QUERY SELECT plan LIKE '%AnonDPBoundUsers%', plan LIKE '%Rows Spilled%';
END $$;
SET work_mem = '64kB';
SET enable_sort = off;
SELECT * FROM qb_spills(2, 3);
SELECT * FROM qb_check(2, 3);
SELECT * FROM qb_check(3, 65536);
RESET enable_sort;
RESET work_mem;
-- merged from parallel workers (partial states combined)
SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0; SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SELECT * FROM qb_check(2, 3);
SELECT * FROM qb_check(1, 1);
RESET parallel_setup_cost; RESET parallel_tuple_cost; RESET min_parallel_table_scan_size;
SET max_parallel_workers_per_gather = 0;

-- the distribution: 60000 users with the values 1 .. 5 in one partition,
-- rows in a random order; m = 2 keeps each of the 20 ordered pairs of
-- distinct values with probability 1/20, m = 1 each value with 1/5
-- (chi-square, 19 and 4 degrees of freedom: below 60 and 30 but for a
-- chance under 1e-6), serially and merged from parallel workers
CREATE TABLE qb_five AS
SELECT u AS uid, 1 AS g, v::float8 AS x
FROM generate_series(1, 60000) u, generate_series(1, 5) v ORDER BY random();
ANALYZE qb_five;
CREATE FUNCTION qb_chi(size int) RETURNS TABLE (cells bigint, users bigint, uniform bool)
LANGUAGE sql AS $$
  WITH s AS (
    SELECT anon_dp_bounded_sample(unnest(anon_dp_bounded_column(
             anon_dp_bound_partitions((SELECT anon_dp_bounding_secret()), 1, 'gs', uid, g, x, size),
             1, NULL::bytea))) AS s
    FROM qb_five GROUP BY uid),
  c AS (SELECT s[1], s[2], count(*) AS n FROM s GROUP BY 1, 2),
  e AS (SELECT 60000.0 / count(*) OVER () AS expected, n FROM c)
  SELECT count(*), sum(n)::bigint,
         sum((n - expected) ^ 2 / expected) < CASE size WHEN 1 THEN 34 ELSE 65 END
  FROM e
$$;
SELECT * FROM qb_chi(2);
SELECT * FROM qb_chi(1);
SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0; SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SELECT * FROM qb_chi(2);
SELECT * FROM qb_chi(1);
RESET parallel_setup_cost; RESET parallel_tuple_cost; RESET min_parallel_table_scan_size;
SET max_parallel_workers_per_gather = 0;

-- grouped ANON_MEDIAN and ANON_NTILE run in the bounding node, with the
-- quantiles' per-user sample in it; keys of the anon_dp_pick path (money
-- has no hash support for it) keep the sort path and anon_dp_sample
RESET search_path;
SECURITY LABEL FOR anon_dp ON COLUMN qb.uid IS 'privacy_unit';
CREATE FUNCTION qb_plan(query text) RETURNS TABLE (node bool, sample_column bool, sorted bool)
LANGUAGE plpgsql AS $$
DECLARE plan text := '';
  line text;
BEGIN
  FOR line IN EXECUTE 'EXPLAIN (VERBOSE, COSTS OFF) ' || query LOOP
    plan := plan || line || E'\n';
  END LOOP;
  RETURN QUERY SELECT plan LIKE '%AnonDPBoundUsers%', plan LIKE '%anon_dp_bounded_sample%',
                      plan LIKE '%anon_dp_sample%';
END $$;
SELECT * FROM qb_plan('SELECT g, ANON_MEDIAN(x, 0, 100000) FROM qb GROUP BY g');
SELECT * FROM qb_plan('SELECT g, ANON_NTILE(x, 0.9, 0, 100000), ANON_COUNT(*) FROM qb GROUP BY g');
SELECT * FROM qb_plan('SELECT g::money, ANON_MEDIAN(x, 0, 100000) FROM qb GROUP BY 1');
-- the released values stay within the bounds, one row per partition
SET anon_dp.epsilon = 1;
SELECT count(*) AS partitions, bool_and(m BETWEEN 0 AND 400000) AS median_in_bounds,
       bool_and(t BETWEEN 0 AND 400000) AS ntile_in_bounds
FROM (SELECT g, ANON_MEDIAN(x, 0, 400000) AS m, ANON_NTILE(x, 0.9, 0, 400000) AS t
      FROM qb GROUP BY g) r;
RESET anon_dp.epsilon;

-- a hand-made value is refused
SELECT anon_dp_internal.anon_dp_bounded_sample('\x0102'::bytea);
SELECT anon_dp_internal.anon_dp_bound_partitions((SELECT anon_dp_internal.anon_dp_bounding_secret()), 1, 'gs', uid, g, x, 0)
FROM qb GROUP BY uid LIMIT 1;

DROP FUNCTION qb_plan(text);
DROP FUNCTION qb_spills(int, int);
DROP FUNCTION qb_chi(int);
DROP FUNCTION qb_check(int, int);
DROP FUNCTION qb_kept(int, int);
DROP TABLE qb_five;
DROP TABLE qb;
