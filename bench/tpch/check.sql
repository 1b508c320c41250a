-- bench/tpch/check.sql -- sanity checks of a loaded TPC-H schema: row counts,
-- key relationships, the LIKE-pattern frequencies of Q13 and Q16, and the
-- shapes of the plain query results.  Exact values (no anon_dp involved).
--
--   psql -v schema=tpch_supp -f bench/tpch/check.sql

\set ON_ERROR_STOP on
\if :{?schema}
\else
\set schema tpch_supp
\endif
SET search_path = :"schema";
\pset footer off

\echo '== row counts'
SELECT 'region' AS t, count(*) FROM region UNION ALL
SELECT 'nation', count(*) FROM nation UNION ALL
SELECT 'supplier', count(*) FROM supplier UNION ALL
SELECT 'customer', count(*) FROM customer UNION ALL
SELECT 'part', count(*) FROM part UNION ALL
SELECT 'partsupp', count(*) FROM partsupp UNION ALL
SELECT 'orders', count(*) FROM orders UNION ALL
SELECT 'lineitem', count(*) FROM lineitem;

\echo '== keys and relationships (0 or true, except customers_with_orders = 2/3 of customers)'
SELECT
    (SELECT count(*) FROM lineitem l LEFT JOIN partsupp ps
        ON ps_partkey = l_partkey AND ps_suppkey = l_suppkey
     WHERE ps_partkey IS NULL) AS lines_without_partsupp,
    (SELECT count(*) FROM orders WHERE o_custkey % 3 = 0) AS orders_of_custkey_mod3_0,
    (SELECT count(DISTINCT o_custkey) FROM orders) AS customers_with_orders,
    (SELECT count(*) FROM orders o
     WHERE o_orderstatus <> (SELECT CASE WHEN bool_and(l_linestatus = 'F') THEN 'F'
                                         WHEN bool_and(l_linestatus = 'O') THEN 'O'
                                         ELSE 'P' END
                             FROM lineitem WHERE l_orderkey = o_orderkey))
        AS wrong_orderstatus,
    (SELECT count(*) FROM orders o
     WHERE o_totalprice <> (SELECT sum(round(l_extendedprice * (1 - l_discount) * (1 + l_tax), 2))
                            FROM lineitem WHERE l_orderkey = o_orderkey))
        AS wrong_totalprice,
    (SELECT count(*) FROM lineitem l JOIN part ON p_partkey = l_partkey
     WHERE l_extendedprice <> l_quantity * p_retailprice) AS wrong_extendedprice,
    (SELECT max(o_orderkey) <= 4 * count(*) FROM orders) AS sparse_keys_ok;

SELECT EXISTS (SELECT 1 FROM information_schema.columns
               WHERE table_schema = :'schema' AND table_name = 'lineitem'
                 AND column_name = 'l_custkey') AS has_l_custkey
\gset
\if :has_l_custkey
\echo '== tpch_cust: l_custkey is the order''s customer (should be 0)'
SELECT count(*) AS lines_with_wrong_custkey
FROM lineitem JOIN orders ON o_orderkey = l_orderkey
WHERE l_custkey <> o_custkey;
\endif

\echo '== LIKE patterns of Q13 and Q16'
SELECT
    (SELECT count(*) FROM orders WHERE o_comment LIKE '%special%requests%')
        AS orders_special_requests,
    round(100.0 * (SELECT count(*) FROM orders WHERE o_comment LIKE '%special%requests%')
          / (SELECT count(*) FROM orders), 3) AS pct_orders,
    (SELECT count(*) FROM supplier WHERE s_comment LIKE '%Customer%Complaints%')
        AS suppliers_complaints,
    (SELECT count(*) FROM supplier WHERE s_comment LIKE '%Customer%Recommends%')
        AS suppliers_recommends;

\echo '== Q1 groups: share of all lineitems'
SELECT l_returnflag, l_linestatus, count(*) AS count_order,
       round(100.0 * count(*) / (SELECT count(*) FROM lineitem), 2) AS pct,
       round(avg(l_quantity), 2) AS avg_qty, round(avg(l_extendedprice), 2) AS avg_price,
       round(avg(l_discount), 4) AS avg_disc
FROM lineitem
WHERE l_shipdate <= date '1998-12-01' - interval '90' day
GROUP BY 1, 2 ORDER BY 1, 2;

\echo '== Q1: largest number of rows one user has in one group (the paper''s Delta_u = 373 at SF 1)'
SELECT 'supplier' AS unit, l_returnflag, l_linestatus, max(n) AS max_rows, round(avg(n), 1) AS avg_rows
FROM (SELECT l_suppkey, l_returnflag, l_linestatus, count(*) AS n FROM lineitem
      WHERE l_shipdate <= date '1998-12-01' - interval '90' day GROUP BY 1, 2, 3) s
GROUP BY 2, 3
UNION ALL
SELECT 'customer', l_returnflag, l_linestatus, max(n), round(avg(n), 1)
FROM (SELECT o_custkey, l_returnflag, l_linestatus, count(*) AS n
      FROM lineitem JOIN orders ON o_orderkey = l_orderkey
      WHERE l_shipdate <= date '1998-12-01' - interval '90' day GROUP BY 1, 2, 3) c
GROUP BY 2, 3
ORDER BY 1 DESC, 2, 3;

\echo '== Q4 (orders per priority) and the join-only variant (customers per priority)'
SELECT o_orderpriority, count(*) AS order_count,
       count(DISTINCT o_custkey) AS customers,
       round(count(DISTINCT o_custkey)::numeric / count(*), 4) AS ratio
FROM orders
WHERE o_orderdate >= date '1993-07-01' AND o_orderdate < date '1993-07-01' + interval '3' month
  AND EXISTS (SELECT * FROM lineitem WHERE l_orderkey = o_orderkey AND l_commitdate < l_receiptdate)
GROUP BY 1 ORDER BY 1;

\echo '== Q13 shape: partitions, c_count = 0, the two modes (key mod 3 = 1 and 2)'
WITH q13 AS (
    SELECT c_count, count(*) AS custdist
    FROM (SELECT c_custkey, count(o_orderkey) AS c_count
          FROM customer LEFT JOIN orders ON c_custkey = o_custkey
               AND o_comment NOT LIKE '%special%requests%'
          GROUP BY c_custkey) c
    GROUP BY c_count)
SELECT (SELECT count(*) FROM q13) AS partitions,
       (SELECT max(c_count) FROM q13) AS max_c_count,
       (SELECT custdist FROM q13 WHERE c_count = 0) AS custdist_0,
       (SELECT c_count FROM q13 WHERE c_count BETWEEN 1 AND 14 ORDER BY custdist DESC LIMIT 1) AS mode_low,
       (SELECT c_count FROM q13 WHERE c_count >= 15 ORDER BY custdist DESC LIMIT 1) AS mode_high,
       (SELECT count(*) FROM q13 WHERE custdist < 100) AS partitions_below_100_customers;

\echo '== Q16: result rows and distribution of supplier_cnt'
WITH q16 AS (
    SELECT p_brand, p_type, p_size, count(DISTINCT ps_suppkey) AS supplier_cnt
    FROM partsupp, part
    WHERE p_partkey = ps_partkey AND p_brand <> 'Brand#45'
      AND p_type NOT LIKE 'MEDIUM POLISHED%' AND p_size IN (49, 14, 23, 45, 19, 3, 36, 9)
      AND ps_suppkey NOT IN (SELECT s_suppkey FROM supplier WHERE s_comment LIKE '%Customer%Complaints%')
    GROUP BY 1, 2, 3)
SELECT count(*) AS result_rows, max(supplier_cnt) AS max_cnt,
       round(avg(supplier_cnt), 2) AS avg_cnt,
       percentile_disc(0.5) WITHIN GROUP (ORDER BY supplier_cnt) AS median_cnt
FROM q16;

\echo '== Q21: qualifying suppliers (before LIMIT 100) and the largest numwait'
WITH q21 AS (
    SELECT s_name, count(*) AS numwait
    FROM supplier, lineitem l1, orders, nation
    WHERE s_suppkey = l1.l_suppkey AND o_orderkey = l1.l_orderkey AND o_orderstatus = 'F'
      AND l1.l_receiptdate > l1.l_commitdate
      AND EXISTS (SELECT * FROM lineitem l2 WHERE l2.l_orderkey = l1.l_orderkey AND l2.l_suppkey <> l1.l_suppkey)
      AND NOT EXISTS (SELECT * FROM lineitem l3 WHERE l3.l_orderkey = l1.l_orderkey
                      AND l3.l_suppkey <> l1.l_suppkey AND l3.l_receiptdate > l3.l_commitdate)
      AND s_nationkey = n_nationkey AND n_name = 'SAUDI ARABIA'
    GROUP BY s_name)
SELECT count(*) AS suppliers, max(numwait) AS max_numwait, min(numwait) AS min_numwait FROM q21;
