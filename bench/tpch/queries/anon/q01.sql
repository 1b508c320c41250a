-- Q1 anonymized, all eight aggregates, suppliers as users.
--
-- The paper (Table 3) runs Q1 with single aggregates over one result
-- record: see q01_count.sql, q01_avg.sql, q01_median.sql.  This is the whole
-- query with every aggregate replaced by its ANON_* counterpart.
--
-- Privacy unit: lineitem.l_suppkey (schema tpch, unit supplier); the same
-- text run as tpch_customers protects customers (lineitem through its key to
-- orders).
-- C_u = 4: a supplier has lines in all four (returnflag, linestatus) groups.
--
-- Bounds (GUESSES, not in the paper): a user contributes at most 373 rows
-- per group (the paper's Delta_u for COUNT(*) in Table 3); a row has
-- quantity <= 50, extended price <= 50 * 2098.99 < 105,000, charge
-- <= 105,000 * 1.08 < 113,400; so per-user sums are bounded by 373 times
-- those values.  Averages are bounded by the per-row ranges of the
-- specification.  With 9 releases per group and C_u = 4 each release gets
-- epsilon / 36, so the sums are very noisy at epsilon = 0.1.
--
-- Not in the paper; psql variables epsilon, cu override the defaults.
\if :{?epsilon} \else \set epsilon 0.1 \endif
\if :{?cu} \else \set cu 4 \endif
\if :{?delta} \else \set delta 2.07e-4 \endif
SET search_path = tpch, public;   -- public: where CREATE EXTENSION anon_dp put the ANON_* aggregates
-- run as tpch_suppliers: its anonymization queries protect suppliers (labels.sql)
SET anon_dp.epsilon = :epsilon;
SET anon_dp.delta = :delta;     -- n^(-eps ln n), n = 10,000 suppliers at SF 1
SET anon_dp.max_groups_contributed = :cu;

SELECT
    l_returnflag,
    l_linestatus,
    ANON_SUM(l_quantity, 0, 18650) AS sum_qty,
    ANON_SUM(l_extendedprice, 0, 39165000) AS sum_base_price,
    ANON_SUM(l_extendedprice * (1 - l_discount), 0, 39165000) AS sum_disc_price,
    ANON_SUM(l_extendedprice * (1 - l_discount) * (1 + l_tax), 0, 42298200) AS sum_charge,
    ANON_AVG(l_quantity, 1, 50) AS avg_qty,
    ANON_AVG(l_extendedprice, 900, 105000) AS avg_price,
    ANON_AVG(l_discount, 0, 0.10) AS avg_disc,
    ANON_COUNT(l_orderkey, 373) AS count_order
FROM
    lineitem
WHERE
    l_shipdate <= date '1998-12-01' - interval '90' day
GROUP BY
    l_returnflag,
    l_linestatus
ORDER BY
    l_returnflag,
    l_linestatus;
