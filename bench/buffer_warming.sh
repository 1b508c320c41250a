#!/bin/bash
# buffer_warming.sh: what reading every named relation into the buffers
# around each run of an anonymization query costs (src/guard/buffer_warming.c).
#
# Usage: bench/buffer_warming.sh ROUNDS SECONDS
# Environment: ANON_DP_PG_BIN (bin directory with anon_dp installed),
#   ANON_DP_SOCKET, ANON_DP_PORT (a running cluster that preloads anon_dp).
# Loads database "bench_warm": a private table of 100 users and public tables
# of 1, 8 and 28 MB (rows of 1,800 bytes, a primary key).  An anonymized role
# runs, with pgbench for SECONDS in ROUNDS interleaved rounds, the same tiny
# anonymization query whose WHERE names one public table in a branch no row
# reaches, so the only work on that table is the warming.  Prints the median
# latency per table and the difference to the 8 kB table, per page.
# pub_28mb_dead is pub_28mb with every tenth row deleted and not vacuumed:
# its pages are pruned and its index's dead entries marked around each run
# (the whole-index scan once per session while the dead rows stay the same;
# pgbench keeps one session, and the first statement of a new session is
# timed separately with psql).
set -euo pipefail
ROUNDS=${1:-3} SECS=${2:-8}
BIN=${ANON_DP_PG_BIN:?} SOCK=${ANON_DP_SOCKET:?} PORT=${ANON_DP_PORT:?}
OUT=$(mktemp -d); chmod 777 "$OUT"
psql_su() { runuser -u postgres -- "$BIN/psql" -X -q -h "$SOCK" -p "$PORT" -v ON_ERROR_STOP=1 "$@"; }
psql_su -d postgres -c "DROP DATABASE IF EXISTS bench_warm" -c "CREATE DATABASE bench_warm"
psql_su -d bench_warm <<'SQL'
SET client_min_messages = warning;
CREATE EXTENSION anon_dp;
CREATE TABLE people (uid int, salary int);
INSERT INTO people SELECT u, u FROM generate_series(1, 100) u;
SECURITY LABEL FOR anon_dp ON COLUMN people.uid IS 'privacy_unit';
DO $$
DECLARE
    t record;
BEGIN
    FOR t IN SELECT * FROM (VALUES ('pub_8kb', 1), ('pub_1mb', 512), ('pub_8mb', 4096), ('pub_28mb', 14000), ('pub_28mb_dead', 14000)) v(name, n) LOOP
        EXECUTE format('CREATE TABLE %I (id int PRIMARY KEY, pad text) WITH (autovacuum_enabled = off)', t.name);
        EXECUTE format('INSERT INTO %I SELECT g, repeat(''z'', 1800) FROM generate_series(1, %s) g', t.name, t.n);
        EXECUTE format('SECURITY LABEL FOR anon_dp ON TABLE %I IS ''public''', t.name);
    END LOOP;
END $$;
VACUUM ANALYZE;
DELETE FROM pub_28mb_dead WHERE id % 10 = 0;
DROP ROLE IF EXISTS bench_warm_analyst;
CREATE ROLE bench_warm_analyst LOGIN;
SECURITY LABEL FOR anon_dp ON ROLE bench_warm_analyst IS 'anonymized';
GRANT SELECT ON pub_8kb, pub_1mb, pub_8mb, pub_28mb, pub_28mb_dead TO bench_warm_analyst;
SELECT anon_dp_set_budget('bench_warm_analyst', 1000000, 0.5);
SQL
TABLES="pub_8kb pub_1mb pub_8mb pub_28mb pub_28mb_dead"
for t in $TABLES; do
	cat > "$OUT/$t.sql" <<SQL
SET anon_dp.epsilon = 0.01;
SELECT ANON_COUNT(*) FROM people WHERE CASE WHEN uid = -1 THEN (SELECT count(*) FROM $t) > 0 ELSE true END;
SQL
	psql_su -d bench_warm -A -t -c "SELECT (pg_total_relation_size('$t') + pg_relation_size('$t', 'vm')) / 8192" > "$OUT/$t.pages"
done
chmod 644 "$OUT"/*
for r in $(seq 1 "$ROUNDS"); do
	for t in $TABLES; do
		runuser -u postgres -- "$BIN/pgbench" -n -h "$SOCK" -p "$PORT" -U bench_warm_analyst \
			-f "$OUT/$t.sql" -T "$SECS" bench_warm 2>/dev/null |
			sed -n 's/^latency average = \([0-9.]*\) ms/\1/p' >> "$OUT/$t.ms"
	done
done
median() { sort -g "$1" | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
base=$(median "$OUT/pub_8kb.ms")
base_pages=$(cat "$OUT/pub_8kb.pages")
echo "| public table named | pages warmed | median latency (ms) | more than 8 kB (ms) | µs per page |"
echo "|---|---:|---:|---:|---:|"
for t in $TABLES; do
	m=$(median "$OUT/$t.ms") p=$(cat "$OUT/$t.pages")
	awk -v t="$t" -v m="$m" -v b="$base" -v p="$p" -v bp="$base_pages" 'BEGIN {
		d = m - b; per = (p > bp) ? sprintf("%.3f", 1000 * d / (p - bp)) : "—"
		printf "| %s | %d | %.3f | %.3f | %s |\n", t, p, m, d, per }'
done
echo "($ROUNDS interleaved rounds of $SECS s, one client; medians)"
echo
echo "| public table named | first statement of a new session, median of $ROUNDS (ms) |"
echo "|---|---:|"
for t in pub_28mb pub_28mb_dead; do
	for r in $(seq 1 "$ROUNDS"); do
		runuser -u postgres -- "$BIN/psql" -X -q -h "$SOCK" -p "$PORT" -U bench_warm_analyst -d bench_warm \
			-c '\timing on' -f "$OUT/$t.sql" | sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' | tail -1 >> "$OUT/$t.first"
	done
	printf '| %s | %.3f |\n' "$t" "$(median "$OUT/$t.first")"
done
psql_su -d postgres -c "DROP DATABASE bench_warm" \
	-c "SECURITY LABEL FOR anon_dp ON ROLE bench_warm_analyst IS NULL" -c "DROP ROLE bench_warm_analyst"
rm -rf "$OUT"
