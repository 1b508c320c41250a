-- failed_statements: an anonymization statement counts as failed from the
-- moment it starts until it completes (src/guard/failures.h; doc/access.md
-- §5, "One bit per failed statement").  Whether it completes can depend on
-- one user's value, and not every end of a statement passes through an error
-- handler: a backend terminated by pg_terminate_backend from the analyst's
-- second session exits at once (FATAL).  Before, such a probe was counted by
-- nobody, and "did it still run at time T" was a free, repeatable bit.
--
-- This session is the DBA; the analyst's session is another backend reached
-- through dblink, so that it can be terminated while this one watches.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS anon_dp;
CREATE EXTENSION IF NOT EXISTS dblink;
RESET client_min_messages;

CREATE ROLE fs_analyst LOGIN;
SELECT anon_dp_set_budget('fs_analyst', 1000, 1);
ALTER ROLE fs_analyst SET anon_dp.max_epsilon = 100;
CREATE TABLE fs_visits (uid int, shop int);
INSERT INTO fs_visits SELECT u, u % 20 FROM generate_series(1, 200) u;
SECURITY LABEL FOR anon_dp ON COLUMN fs_visits.uid IS 'privacy_unit';
-- stands in for an expression that runs long on one user's value (a data
-- owner vouched for it, so the allow-list lets it in)
-- fs_slow(v, w) sleeps when v = w
CREATE FUNCTION fs_slow(int, int) RETURNS int VOLATILE LANGUAGE plpgsql
AS $$BEGIN IF $1 = $2 THEN PERFORM pg_sleep(60); END IF; RETURN $1; END$$;
SECURITY LABEL FOR anon_dp ON FUNCTION fs_slow(int, int) IS 'trusted';
SECURITY LABEL FOR anon_dp ON ROLE fs_analyst IS 'anonymized';

CREATE FUNCTION fs_connect() RETURNS text LANGUAGE sql AS $$
SELECT dblink_connect('fs', format('host=%s port=%s dbname=%s user=fs_analyst',
    split_part(current_setting('unix_socket_directories'), ',', 1),
    current_setting('port'), current_database()))
$$;
-- the analyst's backend, seen from here
CREATE FUNCTION fs_analyst_pid() RETURNS int LANGUAGE sql AS $$
SELECT pid FROM pg_stat_activity WHERE usename = 'fs_analyst' AND backend_type = 'client backend'
$$;
-- waits (up to 60 s) until the analyst's backend sleeps inside fs_slow
CREATE PROCEDURE fs_wait_for_sleep() LANGUAGE plpgsql AS $$
BEGIN
    FOR i IN 1 .. 600 LOOP
        IF EXISTS (SELECT FROM pg_stat_activity
                   WHERE usename = 'fs_analyst' AND wait_event = 'PgSleep') THEN
            RETURN;
        END IF;
        PERFORM pg_sleep(0.1);
        PERFORM pg_stat_clear_snapshot();
    END LOOP;
    RAISE EXCEPTION 'the analyst''s statement never reached its sleep';
END $$;
-- waits until the terminated backend is gone
CREATE PROCEDURE fs_wait_for_exit(old_pid int) LANGUAGE plpgsql AS $$
BEGIN
    FOR i IN 1 .. 600 LOOP
        IF NOT EXISTS (SELECT FROM pg_stat_activity WHERE pid = old_pid) THEN
            RETURN;
        END IF;
        PERFORM pg_sleep(0.1);
        PERFORM pg_stat_clear_snapshot();
    END LOOP;
    RAISE EXCEPTION 'the analyst''s backend did not exit';
END $$;
-- the result of the analyst's statement: its first value, its error, or
-- that the connection was lost
CREATE FUNCTION fs_result() RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    result text;
BEGIN
    BEGIN
        SELECT * INTO result FROM dblink_get_result('fs') AS t(v text);
    EXCEPTION WHEN query_canceled OR others THEN
        IF SQLERRM LIKE '%server closed the connection%' OR SQLERRM LIKE '%terminating connection%'
           OR SQLERRM LIKE '%connection%lost%' OR SQLERRM LIKE '%no connection%' THEN
            RETURN 'the analyst''s connection was lost';
        END IF;
        result := 'ERROR: ' || SQLERRM;
    END;
    PERFORM * FROM dblink_get_result('fs') AS t(v text);	-- the end of the results
    RETURN result;
END $$;

-- one statement of the analyst, answered (its first value or its error)
CREATE FUNCTION fs_result_of(statement text) RETURNS text LANGUAGE sql AS $$
SELECT dblink_send_query('fs', statement);
SELECT fs_result();
$$;

SELECT fs_connect();
SELECT dblink_exec('fs', 'SET anon_dp.epsilon = 1');

-- ==== a statement that completes is not a failure ====
SELECT dblink_send_query('fs', 'SELECT (ANON_COUNT(*) > -1000)::text FROM fs_visits WHERE fs_slow(uid, 0) > 0');
SELECT fs_result() AS answered;
SELECT anon_dp_failed_statements('fs_analyst') AS failed_after_success;

-- ==== terminated while it runs: counted ====
-- the statement reaches the one user's row (uid 7) and sleeps there; while it
-- runs it already counts
SELECT dblink_send_query('fs', 'SELECT ANON_COUNT(*)::text FROM fs_visits WHERE fs_slow(uid, 7) = 7');
CALL fs_wait_for_sleep();
SELECT anon_dp_failed_statements('fs_analyst') AS failed_while_running;
SELECT fs_analyst_pid() AS analyst_pid \gset
SELECT pg_terminate_backend(:analyst_pid);
CALL fs_wait_for_exit(:analyst_pid);
SELECT fs_result();
SELECT dblink_disconnect('fs');
-- the FATAL exit passed through no error handler; the count holds it
SELECT anon_dp_failed_statements('fs_analyst') AS failed_after_termination;

-- ==== a cancel from another session: counted as before ====
SELECT fs_connect();
SELECT dblink_exec('fs', 'SET anon_dp.epsilon = 1');
SELECT dblink_send_query('fs', 'SELECT ANON_COUNT(*)::text FROM fs_visits WHERE fs_slow(uid, 7) = 7');
CALL fs_wait_for_sleep();
SELECT pg_cancel_backend(fs_analyst_pid());
SELECT fs_result();
SELECT anon_dp_failed_statements('fs_analyst') AS failed_after_cancel;

-- ==== at the limit, the next statement is refused before it is planned ====
ALTER ROLE fs_analyst SET anon_dp.max_failed_statements = 2;
SELECT dblink_disconnect('fs');
SELECT fs_connect();
SELECT dblink_exec('fs', 'SET anon_dp.epsilon = 1');
SELECT dblink_send_query('fs', 'SELECT ANON_COUNT(*)::text FROM fs_visits');
SELECT fs_result();
SELECT anon_dp_failed_statements('fs_analyst') AS failed_at_limit;

-- ==== after a reset, completed statements leave the count at 0 ====
SELECT anon_dp_reset_failures('fs_analyst');
SELECT dblink_send_query('fs', 'SELECT (ANON_COUNT(*) > -1000)::text FROM fs_visits');
SELECT fs_result() AS answered;
SELECT anon_dp_failed_statements('fs_analyst') AS failed_after_reset;
SELECT dblink_disconnect('fs');

-- ==== anon_dp.max_statement_time: a cap the analyst cannot lift ====
-- statement_timeout caps nothing against an analyst, who may SET it to 0; a
-- data owner's anon_dp.max_statement_time cancels each step (planning, each
-- run of the executor) of an anonymization statement that runs longer, and
-- the cancel counts as a failure
ALTER ROLE fs_analyst SET anon_dp.max_statement_time = '300ms';
SELECT fs_connect();
SELECT dblink_exec('fs', 'SET anon_dp.epsilon = 1');
SELECT dblink_exec('fs', 'SET statement_timeout = 0');
SELECT fs_result_of('SET anon_dp.max_statement_time = 0');
SELECT fs_result_of('SHOW anon_dp.max_statement_time');
-- a statement that ends in time answers
SELECT fs_result_of('SELECT (ANON_COUNT(*) > -1000)::text FROM fs_visits WHERE fs_slow(uid, 0) > 0');
SELECT anon_dp_failed_statements('fs_analyst') AS failed_in_time;
-- one that reaches the slow row is cancelled, and counted
SELECT fs_result_of('SELECT ANON_COUNT(*)::text FROM fs_visits WHERE fs_slow(uid, 7) = 7');
SELECT anon_dp_failed_statements('fs_analyst') AS failed_after_cap;
-- statements that read no private table are not capped
SELECT fs_result_of('SELECT pg_sleep(0.5)::text');
SELECT dblink_disconnect('fs');

-- cleanup
SELECT anon_dp_reset_failures('fs_analyst');
ALTER ROLE fs_analyst RESET ALL;
DROP PROCEDURE fs_wait_for_sleep(), fs_wait_for_exit(int);
DROP FUNCTION fs_connect(), fs_analyst_pid(), fs_result_of(text), fs_result(), fs_slow(int, int);
DROP TABLE fs_visits;
DELETE FROM anon_dp_budgets WHERE role::text = 'fs_analyst';
DROP OWNED BY fs_analyst;
DROP ROLE fs_analyst;
DROP EXTENSION dblink;
