-- query_traces: what an anonymized session's own queries leave behind outside
-- their results.  A query that reads private rows moves counters as those
-- rows say: the blocks it read (pg_stat_statements shows them per statement,
-- and an index scan reads one more heap block when the row it looks for
-- exists), the WAL it wrote (a read prunes pages, and with data checksums sets
-- hint bits that are logged), the temporary files it spilled, the memory it
-- held.  An anonymized session may read none of them: the WAL positions and
-- the server's files and memory are hidden built-ins, and code anon_dp cannot
-- follow (functions in untrusted languages, C and internal among them, that
-- are not built in and not anon_dp's) runs only when a superuser vouched for
-- it.  See doc/access.md §3.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS anon_dp;
-- its C functions need the library preloaded only when they run; this suite
-- checks that an anonymized session never gets that far
CREATE EXTENSION IF NOT EXISTS pg_stat_statements;
RESET client_min_messages;

CREATE TABLE qt_patients (uid int, email text, diagnosis text);
INSERT INTO qt_patients
SELECT i, 'user' || i || '@example.org', CASE WHEN i % 7 = 0 THEN 'flu' ELSE 'none' END
FROM generate_series(1, 2000) i;
CREATE INDEX qt_patients_email ON qt_patients (email);
SECURITY LABEL FOR anon_dp ON COLUMN qt_patients.uid IS 'privacy_unit';
-- a skewed column: 10 rare rows among 20,000 (the planner knows from statistics)
CREATE TABLE qt_visits (uid int, kind text, amount int);
INSERT INTO qt_visits
SELECT i % 5000, CASE WHEN i <= 10 THEN 'rare' ELSE 'common' END, i % 100
FROM generate_series(1, 20000) i;
CREATE INDEX qt_visits_kind ON qt_visits (kind);
ANALYZE qt_visits;
SECURITY LABEL FOR anon_dp ON COLUMN qt_visits.uid IS 'privacy_unit';
CREATE TABLE qt_codes (code text, label text);
INSERT INTO qt_codes VALUES ('flu', 'influenza'), ('none', 'healthy');
SECURITY LABEL FOR anon_dp ON TABLE qt_codes IS 'public';

-- code a superuser wrote in untrusted languages: aliases of built-in C
-- functions under new names (one of them a hidden statistics counter), an
-- aggregate whose transition function is one of them, and functions in
-- trusted languages that call them
CREATE FUNCTION qt_numscans(oid) RETURNS bigint LANGUAGE internal STABLE STRICT
    AS 'pg_stat_get_numscans';
CREATE FUNCTION qt_abs(int) RETURNS int LANGUAGE internal IMMUTABLE STRICT
    AS 'int4abs';
CREATE FUNCTION qt_plus(int, int) RETURNS int LANGUAGE internal IMMUTABLE STRICT
    AS 'int4pl';
CREATE AGGREGATE qt_total(int) (sfunc = qt_plus, stype = int, initcond = '0');
CREATE FUNCTION qt_sql_calls_c() RETURNS bigint LANGUAGE sql
    AS 'SELECT qt_numscans(''qt_codes''::regclass)';
CREATE FUNCTION qt_plpgsql_statements() RETURNS bigint LANGUAGE plpgsql SECURITY DEFINER
    AS $$ BEGIN RETURN (SELECT count(*) FROM pg_stat_statements); END $$;
CREATE FUNCTION qt_wal_position() RETURNS pg_lsn LANGUAGE sql
    BEGIN ATOMIC SELECT pg_current_wal_insert_lsn(); END;
CREATE FUNCTION qt_length(text) RETURNS int LANGUAGE sql IMMUTABLE
    AS 'SELECT length($1)';

CREATE ROLE qt_analyst;
SECURITY LABEL FOR anon_dp ON ROLE qt_analyst IS 'anonymized';
GRANT SELECT ON qt_codes TO qt_analyst;
-- memberships that would lend the server's files and the other sessions' statistics
GRANT pg_monitor, pg_read_server_files TO qt_analyst;
SELECT anon_dp_set_budget('qt_analyst', 1000, 1e-3);

-- ==== the session's own statements, as pg_stat_statements counts them ====
SET SESSION AUTHORIZATION qt_analyst;
SELECT ANON_COUNT(*) >= 0 AS released FROM qt_patients WHERE email = 'user14@example.org';
-- statements_view_refused
SELECT shared_blks_hit + shared_blks_read AS blocks FROM pg_stat_statements
WHERE query LIKE '%qt_patients%';
-- statements_function_refused
SELECT count(*) FROM pg_stat_statements(true);
-- statements_info_refused
SELECT dealloc FROM pg_stat_statements_info;
-- statements_through_definer_function_refused (PL/pgSQL: its statement is refused when it runs)
SELECT qt_plpgsql_statements();
-- statements_inside_anonymization_query_refused
SELECT ANON_COUNT(*) FROM qt_patients WHERE (SELECT count(*) FROM pg_stat_statements) > 0;
RESET SESSION AUTHORIZATION;
-- a session that is not anonymized reaches the function (which answers, or
-- says that its library is not preloaded)
DO $$
BEGIN
    PERFORM count(*) FROM pg_stat_statements(true);
    RAISE NOTICE 'pg_stat_statements reached';
EXCEPTION WHEN object_not_in_prerequisite_state THEN
    RAISE NOTICE 'pg_stat_statements reached';
END $$;

-- ==== code anon_dp cannot follow ====
SET SESSION AUTHORIZATION qt_analyst;
-- untrusted_alias_of_hidden_counter_refused
SELECT qt_numscans('qt_codes'::regclass);
-- untrusted_alias_refused (harmless, but nobody vouched for it)
SELECT qt_abs(-3);
-- untrusted_alias_over_public_table_refused
SELECT qt_abs(length(code)) FROM qt_codes;
-- untrusted_aggregate_support_refused (the aggregate's transition function is named)
SELECT qt_total(length(code)) FROM qt_codes;
-- untrusted_call_inside_sql_function_refused (inlined or not, the call is announced)
SELECT qt_sql_calls_c();
-- untrusted_call_in_anonymization_query_refused
SELECT ANON_COUNT(*) FROM qt_patients WHERE qt_abs(uid) > 10;
-- trusted_language_functions_run (SQL and PL/pgSQL reach data only through checked statements)
SELECT qt_length('abc');
SELECT sum(qt_length(code)) FROM qt_codes;
-- anon_dp_functions_run (anon_dp's own C functions)
SELECT anon_dp_access_level();
SELECT ANON_COUNT(*) >= 0 AS released FROM qt_patients;
RESET SESSION AUTHORIZATION;

-- ==== a superuser vouches for a function ====
-- vouched_function_runs (outside and inside anonymization queries)
SECURITY LABEL FOR anon_dp ON FUNCTION qt_abs(int) IS 'trusted';
SECURITY LABEL FOR anon_dp ON FUNCTION qt_plus(int, int) IS 'trusted';
SET SESSION AUTHORIZATION qt_analyst;
SELECT qt_abs(-3);
SELECT qt_total(length(code)) FROM qt_codes;
SELECT ANON_COUNT(*) >= 0 AS released FROM qt_patients WHERE qt_abs(uid) > 10;
-- vouching_is_for_superusers
SECURITY LABEL FOR anon_dp ON FUNCTION qt_numscans(oid) IS 'trusted';
RESET SESSION AUTHORIZATION;
SECURITY LABEL FOR anon_dp ON FUNCTION qt_abs(int) IS NULL;
SET SESSION AUTHORIZATION qt_analyst;
-- vouching_withdrawn
SELECT qt_abs(-3);
RESET SESSION AUTHORIZATION;

-- ==== the position of the write-ahead log ====
SET SESSION AUTHORIZATION qt_analyst;
-- wal_position_refused (each reader)
SELECT pg_current_wal_lsn();
SELECT pg_current_wal_insert_lsn();
SELECT pg_current_wal_flush_lsn();
SELECT pg_last_wal_receive_lsn();
SELECT pg_last_wal_replay_lsn();
SELECT redo_lsn FROM pg_control_checkpoint();
SELECT min_recovery_end_lsn FROM pg_control_recovery();
SELECT slot_name FROM pg_replication_slots;
-- wal_position_in_function_body_refused (BEGIN ATOMIC: refused when it runs)
SELECT qt_wal_position();
-- wal_difference_of_two_positions_refused (what an attack would compute)
SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), '0/0');
-- wal_pure_functions_run (functions of a position the session already has)
SELECT pg_wal_lsn_diff('0/2000', '0/1000'), pg_walfile_name_offset('0/2000') IS NOT NULL AS named;
RESET SESSION AUTHORIZATION;
-- a session that is not anonymized reads them
SELECT pg_current_wal_insert_lsn() >= '0/0' AS readable;

-- ==== the server's files and memory (lent by pg_monitor, pg_read_server_files) ====
SET SESSION AUTHORIZATION qt_analyst;
-- server_state_refused (temporary files of running queries, the log, memory contexts)
SELECT count(*) FROM pg_ls_tmpdir();
SELECT count(*) FROM pg_ls_tmpdir(1663);
SELECT count(*) FROM pg_ls_logdir();
SELECT count(*) FROM pg_ls_waldir();
SELECT pg_current_logfile();
SELECT pg_current_logfile('stderr');
SELECT length(pg_read_file('postgresql.conf'));
SELECT length(pg_read_file('postgresql.conf', 0, 10));
SELECT length(pg_read_binary_file('postgresql.conf'));
SELECT size FROM pg_stat_file('postgresql.conf');
SELECT count(*) FROM pg_ls_dir('.');
SELECT count(*) FROM pg_backend_memory_contexts;
-- other sessions' statistics stay refused with the membership
SELECT count(*) FROM pg_stat_database;

-- ==== the planner's estimates ====
-- Costs come from the statistics of private columns.  Two readers of a plan's
-- cost answer questions the analyst poses with its settings: JIT (compiled
-- when the cost exceeds jit_above_cost: tens of milliseconds more) and the
-- plan cache (a generic plan when it costs less than the custom plans did).
-- A statement of an anonymized session that reads private rows runs without
-- JIT, and its top-level cost is one constant.
-- (JIT is checked by tests/preload/run, where pg_stat_statements counts the
-- functions JIT compiled for each statement)
RESET SESSION AUTHORIZATION;
-- plan_cache_choice_constant: seven executions of a prepared statement for the
-- rare value.  Its custom plans (an index scan) cost far less than a generic
-- plan (a sequential scan for a value as common as the average), so a full
-- session keeps planning custom plans; in the anonymized session every plan
-- costs the same and the plan cache switches after five, whatever the data
PREPARE qt_by_kind(text) AS SELECT ANON_COUNT(*) >= 0 AS released FROM qt_visits WHERE kind = $1;
EXECUTE qt_by_kind('rare'); EXECUTE qt_by_kind('rare'); EXECUTE qt_by_kind('rare');
EXECUTE qt_by_kind('rare'); EXECUTE qt_by_kind('rare'); EXECUTE qt_by_kind('rare');
EXECUTE qt_by_kind('rare');
SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE name = 'qt_by_kind';
DEALLOCATE qt_by_kind;
SET SESSION AUTHORIZATION qt_analyst;
PREPARE qt_by_kind(text) AS SELECT ANON_COUNT(*) >= 0 AS released FROM qt_visits WHERE kind = $1;
EXECUTE qt_by_kind('rare'); EXECUTE qt_by_kind('rare'); EXECUTE qt_by_kind('rare');
EXECUTE qt_by_kind('rare'); EXECUTE qt_by_kind('rare'); EXECUTE qt_by_kind('rare');
EXECUTE qt_by_kind('rare');
SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE name = 'qt_by_kind';
DEALLOCATE qt_by_kind;

-- ==== the sessions in pg_stat_activity ====
-- How another session's anonymization query waits (on a temporary file while
-- the bounding spills) and whether it has parallel workers depend on private
-- rows; anonymized sessions read pg_stat_activity without wait events,
-- parallel workers and leader_pid (tests/preload/run watches a parallel query
-- from a second session)
RESET SESSION AUTHORIZATION;
-- activity_full_session (the control: background processes wait on something,
-- and this session's query text is shown)
SELECT count(wait_event) > 0 AS waits_shown, count(query) > 0 AS queries_shown FROM pg_stat_activity;
SET SESSION AUTHORIZATION qt_analyst;
-- activity_masked (pg_monitor lends every session's row)
SELECT count(*) > 1 AS sessions_listed, count(wait_event) AS wait_events,
       count(wait_event_type) AS wait_event_types, count(leader_pid) AS leaders,
       count(*) FILTER (WHERE backend_type = 'parallel worker') AS workers
FROM pg_stat_activity;
-- activity_other_roles_query_hidden: this backend logged in as the superuser
-- (SET SESSION AUTHORIZATION leaves pg_stat_activity.usesysid as it was), so
-- its row is another role's: listed, without its query text
SELECT usesysid = 'qt_analyst'::regrole AS own_role, state, query IS NULL AS query_hidden
FROM pg_stat_activity WHERE pid = pg_backend_pid();
SELECT count(*) > 0 AS listed FROM pg_stat_ssl;
SELECT count(*) > 0 AS listed FROM pg_stat_gssapi;
-- activity_function_refused (directly, in FROM or in the select list, and the
-- backends' wait events)
SELECT count(*) FROM pg_stat_get_activity(NULL);
SELECT (pg_stat_get_activity(pg_backend_pid())).wait_event;
SELECT pg_stat_get_backend_wait_event(1), pg_stat_get_backend_wait_event_type(1);
SELECT pg_stat_get_backend_activity(1);

-- ==== every hidden built-in, called by name ====
-- hidden_builtins_by_name: each function of the server's catalog that the
-- hidden list should hold is called (NULL arguments) as the anonymized role;
-- listed are those that were not refused by anon_dp (none expected).  The
-- sizes of relations are hidden too, but a statement's own calls of them are
-- masked instead (sql/access.sql raw_relation_size).
DO $$
DECLARE
    f record;
    missed text[] := '{}';
    refused int := 0;
BEGIN
    FOR f IN
        SELECT p.oid::regprocedure AS signature, p.proname,
               (SELECT string_agg('NULL::' || format_type(t, NULL), ', ' ORDER BY n)
                FROM unnest(p.proargtypes) WITH ORDINALITY AS a(t, n)) AS arguments
        FROM pg_proc p
        WHERE p.pronamespace = 'pg_catalog'::regnamespace
          AND ((p.proname LIKE 'pg\_stat\_get\_%' AND (p.proname NOT LIKE 'pg\_stat\_get\_backend\_%'
                OR p.proname LIKE 'pg\_stat\_get\_backend\_wait\_event%'
                OR p.proname = 'pg_stat_get_backend_activity'))
               OR p.proname IN ('pg_stat_have_stats',
                   'pg_current_wal_lsn', 'pg_current_wal_insert_lsn', 'pg_current_wal_flush_lsn',
                   'pg_last_wal_receive_lsn', 'pg_last_wal_replay_lsn', 'pg_control_checkpoint',
                   'pg_control_recovery', 'pg_get_replication_slots',
                   'pg_ls_tmpdir', 'pg_ls_logdir', 'pg_ls_waldir', 'pg_ls_dir', 'pg_ls_archive_statusdir',
                   'pg_ls_logicalsnapdir', 'pg_ls_logicalmapdir', 'pg_ls_replslotdir',
                   'pg_read_file', 'pg_read_file_old', 'pg_read_binary_file', 'pg_stat_file',
                   'pg_current_logfile', 'pg_get_backend_memory_contexts',
                   'pg_lock_status', 'pg_blocking_pids',
                   'pg_safe_snapshot_blocking_pids',
                   'pg_get_multixact_members', 'txid_status', 'pg_xact_status',
                   'pg_xact_commit_timestamp', 'pg_xact_commit_timestamp_origin',
                   'pg_last_committed_xact'))
        ORDER BY p.oid
    LOOP
        BEGIN
            EXECUTE format('SELECT %I(%s)', f.proname, coalesce(f.arguments, ''));
            missed := missed || f.signature::text;
        EXCEPTION WHEN insufficient_privilege THEN
            IF SQLERRM LIKE 'permission denied for function %: anonymized roles %' THEN
                refused := refused + 1;
            ELSE
                missed := missed || (f.signature::text || ': ' || SQLERRM);
            END IF;
        END;
    END LOOP;
    RAISE NOTICE 'refused by anon_dp: % functions; not refused: %', refused, missed;
END $$;
RESET SESSION AUTHORIZATION;

-- clean up
REVOKE pg_monitor, pg_read_server_files FROM qt_analyst;
DROP AGGREGATE qt_total(int);
DROP FUNCTION qt_numscans(oid), qt_abs(int), qt_plus(int, int), qt_sql_calls_c(),
    qt_plpgsql_statements(), qt_wal_position(), qt_length(text);
DROP TABLE qt_patients, qt_codes, qt_visits;
DROP EXTENSION pg_stat_statements;
DELETE FROM anon_dp_budgets WHERE role::text = 'qt_analyst';
DROP OWNED BY qt_analyst;
DROP ROLE qt_analyst;
