-- anon_dp_explain(query) and anon_dp_epsilon_for(query, half_width)
-- (doc/functions.md): what an anonymization query will release and charge,
-- from its analysis alone: nothing is planned, run or charged.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS anon_dp;
RESET client_min_messages;
SET extra_float_digits = 0;

CREATE TABLE ex_visits (uid int, day int, secs float8, pages int);
INSERT INTO ex_visits SELECT u, u % 3, u % 600, u % 9 FROM generate_series(1, 3000) u;
SECURITY LABEL FOR anon_dp ON COLUMN ex_visits.uid IS 'privacy_unit';
CREATE TABLE ex_days (day int);
INSERT INTO ex_days VALUES (0), (1), (2), (3);
SECURITY LABEL FOR anon_dp ON TABLE ex_days IS 'public';

-- the columns that do not depend on the settings' rounding, rounded
CREATE FUNCTION ex_show(q text) RETURNS TABLE (level int, release int, function text,
    epsilon numeric, delta numeric, mechanism text, b numeric, h numeric, selection text,
    tau numeric, users_50 numeric, users_95 numeric, charge_epsilon numeric, charge_delta numeric)
LANGUAGE sql AS $$
  SELECT level, release, function, round(epsilon::numeric, 6), round(delta::numeric, 9), mechanism,
         round(noise_scale::numeric, 6), round(half_width::numeric, 6), selection,
         round(tau::numeric, 4), round(users_for_50::numeric, 4), round(users_for_95::numeric, 4),
         round(charge_epsilon::numeric, 6), round(charge_delta::numeric, 9)
  FROM anon_dp_explain(q) $$;

-- ==== without GROUP BY: epsilon / N each, Laplace, b = sensitivity / share ====
-- explain_ungrouped: count b = 2, h = 2 ln 20 = 5.99; sum [0, 600] b = 1200, h = 3594.9
SELECT * FROM ex_show('SELECT ANON_COUNT(*), ANON_SUM(secs, 0, 600) FROM ex_visits');
-- explain_shared_release: equal calls are one release
SELECT count(*) AS releases FROM anon_dp_explain(
  'SELECT ANON_COUNT(*), ANON_COUNT(*) + 1 FROM ex_visits');
-- explain_mean_note: a mean states its two parts; quantiles have no interval
SELECT release, function, mechanism, half_width IS NULL AS no_constant_h, note
FROM anon_dp_explain('SELECT ANON_AVG(secs, 0, 600), ANON_MEDIAN(secs, 0, 600), ANON_VAR(secs, 0, 600) FROM ex_visits');
-- explain_rows_chosen: a row-level median whose rows per user are chosen
SET anon_dp.max_rows_contributed = 8;
SET anon_dp.quantile_rows = auto;
SELECT function, epsilon, mechanism FROM anon_dp_explain('SELECT ANON_MEDIAN(secs, 0, 600) FROM ex_visits');
RESET anon_dp.quantile_rows;
SELECT function, epsilon, mechanism FROM anon_dp_explain('SELECT ANON_MEDIAN(secs, 0, 600) FROM ex_visits');
RESET anon_dp.max_rows_contributed;

-- ==== with GROUP BY: the selection, tau, users for 50 % and 95 % ====
-- explain_laplace_selection: a separate user count (epsilon / (N + 1)), Laplace
-- tau; 95 % at tau + b ln 10 (b = 1 / its epsilon)
SET anon_dp.partition_selection = laplace;
SET anon_dp.reuse_counts = off;
SELECT * FROM ex_show('SELECT day, ANON_SUM(pages, 0, 8) FROM ex_visits GROUP BY day');
SELECT users_for_95 BETWEEN tau + 2 * ln(10) AND tau + 2 * ln(10) + 1 AS users_95_is_tau_plus_b_ln10,
       users_for_50 = tau AS users_50_is_tau
FROM anon_dp_explain('SELECT day, ANON_SUM(pages, 0, 8) FROM ex_visits GROUP BY day');
RESET anon_dp.reuse_counts;
-- explain_reused_count: the selection reads ANON_COUNT's noisy count
SELECT * FROM ex_show('SELECT day, ANON_COUNT(*) FROM ex_visits GROUP BY day');
-- explain_mean_selects: ANON_AVG's count (epsilon / 2 of its share 1) selects:
-- count b = 2, sum of values centred in [0, 600] b = 300 / 0.5 = 600
SELECT release, function, selection, round(tau::numeric, 4) AS tau, note
FROM anon_dp_explain('SELECT day, ANON_AVG(secs, 0, 600) FROM ex_visits GROUP BY day');
RESET anon_dp.partition_selection;
-- explain_optimal: auto chooses; the numbers follow the choice
SELECT * FROM ex_show('SELECT day, ANON_COUNT(*), ANON_SUM(pages, 0, 8) FROM ex_visits GROUP BY day');
-- explain_public_partitions: no selection, no delta
SELECT * FROM ex_show('SELECT d.day, ANON_COUNT(v.uid) FROM ex_days d LEFT JOIN ex_visits v ON v.day = d.day GROUP BY d.day');
-- explain_gaussian: C_u = 3, Gaussian noise: sigma, 1.96 sigma, its delta
SET anon_dp.max_groups_contributed = 3;
SET anon_dp.noise = gaussian;
SELECT * FROM ex_show('SELECT day, ANON_SUM(pages, 0, 8) FROM ex_visits GROUP BY day');
RESET anon_dp.noise;
RESET anon_dp.max_groups_contributed;
-- explain_two_levels: each anonymization level of the statement, numbered
SELECT level, release, function, charge_epsilon FROM anon_dp_explain(
  'SELECT * FROM (SELECT ANON_COUNT(*) c FROM ex_visits) a, (SELECT ANON_SUM(pages, 0, 8) s FROM ex_visits WHERE day = 1) b');

-- ==== users for 95 %: 2,000 partitions of that many users, kept at >= 95 % ====
-- (standard error of the rate 0.5 %: at least 93 %)
CREATE TABLE ex_many (uid int, g int);
SECURITY LABEL FOR anon_dp ON COLUMN ex_many.uid IS 'privacy_unit';
SET anon_dp.partition_selection = laplace;
SELECT ceil(users_for_95) AS n95 FROM anon_dp_explain('SELECT g, ANON_COUNT(*) FROM ex_many GROUP BY g') \gset
INSERT INTO ex_many SELECT g * 1000 + i, g FROM generate_series(1, 2000) g, generate_series(1, :n95) i;
SELECT count(*) >= 0.93 * 2000 AS kept_at_95 FROM (SELECT g, ANON_COUNT(*) FROM ex_many GROUP BY g) r;
-- two users fewer: clearly below 95 % (about 85 %), so the number is not loose
DELETE FROM ex_many WHERE uid % 1000 > :n95 - 2;
SELECT count(*) < 0.93 * 2000 AS not_kept_at_95 FROM (SELECT g, ANON_COUNT(*) FROM ex_many GROUP BY g) r;
RESET anon_dp.partition_selection;

-- ==== the inverse: anon_dp_epsilon_for ====
-- epsilon_for_laplace: ANON_SUM(secs, 0, 600) alone, h = 600 ln 20 / epsilon: 
-- for h = 100, epsilon = 6 ln 20 = 17.97
SELECT function, round(half_width_now::numeric, 3) AS h_now, abs(epsilon - 6 * ln(20)) < 1e-6 AS eps_6_ln20,
       half_width <= 100 AND half_width > 99.999 AS reached
FROM anon_dp_epsilon_for('SELECT ANON_SUM(secs, 0, 600) FROM ex_visits', 100);
-- epsilon_for_each_release: per release (each gets epsilon / 2): count
-- 2 ln 20 / 50 = 0.1198, sum 16 ln 20 / 50 = 0.9586; the setting left as it was
SELECT release, function, round(epsilon::numeric, 4) AS epsilon, half_width <= 50 AS reached
FROM anon_dp_epsilon_for('SELECT ANON_COUNT(*), ANON_SUM(pages, 0, 8) FROM ex_visits', 50);
SHOW anon_dp.epsilon;
-- epsilon_for_gaussian: Gaussian sigma is not proportional to 1 / epsilon: searched
SET anon_dp.max_groups_contributed = 3;
SET anon_dp.noise = gaussian;
SELECT release, half_width <= 30 AND half_width > 29.99 AS reached
FROM anon_dp_epsilon_for('SELECT day, ANON_SUM(pages, 0, 8) FROM ex_visits GROUP BY day', 30);
RESET anon_dp.noise;
RESET anon_dp.max_groups_contributed;
-- epsilon_for_no_interval: a quantile's is NULL
SELECT function, epsilon IS NULL AS none
FROM anon_dp_epsilon_for('SELECT ANON_MEDIAN(secs, 0, 600) FROM ex_visits', 10);

-- ==== bad input ====
SELECT * FROM anon_dp_explain(NULL);
SELECT * FROM anon_dp_explain('SELECT 1; SELECT 2');
SELECT * FROM anon_dp_explain('INSERT INTO ex_days VALUES (9)');
SELECT * FROM anon_dp_explain('SELECT count(*) FROM ex_days');
SELECT * FROM anon_dp_explain('SELEC ANON_COUNT(*) FROM ex_visits');
SELECT * FROM anon_dp_explain('SELECT ANON_SUM(secs, 600, 0) FROM ex_visits');
SELECT * FROM anon_dp_explain('SELECT ANON_SUM(secs::text) FROM ex_visits');
-- automatic bounds (issue 21 item 3): the scale depends on the bounds the histogram picks
SELECT function, mechanism, noise_scale IS NULL AS no_scale, half_width IS NULL AS no_half_width
FROM anon_dp_explain('SELECT ANON_SUM(secs) FROM ex_visits');
SELECT * FROM anon_dp_explain('SELECT ANON_COUNT(*) FROM ex_nowhere');
SELECT * FROM anon_dp_explain('SELECT ANON_SUM(secs, 0, $1) FROM ex_visits');
SELECT * FROM anon_dp_epsilon_for('SELECT ANON_COUNT(*) FROM ex_visits', 0);
SELECT * FROM anon_dp_epsilon_for('SELECT ANON_COUNT(*) FROM ex_visits', 'NaN');
SELECT * FROM anon_dp_epsilon_for('SELECT ANON_COUNT(*) FROM ex_visits', NULL);
SELECT * FROM anon_dp_epsilon_for('SELECT ANON_COUNT(*) FROM ex_visits', 1e-300);
-- a query text computed by the statement is refused
SELECT e.* FROM ex_days d, LATERAL anon_dp_explain('SELECT ANON_COUNT(*) FROM ex_visits WHERE day = ' || d.day) e;
-- a prepared statement's parameter is the client's constant
PREPARE ex_p(text) AS SELECT release, function FROM anon_dp_explain($1);
EXECUTE ex_p('SELECT ANON_COUNT(*) FROM ex_visits');

-- ==== an analyst: allowed, guarded, charged nothing ====
CREATE ROLE ex_analyst;
SECURITY LABEL FOR anon_dp ON ROLE ex_analyst IS 'anonymized';
SELECT anon_dp_set_budget('ex_analyst', 10, 1e-3);
GRANT SELECT ON ex_days TO ex_analyst;
SET SESSION AUTHORIZATION ex_analyst;
SELECT spent_epsilon, spent_delta, releases FROM anon_dp_budget;
-- explain_not_charged
SELECT release, function, charge_epsilon, charge_delta FROM anon_dp_explain(
  'SELECT day, ANON_COUNT(*), ANON_SUM(pages, 0, 8) FROM ex_visits GROUP BY day');
SELECT count(*) FROM anon_dp_epsilon_for('SELECT ANON_COUNT(*) FROM ex_visits', 5);
SELECT spent_epsilon, spent_delta, releases FROM anon_dp_budget;
-- explain_charge_is_the_ledger's: running it charges what was stated
SELECT count(*) >= 0 AS ran FROM (SELECT day, ANON_COUNT(*), ANON_SUM(pages, 0, 8) FROM ex_visits GROUP BY day) r;
SELECT spent_epsilon, spent_delta, releases FROM anon_dp_budget;
-- explain_guarded: the query is validated as if it were sent
SELECT * FROM anon_dp_explain('SELECT ANON_COUNT(*) FROM ex_visits WHERE pg_sleep(0) IS NOT NULL');
SELECT * FROM anon_dp_explain('SELECT ANON_SUM(secs, 0, 600), secs FROM ex_visits');
SELECT * FROM anon_dp_explain('SELECT ANON_COUNT(*) FROM ex_visits v JOIN pg_authid a ON true');
SELECT * FROM anon_dp_explain('SELECT ANON_SUM(secs, 600, 0) FROM ex_visits');
-- explain_text_from_rows: refused, whether private or public rows
SELECT e.* FROM ex_days d, LATERAL anon_dp_explain('SELECT ANON_COUNT(*) FROM ex_visits WHERE day = ' || d.day) e;
SELECT ANON_COUNT(*) FROM ex_visits v WHERE EXISTS (SELECT 1 FROM anon_dp_explain(v.secs::text));
SELECT spent_epsilon, spent_delta, releases FROM anon_dp_budget;
RESET SESSION AUTHORIZATION;

-- clean up
DEALLOCATE ex_p;
DROP OWNED BY ex_analyst;
DROP ROLE ex_analyst;
DROP TABLE ex_visits, ex_days, ex_many;
DROP FUNCTION ex_show(text);
