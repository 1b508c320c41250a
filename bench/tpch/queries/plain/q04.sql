-- TPC-H Q4, order priority checking (specification Clause 2.4.4),
-- validation parameter DATE = 1993-07-01.
-- Runs in any schema: SET search_path = tpch (or tpch_cust, tpch_supp).
SELECT
    o_orderpriority,
    count(*) AS order_count
FROM
    orders
WHERE
    o_orderdate >= date '1993-07-01'
    AND o_orderdate < date '1993-07-01' + interval '3' month
    AND EXISTS (
        SELECT *
        FROM lineitem
        WHERE l_orderkey = o_orderkey
          AND l_commitdate < l_receiptdate
    )
GROUP BY
    o_orderpriority
ORDER BY
    o_orderpriority;
