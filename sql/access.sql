-- access: analyst roles.  An anonymized role has no path to raw private rows
-- (one named test per path, each expecting a refusal), anonymization queries
-- and public tables keep working, and labels can only be changed by superusers
-- or the designated label administrators.  See doc/access.md.
--
-- The tests run as a superuser and become the analyst with SET SESSION
-- AUTHORIZATION (which makes the analyst the session user, as a login would).
-- Results of anonymization queries are noisy: only stable facts are printed.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS anon_dp;
RESET client_min_messages;
SET anon_dp.epsilon = 1.0;

CREATE TABLE acc_visits (uid int, browser text, duration float8);
INSERT INTO acc_visits
SELECT i % 600, (ARRAY['firefox', 'chrome', 'safari'])[1 + i % 3], i % 100
FROM generate_series(1, 6000) i;
SECURITY LABEL FOR anon_dp ON COLUMN acc_visits.uid IS 'privacy_unit';
CREATE TABLE acc_browsers (name text, vendor text);
INSERT INTO acc_browsers VALUES ('firefox', 'mozilla'), ('chrome', 'google'), ('safari', 'apple');
SECURITY LABEL FOR anon_dp ON TABLE acc_browsers IS 'public';
CREATE TABLE acc_unlabelled (x int);
INSERT INTO acc_unlabelled VALUES (1);
CREATE TABLE acc_orders (id serial, uid int, amount float8);
INSERT INTO acc_orders (uid, amount) SELECT i % 600, i FROM generate_series(1, 3000) i;
SECURITY LABEL FOR anon_dp ON COLUMN acc_orders.uid IS 'privacy_unit';
CREATE TABLE acc_parted (uid int, region int) PARTITION BY LIST (region);
CREATE TABLE acc_parted_1 PARTITION OF acc_parted FOR VALUES IN (1);
CREATE TABLE acc_parted_2 PARTITION OF acc_parted FOR VALUES IN (2);
INSERT INTO acc_parted SELECT i % 600, 1 + i % 2 FROM generate_series(1, 3000) i;
SECURITY LABEL FOR anon_dp ON COLUMN acc_parted.uid IS 'privacy_unit';
ANALYZE acc_visits, acc_orders, acc_browsers;
CREATE STATISTICS acc_visits_stats ON uid, browser FROM acc_visits;
ANALYZE acc_visits;

-- views made by the DBA: one over raw rows, one over an anonymization query
CREATE VIEW acc_raw_view AS SELECT uid, duration FROM acc_visits;
CREATE VIEW acc_anon_view AS
    SELECT browser, ANON_COUNT(*) AS visitors FROM acc_visits GROUP BY browser;

-- functions made by the DBA that read private rows
CREATE FUNCTION acc_sql_count() RETURNS bigint LANGUAGE sql
    AS 'SELECT count(*) FROM acc_visits';
CREATE FUNCTION acc_atomic_count() RETURNS bigint LANGUAGE sql
    BEGIN ATOMIC SELECT count(*) FROM acc_visits; END;
CREATE FUNCTION acc_srf() RETURNS SETOF acc_visits LANGUAGE sql STABLE
    AS 'SELECT * FROM acc_visits';
CREATE FUNCTION acc_plpgsql_count() RETURNS bigint LANGUAGE plpgsql
    AS $$ BEGIN RETURN (SELECT count(*) FROM acc_visits); END $$;
CREATE FUNCTION acc_definer_count() RETURNS bigint LANGUAGE sql SECURITY DEFINER
    AS 'SELECT count(*) FROM acc_visits';
CREATE FUNCTION acc_notice(x float8) RETURNS float8 LANGUAGE plpgsql
    AS $$ BEGIN RAISE NOTICE 'value %', x; RETURN x; END $$;
CREATE FUNCTION acc_double(x float8) RETURNS float8 LANGUAGE sql IMMUTABLE
    AS 'SELECT 2 * x';

-- roles
CREATE ROLE acc_analyst;
CREATE ROLE acc_helper;			-- unlabelled role the analyst may SET ROLE to
CREATE ROLE acc_owner;			-- owns a table, not a superuser
CREATE ROLE acc_creator CREATEROLE;
CREATE ROLE acc_label_admins;
CREATE ROLE acc_admin IN ROLE acc_label_admins;
CREATE ROLE acc_replicator REPLICATION;
CREATE ROLE acc_super SUPERUSER;
GRANT acc_helper TO acc_analyst;
-- Analysts hold privileges on public relations only (tables labelled public,
-- views over them or over anonymization queries); anon_dp lends them the
-- private inputs of their anonymization queries (doc/access.md, "Privileges").
GRANT SELECT ON acc_browsers, acc_anon_view TO acc_analyst, acc_helper;
GRANT CREATE ON SCHEMA public TO acc_analyst;
CREATE TABLE acc_owned (uid int);
ALTER TABLE acc_owned OWNER TO acc_owner;

-- ==== labels on roles ====
-- label_role_anonymized
SECURITY LABEL FOR anon_dp ON ROLE acc_analyst IS 'anonymized';
SELECT label FROM pg_shseclabel s JOIN pg_roles r ON r.oid = s.objoid
WHERE r.rolname = 'acc_analyst' AND s.provider = 'anon_dp';
-- label_role_invalid_value
SECURITY LABEL FOR anon_dp ON ROLE acc_helper IS 'restricted';
-- label_role_superuser_refused
SECURITY LABEL FOR anon_dp ON ROLE acc_super IS 'anonymized';
-- label_role_replication_refused
SECURITY LABEL FOR anon_dp ON ROLE acc_replicator IS 'anonymized';
-- label_function_invalid_value
SECURITY LABEL FOR anon_dp ON FUNCTION acc_double(float8) IS 'safe';
-- the data owner's limits (doc/budget.md), wide enough for the queries below
SET anon_dp.max_epsilon = 1000;
SELECT anon_dp_set_budget('acc_analyst', 1000000, 1);

-- ==== who may change labels ====
-- label_change_by_createrole_refused: CREATEROLE passes PostgreSQL's own check
SET SESSION AUTHORIZATION acc_creator;
SECURITY LABEL FOR anon_dp ON ROLE acc_analyst IS NULL;
RESET SESSION AUTHORIZATION;
-- label_change_by_table_owner_refused
SET SESSION AUTHORIZATION acc_owner;
SECURITY LABEL FOR anon_dp ON TABLE acc_owned IS 'public';
RESET SESSION AUTHORIZATION;
-- label_change_by_designated_admin_allowed
SET anon_dp.label_admin_role = 'acc_label_admins';
ALTER TABLE acc_owned OWNER TO acc_admin;
SET SESSION AUTHORIZATION acc_admin;
SECURITY LABEL FOR anon_dp ON TABLE acc_owned IS 'public';
SECURITY LABEL FOR anon_dp ON TABLE acc_owned IS NULL;
RESET SESSION AUTHORIZATION;
RESET anon_dp.label_admin_role;

-- ==== the analyst: level and what cannot lift it ====
SET SESSION AUTHORIZATION acc_analyst;
-- level_session_user_anonymized
SELECT anon_dp_access_level();
-- level_setting_cannot_raise: refused with a message, not accepted and ignored
SET anon_dp.access_level = 'full';
SELECT set_config('anon_dp.access_level', 'full', true);
SELECT anon_dp_access_level();
SELECT uid FROM acc_visits LIMIT 1;
-- lowering it again, and RESET, are accepted (the level stays anonymized)
SET anon_dp.access_level = 'anonymized';
RESET anon_dp.access_level;
SELECT current_setting('anon_dp.access_level'), anon_dp_access_level();
-- level_set_role_cannot_lift
SET ROLE acc_helper;
SELECT current_user, anon_dp_access_level();
SELECT uid FROM acc_visits LIMIT 1;
RESET ROLE;
-- level_security_definer_cannot_lift
SELECT acc_definer_count();
-- label_change_by_anonymized_session_refused (even on a table it owns)
CREATE TABLE acc_analysts_own (x int);
SECURITY LABEL FOR anon_dp ON TABLE acc_analysts_own IS 'public';
DROP TABLE acc_analysts_own;

-- ==== paths to raw rows, each refused ====
-- raw_select_private_table
SELECT * FROM acc_visits LIMIT 1;
-- raw_select_private_column_in_where_only
SELECT 1 FROM acc_visits WHERE uid = 42 LIMIT 1;
-- raw_select_view_over_private
SELECT * FROM acc_raw_view LIMIT 1;
-- raw_non_anon_aggregate
SELECT count(*) FROM acc_visits;
-- raw_non_anon_aggregate_sum
SELECT sum(duration) FROM acc_visits WHERE uid = 42;
-- raw_mixed_with_anon_aggregate
SELECT ANON_COUNT(*), count(*) FROM acc_visits;
-- raw_scalar_subquery_beside_anon
SELECT (SELECT ANON_COUNT(*) FROM acc_visits), (SELECT max(duration) FROM acc_visits);
-- raw_copy_table_to
COPY acc_visits TO STDOUT;
-- raw_copy_query_to
COPY (SELECT uid, duration FROM acc_visits) TO STDOUT;
-- raw_copy_table_from
COPY acc_visits FROM '/dev/null';
-- raw_cursor
BEGIN;
DECLARE acc_c CURSOR FOR SELECT * FROM acc_visits;
ROLLBACK;
-- raw_cursor_with_hold
DECLARE acc_h CURSOR WITH HOLD FOR SELECT uid FROM acc_visits;
-- raw_update_returning
UPDATE acc_visits SET duration = duration WHERE uid = 42 RETURNING *;
-- raw_delete_returning
DELETE FROM acc_visits WHERE uid = -1 RETURNING uid;
-- raw_insert_returning
INSERT INTO acc_visits VALUES (-1, 'x', 0) RETURNING *;
-- raw_update_row_count (the command tag counts rows)
UPDATE acc_visits SET duration = duration WHERE uid = 42 AND duration > 50;
-- raw_create_table_as
CREATE TABLE acc_copy AS SELECT * FROM acc_visits;
-- raw_select_into
SELECT uid, duration INTO acc_copy2 FROM acc_visits;
-- raw_sql_function
SELECT acc_sql_count();
-- raw_sql_function_atomic_body (checked when it runs, not when it was parsed)
SELECT acc_atomic_count();
-- raw_inlined_sql_function_in_from
SELECT * FROM acc_srf() LIMIT 1;
-- raw_plpgsql_function
SELECT acc_plpgsql_count();
-- raw_do_block
DO $$ BEGIN RAISE NOTICE '%', (SELECT count(*) FROM acc_visits); END $$;
-- raw_own_function_reading_private
CREATE FUNCTION acc_mine() RETURNS SETOF float8 LANGUAGE sql AS 'SELECT duration FROM acc_visits';
-- raw_own_view_over_private
CREATE VIEW acc_my_view AS SELECT uid FROM acc_visits;
-- raw_explain_analyze
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT ANON_COUNT(*) FROM acc_visits;
-- raw_explain_with_costs
EXPLAIN SELECT ANON_COUNT(*) FROM acc_visits WHERE uid = 42;
-- raw_pg_stats (the private table's rows are not shown; sql/discovery.sql)
SELECT most_common_vals FROM pg_stats WHERE tablename = 'acc_visits';
-- raw_pg_statistic
SELECT stanullfrac FROM pg_statistic LIMIT 1;
-- raw_pg_statistic_ext_data
SELECT stxdndistinct FROM pg_statistic_ext_data LIMIT 1;
-- raw_pg_stats_ext (no row of the private table)
SELECT n_distinct FROM pg_stats_ext WHERE tablename = 'acc_visits';
-- raw_pg_stat_user_tables (the private table's counters masked: NULL)
SELECT n_live_tup FROM pg_stat_user_tables WHERE relname = 'acc_visits';
-- raw_pg_statio_user_tables (masked: NULL)
SELECT heap_blks_read FROM pg_statio_user_tables WHERE relname = 'acc_visits';
-- raw_pg_stat_get_function
SELECT pg_stat_get_live_tuples('acc_visits'::regclass);
-- raw_pg_class_reltuples (masked for relations not open to analysts: -1, 0, 0;
-- shown for the public table, whose statistics ANALYZE filled)
SELECT relname, reltuples, relpages, relallvisible FROM pg_class
WHERE relname IN ('acc_visits', 'acc_browsers') ORDER BY relname;
-- raw_pg_class_star (every column, the statistics masked)
SELECT count(*) AS rows, bool_and(relpages = 0 AND reltuples = -1) AS masked
FROM (SELECT * FROM pg_class WHERE relname = 'acc_visits') c;
-- raw_pg_class_system_column (ctid, xmin, the whole row: refused)
SELECT xmin, reltuples FROM pg_class WHERE relname = 'acc_visits';
SELECT c FROM pg_class c WHERE relname = 'acc_visits';
-- raw_relation_size (NULL for relations not open to analysts)
SELECT pg_relation_size('acc_visits') IS NULL AS private_hidden,
       pg_total_relation_size('acc_visits') IS NULL AS total_hidden,
       pg_table_size('acc_orders') IS NULL AS table_hidden,
       pg_relation_size('acc_browsers') > 0 AS public_shown;
-- raw_sequence_counter
SELECT currval('acc_orders_id_seq');
SELECT nextval('acc_orders_id_seq');
-- raw_pg_sequences
SELECT last_value FROM pg_sequences WHERE sequencename = 'acc_orders_id_seq';
-- raw_sequence_relation
SELECT last_value FROM acc_orders_id_seq;
-- raw_internal_building_block_in_anon_query
SELECT ANON_COUNT(*), anon_dp_internal.dp_count(1::int8, 1::int8, 1.0::float8, 1) FROM acc_visits;
-- raw_internal_building_block_direct
SELECT anon_dp_internal.dp_count(1::int8, 1::int8, 1.0::float8, 1) FROM acc_visits;
-- raw_internal_pick
SELECT anon_dp_internal.anon_dp_pick(anon_dp_internal.anon_dp_random_key(), uid, 5::int8) FROM acc_visits;
-- raw_internal_pick_in_anon_query
SELECT ANON_COUNT(*), anon_dp_internal.anon_dp_pick(anon_dp_internal.anon_dp_random_key(), uid, 5::int8) FROM acc_visits;
-- raw_unlabelled_table
SELECT * FROM acc_unlabelled;
-- raw_partition_of_private_table
SELECT * FROM acc_parted_1 LIMIT 1;
-- raw_create_rule
CREATE TABLE acc_mine (x int);
CREATE RULE acc_r AS ON INSERT TO acc_mine DO ALSO SELECT uid FROM acc_visits;
-- raw_create_policy
CREATE POLICY acc_p ON acc_mine USING (EXISTS (SELECT 1 FROM acc_visits WHERE uid = x));
DROP TABLE acc_mine;
-- raw_unchecked_function_body
SET check_function_bodies = off;
CREATE FUNCTION acc_unchecked() RETURNS bigint LANGUAGE sql AS 'SELECT pg_stat_get_live_tuples(1)';
RESET check_function_bodies;

-- ==== error channel: functions inside anonymization queries ====
-- channel_user_function_refused (it could RAISE NOTICE each value)
SELECT ANON_SUM(acc_notice(duration), 0, 100) FROM acc_visits;
-- channel_user_function_in_where_refused
SELECT ANON_COUNT(*) FROM acc_visits WHERE acc_double(duration) > 10;
-- channel_volatile_builtin_refused
SELECT ANON_COUNT(*) FROM acc_visits WHERE set_config('acc.leak', duration::text, false) IS NOT NULL;
SELECT ANON_COUNT(*) FROM acc_visits WHERE pg_notify('acc', uid::text) IS NULL;

-- ==== what keeps working ====
-- ok_anonymization_query
SELECT browser, visitors > 0 AS released
FROM (SELECT browser, ANON_COUNT(*) AS visitors FROM acc_visits GROUP BY browser) r
ORDER BY browser;
-- ok_anonymization_query_join_public
SELECT vendor, n > 0 AS released
FROM (SELECT b.vendor, ANON_COUNT(*) AS n FROM acc_visits v JOIN acc_browsers b ON b.name = v.browser
      GROUP BY b.vendor) r
ORDER BY vendor;
-- ok_anonymization_query_dba_view_input
SELECT ANON_AVG(duration, 0, 100) BETWEEN 0 AND 100 AS in_bounds FROM acc_raw_view;
-- ok_view_over_anonymization_query
SELECT count(*) AS partitions FROM acc_anon_view;
-- ok_partitioned_private_table
SELECT ANON_COUNT(*) > 0 AS released FROM acc_parted;
-- ok_public_table
SELECT name, vendor FROM acc_browsers ORDER BY name;
-- ok_explain_costs_off
EXPLAIN (COSTS OFF) SELECT ANON_COUNT(*) FROM acc_visits;
-- ok_prepared_anonymization_query
PREPARE acc_q(float8) AS SELECT ANON_COUNT(*) > 0 AS released FROM acc_visits WHERE duration > $1;
EXECUTE acc_q(10);
EXECUTE acc_q(20);
DEALLOCATE acc_q;
-- ok_cursor_over_anonymization_query
BEGIN;
DECLARE acc_ok CURSOR FOR SELECT browser FROM (SELECT browser, ANON_COUNT(*) FROM acc_visits GROUP BY browser) r ORDER BY 1;
FETCH 1 FROM acc_ok;
CLOSE acc_ok;
COMMIT;
-- ok_create_table_as_anonymized_result
CREATE TEMP TABLE acc_result AS SELECT browser, ANON_COUNT(*) AS n FROM acc_visits GROUP BY browser;
DROP TABLE acc_result;
-- ok_builtin_functions_in_anonymization_query
SELECT ANON_SUM(round(duration)::int, 0, 100) > 0 AS positive FROM acc_visits WHERE lower(browser) LIKE 'f%';
-- ok_catalog_browsing (information_schema lists the private tables the role
-- may query through anonymization queries, as pg_class does; sql/discovery.sql)
SELECT table_name FROM information_schema.tables WHERE table_name LIKE 'acc\_v%' ORDER BY 1;
SELECT column_name, data_type FROM information_schema.columns
WHERE table_name = 'acc_visits' ORDER BY ordinal_position;
SELECT relname, relkind FROM pg_class WHERE relname = 'acc_visits';
\d acc_visits
\dt acc_*
\d+ acc_browsers
\df acc_double
-- ok_settings
SET anon_dp.epsilon = 0.5;
SHOW anon_dp.epsilon;
RESET anon_dp.epsilon;
RESET SESSION AUTHORIZATION;

-- ==== a DBA vouches for a function ====
-- trusted_function_allowed
SECURITY LABEL FOR anon_dp ON FUNCTION acc_double(float8) IS 'trusted';
SET SESSION AUTHORIZATION acc_analyst;
SELECT ANON_COUNT(*) > 0 AS released FROM acc_visits WHERE acc_double(duration) > 10;
RESET SESSION AUTHORIZATION;

-- ==== the executor layer catches what parse analysis never saw ====
-- backstop_plan_prepared_before_lowering
PREPARE acc_raw AS SELECT count(*) FROM acc_visits;
SET anon_dp.access_level = 'anonymized';
EXECUTE acc_raw;
SELECT anon_dp_access_level();
RESET anon_dp.access_level;
DEALLOCATE acc_raw;
-- backstop_set_role_to_anonymized (a full session that takes the analyst's role)
SET ROLE acc_analyst;
SELECT anon_dp_access_level();
SELECT count(*) FROM acc_visits;
SET anon_dp.access_level = 'full';
RESET ROLE;
-- a full session lowered by the setting raises itself again
SET anon_dp.access_level = 'anonymized';
SET anon_dp.access_level = 'full';
SELECT anon_dp_access_level();

-- ==== removing the label restores full access ====
-- (a role that is not anonymized may then be granted the private table)
SECURITY LABEL FOR anon_dp ON ROLE acc_analyst IS NULL;
GRANT SELECT ON acc_visits TO acc_analyst;
SET SESSION AUTHORIZATION acc_analyst;
SELECT anon_dp_access_level();
SELECT count(*) FROM acc_visits;
RESET SESSION AUTHORIZATION;

-- clean up
DROP VIEW acc_raw_view, acc_anon_view;
DROP FUNCTION acc_sql_count(), acc_atomic_count(), acc_srf(), acc_plpgsql_count(),
    acc_definer_count(), acc_notice(float8), acc_double(float8);
DROP TABLE acc_visits, acc_browsers, acc_unlabelled, acc_orders, acc_parted, acc_owned;
DROP OWNED BY acc_analyst;
DROP ROLE acc_analyst, acc_helper, acc_owner, acc_creator, acc_admin, acc_label_admins, acc_replicator, acc_super;
