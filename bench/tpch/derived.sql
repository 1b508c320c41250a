-- bench/tpch/derived.sql -- a helper table for the join-only form of Q21 in
-- the supplier-unit schema (queries/anon/q21_joins.sql).  load.sh runs it for
-- tpch_supp after loading.
--
-- Q21 asks, for a late line l1 of supplier s, whether another supplier has a
-- line in the same order (EXISTS) and whether no other supplier's line of
-- that order is late (NOT EXISTS).  Both facts depend on other suppliers'
-- rows, so no query that only joins private tables on the supplier key can
-- express them.  This table precomputes them per order:
--
--   os_suppliers       number of distinct suppliers in the order
--   os_late_suppliers  number of distinct suppliers with a late line
--                      (l_receiptdate > l_commitdate) in the order
--
-- For a late line l1: EXISTS (other supplier) <=> os_suppliers > 1, and
-- NOT EXISTS (other late supplier) <=> os_late_suppliers = 1.
--
-- PRIVACY CAVEAT: labels.sql labels this table 'public'.  It is derived from
-- the rows of several suppliers, so a Q21 answer computed from it is NOT
-- differentially private with respect to the *other* suppliers of an order.
-- It is a benchmark relaxation that lets Q21 run before the rewriter accepts
-- subqueries; README.md says so.
--
-- psql variable: schema (normally tpch_supp)

\set ON_ERROR_STOP on
\if :{?schema}
\else
\echo 'derived.sql: set the schema name: psql -v schema=tpch_supp ...'
\quit
\endif
SET search_path = :"schema";

SET client_min_messages = warning;
DROP TABLE IF EXISTS order_suppliers;
RESET client_min_messages;
CREATE TABLE order_suppliers AS
SELECT l_orderkey AS os_orderkey,
       count(DISTINCT l_suppkey)::integer AS os_suppliers,
       (count(DISTINCT l_suppkey) FILTER (WHERE l_receiptdate > l_commitdate))::integer
           AS os_late_suppliers
FROM lineitem
GROUP BY l_orderkey;
ALTER TABLE order_suppliers ADD PRIMARY KEY (os_orderkey);
