-- The public ANON_* aggregates: signatures, result types, and the refusal to
-- release row-level results when no anonymization rewrite handled them.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS anon_dp;
RESET client_min_messages;

SELECT p.oid::regprocedure AS aggregate, p.prorettype::regtype AS returns
FROM pg_proc p
WHERE p.prokind = 'a' AND p.proname LIKE 'anon\_%'
ORDER BY p.proname, p.oid::regprocedure::text;

-- how calls resolve for each input type (a view records the result types
-- without running the aggregate; the rewriter keeps the types of the
-- original select list)
CREATE TABLE typed (uid int8, i2 int2, i4 int4, i8 int8, f4 float4, f8 float8, n numeric, t text);
SECURITY LABEL FOR anon_dp ON COLUMN typed.uid IS 'privacy_unit';
CREATE VIEW resolved AS
SELECT anon_count(*) AS count_star, anon_count(t) AS count_col, anon_count(t, 5) AS count_u,
       anon_sum(i2, 0, 10) AS sum_i2, anon_sum(i4, 0, 10) AS sum_i4,
       anon_sum(i8, 0, 10) AS sum_i8, anon_sum(f4, 0, 10) AS sum_f4,
       anon_sum(f8, 0, 10) AS sum_f8, anon_sum(n, 0, 10) AS sum_n,
       anon_sum(i4, 0, 2.5) AS sum_i4_fractional_bound,
       anon_avg(i4, 0, 10) AS avg_i4, anon_avg(n, 0, 10) AS avg_n,
       anon_var(f8, 0, 10) AS var_f8, anon_stddev(i8, 0, 10) AS stddev_i8,
       anon_ntile(f8, 0.9, 0, 10) AS ntile_f8, anon_min(i4, 0, 10) AS min_i4,
       anon_max(n, 0, 10) AS max_n, anon_median(f4, 0, 10) AS median_f4
FROM typed;
SELECT attname, atttypid::regtype FROM pg_attribute
WHERE attrelid = 'resolved'::regclass AND attnum > 0 ORDER BY attnum;

-- reached without the rewriter (here through a view's stored, unrewritten
-- definition is impossible: views are rewritten when created), an ANON_*
-- aggregate refuses; the rewriter's own errors are in rewriter.sql
DROP VIEW resolved;
DROP TABLE typed;
