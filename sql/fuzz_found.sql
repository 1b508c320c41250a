--
-- fuzz_found.sql -- what the fuzz run (tests/sqlsmith, doc/fuzz-sqlsmith.md)
-- found, one case per finding, so that it stays fixed.
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS anon_dp;
-- the building blocks are called by name: their schema on the search path (doc/functions.md)
SET search_path = public, anon_dp_internal;
DROP ROLE IF EXISTS ff_user;
RESET client_min_messages;
CREATE ROLE ff_user;

-- ==== 1. anon_dp_safe_call_* called by hand ====
-- sqlsmith: "cache lookup failed for function 0" from
-- anon_dp_safe_call_immutable(<an oid column>::regproc, ...).  The function
-- is callable by every role; it called any function with any arguments:
-- textout on an integer crashed the server, and pg_read_file ran without the
-- EXECUTE privilege.  The target is now checked against the call.
CREATE FUNCTION ff_own(text) RETURNS text LANGUAGE sql PARALLEL SAFE AS $$ SELECT $1 $$;
CREATE DOMAIN ff_checked AS text CHECK (VALUE <> 'x');
SET ROLE ff_user;
SELECT anon_dp_safe_call_immutable(0, NULL::int, 42);
SELECT anon_dp_safe_call_immutable('textout'::regproc, NULL::text, 42);
SELECT anon_dp_safe_call_immutable('textout'::regproc, NULL::text, 'unknown literal');
SELECT anon_dp_safe_call_immutable('int4pl'::regproc, NULL::text, 1, 2);
SELECT anon_dp_safe_call_immutable('int4pl'::regproc, NULL::int, 1);
SELECT anon_dp_safe_call_stable('pg_read_file(text)'::regprocedure, NULL::text, 'postgresql.conf'::text);
SELECT anon_dp_safe_call_volatile('generate_series(int, int)'::regprocedure, NULL::int, 1, 2);
SELECT anon_dp_safe_call_immutable('sum(int4)'::regprocedure, NULL::bigint, 1);
SELECT anon_dp_safe_call_immutable('array_to_string(anyarray, text)'::regprocedure, NULL::text, 42, ','::text);
SELECT anon_dp_safe_call_immutable('ff_own'::regproc, NULL::text, 'a'::text);
-- a built-in off the allow-list is not known to hold nothing when it raises:
-- the wrappers call listed functions only, and cast between listed types only
SELECT anon_dp_safe_call_stable('format_type(oid, integer)'::regprocedure, NULL::text, 23::oid, -1);
SELECT anon_dp_safe_call_immutable('satisfies_hash_partition'::regproc, NULL::bool, 0::oid, 1, 0, 1);
SELECT anon_dp_safe_io_immutable(NULL::ff_checked, 'x'::text);
SELECT anon_dp_safe_io_immutable(NULL::regclass, 'pg_class'::text);
-- red team (issue 30): a polymorphic target got values of another
-- representation than the parser's coercion would have given it (an int where
-- numeric was read: a crash; an int8[] read as numeric[]: pointers; an untyped
-- literal read as text: memory past the value); every argument must now have
-- its resolved type already
SELECT anon_dp_safe_call_immutable('width_bucket(anycompatible,anycompatiblearray)'::regprocedure,
       NULL::int, 5::int, ARRAY[1.5, 2.5]::numeric[]);
SELECT anon_dp_safe_call_immutable('array_append(anycompatiblearray,anycompatible)'::regprocedure,
       NULL::numeric[], ARRAY[1]::int8[], 1.5::numeric);
SELECT anon_dp_safe_call_immutable('array_append(anycompatiblearray,anycompatible)'::regprocedure,
       NULL::text[], ARRAY['x']::text[], 'abc');
SELECT anon_dp_safe_call_immutable('array_append(anycompatiblearray,anycompatible)'::regprocedure,
       NULL::int8[], ARRAY[1]::int8[], 2::int8) AS resolved_types;
-- what the planner hook places still works, called by hand too
SELECT anon_dp_safe_call_immutable('concat'::regproc, NULL::text, 'x'::text, 1, 2) AS concat_any;
SELECT anon_dp_safe_call_immutable('array_to_string(anyarray, text)'::regprocedure, NULL::text, ARRAY[1, 2], ','::text) AS polymorphic;
SELECT anon_dp_safe_call_immutable('textcat'::regproc, NULL::text, 'a'::text, 'b'::varchar) AS binary_coercible;
RESET ROLE;

DROP FUNCTION ff_own(text);
DROP DOMAIN ff_checked;
DROP ROLE ff_user;
