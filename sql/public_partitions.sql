-- Public partitions (issue 20, doc/rewriter.md "Public partitions"):
--   SELECT p.key, ANON_...(...) FROM public_table p LEFT JOIN private v ON ... GROUP BY p.key
-- releases every key of the public table, also the empty ones (with the
-- noise of empty input), no key the public table lacks, no thresholding and
-- no delta spent on selection; each release gets epsilon / (C_u N).
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS anon_dp;
RESET client_min_messages;
SET extra_float_digits = 0;

-- 2000 public keys; users only in keys 1..3 (1000 each), one user alone in key 4,
-- one user alone in key 9999 and 50 users in key 5000 (neither key is public)
CREATE TABLE pp_keys (k int, label text);
INSERT INTO pp_keys SELECT k, 'k' || k FROM generate_series(1, 2000) k;
SECURITY LABEL FOR anon_dp ON TABLE pp_keys IS 'public';
CREATE TABLE pp_rows (uid int, k int, x float8);
INSERT INTO pp_rows SELECT u, 1 + u % 3, (u % 2)::float8 FROM generate_series(1, 3000) u;
INSERT INTO pp_rows VALUES (99999, 4, 1), (99998, 9999, 1);
INSERT INTO pp_rows SELECT 50000 + u, 5000, 1 FROM generate_series(1, 50) u;
SECURITY LABEL FOR anon_dp ON COLUMN pp_rows.uid IS 'privacy_unit';
CREATE TABLE pp_plain (k int);
INSERT INTO pp_plain VALUES (1), (2);

-- the release calls of a query's plan with their constant arguments (plan
-- text, no noise): which block releases, with which epsilon and delta
CREATE FUNCTION pp_blocks(query text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE line text; piece text; result text[] := '{}';
BEGIN
  FOR line IN EXECUTE 'EXPLAIN (VERBOSE, COSTS OFF) ' || query LOOP
    line := replace(line, 'anon_dp_internal.', '');   -- the blocks' schema
    line := regexp_replace(line, 'anon_dp_bound_partitions\([^)]*\)', '', 'g');
    FOR piece IN SELECT regexp_split_to_table(line, '(Output: |, )(?=dp_[a-z_]+\()') LOOP
      IF piece ~ '^dp_[a-z_]+\(' THEN
        result := result || (substring(piece from '^(dp_[a-z_]+)') || '(' || array_to_string(ARRAY(
          SELECT coalesce(m[1], m[2]) FROM regexp_matches(piece, '''([^'']*)''::|, ([0-9]+)(?=[,)])', 'g') m), ', ') || ')');
      END IF;
    END LOOP;
  END LOOP;
  RETURN array_to_string(result, ' ');
END $$;

SET anon_dp.epsilon = 2;
SET anon_dp.noise = laplace;
CREATE TEMP TABLE pp_out AS
SELECT p.k, ANON_COUNT(*) AS n, ANON_SUM(x, -1, 1) AS s
FROM pp_keys p LEFT JOIN pp_rows v ON v.k = p.k GROUP BY p.k;
-- every_key_released: all 2000 public keys, each once; none other
SELECT count(*) AS released, count(DISTINCT k) AS distinct_keys,
       count(*) FILTER (WHERE k NOT BETWEEN 1 AND 2000) AS not_public
FROM pp_out;
-- one_user_key_released: key 4 (one user) is public, so it is released;
-- keys 9999 (one user) and 5000 (50 users) are not in the public table: never
SELECT bool_or(k = 4) AS key_4, bool_or(k = 9999) AS key_9999, bool_or(k = 5000) AS key_5000 FROM pp_out;
-- big_keys_accurate: the three populated keys are near their 1000 users
SELECT k, abs(n - 1000) < 30 AS near_1000 FROM pp_out WHERE k <= 3 ORDER BY k;
-- empty_keys_noisy: the 1996 keys without users carry noise of the public
-- split, epsilon / (C_u N) = 2 / 2 = 1 per release: the sum over [-1, 1]
-- has Laplace scale 1 (variance 2, +- 25 %); a selection share (N + 1 = 3)
-- would give scale 1.5 (variance 4.5); no noise at all, variance 0.  Counts
-- are clamped at 0 and rounded from the noise grid, finer than 1: a count of
-- 0 comes out positive with P(Z >= 1/2) = e^-1/2 / 2 = 0.303 (standard error
-- over 1996 keys 0.0103; [0.24, 0.35] is 4.5 of them; scale 1.5 would give 0.358).
SELECT var_pop(s) / 2 BETWEEN 0.75 AND 1.25 AS sum_scale_1,
       abs(avg(s)) < 0.2 AS sum_centred,
       avg((n > 0)::int) BETWEEN 0.24 AND 0.35 AS counts_noisy
FROM pp_out WHERE k > 4;
-- the plan: no selection block with a delta, dp_partition_public marks the list
SELECT pp_blocks('SELECT p.k, ANON_COUNT(*), ANON_SUM(x, -1, 1) FROM pp_keys p LEFT JOIN pp_rows v ON v.k = p.k GROUP BY p.k') AS public_plan;
-- RIGHT JOIN from the private side is the same form
SELECT count(*) AS released FROM (SELECT p.k, ANON_COUNT(*) FROM pp_rows v RIGHT JOIN pp_keys p ON v.k = p.k GROUP BY p.k) s;
-- a WHERE condition on the public side only filters the key list
SELECT count(*) AS released, min(k), max(k)
FROM (SELECT p.k, ANON_COUNT(*) FROM pp_keys p LEFT JOIN pp_rows v ON v.k = p.k WHERE p.k <= 10 GROUP BY p.k) s;
-- a condition on the private side keeps every listed key (the list is public)
SELECT count(*) AS released
FROM (SELECT p.k, ANON_COUNT(*) FROM pp_keys p LEFT JOIN pp_rows v ON v.k = p.k WHERE v.x > 0 GROUP BY p.k) s;
-- another column of the public table as the key: one partition per distinct value
SELECT count(*) AS released FROM (SELECT p.label, ANON_COUNT(*) FROM pp_keys p LEFT JOIN pp_rows v ON v.k = p.k GROUP BY p.label) s;
-- a column of the public table inside an aggregate counts only users' rows:
-- keys without users release noise around 0 (scale 0.5), not 1 per public row
SELECT abs(avg(c)) < 0.5 AS public_rows_not_counted
FROM (SELECT p.k, ANON_SUM(p.k, 0, 1) AS c FROM pp_keys p LEFT JOIN pp_rows v ON v.k = p.k WHERE p.k > 4 GROUP BY p.k) s;
-- the other direction is an ordinary private query: thresholded keys of the
-- users' rows, the one-user keys 4 and 9999 dropped (delta 1e-10: each is kept
-- with probability about delta), key 5000 (50 users) kept
SET anon_dp.delta = 1e-10;
SELECT array_agg(k ORDER BY k) AS thresholded
FROM (SELECT v.k, ANON_COUNT(*) FROM pp_rows v LEFT JOIN pp_keys p ON v.k = p.k GROUP BY v.k) s;
RESET anon_dp.delta;

-- ==== refusals, each naming the table ====
-- the preserved side must be labelled: an unlabelled table is refused by name
SELECT p.k, ANON_COUNT(*) FROM pp_plain p LEFT JOIN pp_rows v ON v.k = p.k GROUP BY p.k;
-- a key that reads the private side: refused, naming the key and the private table
SELECT p.k, v.x, ANON_COUNT(*) FROM pp_keys p LEFT JOIN pp_rows v ON v.k = p.k GROUP BY p.k, v.x;
SELECT p.k + v.k, ANON_COUNT(*) FROM pp_keys p LEFT JOIN pp_rows v ON v.k = p.k GROUP BY p.k + v.k;
SELECT v.k, ANON_COUNT(*) FROM pp_keys p LEFT JOIN pp_rows v ON v.k = p.k GROUP BY v.k;
-- FULL JOIN of a public and a private table
SELECT p.k, ANON_COUNT(*) FROM pp_keys p FULL JOIN pp_rows v ON v.k = p.k GROUP BY p.k;
-- the preserved side reading a private table (a subquery or view over pp_rows)
SELECT d.k, ANON_COUNT(*) FROM (SELECT DISTINCT k FROM pp_rows) d LEFT JOIN pp_rows v ON v.k = d.k GROUP BY d.k;
-- a key list filtered by a subquery over private rows
SELECT p.k, ANON_COUNT(*) FROM pp_keys p LEFT JOIN pp_rows v ON v.k = p.k
WHERE p.k IN (SELECT k FROM pp_rows WHERE uid = 99999) GROUP BY p.k;

-- ==== budget: public partitions charge no selection delta ====
CREATE ROLE pp_analyst;
SECURITY LABEL FOR anon_dp ON ROLE pp_analyst IS 'anonymized';
GRANT SELECT ON pp_keys TO pp_analyst;
SELECT anon_dp_set_budget('pp_analyst', 100, 0.01);
SET SESSION AUTHORIZATION pp_analyst;
SET anon_dp.epsilon = 1;
SET anon_dp.delta = 1e-6;
-- ledger: 1. public partitions, Laplace noise: delta 0
SELECT count(*) AS released FROM (SELECT p.k, ANON_COUNT(*) FROM pp_keys p LEFT JOIN pp_rows v ON v.k = p.k GROUP BY p.k) s;
-- 2. the same keys selected from the users' rows: the selection's delta
SELECT count(*) AS released FROM (SELECT v.k, ANON_COUNT(*) FROM pp_rows v GROUP BY v.k) s;
-- 3. public partitions with Gaussian noise: the noise's delta
SET anon_dp.noise = gaussian;
SET anon_dp.max_groups_contributed = 5;
SELECT count(*) AS released FROM (SELECT p.k, ANON_COUNT(*) FROM pp_keys p LEFT JOIN pp_rows v ON v.k = p.k GROUP BY p.k) s;
RESET SESSION AUTHORIZATION;
SELECT epsilon, delta, outcome FROM anon_dp_ledger WHERE role = 'pp_analyst'::regrole ORDER BY entry;
SELECT spent_epsilon, spent_delta FROM anon_dp_budgets WHERE role = 'pp_analyst'::regrole;

RESET anon_dp.epsilon;
RESET anon_dp.delta;
RESET anon_dp.noise;
RESET anon_dp.max_groups_contributed;
DROP FUNCTION pp_blocks(text);
DROP TABLE pp_keys, pp_rows, pp_plain;
DELETE FROM anon_dp_budgets WHERE role = 'pp_analyst'::regrole;
DROP OWNED BY pp_analyst;
DROP ROLE pp_analyst;
