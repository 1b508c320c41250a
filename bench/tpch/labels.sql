-- bench/tpch/labels.sql -- anon_dp privacy labels for the two TPC-H schemas.
--
-- The paper (Wilson et al., PETS 2020, Sec. 4.1 and 4.3) treats customers or
-- suppliers as the users, depending on the query: Q4 and Q13 protect
-- customers, Q16 and Q21 suppliers (its delta = n^(-eps ln n) uses n =
-- 150,000 customers for Q4/Q13 and n = 10,000 suppliers for Q16/Q21 at SF 1).
-- A table has at most one privacy unit column, so load.sh loads the data
-- twice:
--
--   tpch_cust   privacy unit = customer: customer.c_custkey, orders.o_custkey,
--               lineitem.l_custkey (o_custkey copied into every line);
--               supplier, partsupp, part, nation, region are public
--   tpch_supp   privacy unit = supplier: supplier.s_suppkey,
--               partsupp.ps_suppkey, lineitem.l_suppkey;
--               customer, orders, part, nation, region are public
--               (and the derived order_suppliers, see derived.sql)
--
-- "public" in a schema means "not the protected unit of this experiment":
-- customers' orders are public data in the supplier experiment and vice
-- versa, as in the paper.
--
-- Needs the anon_dp library loaded (shared_preload_libraries = 'anon_dp');
-- the ANON_* aggregates also need CREATE EXTENSION anon_dp (load.sh --labels
-- does both).  Labels can be removed with ... IS NULL.

\set ON_ERROR_STOP on
-- label the schemas that exist (load.sh --schemas may have loaded only one)
SELECT to_regnamespace('tpch_cust') IS NOT NULL AS have_cust,
       to_regnamespace('tpch_supp') IS NOT NULL AS have_supp,
       to_regclass('tpch_supp.order_suppliers') IS NOT NULL AS have_os
\gset

\if :have_cust
-- customers as users ----------------------------------------------------
SECURITY LABEL FOR anon_dp ON COLUMN tpch_cust.customer.c_custkey IS 'privacy_unit';
SECURITY LABEL FOR anon_dp ON COLUMN tpch_cust.orders.o_custkey   IS 'privacy_unit';
SECURITY LABEL FOR anon_dp ON COLUMN tpch_cust.lineitem.l_custkey IS 'privacy_unit';
SECURITY LABEL FOR anon_dp ON TABLE  tpch_cust.supplier IS 'public';
SECURITY LABEL FOR anon_dp ON TABLE  tpch_cust.partsupp IS 'public';
SECURITY LABEL FOR anon_dp ON TABLE  tpch_cust.part     IS 'public';
SECURITY LABEL FOR anon_dp ON TABLE  tpch_cust.nation   IS 'public';
SECURITY LABEL FOR anon_dp ON TABLE  tpch_cust.region   IS 'public';
\endif

\if :have_supp
-- suppliers as users ----------------------------------------------------
SECURITY LABEL FOR anon_dp ON COLUMN tpch_supp.supplier.s_suppkey  IS 'privacy_unit';
SECURITY LABEL FOR anon_dp ON COLUMN tpch_supp.partsupp.ps_suppkey IS 'privacy_unit';
SECURITY LABEL FOR anon_dp ON COLUMN tpch_supp.lineitem.l_suppkey  IS 'privacy_unit';
SECURITY LABEL FOR anon_dp ON TABLE  tpch_supp.customer IS 'public';
SECURITY LABEL FOR anon_dp ON TABLE  tpch_supp.orders   IS 'public';
SECURITY LABEL FOR anon_dp ON TABLE  tpch_supp.part     IS 'public';
SECURITY LABEL FOR anon_dp ON TABLE  tpch_supp.nation   IS 'public';
SECURITY LABEL FOR anon_dp ON TABLE  tpch_supp.region   IS 'public';
\if :have_os
-- benchmark relaxation, NOT differentially private for the other suppliers
-- of an order: see derived.sql
SECURITY LABEL FOR anon_dp ON TABLE  tpch_supp.order_suppliers IS 'public';
\endif
\endif
