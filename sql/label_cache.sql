-- label_cache: each backend keeps what it read of the anon_dp labels
-- (src/guard/label_cache.c) until a change could have made it wrong.  A
-- label or a tree changed by another session holds from the analyst's next
-- statement on, even inside an open transaction; SET ROLE, SET SESSION
-- AUTHORIZATION and SECURITY DEFINER functions change the session's level
-- at once; a change rolled back is forgotten.
--
-- This session is the DBA.  The analyst's session is another backend,
-- reached through dblink (a named connection keeps one backend, and with it
-- its cache, from one call to the next).
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS anon_dp;
CREATE EXTENSION IF NOT EXISTS dblink;
RESET client_min_messages;

CREATE ROLE lc_analyst LOGIN;
CREATE ROLE lc_other;
SELECT anon_dp_set_budget('lc_analyst', 1000, 1);
ALTER ROLE lc_analyst SET anon_dp.max_epsilon = 100;

-- lc_visits: 200 users (uid), 20 values of shop; after ANALYZE pg_class holds its row count
CREATE TABLE lc_visits (uid int, shop int);
INSERT INTO lc_visits SELECT u, u % 20 FROM generate_series(1, 200) u, generate_series(1, 5) r;
SECURITY LABEL FOR anon_dp ON COLUMN lc_visits.uid IS 'privacy_unit';
ANALYZE lc_visits;
-- lc_parted: private through its parent; lc_parted_1 holds 100 users
CREATE TABLE lc_parted (uid int, region int) PARTITION BY LIST (region);
CREATE TABLE lc_parted_1 PARTITION OF lc_parted FOR VALUES IN (1);
INSERT INTO lc_parted SELECT u, 1 FROM generate_series(1, 100) u;
SECURITY LABEL FOR anon_dp ON COLUMN lc_parted.uid IS 'privacy_unit';
-- lc_shops: unlabelled until the DBA labels it public
CREATE TABLE lc_shops (shop int);
INSERT INTO lc_shops SELECT generate_series(0, 19);

-- the analyst's session: one statement, its first column, or the error
CREATE FUNCTION lc_analyst(statement text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    result text;
BEGIN
    SELECT * INTO result FROM dblink('lc', statement) AS t(v text);
    RETURN result;
EXCEPTION WHEN others THEN
    RETURN 'ERROR: ' || SQLERRM;
END $$;
SELECT dblink_connect('lc', format('host=%s port=%s dbname=%s user=lc_analyst',
    split_part(current_setting('unix_socket_directories'), ',', 1),
    current_setting('port'), current_database()));
SELECT lc_analyst('SET anon_dp.epsilon = 100');

-- ==== a role labelled and unlabelled by another session ====
-- role_full_at_first: the row count of a private table shows
SELECT lc_analyst('SELECT anon_dp_access_level()');
SELECT lc_analyst('SELECT reltuples FROM pg_class WHERE relname = ''lc_visits''');
-- role_labelled_next_statement: masked from the analyst's next statement on
SECURITY LABEL FOR anon_dp ON ROLE lc_analyst IS 'anonymized';
SELECT lc_analyst('SELECT anon_dp_access_level()');
SELECT lc_analyst('SELECT reltuples FROM pg_class WHERE relname = ''lc_visits''');
-- role_anonymization_query: lent access, charged
SELECT lc_analyst('SELECT abs(ANON_COUNT(*) - 200) < 20 FROM lc_visits');
-- role_unlabelled_in_transaction: inside the analyst's open transaction
SELECT lc_analyst('BEGIN');
SELECT lc_analyst('SELECT anon_dp_access_level()');
SECURITY LABEL FOR anon_dp ON ROLE lc_analyst IS NULL;
SELECT lc_analyst('SELECT anon_dp_access_level()');
SELECT lc_analyst('SELECT reltuples FROM pg_class WHERE relname = ''lc_visits''');
-- role_labelled_in_transaction
SECURITY LABEL FOR anon_dp ON ROLE lc_analyst IS 'anonymized';
SELECT lc_analyst('SELECT anon_dp_access_level()');
SELECT lc_analyst('SELECT reltuples FROM pg_class WHERE relname = ''lc_visits''');
SELECT lc_analyst('COMMIT');
-- role_labelled_from_another_database: pg_shseclabel is shared
SELECT dblink_connect('lc_postgres', format('host=%s port=%s dbname=postgres user=%s',
    split_part(current_setting('unix_socket_directories'), ',', 1),
    current_setting('port'), current_user));
SELECT dblink_exec('lc_postgres', 'SECURITY LABEL FOR anon_dp ON ROLE lc_analyst IS NULL');
SELECT lc_analyst('SELECT anon_dp_access_level()');
SELECT dblink_exec('lc_postgres', 'SECURITY LABEL FOR anon_dp ON ROLE lc_analyst IS ''anonymized''');
SELECT lc_analyst('SELECT anon_dp_access_level()');
SELECT dblink_disconnect('lc_postgres');
-- role_label_rolled_back: another session's label that never commits changes nothing
BEGIN;
SECURITY LABEL FOR anon_dp ON ROLE lc_analyst IS NULL;
SELECT lc_analyst('SELECT anon_dp_access_level()');
ROLLBACK;
SELECT lc_analyst('SELECT anon_dp_access_level()');

-- ==== tables labelled by another session ====
-- table_unit_moved: the privacy unit moves from uid to shop (20 users), inside the analyst's transaction
SELECT lc_analyst('BEGIN');
SELECT lc_analyst('SELECT abs(ANON_COUNT(*) - 200) < 20 FROM lc_visits');
SECURITY LABEL FOR anon_dp ON COLUMN lc_visits.uid IS NULL;
SECURITY LABEL FOR anon_dp ON COLUMN lc_visits.shop IS 'privacy_unit';
SELECT lc_analyst('SELECT abs(ANON_COUNT(*) - 20) < 10 FROM lc_visits');
SELECT lc_analyst('COMMIT');
-- table_unit_removed: the table is unlabelled, closed to the analyst
SECURITY LABEL FOR anon_dp ON COLUMN lc_visits.shop IS NULL;
SELECT lc_analyst('SELECT ANON_COUNT(*) FROM lc_visits');
SECURITY LABEL FOR anon_dp ON COLUMN lc_visits.uid IS 'privacy_unit';
SELECT lc_analyst('SELECT abs(ANON_COUNT(*) - 200) < 20 FROM lc_visits');
-- table_labelled_public: readable once labelled public and granted
SELECT lc_analyst('SELECT count(*) FROM lc_shops');
SECURITY LABEL FOR anon_dp ON TABLE lc_shops IS 'public';
GRANT SELECT ON lc_shops TO lc_analyst;
SELECT lc_analyst('SELECT count(*) FROM lc_shops');
-- tree_partition_detached: a partition detached from its private parent is unlabelled
SELECT lc_analyst('SELECT abs(ANON_COUNT(*) - 100) < 20 FROM lc_parted_1');
ALTER TABLE lc_parted DETACH PARTITION lc_parted_1;
SELECT lc_analyst('SELECT ANON_COUNT(*) FROM lc_parted_1');
-- tree_partition_attached: private again once attached
ALTER TABLE lc_parted ATTACH PARTITION lc_parted_1 FOR VALUES IN (1);
SELECT lc_analyst('SELECT abs(ANON_COUNT(*) - 100) < 20 FROM lc_parted_1');
SELECT dblink_disconnect('lc');

-- ==== the roles of this session ====
-- set_role_into_and_out_of: the level follows SET ROLE and RESET ROLE at once
SET ROLE lc_other;
SELECT anon_dp_access_level();
SET ROLE lc_analyst;
SELECT anon_dp_access_level();
SELECT reltuples FROM pg_class WHERE relname = 'lc_visits';
SET ROLE lc_other;
SELECT anon_dp_access_level();
RESET ROLE;
SELECT anon_dp_access_level();
SET ROLE lc_analyst;
SELECT anon_dp_access_level();
RESET ROLE;
-- set_session_authorization_into_and_out_of
SET SESSION AUTHORIZATION lc_analyst;
SELECT anon_dp_access_level();
RESET SESSION AUTHORIZATION;
SELECT anon_dp_access_level();
SET SESSION AUTHORIZATION lc_other;
SELECT anon_dp_access_level();
RESET SESSION AUTHORIZATION;
-- security_definer_of_anonymized_role: anonymized while the function runs, full after
CREATE FUNCTION lc_definer_level() RETURNS text LANGUAGE sql SECURITY DEFINER
    AS 'SELECT anon_dp_access_level()';
CREATE FUNCTION lc_definer_rows() RETURNS real LANGUAGE sql SECURITY DEFINER
    AS $$SELECT reltuples FROM pg_class WHERE relname = 'lc_visits'$$;
ALTER FUNCTION lc_definer_level() OWNER TO lc_analyst;
ALTER FUNCTION lc_definer_rows() OWNER TO lc_analyst;
SELECT anon_dp_access_level(), lc_definer_level(), anon_dp_access_level();
SELECT lc_definer_rows();
SELECT reltuples FROM pg_class WHERE relname = 'lc_visits';
-- security_definer_of_full_role: an anonymized session stays anonymized inside
CREATE FUNCTION lc_full_definer_level() RETURNS text LANGUAGE sql SECURITY DEFINER
    AS 'SELECT anon_dp_access_level()';
GRANT EXECUTE ON FUNCTION lc_full_definer_level() TO lc_analyst;
SET SESSION AUTHORIZATION lc_analyst;
SELECT lc_full_definer_level();
RESET SESSION AUTHORIZATION;
-- own_label_in_transaction: this session's own label, seen before it commits, forgotten after ROLLBACK
CREATE ROLE lc_new;
SET ROLE lc_new;
SELECT anon_dp_access_level();
RESET ROLE;
BEGIN;
SECURITY LABEL FOR anon_dp ON ROLE lc_new IS 'anonymized';
SET ROLE lc_new;
SELECT anon_dp_access_level();
RESET ROLE;
ROLLBACK;
SET ROLE lc_new;
SELECT anon_dp_access_level();
RESET ROLE;
-- own_table_label_in_transaction: a table labelled public in this session's
-- open transaction is public to the analyst it becomes, and closed again after ROLLBACK
REVOKE SELECT ON lc_shops FROM lc_analyst;
SECURITY LABEL FOR anon_dp ON TABLE lc_shops IS NULL;
SET SESSION AUTHORIZATION lc_analyst;
SELECT count(*) FROM lc_shops;
RESET SESSION AUTHORIZATION;
BEGIN;
SECURITY LABEL FOR anon_dp ON TABLE lc_shops IS 'public';
GRANT SELECT ON lc_shops TO lc_analyst;
SET SESSION AUTHORIZATION lc_analyst;
SELECT count(*) FROM lc_shops;
RESET SESSION AUTHORIZATION;
ROLLBACK;
SET SESSION AUTHORIZATION lc_analyst;
SELECT count(*) FROM lc_shops;
RESET SESSION AUTHORIZATION;

DROP FUNCTION lc_definer_level(), lc_definer_rows(), lc_full_definer_level(), lc_analyst(text);
DROP TABLE lc_visits, lc_parted, lc_shops;
DELETE FROM anon_dp_budgets WHERE role::text LIKE 'lc\_%';
DROP OWNED BY lc_analyst;
DROP ROLE lc_analyst, lc_other, lc_new;
DROP EXTENSION dblink;
