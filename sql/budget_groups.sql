-- The privacy budget, second step (doc/budget.md): budgets of group roles
-- shared by their members, charges the accountant concentrates, the notice
-- before a budget runs out, what still fits, and anon_dp_explain's budget
-- columns.  Noise is random: only stable facts are printed.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS anon_dp;
RESET client_min_messages;
SET extra_float_digits = 0;

CREATE TABLE grp_visits (uid int, day int, secs float8);
INSERT INTO grp_visits SELECT u, d, (u * d) % 600 FROM generate_series(1, 3000) u, generate_series(1, 3) d;
SECURITY LABEL FOR anon_dp ON COLUMN grp_visits.uid IS 'privacy_unit';
-- a team (not labelled itself) with a nested subteam; carol is no member
CREATE ROLE grp_team;
CREATE ROLE grp_subteam IN ROLE grp_team;
CREATE ROLE grp_alice IN ROLE grp_team;
CREATE ROLE grp_bob IN ROLE grp_subteam;
CREATE ROLE grp_carol;
CREATE ROLE grp_dave;
SECURITY LABEL FOR anon_dp ON ROLE grp_alice IS 'anonymized';
SECURITY LABEL FOR anon_dp ON ROLE grp_bob IS 'anonymized';
SECURITY LABEL FOR anon_dp ON ROLE grp_carol IS 'anonymized';
SECURITY LABEL FOR anon_dp ON ROLE grp_dave IS 'anonymized';
GRANT grp_carol TO grp_bob;
SELECT anon_dp_set_budget('grp_team', 3, 1e-4);
SELECT anon_dp_set_budget('grp_alice', 100, 1e-2);
CREATE VIEW grp_entries AS
SELECT role, epsilon, delta, outcome, actor, accounting FROM anon_dp_ledger
WHERE role::text LIKE 'grp\_%' AND outcome IN ('charged', 'refused') ORDER BY entry;

-- ==== a group's budget is charged for every member ====
-- group_charged_for_member: alice's release goes to her budget and to the team's
SET SESSION AUTHORIZATION grp_alice;
SELECT abs(ANON_COUNT(*) - 3000) < 50 AS ok FROM grp_visits;
-- group_view_shows_groups: her own budget and the team's, which is shared
SELECT role, budget_epsilon, spent_epsilon, remaining_epsilon, releases, budget, shared
FROM anon_dp_budget ORDER BY role::text;
RESET SESSION AUTHORIZATION;
-- group_nested_member: bob belongs to the team through grp_subteam
SET SESSION AUTHORIZATION grp_bob;
SELECT abs(ANON_COUNT(*) - 3000) < 50 AS ok FROM grp_visits;
-- group_set_role_no_escape: as carol (no member) bob's session still pays the team
SET ROLE grp_carol;
SELECT abs(ANON_COUNT(*) - 3000) < 50 AS ok FROM grp_visits;
RESET ROLE;
RESET SESSION AUTHORIZATION;
SELECT role, spent_epsilon, releases FROM anon_dp_budgets WHERE role::text LIKE 'grp\_%'
ORDER BY role::text;
-- group_exhausted_refuses_member: the team's 3 are spent; alice's own 100 do not help
SET SESSION AUTHORIZATION grp_alice;
SELECT abs(ANON_COUNT(*) - 3000) < 50 AS ok FROM grp_visits;
RESET SESSION AUTHORIZATION;
-- group_all_or_nothing: the refusal charged no budget; only the team's row says refused
SELECT * FROM grp_entries;
-- group_membership_revoked: alice leaves the team, her releases no longer go to it
REVOKE grp_team FROM grp_alice;
SET SESSION AUTHORIZATION grp_alice;
SELECT abs(ANON_COUNT(*) - 3000) < 50 AS ok FROM grp_visits;
SELECT role, shared FROM anon_dp_budget ORDER BY role::text;
RESET SESSION AUTHORIZATION;
-- group_admin_sees_all: an administrator sees every budget
SELECT role, budget, shared FROM anon_dp_budget WHERE role::text LIKE 'grp\_%' ORDER BY role::text;

-- ==== seeing it coming ====
SELECT anon_dp_set_budget('grp_carol', 2.5, 1e-4);
SET anon_dp.budget_notice = 0.25;
SET SESSION AUTHORIZATION grp_carol;
-- notice_quiet: 1.5 of 2.5 left
SELECT abs(ANON_COUNT(*) - 3000) < 50 AS ok FROM grp_visits;
-- fits_last_kind: one more like it fits; at the session's epsilon 0.5, three
SELECT remaining_epsilon, releases_that_fit FROM anon_dp_budget;
SET anon_dp.epsilon = 0.5;
SELECT remaining_epsilon, releases_that_fit FROM anon_dp_budget;
-- explain_against_remaining: what the query would take and what remains, charged nothing
SELECT DISTINCT budget_role, statement_epsilon, statement_delta, remaining_epsilon, fits
FROM anon_dp_explain('SELECT ANON_COUNT(*) FROM grp_visits');
SELECT DISTINCT budget_role, statement_epsilon, remaining_epsilon, fits
FROM anon_dp_explain('SELECT ANON_COUNT(*) FROM grp_visits UNION ALL SELECT ANON_COUNT(*) FROM grp_visits UNION ALL SELECT ANON_COUNT(*) FROM grp_visits UNION ALL SELECT ANON_COUNT(*) FROM grp_visits');
RESET anon_dp.epsilon;
-- notice_below_share: 0.5 of 2.5 left is below 25 %
SELECT abs(ANON_COUNT(*) - 3000) < 50 AS ok FROM grp_visits;
-- refusal_says_what_remains
SELECT abs(ANON_COUNT(*) - 3000) < 50 AS ok FROM grp_visits;
RESET SESSION AUTHORIZATION;
RESET anon_dp.budget_notice;
-- notice_superuser_only
SET SESSION AUTHORIZATION grp_carol;
SET anon_dp.budget_notice = 0;
RESET SESSION AUTHORIZATION;

-- ==== concentrated charges: zCDP pays for more releases ====
-- grouped counts over C_u = 5 partitions at epsilon 1 (each partition's count
-- epsilon 0.2): basic composition fits 10 in a budget of 10; the accountant
-- concentrates them (rho = 5 * 0.2^2 / 2 = 0.1 each) and fits more
SELECT anon_dp_set_budget('grp_dave', 10, 1e-4);
SET SESSION AUTHORIZATION grp_dave;
SET anon_dp.max_groups_contributed = 5;
SET anon_dp.delta = 1e-7;
SET anon_dp.partition_selection = 'laplace';
DO $$
DECLARE
  released int := 0;
BEGIN
  FOR i IN 1..40 LOOP
    BEGIN
      PERFORM count(*) FROM (SELECT day, ANON_COUNT(*) FROM grp_visits GROUP BY day) s;
      released := released + 1;
    EXCEPTION WHEN configuration_limit_exceeded THEN
      RAISE NOTICE 'refused after % releases: %', released, SQLERRM;
      EXIT;
    END;
  END LOOP;
END $$;
SELECT accounting, releases, spent_epsilon <= 10 AS within, spent_delta <= 1e-4 AS within_delta,
       basic_spent_epsilon, round(rho::numeric, 6) AS rho
FROM anon_dp_budget;
RESET SESSION AUTHORIZATION;
-- concentrated_ledger: the first charge composed or concentrated, what each cost
SELECT accounting, count(*), round(min(rho)::numeric, 6) AS rho,
       bool_and(spent_epsilon <= 10) AS within
FROM anon_dp_ledger WHERE role = 'grp_dave'::regrole AND outcome = 'charged' GROUP BY accounting;
-- concentrated_state: the order and conversion delta the first concentrated charge fixed
SELECT renyi_order > 1 AS order_fixed, conversion_delta, composed_epsilon, event_delta < 1e-4 AS events
FROM anon_dp_budgets WHERE role = 'grp_dave'::regrole;
-- a reset gives back the accountant's spending and starts over composed
SELECT anon_dp_reset_budget('grp_dave');
SELECT accounting, spent_epsilon, remaining_epsilon FROM anon_dp_budget WHERE role = 'grp_dave'::regrole;
SELECT outcome, epsilon <= 10 AS within FROM anon_dp_ledger WHERE role = 'grp_dave'::regrole
AND outcome = 'budget reset';

DELETE FROM anon_dp_budgets WHERE role::text LIKE 'grp\_%';
DROP VIEW grp_entries;
DROP TABLE grp_visits;
DROP ROLE grp_alice, grp_bob, grp_carol, grp_dave, grp_subteam, grp_team;
