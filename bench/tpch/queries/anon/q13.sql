-- Q13 anonymized, customers as users (paper Table 4: Delta_u = 1, C_u = 1;
-- Fig. 2 varies delta on this query).
--
-- Natural form: the inner query counts each customer's orders grouped by
-- the privacy unit c_custkey and selects it, so every inner row belongs to
-- one customer; the outer ANON_COUNT(*) counts customers per c_count.
-- The outer join of two private tables is accepted because its ON clause
-- equates their privacy units (c_custkey = o_custkey): every joined row,
-- null-extended or not, belongs to one customer, and the unit comes from
-- the preserved side (customer).  q13_inner.sql avoids the outer join but
-- loses the c_count = 0 partition.
--
-- Each customer is in exactly one partition, so C_u = 1 loses nothing.
\if :{?epsilon} \else \set epsilon 0.1 \endif
\if :{?delta} \else \set delta 6.78e-7 \endif
SET search_path = tpch, public;   -- public: where CREATE EXTENSION anon_dp put the ANON_* aggregates
-- run as tpch_customers: its anonymization queries protect customers (labels.sql)
SET anon_dp.epsilon = :epsilon;
SET anon_dp.delta = :delta;     -- n^(-eps ln n), n = 150,000 customers at SF 1
SET anon_dp.max_groups_contributed = 1;

SELECT
    c_count,
    ANON_COUNT(*) AS custdist
FROM (
    SELECT
        c_custkey,
        count(o_orderkey) AS c_count
    FROM
        customer LEFT OUTER JOIN orders ON
            c_custkey = o_custkey
            AND o_comment NOT LIKE '%special%requests%'
    GROUP BY
        c_custkey
) AS c_orders
GROUP BY
    c_count
ORDER BY
    custdist DESC,
    c_count DESC;
