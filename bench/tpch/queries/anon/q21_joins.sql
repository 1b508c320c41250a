-- Q21 anonymized, suppliers as users, using only joins (accepted by the
-- current rewriter) -- WITH A RELAXATION.
--
-- The EXISTS / NOT EXISTS conditions are replaced by the per-order summary
-- order_suppliers (derived.sql): for a late line l1,
--   EXISTS another supplier in the order       <=> os_suppliers > 1
--   NOT EXISTS another late supplier in it     <=> os_late_suppliers = 1
-- so the exact answer equals the specification's Q21.
--
-- PRIVACY CAVEAT: order_suppliers is labelled 'public' but is computed from
-- the lines of all suppliers of an order, so this release is NOT
-- differentially private with respect to the other suppliers of an order.
-- It exists to measure accuracy and thresholding (paper Table 4) until the
-- rewriter can check the natural form (q21.sql).
\if :{?epsilon} \else \set epsilon 0.1 \endif
\if :{?delta} \else \set delta 2.07e-4 \endif
SET search_path = tpch_supp, public;   -- public: where CREATE EXTENSION anon_dp put the ANON_* aggregates
SET anon_dp.epsilon = :epsilon;
SET anon_dp.delta = :delta;     -- n^(-eps ln n), n = 10,000 suppliers at SF 1
SET anon_dp.max_groups_contributed = 1;

SELECT
    s_name,
    ANON_COUNT(*) AS numwait
FROM
    supplier
    JOIN lineitem l1 ON s_suppkey = l1.l_suppkey
    JOIN orders ON o_orderkey = l1.l_orderkey
    JOIN order_suppliers ON os_orderkey = l1.l_orderkey
    JOIN nation ON n_nationkey = s_nationkey
WHERE
    o_orderstatus = 'F'
    AND l1.l_receiptdate > l1.l_commitdate
    AND os_suppliers > 1
    AND os_late_suppliers = 1
    AND n_name = 'SAUDI ARABIA'
GROUP BY
    s_name
ORDER BY
    numwait DESC,
    s_name
LIMIT 100;
