-- plan_shape: in an anonymized session the planner sees private relations
-- as a constant size without statistics (src/guard/plan_estimates.c;
-- doc/access.md §3, "The plan").  A plan's shape shows without EXPLAIN: the
-- order in which a hash aggregation sized from its estimated groups returns
-- the released rows, the parallel workers it takes from the server's pool.
-- Its estimates came from the histograms of private columns (whose last
-- bound is the largest value: one user's) and the size of private tables: a
-- red-team helper read a user's salary to the unit from the order of rows
-- that every run releases.  The rows here are in orders that hold whatever
-- the noise; no private value is printed.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS anon_dp;
RESET client_min_messages;

CREATE TABLE pz_codes (code text PRIMARY KEY);
INSERT INTO pz_codes SELECT 'D' || g FROM generate_series(1, 40) g;
SECURITY LABEL FOR anon_dp ON TABLE pz_codes IS 'public';
-- 3,000 users with salaries under 100,000; user 7 earns 987,654
CREATE TABLE pz_people (uid int, diag text, salary int);
INSERT INTO pz_people SELECT u, 'D' || (1 + u % 40), (u * 37) % 100000 FROM generate_series(1, 3000) u;
UPDATE pz_people SET salary = 987654 WHERE uid = 7;
CREATE INDEX pz_people_salary ON pz_people (salary);
SECURITY LABEL FOR anon_dp ON COLUMN pz_people.uid IS 'privacy_unit';
ANALYZE pz_people, pz_codes;
CREATE ROLE pz_analyst;
SECURITY LABEL FOR anon_dp ON ROLE pz_analyst IS 'anonymized';
GRANT SELECT ON pz_codes TO pz_analyst;
SELECT anon_dp_set_budget('pz_analyst', 1000, 1);
-- the superuser's planner still sees the histogram: the largest salary is a bound
SELECT max(b::text::int) = 987654 AS victim_in_histogram
FROM pg_stats, unnest(histogram_bounds::text::text[]) b
WHERE tablename = 'pz_people' AND attname = 'salary';

-- the order of the released rows of a query with public partitions (every
-- code is released every time) as a filter constant moves across the
-- victim's salary, a different table size, and a different row width
CREATE FUNCTION pz_orders(constants int[]) RETURNS int LANGUAGE plpgsql AS $$
DECLARE
    c int;
    h text;
    seen text[] := '{}';
BEGIN
    FOREACH c IN ARRAY constants LOOP
        EXECUTE format('SELECT md5(string_agg(code, '','')) FROM (SELECT d.code, ANON_COUNT(*) FROM pz_codes d '
                       'LEFT JOIN pz_people p ON p.diag = d.code AND p.salary > %s GROUP BY d.code) s', c)
        INTO h;
        IF NOT h = ANY (seen) THEN
            seen := seen || h;
        END IF;
    END LOOP;
    RETURN cardinality(seen);
END $$;
GRANT EXECUTE ON FUNCTION pz_orders(int[]) TO pz_analyst;

SET SESSION AUTHORIZATION pz_analyst;
SET anon_dp.epsilon = 0.01;
SELECT pz_orders(ARRAY[0, 50000, 600000, 835000, 900000, 960000, 987654, 1000000]) AS orders_as_salary_filter_moves;
RESET SESSION AUTHORIZATION;
-- 100 times the rows, same statistics
INSERT INTO pz_people SELECT 100000 + u, 'D' || (1 + u % 40), u % 1000 FROM generate_series(1, 300000) u;
VACUUM pz_people;
SET SESSION AUTHORIZATION pz_analyst;
SET anon_dp.epsilon = 0.01;
SELECT pz_orders(ARRAY[0, 50000, 600000, 835000, 900000, 960000, 987654, 1000000]) AS orders_with_100x_rows;
RESET SESSION AUTHORIZATION;

-- the size the planner sees: whether a scan of a private table gets parallel
-- workers (which a second session can count: the pool is the server's) is
-- decided on a constant size, 1,000 pages, not on the table's (here 2,000
-- rows: a few pages, below min_parallel_table_scan_size = 1MB, so serial
-- if the real size were used).  Seen from this session while the
-- analyst's query runs, through dblink
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS dblink;
RESET client_min_messages;
CREATE TABLE pz_small (uid int, x int);
INSERT INTO pz_small SELECT u, u % 7 FROM generate_series(1, 2000) u;
SECURITY LABEL FOR anon_dp ON COLUMN pz_small.uid IS 'privacy_unit';
ANALYZE pz_small;
-- a millisecond a row: the query's processes live for a second or two
CREATE FUNCTION pz_slow(int) RETURNS int VOLATILE PARALLEL SAFE LANGUAGE plpgsql
AS $$BEGIN PERFORM pg_sleep(0.001); RETURN $1; END$$;
SECURITY LABEL FOR anon_dp ON FUNCTION pz_slow(int) IS 'trusted';
ALTER ROLE pz_analyst LOGIN;
SELECT dblink_connect('pz', format('host=%s port=%s dbname=%s user=pz_analyst',
    split_part(current_setting('unix_socket_directories'), ',', 1),
    current_setting('port'), current_database()));
SELECT dblink_exec('pz', 'SET anon_dp.epsilon = 0.01');
SELECT dblink_exec('pz', 'SET max_parallel_workers_per_gather = 2');
SELECT dblink_exec('pz', 'SET parallel_setup_cost = 0');
SELECT dblink_exec('pz', 'SET parallel_tuple_cost = 0');
SELECT dblink_exec('pz', 'SET min_parallel_table_scan_size = ''1MB''');
CREATE FUNCTION pz_workers_seen() RETURNS bool LANGUAGE plpgsql AS $$
DECLARE
    leader int := (SELECT pid FROM pg_stat_activity WHERE usename = 'pz_analyst'
                   AND backend_type = 'client backend');
    seen bool := false;
BEGIN
    PERFORM dblink_send_query('pz', 'SELECT ANON_COUNT(*)::text FROM pz_small WHERE pz_slow(uid) > 0');
    FOR i IN 1 .. 200 LOOP
        PERFORM pg_stat_clear_snapshot();
        IF EXISTS (SELECT FROM pg_stat_activity WHERE leader_pid = leader
                   AND backend_type = 'parallel worker') THEN
            seen := true;
        END IF;
        EXIT WHEN seen OR dblink_is_busy('pz') = 0;
        PERFORM pg_sleep(0.05);
    END LOOP;
    PERFORM * FROM dblink_get_result('pz') AS t(v text);
    PERFORM * FROM dblink_get_result('pz') AS t(v text);
    RETURN seen;
END $$;
SELECT pz_workers_seen() AS parallel_on_the_constant_size;
SELECT dblink_disconnect('pz');
DROP FUNCTION pz_workers_seen(), pz_slow(int);
DROP TABLE pz_small;
DROP EXTENSION dblink;

-- the session's own temporary tables hold only what it wrote (released rows,
-- public rows): the planner and the catalogs show their sizes and statistics,
-- while a private table of the same size stays at the constant one
SET SESSION AUTHORIZATION pz_analyst;
CREATE TEMP TABLE pz_mine AS SELECT g AS k FROM generate_series(1, 5000) g;
ANALYZE pz_mine;
SELECT reltuples AS own_temp_tuples FROM pg_class WHERE oid = 'pz_mine'::regclass;
SELECT count(*) > 0 AS own_temp_statistics FROM pg_stats WHERE tablename = 'pz_mine';
SELECT reltuples AS private_tuples FROM pg_class WHERE oid = 'pz_people'::regclass;
DROP TABLE pz_mine;
RESET SESSION AUTHORIZATION;

-- a session that is not anonymized plans with what it sees (its orders are
-- not printed: they depend on the hash table's size, which may change)
SELECT pz_orders(ARRAY[0, 1000000]) BETWEEN 1 AND 2 AS superuser_planned;

DROP FUNCTION pz_orders(int[]);
DROP TABLE pz_people, pz_codes;
DELETE FROM anon_dp_budgets WHERE role::text = 'pz_analyst';
DROP OWNED BY pz_analyst;
DROP ROLE pz_analyst;
