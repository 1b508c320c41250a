-- Q16 anonymized, suppliers as users (paper Table 4: Delta_u = 1, C_u = 5).
--
-- supplier_cnt = count(DISTINCT ps_suppkey) is the number of users in the
-- partition, which is what ANON_COUNT(*) releases (per-user count clamped
-- to 1).  Natural form: the specification's NOT IN over supplier, with one
-- added condition, s_suppkey = ps_suppkey, inside the subquery.  It does not
-- change the result (NOT IN asks whether ps_suppkey itself is a complaining
-- supplier) but it makes the subquery read only the row of the outer row's
-- own user, which is what the rewriter checks before it accepts an
-- expression subquery over a private table (without it the query is refused:
-- "a subquery in an expression reads "supplier", which is not a public
-- table").  q16_joins.sql is the same query written as a join.
--
-- Privacy unit: partsupp.ps_suppkey, supplier.s_suppkey (schema tpch, unit
-- supplier); part is public.  C_u = 5 as in the paper.  A supplier supplies 80 parts at
-- any SF (4 suppliers per part, SF * 200,000 parts, SF * 10,000 suppliers);
-- about 15 % of them pass the filters, so a supplier is in about 12
-- partitions, of which C_u = 5 are kept.
\if :{?epsilon} \else \set epsilon 0.1 \endif
\if :{?cu} \else \set cu 5 \endif
\if :{?delta} \else \set delta 2.07e-4 \endif
SET search_path = tpch, public;   -- public: where CREATE EXTENSION anon_dp put the ANON_* aggregates
-- run as tpch_suppliers: its anonymization queries protect suppliers (labels.sql)
SET anon_dp.epsilon = :epsilon;
SET anon_dp.delta = :delta;     -- n^(-eps ln n), n = 10,000 suppliers at SF 1
SET anon_dp.max_groups_contributed = :cu;

SELECT
    p_brand,
    p_type,
    p_size,
    ANON_COUNT(*) AS supplier_cnt
FROM
    partsupp,
    part
WHERE
    p_partkey = ps_partkey
    AND p_brand <> 'Brand#45'
    AND p_type NOT LIKE 'MEDIUM POLISHED%'
    AND p_size IN (49, 14, 23, 45, 19, 3, 36, 9)
    AND ps_suppkey NOT IN (
        SELECT s_suppkey
        FROM supplier
        WHERE s_suppkey = ps_suppkey
          AND s_comment LIKE '%Customer%Complaints%'
    )
GROUP BY
    p_brand,
    p_type,
    p_size
ORDER BY
    supplier_cnt DESC,
    p_brand,
    p_type,
    p_size;
