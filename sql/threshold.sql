-- tau-thresholding (partition selection, paper Theorem 2) and the epsilon
-- split: arithmetic and observed release rates.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS anon_dp;
RESET client_min_messages;
-- the building blocks are called by name: their schema on the search path (doc/functions.md)
SET search_path = public, anon_dp_internal;
SET extra_float_digits = 0;

-- epsilon / (C_u (N + 1))
SELECT anon_dp_epsilon_share(1.0, 1, 1) AS one_agg,
       anon_dp_epsilon_share(1.0, 2, 3) AS cu2_n3,
       anon_dp_epsilon_share(0.3, 3, 0) AS count_only;

-- tau for the discrete noise agrees with the paper's continuous formula
-- 1 - b ln(2 - 2 (1 - delta)^(1/C_u)) (here b = C_u / epsilon-ish scale 1/eps)
SELECT round(anon_dp_tau(1.0, 1e-3, 1)::numeric, 4) AS tau_discrete,
       round(anon_dp_tau_continuous(1.0, 1e-3, 1)::numeric, 4) AS tau_continuous,
       round((1 - ln(2 - 2 * power(1 - 1e-3, 1.0)))::numeric, 4) AS tau_naive_formula;
SELECT abs(anon_dp_tau(0.25, 1e-5, 3)
           - (1 - 4 * ln(2 - 2 * power(1 - 1e-5, 1.0 / 3)))) < 1e-3 AS tau_matches_formula_cu3;

-- precision for tiny delta: q = -expm1(log1p(-delta)/C_u) ~ delta / C_u, so
-- tau ~ 1 - b ln(2 delta / C_u); the naive (1 - delta)^(1/C_u) is exactly 1 at 1e-17
SELECT abs(anon_dp_tau(1.0, 1e-12, 1) - (1 - ln(2e-12))) < 1e-6 AS tau_1e12_precise,
       abs(anon_dp_tau(1.0, 1e-12, 4) - (1 - ln(2 * 1e-12 / 4))) < 1e-6 AS tau_1e12_cu4_precise,
       anon_dp_tau(1.0, 1e-17, 1) < 1e3 AS tau_1e17_finite,
       anon_dp_tau(1.0, 1e-12, 1) > anon_dp_tau(1.0, 1e-6, 1)
         AND anon_dp_tau(1.0, 1e-6, 1) > anon_dp_tau(1.0, 1e-3, 1) AS tau_grows_as_delta_shrinks,
       anon_dp_tau(0.1, 1e-5, 1) > anon_dp_tau(1.0, 1e-5, 1) AS tau_grows_with_scale;

-- one-user partitions are essentially never released: 5000 of them at
-- delta = 1e-9 (each released with probability <= 1e-9)
SELECT count(c) AS released_single_user_partitions
FROM (SELECT g, dp_partition_count(1.0, 1e-9, 1) AS c
      FROM generate_series(1, 5000) g GROUP BY g) x;

-- the release probability of a one-user partition is at most
-- q = 1 - (1 - delta)^(1/C_u) and close to it: delta = 0.02, 20000 partitions,
-- standard error 0.001 (C_u = 1: q = 0.02; C_u = 2: q = 0.0101)
SELECT count(c)::float8 / 20000 BETWEEN 0.012 AND 0.0255 AS rate_cu1_ok
FROM (SELECT g, dp_partition_count(1.0, 0.02, 1) AS c
      FROM generate_series(1, 20000) g GROUP BY g) x;
SELECT count(c)::float8 / 20000 BETWEEN 0.005 AND 0.0142 AS rate_cu2_ok
FROM (SELECT g, dp_partition_count(1.0, 0.02, 2) AS c
      FROM generate_series(1, 20000) g GROUP BY g) x;

-- partitions with 10 tau users are always released, with an accurate count
SELECT count(c) AS released, bool_and(abs(c - 120) < 30) AS counts_accurate
FROM (SELECT p, dp_partition_count(1.0, 1e-5, 1) AS c
      FROM generate_series(1, 100) p, generate_series(1, 120) u
      GROUP BY p) x;
SELECT 10 * anon_dp_tau(1.0, 1e-5, 1) < 120 AS hundred_twenty_is_ten_tau;

-- an empty partition (no rows) is never released
SELECT dp_partition_count(1.0, 1e-5, 1) IS NULL AS empty_not_released
FROM generate_series(1, 10) g WHERE false;

-- tau through the rewriter, whatever the GROUP BY key: a one-user table
-- released under a constant key, a key that folds to a constant, an
-- ordinary key, a row-cap path and a fallback key type (money: anon_dp_pick).
-- With delta = 0.02 and C_u = 1 a one-user partition is released with
-- probability at most 0.02: 300 executions each, at most 22 releases
-- (expected 6, binomial std 2.4: more than 22 about 1e-7 a shape; skipping
-- tau releases all 300).
CREATE TABLE th_one AS SELECT 1 AS uid, 'x' AS g, 1::money AS m FROM generate_series(1, 3);
SECURITY LABEL FOR anon_dp ON COLUMN th_one.uid IS 'privacy_unit';
CREATE TEMP TABLE th_released (shape text, n int);
SET anon_dp.epsilon = 1.0;
SET anon_dp.delta = 0.02;
DO $$
DECLARE
	q text;
	r int;
BEGIN
	FOREACH q IN ARRAY ARRAY[
		'SELECT ''all'' AS k, ANON_COUNT(*) FROM th_one GROUP BY 1',
		'SELECT 1 + 1 AS k, ANON_COUNT(*) FROM th_one GROUP BY 1',
		'SELECT g, ANON_COUNT(*) FROM th_one GROUP BY g',
		'SELECT g, ''c'' AS k, ANON_SUM(uid, 0, 1) FROM th_one GROUP BY 1, 2',
		'SELECT m, ANON_COUNT(*) FROM th_one GROUP BY m']
	LOOP
		FOR i IN 1 .. 300 LOOP
			EXECUTE 'SELECT count(*) FROM (' || q || ') s' INTO r;
			INSERT INTO th_released VALUES (q, r);
		END LOOP;
	END LOOP;
END $$;
SELECT shape, sum(n) <= 22 AS tau_applied FROM th_released GROUP BY shape ORDER BY shape;
RESET anon_dp.epsilon;
RESET anon_dp.delta;
DROP TABLE th_one;
