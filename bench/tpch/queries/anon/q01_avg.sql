-- Q1 as in the paper's Table 3:
-- epsilon-AVG(l_extendedprice), bounds [0, 100000].
--
-- The paper disables tau-thresholding and compares one result record with
-- C_u = 1.  Here the record is selected in WHERE and the query has no GROUP
-- BY, so anon_dp releases exactly one row without thresholding (DESIGN.md
-- Sec. 3) and each supplier contributes to one partition only.
--
-- GUESSES: the paper does not say which record or which users.
--  * Users = suppliers: Delta_u = 373 matches the largest number of rows one
--    supplier has in one Q1 group at SF 1 (group N/O; 377 in our data, see
--    README.md); per customer the largest is about 117.
--  * Record = A/F: the "incorrect sensitivity" row of Table 3 (COUNT with
--    Delta_u = 1, error 0.993) fits 1 - 10,000 suppliers / 1.48 million rows
--    = 0.9932, the size of A/F (or R/F); N/O would give 0.9966.
--  * The paper gives the whole epsilon to the one aggregate; anon_dp splits
--    it as epsilon / (C_u (N + 1)) = epsilon / 2 even without GROUP BY, so
--    expect about twice the paper's error at the same epsilon.
--  * ANON_AVG is the average of per-supplier averages and ANON_MEDIAN the
--    median of per-supplier averages (doc/rewriter.md Sec. 3), not of rows.
\if :{?epsilon} \else \set epsilon 0.1 \endif
SET search_path = tpch, public;   -- public: where CREATE EXTENSION anon_dp put the ANON_* aggregates
-- run as tpch_suppliers: its anonymization queries protect suppliers (labels.sql)
SET anon_dp.epsilon = :epsilon;
SET anon_dp.max_groups_contributed = 1;

SELECT
    ANON_AVG(l_extendedprice, 0, 100000) AS avg_price
FROM
    lineitem
WHERE
    l_shipdate <= date '1998-12-01' - interval '90' day
    AND l_returnflag = 'A'
    AND l_linestatus = 'F';
