-- tests/sqlsmith/schema.sql -- the database the fuzzers run against
-- (tests/sqlsmith/run, doc/fuzz-sqlsmith.md).
--
-- Run by a superuser in a fresh database.  Private tables with users owning
-- several rows, NULL, NaN and +-Infinity values and numeric, text, date,
-- timestamp, boolean and array columns (privacy units of type bigint, int,
-- text and uuid, one partitioned table); public tables and views over both
-- kinds; one unlabelled table.  Two login roles: fz_plain (not anonymized,
-- may read everything) and fz_analyst (anonymized: public tables only, anon_dp
-- lends the private ones to its anonymization queries).

\set ON_ERROR_STOP 1
SET client_min_messages = warning;

CREATE EXTENSION anon_dp;

-- ---- private tables ----
CREATE TABLE fz_events (
	uid bigint,
	g int,
	label text,
	day date,
	amount numeric,
	score float8,
	ratio real,
	hits int,
	flag bool,
	at timestamptz,
	tags text[],
	nums int[]
);
INSERT INTO fz_events
SELECT CASE WHEN r % 97 = 0 THEN NULL ELSE (r * 7919) % 211 END,
	   r % 13,
	   CASE WHEN r % 11 = 0 THEN NULL ELSE (ARRAY['alpha', 'beta', 'gamma', '', 'Ünïcödé', 'x y'])[1 + r % 6] END,
	   CASE r % 17 WHEN 0 THEN 'infinity'::date WHEN 1 THEN '-infinity'::date WHEN 2 THEN NULL
		   ELSE date '2020-01-01' + (r % 400) END,
	   CASE r % 19 WHEN 0 THEN 'NaN'::numeric WHEN 1 THEN NULL WHEN 2 THEN 1e30 WHEN 3 THEN -1e30
		   ELSE round((r % 1000)::numeric / 7, 3) END,
	   CASE r % 23 WHEN 0 THEN 'NaN'::float8 WHEN 1 THEN 'Infinity'::float8 WHEN 2 THEN '-Infinity'::float8
		   WHEN 3 THEN NULL WHEN 4 THEN 1e308 WHEN 5 THEN -0.0 ELSE (r % 200) / 3.0 END,
	   CASE r % 29 WHEN 0 THEN 'NaN'::real WHEN 1 THEN 'Infinity'::real WHEN 2 THEN NULL ELSE (r % 50)::real / 4 END,
	   CASE r % 31 WHEN 0 THEN NULL WHEN 1 THEN 2147483647 WHEN 2 THEN -2147483648 ELSE r % 100 END,
	   CASE r % 5 WHEN 0 THEN NULL ELSE r % 2 = 0 END,
	   CASE r % 37 WHEN 0 THEN 'infinity'::timestamptz WHEN 1 THEN NULL
		   ELSE timestamptz '2021-06-01 00:00+00' + (r % 1000) * interval '1 hour' END,
	   CASE r % 7 WHEN 0 THEN NULL WHEN 1 THEN '{}'::text[] ELSE ARRAY['t' || (r % 5), 't' || (r % 3)] END,
	   CASE r % 9 WHEN 0 THEN NULL WHEN 1 THEN ARRAY[NULL::int] ELSE ARRAY[r % 4, r % 6, r] END
  FROM generate_series(1, 3000) AS r;
SECURITY LABEL FOR anon_dp ON COLUMN fz_events.uid IS 'privacy_unit';

CREATE TABLE fz_profiles (
	uid bigint,
	country text,
	age int,
	income numeric(12, 2),
	signup date,
	premium bool
);
INSERT INTO fz_profiles
SELECT CASE WHEN u = 0 THEN NULL ELSE u END,
	   (ARRAY['de', 'fr', 'us', NULL, 'jp'])[1 + u % 5],
	   CASE WHEN u % 13 = 0 THEN NULL ELSE 18 + u % 60 END,
	   CASE WHEN u % 17 = 0 THEN NULL ELSE (u * 131 % 100000)::numeric / 3 END,
	   date '2019-01-01' + u * 3,
	   u % 4 = 0
  FROM generate_series(0, 220) AS u;
-- some users own several profile rows
INSERT INTO fz_profiles SELECT uid, 'ch', age + 1, income, signup, NOT premium FROM fz_profiles WHERE uid % 10 = 3;
SECURITY LABEL FOR anon_dp ON COLUMN fz_profiles.uid IS 'privacy_unit';

CREATE TABLE fz_accounts (
	email text,
	plan text,
	seats int,
	balance float8,
	opened date
);
INSERT INTO fz_accounts
SELECT 'user' || (r % 150) || '@example.org',
	   (ARRAY['free', 'pro', 'team'])[1 + r % 3],
	   CASE WHEN r % 8 = 0 THEN NULL ELSE r % 40 END,
	   CASE r % 10 WHEN 0 THEN 'NaN' WHEN 1 THEN '-Infinity' ELSE r * 1.5 END,
	   date '2022-01-01' + r % 90
  FROM generate_series(1, 900) AS r;
SECURITY LABEL FOR anon_dp ON COLUMN fz_accounts.email IS 'privacy_unit';

CREATE TABLE fz_devices (
	owner uuid,
	kind text,
	battery numeric,
	seen timestamp
);
INSERT INTO fz_devices
SELECT ('00000000-0000-0000-0000-' || lpad(to_hex(r % 120), 12, '0'))::uuid,
	   (ARRAY['phone', 'tablet', 'watch'])[1 + r % 3],
	   CASE WHEN r % 6 = 0 THEN 'NaN' ELSE (r % 101)::numeric END,
	   timestamp '2023-03-01' + r * interval '17 minutes'
  FROM generate_series(1, 700) AS r;
SECURITY LABEL FOR anon_dp ON COLUMN fz_devices.owner IS 'privacy_unit';

CREATE TABLE fz_parted (uid int, region int, v float8) PARTITION BY HASH (uid);
CREATE TABLE fz_parted_0 PARTITION OF fz_parted FOR VALUES WITH (MODULUS 2, REMAINDER 0);
CREATE TABLE fz_parted_1 PARTITION OF fz_parted FOR VALUES WITH (MODULUS 2, REMAINDER 1);
INSERT INTO fz_parted
SELECT r % 180, r % 7, CASE WHEN r % 15 = 0 THEN 'Infinity' ELSE r / 10.0 END
  FROM generate_series(1, 1500) AS r;
SECURITY LABEL FOR anon_dp ON COLUMN fz_parted.uid IS 'privacy_unit';

-- ---- public tables ----
CREATE TABLE fz_countries (code text PRIMARY KEY, name text, population bigint);
INSERT INTO fz_countries VALUES ('de', 'Germany', 83000000), ('fr', 'France', 68000000),
	('us', 'United States', 333000000), ('jp', 'Japan', NULL), ('ch', 'Switzerland', 8700000);
SECURITY LABEL FOR anon_dp ON TABLE fz_countries IS 'public';

CREATE TABLE fz_labels (label text, category int, weight numeric);
INSERT INTO fz_labels VALUES ('alpha', 1, 0.5), ('beta', 2, 'NaN'), ('gamma', 1, NULL), ('', 3, 2), (NULL, 4, 1);
SECURITY LABEL FOR anon_dp ON TABLE fz_labels IS 'public';

CREATE TABLE fz_calendar (day date, weekday int, holiday bool);
INSERT INTO fz_calendar SELECT d::date, extract(isodow FROM d)::int, extract(day FROM d) = 1
  FROM generate_series(date '2020-01-01', date '2021-12-31', interval '1 day') AS d;
SECURITY LABEL FOR anon_dp ON TABLE fz_calendar IS 'public';

-- ---- unlabelled ----
CREATE TABLE fz_unlabelled (uid bigint, note text);
INSERT INTO fz_unlabelled SELECT r, 'note ' || r FROM generate_series(1, 50) AS r;

-- ---- views ----
CREATE VIEW fz_v_events AS SELECT uid, g, label, amount, score FROM fz_events WHERE hits IS NOT NULL;
CREATE VIEW fz_v_joined AS
	SELECT e.uid, e.g, p.country, e.score FROM fz_events e JOIN fz_profiles p ON p.uid = e.uid;
CREATE VIEW fz_v_per_user AS
	SELECT uid, count(*) AS n, sum(hits) AS total FROM fz_events GROUP BY uid;
CREATE VIEW fz_v_countries AS SELECT code, upper(name) AS name FROM fz_countries;

ANALYZE;

-- ---- roles ----
DO $$
BEGIN
	IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'fz_plain') THEN
		CREATE ROLE fz_plain LOGIN;
	END IF;
	IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'fz_analyst') THEN
		CREATE ROLE fz_analyst LOGIN;
	END IF;
END $$;
GRANT USAGE ON SCHEMA public TO fz_plain, fz_analyst;
GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO fz_plain;
GRANT SELECT ON fz_countries, fz_labels, fz_calendar, fz_v_countries TO fz_analyst;
SECURITY LABEL FOR anon_dp ON ROLE fz_analyst IS 'anonymized';
