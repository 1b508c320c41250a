-- bench/tpch/accuracy.sql -- tables, procedures and report functions of the
-- accuracy harness (bench/accuracy.sh).  Everything lives in schema acc,
-- which is dropped and recreated.
--
--   acc.cfg       one row per measured configuration: the SQL to run (an
--                 anonymization query wrapped so that it returns rows
--                 (key, agg, val)), its schema and anon_dp settings, the
--                 number of runs, and the id (qid) of the exact answer it is
--                 compared with
--   acc.exact     exact answers (key, agg, val) per qid, from the plain
--                 queries; qid || '/peruser' holds what ANON_AVG and
--                 ANON_MEDIAN estimate (average / median of per-user averages)
--   acc.released  every released row of every run
--   acc.run_time  wall time of every run (ms)
--   acc.speed     speed part: ms of every timed execution
--
-- acc.run(cfg) executes a configuration cfg.runs times in one session,
-- each execution an ordinary anonymization query analysed and rewritten by
-- anon_dp (EXECUTE re-analyses the text every time, so every run draws fresh
-- noise and a fresh choice of rows), and commits after every run.
\set ON_ERROR_STOP on
SET client_min_messages = warning;
DROP SCHEMA IF EXISTS acc CASCADE;
CREATE SCHEMA acc;

CREATE TABLE acc.cfg (
    cfg     text PRIMARY KEY,
    part    text NOT NULL,          -- table3, table3x, q1grouped, table4, fig2, eps
    qid     text NOT NULL,          -- exact answer to compare with
    form    text NOT NULL,          -- where the query comes from
    schema  text NOT NULL,
    epsilon float8 NOT NULL,
    delta   float8,                 -- NULL: no GROUP BY, no thresholding
    cu      int NOT NULL,
    n_agg   int NOT NULL,           -- distinct ANON_* calls (N)
    runs    int NOT NULL,
    sql     text NOT NULL,
    settings text NOT NULL DEFAULT '',  -- 'name=value ...' over acc.apply_settings
    run_as  text                    -- the role that runs it (its anon_dp.privacy_unit
                                    -- chooses the unit), NULL: the harness's own
);

CREATE TABLE acc.exact (
    qid  text,
    key  text,
    agg  text,
    val  float8,
    PRIMARY KEY (qid, key, agg)
);

CREATE TABLE acc.released (cfg text, run int, key text, agg text, val float8);
CREATE TABLE acc.run_time (seq bigserial, cfg text, run int, ms float8);
CREATE TABLE acc.speed (sf text, query text, kind text, run int, ms float8);
CREATE TABLE acc.paper (item text PRIMARY KEY, val float8);

-- What the expected errors of a Table 4 query are computed from: du, the
-- bound of its ANON_COUNT (the noise scale is du / eps_share); center_agg,
-- the exact agg its released value estimates ('count': the exact value
-- itself, Q4 and Q13; 'expect': the expected count after C_u bounding, Q16;
-- 'users': each supplier counts 1, Q21); release_agg, the exact agg whose
-- value is the user count tested against tau.
CREATE TABLE acc.table4_model (qid text PRIMARY KEY, du int, center_agg text, release_agg text);
INSERT INTO acc.table4_model VALUES
    ('q04', 5, 'count', 'users'), ('q13', 1, 'count', 'users'),
    ('q16', 1, 'expect', 'expect'), ('q21', 1, 'users', 'users');

-- the epsilon of each release (as the rewriter splits it): with GROUP BY
-- eps / (C_u (N + 1)), also for the user count; without (delta NULL) eps / N
CREATE FUNCTION acc.eps_share(c acc.cfg) RETURNS float8
LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE WHEN c.delta IS NULL THEN c.epsilon / c.n_agg
                ELSE c.epsilon / (c.cu * (c.n_agg + 1)) END $$;

CREATE PROCEDURE acc.apply_settings(p_schema text, p_epsilon float8, p_delta float8, p_cu int)
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM set_config('search_path', format('%I, public', p_schema), false);
    PERFORM set_config('anon_dp.epsilon', p_epsilon::text, false);
    IF p_delta IS NOT NULL THEN
        PERFORM set_config('anon_dp.delta', p_delta::text, false);
    END IF;
    PERFORM set_config('anon_dp.max_groups_contributed', p_cu::text, false);
    PERFORM set_config('anon_dp.max_rows_contributed', '0', false);
    -- the paper's mechanisms (bench/accuracy.sh reproduces the paper): a
    -- separate Laplace user count against tau, Laplace noise; issue 20's
    -- choices are configurations' own settings (bench/accuracy_beyond.sh)
    PERFORM set_config('anon_dp.partition_selection', 'laplace', false);
    PERFORM set_config('anon_dp.reuse_counts', 'off', false);
    PERFORM set_config('anon_dp.noise', 'laplace', false);
END $$;

-- a configuration's settings: acc.apply_settings, then its own
CREATE PROCEDURE acc.apply_cfg(c acc.cfg)
LANGUAGE plpgsql AS $$
DECLARE
    kv text;
BEGIN
    CALL acc.apply_settings(c.schema, c.epsilon, c.delta, c.cu);
    FOR kv IN SELECT x FROM regexp_split_to_table(btrim(c.settings), '\s+') x WHERE x <> '' LOOP
        PERFORM set_config(split_part(kv, '=', 1), split_part(kv, '=', 2), false);
    END LOOP;
END $$;

CREATE PROCEDURE acc.run(p_cfg text)
LANGUAGE plpgsql AS $$
DECLARE
    c  acc.cfg;
    i  int;
    t0 timestamptz;
BEGIN
    SELECT * INTO STRICT c FROM acc.cfg WHERE cfg = p_cfg;
    DELETE FROM acc.released WHERE cfg = p_cfg;
    DELETE FROM acc.run_time WHERE cfg = p_cfg;
    CALL acc.apply_cfg(c);
    FOR i IN 1 .. c.runs LOOP
        t0 := clock_timestamp();
        EXECUTE format('INSERT INTO acc.released (cfg, run, key, agg, val) '
                       'SELECT %L, %s, key, agg, val FROM (%s) q', c.cfg, i, c.sql);
        INSERT INTO acc.run_time (cfg, run, ms)
            VALUES (c.cfg, i, extract(epoch FROM clock_timestamp() - t0) * 1000);
        COMMIT;
        -- COMMIT ends the transaction, not the session settings; set them
        -- again anyway in case a future anon_dp resets them
        CALL acc.apply_cfg(c);
    END LOOP;
END $$;

-- Speed: run the plain and the anonymized text alternately (the first
-- of the pair alternates between rounds), after one untimed warm-up each.
-- EXECUTE without INTO runs the statement to completion and discards its
-- rows; the time includes parse analysis, the rewrite and planning.
CREATE PROCEDURE acc.time_pair(p_sf text, p_query text, p_schema text, p_epsilon float8,
                               p_delta float8, p_cu int, p_plain text, p_anon text, p_runs int)
LANGUAGE plpgsql AS $$
DECLARE
    i     int;
    k     int;
    kind  text;
    t0    timestamptz;
BEGIN
    DELETE FROM acc.speed WHERE sf = p_sf AND query = p_query;
    CALL acc.apply_settings(p_schema, p_epsilon, p_delta, p_cu);
    EXECUTE p_plain;
    EXECUTE p_anon;
    FOR i IN 1 .. p_runs LOOP
        FOR k IN 0 .. 1 LOOP
            kind := CASE WHEN (i + k) % 2 = 1 THEN 'plain' ELSE 'anon' END;
            t0 := clock_timestamp();
            IF kind = 'plain' THEN EXECUTE p_plain; ELSE EXECUTE p_anon; END IF;
            INSERT INTO acc.speed
                VALUES (p_sf, p_query, kind, i, extract(epoch FROM clock_timestamp() - t0) * 1000);
        END LOOP;
        COMMIT;
        CALL acc.apply_settings(p_schema, p_epsilon, p_delta, p_cu);
    END LOOP;
END $$;

-- Median of a sample with a distribution-free 95 % interval: the order
-- statistics of ranks n/2 -/+ 0.98 sqrt(n) (+1), the normal approximation of
-- the binomial interval for the median (exact enough for n >= 10).
CREATE FUNCTION acc.median_ci(v float8[], OUT n int, OUT med float8, OUT lo float8, OUT hi float8)
LANGUAGE sql IMMUTABLE AS $$
    WITH s AS (SELECT array_agg(x ORDER BY x) AS a, count(*)::int AS n
               FROM unnest(v) x WHERE x IS NOT NULL)
    SELECT n,
           CASE WHEN n = 0 THEN NULL WHEN n % 2 = 1 THEN a[(n + 1) / 2]
                ELSE (a[n / 2] + a[n / 2 + 1]) / 2 END,
           a[greatest(1, floor(n / 2.0 - 0.98 * sqrt(n))::int)],
           a[least(n, ceil(n / 2.0 + 1 + 0.98 * sqrt(n))::int)]
    FROM s
$$;

-- relative errors of every released value, against the exact answer and
-- against what the anon_dp aggregate estimates (qid/peruser, if any)
CREATE VIEW acc.err AS
SELECT r.cfg, r.run, r.key, r.agg, r.val,
       e.val AS exact,
       abs(r.val - e.val) / nullif(abs(e.val), 0) AS rel,
       abs(r.val - t.val) / nullif(abs(t.val), 0) AS rel_target
FROM acc.released r
JOIN acc.cfg c USING (cfg)
LEFT JOIN acc.exact e ON e.qid = c.qid AND e.key = r.key AND e.agg = r.agg
LEFT JOIN acc.exact t ON t.qid = c.qid || '/peruser' AND t.key = r.key AND t.agg = r.agg;

-- median relative error per configuration and aggregate
CREATE VIEW acc.err_summary AS
SELECT e.cfg, e.agg,
       (acc.median_ci(array_agg(e.rel))).*,
       (acc.median_ci(array_agg(e.rel_target))).med AS med_target,
       (acc.median_ci(array_agg(e.rel_target))).lo  AS lo_target,
       (acc.median_ci(array_agg(e.rel_target))).hi  AS hi_target,
       count(*) FILTER (WHERE e.exact IS NULL) AS not_in_exact
FROM acc.err e
GROUP BY e.cfg, e.agg;

-- tau-thresholding: which of the exact query's partitions were released.
-- rate = 1 - released / (runs * exact partitions); interval: Wilson 95 %
-- on the release fraction (partitions are released independently given
-- their user counts, so the binomial interval is conservative).
CREATE VIEW acc.thr AS
WITH parts AS (
    SELECT c.cfg, c.runs, (SELECT count(DISTINCT key) FROM acc.exact x WHERE x.qid = c.qid) AS p
    FROM acc.cfg c
), rel AS (
    SELECT r.cfg,
           count(DISTINCT (r.run, r.key)) FILTER (WHERE EXISTS (
               SELECT 1 FROM acc.exact x JOIN acc.cfg c ON c.qid = x.qid
               WHERE c.cfg = r.cfg AND x.key = r.key)) AS released,
           count(DISTINCT (r.run, r.key)) FILTER (WHERE NOT EXISTS (
               SELECT 1 FROM acc.exact x JOIN acc.cfg c ON c.qid = x.qid
               WHERE c.cfg = r.cfg AND x.key = r.key)) AS released_unknown
    FROM acc.released r GROUP BY r.cfg
), w AS (
    SELECT parts.cfg, parts.runs, parts.p,
           coalesce(rel.released, 0) AS released,
           coalesce(rel.released_unknown, 0) AS released_unknown,
           (parts.runs * parts.p)::float8 AS trials
    FROM parts LEFT JOIN rel USING (cfg)
)
SELECT cfg, runs, p AS partitions, released, released_unknown,
       1 - released / trials AS rate,
       1 - ((released / trials + 1.96 ^ 2 / (2 * trials))
            + 1.96 * sqrt(released / trials * (1 - released / trials) / trials + 1.96 ^ 2 / (4 * trials ^ 2)))
           / (1 + 1.96 ^ 2 / trials) AS rate_lo,
       1 - ((released / trials + 1.96 ^ 2 / (2 * trials))
            - 1.96 * sqrt(released / trials * (1 - released / trials) / trials + 1.96 ^ 2 / (4 * trials ^ 2)))
           / (1 + 1.96 ^ 2 / trials) AS rate_hi
FROM w WHERE trials > 0;

-- Probability that a partition of k users passes the threshold tau when
-- its user count gets continuous Laplace noise of scale b: 1/2
-- exp(-(tau - k) / b) below tau and 1 - 1/2 exp(-(k - tau) / b) above.
CREATE FUNCTION acc.release_prob(k float8, tau float8, b float8) RETURNS float8
LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE WHEN k >= tau THEN 1 - 0.5 * exp(greatest(-700, -(k - tau) / b))
                ELSE 0.5 * exp(greatest(-700, -(tau - k) / b)) END $$;

-- Expected thresholding rate for partitions whose user counts are the exact
-- values of (qid, agg), with noise of scale 1 / eps_share around each count
-- and anon_dp's tau.  Valid when no user is cut by C_u (Q13: one partition
-- per customer).
CREATE FUNCTION acc.expected_rate(p_qid text, p_agg text, p_eps_share float8, p_delta float8, p_cu int)
RETURNS float8 LANGUAGE sql STABLE AS $$
    WITH t AS (SELECT anon_dp_tau(p_eps_share, p_delta, p_cu) AS tau)
    SELECT 1 - avg(acc.release_prob(x.val, t.tau, 1 / p_eps_share))
    FROM acc.exact x, t WHERE x.qid = p_qid AND x.agg = p_agg
$$;

-- Median of |a L1 + c L2| for independent standard Laplace L1, L2:
-- P(|X| > t) = (a^2 exp(-t/a) - c^2 exp(-t/c)) / (a^2 - c^2), solved by
-- bisection (a ln 2 when c = 0).  ANON_AVG's theory: the released average
-- is m + S~ / N~, so relative to the average A its error is about
-- L_sum / (N A) + (m - A) / A * L_count / N, a sum of two Laplace terms.
CREATE FUNCTION acc.median_abs_laplace_sum(a float8, c float8)
RETURNS float8 LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
    lo float8 := 0; hi float8; mid float8;
BEGIN
    a := abs(a); c := abs(c);
    IF least(a, c) = 0 THEN
        RETURN greatest(a, c) * ln(2);
    END IF;
    IF abs(a - c) < 1e-9 * a THEN
        c := c * (1 - 1e-6);                 -- the formula's a = c limit
    END IF;
    hi := 50 * greatest(a, c);
    FOR i IN 1 .. 100 LOOP
        mid := (lo + hi) / 2;
        IF (a * a * exp(-mid / a) - c * c * exp(-mid / c)) / (a * a - c * c) > 0.5 THEN
            lo := mid;
        ELSE
            hi := mid;
        END IF;
    END LOOP;
    RETURN hi;
END
$$;

-- three significant digits; scientific notation below 0.001 and from 1e5
CREATE FUNCTION acc.fmt(x float8) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE WHEN x IS NULL THEN '-'
                WHEN x = 0 THEN '0'
                WHEN abs(x) >= 1e5 OR abs(x) < 0.001 THEN btrim(to_char(x, '9.99EEEE'))
                ELSE round(x::numeric, greatest(0, 2 - floor(log(abs(x)::numeric))::int))::text END
$$;

-- a thresholding rate: enough digits to show the distance from 1
CREATE FUNCTION acc.fmt_rate(x float8) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE WHEN x IS NULL THEN '-'
                WHEN abs(x) < 1e-12 THEN '0'
                WHEN x = 1 THEN '1'
                WHEN x > 0.99 AND x < 1 THEN round(x::numeric, 2 - floor(log((1 - x)::numeric))::int)::text
                WHEN x = 0 THEN '0'
                WHEN x < 0.001 THEN btrim(to_char(x, '9.99EEEE'))
                ELSE round(x::numeric, 3)::text END
$$;

CREATE FUNCTION acc.fmt_ci(med float8, lo float8, hi float8) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE WHEN med IS NULL THEN '-'
                ELSE acc.fmt(med) || ' [' || acc.fmt(lo) || ', ' || acc.fmt(hi) || ']' END
$$;

-- Expected median relative error of the released values of a grouped
-- ANON_COUNT query (the pooled reading): each partition has an exact value
-- k (agg 'count', the error's denominator), a user count u (agg
-- p_release_agg, which decides its release, as in acc.expected_rate) and
-- an expectation s of its released value (agg p_center_agg: 'count' when
-- the release estimates k itself, Q4 and Q13; 'expect' for Q16, the
-- expected count after C_u bounding; 'users' for Q21, where each supplier
-- counts 1).  The released value is s plus Laplace noise L of scale p_b,
-- drawn independently of the user count.  With d = s - k, the median x of
-- the pooled errors |d + L| / k solves
--   sum_k P(release k) P(|d + L| <= x k) / sum_k P(release k) = 1/2,
-- P(|d + L| <= m) = 1 - exp(-m/b) cosh(d/b) for m >= |d| and
-- exp(-|d|/b) sinh(m/b) for m < |d| (increasing in x; written below as
-- sums of exponentials of non-positive arguments), solved by bisection
-- on log x to 1e-6 relative.  For Q16 the release uses the bounded
-- expectation as the user count, an approximation (the count after
-- bounding varies around it).
CREATE FUNCTION acc.expected_median_err(p_qid text, p_b float8, p_eps_share float8, p_delta float8, p_cu int,
                                        p_center_agg text DEFAULT 'count', p_release_agg text DEFAULT 'users')
RETURNS float8 LANGUAGE plpgsql STABLE AS $$
DECLARE
    tau float8 := anon_dp_tau(p_eps_share, p_delta, p_cu);
    ks float8[]; ds float8[]; ps float8[];
    lo float8 := -9; hi float8 := 4; mid float8; f float8;
BEGIN
    SELECT array_agg(c.val), array_agg(abs(s.val - c.val)),
           array_agg(acc.release_prob(u.val, tau, 1 / p_eps_share))
    INTO ks, ds, ps
    FROM acc.exact c
    JOIN acc.exact u ON u.qid = c.qid AND u.key = c.key AND u.agg = p_release_agg
    JOIN acc.exact s ON s.qid = c.qid AND s.key = c.key AND s.agg = p_center_agg
    WHERE c.qid = p_qid AND c.agg = 'count' AND c.val > 0;
    IF ks IS NULL THEN
        RETURN NULL;
    END IF;
    WHILE hi - lo > 4e-7 LOOP                    -- log10 x; 4e-7 is about 1e-6 relative
        mid := (lo + hi) / 2;
        SELECT sum(w.p * CASE WHEN x.m >= w.d
                              THEN 1 - 0.5 * (exp(greatest(-700, -(x.m - w.d) / p_b)) + exp(greatest(-700, -(x.m + w.d) / p_b)))
                              ELSE 0.5 * (exp(greatest(-700, -(w.d - x.m) / p_b)) - exp(greatest(-700, -(w.d + x.m) / p_b))) END)
               / sum(w.p)
        INTO f FROM unnest(ks, ds, ps) w(k, d, p) CROSS JOIN LATERAL (SELECT 10 ^ mid * w.k) x(m);
        IF f >= 0.5 THEN hi := mid; ELSE lo := mid; END IF;
    END LOOP;
    RETURN 10 ^ hi;
END
$$;

-- Expected error of a query under the other reading of "median relative
-- error": the median, over the exact query's partitions, of each partition's
-- own median relative error over runs (every partition counted once,
-- whatever its size or release probability).  A partition's released value
-- is s + L, L Laplace of scale p_b, s its expectation (the exact agg
-- p_center_agg of the same key: 'count' when the release estimates the
-- exact value k itself; 'users' for Q21, where each supplier counts 1;
-- 'expect' for Q16, the expected count after C_u bounding).  With
-- d = s - k, P(|d + L| <= m) = 1 - exp(-m/b) cosh(d/b) for every m > |d|,
-- and it is below 1/2 for m <= |d|, so the median of |d + L| is
-- b ln(2 cosh(d/b)) = |d| + b ln(1 + exp(-2|d|/b)) (b ln 2 when d = 0), and
-- the relative error is that / k.
CREATE FUNCTION acc.expected_partition_median_err(p_qid text, p_b float8, p_center_agg text)
RETURNS float8 LANGUAGE sql STABLE AS $$
    SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY
               (abs(s.val - c.val) + p_b * ln(1 + exp(greatest(-700, -2 * abs(s.val - c.val) / p_b)))) / c.val)
    FROM acc.exact c JOIN acc.exact s ON s.qid = c.qid AND s.key = c.key AND s.agg = p_center_agg
    WHERE c.qid = p_qid AND c.agg = 'count' AND c.val > 0
$$;

-- The same reading measured: per partition, the median relative error of
-- its released values over the runs that released it; then the median over
-- the partitions released at least once (partitions never released in R
-- runs are missing, which leaves out the smallest ones).
CREATE VIEW acc.err_by_partition AS
WITH per AS (
    SELECT e.cfg, e.agg, e.key, percentile_cont(0.5) WITHIN GROUP (ORDER BY e.rel) AS med
    FROM acc.err e WHERE e.rel IS NOT NULL GROUP BY e.cfg, e.agg, e.key
)
SELECT cfg, agg, count(*) AS partitions, percentile_cont(0.5) WITHIN GROUP (ORDER BY med) AS med
FROM per GROUP BY cfg, agg;

-- ... and with the measured noise applied to every partition: the median
-- absolute noise |released - exact| of all released values (the noise has
-- the same distribution in every partition when the release estimates the
-- exact value, Q4 and Q13), divided by each exact partition's value; the
-- median over all exact partitions.
CREATE FUNCTION acc.noise_partition_median_err(p_cfg text)
RETURNS float8 LANGUAGE sql STABLE AS $$
    WITH m AS (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY abs(e.val - e.exact)) AS noise
               FROM acc.err e WHERE e.cfg = p_cfg AND e.exact IS NOT NULL)
    SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY m.noise / x.val)
    FROM m, acc.cfg c JOIN acc.exact x ON x.qid = c.qid AND x.agg = 'count'
    WHERE c.cfg = p_cfg AND x.val > 0
$$;

-- Q13's answer with the official generator (dbgen) at SF 1, as published in
-- the TPC-H specification's answer set (c_count, custdist; 42 rows, 150,000
-- customers): the paper ran on dbgen data, so its partitions had these
-- sizes.  Used to compute what the paper's Q13 numbers should be
-- (acc.expected_rate, acc.expected_median_err,
-- acc.expected_partition_median_err with qid 'q13/dbgen').
INSERT INTO acc.exact
SELECT 'q13/dbgen', v.c_count::text, a.agg, v.custdist
FROM (VALUES (0, 50005), (9, 6641), (10, 6532), (11, 6014), (8, 5937), (12, 5639), (13, 5024),
             (19, 4793), (7, 4687), (17, 4587), (18, 4529), (20, 4516), (15, 4505), (14, 4446),
             (16, 4273), (21, 4190), (22, 3623), (6, 3265), (23, 3225), (24, 2742), (25, 2086),
             (5, 1948), (26, 1612), (27, 1179), (4, 1007), (28, 893), (29, 593), (3, 415),
             (30, 376), (31, 226), (32, 148), (2, 134), (33, 75), (34, 50), (35, 37), (1, 17),
             (36, 14), (38, 5), (37, 5), (40, 4), (41, 2), (39, 1)) v(c_count, custdist)
CROSS JOIN (VALUES ('count'), ('users')) a(agg);
