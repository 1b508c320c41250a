-- bench/tpch/keys.sql -- primary keys of the TPC-H specification (Clause 1.4.2)
-- and, optionally, its foreign keys (Clause 1.4.2 / 2.1.3.4).  Run after
-- loading: building an index once is faster than maintaining it during COPY.
--
-- psql variables:
--   schema         the schema holding the tables
--   foreign_keys   on: also add the foreign keys (checking them reads every
--                  row again; the data satisfy them by construction)

\set ON_ERROR_STOP on
\if :{?schema}
\else
\echo 'keys.sql: set the schema name: psql -v schema=tpch_cust ...'
\quit
\endif
\if :{?foreign_keys}
\else
\set foreign_keys off
\endif
SET search_path = :"schema";

ALTER TABLE region   ADD PRIMARY KEY (r_regionkey);
ALTER TABLE nation   ADD PRIMARY KEY (n_nationkey);
ALTER TABLE supplier ADD PRIMARY KEY (s_suppkey);
ALTER TABLE customer ADD PRIMARY KEY (c_custkey);
ALTER TABLE part     ADD PRIMARY KEY (p_partkey);
ALTER TABLE partsupp ADD PRIMARY KEY (ps_partkey, ps_suppkey);
ALTER TABLE orders   ADD PRIMARY KEY (o_orderkey);
ALTER TABLE lineitem ADD PRIMARY KEY (l_orderkey, l_linenumber);

\if :foreign_keys
ALTER TABLE nation   ADD FOREIGN KEY (n_regionkey) REFERENCES region;
ALTER TABLE supplier ADD FOREIGN KEY (s_nationkey) REFERENCES nation;
ALTER TABLE customer ADD FOREIGN KEY (c_nationkey) REFERENCES nation;
ALTER TABLE partsupp ADD FOREIGN KEY (ps_partkey) REFERENCES part;
ALTER TABLE partsupp ADD FOREIGN KEY (ps_suppkey) REFERENCES supplier;
ALTER TABLE orders   ADD FOREIGN KEY (o_custkey) REFERENCES customer;
ALTER TABLE lineitem ADD FOREIGN KEY (l_orderkey) REFERENCES orders;
ALTER TABLE lineitem ADD FOREIGN KEY (l_partkey) REFERENCES part;
ALTER TABLE lineitem ADD FOREIGN KEY (l_suppkey) REFERENCES supplier;
ALTER TABLE lineitem ADD FOREIGN KEY (l_partkey, l_suppkey) REFERENCES partsupp;
\endif
