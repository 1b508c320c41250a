-- bench/tpch/labels.sql -- anon_dp privacy labels for the TPC-H schemas.
--
-- The paper (Wilson et al., PETS 2020, Sec. 4.1 and 4.3) treats customers or
-- suppliers as the users, depending on the query: Q4 and Q13 protect
-- customers, Q16 and Q21 suppliers (its delta = n^(-eps ln n) uses n =
-- 150,000 customers for Q4/Q13 and n = 10,000 suppliers for Q16/Q21 at SF 1).
--
--   tpch        one schema, both privacy units (doc/rewriter.md §1):
--                 customer  customer.c_custkey; orders.o_custkey (the
--                           order's customer, a TPC-H column); lineitem
--                           through its foreign key to orders (l_orderkey)
--                 supplier  supplier.s_suppkey, partsupp.ps_suppkey,
--                           lineitem.l_suppkey (TPC-H columns)
--               each table private to one unit is declared public for the
--               other ("public" in a query protecting suppliers means "not
--               the protected unit", as in the paper); part, nation and
--               region are public.  Two roles choose the unit their
--               anonymization queries protect, in this database:
--                 tpch_customers  anon_dp.privacy_unit = customer
--                 tpch_suppliers  anon_dp.privacy_unit = supplier
--               (full-access benchmark roles with SELECT on the schema; an
--               analyst would also be labelled 'anonymized', doc/access.md)
--
--   tpch_cust   the earlier layouts, with the unit copied into every table
--   tpch_supp   that needs it (lineitem.l_custkey = o_custkey): the default
--               privacy unit only, the other side's tables public.  Kept as
--               the copied-column baseline of bench/key_paths_speed.sh and
--               for the benchmarks written before units through keys.
--
-- Needs the anon_dp library loaded (shared_preload_libraries = 'anon_dp');
-- the ANON_* aggregates also need CREATE EXTENSION anon_dp (load.sh --labels
-- does both).  Labels can be removed with ... IS NULL.

\set ON_ERROR_STOP on
-- label the schemas that exist (load.sh --schemas may have loaded only one)
SELECT to_regnamespace('tpch') IS NOT NULL AS have_tpch,
       to_regnamespace('tpch_cust') IS NOT NULL AS have_cust,
       to_regnamespace('tpch_supp') IS NOT NULL AS have_supp
\gset

\if :have_tpch
-- customers and suppliers in one schema ------------------------------------
SECURITY LABEL FOR anon_dp ON COLUMN tpch.customer.c_custkey IS 'privacy_unit customer';
SECURITY LABEL FOR anon_dp ON COLUMN tpch.orders.o_custkey   IS 'privacy_unit customer';
SECURITY LABEL FOR anon_dp ON COLUMN tpch.lineitem.l_orderkey IS 'privacy_unit customer via orders';
SECURITY LABEL FOR anon_dp ON COLUMN tpch.supplier.s_suppkey  IS 'privacy_unit supplier';
SECURITY LABEL FOR anon_dp ON COLUMN tpch.partsupp.ps_suppkey IS 'privacy_unit supplier';
SECURITY LABEL FOR anon_dp ON COLUMN tpch.lineitem.l_suppkey  IS 'privacy_unit supplier';
SECURITY LABEL FOR anon_dp ON TABLE  tpch.customer IS 'public for supplier';
SECURITY LABEL FOR anon_dp ON TABLE  tpch.orders   IS 'public for supplier';
SECURITY LABEL FOR anon_dp ON TABLE  tpch.supplier IS 'public for customer';
SECURITY LABEL FOR anon_dp ON TABLE  tpch.partsupp IS 'public for customer';
SECURITY LABEL FOR anon_dp ON TABLE  tpch.part     IS 'public';
SECURITY LABEL FOR anon_dp ON TABLE  tpch.nation   IS 'public';
SECURITY LABEL FOR anon_dp ON TABLE  tpch.region   IS 'public';
-- the unit each role's anonymization queries protect, in this database
DO $$
DECLARE
    r record;
BEGIN
    FOR r IN SELECT * FROM (VALUES ('tpch_customers', 'customer'), ('tpch_suppliers', 'supplier')) v(role, unit) LOOP
        IF to_regrole(r.role) IS NULL THEN
            EXECUTE format('CREATE ROLE %I LOGIN', r.role);
        END IF;
        EXECUTE format('ALTER ROLE %I IN DATABASE %I SET anon_dp.privacy_unit = %L',
                       r.role, current_database(), r.unit);
        EXECUTE format('GRANT USAGE ON SCHEMA tpch, public TO %I', r.role);
        EXECUTE format('GRANT SELECT ON ALL TABLES IN SCHEMA tpch TO %I', r.role);
    END LOOP;
END $$;
\endif

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
\endif
