-- Clamping rule (doc/functions.md): NULL and NaN contributions are ignored,
-- +Infinity clamps to the upper bound, -Infinity to the lower bound.  No
-- contribution, however large or special, moves a result by more than the
-- bound (paper Sec. 5.2: NaN must not survive clamping).
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS anon_dp;
RESET client_min_messages;
-- the building blocks are called by name: their schema on the search path (doc/functions.md)
SET search_path = public, anon_dp_internal;

CREATE TABLE hostile (v float8, n numeric);
INSERT INTO hostile VALUES
  (1, 1), (1e300, 1e300), ('NaN', 'NaN'), ('Infinity', 'Infinity'),
  ('-Infinity', '-Infinity'), (NULL, NULL), (-1e300, -1e300);

-- truth after clamping to [0, 1]: 1 + 1 + (NaN ignored) + 1 + 0 + (NULL) + 0 = 3
-- epsilon 1, sensitivity 1: 40 scales of margin
SELECT abs(dp_sum(v, 0, 1, 1.0, 1) - 3) < 40 AS float_sum_bounded,
       abs(dp_sum(n, 0, 1, 1.0, 1) - 3) < 40 AS numeric_sum_bounded,
       dp_sum(v, 0, 1, 1.0, 1) <> 'NaN'::float8 AS float_sum_not_nan,
       dp_sum(n, 0, 1, 1.0, 1)::text <> 'NaN' AS numeric_sum_not_nan
FROM hostile;

-- a single NaN row can never turn the result into NaN (1000 draws)
SELECT count(*) FILTER (WHERE s = 'NaN'::float8 OR s IN ('Infinity', '-Infinity')) AS special_results
FROM (SELECT g, (SELECT dp_sum(v, 0, 1, 1.0, 1) FROM hostile WHERE g > 0) AS s
      FROM generate_series(1, 1000) g) x;

-- (PostgreSQL orders NaN equal to itself, so = 'NaN' detects it)
-- the NaN attack: sum(if uid = victim then 0/0 else 0) is indistinguishable
-- from the same query without the victim: both release finite noise around 0
SELECT count(*) FILTER (WHERE s = 'NaN'::float8 OR abs(s) > 60) AS attack_outliers
FROM (SELECT g, (SELECT dp_sum(CASE WHEN u = 42 THEN 'NaN'::float8 ELSE 0 END, -1, 1, 1.0, 1)
                 FROM generate_series(1, 100) u WHERE g > 0) AS s
      FROM generate_series(1, 500) g) x;


-- mean: NaN and NULL ignored, infinities clamp: (1 + 1 + 1 + 0 + 0) / 5 = 0.6
SELECT abs(dp_avg(v, 0, 1, 1000.0, 1) - 0.6) < 0.05 AS avg_clamped
FROM hostile;

-- mean, variance and quantiles stay inside their documented range even with
-- a tiny epsilon (huge noise) and hostile data, over many draws
SELECT bool_and(a BETWEEN 0 AND 1) AS avg_always_in_range,
       bool_and(v BETWEEN 0 AND 0.25) AS var_always_in_range,
       bool_and(sd BETWEEN 0 AND 0.5) AS stddev_always_in_range,
       bool_and(q BETWEEN 0 AND 1) AS ntile_always_in_range
FROM (SELECT g,
             (SELECT dp_avg(v, 0, 1, 1e-6, 1) FROM hostile WHERE g > 0) AS a,
             (SELECT dp_var(v, 0, 1, 1e-6, 1) FROM hostile WHERE g > 0) AS v,
             (SELECT dp_stddev(v, 0, 1, 1e-6, 1) FROM hostile WHERE g > 0) AS sd,
             (SELECT dp_ntile(v, 0.5, 0, 1, 1e-6, 1) FROM hostile WHERE g > 0) AS q
      FROM generate_series(1, 300) g) x;

-- integer sums: bigint bounds at the extremes never overflow silently; the
-- 128-bit accumulator holds the exact sum and the result saturates
SELECT dp_sum(v, 0, 9223372036854775807, 1.0, 1) > 0 AS huge_int_sum_positive
FROM (SELECT 9223372036854775807::int8 AS v FROM generate_series(1, 10)) x;
SELECT dp_sum(v, -9223372036854775808, 0, 1.0, 1) < 0 AS huge_int_sum_negative
FROM (SELECT (-9223372036854775807 - 1)::int8 AS v FROM generate_series(1, 10)) x;

-- integer clamping: values beyond the bounds count as the bound
SELECT abs(dp_sum(v, -5, 5, 1.0, 1) - 0) < 200 AS int_clamp_symmetric
FROM (VALUES (1000::int8), (-1000::int8)) t(v);

-- count clamps each per-user count into [0, U]: negative counts count as 0
SELECT abs(dp_count(c, 2, 1.0, 1) - 2) < 80 AS count_clamped
FROM (VALUES (-100::int8), (100::int8)) t(c);

DROP TABLE hostile;
