-- Q4 anonymized, customers as users, using only a join of orders with its
-- lines on the lines' foreign key (l_orderkey = o_orderkey: the same
-- customer, doc/rewriter.md "Privacy units through foreign keys").
--
-- DIFFERENCE from q04.sql: joining orders to its late lines repeats an
-- order once per late line, so ANON_COUNT(o_orderkey, 5) would count late
-- lines.  ANON_COUNT(*) counts customers instead: the number of customers
-- with at least one order of that priority, in the quarter, with a late
-- line.  Some customers have two such orders of one priority in the
-- quarter, so the exact value is about 6 % below Q4's order count
-- (customers / orders = 0.94 at SF 1, check.sql).
\if :{?epsilon} \else \set epsilon 0.1 \endif
\if :{?cu} \else \set cu 5 \endif
\if :{?delta} \else \set delta 6.78e-7 \endif
SET search_path = tpch, public;   -- public: where CREATE EXTENSION anon_dp put the ANON_* aggregates
-- run as tpch_customers: its anonymization queries protect customers (labels.sql)
SET anon_dp.epsilon = :epsilon;
SET anon_dp.delta = :delta;     -- n^(-eps ln n), n = 150,000 customers at SF 1
SET anon_dp.max_groups_contributed = :cu;

SELECT
    o_orderpriority,
    ANON_COUNT(*) AS order_count
FROM
    orders
    JOIN lineitem ON l_orderkey = o_orderkey
WHERE
    o_orderdate >= date '1993-07-01'
    AND o_orderdate < date '1993-07-01' + interval '3' month
    AND l_commitdate < l_receiptdate
GROUP BY
    o_orderpriority
ORDER BY
    o_orderpriority;
