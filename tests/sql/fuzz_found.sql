--
-- fuzz_found.sql -- what the fuzz run (tests/sqlsmith, doc/fuzz-sqlsmith.md)
-- found, one case per finding, so that it stays fixed.
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS anon_dp;
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
SET ROLE ff_user;
SELECT anon_dp_safe_call_immutable(0, 42);
SELECT anon_dp_safe_call_immutable('textout'::regproc, 42);
SELECT anon_dp_safe_call_immutable('textout'::regproc, 'unknown literal');
SELECT anon_dp_safe_call_immutable('int4pl'::regproc, 1, 2);
SELECT anon_dp_safe_call_immutable('int4pl'::regproc, 1);
SELECT anon_dp_safe_call_stable('pg_read_file(text)'::regprocedure, 'postgresql.conf'::text);
SELECT anon_dp_safe_call_volatile('generate_series(int, int)'::regprocedure, 1, 2);
SELECT anon_dp_safe_call_immutable('sum(int4)'::regprocedure, 1);
SELECT anon_dp_safe_call_immutable('array_to_string(anyarray, text)'::regprocedure, 42, ','::text);
SELECT anon_dp_safe_call_immutable('ff_own'::regproc, 'a'::text);
-- what the planner hook places still works, called by hand too
SELECT anon_dp_safe_call_immutable('concat'::regproc, 'x', 1, 2) AS concat_any;
SELECT anon_dp_safe_call_immutable('array_to_string(anyarray, text)'::regprocedure, ARRAY[1, 2], ','::text) AS polymorphic;
SELECT anon_dp_safe_call_immutable('textcat'::regproc, 'a'::text, 'b'::varchar) AS binary_coercible;
RESET ROLE;

DROP FUNCTION ff_own(text);
DROP ROLE ff_user;
