-- Budgets and ledgers of anon_dp 1.0 carry over to 1.1 (doc/versioning.md,
-- doc/budget.md): a database with the 1.0 objects and a ledger written as
-- 1.0 wrote it, ALTER EXTENSION anon_dp UPDATE, and the accountant goes on
-- from the 1.0 spending, composed.
\set regress_db :DBNAME
SET client_min_messages = warning;
DROP DATABASE IF EXISTS anon_dp_budget_upgrade;
RESET client_min_messages;
CREATE DATABASE anon_dp_budget_upgrade;
\c anon_dp_budget_upgrade
SET client_min_messages = warning;
CREATE EXTENSION anon_dp VERSION '1.0';
RESET client_min_messages;
SET extra_float_digits = 0;
CREATE TABLE upg_visits AS SELECT u AS uid, u % 3 AS day FROM generate_series(1, 3000) u;
SECURITY LABEL FOR anon_dp ON COLUMN upg_visits.uid IS 'privacy_unit';
CREATE ROLE upg_analyst;
CREATE ROLE upg_other;
SECURITY LABEL FOR anon_dp ON ROLE upg_analyst IS 'anonymized';
SECURITY LABEL FOR anon_dp ON ROLE upg_other IS 'anonymized';

-- the rows a 1.0 ledger worker wrote: a set budget with spending, a default one
INSERT INTO anon_dp_budgets (role, epsilon, delta, spent_epsilon, spent_delta, releases)
VALUES ('upg_analyst', 10, 0.0001, 9.5, 0.00003, 12), ('upg_other', NULL, NULL, 0.25, 0, 1);
INSERT INTO anon_dp_ledger (role, epsilon, delta, releases, outcome, actor)
VALUES ('upg_analyst', 10, 0.0001, 0, 'budget set', 'postgres'),
       ('upg_analyst', 9.5, 0.00003, 12, 'charged', 'upg_analyst'),
       ('upg_analyst', 1, 0, 1, 'refused', 'upg_analyst'),
       ('upg_other', 0.25, 0, 1, 'charged', 'upg_other');
SELECT extversion FROM pg_extension WHERE extname = 'anon_dp';

ALTER EXTENSION anon_dp UPDATE;
SELECT extversion FROM pg_extension WHERE extname = 'anon_dp';

-- upgrade_budgets_carried: 1.0 spending is the accountant's composed spending
SELECT role, epsilon, delta, spent_epsilon, spent_delta, releases, composed_epsilon, event_delta,
       renyi_epsilon, renyi_order, conversion_delta, spent_rho
FROM anon_dp_budgets ORDER BY role::text;
-- upgrade_ledger_carried: 1.0 charges were composed at their (epsilon, delta)
SELECT role, epsilon, delta, outcome, accounting, cost_epsilon, cost_delta, rho
FROM anon_dp_ledger ORDER BY entry;
-- upgrade_view: what remains, as before the upgrade
SELECT role, budget_epsilon, spent_epsilon, remaining_epsilon, remaining_delta, releases, budget, accounting
FROM anon_dp_budget ORDER BY role::text;

-- upgrade_charges_continue: 0.5 of epsilon remain; 1 is refused, 0.5 fits exactly
SET anon_dp.budget_notice = 0;
SET SESSION AUTHORIZATION upg_analyst;
SELECT abs(ANON_COUNT(*) - 3000) < 50 AS ok FROM upg_visits;
SET anon_dp.epsilon = 0.5;
SELECT abs(ANON_COUNT(*) - 3000) < 100 AS ok FROM upg_visits;
RESET anon_dp.epsilon;
RESET SESSION AUTHORIZATION;
SELECT role, spent_epsilon, composed_epsilon, releases FROM anon_dp_budgets
WHERE role = 'upg_analyst'::regrole;
SELECT outcome, epsilon, accounting, cost_epsilon, spent_epsilon FROM anon_dp_ledger
WHERE role = 'upg_analyst'::regrole AND entry > 4 ORDER BY entry;

-- upgrade_objects: the upgraded objects are those of a fresh 1.1 install
SELECT string_agg(a.name, ', ' ORDER BY a.n) AS budget_columns
FROM pg_proc p, unnest(p.proargnames) WITH ORDINALITY a(name, n) WHERE p.proname = 'anon_dp_budget_status';
SELECT count(*) AS explain_columns FROM pg_proc p, unnest(p.proargmodes) m
WHERE p.proname = 'anon_dp_explain' AND m = 'o';

\c :regress_db
SET client_min_messages = warning;
-- the database's ledger worker leaves after 2 seconds without a charge
SELECT pg_sleep(2.5);
DROP DATABASE anon_dp_budget_upgrade;
DROP ROLE upg_analyst, upg_other;
