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
