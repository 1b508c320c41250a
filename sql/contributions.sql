-- Contribution bounds from the data (issue 32, item 2; doc/noise.md §11):
-- anon_dp_contribution_bounds(query, epsilon) measures, at epsilon, how many
-- groups and how many rows of one group the users of an anonymization query
-- contribute (one release, charged), and states what each candidate
-- anon_dp.max_groups_contributed and anon_dp.max_rows_contributed keeps and
-- costs, with a suggestion.  The mechanism's noise scale is checked in
-- tests/unit (test_contributions.c) and sql/noise_scale.sql.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS anon_dp;
RESET client_min_messages;

-- 5,000 customers, each ordering on 1 to 7 days (about 700 of each), one
-- order a day, and a third of them twice on one of their days
CREATE TABLE cb_orders (customer_id bigint, ordered_at date, amount numeric);
INSERT INTO cb_orders
SELECT c, date '2024-01-01' + (c * 53 + k * 59) % 366, 10 + (c * 31 + k) % 490
FROM generate_series(1, 5000) c, generate_series(1, 1 + c % 7) k;
INSERT INTO cb_orders SELECT c, date '2024-01-01' + (c * 53 + 59) % 366, 5
FROM generate_series(3, 5000, 3) c;
SECURITY LABEL FOR anon_dp ON COLUMN cb_orders.customer_id IS 'privacy_unit';
SELECT count(DISTINCT (customer_id, ordered_at)) = (SELECT sum(1 + c % 7) FROM generate_series(1, 5000) c)
       AS one_order_a_day_but_the_extra FROM cb_orders;

-- ==== the measurement: candidates, shares, the noise each costs ====
-- (at epsilon 0.5 each bin of about 700 users is far above its threshold,
-- about 40: the shares are within a few percent, the suggestion certain)
-- (truth: users with c groups 1/7 each, so c/7 of them within C_u = c and
-- sum(min(k, c)) / 28 of their groups kept; a third of the users have 2 rows
-- in one group)
SELECT setting, value,
       abs(users_within - CASE WHEN setting LIKE '%groups%' THEN value / 7.0 ELSE 1 - (value < 2)::int / 3.0 END) < 0.03
         AS users_within_ok,
       abs(contributions_kept - CASE WHEN setting LIKE '%groups%'
                                     THEN (SELECT sum(least(k, value)) FROM generate_series(1, 7) k) / 28.0
                                     ELSE 1 - (value < 2)::int / 4.0 END) < 0.03 AS kept_ok,
       suggested, half_width IS NOT NULL AS has_half_width, users_for_50 IS NOT NULL AS has_users_for_50
FROM anon_dp_contribution_bounds('SELECT ordered_at, ANON_COUNT(*) FROM cb_orders GROUP BY ordered_at', 0.5);
-- the noise and the threshold it states are the query's at each C_u
SET anon_dp.max_groups_contributed = 7;
SELECT round(half_width::numeric, 6) AS explain_h, round(users_for_50::numeric, 6) AS explain_u50
FROM anon_dp_explain('SELECT ordered_at, ANON_COUNT(*) FROM cb_orders GROUP BY ordered_at');
RESET anon_dp.max_groups_contributed;
SELECT value, round(half_width::numeric, 6) AS h, round(users_for_50::numeric, 6) AS u50
FROM anon_dp_contribution_bounds('SELECT ordered_at, ANON_COUNT(*) FROM cb_orders GROUP BY ordered_at', 0.5)
WHERE setting = 'anon_dp.max_groups_contributed' AND value = 7;
-- without GROUP BY every user is in one group: C_u = 1; rows per user 1 to 8,
-- 8 for 1/21 of the users (95.24 % have at most 7): a margin of 12 users over
-- 95 %, so at epsilon 5 (Laplace scale 0.4 per bin: the suggestion moves to 8
-- with a probability below 1e-12; at 0.5 it did in a few percent of the runs)
SELECT setting, value, suggested
FROM anon_dp_contribution_bounds('SELECT ANON_SUM(amount, 0, 1000) FROM cb_orders', 5)
WHERE suggested;
-- one group per user: C_u = 1 keeps everything.  An empty bin of the 43
-- passes its threshold with probability 1e-3 / 43 (by design, whatever
-- epsilon), about 40 noisy users, and then adds candidates up to its edge
-- and takes C_u = 1's share to about 0.95 (one CI run in a few hundred saw
-- bin 8): C_u = 1 is checked to keep more than 0.9 and be the suggestion
SELECT setting, value, contributions_kept > 0.9 AS keeps_nearly_all, suggested
FROM anon_dp_contribution_bounds('SELECT customer_id % 10 AS digit, ANON_COUNT(*) FROM cb_orders GROUP BY 1', 0.5)
WHERE setting = 'anon_dp.max_groups_contributed' AND value = 1;
-- too few users for a measurement: one row of NULLs per setting.  An empty
-- bin passes its threshold with probability 1e-3 / 47, so one run in about
-- 1,000 sees a bin of each histogram (by design, whatever epsilon): measured
-- 3 times, fewer than 2 NULL rows has a probability of about 3e-6
SELECT setting, count(*) AS runs,
       count(*) FILTER (WHERE value IS NULL AND users_within IS NULL AND suggested IS NULL) >= 2
         AS mostly_unmeasured
FROM generate_series(1, 3) run,
     LATERAL anon_dp_contribution_bounds('SELECT ordered_at, ANON_COUNT(*) FROM cb_orders WHERE customer_id < 20 GROUP BY ordered_at', 0.1)
GROUP BY setting ORDER BY setting;

-- ==== stated without a measurement ====
-- grouped by the privacy unit: every group holds one user, and a NOTICE says
-- so (the query still runs).  Each of the 5,000 one-user groups is released
-- with a probability of at most the selection's delta: at the default 1e-5 a
-- row appeared in a few percent of the runs, at 1e-12 in at most 5e-9
SET anon_dp.delta = 1e-12;
SELECT customer_id, ANON_COUNT(*) FROM cb_orders GROUP BY customer_id;
RESET anon_dp.delta;
SELECT n, ANON_COUNT(*) > 0 AS counted
FROM (SELECT customer_id, count(*) AS n FROM cb_orders GROUP BY customer_id) per_user
GROUP BY n HAVING n = 1;
-- anon_dp_explain states the bound of a grouped query and how to measure it
SELECT release, note FROM anon_dp_explain('SELECT ordered_at, ANON_COUNT(*) FROM cb_orders GROUP BY ordered_at');

-- ==== charged, as an anonymized role; refused like the query itself ====
CREATE ROLE cb_analyst;
SECURITY LABEL FOR anon_dp ON ROLE cb_analyst IS 'anonymized';
SELECT anon_dp_set_budget('cb_analyst', 10, 1e-4);
SET SESSION AUTHORIZATION cb_analyst;
SELECT count(*) > 0 AS measured
FROM anon_dp_contribution_bounds('SELECT ordered_at, ANON_COUNT(*) FROM cb_orders GROUP BY ordered_at', 0.2);
-- what basic composition charged (the accountant may count its own way: doc/budget.md)
SELECT basic_spent_epsilon, releases FROM anon_dp_budget;
-- the cap on one release applies (anon_dp.max_epsilon = 1)
SELECT count(*) FROM anon_dp_contribution_bounds('SELECT ANON_COUNT(*) FROM cb_orders', 2);
-- the query is analysed as if sent: a raw read, a function off the allow-list
SELECT count(*) FROM anon_dp_contribution_bounds('SELECT customer_id FROM cb_orders', 0.1);
SELECT count(*) FROM anon_dp_contribution_bounds('SELECT ANON_COUNT(*) FROM cb_orders WHERE random() < 2', 0.1);
-- the building block is not for analysts
SELECT anon_dp_internal.dp_contribution_histogram(1, 1, 0.1, 1);
SELECT basic_spent_epsilon, releases FROM anon_dp_budget;
RESET SESSION AUTHORIZATION;

-- ==== what it refuses ====
SELECT * FROM anon_dp_contribution_bounds('SELECT 1', 0.1);
SELECT * FROM anon_dp_contribution_bounds('SELECT ANON_COUNT(*) FROM cb_orders; SELECT 1', 0.1);
SELECT * FROM anon_dp_contribution_bounds('SELECT * FROM (SELECT ordered_at, ANON_COUNT(*) AS n FROM cb_orders GROUP BY 1) s WHERE n > 10', 0.1);
SELECT * FROM anon_dp_contribution_bounds('SELECT ANON_COUNT(*) FROM cb_orders', 0);
SELECT * FROM anon_dp_contribution_bounds('SELECT ANON_COUNT(*) FROM cb_orders', NULL);
SELECT * FROM anon_dp_contribution_bounds((SELECT 'SELECT ANON_COUNT(*) FROM cb_orders'), 0.1);

DELETE FROM anon_dp_budgets WHERE role = 'cb_analyst'::regrole;
DROP ROLE cb_analyst;
DROP TABLE cb_orders;
