-- tests/clients/setup.sql -- fixture for tests/clients/run.
--
-- Run by a superuser in a scratch database, with the analyst role name in the
-- psql variable "analyst":
--
--     psql -v ON_ERROR_STOP=1 -v analyst=anon_dp_client_analyst -f setup.sql
--
-- Re-runnable: it drops what an earlier run left in this database, and the
-- role (which must own nothing in other databases).
--
-- The data: 3000 visits by 300 users.  Each user visits with one browser
-- only, so every browser holds 100 users and is released well above the
-- tau-threshold (about 24 at the default epsilon; 100 users keep the chance of
-- a suppressed browser negligible even at epsilon 0.25).  With 20 users per
-- browser, GROUP BY browser would often come back empty.

\set ON_ERROR_STOP 1
SET client_min_messages = warning;

-- ---- leftovers of an earlier run ----
SELECT format('DROP OWNED BY %I', :'analyst')
  WHERE EXISTS (SELECT 1 FROM pg_roles WHERE rolname = :'analyst') \gexec
DROP TABLE IF EXISTS visits, browsers, staff_notes;
DROP EXTENSION IF EXISTS anon_dp;
DROP ROLE IF EXISTS :"analyst";

-- ---- extension and data ----
CREATE EXTENSION anon_dp;

CREATE TABLE visits (uid int, browser text, duration float8);
INSERT INTO visits (uid, browser, duration)
SELECT u, (ARRAY['firefox', 'chrome', 'safari'])[1 + u % 3],
       ((u * 37 + v * 11) % 120)::float8 + 0.5
  FROM generate_series(1, 300) AS u, generate_series(1, 10) AS v;
SECURITY LABEL FOR anon_dp ON COLUMN visits.uid IS 'privacy_unit';

CREATE TABLE browsers (name text);
INSERT INTO browsers VALUES ('chrome'), ('firefox'), ('safari');
SECURITY LABEL FOR anon_dp ON TABLE browsers IS 'public';

-- no label: not for analysts (a BI tool's table sync must not offer it)
CREATE TABLE staff_notes (id int, note text);

ANALYZE visits, browsers;

-- ---- the anonymized analyst ----
CREATE ROLE :"analyst" LOGIN;
GRANT SELECT ON browsers TO :"analyst";   -- public only: anon_dp lends the private inputs
SECURITY LABEL FOR anon_dp ON ROLE :"analyst" IS 'anonymized';
-- the data owner's limits (doc/budget.md): the checks use epsilon up to 2
ALTER ROLE :"analyst" SET anon_dp.max_epsilon = 2;
SELECT anon_dp_set_budget(:'analyst', 1000, 1);
