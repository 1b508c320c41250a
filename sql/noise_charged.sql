-- What is charged is what is spent (doc/budget.md, "What is charged is what
-- is spent"): the noise each mechanism adds, measured through SQL on the
-- released values of an anonymized role, against the noise its charge in
-- the ledger implies (the charged epsilon with the documented split, or the
-- charged rho of a Gaussian release).  A split that gives one aggregate
-- more epsilon than its share makes its noise smaller than the charge
-- implies, and fails here.
--
-- Every check is a count of samples whose noise is at most the median the
-- charge implies (Binomial(P, 1/2) when the charge is right; accepted within
-- 5.33 standard deviations) or a selection rate against the rate the charge
-- implies, or a mean against its expectation with a Bernstein bound.  The
-- false-failure probability of each check is below 1e-6; doc/budget.md lists
-- them.  Nothing prints a noisy value.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS anon_dp;
RESET client_min_messages;
SET extra_float_digits = 0;

-- 2000 partitions of 100 users; each user in 2 of them (C_u = 2 keeps both)
CREATE TABLE nc_rows AS
SELECT u AS uid, g, 3.0::float8 AS x, 2.0::float8 AS y,
       CASE (u / 2000) % 2 WHEN 0 THEN 1.0 ELSE 3.0 END::float8 AS y2,
       CASE WHEN (u - 1) / 2000 = 0 THEN 0.0 ELSE 65536.0 END::float8 AS z
FROM generate_series(1, 100000) u,
     LATERAL (VALUES (u % 2000), ((u % 2000 + 1000) % 2000)) p(g);
-- two distinct items per user and partition
CREATE TABLE nc_items AS SELECT uid, g, uid * 10 + j AS item FROM nc_rows, generate_series(1, 2) j;
-- 2000 partitions of 43 users, for the selection of ANON_AVG's count
CREATE TABLE nc_small AS
SELECT u AS uid, u % 2000 AS g, 2.0::float8 AS y FROM generate_series(1, 86000) u;
-- 100 users, each alone in 2 partitions: all of them end in the leftover partition
CREATE TABLE nc_alone AS
SELECT u AS uid, u * 2 + j AS g FROM generate_series(1, 100) u, generate_series(0, 1) j;
-- the public list of partitions
CREATE TABLE nc_keys AS SELECT g FROM generate_series(0, 1999) g;
-- 4 users per listed partition, each user in 2: two at 0.5, two at 32767.5
CREATE TABLE nc_four AS
SELECT u AS uid, g, CASE WHEN u < 2000 THEN 0.5 ELSE 32767.5 END::float8 AS v
FROM generate_series(0, 3999) u, LATERAL (VALUES (u % 2000), ((u % 2000 + 1000) % 2000)) p(g);
-- 20 partitions of 30 users, for the charges of every kind
CREATE TABLE nc_tiny AS
SELECT u AS uid, u % 20 AS g, (u % 5)::float8 AS x, u % 7 AS item FROM generate_series(1, 600) u;
SECURITY LABEL FOR anon_dp ON COLUMN nc_rows.uid IS 'privacy_unit';
SECURITY LABEL FOR anon_dp ON COLUMN nc_items.uid IS 'privacy_unit';
SECURITY LABEL FOR anon_dp ON COLUMN nc_small.uid IS 'privacy_unit';
SECURITY LABEL FOR anon_dp ON COLUMN nc_alone.uid IS 'privacy_unit';
SECURITY LABEL FOR anon_dp ON COLUMN nc_four.uid IS 'privacy_unit';
SECURITY LABEL FOR anon_dp ON COLUMN nc_tiny.uid IS 'privacy_unit';
SECURITY LABEL FOR anon_dp ON TABLE nc_keys IS 'public';
ANALYZE nc_rows, nc_items, nc_small, nc_alone, nc_keys, nc_four, nc_tiny;
CREATE ROLE nc_analyst;
SECURITY LABEL FOR anon_dp ON ROLE nc_analyst IS 'anonymized';
GRANT SELECT ON nc_keys TO nc_analyst;
SELECT anon_dp_set_budget('nc_analyst', 1000000, 0.5);
-- the data owner lets this analyst use a large epsilon per query (small noise)
SET anon_dp.max_epsilon = 1000;
SET anon_dp.max_delta = 0.01;
SET anon_dp.budget_notice = 0;

-- the last charge of the analyst: (epsilon, delta, rho) of its statement
CREATE FUNCTION nc_charge(OUT epsilon float8, OUT delta float8, OUT rho float8) LANGUAGE sql AS $$
  SELECT epsilon::float8, delta::float8, rho FROM anon_dp_ledger
  WHERE role = 'nc_analyst'::regrole AND outcome = 'charged' ORDER BY entry DESC LIMIT 1 $$;
-- the median check: hits of P samples within the median; Binomial(P, 1/2)
-- when the noise is what the charge says
CREATE FUNCTION nc_median_check(hits bigint, total bigint) RETURNS text LANGUAGE sql AS $$
  SELECT CASE WHEN total < 1000 THEN format('only %s samples', total)
              WHEN abs(hits - total / 2.0) <= 5.33 * sqrt(total / 4.0) THEN 'ok'
              ELSE format('%s of %s within the median the charge implies', hits, total) END $$;
-- the rate check: hits of P samples, each a hit with probability p when the
-- noise is what the charge says (integer results: p of the rounded noise)
CREATE FUNCTION nc_rate_check(hits bigint, total bigint, p float8) RETURNS text LANGUAGE sql AS $$
  SELECT CASE WHEN total < 1000 THEN format('only %s samples', total)
              WHEN abs(hits - total * p) <= 5.33 * sqrt(total * p * (1 - p)) THEN 'ok'
              ELSE format('%s of %s, %s expected', hits, total, round((total * p)::numeric, 1)) END $$;
-- the standard normal distribution function (Simpson's rule, error below 1e-12)
CREATE FUNCTION nc_normal_cdf(x float8) RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE
  n int := 2000;
  h float8 := x / n;
  s float8 := 0;
BEGIN
  FOR i IN 0..n LOOP
    s := s + CASE WHEN i = 0 OR i = n THEN 1 WHEN i % 2 = 1 THEN 4 ELSE 2 END * exp(-((i * h) ^ 2) / 2);
  END LOOP;
  RETURN 0.5 + s * h / 3 / sqrt(2 * pi());
END $$;
-- the median of |X + Y|, X ~ Laplace(b1), Y ~ Laplace(b2) independent, b1 > b2:
-- P(|X + Y| > m) = (b1^2 e^(-m/b1) - b2^2 e^(-m/b2)) / (b1^2 - b2^2), by bisection
CREATE FUNCTION nc_median_laplace_sum(b1 float8, b2 float8) RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE
  lo float8 := 0;
  hi float8 := 20 * (b1 + b2);
  m float8;
BEGIN
  FOR i IN 1..200 LOOP
    m := (lo + hi) / 2;
    IF (b1 * b1 * exp(-m / b1) - b2 * b2 * exp(-m / b2)) / (b1 * b1 - b2 * b2) > 0.5 THEN
      lo := m;
    ELSE
      hi := m;
    END IF;
  END LOOP;
  RETURN (lo + hi) / 2;
END $$;

SET SESSION AUTHORIZATION nc_analyst;
SET anon_dp.max_groups_contributed = 2;
SET anon_dp.partition_selection = 'laplace';
SET anon_dp.noise = 'laplace';

-- ==== ANON_COUNT, ANON_SUM and ANON_AVG's sum: three releases in one statement ====
-- epsilon 6, C_u 2, N 3 (the count selects): each partition's release gets
-- epsilon_s = 6 / (2 * 3) = 1; the count is Laplace(1), the sum of x = 3 in
-- [0, 4] Laplace(4), the mean of y = 2 in [0, 4] (its sum of y - 2 = 0 with
-- epsilon_s / 2, sensitivity 2) has noise Laplace(4) / n on its value
SET anon_dp.epsilon = 6;
CREATE TEMP TABLE nc_three AS
SELECT g, ANON_COUNT(*) AS c, ANON_SUM(x, 0, 4) AS s, ANON_AVG(y, 0, 4) AS a FROM nc_rows GROUP BY g;
RESET SESSION AUTHORIZATION;
SELECT epsilon, delta FROM nc_charge();
SELECT count(*) AS partitions FROM nc_three;
-- (the count is an integer: |round(Z)| <= 0 with probability 1 - e^(-0.5 / b))
WITH k AS (SELECT epsilon / (2 * 3) AS es FROM nc_charge())
SELECT nc_rate_check(count(*) FILTER (WHERE c = 100), count(*), 1 - exp(-0.5 * es)) AS count_noise,
       nc_median_check(count(*) FILTER (WHERE abs(s - 300) <= ln(2) * 4 / es), count(*)) AS sum_noise,
       nc_median_check(count(*) FILTER (WHERE abs(a - 2) * 100 <= ln(2) * 2 / (es / 2)), count(*)) AS avg_sum_noise
FROM nc_three, k GROUP BY es;

-- ==== ANON_AVG's count, through the partitions it selects ====
-- epsilon 1, C_u 2, N 1: epsilon_s = 0.25 for the mean's count (half of
-- 0.5), noise Laplace(4) in users; a partition of n users passes tau with
-- probability 1/2 e^(-(tau - n) / 4); n = 43 sits about one scale below tau
SET SESSION AUTHORIZATION nc_analyst;
SET anon_dp.epsilon = 1;
SET anon_dp.delta = 1e-5;
CREATE TEMP TABLE nc_avg_kept AS SELECT g, ANON_AVG(y, 0, 4) AS a FROM nc_small GROUP BY g;
CREATE TEMP TABLE nc_avg_tau AS
SELECT DISTINCT tau FROM anon_dp_explain('SELECT g, ANON_AVG(y, 0, 4) FROM nc_small GROUP BY g');
RESET SESSION AUTHORIZATION;
SELECT epsilon, delta FROM nc_charge();
SELECT tau > 43 AND tau < 43 + 2 * 4 AS tau_one_scale_above FROM nc_avg_tau;
WITH k AS (SELECT 1.0 / (epsilon / (2 * 1) / 2) AS b FROM nc_charge()),
     e AS (SELECT 0.5 * exp(-(tau - 43) / b) AS f FROM nc_avg_tau, k)
SELECT CASE WHEN abs((SELECT count(*) FROM nc_avg_kept) - 2000 * f) <= 5.33 * sqrt(2000 * f * (1 - f))
            THEN 'ok' ELSE format('%s kept, %s expected', (SELECT count(*) FROM nc_avg_kept), 2000 * f) END
       AS avg_count_noise
FROM e;

-- ==== ANON_VAR and ANON_STDDEV: count, sum and sum of squares in thirds ====
-- epsilon 24, C_u 2, N 2 (ANON_VAR, ANON_STDDEV) and a separate selecting
-- count: epsilon_s = 24 / (2 * 3) = 4, a third each = 4/3.  Half the users at 1 and half at 3 (centred +-1, squares
-- centred on c = 2): n (var - 1) is Laplace(c / 2) + Laplace(1 / 2) (the
-- sum of squares and the count), up to (noise of the sum / n)^2
SET SESSION AUTHORIZATION nc_analyst;
SET anon_dp.epsilon = 24;
CREATE TEMP TABLE nc_var AS
SELECT g, ANON_VAR(y2, 0, 4) AS v, ANON_STDDEV(y2, 0, 4) AS sd FROM nc_rows GROUP BY g;
RESET SESSION AUTHORIZATION;
SELECT epsilon, delta FROM nc_charge();
-- N = 2 here (ANON_VAR and ANON_STDDEV, plus the selecting count): epsilon_s = 24 / (2 * 3) = 4
WITH k AS (SELECT epsilon / (2 * 3) / 3 AS et FROM nc_charge()),
     m AS (SELECT nc_median_laplace_sum(2 / et, 1 / et) AS med FROM k)
SELECT nc_median_check(count(*) FILTER (WHERE abs(v - 1) * 100 <= med), count(*)) AS var_noise,
       nc_median_check(count(*) FILTER (WHERE abs(sd * sd - 1) * 100 <= med), count(*)) AS stddev_noise
FROM nc_var, m;

-- ==== ANON_MIN: the quantile tree, one epsilon_s / 4 per level ====
-- each partition: 2 users at 0, 98 at 65536, bounds [0, 65536].  The minimum
-- walks into the first child whose noisy count is positive; the 2 users'
-- child (the first at every level) is positive with probability
-- 1 - 1/2 e^(-2 / b), b = 4 / epsilon_s the noise of each node's count, so
-- the release is 0 with probability (1 - 1/2 e^(-2 / b))^4 (4 levels).
-- epsilon 8, C_u 2, N 1 and a selecting count: epsilon_s = 2, b = 2
SET SESSION AUTHORIZATION nc_analyst;
SET anon_dp.epsilon = 8;
CREATE TEMP TABLE nc_min AS SELECT g, ANON_MIN(z, 0, 65536) AS m FROM nc_rows GROUP BY g;
RESET SESSION AUTHORIZATION;
SELECT epsilon, delta FROM nc_charge();
WITH k AS (SELECT 4 / (epsilon / (2 * 2)) AS b FROM nc_charge())
SELECT nc_rate_check(count(*) FILTER (WHERE m = 0), count(*), (1 - 0.5 * exp(-2 / b)) ^ 4) AS tree_noise
FROM nc_min, k GROUP BY b;

-- ==== ANON_MEDIAN: the exponential mechanism over the 65536 leaves ====
-- public partitions of 4 users (2 at 0.5, 2 at 32767.5): the leaves of the
-- lower half hold the median (distance 0), those of the upper half are 2
-- ranks away, so the release lies in the lower half with probability
-- 1 / (1 + e^(-2 epsilon_q)), epsilon_q = epsilon / (C_u N) = 1
SET SESSION AUTHORIZATION nc_analyst;
SET anon_dp.epsilon = 2;
CREATE TEMP TABLE nc_em AS
SELECT k.g, ANON_MEDIAN(f.v, 0, 65536) AS m FROM nc_keys k LEFT JOIN nc_four f ON f.g = k.g GROUP BY k.g;
RESET SESSION AUTHORIZATION;
SELECT epsilon, delta FROM nc_charge();
WITH k AS (SELECT epsilon / (2 * 1) AS eq FROM nc_charge())
SELECT nc_rate_check(count(*) FILTER (WHERE m < 32768), count(*), 1 / (1 + exp(-2 * eq))) AS median_noise
FROM nc_em, k GROUP BY eq;

-- ==== ANON_COUNT(DISTINCT col, k): sensitivity k ====
-- epsilon 8, C_u 2, N 1 and a selecting count: epsilon_s = 2, k = 2: Laplace(1)
SET SESSION AUTHORIZATION nc_analyst;
SET anon_dp.epsilon = 8;
CREATE TEMP TABLE nc_distinct AS SELECT g, ANON_COUNT(DISTINCT item, 2) AS d FROM nc_items GROUP BY g;
RESET SESSION AUTHORIZATION;
SELECT epsilon, delta FROM nc_charge();
-- (an integer: |round(Z)| <= 0 with probability 1 - e^(-0.5 / b), b = k / epsilon_s)
WITH k AS (SELECT epsilon / (2 * 2) AS es FROM nc_charge())
SELECT nc_rate_check(count(*) FILTER (WHERE d = 200), count(*), 1 - exp(-0.5 * es / 2)) AS distinct_noise
FROM nc_distinct, k GROUP BY es;

-- ==== automatic bounds: half for the histogram, half for the sum ====
-- ANON_SUM_WITH_BOUNDS(x): the sum over the bounds it shows, with epsilon_s / 2
-- epsilon 8, C_u 2, N 1 and a selecting count: epsilon_s = 2, the sum's 1
SET SESSION AUTHORIZATION nc_analyst;
SET anon_dp.epsilon = 8;
CREATE TEMP TABLE nc_auto AS SELECT g, ANON_SUM_WITH_BOUNDS(x) AS sb FROM nc_rows GROUP BY g;
RESET SESSION AUTHORIZATION;
SELECT epsilon, delta FROM nc_charge();
-- every partition's histogram chooses [0, 4] unless an empty bin passes its
-- threshold, which happens with probability at most 1e-6 per partition (the
-- threshold's design, doc/functions.md): over 2000 partitions that is up to
-- 2e-3 per run, so a few partitions with other bounds are allowed (10 or more
-- have a probability below 1e-40); the noise check below reads each
-- partition's own bounds
SELECT count(*) FILTER (WHERE sb[2] = 0 AND sb[3] = 4) >= count(*) - 9 AS bounds_0_4,
       count(*) FILTER (WHERE sb[2] <= 3 AND sb[3] >= 3) = count(*) AS cover
FROM nc_auto;
WITH k AS (SELECT epsilon / (2 * 2) / 2 AS es FROM nc_charge())
SELECT nc_median_check(count(*) FILTER (WHERE abs(sb[1] - 300) <= ln(2) * greatest(abs(sb[2]), abs(sb[3])) / es),
                       count(*)) AS auto_sum_noise
FROM nc_auto, k;

-- ==== Gaussian releases: the charged rho is the noise's ====
-- a Gaussian count that also selects: sigma = sqrt(C_u / (2 rho)), rho the charge's
SET SESSION AUTHORIZATION nc_analyst;
SET anon_dp.noise = 'gaussian';
SET anon_dp.partition_selection = 'gaussian';
SET anon_dp.epsilon = 2;
CREATE TEMP TABLE nc_gauss AS SELECT g, ANON_COUNT(*) AS c FROM nc_rows GROUP BY g;
RESET SESSION AUTHORIZATION;
SELECT epsilon, delta, rho > 0 AS has_rho FROM nc_charge();
-- (an integer: |round(Z)| <= j with probability 2 Phi((j + 0.5) / sigma) - 1)
WITH k AS (SELECT sqrt(2 / (2 * rho)) AS sigma FROM nc_charge()),
     j AS (SELECT sigma, floor(0.6744897501960817 * sigma) AS j FROM k)
SELECT nc_rate_check(count(*) FILTER (WHERE abs(c - 100) <= j), count(*),
                     2 * nc_normal_cdf((j + 0.5) / sigma) - 1) AS gaussian_count_noise
FROM nc_gauss, j GROUP BY j, sigma
\gset
-- (on a failure, what the ledger row and the counts were, to tell which is off)
SELECT CASE WHEN :'gaussian_count_noise' = 'ok' THEN 'ok'
            ELSE :'gaussian_count_noise' || format(' (the counts'' sd %s over %s partitions; ledger: %s)',
                 (SELECT round(stddev(c - 100)::numeric, 3) FROM nc_gauss), (SELECT count(*) FROM nc_gauss),
                 (SELECT row_to_json(l)::text FROM (SELECT entry, epsilon, delta, releases, accounting, rho,
                         cost_epsilon, cost_delta, left(statement, 60) AS statement FROM anon_dp_ledger
                  WHERE role = 'nc_analyst'::regrole AND outcome = 'charged' ORDER BY entry DESC LIMIT 1) l))
       END AS gaussian_count_noise;
-- a Gaussian sum over public partitions (nothing selects): sigma = 4 sqrt(C_u / (2 rho))
SET SESSION AUTHORIZATION nc_analyst;
CREATE TEMP TABLE nc_gauss_sum AS
SELECT k.g, ANON_SUM(r.x, 0, 4) AS s FROM nc_keys k LEFT JOIN nc_rows r ON r.g = k.g GROUP BY k.g;
RESET SESSION AUTHORIZATION;
SELECT epsilon, delta, rho > 0 AS has_rho FROM nc_charge();
WITH k AS (SELECT 4 * sqrt(2 / (2 * rho)) AS sigma FROM nc_charge())
SELECT nc_median_check(count(*) FILTER (WHERE abs(s - 300) <= 0.6744897501960817 * sigma), count(*))
       AS gaussian_sum_noise
FROM nc_gauss_sum, k;

-- ==== the leftover partition: one row per release, 1000 releases ====
-- epsilon 6, C_u 2, N 1 (the count selects): every share s = 6 / (2 (1 + 1 + 1)) = 1;
-- the leftover count, over the 200 rows of partitions no one passes, is
-- Laplace(1 / s) (calibrated for one row, charged C_u times)
SET SESSION AUTHORIZATION nc_analyst;
SET anon_dp.noise = 'laplace';
SET anon_dp.partition_selection = 'laplace';
SET anon_dp.leftover_partition = on;
SET anon_dp.epsilon = 6;
SET anon_dp.delta = 1e-9;
CREATE TEMP TABLE nc_leftover (c bigint);
DO $$
BEGIN
  FOR i IN 1..1000 LOOP
    INSERT INTO nc_leftover SELECT ANON_COUNT(*) FROM nc_alone GROUP BY g HAVING g IS NULL;
  END LOOP;
END $$;
RESET anon_dp.leftover_partition;
RESET SESSION AUTHORIZATION;
SELECT epsilon, delta FROM nc_charge();
SELECT count(*) AS leftover_rows, abs(avg(c) - 200) < 1 AS counts_rows FROM nc_leftover;
-- (an integer: |round(Z)| <= 0 with probability 1 - e^(-0.5 s))
WITH k AS (SELECT epsilon / (2 * 3) AS s FROM nc_charge())
SELECT nc_rate_check(count(*) FILTER (WHERE c = 200), count(*), 1 - exp(-0.5 * s)) AS leftover_noise
FROM nc_leftover, k GROUP BY s;

-- ==== charges: every release kind, C_u 3, several releases in one statement ====
-- the charge of each statement is anon_dp.epsilon and the sum of its deltas,
-- whatever the kinds, and the cap applies to each release
SET SESSION AUTHORIZATION nc_analyst;
SET anon_dp.epsilon = 0.9;
SET anon_dp.delta = 1e-6;
SET anon_dp.max_groups_contributed = 3;
DO $$
DECLARE
  q text;
  charged float8;
BEGIN
  FOREACH q IN ARRAY ARRAY[
    'ANON_COUNT(*)', 'ANON_COUNT(x)', 'ANON_COUNT(x, 3)', 'ANON_COUNT(DISTINCT item)',
    'ANON_SUM(x, 0, 4)', 'ANON_AVG(x, 0, 4)', 'ANON_VAR(x, 0, 4)', 'ANON_STDDEV(x, 0, 4)',
    'ANON_MEDIAN(x, 0, 4)', 'ANON_MIN(x, 0, 4)', 'ANON_MAX(x, 0, 4)', 'ANON_NTILE(x, 0.9, 0, 4)',
    'ANON_SUM(x)', 'ANON_AVG(x)', 'ANON_SUM_CI(x, 0, 4)', 'ANON_AVG_CI(x, 0, 4)',
    'ANON_COUNT(*), ANON_SUM(x, 0, 4), ANON_AVG(x, 0, 4), ANON_MEDIAN(x, 0, 4)'] LOOP
    EXECUTE format('CREATE TEMP TABLE nc_kind AS SELECT g, %s FROM nc_tiny GROUP BY g', q);
    DROP TABLE nc_kind;
  END LOOP;
END $$;
-- over the cap of the release: refused before anything is charged
SET anon_dp.epsilon = 1001;
SELECT count(*) FROM (SELECT g, ANON_COUNT(*) FROM nc_rows GROUP BY g) s;
RESET SESSION AUTHORIZATION;
SELECT count(*) AS statements, count(DISTINCT round(epsilon, 12)) AS epsilons, round(min(epsilon), 12) AS epsilon,
       bool_and(delta <= 1e-6) AS delta_within, bool_and(accounting IS NOT NULL) AS accounted
FROM (SELECT * FROM anon_dp_ledger WHERE role = 'nc_analyst'::regrole AND outcome = 'charged'
      ORDER BY entry DESC LIMIT 17) s;

RESET anon_dp.max_epsilon;
RESET anon_dp.max_delta;
RESET anon_dp.budget_notice;
DELETE FROM anon_dp_budgets WHERE role = 'nc_analyst'::regrole;
DROP TABLE nc_rows, nc_items, nc_small, nc_alone, nc_keys, nc_four, nc_tiny, nc_three, nc_avg_kept,
  nc_avg_tau, nc_var, nc_min, nc_em, nc_distinct, nc_auto, nc_gauss, nc_gauss_sum, nc_leftover;
DROP FUNCTION nc_charge(), nc_median_check(bigint, bigint), nc_rate_check(bigint, bigint, float8),
  nc_normal_cdf(float8), nc_median_laplace_sum(float8, float8);
DROP OWNED BY nc_analyst;
DROP ROLE nc_analyst;
