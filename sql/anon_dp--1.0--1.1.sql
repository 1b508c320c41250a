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
-- Released values inside what is possible (doc/functions.md, "Released
-- values stay inside what the bounds allow")
--------------------------------------------------------------------------

-- anon_dp_interval_of(value, half_width, least, greatest, integer): the
-- interval of an ANON_*_CI form with additive noise, its value and both ends
-- within [least, greatest], what the true value can be (a sum of values in
-- [0, U] is at least 0); the 1.0 form (value, half_width, non_negative,
-- integer) stays for views created under 1.0.
CREATE FUNCTION anon_dp_interval_of(float8, float8, float8, float8, bool) RETURNS anon_dp_interval
AS 'MODULE_PATHNAME', 'anon_dp_interval_within' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

--------------------------------------------------------------------------
-- Discovery through the standard interfaces (doc/access.md, "Discovery")
--------------------------------------------------------------------------

-- anon_dp_queryable(relation, privileges): in an anonymized session, whether
-- the privileges asked include SELECT and the role may query the relation
-- through anonymization queries (a private table); false in other sessions.
-- The guard writes has_table_privilege(r, p) OR anon_dp_queryable(r, p) for
-- the has_*_privilege calls of anonymized sessions (src/guard/discovery.c).
CREATE FUNCTION anon_dp_queryable(oid, text) RETURNS bool
AS 'MODULE_PATHNAME' LANGUAGE C STABLE STRICT PARALLEL SAFE;
-- anon_dp_visible_relation(relation): the relation, or NULL in an anonymized
-- session when its statistics are masked; the argument of the pg_stat_get_*()
-- calls of the statistics views read by anonymized sessions
-- (src/guard/catalog_masking.c).
CREATE FUNCTION anon_dp_visible_relation(oid) RETURNS oid
AS 'MODULE_PATHNAME' LANGUAGE C STABLE STRICT PARALLEL SAFE;

--------------------------------------------------------------------------
-- Contribution bounds from the data (doc/noise.md §11, doc/functions.md
-- "anon_dp_contribution_bounds")
--------------------------------------------------------------------------

-- dp_contribution_histogram(groups, rows, epsilon, contributions): one row
-- per user, its number of groups and its most rows in one group; the two
-- noisy histograms (epsilon / 2 each) and their Laplace scale, as
-- {groups' bins, rows' bins, scale}.  The building block of the measurement
-- the rewriter makes for anon_dp_contribution_bounds.
CREATE FUNCTION dp_contribution_histogram_transfn(internal, int8, int8, float8, int4)
RETURNS internal AS 'MODULE_PATHNAME' LANGUAGE C PARALLEL SAFE;
CREATE FUNCTION dp_contribution_histogram_final(internal, int8, int8, float8, int4)
RETURNS float8[] AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE AGGREGATE dp_contribution_histogram(int8, int8, float8, int4) (
    SFUNC = dp_contribution_histogram_transfn, STYPE = internal, SSPACE = 720,
    FINALFUNC = dp_contribution_histogram_final, FINALFUNC_EXTRA, PARALLEL = RESTRICTED);

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
