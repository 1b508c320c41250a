-- Automatic bounds (paper Sec. 5.1.1, doc/functions.md section 10):
-- ANON_SUM(x), ANON_AVG(x), ANON_VAR(x), ANON_STDDEV(x) and their
-- _WITH_BOUNDS forms, ANON_MEDIAN(x) and ANON_NTILE(x, p) spend half of their
-- epsilon on a noisy logarithmic histogram of the users' values that chooses
-- [lower, upper], and half on the value.  Properties, not printed noise:
-- every margin below is at least 5 standard errors, every "rare" event of
-- the histogram (an empty bin above its threshold, probability 1e-6 per
-- histogram) is allowed a few times.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS anon_dp;
RESET client_min_messages;
-- the building blocks are called by name: their schema on the search path (doc/functions.md)
SET search_path = public, anon_dp_internal;
SET extra_float_digits = 0;
SET compute_query_id = off;

-- 4000 users; x uniform on 100..999 (bins [64,128) .. [512,1024)), one row
-- each; g: 2 groups of 2000 users
CREATE TABLE ab_t AS
SELECT u AS uid, (u % 2)::text AS g, 100 + (u * 37) % 900 AS x,
       ((u * 37) % 900)::numeric / 10 AS n, 'v' || u AS label
FROM generate_series(1, 4000) u;
SECURITY LABEL FOR anon_dp ON COLUMN ab_t.uid IS 'privacy_unit';
CREATE ROLE ab_analyst;
SECURITY LABEL FOR anon_dp ON ROLE ab_analyst IS 'anonymized';
SELECT anon_dp_set_budget('ab_analyst', 100, 0.01);

-- ---- the rewrite: one release whose epsilon argument is the whole share ----
-- result type double precision for every numeric column
-- (the _WITH_BOUNDS forms: double precision[] {value, lower bound, upper bound})
SELECT pg_typeof(ANON_SUM(x)) AS sum_int, pg_typeof(ANON_SUM(n)) AS sum_numeric,
       pg_typeof(ANON_AVG(x)) AS avg_int, pg_typeof(ANON_VAR(x)) AS var_int,
       pg_typeof(ANON_STDDEV(n)) AS stddev_numeric,
       pg_typeof(ANON_SUM_WITH_BOUNDS(x)) AS with_bounds
FROM ab_t;
-- the block gets the release's whole epsilon (1): half chooses the bounds
EXPLAIN (VERBOSE, COSTS OFF) SELECT ANON_SUM(x) FROM ab_t;
-- the elements of one _WITH_BOUNDS call are one release (epsilon 1/3 with
-- GROUP BY: itself, ANON_SUM(x) and the partition selection)
EXPLAIN (VERBOSE, COSTS OFF)
SELECT g, (ANON_AVG_WITH_BOUNDS(x))[1], (ANON_AVG_WITH_BOUNDS(x))[3], ANON_SUM(x)
FROM ab_t GROUP BY g;

-- ---- accuracy (truth: sum 2,194,700, mean 548.675; groups 1,097,000 and 1,097,700) ----
-- sum: bounds [0, 1024], epsilon 1/2 per release (ANON_SUM and ANON_AVG),
-- 1/4 for the value -> Laplace scale 4096; margin 25 scales
SELECT abs(ANON_SUM(x) - 2194700) < 102400 AS sum_ok,
       abs(ANON_AVG(x) - 548.675) < 30 AS avg_ok
FROM ab_t;
-- variance of x (uniform on 100..999): about 67,500, standard deviation about
-- 259.8; with bounds [64, 1024] at epsilon 1/6 per part the noise of the
-- variance is a few hundred: margins 10 %
SELECT abs(ANON_VAR(x) - 67500) < 6750 AS var_ok, abs(ANON_STDDEV(x) - 259.8) < 26 AS stddev_ok
FROM ab_t;
SELECT b[2] IN (64, 128) AS var_lower_ok, b[3] AS var_upper, abs(sqrt(b[1]) - 259.8) < 26 AS var_ok
FROM (SELECT ANON_VAR_WITH_BOUNDS(x) AS b FROM ab_t) s;
SELECT (ANON_STDDEV_WITH_BOUNDS(x))[3] AS stddev_upper FROM ab_t;
-- grouped: both partitions released (2000 users); epsilon 1/3 each, 1/6 for
-- the value: scale 6144, margin 25 scales
SELECT g, abs(ANON_SUM(x) - 1097350) < 154000 AS sum_ok, abs(ANON_AVG(x) - 548.675) < 30 AS avg_ok
FROM ab_t GROUP BY g ORDER BY g;

-- ---- the bounds the analyst sees ----
-- a sum keeps 0 inside its bounds, as the lower end when no value is
-- negative: [0, 1024]; a mean starts at the lowest
-- bin that passed: 64 ([64, 128) holds 125 users; the threshold at epsilon 1/2
-- is about 37) or, rarely, 128
SELECT b[2] = 0 AS sum_lower_zero, b[3] AS sum_upper,
       abs(b[1] - 2194700) < 51200 AS sum_ok
FROM (SELECT ANON_SUM_WITH_BOUNDS(x) AS b FROM ab_t) s;
SELECT b[2] IN (64, 128) AS avg_lower_ok, b[3] AS avg_upper,
       abs(b[1] - 548.675) < 30 AS avg_ok
FROM (SELECT ANON_AVG_WITH_BOUNDS(x) AS b FROM ab_t) s;
SELECT (ANON_SUM_WITH_BOUNDS(x))[3] AS upper_1024 FROM ab_t;

-- ---- tiny inputs fail safe: NULL, never an error ----
SELECT ANON_SUM(x) IS NULL AS two_users_null, ANON_AVG(x) IS NULL AS avg_null,
       ANON_VAR(x) IS NULL AS var_null, ANON_STDDEV(x) IS NULL AS stddev_null,
       ANON_SUM_WITH_BOUNDS(x) IS NULL AS with_bounds_null
FROM ab_t WHERE uid <= 2;
SELECT ANON_SUM(x) IS NULL AS empty_null FROM ab_t WHERE false;

-- ---- quantiles without bounds: one value per user (the user's mean) ----
-- x is uniform on 100..999 over 4000 users: median 549.5, 0.9-quantile 910;
-- with two releases in the statement each quantile tree runs at epsilon
-- 1/4 over bounds [64, 1024] (or [128, 1024]) with Laplace noise of scale 16
-- per node; measured over 300 releases: standard deviations 12.8 (median)
-- and 8.4 (0.9-quantile), 21 per group of 2000 users, with heavier tails
-- than a normal's (a simulation of 80,000 runs put 2e-4 of the 0.9-quantile's
-- errors at 40 or more, none at 60); margins at 6+ of them (80, 60, 130: a
-- wrong percentile or per-row weighting is hundreds off)
SELECT pg_typeof(ANON_MEDIAN(x)) AS median_type, abs(ANON_MEDIAN(x) - 549.5) < 80 AS median_ok,
       abs(ANON_NTILE(x, 0.9) - 910) < 60 AS ntile_ok
FROM ab_t;
SELECT g, abs(ANON_MEDIAN(x) - 549.5) < 130 AS median_ok FROM ab_t GROUP BY g ORDER BY g;
SELECT ANON_MEDIAN(x) IS NULL AS tiny_median_null FROM ab_t WHERE uid <= 3;
-- over 200 runs of 2,000 users with values 2^(j / 100), j = 0..999 twice
-- (200 users per bin [2^k, 2^(k+1))), the released median's rank j / 1000 =
-- log2(m) / 10 lies in [0.4, 0.6] in at least 195 runs (the tree's own error
-- at epsilon 1/2 over [1, 1024] is a rank error of about 0.05; bounds chosen
-- badly, e.g. [1, 2^62], put it far off); NULL never
CREATE TEMP TABLE ab_median AS
SELECT r, dp_ntile_auto(2 ^ ((u % 1000) / 100.0), 0.5, 1.0, 1) AS m
FROM generate_series(1, 200) r, generate_series(1, 2000) u GROUP BY r;
SELECT count(*) FILTER (WHERE m IS NULL) AS fallbacks,
       count(*) FILTER (WHERE abs(ln(m) / ln(2) / 10 - 0.5) < 0.1) >= 195 AS median_rank_close
FROM ab_median;

-- ---- an analyst: the same, charged to the budget ----
SET SESSION AUTHORIZATION ab_analyst;
SET anon_dp.epsilon = 0.8;
SELECT abs(ANON_SUM(x) - 2194700) < 128000 AS analyst_sum_ok FROM ab_t;
SELECT ANON_AVG(x) IS NULL AS analyst_tiny_null FROM ab_t WHERE uid <= 3;
SELECT (ANON_SUM_WITH_BOUNDS(x))[3] AS analyst_upper FROM ab_t;
RESET anon_dp.epsilon;
RESET SESSION AUTHORIZATION;
-- three queries of epsilon 0.8 each: the histogram's half is charged with the value's
SELECT spent_epsilon, releases FROM anon_dp_budgets WHERE role = 'ab_analyst'::regrole;

-- ---- refusals: the ANON_* name and what to write ----
SELECT ANON_SUM(label) FROM ab_t;
SELECT ANON_AVG(label) FROM ab_t;
SELECT ANON_SUM_WITH_BOUNDS(label) FROM ab_t;
SELECT ANON_AVG(x, 0) FROM ab_t;
SELECT ANON_VAR(label) FROM ab_t;
SELECT ANON_STDDEV_WITH_BOUNDS(label) FROM ab_t;
SELECT ANON_VAR(x, 0) FROM ab_t;
SELECT ANON_MEDIAN(label) FROM ab_t;
SELECT ANON_NTILE(label, 0.5) FROM ab_t;
SELECT ANON_NTILE(x) FROM ab_t;
SELECT ANON_NTILE(x, 1.5) FROM ab_t;
SELECT ANON_MIN(x) FROM ab_t;
-- the building block checks its epsilon like the others
SELECT dp_sum_auto(x, 0, 1) FROM ab_t;
SELECT dp_avg_auto(x, 1, 0) FROM ab_t;
-- an epsilon too small for the mean's parts is refused on any input, before
-- the histogram could find bounds (an error must not tell whether it did)
SELECT dp_avg_auto(x, 3e-12, 1) FROM ab_t WHERE false;
SELECT dp_var_auto(x, 5e-12, 1) FROM ab_t;
SELECT dp_stddev_auto_bounds(x, 5e-12, 1) FROM ab_t WHERE false;
SELECT dp_sum_auto(x, 3e-12, 1) IS NULL AS sum_accepts FROM ab_t WHERE false;

-- ---- the value's noise: epsilon / 2 with the chosen bounds ----
-- 1000 users of value 100 -> bounds [0, 128], sensitivity 128, epsilon
-- 1/2 of 1 -> Laplace scale 256, standard deviation 362.0.  1000 runs: the
-- sample standard deviation has a relative standard error of about 3.5 %
-- and a longer upper tail (a Laplace sample's variance is skewed);
-- [0.82, 1.25] x 362 is 5 standard errors below and 7 above.  The whole epsilon (sd 181) or a
-- quarter (sd 724) fails.  A run whose histogram lets an empty bin far above
-- the data pass its threshold (by design, with probability about 5e-6 per
-- run: one in 200,000 runs measured) gets bounds of that bin and a sum
-- billions off; such runs (beyond 20 standard deviations) are counted apart,
-- at most 2 of 1000 allowed (more: probability about 2e-8), and the
-- statistics are of the others (a Laplace draw beyond 20 standard deviations:
-- e^-28, never).
CREATE TEMP TABLE ab_runs AS
SELECT r, dp_sum_auto(100::float8, 1.0, 1) AS s
FROM generate_series(1, 1000) r, generate_series(1, 1000) u GROUP BY r;
SELECT count(*) FILTER (WHERE s IS NULL) AS fallbacks,
       count(*) FILTER (WHERE abs(s - 100000) > 20 * 362) <= 2 AS wide_bounds_rare,
       abs(avg(s) FILTER (WHERE abs(s - 100000) <= 20 * 362) - 100000) < 5 * 362 / sqrt(1000) AS unbiased,
       stddev(s) FILTER (WHERE abs(s - 100000) <= 20 * 362) BETWEEN 0.82 * 362.0 AND 1.25 * 362.0 AS scale_ok
FROM ab_runs;

-- ---- end to end over many runs: the bounds cover the bulk ----
-- 2,000 users per run, values 2^(j / 100), j = 0..999 twice: 200 users in each
-- bin [1, 2) .. [512, 1024).  Over 300 runs the mean's bounds are [1, 1024]
-- (every value covered); an empty bin above its threshold (1e-6 per run)
-- may widen a run or two.
CREATE TEMP TABLE ab_cover AS
SELECT r, dp_avg_auto_bounds(2 ^ ((u % 1000) / 100.0), 1.0, 1) AS b
FROM generate_series(1, 300) r, generate_series(1, 2000) u GROUP BY r;
SELECT count(*) FILTER (WHERE b IS NULL) AS fallbacks,
       count(*) FILTER (WHERE b[2] = 1 AND b[3] = 1024) >= 298 AS covered,
       count(*) FILTER (WHERE b[2] > 1 OR b[3] < 1024) AS clipped
FROM ab_cover;
-- tiny partitions (1 to 5 users) over 1000 runs: NULL nearly always, never an error
SELECT count(*) AS runs, count(*) FILTER (WHERE s IS NOT NULL) <= 3 AS almost_all_null
FROM (SELECT r, dp_sum_auto(1000::float8, 1.0, 1) AS s
      FROM generate_series(1, 1000) r, generate_series(1, 5) u WHERE u <= 1 + r % 5
      GROUP BY r) t;

DROP TABLE ab_t;
DROP ROLE ab_analyst;
