-- TPC-H Q13, customer distribution (specification Clause 2.4.13),
-- validation parameters WORD1 = special, WORD2 = requests.
-- Runs in any schema: SET search_path = tpch (or tpch_cust, tpch_supp).
SELECT
    c_count,
    count(*) AS custdist
FROM (
    SELECT
        c_custkey,
        count(o_orderkey)
    FROM
        customer LEFT OUTER JOIN orders ON
            c_custkey = o_custkey
            AND o_comment NOT LIKE '%special%requests%'
    GROUP BY
        c_custkey
) AS c_orders (c_custkey, c_count)
GROUP BY
    c_count
ORDER BY
    custdist DESC,
    c_count DESC;
