-- The privacy budget (doc/budget.md): caps on each query of an anonymized
-- role, a budget per role and database charged by the ledger worker before
-- any release runs, never refunded, and plans that follow the settings.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS anon_dp;
RESET client_min_messages;
SET extra_float_digits = 0;

CREATE TABLE bud_visits (uid int, day int, secs float8);
INSERT INTO bud_visits SELECT u, d, (u * d) % 600 FROM generate_series(1, 3000) u, generate_series(1, 3) d;
SECURITY LABEL FOR anon_dp ON COLUMN bud_visits.uid IS 'privacy_unit';
CREATE TABLE bud_days (day int);
INSERT INTO bud_days VALUES (1), (2), (3);
SECURITY LABEL FOR anon_dp ON TABLE bud_days IS 'public';
CREATE ROLE bud_analyst;
SECURITY LABEL FOR anon_dp ON ROLE bud_analyst IS 'anonymized';
CREATE ROLE bud_other;
SECURITY LABEL FOR anon_dp ON ROLE bud_other IS 'anonymized';
CREATE ROLE bud_admins;
CREATE ROLE bud_admin IN ROLE bud_admins;
CREATE ROLE bud_plain;
GRANT SELECT ON bud_days TO bud_analyst, bud_other;

-- what the ledger recorded for the test's roles, newest last
CREATE VIEW bud_entries AS
SELECT entry, role, epsilon, delta, releases, outcome, actor
FROM anon_dp_ledger WHERE role::text LIKE 'bud\_%' ORDER BY entry;
CREATE FUNCTION bud_spent(r regrole) RETURNS TABLE (spent_epsilon numeric, spent_delta numeric, releases bigint)
LANGUAGE sql AS $$ SELECT spent_epsilon, spent_delta, releases FROM anon_dp_budgets WHERE role = r $$;

-- ==== a role without a budget of its own ====
-- budget_default: the superuser setting anon_dp.default_budget_* (10, 1e-4)
SET SESSION AUTHORIZATION bud_analyst;
SELECT * FROM anon_dp_budget;
-- budget_view_own_row_only: bud_other's row is not shown to bud_analyst
RESET SESSION AUTHORIZATION;
SELECT anon_dp_set_budget('bud_other', 5, 1e-4);
SET SESSION AUTHORIZATION bud_analyst;
SELECT role FROM anon_dp_budget;
-- budget_tables_closed: the tables themselves are not readable
SELECT * FROM anon_dp_budgets;
SELECT * FROM anon_dp_ledger;

-- ==== caps (anon_dp.max_epsilon, anon_dp.max_delta) ====
-- cap_settings_superuser_only
SET anon_dp.max_epsilon = 100;
SET anon_dp.max_delta = 0.1;
SET anon_dp.default_budget_epsilon = 1000;
-- cap_epsilon_refused: before anything is charged
SET anon_dp.epsilon = 2;
SELECT ANON_COUNT(*) FROM bud_visits;
-- cap_delta_refused: a grouped query spends delta on tau
SET anon_dp.epsilon = 1;
SET anon_dp.delta = 1e-3;
SELECT day, ANON_COUNT(*) FROM bud_visits GROUP BY day;
-- cap_delta_ungrouped: without GROUP BY no delta is spent, the cap does not apply
SELECT abs(ANON_COUNT(*) - 3000) < 50 AS ungrouped_ok FROM bud_visits;
RESET anon_dp.delta;
-- cap_from_the_owner: a superuser's lower cap applies to the analyst after it
RESET SESSION AUTHORIZATION;
SET anon_dp.max_epsilon = 0.5;
SET SESSION AUTHORIZATION bud_analyst;
SELECT abs(ANON_COUNT(*) - 3000) < 50 FROM bud_visits;
SET anon_dp.epsilon = 0.5;
SELECT abs(ANON_COUNT(*) - 3000) < 100 AS at_the_cap FROM bud_visits;
RESET SESSION AUTHORIZATION;
RESET anon_dp.max_epsilon;
SELECT * FROM bud_spent('bud_analyst');
SELECT role, epsilon, delta, releases, outcome, actor FROM bud_entries;

-- ==== charges ====
SELECT anon_dp_reset_budget('bud_analyst');
SELECT anon_dp_set_budget('bud_analyst', 100, 0.01);
SET SESSION AUTHORIZATION bud_analyst;
RESET anon_dp.epsilon;
-- charge_grouped: epsilon and delta of the query
SELECT count(*) = 3 AS three_days FROM (SELECT day, ANON_COUNT(*) FROM bud_visits GROUP BY day) s;
-- charge_ungrouped: epsilon only
SELECT abs(ANON_AVG(secs, 0, 600) - 300) < 30 AS avg_ok FROM bud_visits;
-- charge_union_arms: each anonymization query of the statement
SELECT count(*) FROM (SELECT ANON_COUNT(*) FROM bud_visits UNION ALL
                      SELECT ANON_COUNT(*) FROM bud_visits WHERE day = 1) s;
-- charge_explain_free: EXPLAIN runs nothing
EXPLAIN (COSTS OFF) SELECT ANON_COUNT(*) FROM bud_visits;
-- charge_insert_select: writing the released rows is a release too
CREATE TEMP TABLE bud_report AS SELECT day, ANON_COUNT(*) AS n FROM bud_visits GROUP BY day;
RESET SESSION AUTHORIZATION;
SELECT * FROM bud_spent('bud_analyst');

-- ==== nothing is refunded ====
SET SESSION AUTHORIZATION bud_analyst;
-- refund_rollback
BEGIN;
SELECT abs(ANON_COUNT(*) - 3000) < 50 FROM bud_visits;
ROLLBACK;
-- refund_rollback_to_savepoint
BEGIN;
SAVEPOINT s;
SELECT abs(ANON_COUNT(*) - 3000) < 50 FROM bud_visits;
ROLLBACK TO SAVEPOINT s;
COMMIT;
-- refund_error_after_charge: the statement fails after its release was paid
SELECT n, (SELECT g FROM (VALUES (1), (2)) v(g)) FROM (SELECT ANON_COUNT(*) AS n FROM bud_visits) s;
-- refund_caught_error: a PL/pgSQL handler does not undo the charge either
DO $$
BEGIN
  PERFORM n, (SELECT g FROM (VALUES (1), (2)) v(g)) FROM (SELECT ANON_COUNT(*) AS n FROM bud_visits) s;
EXCEPTION WHEN others THEN
  RAISE NOTICE 'caught: %', SQLERRM;
END $$;
RESET SESSION AUTHORIZATION;
SELECT * FROM bud_spent('bud_analyst');

-- ==== one release runs once ====
SET SESSION AUTHORIZATION bud_analyst;
-- once_correlated_subquery_refused: it would run once per outer row
SELECT avg(c) FROM (SELECT (SELECT ANON_COUNT(*) FROM bud_visits WHERE day > g) c
                    FROM generate_series(1, 20) g) s;
-- once_uncorrelated_subquery: an InitPlan, run once for every row
SELECT count(DISTINCT c) FROM (SELECT (SELECT ANON_COUNT(*) FROM bud_visits) c
                               FROM generate_series(1, 20) g) s;
-- once_nested_loop_refused: the inner side of a nested loop without Material
-- (a query without GROUP BY: a grouped one ends in the sort of its released
-- rows, which the loop rescans without running the query again)
SET enable_material = off;
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SELECT count(a.c) FROM generate_series(1, 3) g
LEFT JOIN (SELECT ANON_COUNT(*) c FROM bud_visits) a ON a.c > g;
RESET enable_material;
RESET enable_hashjoin;
RESET enable_mergejoin;
-- once_scroll_cursor: charged when opened; rewinding reads the same rows
DO $$
DECLARE
  c refcursor;
  first bigint;
  again bigint;
BEGIN
  OPEN c SCROLL FOR SELECT ANON_COUNT(*) FROM bud_visits;
  FETCH c INTO first;
  MOVE ABSOLUTE 0 FROM c;
  FETCH c INTO again;
  RAISE NOTICE 'the same row after the rewind: %', first = again;
END $$;
-- once_plpgsql_loop: each execution is charged
DO $$
BEGIN
  FOR i IN 1..3 LOOP
    PERFORM ANON_COUNT(*) FROM bud_visits;
  END LOOP;
END $$;
RESET SESSION AUTHORIZATION;
SELECT * FROM bud_spent('bud_analyst');

-- ==== plans follow the settings ====
SET SESSION AUTHORIZATION bud_analyst;
-- follow_prepared: a generic plan after five executions, then SET
PREPARE bud_p AS SELECT abs(ANON_COUNT(*) - 3000) < 100 AS ok FROM bud_visits;
EXECUTE bud_p; EXECUTE bud_p; EXECUTE bud_p; EXECUTE bud_p; EXECUTE bud_p; EXECUTE bud_p;
SET anon_dp.epsilon = 0.25;
EXECUTE bud_p;
SET anon_dp.max_groups_contributed = 3;
PREPARE bud_g AS SELECT count(*) AS days FROM (SELECT day, ANON_COUNT(*) FROM bud_visits GROUP BY day) s;
EXECUTE bud_g;
SET anon_dp.delta = 1e-6;
EXECUTE bud_g;
DEALLOCATE ALL;
-- follow_plpgsql: a function's cached plan
RESET anon_dp.max_groups_contributed;
RESET anon_dp.delta;
CREATE FUNCTION pg_temp.bud_count() RETURNS bigint LANGUAGE plpgsql AS $$
BEGIN
  RETURN (SELECT ANON_COUNT(*) FROM bud_visits);
END $$;
SELECT pg_temp.bud_count() > 0;
SET anon_dp.epsilon = 0.125;
SELECT pg_temp.bud_count() > 0;
RESET anon_dp.epsilon;
RESET SESSION AUTHORIZATION;
SELECT epsilon, delta, releases, outcome FROM bud_entries
WHERE role = 'bud_analyst'::regrole ORDER BY entry DESC LIMIT 6;

-- ==== views over anonymization queries are read at the reader's settings ====
SET anon_dp.epsilon = 0.5;
CREATE VIEW bud_daily AS SELECT day, ANON_COUNT(*) AS n FROM bud_visits GROUP BY day;
SET anon_dp.epsilon = 5;
CREATE VIEW bud_daily_wide AS SELECT day, ANON_COUNT(*) AS n FROM bud_visits GROUP BY day;
RESET anon_dp.epsilon;
-- view_kept_as_written: the stored query still has its ANON_* call
SELECT pg_get_viewdef('bud_daily') LIKE '%anon_count(*)%' AS kept_as_written;
-- view_checked_at_create: CREATE VIEW refuses what the anonymizer refuses
CREATE VIEW bud_bad AS SELECT ANON_COUNT(*), count(*) FROM bud_visits;
-- a view over a hand-written release (anonymized when it was created, as anon_dp 1.0 stored them)
CREATE VIEW bud_stored AS SELECT anon_dp_internal.dp_count(1::int8, 1::int8, 0.5::float8, 1) AS n FROM bud_days;
GRANT SELECT ON bud_daily, bud_daily_wide, bud_stored TO bud_analyst;
SET SESSION AUTHORIZATION bud_analyst;
SET anon_dp.epsilon = 0.25;
-- view_charged_reader_epsilon: 0.25, the reader's setting, not the creator's 0.5
SELECT count(*) AS days FROM bud_daily;
-- view_reader_under_cap: created at epsilon 5, read at the reader's 0.25
SELECT count(*) AS days FROM bud_daily_wide;
-- view_reader_over_cap_refused: the reader's caps apply to the reader's settings
SET anon_dp.epsilon = 2;
SELECT count(*) AS days FROM bud_daily;
RESET anon_dp.epsilon;
-- view_stored_release_refused: released at its creator's settings, not at all
SELECT * FROM bud_stored;
RESET SESSION AUTHORIZATION;
SELECT epsilon, delta, outcome FROM bud_entries WHERE role = 'bud_analyst'::regrole
ORDER BY entry DESC LIMIT 2;
SELECT * FROM bud_spent('bud_analyst');

-- ==== running out ====
SELECT anon_dp_reset_budget('bud_analyst');
SELECT anon_dp_set_budget('bud_analyst', 1.5, 0.01);
SET SESSION AUTHORIZATION bud_analyst;
-- exhaust_last_query_fits
SELECT abs(ANON_COUNT(*) - 3000) < 50 AS last_one FROM bud_visits;
-- exhaust_refused: the message says what remains
SELECT abs(ANON_COUNT(*) - 3000) < 50 FROM bud_visits;
-- exhaust_statement_refused_whole: two releases of 0.3 do not fit in 0.5
SET anon_dp.epsilon = 0.3;
SELECT ANON_COUNT(*) FROM bud_visits UNION ALL SELECT ANON_COUNT(*) FROM bud_visits;
-- exhaust_one_more_fits
SELECT abs(ANON_COUNT(*) - 3000) < 200 AS fits FROM bud_visits;
RESET anon_dp.epsilon;
RESET SESSION AUTHORIZATION;
SELECT * FROM bud_spent('bud_analyst');
SELECT epsilon, delta, releases, outcome FROM bud_entries WHERE role = 'bud_analyst'::regrole
ORDER BY entry DESC LIMIT 5;
-- exhaust_set_budget_keeps_spending: a larger total, the spending stays
SELECT anon_dp_set_budget('bud_analyst', 3, 0.01);
SELECT budget_epsilon, spent_epsilon, remaining_epsilon, budget FROM anon_dp_budget WHERE role = 'bud_analyst'::regrole;
-- exhaust_reset: spending back to zero, recorded
SELECT anon_dp_reset_budget('bud_analyst');
SELECT budget_epsilon, spent_epsilon, remaining_epsilon FROM anon_dp_budget WHERE role = 'bud_analyst'::regrole;
SELECT epsilon, delta, outcome, actor FROM bud_entries WHERE outcome LIKE 'budget%' ORDER BY 3, 1;

-- ==== who may change budgets ====
SET SESSION AUTHORIZATION bud_plain;
SELECT anon_dp_set_budget('bud_analyst', 1000, 1);
SELECT anon_dp_reset_budget('bud_analyst');
RESET SESSION AUTHORIZATION;
SET SESSION AUTHORIZATION bud_analyst;
SELECT anon_dp_reset_budget('bud_analyst');
RESET SESSION AUTHORIZATION;
-- admin_label_admin_role: members of anon_dp.label_admin_role
SET anon_dp.label_admin_role = 'bud_admins';
SET SESSION AUTHORIZATION bud_admin;
SELECT anon_dp_set_budget('bud_other', 7, 1e-4);
SELECT role, budget_epsilon FROM anon_dp_budget WHERE role::text LIKE 'bud\_%' ORDER BY 1;
RESET SESSION AUTHORIZATION;
RESET anon_dp.label_admin_role;
-- admin_bad_arguments
SELECT anon_dp_set_budget(NULL, 1, 1e-5);
SELECT anon_dp_set_budget('bud_analyst', -1, 1e-5);
SELECT anon_dp_set_budget('bud_analyst', 'NaN', 1e-5);
SELECT anon_dp_set_budget('bud_analyst', 1, 2);
SELECT anon_dp_set_budget('bud_analyst', 1, NULL);
SELECT anon_dp_set_budget('no_such_role', 1, 1e-5);
-- full_sessions_not_charged: a role that is not anonymized spends nothing
SELECT abs(ANON_COUNT(*) - 3000) < 50 FROM bud_visits;
SELECT count(*) FROM anon_dp_ledger WHERE actor = current_user::regrole AND outcome = 'charged';

DELETE FROM anon_dp_budgets WHERE role::text LIKE 'bud\_%';
DROP VIEW bud_entries, bud_daily, bud_daily_wide, bud_stored;
DROP FUNCTION bud_spent(regrole);
DROP TABLE bud_visits, bud_days;
DROP OWNED BY bud_analyst;
DROP ROLE bud_analyst, bud_other, bud_admin, bud_admins, bud_plain;
