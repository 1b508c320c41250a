-- allow_list: inside an anonymization query an anonymized role may use only
-- what is enumerated (doc/access.md, "The allow-list"; issue 30).  Each class
-- of issue 30 is tried in variants of its own, then the amplified-timing
-- class (arguments that must be constants), the casts and types, and what
-- stays allowed.  Printed results are refusals or facts that hold whatever
-- the noise: never a private value.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS anon_dp;
RESET client_min_messages;

CREATE TABLE al_people AS
SELECT u AS uid, lpad(u::text, 3, '0') || '-45-6789' AS ssn, 'diagnosis ' || (u % 7) AS diagnosis,
       1000 * u AS salary, date '2000-01-01' + u AS born,
       timestamptz '2024-01-01 00:00+00' + u * interval '1 hour' AS seen,
       jsonb_build_object('city', 'c' || (u % 5), 'age', 20 + u % 50) AS data,
       ARRAY['t' || (u % 3), 't' || (u % 4)] AS tags, (u % 5)::text AS small, 'Europe/Paris' AS zone
FROM generate_series(1, 1000) u;
SECURITY LABEL FOR anon_dp ON COLUMN al_people.uid IS 'privacy_unit';
CREATE TABLE al_pub (k int PRIMARY KEY, v text);
INSERT INTO al_pub SELECT g, 'v' || g FROM generate_series(1, 100) g;
SECURITY LABEL FOR anon_dp ON TABLE al_pub IS 'public';
CREATE ROLE al_analyst;
GRANT SELECT ON al_pub TO al_analyst;
SECURITY LABEL FOR anon_dp ON ROLE al_analyst IS 'anonymized';
SET anon_dp.max_epsilon = 1000;
SELECT anon_dp_set_budget('al_analyst', 1000000, 1);
CREATE SCHEMA al_own;
GRANT USAGE, CREATE ON SCHEMA al_own TO al_analyst;
SET SESSION AUTHORIZATION al_analyst;
SET anon_dp.epsilon = 100;
-- the analyst's own objects: a domain whose CHECK runs its code, an enum, a
-- composite, a range over its own function
CREATE FUNCTION al_own.spy(x text) RETURNS bool LANGUAGE plpgsql
    AS $$ BEGIN PERFORM set_config('al.seen', x, false); RETURN true; END $$;
CREATE DOMAIN al_own.watched AS text CHECK (al_own.spy(VALUE));
CREATE TYPE al_own.mood AS ENUM ('0', '1', '2', '3', '4');
CREATE TYPE al_own.pair AS (a int, b al_own.watched);

-- ==== class 1: a built-in that takes a catalog OID as data (and may lock it) ====
-- (a relation OID computed from a private value, the lock read back later)
SELECT ANON_COUNT(*) FROM al_people WHERE satisfies_hash_partition(16384 + uid, 1, 0, uid) IS NULL;
SELECT ANON_COUNT(*) FROM al_people WHERE pg_relation_size((16384 + uid)::oid::regclass) > 0;
SELECT ANON_COUNT(*) FROM al_people WHERE pg_get_viewdef((16384 + salary % 100)::oid) IS NULL;
SELECT ANON_COUNT(*) FROM al_people WHERE format_type((uid % 3000)::oid, NULL) = 'integer';
SELECT ANON_COUNT(*) FROM al_people WHERE to_regclass(diagnosis) IS NULL;
SELECT ANON_COUNT(*) FROM al_people WHERE diagnosis::regclass IS NULL;
SELECT ANON_COUNT(*) FROM al_people WHERE pg_table_is_visible(uid) IS NULL;
SELECT ANON_COUNT(*) FROM al_people WHERE has_table_privilege(diagnosis, 'SELECT');
SELECT ANON_COUNT(*) FROM al_people WHERE pg_describe_object(1259, uid, 0) IS NULL;
SELECT ANON_COUNT(*) FROM al_people WHERE col_description(uid, 1) IS NULL;
SELECT ANON_COUNT(*) FROM al_people WHERE pg_partition_root(uid) IS NULL;
SELECT ANON_COUNT(*) FROM al_people WHERE pg_try_advisory_lock(uid) IS NULL;
SELECT ANON_COUNT(*) FROM al_people WHERE pg_advisory_xact_lock_shared(uid) IS NULL;
SELECT ANON_COUNT(*) FROM al_people WHERE lo_get(uid) IS NULL;
SELECT ANON_COUNT(*) FROM al_people WHERE pg_filenode_relation(0, uid) IS NULL;
SELECT ANON_COUNT(*) FROM al_people WHERE pg_column_size(ssn) > 0;

-- ==== class 2: type input functions that take a type OID, and types the analyst made ====
SELECT ANON_COUNT(*) FROM al_people WHERE domain_in(ssn::cstring, 'al_own.watched'::regtype, -1) IS NULL;
SELECT ANON_COUNT(*) FROM al_people WHERE array_in(('{' || ssn || '}')::cstring, 'al_own.watched'::regtype, -1) IS NULL;
SELECT ANON_COUNT(*) FROM al_people WHERE record_in(('(1,' || ssn || ')')::cstring, 'al_own.pair'::regtype, -1) IS NULL;
SELECT ANON_COUNT(*) FROM al_people WHERE range_in(('[1,' || uid || ')')::cstring, 'int4range'::regtype, -1) IS NULL;
SELECT ANON_COUNT(*) FROM al_people WHERE multirange_in(('{[1,' || uid || ')}')::cstring, 'int4multirange'::regtype, -1) IS NULL;
SELECT ANON_COUNT(*) FROM al_people WHERE enum_in(small::cstring, 'al_own.mood'::regtype) IS NULL;
SELECT ANON_COUNT(*) FROM al_people WHERE int4in(small::cstring) > 0;
SELECT ANON_COUNT(*) FROM al_people WHERE jsonb_populate_record(NULL::al_own.pair, data) IS NULL;
SELECT ANON_COUNT(*) FROM al_people WHERE json_populate_record(NULL::al_own.pair, data::json) IS NULL;
SELECT ANON_COUNT(*) FROM al_people WHERE ssn::al_own.watched IS NULL;
SELECT ANON_COUNT(*) FROM al_people WHERE ARRAY[ssn]::al_own.watched[] IS NULL;
SELECT ANON_COUNT(*) FROM al_people WHERE (uid, ssn)::al_own.pair IS NULL;
SELECT ANON_COUNT(*) FROM al_people WHERE small::al_own.mood IS NULL;
SELECT ANON_COUNT(*) FROM al_people WHERE row_to_json(ROW(uid, ssn)::al_own.pair) IS NULL;
SELECT ANON_COUNT(*) FROM al_people WHERE to_jsonb(NULL::al_own.watched) IS NULL;
-- built-in types off the list
SELECT ANON_COUNT(*) FROM al_people WHERE ('{[1,' || uid || ')}')::int4multirange IS NULL;
SELECT ANON_COUNT(*) FROM al_people WHERE diagnosis::jsonpath IS NULL;
SELECT ANON_COUNT(*) FROM al_people WHERE diagnosis::tsvector IS NULL;
SELECT ANON_COUNT(*) FROM al_people WHERE diagnosis::xml IS NULL;
SELECT ANON_COUNT(*) FROM al_people WHERE salary::money > '0';
SELECT ANON_COUNT(*) FROM al_people WHERE point(uid, uid) IS NULL;
SELECT ANON_COUNT(*) FROM al_people WHERE diagnosis::name IS NULL;
SELECT ANON_COUNT(*) FROM al_people WHERE small::regtype IS NULL;
SELECT ANON_COUNT(*) FROM al_people WHERE small::pg_lsn IS NULL;

-- ==== class 3: built-ins that read or latch transaction, session or server state ====
SELECT ANON_COUNT(*) FROM al_people WHERE age(uid::text::xid) > 0;
SELECT ANON_COUNT(*) FROM al_people WHERE CASE WHEN uid = 42 THEN mxid_age('1') > 0 END;
SELECT ANON_COUNT(*) FROM al_people WHERE CASE WHEN uid = 42 THEN txid_current_if_assigned() IS NULL END;
SELECT ANON_COUNT(*) FROM al_people WHERE CASE WHEN uid = 42 THEN pg_current_xact_id_if_assigned() IS NULL END;
SELECT ANON_COUNT(*) FROM al_people WHERE CASE WHEN uid = 42 THEN pg_current_snapshot() IS NULL END;
SELECT ANON_COUNT(*) FROM al_people WHERE CASE WHEN uid = 42 THEN random() > 0.5 END;
SELECT ANON_COUNT(*) FROM al_people WHERE CASE WHEN uid = 42 THEN setseed(0.5) IS NULL END;
SELECT ANON_COUNT(*) FROM al_people WHERE CASE WHEN uid = 42 THEN lastval() > 0 END;
SELECT ANON_COUNT(*) FROM al_people WHERE current_setting(diagnosis, true) IS NULL;
SELECT ANON_COUNT(*) FROM al_people WHERE set_config('al.seen', ssn, false) IS NULL;
SELECT ANON_COUNT(*) FROM al_people WHERE pg_notify('al', ssn) IS NULL;
SELECT ANON_COUNT(*) FROM al_people WHERE CASE WHEN uid = 42 THEN pg_sleep(0) IS NULL END;
SELECT ANON_COUNT(*) FROM al_people WHERE pg_backend_pid() > uid;
SELECT ANON_COUNT(*) FROM al_people WHERE pg_trigger_depth() > uid;
SELECT ANON_COUNT(*) FROM al_people WHERE inet_client_addr() IS NULL;
SELECT ANON_COUNT(*) FROM al_people WHERE version() = diagnosis;
SELECT ANON_COUNT(*) FROM al_people WHERE pg_postmaster_start_time() < seen;
SELECT ANON_COUNT(*) FROM al_people WHERE pg_client_encoding() = diagnosis;
SELECT ANON_COUNT(*) FROM al_people WHERE timeofday() = diagnosis;

-- ==== amplified timing: arguments that choose a call's time or a session cache ====
SELECT ANON_COUNT(*) FROM al_people WHERE length(repeat('x', salary)) > 0;
SELECT ANON_COUNT(*) FROM al_people WHERE length(lpad(ssn, salary)) > 0;
SELECT ANON_COUNT(*) FROM al_people WHERE length(rpad(ssn, uid * 1000, '.')) > 0;
SELECT ANON_COUNT(*) FROM al_people WHERE cardinality(array_fill(0, ARRAY[salary])) > 0;
SELECT ANON_COUNT(*) FROM al_people WHERE factorial(uid) > 0;
SELECT ANON_COUNT(*) FROM al_people WHERE power(10::numeric, salary::numeric) > 0;
SELECT ANON_COUNT(*) FROM al_people WHERE 10::numeric ^ uid::numeric > 0;
SELECT ANON_COUNT(*) FROM al_people WHERE exp(salary::numeric) > 0;
SELECT ANON_COUNT(*) FROM al_people WHERE 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa' ~ ssn;
SELECT ANON_COUNT(*) FROM al_people WHERE 'x' ~* ssn;
SELECT ANON_COUNT(*) FROM al_people WHERE regexp_replace(diagnosis, ssn, '') = '';
SELECT ANON_COUNT(*) FROM al_people WHERE regexp_match(diagnosis, '[0-9]', small) IS NULL;
SELECT ANON_COUNT(*) FROM al_people WHERE diagnosis SIMILAR TO ssn;
-- a literal pattern with a back-reference: matching it takes time that grows
-- steeply with the text, whose length a private value may choose (red team:
-- '^(x*)(x*)(x*)\1\2\3$' over left(repeat('x', 1000), 2 * ascii(...)) read a
-- note by timing); an escaped backslash before a digit, and a replacement's \1,
-- are fine
SELECT ANON_COUNT(*) FROM al_people WHERE left(repeat('x', 1000), 2 * ascii(ssn)) ~ '^(x*)(x*)(x*)\1\2\3$';
SELECT ANON_COUNT(*) FROM al_people WHERE regexp_match(diagnosis, '(d)\1', 'i') IS NULL;
SELECT ANON_COUNT(*) FROM al_people WHERE substring(diagnosis FROM '(s)\1') IS NULL;
SELECT ANON_COUNT(*) > 0 AS escaped_backslash FROM al_people WHERE diagnosis !~ '\\1';
SELECT ANON_COUNT(*) > 0 AS replacement FROM al_people WHERE regexp_replace(diagnosis, '(d)(i)', '\2\1') <> '';
-- the pattern is read after folding (a back-reference built of two literals),
-- and one that is a parameter (of a prepared statement, a PL/pgSQL variable)
-- cannot be read before the query runs: refused
SELECT ANON_COUNT(*) FROM al_people WHERE diagnosis ~ ('^(x*)' || '\1$');
SELECT ANON_COUNT(*) FROM al_people WHERE diagnosis SIMILAR TO '(x*)#1' ESCAPE '#';
PREPARE al_pattern(text) AS SELECT ANON_COUNT(*) FROM al_people WHERE diagnosis ~ $1;
DO $$
DECLARE
    pattern text := '^(x*)\1$';
    n float8;
BEGIN
    SELECT ANON_COUNT(*) INTO n FROM al_people WHERE diagnosis ~ pattern;
END $$;
PREPARE al_literal_pattern(int) AS SELECT ANON_COUNT(*) > $1 AS literal_with_parameter FROM al_people WHERE diagnosis ~ '^d';
EXECUTE al_literal_pattern(0);
DEALLOCATE al_literal_pattern;
SELECT ANON_COUNT(*) FROM al_people WHERE diagnosis ~ ANY (tags);
SELECT ANON_COUNT(*) FROM al_people WHERE substring(diagnosis FROM ssn) IS NULL;
SELECT ANON_COUNT(*) FROM al_people WHERE to_char(seen, diagnosis) IS NULL;
SELECT ANON_COUNT(*) FROM al_people WHERE to_char(salary, ssn) IS NULL;
SELECT ANON_COUNT(*) FROM al_people WHERE to_date(ssn, diagnosis) IS NULL;
SELECT ANON_COUNT(*) FROM al_people WHERE timezone(zone, seen) IS NULL;
SELECT ANON_COUNT(*) FROM al_people WHERE (seen AT TIME ZONE zone) IS NULL;
SELECT ANON_COUNT(*) FROM al_people WHERE date_trunc('day', seen, zone) IS NULL;
-- ... also when the argument is written by name (red team round 6: the check
-- counted arguments as written, so the zone passed as a named argument)
SELECT ANON_COUNT(*) FROM al_people
WHERE make_timestamptz(timezone => zone, year => 2024, month => 1, mday => 1, hour => 0, min => 0, sec => 0) IS NULL;
SELECT ANON_COUNT(*) FROM al_people WHERE make_timestamptz(2024, 1, 1, 0, 0, 0, zone) IS NULL;
-- a unit or flags whose mistake raises an error that is not a data exception
SELECT ANON_COUNT(*) FROM al_people WHERE date_part(small, seen) > 0;
SELECT ANON_COUNT(*) FROM al_people WHERE date_trunc(diagnosis, born) IS NULL;
SELECT ANON_COUNT(*) FROM al_people WHERE numrange(uid, uid + 1, small) IS NULL;
SELECT ANON_COUNT(*) FROM al_people, generate_series(1, salary) g;
SELECT ANON_COUNT(*) FROM al_people WHERE (SELECT count(*) FROM generate_series(1, salary)) > 0;

-- ==== errors that a value chooses, beyond data exceptions (red team) ====
-- they would fail the query (the fixed error) on one user's value: one bit
-- per statement.  Refused where no call could turn them into NULL ...
SELECT ANON_COUNT(*) FROM al_people WHERE 'ab' LIKE ANY (ARRAY[CASE WHEN uid = 42 THEN 'a\' ELSE 'b' END]);
SELECT ANON_COUNT(*) FROM al_people WHERE ARRAY[ARRAY[1], CASE WHEN uid = 42 THEN ARRAY[1, 2] ELSE ARRAY[3] END] IS NULL;
SELECT ANON_COUNT(*) FROM al_people WHERE ARRAY[ROW(uid, '{}'::json)] = ARRAY[ROW(42, '{}'::json)];
SELECT ANON_COUNT(*) FROM al_people WHERE (uid, ssn) IS NULL;
SELECT ANON_COUNT(*) FROM al_people WHERE ARRAY[data::json] IS NULL;
SELECT ANON_COUNT(*) FROM al_people WHERE length(bpchar(small::char, CASE WHEN uid = 42 THEN 2000000 ELSE 1 END, false)) > 0;
SELECT ANON_COUNT(*) FROM al_people WHERE "interval"(interval '1 day', CASE WHEN uid = 42 THEN 0 ELSE -1 END) IS NULL;
SELECT ANON_COUNT(*) FROM (SELECT uid, array_agg(tags) AS t FROM al_people GROUP BY uid) p;
SELECT ANON_COUNT(*) FROM (SELECT uid, jsonb_object_agg(small, uid) AS o FROM al_people GROUP BY uid) p;
SELECT ANON_COUNT(*) FROM (SELECT uid, percentile_cont(uid / 1000.0) WITHIN GROUP (ORDER BY salary) AS m
                           FROM al_people GROUP BY uid) p;
SELECT ANON_COUNT(*) FROM al_people WHERE (SELECT k FROM al_pub WHERE k <= uid % 3) = 1;
SELECT ANON_COUNT(*) FROM al_people WHERE ARRAY(SELECT ARRAY[k, uid] FROM al_pub WHERE k < 3) IS NULL;
-- ... a subquery that returns one row whatever the data stays allowed when
-- it does not depend on the row: it runs once, before the rows
-- (early_subqueries.c); one that depends on the row would run per row and
-- read its table only when a row reaches it, so it may not read a table
-- (red team round 12)
SELECT ANON_COUNT(*) > 900 AS released FROM al_people
WHERE (SELECT v FROM al_pub WHERE k = 1) = 'v1' AND (SELECT max(k) FROM al_pub) > 0;
SELECT ANON_COUNT(*) > 900 AS released FROM al_people
WHERE (SELECT max(k) FROM al_pub WHERE k <= uid) > 0
  AND (SELECT k FROM al_pub WHERE k >= uid % 50 LIMIT 1) IS NOT NULL;
-- ... and NULL for the row where a listed call raises them (SAFE: features
-- not supported for a value, syntax of a value parsed as code)
SELECT ANON_COUNT(*) > 900 AS ran FROM al_people
WHERE num_nulls((CASE WHEN uid = 42 THEN 'NaN'::numeric ELSE uid END)::int,
                unistr(CASE WHEN uid = 42 THEN '\zz' ELSE 'a' END),
                date_bin(CASE WHEN uid = 42 THEN '1 month' ELSE '1 day' END::interval, seen, timestamptz '2024-01-01'),
                array_position(CASE WHEN uid = 42 THEN ARRAY[[1], [2]] ELSE ARRAY[1] END, 1)) >= 0;
-- SAFE in every level that sees a private value, also above a subquery, a
-- WITH query or a view (red team round 2: the argument of ANON_SUM over a
-- subquery was evaluated raw and failed on one user's value), and inside the
-- listed functions written in SQL, whose bodies are inlined and their calls
-- wrapped (a wrapped SQL function kept its state after a caught error and
-- returned NULL for the next row too): every row of the other users counts
SELECT abs(ANON_SUM(ssn::int, 0, 1)) < 5 AS ran FROM (SELECT uid, ssn FROM al_people) s;
WITH w AS (SELECT uid, ssn FROM al_people) SELECT abs(ANON_SUM(ssn::int, 0, 1)) < 5 AS ran FROM w;
SELECT l, abs(ANON_COUNT(*) - 1000 / 3) < 30 AS all_counted
FROM (SELECT uid, log(CASE uid % 3 WHEN 0 THEN 10 WHEN 1 THEN -1 ELSE 100 END::numeric) AS l FROM al_people) s
GROUP BY l ORDER BY l;
-- calls with named arguments and with defaults left out are SAFE too, with
-- the arguments in the function's positions (red team round 5: a named
-- argument handed to the wrapper crashed the backend while planning, and the
-- crash-restart reset the failure counts; a default left out failed)
SELECT ANON_COUNT(*) > 900 AS ran FROM al_people
WHERE make_interval(days => uid, secs => CASE WHEN uid = 42 THEN 'Infinity'::float8 ELSE 1 END) IS NOT NULL
  AND jsonb_set(data, '{age}', to_jsonb(uid)) ->> 'age' = uid::text
  AND jsonb_set(CASE WHEN uid = 42 THEN '[1]' ELSE data END, '{x}', '1', create_if_missing => false) IS NOT NULL
  AND make_interval(0, 0, 0, uid) < interval '3 years';
-- (uid 42's values raise when the same calls are evaluated raw)
SELECT make_interval(days => 42, secs => 'Infinity');
SELECT jsonb_set('[1]', '{x}', '1', create_if_missing => false);
-- a VARIADIC array handed to a variadic "any" parameter cannot be wrapped:
-- refused before anything runs (red team round 5: it was evaluated raw and
-- failed the statement on one user's value); to a parameter of an array
-- type it is an ordinary argument
SELECT anon_dp_failed_statements('al_analyst') AS failed_before_variadic;
SELECT ANON_COUNT(*) FROM al_people
WHERE jsonb_build_object(VARIADIC ARRAY[CASE WHEN uid = 42 THEN NULL ELSE 'k' END, 'v']) IS NOT NULL;
SELECT ANON_COUNT(*) FROM al_people WHERE num_nulls(VARIADIC ARRAY[uid, salary]) = 0;
SELECT anon_dp_failed_statements('al_analyst') AS failed_after_variadic;
SELECT ANON_COUNT(*) > 900 AS ran FROM al_people
WHERE jsonb_extract_path_text(data, VARIADIC ARRAY['city']) LIKE 'c%'
  AND jsonb_build_object('k', uid, 'v', salary) IS NOT NULL;
-- text read into a date or time type names no time zone: the session keeps
-- every zone it loaded, and a later statement can time which (red team round
-- 6 read a salary to the unit from zones named in one query); such a text is
-- NULL before its zone is loaded, also in arrays and ranges, while dates and
-- times with numeric offsets, UTC, GMT or Z and the words of dates are read
SELECT ANON_COUNT(*) < 100 AS zone_names_not_read FROM al_people
WHERE ('2024-01-01 00:00 ' || zone)::timestamptz IS NOT NULL
   OR ('2024-01-01 00:00 ' || CASE WHEN uid > 0 THEN 'GMT+5' END)::timestamptz IS NOT NULL
   OR ('2024-01-01 00:00 ' || CASE WHEN uid > 0 THEN 'EST' END)::timestamp IS NOT NULL
   OR ('12:00 ' || zone)::timetz IS NOT NULL OR ('2024-01-01 ' || zone)::date IS NOT NULL
   OR ('{"2024-01-01 00:00 ' || zone || '"}')::timestamptz[] IS NOT NULL
   OR ('["2024-01-01 00:00 ' || zone || '",)')::tstzrange IS NOT NULL;
SELECT ANON_COUNT(*) > 900 AS dates_and_times_read FROM al_people
WHERE (to_char(seen, 'YYYY-MM-DD HH24:MI') || '+02')::timestamptz IS NOT NULL
  AND (to_char(seen, 'YYYY-MM-DD"T"HH24:MI:SS') || 'Z')::timestamptz IS NOT NULL
  AND (to_char(seen, 'Dy, DD Mon YYYY HH12:MI am') || ' UTC')::timestamptz IS NOT NULL
  AND (CASE WHEN uid > 0 THEN 'infinity' END)::timestamptz IS NOT NULL
  AND ('{"' || born || '", "epoch"}')::date[] IS NOT NULL
  AND ('[' || born || ',' || (born + 1) || ')')::daterange IS NOT NULL;
-- ... also when array or range input would unquote or unescape it into a
-- zone (red team round 7: GMT\+7 and GMT"+7" passed as GMT+7)
SELECT ANON_COUNT(*) < 100 AS escaped_zones_not_read FROM al_people
WHERE ('{"2024-01-01 00:00 GMT\+' || (uid % 9 + 1) || '"}')::timestamptz[] IS NOT NULL
   OR ('[2024-01-01 00:00 GMT"+' || (uid % 9 + 1) || '",)')::tstzrange IS NOT NULL
   OR ('{12:00 SAT-' || (uid % 9 + 1) || '}')::timetz[] IS NOT NULL;
-- a time zone argument is loaded before the query runs (whether a row reaches
-- the call must not decide whether the zone is loaded, red team round 7), so
-- it must be a literal, not a parameter
PREPARE al_zone(text) AS SELECT ANON_COUNT(*) FROM al_people WHERE timezone($1, seen) IS NOT NULL;
SELECT ANON_COUNT(*) > 900 AS literal_zone_loaded_first FROM al_people
WHERE COALESCE(CASE WHEN uid = 42 THEN timezone('Asia/Tokyo', seen) END, 'infinity') IS NOT NULL
  AND date_trunc('day', seen, 'Europe/Oslo') IS NOT NULL;
-- nothing in a statement with an anonymization query may read a clock that
-- moves during it, or run code of the analyst's own that could: it could time
-- what the rows left in the session's caches before they are reset at the end
-- of each step of the query (session_caches.c)
SELECT (SELECT ANON_COUNT(*) > 0 FROM al_people) AS a, clock_timestamp() IS NOT NULL AS c;
SELECT (SELECT ANON_COUNT(*) > 0 FROM al_people) AS a, timeofday() IS NOT NULL AS c;
-- ... nor anything else that moves while it runs: another session's activity
-- read afresh, advisory locks, a sequence (red team round 9 timed a
-- statement by another session's query_start after pg_stat_clear_snapshot())
SELECT (SELECT ANON_COUNT(*) > 0 FROM al_people) AS a, pg_stat_clear_snapshot() IS NULL AS s;
SELECT (SELECT ANON_COUNT(*) > 0 FROM al_people) AS a, pg_try_advisory_lock(7) AS l;
CREATE TEMP SEQUENCE al_ticker;
SELECT (SELECT ANON_COUNT(*) > 0 FROM al_people) AS a, last_value FROM al_ticker;
DROP SEQUENCE al_ticker;
CREATE TEMP VIEW al_clock AS SELECT clock_timestamp() AS c;
SELECT (SELECT ANON_COUNT(*) > 0 FROM al_people) AS a, c IS NOT NULL FROM al_clock;
CREATE FUNCTION al_own.ticks() RETURNS bool LANGUAGE plpgsql AS $$ BEGIN RETURN clock_timestamp() IS NOT NULL; END $$;
SELECT (SELECT ANON_COUNT(*) > 0 FROM al_people) AS a, al_own.ticks() AS t;
CREATE TEMP TABLE al_sink (n bigint);
CREATE FUNCTION al_own.on_insert() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM clock_timestamp(); RETURN NEW; END $$;
CREATE TRIGGER al_sink_insert BEFORE INSERT ON al_sink FOR EACH ROW EXECUTE FUNCTION al_own.on_insert();
INSERT INTO al_sink SELECT ANON_COUNT(*) FROM al_people;
-- in statements of their own they run as usual
SELECT al_own.ticks() AS ticks, clock_timestamp() IS NOT NULL AS clock;
DROP TABLE al_sink;
DROP VIEW al_clock;
DROP FUNCTION al_own.ticks(), al_own.on_insert();
-- constant arrays and one-dimensional arrays stay allowed
SELECT ANON_COUNT(*) > 900 AS released FROM al_people
WHERE diagnosis LIKE ANY (ARRAY['diag%', 'x%']) AND ARRAY[uid, salary] IS NOT NULL
  AND ARRAY[[1, 2], [3, 4]] IS NOT NULL AND uid = ANY (ARRAY[uid, 1]);

-- ==== allowed: the same functions with constants, and ordinary expressions ====
SELECT ANON_COUNT(*) > 900 AS released FROM al_people
WHERE length(repeat(small, 3)) = 3 AND lpad(ssn, 12) <> '' AND rpad(small, 4, '.') <> ''
  AND diagnosis ~ '^diag' AND diagnosis !~* 'x' AND regexp_replace(ssn, '[0-9]', '', 'g') = '--'
  AND diagnosis SIMILAR TO 'diag%' AND substring(ssn FROM '[0-9]+') IS NOT NULL
  AND diagnosis LIKE 'diag%' AND ssn NOT ILIKE 'X%' AND diagnosis ~ ANY (ARRAY['sis', 'zzz'])
  AND to_char(seen, 'YYYY') = '2024' AND to_char(salary, 'FM999999999') <> ''
  AND (seen AT TIME ZONE 'UTC') IS NOT NULL AND date_trunc('day', seen, 'UTC') <= seen
  AND power(2::numeric, 10::numeric) = 1024 AND power(uid::float8, 2) > 0 AND exp(1::numeric) > 2
  AND factorial(5) = 120 AND cardinality(array_fill(small, ARRAY[2])) = 2
  AND date_part('year', born) >= 2000 AND date_trunc('month', born) <= born
  AND numrange(uid, uid + 1, '[]') @> uid::numeric;
SELECT data->>'city' AS city, ANON_COUNT(*) > 40 AS released,
       round(ANON_AVG((data->>'age')::int, 0, 100)) BETWEEN 30 AND 60 AS plausible
FROM al_people
WHERE extract(year FROM born) >= 2000 AND born + interval '1 day' > date '2000-01-01'
  AND coalesce(nullif(trim(both from small), ''), '0') IN ('0', '1', '2', '3', '4')
  AND greatest(uid, 1) > 0 AND (data ? 'age') AND data @> '{}' AND 't0' = ANY (tags)
  AND upper(left(diagnosis, 4)) = 'DIAG' AND concat(small, '-', uid) <> ''
  AND md5(ssn) <> '' AND split_part(ssn, '-', 2) = '45' AND uid::text::numeric > 0
  AND now() >= seen - interval '100 years' AND CASE WHEN salary > 500000 THEN true ELSE salary >= 0 END
GROUP BY data->>'city' ORDER BY city;
-- the argument of a prepared statement is a constant of the statement (a
-- pattern is not: it must be a literal, see the back-references above)
PREPARE al_format(text) AS
SELECT ANON_COUNT(*) > 900 AS released FROM al_people WHERE to_char(born, $1) <> '';
EXECUTE al_format('YYYY');
DEALLOCATE al_format;
-- ... but a size argument is a literal the statement fixes, and a small one
-- (red team round 2: repeat(x, 100000000) in one user's branch, timed by
-- clock_timestamp() in the same query, released the time through the noise)
PREPARE al_size(int) AS SELECT ANON_COUNT(*) FROM al_people WHERE length(repeat(small, $1)) > 0;
SELECT ANON_COUNT(*) FROM al_people WHERE length(repeat(small, 100000000)) > 0;
SELECT ANON_COUNT(*) FROM al_people WHERE length(lpad(ssn, 20000)) > 0;
SELECT ANON_COUNT(*) FROM al_people WHERE cardinality(array_fill(0, ARRAY[200, 200])) > 0;
SELECT ANON_COUNT(*) FROM al_people WHERE factorial(100000) > 0;
SELECT ANON_COUNT(*) FROM al_people WHERE CASE WHEN uid = 42 THEN clock_timestamp() > statement_timestamp() END;
-- ... and a call that multiplies the size of private values makes at most
-- 1 MB: a larger result is rejected (NULL, as a value the call rejects) before
-- it is made.  (Red team: replace() of each letter c of a note by a text 3,000
-- times the note took 0.9 s per occurrence: the note's letters read from
-- timing.)  Without the limit these take minutes (here cut by the timeout)
SET statement_timeout = '20s';
SELECT ANON_COUNT(*) > 900 AS replaced_rejected FROM al_people
WHERE replace(repeat(ssn, 3000), '4', repeat(ssn, 3000)) IS NULL;
SELECT ANON_COUNT(*) > 900 AS nested_repeat_rejected FROM al_people
WHERE repeat(repeat(ssn, 1000), 1000) IS NULL;
SELECT ANON_COUNT(*) > 900 AS regexp_replaced_rejected FROM al_people
WHERE regexp_replace(repeat(ssn, 3000), '4', repeat(ssn, 3000), 'g') IS NULL;
SELECT ANON_COUNT(*) > 900 AS array_fill_rejected FROM al_people
WHERE array_fill(repeat(ssn, 1000), ARRAY[100, 100]) IS NULL;
-- the limit reads the size of a value as the call sees it (a long public
-- text is stored compressed, in a few kB: red team, 20 MB through replace)
RESET SESSION AUTHORIZATION;
INSERT INTO al_pub VALUES (1000, repeat('x', 2000000));
SET SESSION AUTHORIZATION al_analyst;
SET anon_dp.epsilon = 100;
SELECT ANON_COUNT(*) > 900 AS compressed_public_rejected FROM al_people
WHERE replace(ssn, '4', (SELECT v FROM al_pub WHERE k = 1000)) IS NULL;
RESET SESSION AUTHORIZATION;
DELETE FROM al_pub WHERE k = 1000;
SET SESSION AUTHORIZATION al_analyst;
SET anon_dp.epsilon = 100;
-- the functions that walk through every match take a text of at most 4 kB:
-- each match may scan to the text's end, quadratic in its length (red team:
-- 1.5 s per occurrence of a letter, without back-references)
SELECT ANON_COUNT(*) > 900 AS long_subject_rejected FROM al_people
WHERE regexp_count(repeat(ssn, 1000), '4') IS NULL AND regexp_split_to_array(repeat(ssn, 1000), '4') IS NULL;
SELECT ANON_COUNT(*) > 900 AS short_subject_counted FROM al_people
WHERE regexp_count(repeat(ssn, 100), '-') = 200;
-- and a pattern may not look ahead or behind (checked again at every place a
-- match could start: quadratic even for a single match)
SELECT ANON_COUNT(*) FROM al_people WHERE diagnosis ~ 'i(?=[^#]*#)';
SELECT ANON_COUNT(*) FROM al_people WHERE regexp_like(diagnosis, '(?<!x)s');
RESET statement_timeout;
-- the limits are exact: 1 MB (1,048,576 bytes) and 4 kB (4,096 bytes) of a
-- one-character private value are taken, one more repetition is not (the
-- megabyte on 100 users)
SELECT ANON_COUNT(*) > 90 AS megabyte_taken FROM al_people
WHERE uid <= 100 AND length(repeat(repeat(small, 1024), 1024)) = 1048576;
SELECT ANON_COUNT(*) > 90 AS megabyte_and_more_rejected FROM al_people
WHERE uid <= 100 AND repeat(repeat(small, 1024), 1025) IS NULL;
SELECT ANON_COUNT(*) > 900 AS four_kb_taken FROM al_people
WHERE regexp_count(repeat(small, 4096), '[0-9]') = 4096;
SELECT ANON_COUNT(*) > 900 AS four_kb_and_more_rejected FROM al_people
WHERE regexp_count(repeat(small, 4097), '[0-9]') IS NULL;
-- within the limit they run as before
SELECT ANON_COUNT(*) > 900 AS within_limit FROM al_people
WHERE replace(ssn, '-', '') <> '' AND length(repeat(ssn, 1000)) = 11000
  AND regexp_replace(ssn, '(\d)', '\1\1', 'g') <> '' AND cardinality(array_fill(ssn, ARRAY[10])) = 10;
-- ... but not a subquery over private rows
SELECT ANON_COUNT(*) FROM al_people WHERE diagnosis ~ (SELECT min(ssn) FROM al_people);
-- an aggregate's support function is reached through the aggregate only
SELECT ANON_COUNT(*) FROM al_people WHERE int4_sum(0::bigint, uid) > 0;
-- sort and group operators of a per-user subquery are on the list
SELECT ANON_COUNT(*) > 900 AS released
FROM (SELECT uid, max(born) AS last_birth, string_agg(small, ',' ORDER BY small) AS s
      FROM al_people GROUP BY uid) per_user
WHERE last_birth > date '1999-01-01' AND s <> '';

-- ==== no plans and no planner messages of statements over private rows ====
-- (red team round 2: debug_print_plan printed the planner's row estimates, and
-- EXPLAIN (COSTS OFF) plans compared as a constant moved revealed the
-- histogram of a private column: its largest value is one user's)
SET debug_print_plan = on;
SET client_min_messages = log;
SELECT ANON_COUNT(*) > 900 AS released FROM al_people WHERE salary > 0;
RESET debug_print_plan;
RESET client_min_messages;
EXPLAIN (COSTS OFF) SELECT ANON_COUNT(*) FROM al_people WHERE salary < 100500;
EXPLAIN (COSTS OFF) SELECT k FROM al_pub;

-- ==== a function named like one of anon_dp's in its schema is not anon_dp's ====
-- (red team: with CREATE on the extension's schema, as databases created
-- before PostgreSQL 15 grant it to PUBLIC, an analyst's anon_dp_tau(text)
-- passed as an analysts' function of anon_dp and kept every row it saw)
RESET SESSION AUTHORIZATION;
GRANT CREATE ON SCHEMA public TO al_analyst;
SET SESSION AUTHORIZATION al_analyst;
SET anon_dp.epsilon = 100;
CREATE FUNCTION public.anon_dp_tau(x text) RETURNS float8 LANGUAGE plpgsql
    AS $$ BEGIN PERFORM set_config('al.stolen', x, false); RETURN 1; END $$;
SELECT ANON_COUNT(*) FROM al_people WHERE anon_dp_tau(ssn) > 0;
SELECT current_setting('al.stolen', true) IS NULL AS nothing_kept;
DROP FUNCTION public.anon_dp_tau(text);
RESET SESSION AUTHORIZATION;
REVOKE CREATE ON SCHEMA public FROM al_analyst;
SET SESSION AUTHORIZATION al_analyst;
SET anon_dp.epsilon = 100;

-- ==== counters, sizes and locks however the call is reached ====
-- (red team: a BEGIN ATOMIC body is inlined after the statement was checked,
-- and a domain's CHECK, a table's CHECK or a column default are never in a
-- statement: pg_stat_get_xact_tuples_returned of a public index gave the exact
-- number of index rows a join over private rows had walked, two digits of a
-- user's SSN per query.  Every call is now checked when PostgreSQL prepares it.)
CREATE FUNCTION al_own.idx_reads(r regclass) RETURNS bigint LANGUAGE sql
BEGIN ATOMIC SELECT pg_stat_get_xact_tuples_returned(r); END;
SELECT al_own.idx_reads('al_people');
CREATE FUNCTION al_own.size_of(r regclass) RETURNS bigint LANGUAGE sql
BEGIN ATOMIC SELECT pg_relation_size(r); END;
SELECT al_own.size_of('al_people');
CREATE FUNCTION al_own.locks() RETURNS bigint LANGUAGE sql
BEGIN ATOMIC SELECT count(*) FROM pg_lock_status() l; END;
SELECT al_own.locks();
CREATE DOMAIN al_own.spy_count AS int CHECK (set_config('al.n', pg_stat_get_numscans('al_people'::regclass)::text, false) IS NOT NULL);
SELECT 1::al_own.spy_count;
CREATE TEMP TABLE al_checked (x int CHECK (pg_stat_get_numscans('al_people'::regclass) >= 0));
INSERT INTO al_checked VALUES (1);
CREATE TEMP TABLE al_defaulted (x int, n bigint DEFAULT pg_stat_get_numscans('al_people'::regclass));
INSERT INTO al_defaulted (x) VALUES (1);
DROP TABLE al_checked, al_defaulted;
-- ... also in a parallel worker, where a body that is not inlined runs alone
-- (red team round 2: the checks returned early in workers)
CREATE FUNCTION al_own.scans_in_worker(o oid) RETURNS bigint LANGUAGE sql STABLE PARALLEL SAFE
BEGIN ATOMIC SELECT pg_stat_get_numscans(o) FROM (VALUES (1)) v; END;
CREATE FUNCTION al_own.reltuples_in_worker(o oid) RETURNS real LANGUAGE sql STABLE PARALLEL SAFE
BEGIN ATOMIC SELECT reltuples FROM pg_class WHERE oid = o; END;
SET force_parallel_mode = on;
SET parallel_leader_participation = off;
SELECT al_own.scans_in_worker('al_people'::regclass);
SELECT al_own.reltuples_in_worker('al_people'::regclass);
RESET force_parallel_mode;
RESET parallel_leader_participation;
-- in the statement itself the sizes are masked: the public table's shows
SELECT pg_relation_size('al_people') AS private_size, pg_relation_size('al_pub') > 0 AS public_size,
       pg_total_relation_size('al_pub') >= pg_relation_size('al_pub', 'main') AS total_size;
-- every cumulative statistics counter, however reached (a body per function;
-- arguments that are not NULL: a strict call of NULL is folded away unplanned)
DO $$
DECLARE
  f regprocedure;
  refused int := 0;
  ran int := 0;
BEGIN
  FOR f IN SELECT p.oid::regprocedure FROM pg_proc p
           WHERE p.pronamespace = 'pg_catalog'::regnamespace AND NOT p.proretset
             AND (p.proname LIKE 'pg\_stat\_get\_%' OR p.proname = 'pg_stat_have_stats')
             AND p.proname <> 'pg_stat_get_activity' AND p.proname NOT LIKE 'pg\_stat\_get\_backend\_%'
  LOOP
    EXECUTE format('CREATE OR REPLACE FUNCTION al_own.probe() RETURNS text LANGUAGE sql BEGIN ATOMIC SELECT %s(%s)::text; END',
                   split_part(f::text, '(', 1),
                   (SELECT coalesce(string_agg(CASE t WHEN 'oid'::regtype THEN '''al_people''::regclass::oid'
                                                       WHEN 'text'::regtype THEN '''x''::text'
                                                       ELSE format('1::%s', t::regtype) END, ', '), '')
                    FROM unnest((SELECT proargtypes::oid[]::regtype[] FROM pg_proc WHERE oid = f)) t));
    BEGIN
      PERFORM al_own.probe();
      ran := ran + 1;
      RAISE NOTICE 'not refused: %', f;
    EXCEPTION WHEN insufficient_privilege THEN
      refused := refused + 1;
    END;
  END LOOP;
  RAISE NOTICE 'statistics functions refused when called from a body: % of %', refused, refused + ran;
END $$;
DROP FUNCTION al_own.probe();

-- ==== a superuser vouches for a function left out ====
RESET SESSION AUTHORIZATION;
SECURITY LABEL FOR anon_dp ON FUNCTION format(text, VARIADIC "any") IS 'trusted';
SECURITY LABEL FOR anon_dp ON FUNCTION repeat(text, integer) IS 'trusted';
SET SESSION AUTHORIZATION al_analyst;
SET anon_dp.epsilon = 100;
SELECT ANON_COUNT(*) > 900 AS released FROM al_people
WHERE format('%s-%s', small, uid) <> '' AND length(repeat('x', uid % 3)) < 3;
RESET SESSION AUTHORIZATION;
SECURITY LABEL FOR anon_dp ON FUNCTION format(text, VARIADIC "any") IS NULL;
SECURITY LABEL FOR anon_dp ON FUNCTION repeat(text, integer) IS NULL;
SET SESSION AUTHORIZATION al_analyst;
SET anon_dp.epsilon = 100;
SELECT ANON_COUNT(*) FROM al_people WHERE format('%s-%s', small, uid) <> '';
-- the list as analysts see it
SELECT category, count(*) > 0 AS listed FROM anon_dp_allow_list()
WHERE kind = 'function' GROUP BY category ORDER BY category;

-- ==== failed statements are counted, and bounded per role ====
-- (red team round 2: with a tiny epsilon and PL/pgSQL handlers, failures were
-- a free one-bit channel, 74 probes for an SSN.)  A per-user sum that
-- overflows still fails on one user's value; after anon_dp.max_failed_statements
-- failures the role's anonymization queries are suspended until a data owner
-- resets the count
RESET SESSION AUTHORIZATION;
SET anon_dp.max_failed_statements = 2;   -- a data owner's setting (ALTER ROLE ... SET)
SET SESSION AUTHORIZATION al_analyst;
SET anon_dp.epsilon = 100;
SET anon_dp.max_failed_statements = 1000;
SELECT anon_dp_failed_statements('al_analyst') AS failed_before;
DO $$
BEGIN
  FOR i IN 1 .. 3 LOOP
    BEGIN
      PERFORM ANON_COUNT(*) FROM (SELECT uid, sum(CASE WHEN uid = 42 THEN 1e308 ELSE 0 END::float8) AS s
                                  FROM al_people, (VALUES (1), (2)) v(n) GROUP BY uid) p WHERE s >= 0;
      RAISE NOTICE 'probe % ran', i;
    EXCEPTION WHEN OTHERS THEN
      RAISE NOTICE 'probe %: %', i, SQLERRM;
    END;
  END LOOP;
END $$;
SELECT anon_dp_failed_statements('al_analyst') AS failed_after;
SELECT ANON_COUNT(*) > 900 AS released FROM al_people;
SELECT anon_dp_reset_failures('al_analyst');
RESET SESSION AUTHORIZATION;
SELECT anon_dp_reset_failures('al_analyst');
RESET anon_dp.max_failed_statements;
SET SESSION AUTHORIZATION al_analyst;
SET anon_dp.epsilon = 100;
SELECT anon_dp_failed_statements('al_analyst') AS failed_after_reset,
       (SELECT ANON_COUNT(*) > 900 FROM al_people) AS released;

-- ==== errors and cancels while an anonymization statement is planned ====
-- The planner applies the statement's operators to the most common values and
-- histogram bounds of private columns (a pattern match on each) and folds
-- immutable calls: how long planning takes can depend on private values, and
-- a statement_timeout tells whether it ran long.  A function a superuser
-- vouched for that sleeps stands in for a slow pattern match here; the
-- failure is counted (it was not when the cancel came during planning)
RESET SESSION AUTHORIZATION;
CREATE FUNCTION al_slow_constant(int) RETURNS int IMMUTABLE LANGUAGE plpgsql
AS $$BEGIN PERFORM pg_sleep(10); RETURN $1; END$$;
SECURITY LABEL FOR anon_dp ON FUNCTION al_slow_constant(int) IS 'trusted';
CREATE FUNCTION al_failing_constant(int) RETURNS int IMMUTABLE LANGUAGE plpgsql
AS $$BEGIN RAISE EXCEPTION 'al_failing_constant saw %', $1; END$$;
SECURITY LABEL FOR anon_dp ON FUNCTION al_failing_constant(int) IS 'trusted';
SET SESSION AUTHORIZATION al_analyst;
SET anon_dp.epsilon = 100;
SELECT anon_dp_failed_statements('al_analyst') AS failed_before;
SET statement_timeout = '300ms';
SELECT ANON_COUNT(*) FROM al_people WHERE salary < al_slow_constant(10);
RESET statement_timeout;
SELECT anon_dp_failed_statements('al_analyst') AS failed_after_cancelled_planning;
-- an error while planning is the one fixed error, and counted (the planner's
-- estimates run the statement's operators on private values; here a vouched
-- function folded at planning stands in for one that fails on such a value)
SELECT ANON_COUNT(*) FROM al_people WHERE salary < al_failing_constant(7);
SELECT anon_dp_failed_statements('al_analyst') AS failed_after_planning_error;
-- constant arguments of a sampling method are checked before the statement
-- runs, with the method's own error: they say nothing about a user, so they
-- are neither the fixed error nor counted (red team round 3 noted them)
SELECT ANON_COUNT(*) FROM al_people TABLESAMPLE anon_reservoir(0);
SELECT ANON_COUNT(*) FROM al_people TABLESAMPLE SYSTEM (200);
SELECT ANON_COUNT(*) FROM al_people TABLESAMPLE BERNOULLI (-1);
SELECT ANON_COUNT(*) FROM al_people TABLESAMPLE SYSTEM (1e-300);
SELECT ANON_COUNT(*) FROM al_people TABLESAMPLE BERNOULLI (NULL);
SELECT ANON_COUNT(*) FROM al_people TABLESAMPLE SYSTEM (50) REPEATABLE (NULL);
SELECT anon_dp_failed_statements('al_analyst') AS failed_after_sampling_constants;
RESET SESSION AUTHORIZATION;
SELECT anon_dp_reset_failures('al_analyst');
DROP FUNCTION al_slow_constant(int), al_failing_constant(int);
SET SESSION AUTHORIZATION al_analyst;

-- ==== outside anonymization queries nothing private is within reach ====
SELECT length(repeat('x', 3)) AS plain, format('%s', 1) AS formatted;

RESET SESSION AUTHORIZATION;
RESET anon_dp.max_epsilon;
DROP SCHEMA al_own CASCADE;
DELETE FROM anon_dp_budgets WHERE role = 'al_analyst'::regrole;
DELETE FROM anon_dp_ledger WHERE role = 'al_analyst'::regrole;
DROP TABLE al_people, al_pub;
SECURITY LABEL FOR anon_dp ON ROLE al_analyst IS NULL;
DROP ROLE al_analyst;
