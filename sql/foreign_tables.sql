-- foreign_tables: what anonymized roles may do with foreign tables, and the
-- SAFE wrappers as SQL text (doc/scale-out.md).  The servers here use a
-- foreign-data wrapper without a handler: every statement below is decided
-- before a foreign table would be read.  tests/scaleout/run runs the same
-- paths against real shards through postgres_fdw.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS anon_dp;
RESET client_min_messages;
SET anon_dp.epsilon = 1.0;
CREATE FOREIGN DATA WRAPPER ft_wrapper;
CREATE SERVER ft_server FOREIGN DATA WRAPPER ft_wrapper;
CREATE ROLE ft_analyst;
CREATE ROLE ft_owner_analyst;
GRANT USAGE ON SCHEMA public TO ft_analyst, ft_owner_analyst;
GRANT CREATE ON SCHEMA public TO ft_analyst, ft_owner_analyst;
-- a DBA's mistake: the analysts may use the server
GRANT USAGE ON FOREIGN SERVER ft_server TO ft_analyst, ft_owner_analyst;

-- ==== 1. an anonymized role creates no foreign table ====
SECURITY LABEL FOR anon_dp ON ROLE ft_analyst IS 'anonymized';
SET ROLE ft_analyst;
CREATE FOREIGN TABLE ft_own (uid int, x int) SERVER ft_server;
IMPORT FOREIGN SCHEMA remote FROM SERVER ft_server INTO public;
-- nor a foreign partition of its own partitioned table
CREATE TABLE ft_parent (uid int, x int) PARTITION BY HASH (uid);
CREATE FOREIGN TABLE ft_part PARTITION OF ft_parent FOR VALUES WITH (MODULUS 2, REMAINDER 0)
    SERVER ft_server;
-- its own ordinary tables stay readable
CREATE TABLE ft_part_local PARTITION OF ft_parent FOR VALUES WITH (MODULUS 2, REMAINDER 1);
SELECT count(*) FROM ft_parent;
RESET ROLE;

-- ==== 2. foreign tables it created before it was anonymized ====
-- A role's own tables hold what it wrote; a foreign table shows another
-- server's rows, so it is unlabelled to its owner, alone or in a tree.
SET ROLE ft_owner_analyst;
CREATE FOREIGN TABLE ft_remote (uid int, x int) SERVER ft_server;
CREATE TABLE ft_tree (uid int, x int) PARTITION BY HASH (uid);
CREATE FOREIGN TABLE ft_tree_remote PARTITION OF ft_tree FOR VALUES WITH (MODULUS 2, REMAINDER 0)
    SERVER ft_server;
CREATE TABLE ft_tree_local PARTITION OF ft_tree FOR VALUES WITH (MODULUS 2, REMAINDER 1);
CREATE TABLE ft_plain (uid int, x int);
RESET ROLE;
SECURITY LABEL FOR anon_dp ON ROLE ft_owner_analyst IS 'anonymized';
SET ROLE ft_owner_analyst;
SELECT * FROM ft_remote;
SELECT count(*) FROM ft_tree;
SELECT count(*) FROM ONLY ft_tree;
SELECT count(*) FROM ft_tree_local;
SELECT count(*) FROM ft_plain;
RESET ROLE;

-- ==== 3. the SAFE wrappers as SQL text ====
-- postgres_fdw prints the wrappers the planner hook places and a shard parses
-- them again: the target is a regprocedure (one function, also for an
-- overloaded name) and the second argument, a NULL of the result type, gives
-- the call its type there.
SELECT anon_dp_internal.anon_dp_safe_call_immutable('lower(text)'::regprocedure, NULL::text, 'AbC'::text) AS lower_text;
SELECT anon_dp_internal.anon_dp_safe_call_immutable('float8div(double precision,double precision)'::regprocedure,
                                   NULL::double precision, 1.0::float8, 4.0::float8) AS quarter;
SELECT anon_dp_internal.anon_dp_safe_call_immutable('int4div(integer,integer)'::regprocedure, NULL::integer, 1, 0) AS div_by_zero;
SELECT anon_dp_internal.anon_dp_safe_io_immutable(NULL::integer, '12'::text) + 1 AS io_cast,
       anon_dp_internal.anon_dp_safe_io_immutable(NULL::integer, 'x'::text) AS io_invalid;
SELECT pg_typeof(anon_dp_internal.anon_dp_safe_call_immutable('int8pl(bigint,bigint)'::regprocedure, NULL::bigint, 1::bigint, 2::bigint)) AS call_type,
       pg_typeof(anon_dp_internal.anon_dp_safe_io_immutable(NULL::date, '2024-01-02'::text)) AS io_type;
-- a witness of another type than the target's result is refused
SELECT anon_dp_internal.anon_dp_safe_call_immutable('int4pl(integer,integer)'::regprocedure, NULL::text, 1, 2);

-- the calls the planner hook places print with their target and witness
CREATE TABLE ft_private (uid int, x float8, g text);
SECURITY LABEL FOR anon_dp ON COLUMN ft_private.uid IS 'privacy_unit';
INSERT INTO ft_private SELECT u, u / 10.0, 'g' || (u % 2) FROM generate_series(1, 100) u;
SET compute_query_id = off;
SET anon_dp.access_level = anonymized;
EXPLAIN (COSTS OFF, VERBOSE)
SELECT lower(g) AS k, ANON_COUNT(*) FROM ft_private WHERE x / 2 > 1 AND x::int::text <> '7' GROUP BY 1;
RESET anon_dp.access_level;
RESET compute_query_id;

DROP TABLE ft_private;
DROP OWNED BY ft_analyst, ft_owner_analyst;
DROP ROLE ft_analyst, ft_owner_analyst;
DROP SERVER ft_server;
DROP FOREIGN DATA WRAPPER ft_wrapper;
