-- Q1 with the three aggregates of the paper's Table 3 in ONE grouped query,
-- suppliers as users: COUNT with Delta_u = 373, AVG and MEDIAN of
-- l_extendedprice with bounds [0, 100000], all four (returnflag,
-- linestatus) groups.
--
-- Not the paper's setting (it runs one aggregate over one record, without
-- thresholding: q01_count.sql, q01_avg.sql, q01_median.sql); this is what
-- the same aggregates cost inside the real grouped query:
--  * C_u = 4: a supplier has lines in at most 4 groups (all four, at SF 1),
--    so contribution bounding keeps every per-user row (no user is cut);
--  * each of the N = 3 aggregates and the user count get
--    epsilon / (C_u (N + 1)) = epsilon / 16;
--  * tau-thresholding cannot be switched off with GROUP BY; the groups
--    hold thousands of suppliers, far above tau, so all four are released.
-- psql variables epsilon, delta, cu override the defaults.
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
    ANON_COUNT(l_orderkey, 373) AS count_order,
    ANON_AVG(l_extendedprice, 0, 100000) AS avg_price,
    ANON_MEDIAN(l_extendedprice, 0, 100000) AS median_price
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
