-- More accepted and refused anonymization queries (one line each).  Accepted
-- queries print properties of the released rows (never noise).
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS anon_dp;
RESET client_min_messages;

CREATE TABLE orders AS SELECT (g % 500) + 1 AS cid, g AS id, (g % 40)::numeric AS amount,
       (ARRAY['north', 'south'])[1 + g % 2] AS region FROM generate_series(1, 5000) g;
CREATE TABLE customers AS SELECT c AS cid, (c % 3 = 0) AS vip, 'c' || c AS name FROM generate_series(1, 500) c;
CREATE TABLE regions (region text, country text);
INSERT INTO regions VALUES ('north', 'A'), ('south', 'B');
CREATE TABLE devices AS SELECT md5(d::text)::uuid AS device, d % 4 AS model FROM generate_series(1, 800) d;
CREATE TABLE tagged AS SELECT 'user' || (g % 300) AS handle, g % 5 AS tag FROM generate_series(1, 3000) g;
SECURITY LABEL FOR anon_dp ON COLUMN orders.cid IS 'privacy_unit';
SECURITY LABEL FOR anon_dp ON COLUMN customers.cid IS 'privacy_unit';
SECURITY LABEL FOR anon_dp ON TABLE regions IS 'public';
SECURITY LABEL FOR anon_dp ON COLUMN devices.device IS 'privacy_unit';
SECURITY LABEL FOR anon_dp ON COLUMN tagged.handle IS 'privacy_unit';

-- accepted
SELECT region, ANON_COUNT(*) > 200 AS ok FROM orders GROUP BY region ORDER BY region;
SELECT region, ANON_SUM(amount, 0, 400) > 0 AS ok FROM orders GROUP BY region ORDER BY 1;
SELECT region, ANON_AVG(amount, 0, 40) BETWEEN 0 AND 40 AS ok FROM orders GROUP BY region ORDER BY 1;
SELECT region, ANON_VAR(amount, 0, 40) BETWEEN 0 AND 400 AS ok FROM orders GROUP BY region ORDER BY 1;
SELECT region, ANON_STDDEV(amount, 0, 40) BETWEEN 0 AND 20 AS ok FROM orders GROUP BY region ORDER BY 1;
SELECT region, ANON_NTILE(amount, 0.9, 0, 40) BETWEEN 0 AND 40 AS ok FROM orders GROUP BY region ORDER BY 1;
SELECT region, ANON_MIN(amount, 0, 40) <= ANON_MAX(amount, 0, 40) + 40 AS ok FROM orders GROUP BY region ORDER BY 1;
SELECT region, ANON_MEDIAN(amount, 0, 40) BETWEEN 0 AND 40 AS ok FROM orders GROUP BY region ORDER BY 1;
SELECT region, ANON_COUNT(id) > 200 AS ok FROM orders GROUP BY region ORDER BY 1;
SELECT region, ANON_COUNT(id, 10) > 200 AS ok FROM orders GROUP BY region ORDER BY 1;
SELECT upper(region) AS r, ANON_COUNT(*) > 200 AS ok FROM orders GROUP BY upper(region) ORDER BY 1;
SELECT region || '!' AS r, ANON_COUNT(*) > 200 AS ok FROM orders GROUP BY region ORDER BY 1;
SELECT ANON_COUNT(*) BETWEEN 400 AND 600 AS ok FROM orders;
SELECT ANON_COUNT(*) * 2 > 0 AS ok FROM orders HAVING ANON_COUNT(*) > 0;
SELECT region FROM orders GROUP BY region HAVING ANON_COUNT(*) > 0 ORDER BY 1 OFFSET 1;
SELECT region, ANON_COUNT(*) > 0 AS ok FROM orders GROUP BY region ORDER BY ANON_COUNT(*) * 0, region;
SELECT r.country, ANON_COUNT(*) > 200 AS ok FROM orders o JOIN regions r ON r.region = o.region GROUP BY r.country ORDER BY 1;
SELECT r.country, ANON_COUNT(*) > 200 AS ok FROM orders o LEFT JOIN regions r USING (region) GROUP BY r.country ORDER BY 1;
SELECT r.country, ANON_COUNT(*) > 200 AS ok FROM regions r RIGHT JOIN orders o ON r.region = o.region GROUP BY r.country ORDER BY 1;
SELECT c.vip, ANON_COUNT(*) > 50 AS ok FROM orders o JOIN customers c USING (cid) GROUP BY c.vip ORDER BY 1;
SELECT c.vip, ANON_SUM(o.amount, 0, 400) > 0 AS ok FROM orders o JOIN customers c ON o.cid = c.cid JOIN regions r ON r.region = o.region GROUP BY c.vip ORDER BY 1;
SELECT a.region, ANON_COUNT(*) > 100 AS ok FROM orders a JOIN orders b ON a.cid = b.cid GROUP BY a.region ORDER BY 1;
SELECT model, ANON_COUNT(*) > 100 AS ok FROM devices GROUP BY model ORDER BY 1;
SELECT tag, ANON_COUNT(*) > 30 AS ok FROM tagged GROUP BY tag ORDER BY 1;
SELECT ANON_COUNT(*) > 0 AS ok FROM orders TABLESAMPLE BERNOULLI (50);
SELECT (SELECT ANON_COUNT(*) > 0 FROM orders) AS scalar_subquery_ok;
SELECT ANON_COUNT(*) > 0 AS ok FROM orders UNION ALL SELECT ANON_COUNT(*) > 0 FROM customers;
SELECT count(*) AS rows FROM (SELECT region, ANON_COUNT(*) FROM orders GROUP BY region) s;
CREATE TEMP TABLE released AS SELECT region, ANON_COUNT(*) AS n FROM orders GROUP BY region;
SELECT count(*) AS released_rows FROM released;
CREATE VIEW anon_view AS SELECT region, ANON_COUNT(*) AS n FROM orders GROUP BY region;
SELECT count(*) AS view_rows, bool_and(n > 200) AS ok FROM anon_view;
BEGIN;
DECLARE c CURSOR FOR SELECT region, ANON_COUNT(*) > 200 AS ok FROM orders GROUP BY region ORDER BY 1;
FETCH ALL FROM c;
COMMIT;
-- refused
SELECT ANON_COUNT(*) FROM orders o, customers c;
SELECT ANON_COUNT(*) FROM orders o JOIN customers c ON o.id = c.cid;
SELECT ANON_COUNT(*) FROM orders o FULL JOIN regions r ON r.region = o.region;
SELECT ANON_COUNT(*) > 0 AS ok FROM orders o LEFT JOIN customers c ON o.cid = c.cid;
SELECT ANON_COUNT(*) FROM orders o JOIN devices d ON o.cid = d.model;
SELECT ANON_COUNT(*), sum(amount) FROM orders;
SELECT region, ANON_COUNT(*) FROM orders GROUP BY region HAVING count(*) > 1;
SELECT region, ANON_COUNT(*) FROM orders GROUP BY region ORDER BY max(amount);
SELECT region, ANON_COUNT(*) FROM orders GROUP BY CUBE (region);
SELECT region, ANON_COUNT(*) FROM orders GROUP BY GROUPING SETS ((region), ());
SELECT ANON_COUNT(*) > 0 AS ok FROM orders WHERE EXISTS (SELECT 1 FROM customers c WHERE c.cid = orders.cid);
SELECT ANON_COUNT(*) FROM orders WHERE amount > (SELECT avg(amount) FROM orders);
SELECT ANON_NTILE(amount, amount / 40, 0, 40) FROM orders;
SELECT ANON_AVG(amount, 0, NULLIF(1, 1) + 40) FROM orders;
SELECT ANON_SUM(amount, (SELECT 0), 40) FROM orders;
SELECT ANON_COUNT(*) FROM orders, LATERAL (SELECT 1) l;
SELECT ANON_COUNT(*) > 0 AS ok FROM (SELECT * FROM orders UNION ALL SELECT * FROM orders) u;
SELECT ANON_COUNT(*) FROM anon_view;
SELECT ANON_COUNT(*) FROM regions;
SELECT ANON_COUNT(*) > 0 AS ok FROM (SELECT cid, count(*) FROM orders GROUP BY cid) per_user;
SELECT ANON_COUNT(*), generate_series(1, 2) FROM orders;
SELECT ANON_AVG(amount, 0, 40 ORDER BY amount) FROM orders;

DROP VIEW anon_view;
DROP TABLE orders, customers, regions, devices, tagged;
