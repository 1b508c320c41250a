-- Q13 anonymized without the outer join: per-customer counts from orders
-- alone, grouped by the privacy unit o_custkey.
--
-- DIFFERENCE from q13.sql: customers without a qualifying order do not
-- appear, so there is no c_count = 0 partition (at SF 1 about 50,000
-- customers, a third of all: every customer whose key is a multiple of 3,
-- plus the few whose orders all mention special requests).  The other
-- partitions are the same.
-- Uses a subquery in FROM grouped by the privacy unit (accepted by the
-- rewriter installed when this was written).
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
        o_custkey,
        count(*) AS c_count
    FROM
        orders
    WHERE
        o_comment NOT LIKE '%special%requests%'
    GROUP BY
        o_custkey
) AS c_orders
GROUP BY
    c_count
ORDER BY
    custdist DESC,
    c_count DESC;
