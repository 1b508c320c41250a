-- ordinary_sessions: with the library preloaded, a session that is not
-- anonymized sees PostgreSQL as it is without the library.  Query
-- identifiers in particular are computed only when compute_query_id asks for
-- them (PostgreSQL's 'auto' computes them only for a module that needs them,
-- such as pg_stat_statements; this suite expects no such module preloaded):
-- EXPLAIN VERBOSE shows no "Query Identifier", pg_stat_activity.query_id
-- stays NULL, and so does log_line_prefix's %Q.  The privacy ledger records
-- PostgreSQL's query id of a charged statement when one was computed.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS anon_dp;
RESET client_min_messages;

-- the lines of EXPLAIN (VERBOSE, COSTS OFF) of a statement that name a query identifier
CREATE FUNCTION os_query_identifier_lines(statement text) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
    line text;
    found bigint := 0;
BEGIN
    FOR line IN EXECUTE 'EXPLAIN (VERBOSE, COSTS OFF) ' || statement LOOP
        IF line LIKE '%Query Identifier%' THEN
            found := found + 1;
        END IF;
    END LOOP;
    RETURN found;
END $$;
CREATE TABLE os_plain (id int PRIMARY KEY, v text);
INSERT INTO os_plain SELECT i, 'v' || i FROM generate_series(1, 100) i;

-- ==== compute_query_id = auto (the default) ====
SET compute_query_id = auto;
-- auto_explain_verbose: no Query Identifier line
EXPLAIN (VERBOSE, COSTS OFF) SELECT v FROM os_plain WHERE id = 1;
SELECT os_query_identifier_lines('SELECT count(*) FROM os_plain');
-- auto_pg_stat_activity: this session's query_id stays NULL
SELECT query_id IS NULL AS no_query_id FROM pg_stat_activity WHERE pid = pg_backend_pid();

-- ==== compute_query_id = on: PostgreSQL's own behaviour ====
SET compute_query_id = on;
SELECT os_query_identifier_lines('SELECT count(*) FROM os_plain');
SELECT query_id IS NOT NULL AS query_id FROM pg_stat_activity WHERE pid = pg_backend_pid();
SET compute_query_id = off;
SELECT os_query_identifier_lines('SELECT count(*) FROM os_plain');
RESET compute_query_id;

-- ==== the ledger's query_id ====
CREATE TABLE os_visits (uid int, day int);
INSERT INTO os_visits SELECT u, u % 3 FROM generate_series(1, 500) u;
SECURITY LABEL FOR anon_dp ON COLUMN os_visits.uid IS 'privacy_unit';
CREATE ROLE os_analyst;
SECURITY LABEL FOR anon_dp ON ROLE os_analyst IS 'anonymized';
SELECT anon_dp_set_budget('os_analyst', 100, 1e-3);
CREATE VIEW os_charges AS
SELECT query_id FROM anon_dp_ledger
WHERE role::text = 'os_analyst' AND outcome = 'charged' ORDER BY entry;
-- ledger_auto: an anonymization query of an anonymized role; no query id computed, none recorded
SET compute_query_id = auto;
SET SESSION AUTHORIZATION os_analyst;
SELECT abs(ANON_COUNT(*) - 500) < 50 AS ok FROM os_visits;
RESET SESSION AUTHORIZATION;
-- the anonymized plan as the data owner sees it (an anonymized role may not EXPLAIN it): no Query Identifier either
SET anon_dp.access_level = 'anonymized';
SELECT os_query_identifier_lines('SELECT ANON_COUNT(*) FROM os_visits');
RESET anon_dp.access_level;
-- ledger_on: with compute_query_id = on the ledger records PostgreSQL's query id
SET compute_query_id = on;
SET SESSION AUTHORIZATION os_analyst;
SELECT abs(ANON_COUNT(*) - 500) < 50 AS ok FROM os_visits;
RESET SESSION AUTHORIZATION;
RESET compute_query_id;
SELECT query_id IS NULL AS recorded_null FROM os_charges;

DROP VIEW os_charges;
DELETE FROM anon_dp_budgets WHERE role::text = 'os_analyst';
DROP TABLE os_plain, os_visits;
DROP FUNCTION os_query_identifier_lines(text);
DROP ROLE os_analyst;
