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
-- The internals in a schema of their own (doc/functions.md, "Where the
-- functions live"): what the rewriter emits and what only the machinery
-- uses moves to anon_dp_internal, off the default search path, so that \df
-- shows users the ANON_* aggregates and the functions they call.  The
-- library finds each function in its schema, and the schema as the
-- extension's member, never by name alone (src/catalog.c).  Sections added
-- after this one create their internal functions in anon_dp_internal.
--------------------------------------------------------------------------
CREATE SCHEMA anon_dp_internal;
COMMENT ON SCHEMA anon_dp_internal IS
    'anon_dp''s building blocks and their support functions: what its rewriter emits (doc/functions.md)';
-- USAGE for every role: postgres_fdw ships the SAFE wrappers to shards as
-- schema-qualified SQL, run there as the mapped user (doc/scale-out.md), and
-- DBAs call the building blocks by hand.  An anonymized role calling one is
-- refused by the guard, whatever the schema (doc/access.md).
GRANT USAGE ON SCHEMA anon_dp_internal TO PUBLIC;

-- What stays in the extension's schema: the ANON_* aggregates and the
-- functions users call (analysts, data owners, DBAs); everything else of
-- the extension moves, with its overloads.
DO $$
DECLARE
    f record;
BEGIN
    FOR f IN
        SELECT p.oid, p.prokind
        FROM pg_catalog.pg_proc p
        JOIN pg_catalog.pg_depend d
          ON d.classid = 'pg_catalog.pg_proc'::pg_catalog.regclass AND d.objid = p.oid
         AND d.refclassid = 'pg_catalog.pg_extension'::pg_catalog.regclass AND d.deptype = 'e'
        JOIN pg_catalog.pg_extension e ON e.oid = d.refobjid AND e.extname = 'anon_dp'
        WHERE p.pronamespace = e.extnamespace
          -- the ANON_* aggregates (anon_count, anon_sum_ci, ...); their
          -- transition and final functions (anon_dp_requires_rewrite*) move
          AND NOT (p.prokind = 'a' AND p.proname LIKE 'anon\_%' AND p.proname NOT LIKE 'anon\_dp\_%')
          AND p.proname NOT IN (
              'anon_dp_access_level',       -- analysts: the session's access level
              'anon_dp_allow_list',         -- analysts and DBAs: what anonymization queries may call
              'anon_dp_budget_status',      -- analysts: the budget (the view anon_dp_budget)
              'anon_dp_epsilon_for',        -- analysts: the epsilon a half-width needs
              'anon_dp_epsilon_share',      -- analysts: the privacy arithmetic
              'anon_dp_tau',
              'anon_dp_tau_continuous',
              'anon_dp_explain',            -- analysts: what a query releases and costs
              'anon_dp_random',             -- the by-hand bounding of doc/functions.md section 11
              'anon_reservoir',             -- TABLESAMPLE anon_reservoir(n): resolved by name
              'anon_dp_set_budget',         -- data owners: budgets
              'anon_dp_reset_budget')
    LOOP
        EXECUTE pg_catalog.format('ALTER %s %s SET SCHEMA anon_dp_internal',
                                  CASE f.prokind WHEN 'a' THEN 'AGGREGATE' ELSE 'FUNCTION' END,
                                  f.oid::pg_catalog.regprocedure);
    END LOOP;
END
$$;

--------------------------------------------------------------------------
-- Catalog masking of relation sizes (doc/access.md, "Catalogs")
--------------------------------------------------------------------------

-- pg_relation_size(rel[, fork]) (which = 1), pg_total_relation_size (2),
-- pg_table_size (3), pg_indexes_size (4) of a relation an anonymized role may
-- see the statistics of, NULL for the others: what anon_dp's catalog masking
-- puts in place of those calls in an anonymized session, which may not call
-- them itself (a function body or a constraint would call them unmasked)
CREATE FUNCTION anon_dp_internal.anon_dp_masked_size(which int4, rel regclass, fork text)
RETURNS bigint AS 'MODULE_PATHNAME', 'anon_dp_masked_size'
LANGUAGE C VOLATILE PARALLEL SAFE;

--------------------------------------------------------------------------
-- Failed anonymization statements (doc/access.md section 5)
--------------------------------------------------------------------------

-- How many anonymization statements of the role failed in this database since
-- the server started or the count was reset: each failure can carry one bit
-- of one user's value, and anon_dp.max_failed_statements suspends the role's
-- anonymization queries when the count reaches it
CREATE FUNCTION anon_dp_failed_statements(role regrole)
RETURNS int4 AS 'MODULE_PATHNAME', 'anon_dp_failed_statements'
LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;

-- back to 0, lifting a suspension (superusers and anon_dp.label_admin_role)
CREATE FUNCTION anon_dp_reset_failures(role regrole)
RETURNS void AS 'MODULE_PATHNAME', 'anon_dp_reset_failures'
LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;

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

--------------------------------------------------------------------------
-- Released values inside what is possible (doc/functions.md, "Released
-- values stay inside what the bounds allow")
--------------------------------------------------------------------------

-- anon_dp_interval_of(value, half_width, least, greatest, integer): the
-- interval of an ANON_*_CI form with additive noise, its value and both ends
-- within [least, greatest], what the true value can be (a sum of values in
-- [0, U] is at least 0); the 1.0 form (value, half_width, non_negative,
-- integer) stays for views created under 1.0.
CREATE FUNCTION anon_dp_internal.anon_dp_interval_of(float8, float8, float8, float8, bool) RETURNS anon_dp_interval
AS 'MODULE_PATHNAME', 'anon_dp_interval_within' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

--------------------------------------------------------------------------
-- Discovery through the standard interfaces (doc/access.md, "Discovery")
--------------------------------------------------------------------------

-- anon_dp_queryable(relation, privileges): in an anonymized session, whether
-- the privileges asked include SELECT and the role may query the relation
-- through anonymization queries (a private table); false in other sessions.
-- The guard writes has_table_privilege(r, p) OR anon_dp_queryable(r, p) for
-- the has_*_privilege calls of anonymized sessions (src/guard/discovery.c).
CREATE FUNCTION anon_dp_internal.anon_dp_queryable(oid, text) RETURNS bool
AS 'MODULE_PATHNAME' LANGUAGE C STABLE STRICT PARALLEL SAFE;
-- anon_dp_masked_statistic(counter, relation, NULL::type): the counter
-- pg_stat_get_<counter>(relation), or NULL in place of it when the
-- relation's statistics are masked; what the masking of the statistics
-- views (pg_stat_user_tables, ...) writes for the counters it shows, in
-- anonymized sessions, which may not call the counters themselves
-- (src/guard/statistics_views.c).  Not strict: the third argument, always
-- NULL, only gives the result's type.
CREATE FUNCTION anon_dp_internal.anon_dp_masked_statistic(counter oid, rel oid, type anyelement)
RETURNS anyelement AS 'MODULE_PATHNAME', 'anon_dp_masked_statistic'
LANGUAGE C STABLE PARALLEL SAFE;
-- anon_dp_masked_activity(pid): pg_stat_get_activity(pid), the function of
-- pg_stat_activity, pg_stat_ssl and pg_stat_gssapi, as anonymized sessions
-- read it: no wait event, no parallel worker and no leader_pid (how another
-- session's anonymization query is waiting -- spilling to disk, reading --
-- and whether its plan is parallel depend on private rows and on cost
-- estimates made from them), and no query text of other roles' sessions (a
-- loader's INSERT carries private values), whatever pg_read_all_stats lends.  The guard puts it in place of
-- pg_stat_get_activity in the FROM of their statements at planning; they may
-- not call pg_stat_get_activity itself (src/guard/statistics_views.c).
CREATE FUNCTION anon_dp_internal.anon_dp_masked_activity(pid integer,
    OUT datid oid, OUT pid integer, OUT usesysid oid, OUT application_name text,
    OUT state text, OUT query text, OUT wait_event_type text, OUT wait_event text,
    OUT xact_start timestamptz, OUT query_start timestamptz, OUT backend_start timestamptz,
    OUT state_change timestamptz, OUT client_addr inet, OUT client_hostname text,
    OUT client_port integer, OUT backend_xid xid, OUT backend_xmin xid, OUT backend_type text,
    OUT ssl boolean, OUT sslversion text, OUT sslcipher text, OUT sslbits integer,
    OUT ssl_client_dn text, OUT ssl_client_serial numeric, OUT ssl_issuer_dn text,
    OUT gss_auth boolean, OUT gss_princ text, OUT gss_enc boolean, OUT leader_pid integer,
    OUT query_id bigint)
RETURNS SETOF record AS 'MODULE_PATHNAME', 'anon_dp_masked_activity'
LANGUAGE C STABLE PARALLEL RESTRICTED ROWS 100;

--------------------------------------------------------------------------
-- Contribution bounds from the data (doc/noise.md §11, doc/functions.md
-- "anon_dp_contribution_bounds")
--------------------------------------------------------------------------

-- dp_contribution_histogram(groups, rows, epsilon, contributions): one row
-- per user, its number of groups and its most rows in one group; the two
-- noisy histograms (epsilon / 2 each) and their Laplace scale, as
-- {groups' bins, rows' bins, scale}.  The building block of the measurement
-- the rewriter makes for anon_dp_contribution_bounds.
CREATE FUNCTION anon_dp_internal.dp_contribution_histogram_transfn(internal, int8, int8, float8, int4)
RETURNS internal AS 'MODULE_PATHNAME' LANGUAGE C PARALLEL SAFE;
CREATE FUNCTION anon_dp_internal.dp_contribution_histogram_final(internal, int8, int8, float8, int4)
RETURNS float8[] AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE AGGREGATE anon_dp_internal.dp_contribution_histogram(int8, int8, float8, int4) (
    SFUNC = anon_dp_internal.dp_contribution_histogram_transfn, STYPE = internal, SSPACE = 720,
    FINALFUNC = anon_dp_internal.dp_contribution_histogram_final, FINALFUNC_EXTRA, PARALLEL = RESTRICTED);

-- anon_dp_contribution_bounds(query, epsilon): measures, at epsilon (charged
-- like any release), how many groups and how many rows in one group the
-- users of an anonymization query contribute, and returns for each candidate
-- value of anon_dp.max_groups_contributed and anon_dp.max_rows_contributed
-- the share of users whose contributions it keeps whole, the share of
-- contributions it keeps, the query's first half-width and the users a group
-- needs at that value, and the suggested one.
CREATE FUNCTION anon_dp_contribution_bounds(query text, epsilon float8 DEFAULT 0.1,
    OUT setting text, OUT value int8, OUT users_within float8, OUT contributions_kept float8,
    OUT half_width float8, OUT users_for_50 float8, OUT suggested bool)
RETURNS SETOF record AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE;

--------------------------------------------------------------------------
-- Intervals as plain numbers for drivers (doc/functions.md, "Confidence
-- intervals"; doc/bi-tools.md §1)
--------------------------------------------------------------------------

-- anon_dp_interval as {value, lower, upper}: a built-in array, which
-- node-postgres, psycopg and pgjdbc read as numbers where they read the
-- composite as text, bytes or a PGobject.  ANON_AVG_CI(x, 0, 10)::float8[]
CREATE FUNCTION anon_dp_interval_array(anon_dp_interval) RETURNS float8[]
AS $$ SELECT ARRAY[($1).value, ($1).lower, ($1).upper] $$
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE;
CREATE CAST (anon_dp_interval AS float8[]) WITH FUNCTION anon_dp_interval_array(anon_dp_interval);

--------------------------------------------------------------------------
-- Row-level quantiles through the one-pass bounding (doc/rewriter.md,
-- "The bounding node"; issue 35)
--------------------------------------------------------------------------

-- anon_dp_bounded_sample(sample): one kept (user, partition) pair's sample
-- of ANON_MEDIAN or ANON_NTILE (a column "s" of anon_dp_bound_partitions,
-- read by anon_dp_bounded_column as bytea, since an array cannot hold
-- arrays) as the float8[] that dp_ntile_rows reads.
CREATE FUNCTION anon_dp_internal.anon_dp_bounded_sample(bytea) RETURNS float8[]
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
