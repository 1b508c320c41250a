-- anon_dp 1.0 -> 1.1 (development version: this script may change until 1.1 is released)
\echo Use "ALTER EXTENSION anon_dp UPDATE TO '1.1'" to load this file. \quit

--------------------------------------------------------------------------
-- The allow-list of anonymized sessions (doc/access.md, "The allow-list")
--------------------------------------------------------------------------

-- The reviewed built-in functions and types that may see private values inside
-- the anonymization queries of anonymized roles: by category, with the
-- arguments that must be constants and why.  Operators are allowed when their
-- functions are; casts when their functions are or both types are listed.
CREATE FUNCTION anon_dp_allow_list(OUT kind text, OUT object oid, OUT signature text,
                                   OUT category text, OUT constant_arguments int4[],
                                   OUT constant_reasons text[])
RETURNS SETOF record AS 'MODULE_PATHNAME', 'anon_dp_allow_list'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

--------------------------------------------------------------------------
-- The privacy budget, second step (doc/budget.md): the accountant's state of
-- every budget, what each charge cost in its terms, budgets of group roles
-- shared by their members, and what still fits
--------------------------------------------------------------------------

-- The accountant's state (src/dp/dp_accountant.h): the epsilon of charges
-- composed basically, the delta of their events, the Renyi cost of the
-- concentrated ones at the order and conversion delta that the first of them
-- fixed (NULL before), and the zCDP of all charges.  spent_epsilon and
-- spent_delta keep the sums basic composition alone would have charged.
ALTER TABLE anon_dp_budgets
    ADD COLUMN composed_epsilon numeric NOT NULL DEFAULT 0 CHECK (composed_epsilon >= 0),
    ADD COLUMN event_delta numeric NOT NULL DEFAULT 0 CHECK (event_delta >= 0),
    ADD COLUMN renyi_epsilon float8 NOT NULL DEFAULT 0 CHECK (renyi_epsilon >= 0),
    ADD COLUMN renyi_order float8 CHECK (renyi_order > 1),
    ADD COLUMN conversion_delta float8 CHECK (conversion_delta > 0 AND conversion_delta < 1),
    ADD COLUMN spent_rho float8 NOT NULL DEFAULT 0;
-- the charges of anon_dp 1.0 were composed: the spending carries over as such
UPDATE anon_dp_budgets SET composed_epsilon = spent_epsilon, event_delta = spent_delta;

-- how each charge was made, its zCDP, what it added to the budget's spending
-- in (epsilon, delta) (for a refusal: what it would have needed), and the
-- spending after it
ALTER TABLE anon_dp_ledger
    ADD COLUMN accounting text CHECK (accounting IN ('composed', 'concentrated')),
    ADD COLUMN rho float8,
    ADD COLUMN cost_epsilon numeric,
    ADD COLUMN cost_delta numeric,
    ADD COLUMN spent_epsilon numeric,
    ADD COLUMN spent_delta numeric;
UPDATE anon_dp_ledger SET accounting = 'composed', cost_epsilon = epsilon, cost_delta = delta
WHERE outcome = 'charged';

-- the budgets a session is charged to (administrators: every role), spent and
-- remaining as the accountant counts them, and how many more statements like
-- the session's last one fit at its current settings
DROP VIEW IF EXISTS anon_dp_budget;
DROP FUNCTION anon_dp_budget_status();
CREATE FUNCTION anon_dp_budget_status(
    OUT role regrole, OUT budget_epsilon numeric, OUT budget_delta numeric,
    OUT spent_epsilon numeric, OUT spent_delta numeric,
    OUT remaining_epsilon numeric, OUT remaining_delta numeric,
    OUT releases bigint, OUT budget text,
    OUT accounting text, OUT rho float8, OUT basic_spent_epsilon numeric,
    OUT shared boolean, OUT releases_that_fit bigint)
RETURNS SETOF record
AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE;
CREATE VIEW anon_dp_budget AS SELECT * FROM anon_dp_budget_status();
GRANT SELECT ON anon_dp_budget TO PUBLIC;

-- anon_dp_explain: the statement's cost against the budget it would strain
-- most (anonymized sessions)
DROP FUNCTION anon_dp_explain(text);
CREATE FUNCTION anon_dp_explain(query text,
    OUT level int, OUT release int, OUT function text, OUT epsilon float8, OUT delta float8,
    OUT mechanism text, OUT noise_scale float8, OUT half_width float8,
    OUT selection text, OUT tau float8, OUT users_for_50 float8, OUT users_for_95 float8,
    OUT charge_epsilon float8, OUT charge_delta float8, OUT note text,
    OUT budget_role regrole, OUT statement_epsilon float8, OUT statement_delta float8,
    OUT remaining_epsilon float8, OUT remaining_delta float8, OUT fits boolean)
RETURNS SETOF record
AS 'MODULE_PATHNAME' LANGUAGE C STABLE PARALLEL UNSAFE;
