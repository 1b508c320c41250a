-- key_units: privacy units reached through foreign keys, and several units
-- in one database (issue 31; doc/rewriter.md §1 "Privacy units through
-- foreign keys", "Several privacy units"; src/guard/unit_paths.c,
-- key_policy.c, src/anonymizer/key_inputs.c).
--
-- A TPC-H-like schema without copied unit columns: a line belongs to the
-- customer of its order (two keys: lineitem -> orders -> customer) and to
-- the supplier of its partsupp row (a composite key, then partsupp ->
-- supplier).  Accepted queries print properties of the released rows at
-- epsilon 1e6 (counts exact), never noise.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS anon_dp;
RESET client_min_messages;
SET anon_dp.epsilon = 1000000;
SELECT current_user AS ku_admin \gset
-- the joins and scans of a query's plan (the rest of the plan is rewriter.sql's)
CREATE FUNCTION ku_joins(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
  line text;
BEGIN
  FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
    IF line ~ '(Join|Scan on|Cond:|Semi|Anti)' AND line !~ 'Subquery Scan' THEN
      RETURN NEXT btrim(regexp_replace(line, '->', ''));
    END IF;
  END LOOP;
END $$;

CREATE TABLE ku_customer (c_custkey int PRIMARY KEY, c_seg text NOT NULL);
CREATE TABLE ku_supplier (s_suppkey int PRIMARY KEY, s_nation text NOT NULL);
CREATE TABLE ku_part (p_partkey int PRIMARY KEY, p_brand text NOT NULL);
CREATE TABLE ku_partsupp (ps_partkey int REFERENCES ku_part, ps_suppkey int REFERENCES ku_supplier,
                          ps_qty int, PRIMARY KEY (ps_partkey, ps_suppkey));
CREATE TABLE ku_orders (o_orderkey int PRIMARY KEY, o_custkey int NOT NULL REFERENCES ku_customer,
                        o_prio text NOT NULL);
CREATE TABLE ku_lineitem (l_orderkey int REFERENCES ku_orders, l_line int, l_partkey int, l_suppkey int,
                          l_qty int, PRIMARY KEY (l_orderkey, l_line),
                          FOREIGN KEY (l_partkey, l_suppkey) REFERENCES ku_partsupp);
-- 60 customers (3 segments), 12 suppliers, 20 parts with 3 suppliers each;
-- 180 orders, 3 per customer, a customer's orders of one priority; 4 lines each
INSERT INTO ku_customer SELECT c, 'seg' || c % 3 FROM generate_series(1, 60) c;
INSERT INTO ku_supplier SELECT s, CASE WHEN s <= 4 THEN 'north' ELSE 'south' END FROM generate_series(1, 12) s;
INSERT INTO ku_part SELECT p, 'brand' || p % 2 FROM generate_series(1, 20) p;
INSERT INTO ku_partsupp SELECT p, 1 + (p + k) % 12, k FROM generate_series(1, 20) p, generate_series(0, 2) k;
INSERT INTO ku_orders SELECT o, 1 + o % 60, 'prio' || o % 2 FROM generate_series(1, 180) o;
INSERT INTO ku_lineitem SELECT o, l, 1 + (o * 4 + l) % 20, 1 + (1 + (o * 4 + l) % 20 + l % 3) % 12, l
FROM generate_series(1, 180) o, generate_series(1, 4) l;
ANALYZE ku_customer, ku_supplier, ku_part, ku_partsupp, ku_orders, ku_lineitem;

-- ==== labels ====
SECURITY LABEL FOR anon_dp ON COLUMN ku_customer.c_custkey IS 'privacy_unit customer';
SECURITY LABEL FOR anon_dp ON COLUMN ku_orders.o_custkey IS 'privacy_unit customer via ku_customer';
SECURITY LABEL FOR anon_dp ON COLUMN ku_lineitem.l_orderkey IS 'privacy_unit customer via ku_orders';
SECURITY LABEL FOR anon_dp ON COLUMN ku_supplier.s_suppkey IS 'privacy_unit supplier';
-- a key named by its constraint; a composite key labelled on one of its columns
SECURITY LABEL FOR anon_dp ON COLUMN ku_partsupp.ps_suppkey IS 'privacy_unit supplier via ku_partsupp_ps_suppkey_fkey';
SECURITY LABEL FOR anon_dp ON COLUMN ku_lineitem.l_suppkey IS 'privacy_unit supplier via ku_partsupp';
SECURITY LABEL FOR anon_dp ON TABLE ku_part IS 'public';
SECURITY LABEL FOR anon_dp ON TABLE ku_customer IS 'public for supplier';
SECURITY LABEL FOR anon_dp ON TABLE ku_orders IS 'public for supplier';
SECURITY LABEL FOR anon_dp ON TABLE ku_supplier IS 'public for customer';
SECURITY LABEL FOR anon_dp ON TABLE ku_partsupp IS 'public for customer';
SELECT objoid::regclass AS relation, coalesce(a.attname::text, '') AS column, l.label
FROM pg_seclabel l LEFT JOIN pg_attribute a ON a.attrelid = l.objoid AND a.attnum = l.objsubid
WHERE l.provider = 'anon_dp' AND objoid::regclass::text LIKE 'ku\_%' ORDER BY 1, 2;
-- what a label may say
SECURITY LABEL FOR anon_dp ON COLUMN ku_orders.o_prio IS 'privacy_unit Customer';
SECURITY LABEL FOR anon_dp ON COLUMN ku_orders.o_prio IS 'privacy_unit customer via';
SECURITY LABEL FOR anon_dp ON COLUMN ku_orders.o_prio IS 'privacy_unit a, privacy_unit a';
SECURITY LABEL FOR anon_dp ON COLUMN ku_orders.o_prio IS 'privacy_unit customer';
SECURITY LABEL FOR anon_dp ON COLUMN ku_customer.c_seg IS 'privacy_unit customer';
SECURITY LABEL FOR anon_dp ON TABLE ku_orders IS 'public for';
SECURITY LABEL FOR anon_dp ON TABLE ku_orders IS 'public for customer';
SECURITY LABEL FOR anon_dp ON TABLE ku_part IS 'public for x, via';
SHOW anon_dp.privacy_unit;
SET anon_dp.privacy_unit = 'Not a unit';

-- ==== 1. a unit through keys: the rewriter adds the joins ====
SET anon_dp.privacy_unit = customer;
-- two keys (lineitem -> orders -> customer): every customer has lines
SELECT ANON_COUNT(*) = 60 AS customers_of_lines FROM ku_lineitem;
SELECT ANON_COUNT(*) = 60 AS customers_of_orders FROM ku_orders;
SET anon_dp.max_groups_contributed = 4;
SELECT l_qty, ANON_COUNT(*) = 60 AS each_qty FROM ku_lineitem GROUP BY l_qty ORDER BY 1;
SELECT ANON_SUM(l_qty, 0, 100) = 60 * 3 * 10 AS sum_per_customer FROM ku_lineitem;
-- the joins as EXPLAIN shows them, the unit of the last table
SELECT ku_joins('SELECT l_qty, ANON_COUNT(*) FROM ku_lineitem GROUP BY l_qty');
-- the analyst's own key equalities put rows together: no join is added
-- (TPC-H Q4: EXISTS over lineitem; a join with the referenced row)
SELECT o_prio, ANON_COUNT(*) = 30 AS q4 FROM ku_orders o
WHERE EXISTS (SELECT 1 FROM ku_lineitem l WHERE l.l_orderkey = o.o_orderkey AND l.l_qty > 2)
GROUP BY o_prio ORDER BY 1;
SELECT ku_joins('SELECT o_prio, ANON_COUNT(*) FROM ku_orders o
WHERE EXISTS (SELECT 1 FROM ku_lineitem l WHERE l.l_orderkey = o.o_orderkey AND l.l_qty > 2)
GROUP BY o_prio');
SELECT c_seg, ANON_COUNT(*) = 20 AS joined FROM ku_lineitem l JOIN ku_orders o ON o.o_orderkey = l.l_orderkey
JOIN ku_customer c ON c.c_custkey = o.o_custkey GROUP BY c_seg ORDER BY 1;
SELECT ku_joins('SELECT ANON_COUNT(*) FROM ku_lineitem l JOIN ku_orders o ON o.o_orderkey = l.l_orderkey
JOIN ku_customer c ON c.c_custkey = o.o_custkey');
-- two rows referencing one row belong to one user (equal keys)
SELECT ANON_COUNT(*) = 60 AS same_order FROM ku_lineitem a JOIN ku_lineitem b ON a.l_orderkey = b.l_orderkey
WHERE a.l_line < b.l_line;
-- TPC-H Q13: the referenced row preserved, its referencing rows attached
SELECT n, ANON_COUNT(*) = 60 AS q13 FROM (SELECT c.c_custkey, count(o.o_orderkey) AS n
  FROM ku_customer c LEFT JOIN ku_orders o ON o.o_custkey = c.c_custkey GROUP BY c.c_custkey) s
GROUP BY n ORDER BY 1;
-- a subquery in FROM selects the unit: anon_dp adds it (grouped by the key)
SELECT n, ANON_COUNT(*) = 60 AS per_order FROM (SELECT l_orderkey, count(*) AS n FROM ku_lineitem GROUP BY l_orderkey) s
GROUP BY n ORDER BY 1;
SELECT ANON_COUNT(*) = 60 AS subquery FROM (SELECT l_qty FROM ku_lineitem WHERE l_qty > 1 ORDER BY l_line) s;
-- ... and to a subquery in FROM over such a subquery, which cannot name it
SELECT q, ANON_COUNT(*) = 60 AS nested FROM (SELECT * FROM (SELECT l_orderkey, l_qty AS q FROM ku_lineitem) s
  WHERE q > 0) t GROUP BY q ORDER BY 1;
-- public partitions over a key input
CREATE TABLE ku_qty (q int);
INSERT INTO ku_qty SELECT generate_series(0, 6);
SECURITY LABEL FOR anon_dp ON TABLE ku_qty IS 'public';
SELECT q, ANON_COUNT(l_qty) FROM ku_qty LEFT JOIN ku_lineitem ON l_qty = q GROUP BY q ORDER BY 1;
RESET anon_dp.max_groups_contributed;
-- NULL in a referencing column: the row belongs to no user
CREATE TABLE ku_visits (v_custkey int REFERENCES ku_customer, v_note text);
INSERT INTO ku_visits SELECT c, NULL FROM generate_series(1, 60) c;
INSERT INTO ku_visits SELECT NULL, 'anonymous' FROM generate_series(1, 500);
ANALYZE ku_visits;
SECURITY LABEL FOR anon_dp ON COLUMN ku_visits.v_custkey IS 'privacy_unit customer via ku_customer';
SELECT ANON_COUNT(*) = 60 AS users, ANON_COUNT(v_note) = 0 AS null_rows_count_nowhere FROM ku_visits;
-- the supplier unit: a composite key, then one more (lineitem -> partsupp -> supplier)
SET anon_dp.privacy_unit = supplier;
SELECT ANON_COUNT(*) = 12 AS suppliers_of_lines FROM ku_lineitem;
SELECT s_nation, ANON_COUNT(*) AS suppliers FROM ku_lineitem l
JOIN ku_partsupp ps ON ps.ps_partkey = l.l_partkey AND ps.ps_suppkey = l.l_suppkey
JOIN ku_supplier s ON s.s_suppkey = ps.ps_suppkey GROUP BY s_nation ORDER BY 1;
-- half a composite key is no key
SELECT ANON_COUNT(*) FROM ku_lineitem l JOIN ku_partsupp ps ON ps.ps_suppkey = l.l_suppkey;
-- customers' tables, public for suppliers (released = exact, every supplier in every segment)
SET anon_dp.max_groups_contributed = 3;
SELECT a.c_seg, a.n = t.n AS supplier_q
FROM (SELECT c_seg, ANON_COUNT(*) AS n FROM ku_lineitem l JOIN ku_orders o ON o.o_orderkey = l.l_orderkey
      JOIN ku_customer c ON c.c_custkey = o.o_custkey GROUP BY c_seg) a
JOIN (SELECT c_seg, count(DISTINCT l_suppkey) AS n FROM ku_lineitem l JOIN ku_orders o ON o.o_orderkey = l.l_orderkey
      JOIN ku_customer c ON c.c_custkey = o.o_custkey GROUP BY c_seg) t USING (c_seg) ORDER BY 1;
-- TPC-H Q16: NOT IN over the referenced table of the outer row's key
SELECT a.p_brand, a.n = t.n AS q16
FROM (SELECT p_brand, ANON_COUNT(*) AS n FROM ku_partsupp, ku_part
      WHERE p_partkey = ps_partkey AND ps_suppkey NOT IN (SELECT s_suppkey FROM ku_supplier
                                                          WHERE s_suppkey = ps_suppkey AND s_nation = 'north')
      GROUP BY p_brand) a
JOIN (SELECT p_brand, count(DISTINCT ps_suppkey) AS n FROM ku_partsupp JOIN ku_part ON p_partkey = ps_partkey
      JOIN ku_supplier ON s_suppkey = ps_suppkey WHERE s_nation <> 'north' GROUP BY p_brand) t USING (p_brand)
ORDER BY 1;
RESET anon_dp.max_groups_contributed;

-- refused, with what to write instead
SET anon_dp.privacy_unit = customer;
SELECT ANON_COUNT(*) FROM ku_lineitem l, ku_customer c WHERE l.l_qty = c.c_custkey;
SELECT ANON_COUNT(*) FROM ku_lineitem l WHERE EXISTS (SELECT 1 FROM ku_customer c WHERE c.c_custkey = l.l_orderkey);
SELECT ANON_COUNT(*) FROM (SELECT l_qty, count(*) FROM ku_lineitem GROUP BY l_qty) s;
SELECT ANON_COUNT(*) FROM (SELECT DISTINCT l_qty FROM ku_lineitem) s;
WITH s AS (SELECT * FROM ku_lineitem) SELECT ANON_COUNT(*) FROM s;
CREATE VIEW ku_lines AS SELECT * FROM ku_lineitem;
SELECT ANON_COUNT(*) FROM ku_lines;
-- a view that joins the path itself selects the unit
CREATE VIEW ku_lines_unit AS SELECT c.c_custkey, l.* FROM ku_lineitem l
JOIN ku_orders o ON o.o_orderkey = l.l_orderkey JOIN ku_customer c ON c.c_custkey = o.o_custkey;
SELECT ANON_COUNT(*) = 60 AS view_with_unit FROM ku_lines_unit;
DROP VIEW ku_lines, ku_lines_unit;
SELECT ctid, ANON_COUNT(*) FROM ku_lineitem GROUP BY 1;
SELECT ANON_COUNT(l) FROM ku_lineitem l;
SELECT ANON_COUNT(s) FROM (SELECT l_qty FROM ku_lineitem) s;
-- a unit anon_dp added to a subquery: nothing above can name it
SELECT ANON_COUNT(*) FROM (SELECT l_orderkey, l_qty FROM ku_lineitem) s
JOIN (SELECT l_orderkey, l_qty FROM ku_lineitem) t ON s.l_orderkey = t.l_orderkey;
SELECT ANON_COUNT(*) FROM (SELECT q, count(*) FROM (SELECT l_orderkey, l_qty AS q FROM ku_lineitem) s GROUP BY q) t;
SELECT ANON_COUNT(*) FROM (SELECT DISTINCT q FROM (SELECT l_orderkey, l_qty AS q FROM ku_lineitem) s) t;
WITH w AS (SELECT q FROM (SELECT l_orderkey, l_qty AS q FROM ku_lineitem) s) SELECT ANON_COUNT(*) FROM w;
SELECT ANON_COUNT(*) FROM ku_lineitem TABLESAMPLE anon_reservoir(2);
SELECT ANON_COUNT(*) = 60 AS bernoulli_accepted FROM ku_lineitem TABLESAMPLE bernoulli(100);
SET anon_dp.max_rows_contributed = 2;
SELECT ANON_COUNT(*) FROM ku_lineitem;
RESET anon_dp.max_rows_contributed;
-- never through a public table
CREATE TABLE ku_reviews (rv_partkey int REFERENCES ku_part, rv_stars int);
SECURITY LABEL FOR anon_dp ON COLUMN ku_reviews.rv_partkey IS 'privacy_unit customer via ku_part';
SELECT ANON_COUNT(*) FROM ku_reviews;
-- a cycle
CREATE TABLE ku_staff (id int PRIMARY KEY, boss int REFERENCES ku_staff);
SECURITY LABEL FOR anon_dp ON COLUMN ku_staff.boss IS 'privacy_unit customer via ku_staff';
SELECT ANON_COUNT(*) FROM ku_staff;
SECURITY LABEL FOR anon_dp ON COLUMN ku_staff.boss IS NULL;

-- ==== 2. when the schema changes ====
-- a statement that would break a path that resolves is refused
ALTER TABLE ku_lineitem DROP CONSTRAINT ku_lineitem_l_orderkey_fkey;
DROP TABLE ku_customer CASCADE;
ALTER TABLE ku_orders RENAME TO ku_orders2;
ALTER TABLE ku_lineitem ALTER COLUMN l_orderkey TYPE bigint;
ALTER TABLE ku_lineitem ADD FOREIGN KEY (l_orderkey) REFERENCES ku_orders;
-- a label names a table without its schema: moving it keeps the key
CREATE SCHEMA ku_elsewhere;
ALTER TABLE ku_orders SET SCHEMA ku_elsewhere;
SELECT ANON_COUNT(*) = 60 AS moved_schema FROM ku_lineitem;
ALTER TABLE ku_elsewhere.ku_orders SET SCHEMA public;
-- a referenced table whose label changes
SECURITY LABEL FOR anon_dp ON COLUMN ku_orders.o_custkey IS NULL;
SECURITY LABEL FOR anon_dp ON COLUMN ku_orders.o_custkey IS 'privacy_unit supplier via ku_customer';
-- ... to a label that still leads to the unit: accepted (the customer's own column)
SECURITY LABEL FOR anon_dp ON COLUMN ku_orders.o_custkey IS 'privacy_unit customer';
SELECT ANON_COUNT(*) = 60 AS one_key FROM ku_lineitem;
SECURITY LABEL FOR anon_dp ON COLUMN ku_orders.o_custkey IS 'privacy_unit customer via ku_customer';
-- NOT VALID keys are not followed; a label set before its key (as a restore
-- does) is accepted with a warning, and queries wait for the key
CREATE TABLE ku_returns (r_orderkey int, r_qty int);
INSERT INTO ku_returns SELECT o, 1 FROM generate_series(1, 180) o;
SECURITY LABEL FOR anon_dp ON COLUMN ku_returns.r_orderkey IS 'privacy_unit customer via ku_orders';
SELECT ANON_COUNT(*) FROM ku_returns;
ALTER TABLE ku_returns ADD CONSTRAINT ku_returns_fk FOREIGN KEY (r_orderkey) REFERENCES ku_orders NOT VALID;
SELECT ANON_COUNT(*) FROM ku_returns;
ALTER TABLE ku_returns VALIDATE CONSTRAINT ku_returns_fk;
SELECT ANON_COUNT(*) = 60 AS validated FROM ku_returns;
-- two keys through the column and to the table: name one
ALTER TABLE ku_returns ADD CONSTRAINT ku_returns_fk2 FOREIGN KEY (r_orderkey) REFERENCES ku_orders;
SECURITY LABEL FOR anon_dp ON COLUMN ku_returns.r_orderkey IS 'privacy_unit customer via ku_returns_fk';
ALTER TABLE ku_returns ADD CONSTRAINT ku_returns_fk2 FOREIGN KEY (r_orderkey) REFERENCES ku_orders;
SELECT ANON_COUNT(*) = 60 AS named_key FROM ku_returns;
-- deferrable keys: a row belongs to the user its referenced row has when
-- the query reads it; one that references no row yet belongs to no user
CREATE TABLE ku_notes (n_orderkey int REFERENCES ku_orders DEFERRABLE INITIALLY DEFERRED, n_text text);
SECURITY LABEL FOR anon_dp ON COLUMN ku_notes.n_orderkey IS 'privacy_unit customer via ku_orders';
BEGIN;
INSERT INTO ku_notes SELECT o, 'x' FROM generate_series(1, 180) o;
INSERT INTO ku_notes VALUES (1000, 'not yet');
SELECT ANON_COUNT(*) = 60 AS pending_row_counts_nowhere FROM ku_notes WHERE n_text IS NOT NULL;
SELECT ANON_COUNT(*) = 0 AS pending_row_has_no_user FROM ku_notes WHERE n_orderkey = 1000;
ROLLBACK;
-- UPDATEs that move rows between users: the unit is read when the query runs
BEGIN;
UPDATE ku_orders SET o_custkey = 1 WHERE o_custkey = 2;
SELECT ANON_COUNT(*) = 59 AS moved FROM ku_lineitem;
ROLLBACK;
-- a partitioned table: its partitions have copies of its keys
CREATE TABLE ku_ship (s_orderkey int REFERENCES ku_orders, s_day int) PARTITION BY RANGE (s_day);
CREATE TABLE ku_ship_1 PARTITION OF ku_ship FOR VALUES FROM (0) TO (10);
CREATE TABLE ku_ship_2 PARTITION OF ku_ship FOR VALUES FROM (10) TO (20);
INSERT INTO ku_ship SELECT o, o % 20 FROM generate_series(1, 180) o;
SECURITY LABEL FOR anon_dp ON COLUMN ku_ship.s_orderkey IS 'privacy_unit customer via ku_orders';
SELECT ANON_COUNT(*) = 60 AS partitioned FROM ku_ship;
SELECT ANON_COUNT(*) = 30 AS partition FROM ku_ship_1;
CREATE TABLE ku_ship_3 (s_orderkey int, s_day int);
ALTER TABLE ku_ship ATTACH PARTITION ku_ship_3 FOR VALUES FROM (20) TO (30);
SELECT ANON_COUNT(*) = 60 AS attached FROM ku_ship;
-- a key to a partitioned table: its partitions' copies are not other keys
CREATE TABLE ku_region (r_key int, r_custkey int REFERENCES ku_customer, PRIMARY KEY (r_key)) PARTITION BY RANGE (r_key);
CREATE TABLE ku_region_1 PARTITION OF ku_region FOR VALUES FROM (0) TO (100);
CREATE TABLE ku_region_2 PARTITION OF ku_region FOR VALUES FROM (100) TO (200);
INSERT INTO ku_region SELECT k, 1 + k % 60 FROM generate_series(0, 199) k;
CREATE TABLE ku_stay (st_region int REFERENCES ku_region);
INSERT INTO ku_stay SELECT k FROM generate_series(0, 199) k;
ANALYZE ku_region, ku_stay;
SECURITY LABEL FOR anon_dp ON COLUMN ku_region.r_custkey IS 'privacy_unit customer';
SECURITY LABEL FOR anon_dp ON COLUMN ku_stay.st_region IS 'privacy_unit customer via ku_region';
SELECT ANON_COUNT(*) = 60 AS to_partitioned FROM ku_stay;
-- a key to the unit's own column equals the unit: equated with another
-- table's unit column, it puts the rows together without a join
SELECT ANON_COUNT(*) = 60 AS key_is_unit FROM ku_visits v JOIN ku_region r ON r.r_custkey = v.v_custkey;
SELECT ku_joins('SELECT ANON_COUNT(*) FROM ku_visits v JOIN ku_region r ON r.r_custkey = v.v_custkey');
-- inheritance children do not inherit keys: refused, or read ONLY the parent
CREATE TABLE ku_old_orders () INHERITS (ku_returns);
SELECT ANON_COUNT(*) FROM ku_returns;
SELECT ANON_COUNT(*) = 60 AS only_parent FROM ONLY ku_returns;
ALTER TABLE ku_old_orders ADD FOREIGN KEY (r_orderkey) REFERENCES ku_orders;
SELECT ANON_COUNT(*) = 60 AS children_with_key FROM ku_returns;
-- ... nor through a referenced parent with children, whose unique index
-- covers its own rows: the rewriter reads ONLY it, and an equality with
-- it in the query puts nothing together
CREATE TABLE ku_orders_archive (FOREIGN KEY (o_custkey) REFERENCES ku_customer) INHERITS (ku_orders);
INSERT INTO ku_orders_archive VALUES (1, 2, 'prio1');
SELECT ANON_COUNT(*) = 60 AS only_referenced FROM ku_returns;
SELECT ANON_COUNT(*) FROM ku_returns r JOIN ku_orders o ON o.o_orderkey = r.r_orderkey;
SELECT ANON_COUNT(*) = 60 AS only_referenced_written FROM ku_returns r JOIN ONLY ku_orders o ON o.o_orderkey = r.r_orderkey;
DROP TABLE ku_orders_archive;
-- a view over an anonymization query is anonymized when it is read, at the
-- reader's settings: its paths are resolved then, like any query's
CREATE VIEW ku_released AS SELECT l_qty, ANON_COUNT(*) AS n FROM ku_lineitem GROUP BY l_qty;
SELECT count(*) AS released FROM ku_released;
ALTER TABLE ku_orders DROP CONSTRAINT ku_orders_pkey;
DROP VIEW ku_released;

-- ==== 3. several units: the data owner chooses per role and database ====
CREATE ROLE ku_cust_analyst LOGIN;
CREATE ROLE ku_supp_analyst LOGIN;
CREATE ROLE ku_no_unit LOGIN;
SECURITY LABEL FOR anon_dp ON ROLE ku_cust_analyst IS 'anonymized';
SECURITY LABEL FOR anon_dp ON ROLE ku_supp_analyst IS 'anonymized';
SECURITY LABEL FOR anon_dp ON ROLE ku_no_unit IS 'anonymized';
GRANT USAGE ON SCHEMA public TO ku_cust_analyst, ku_supp_analyst, ku_no_unit;
DO $$BEGIN
  EXECUTE format('ALTER ROLE ku_cust_analyst IN DATABASE %I SET anon_dp.privacy_unit = customer', current_database());
  EXECUTE format('ALTER ROLE ku_supp_analyst IN DATABASE %I SET anon_dp.privacy_unit = supplier', current_database());
END$$;
ALTER ROLE ku_cust_analyst SET anon_dp.max_epsilon = 100000;
ALTER ROLE ku_supp_analyst SET anon_dp.max_epsilon = 100000;
ALTER ROLE ku_no_unit SET anon_dp.max_epsilon = 100000;
SELECT count(anon_dp_set_budget(r::regrole, 1000000, 1)) FROM unnest(ARRAY['ku_cust_analyst', 'ku_supp_analyst', 'ku_no_unit']) r;
-- a role holds privileges only on tables public for every unit
GRANT SELECT ON ku_customer TO ku_supp_analyst;
GRANT SELECT ON ku_part TO ku_supp_analyst;
\c - ku_cust_analyst
SET anon_dp.epsilon = 100000;
SHOW anon_dp.privacy_unit;
SET anon_dp.privacy_unit = supplier;
SELECT ANON_COUNT(*) = 60 AS customers FROM ku_lineitem;
SELECT ANON_COUNT(*) = 60 AS q4 FROM ku_orders o WHERE EXISTS (SELECT 1 FROM ku_lineitem l WHERE l.l_orderkey = o.o_orderkey);
-- calls over private values evaluate SAFE (a data exception is NULL) also
-- where the table became a subquery that joins its keys, and over a FROM
-- subquery: no error tells a row apart
SELECT ANON_COUNT(*) = 0 AS safe_through_keys FROM ku_lineitem WHERE l_qty / (l_line - l_line) > 0;
SELECT ANON_COUNT(*) = 0 AS safe_over_subquery FROM (SELECT l_orderkey, l_qty, l_line FROM ku_lineitem) s
WHERE s.l_qty / (s.l_line - s.l_line) > 0;
-- the tables the rewriter adds are read for the analyst, not granted to it
SELECT * FROM ku_orders;
SELECT count(*) FROM ku_supplier;
\c - ku_supp_analyst
SET anon_dp.epsilon = 100000;
SHOW anon_dp.privacy_unit;
SELECT ANON_COUNT(*) = 12 AS suppliers FROM ku_lineitem;
SET anon_dp.max_groups_contributed = 3;
SELECT c_seg, ANON_COUNT(*) = 12 AS by_segment FROM ku_lineitem l JOIN ku_orders o ON o.o_orderkey = l.l_orderkey
JOIN ku_customer c ON c.c_custkey = o.o_custkey GROUP BY c_seg ORDER BY 1;
-- public for this unit inside anonymization queries only
SELECT count(*) FROM ku_customer;
SELECT ANON_COUNT(*) FROM ku_visits;
\c - ku_no_unit
SET anon_dp.epsilon = 100000;
SHOW anon_dp.privacy_unit;
SELECT ANON_COUNT(*) FROM ku_lineitem;
SELECT ANON_COUNT(*) FROM ku_customer;
\c - :ku_admin
-- public for some units only: not open to analysts' privileges
SECURITY LABEL FOR anon_dp ON TABLE ku_part IS 'public for customer';
GRANT SELECT ON ku_part TO ku_cust_analyst;

-- ==== clean up ====
SET client_min_messages = warning;
DROP OWNED BY ku_cust_analyst, ku_supp_analyst, ku_no_unit;
DROP ROLE ku_cust_analyst;
DROP ROLE ku_supp_analyst;
DROP ROLE ku_no_unit;
DROP SCHEMA ku_elsewhere;
DROP FUNCTION ku_joins(text);
DROP TABLE ku_qty, ku_reviews, ku_staff, ku_notes, ku_ship, ku_stay, ku_region,
  ku_old_orders, ku_returns, ku_visits, ku_lineitem, ku_orders, ku_partsupp, ku_part, ku_supplier,
  ku_customer CASCADE;
