-- Q16 anonymized, suppliers as users, using only joins (accepted by the
-- current rewriter).  Same result as q16.sql: the NOT IN becomes a join of
-- partsupp with supplier on the privacy unit (s_suppkey is supplier's
-- primary key and every ps_suppkey has a supplier) and a NOT LIKE on the
-- joined supplier's own comment.
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
    partsupp
    JOIN supplier ON s_suppkey = ps_suppkey
    JOIN part ON p_partkey = ps_partkey
WHERE
    p_brand <> 'Brand#45'
    AND p_type NOT LIKE 'MEDIUM POLISHED%'
    AND p_size IN (49, 14, 23, 45, 19, 3, 36, 9)
    AND s_comment NOT LIKE '%Customer%Complaints%'
GROUP BY
    p_brand,
    p_type,
    p_size
ORDER BY
    supplier_cnt DESC,
    p_brand,
    p_type,
    p_size;
