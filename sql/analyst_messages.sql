-- What an analyst reads (issue 21, item 4): every error names the ANON_*
-- aggregate written in the query, never a dp_* building block, and is raised
-- when the query is analysed (EXPLAIN and PREPARE raise it too, and an
-- anonymized session reads it instead of the fixed error of the error
-- channel); a call without its bounds gets the full signature in its hint;
-- GROUPING() is refused; ANON_COUNT is never below 0, nor a sum of values
-- that are (issue 32: released values stay inside what the bounds allow).
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS anon_dp;
RESET client_min_messages;

CREATE TABLE am_visits (uid int, browser text, d float8, pages int, bytes bigint, amount numeric);
INSERT INTO am_visits SELECT u % 200, (ARRAY['a', 'b'])[1 + u % 2], u % 600, u % 7, u, u % 40
FROM generate_series(1, 2000) u;
SECURITY LABEL FOR anon_dp ON COLUMN am_visits.uid IS 'privacy_unit';

-- ==== a call without its bounds: the signature in the hint (SQLSTATE 42883, as PostgreSQL's) ====
-- (ANON_SUM(x) and ANON_AVG(x) over a numeric column choose their bounds
-- automatically: sql/auto_bounds.sql; over another type they are refused)
\set VERBOSITY sqlstate
SELECT ANON_SUM(pages, 0) FROM am_visits;
\set VERBOSITY default
SELECT ANON_SUM(browser) FROM am_visits;
SELECT ANON_SUM(pages, 0) FROM am_visits;
SELECT ANON_AVG(browser) FROM am_visits;
SELECT ANON_AVG(d, 0) FROM am_visits;
SELECT ANON_VAR(browser) FROM am_visits;
SELECT ANON_STDDEV(d, 1) FROM am_visits;
SELECT ANON_MIN(d) FROM am_visits;
SELECT ANON_MAX(d, 600) FROM am_visits;
-- without bounds a quantile chooses them (automatic bounds): accepted
SELECT pg_typeof(ANON_MEDIAN(d)) AS median_accepted FROM am_visits;
SELECT ANON_NTILE(d) FROM am_visits;
SELECT pg_typeof(ANON_NTILE(d, 0.5)) AS ntile_accepted FROM am_visits;
SELECT ANON_NTILE(d, 0, 600) FROM am_visits;
-- an untyped literal matches both ANON_SUM(x) (numeric) and the refused
-- ANON_SUM("any"): PostgreSQL's "is not unique", which names anon_sum
SELECT ANON_SUM('x') FROM am_visits;
-- a name anon_dp does not have, or a value no form takes: PostgreSQL cannot
-- resolve the call (SQLSTATE 42883 as its own error), and the message names
-- the call as written with the aggregates or the forms that exist
\set VERBOSITY sqlstate
SELECT ANON_PERCENTILE_CONT(d, 0.5) FROM am_visits;
\set VERBOSITY default
SELECT ANON_PERCENTILE_CONT(d, 0.5) FROM am_visits;
SELECT ANON_MEAN(d, 0, 600) FROM am_visits;
SELECT public.anon_frobnicate(d) FROM am_visits;
SELECT ANON_SUM(browser, 0, 1) FROM am_visits;
SELECT ANON_AVG(browser, 0, 1) FROM am_visits;
SELECT ANON_COUNT(browser, 1, 2) FROM am_visits;
-- other functions keep PostgreSQL's message
SELECT anon_dp_explain(1);
SELECT am_no_such_function(d) FROM am_visits;
-- anywhere at the level, also next to complete calls and in HAVING
SELECT browser, ANON_COUNT(*) FROM am_visits GROUP BY browser HAVING ANON_AVG(d, 0) > 0;
-- and before "reads no private table": the signature is the first thing to fix
SELECT ANON_SUM(x, 0) FROM (VALUES (1)) v(x);
-- the complete forms still resolve as before (result types unchanged)
SELECT pg_typeof(ANON_SUM(pages, 0, 10)) AS sum_int, pg_typeof(ANON_SUM(bytes, 0, 10)) AS sum_bigint,
       pg_typeof(ANON_SUM(d, 0, 10)) AS sum_float, pg_typeof(ANON_SUM(amount, 0, 10)) AS sum_numeric,
       pg_typeof(ANON_SUM(pages, 0, 10.5)) AS sum_fractional_bound,
       pg_typeof(ANON_NTILE(d, 0.5, 0, 600)) AS ntile, pg_typeof(ANON_COUNT(d, 3)) AS count_bounded
FROM am_visits;
-- outside an anonymization query (a window function) it refuses to run, as every ANON_* call
SELECT ANON_SUM(pages) OVER () FROM am_visits LIMIT 1;

-- ==== bad constants: named by the ANON_* call, raised at analysis ====
SELECT ANON_AVG(d, 10, 0) FROM am_visits;
SELECT ANON_SUM(pages, 10, 0) FROM am_visits;
SELECT ANON_SUM(bytes, 10, 0) FROM am_visits;
SELECT ANON_SUM(amount, 10, 0) FROM am_visits;
SELECT ANON_AVG(d, 0, 'Infinity') FROM am_visits;
SELECT ANON_MEDIAN(d, '-Infinity', 0) FROM am_visits;
SELECT ANON_AVG(d, 0, 'NaN') FROM am_visits;
SELECT ANON_SUM(amount, 0, 'NaN') FROM am_visits;
SELECT ANON_SUM(d, 0, 1e300) FROM am_visits;
SELECT ANON_VAR(d, 0, 1e200) FROM am_visits;
SELECT ANON_AVG(d, 0, NULLIF(1, 1) + 40) FROM am_visits;
SELECT ANON_STDDEV(d, NULL, 10) FROM am_visits;
SELECT ANON_NTILE(d, 1.5, 0, 10) FROM am_visits;
SELECT ANON_NTILE(d, -0.1, 0, 10) FROM am_visits;
SELECT ANON_NTILE(d, NULL, 0, 10) FROM am_visits;
SELECT ANON_COUNT(pages, -1) FROM am_visits;
SELECT ANON_COUNT(pages, NULL) FROM am_visits;
-- a stable expression is no constant of the query: the planner does not fold it
SELECT ANON_AVG(d, 0, extract(epoch FROM now())) FROM am_visits;
-- grouped: the same checks, for every release of the query
SELECT browser, ANON_COUNT(*), ANON_MAX(d, 600, 0) FROM am_visits GROUP BY browser;
-- the share of epsilon a release gets is checked as its building block checks it
SET anon_dp.epsilon = 2.5e-12;
SELECT ANON_VAR(d, 0, 1) FROM am_visits;
SELECT ANON_AVG(d, 0, 1), ANON_AVG(d, 0, 2) FROM am_visits;
RESET anon_dp.epsilon;
-- at analysis: EXPLAIN and PREPARE raise them without running anything
EXPLAIN (COSTS OFF) SELECT ANON_AVG(d, 10, 0) FROM am_visits;
PREPARE am_bad AS SELECT ANON_NTILE(d, 2, 0, 10) FROM am_visits;
-- valid extremes are accepted
SELECT ANON_AVG(d, 5, 5) = 5 AS equal_bounds, ANON_NTILE(d, 0, 0, 600) BETWEEN 0 AND 600 AS p0,
       ANON_NTILE(d, 1, 0, 600) BETWEEN 0 AND 600 AS p1, ANON_COUNT(d, 0) IS NOT NULL AS zero_count_bound
FROM am_visits;

-- ==== the same errors in an anonymized session (not the error channel's fixed error) ====
CREATE ROLE am_analyst;
SECURITY LABEL FOR anon_dp ON ROLE am_analyst IS 'anonymized';
SELECT anon_dp_set_budget('am_analyst', 1000, 1) IS NOT NULL AS budget_set;
SET anon_dp.max_epsilon = 1000;
SET SESSION AUTHORIZATION am_analyst;
SELECT ANON_SUM(pages, 0) FROM am_visits;
SELECT ANON_AVG(d, 10, 0) FROM am_visits;
SELECT ANON_NTILE(d, 1.5, 0, 10) FROM am_visits;
SELECT ANON_AVG(d, 0, NULLIF(1, 1) + 40) FROM am_visits;
-- nothing was charged for them
SELECT releases FROM anon_dp_budget;
RESET SESSION AUTHORIZATION;
RESET anon_dp.max_epsilon;

-- ==== GROUPING() ====
SELECT browser, ANON_COUNT(*), GROUPING(browser) FROM am_visits GROUP BY browser;
SELECT browser FROM am_visits GROUP BY browser HAVING GROUPING(browser) = 0 AND ANON_COUNT(*) > 0;
SELECT browser, ANON_COUNT(*) FROM am_visits GROUP BY browser ORDER BY GROUPING(browser);
SELECT browser, ANON_COUNT(*) FROM am_visits GROUP BY ROLLUP (browser);
-- below the anonymization query a plain GROUP BY with GROUPING() is per user: accepted
SELECT ANON_COUNT(*) > 100 AS ok FROM (SELECT uid, GROUPING(uid) AS g FROM am_visits GROUP BY uid) s;

-- ==== ANON_COUNT is never below 0 (post-processing of the noisy value) ====
-- On empty input with a small epsilon the noisy count is below 0 about half
-- the time (the positive control, dp_count itself, shows it: 40 runs all at
-- 0 or above would have probability 2^-40); ANON_COUNT shows such a value as 0.
SET anon_dp.epsilon = 0.01;
CREATE FUNCTION am_plan() RETURNS TABLE (line text) LANGUAGE plpgsql AS $$
BEGIN RETURN QUERY EXECUTE 'EXPLAIN (COSTS OFF, VERBOSE) SELECT ANON_COUNT(*) FROM am_visits'; END $$;
CREATE FUNCTION am_runs(query text, runs int) RETURNS TABLE (below_zero int, zero int, above_zero int)
LANGUAGE plpgsql AS $$
DECLARE v numeric; b int := 0; z int := 0; a int := 0;
BEGIN
  FOR i IN 1 .. runs LOOP
    EXECUTE query INTO v;
    IF v < 0 THEN b := b + 1; ELSIF v = 0 THEN z := z + 1; ELSE a := a + 1; END IF;
  END LOOP;
  RETURN QUERY SELECT b, z, a;
END $$;
SELECT below_zero > 0 AS control_goes_below_zero
FROM am_runs('SELECT anon_dp_internal.dp_count(1::bigint, 1, 0.01, 1) FROM am_visits WHERE false', 40);
SELECT below_zero = 0 AS never_below_zero, zero > 0 AS shown_as_zero, above_zero > 0 AS positive_kept
FROM am_runs('SELECT ANON_COUNT(*) FROM am_visits WHERE false', 40);
SELECT below_zero = 0 AS count_col_never_below_zero
FROM am_runs('SELECT ANON_COUNT(pages) FROM am_visits WHERE false', 40);
SELECT below_zero = 0 AS count_bounded_never_below_zero
FROM am_runs('SELECT ANON_COUNT(pages, 3) FROM am_visits WHERE false', 40);
-- a sum of values in [0, U] is never below 0 either, of any type; one of
-- values in [L, 0] never above 0; one of values on both sides of 0 keeps both
-- signs (the positive control of the sum: dp_sum itself)
SELECT below_zero > 0 AS sum_control_goes_below_zero
FROM am_runs('SELECT anon_dp_internal.dp_sum(d, 0, 600, 0.01, 1) FROM am_visits WHERE false', 40);
SELECT below_zero = 0 AS sum_never_below_zero, zero > 0 AS sum_shown_as_zero, above_zero > 0 AS sum_positive_kept
FROM am_runs('SELECT ANON_SUM(d, 0, 600) FROM am_visits WHERE false', 40);
SELECT below_zero = 0 AS int_sum_never_below_zero
FROM am_runs('SELECT ANON_SUM(pages, 0, 6) FROM am_visits WHERE false', 40);
SELECT below_zero = 0 AS numeric_sum_never_below_zero
FROM am_runs('SELECT ANON_SUM(amount, 0.5, 40) FROM am_visits WHERE false', 40);
SELECT above_zero = 0 AS negative_sum_never_above_zero, below_zero > 0 AS negative_kept
FROM am_runs('SELECT ANON_SUM(-d, -600, 0) FROM am_visits WHERE false', 40);
SELECT below_zero > 0 AND above_zero > 0 AS signed_sum_unchanged
FROM am_runs('SELECT ANON_SUM(d - 300, -300, 300) FROM am_visits WHERE false', 40);
-- an interval's value and ends likewise (the true sum lies there too)
SELECT below_zero = 0 AS sum_interval_never_below_zero
FROM am_runs('SELECT least((c).value, (c).lower, (c).upper) FROM (SELECT ANON_SUM_CI(d, 0, 600) AS c FROM am_visits WHERE false) s', 40);
SELECT above_zero = 0 AS negative_sum_interval_never_above_zero
FROM am_runs('SELECT greatest((c).value, (c).lower, (c).upper) FROM (SELECT ANON_SUM_CI(-d, -600, 0) AS c FROM am_visits WHERE false) s', 40);
SELECT below_zero = 0 AS count_interval_never_below_zero
FROM am_runs('SELECT least((c).value, (c).lower, (c).upper) FROM (SELECT ANON_COUNT_CI(*) AS c FROM am_visits WHERE false) s', 40);
-- public partitions without users: their sums too
CREATE TABLE am_days (day int);
INSERT INTO am_days SELECT generate_series(1, 40);
SECURITY LABEL FOR anon_dp ON TABLE am_days IS 'public';
SELECT count(*) FILTER (WHERE s < 0) AS public_sums_below_zero, count(*) FILTER (WHERE s = 0) > 0 AS some_zero
FROM (SELECT d.day, ANON_SUM(v.d, 0, 600) AS s FROM am_days d LEFT JOIN am_visits v ON v.pages = d.day
      GROUP BY d.day) r;
DROP TABLE am_days;
-- HAVING and ORDER BY see the same value as the select list
SELECT below_zero = 0 AS having_sees_it
FROM am_runs('SELECT min(n) FROM (SELECT ANON_COUNT(*) AS n FROM am_visits WHERE false HAVING ANON_COUNT(*) >= 0) s', 40);
SELECT pg_typeof(ANON_COUNT(*)) AS count_type FROM am_visits;
-- with GROUP BY: released partitions passed tau, so their counts are far above 0
RESET anon_dp.epsilon;
SELECT bool_and(n > 0) AS grouped_positive FROM (SELECT browser, ANON_COUNT(*) AS n FROM am_visits GROUP BY browser) s;
-- EXPLAIN shows the post-processing
SELECT trim(line) AS line FROM am_plan() WHERE trim(line) LIKE 'Output: GREATEST%';
CREATE FUNCTION am_outputs(query text) RETURNS TABLE (line text) LANGUAGE plpgsql AS $$
BEGIN
  RETURN QUERY SELECT trim(l) FROM (SELECT l FROM am_explain_lines(query) l) s
  WHERE trim(l) LIKE 'Output:%' LIMIT 1;
END $$;
CREATE FUNCTION am_explain_lines(query text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE l text;
BEGIN FOR l IN EXECUTE 'EXPLAIN (COSTS OFF, VERBOSE) ' || query LOOP RETURN NEXT l; END LOOP; END $$;
SELECT am_outputs('SELECT ANON_SUM(d, 0, 600) FROM am_visits') AS non_negative_sum;
SELECT am_outputs('SELECT ANON_SUM(-d, -600, 0) FROM am_visits') AS non_positive_sum;
SELECT am_outputs('SELECT ANON_SUM(d, -1, 600) FROM am_visits') AS signed_sum;
SELECT am_outputs('SELECT ANON_SUM_CI(pages, 0, 6) FROM am_visits') AS sum_interval;
DROP FUNCTION am_outputs(text);
DROP FUNCTION am_explain_lines(text);

DROP FUNCTION am_runs(text, int);
DROP FUNCTION am_plan();
DELETE FROM anon_dp_budgets WHERE role = 'am_analyst'::regrole;
DROP ROLE am_analyst;
DROP TABLE am_visits;
