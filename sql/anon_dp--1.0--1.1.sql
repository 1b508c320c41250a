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
-- Catalog masking of relation sizes (doc/access.md, "Catalogs")
--------------------------------------------------------------------------

-- pg_relation_size(rel[, fork]) (which = 1), pg_total_relation_size (2),
-- pg_table_size (3), pg_indexes_size (4) of a relation an anonymized role may
-- see the statistics of, NULL for the others: what anon_dp's catalog masking
-- puts in place of those calls in an anonymized session, which may not call
-- them itself (a function body or a constraint would call them unmasked)
CREATE FUNCTION anon_dp_masked_size(which int4, rel regclass, fork text)
RETURNS bigint AS 'MODULE_PATHNAME', 'anon_dp_masked_size'
LANGUAGE C VOLATILE PARALLEL SAFE;
