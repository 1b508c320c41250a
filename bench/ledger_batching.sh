#!/usr/bin/env bash
# bench/ledger_batching.sh -- the ledger worker's CPU per charge, two builds
# side by side (issue 35 item 3): the build before a change and the build
# after it, each installed into its own PostgreSQL copy, run against one
# data directory in interleaved rounds, so that the other tenants of a
# shared machine slow both alike.
#
# Each run: restart the cluster with one build's binaries, reset the
# role's budget, then pgbench -c C -j 2 -T T of `SELECT ANON_COUNT(*)` over
# 1,000 one-row users as an anonymized role (every transaction is one
# charge), while `perf stat -e task-clock` counts the ledger worker's CPU
# time for T - 3 seconds; the charges in that window are counted in the
# ledger.  Reported per build and client count: the medians over the rounds
# of charged transactions/s and of the worker's CPU microseconds per
# charge, and the mean charges per worker transaction (distinct xmin of the
# run's ledger rows).
#
# Usage: bench/ledger_batching.sh --before-bin DIR --after-bin DIR
#          [--clients 8,32] [--time 15] [--rounds 3] [--port 54331]
#          [--before-label TEXT] [--after-label TEXT]
#   DIR: the bin directory of a PostgreSQL 15 copy with anon_dp installed
#   (make install PG_CONFIG=DIR/pg_config); both must hold the same anon_dp
#   SQL version.  Needs perf.  Markdown to stdout, progress to stderr.
set -euo pipefail

BEFORE_BIN="" AFTER_BIN="" CLIENTS="8,32" DURATION=15 ROUNDS=3 PORT=54331
BEFORE_LABEL=before AFTER_LABEL=after
while [ $# -gt 0 ]; do
	case "$1" in
		--before-bin) BEFORE_BIN=$2; shift 2 ;;
		--after-bin) AFTER_BIN=$2; shift 2 ;;
		--clients) CLIENTS=$2; shift 2 ;;
		--time) DURATION=$2; shift 2 ;;
		--rounds) ROUNDS=$2; shift 2 ;;
		--port) PORT=$2; shift 2 ;;
		--before-label) BEFORE_LABEL=$2; shift 2 ;;
		--after-label) AFTER_LABEL=$2; shift 2 ;;
		-h|--help) sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
		*) echo "ledger_batching.sh: unknown option $1" >&2; exit 2 ;;
	esac
done
[ -x "$BEFORE_BIN/postgres" ] && [ -x "$AFTER_BIN/postgres" ] || {
	echo "ledger_batching.sh: --before-bin and --after-bin must name PostgreSQL bin directories" >&2; exit 2; }
command -v perf >/dev/null || { echo "ledger_batching.sh: needs perf" >&2; exit 2; }
[ "$DURATION" -ge 6 ] || { echo "ledger_batching.sh: --time must be at least 6" >&2; exit 2; }

if [ "$(id -u)" -eq 0 ]; then PG_USER=postgres; else PG_USER=$(id -un); fi
as_pg() { if [ "$(id -u)" -eq 0 ]; then (cd / && runuser -u "$PG_USER" -- "$@"); else "$@"; fi; }
log() { printf '==> %s\n' "$*" >&2; }

DIR=$(mktemp -d /tmp/anon_dp_ledger_batching.XXXXXX)
chmod 755 "$DIR"
[ "$(id -u)" -eq 0 ] && chown "$PG_USER" "$DIR"
cleanup() {
	for b in "$BEFORE_BIN" "$AFTER_BIN"; do
		as_pg "$b/pg_ctl" -D "$DIR/data" -m immediate -w stop >/dev/null 2>&1 || true
	done
	rm -rf "$DIR"
}
trap cleanup EXIT

log "cluster in $DIR (fsync on), port $PORT"
as_pg "$AFTER_BIN/initdb" -D "$DIR/data" -U "$PG_USER" --auth=trust -E UTF8 --locale=C >/dev/null
cat <<EOF | as_pg tee -a "$DIR/data/postgresql.conf" >/dev/null
shared_preload_libraries = 'anon_dp'
listen_addresses = ''
unix_socket_directories = '$DIR'
port = $PORT
max_connections = 100
EOF
psql_as() { as_pg "$AFTER_BIN/psql" -X -q -A -t -h "$DIR" -p "$PORT" -U "$PG_USER" -d bench "$@"; }
as_pg "$AFTER_BIN/pg_ctl" -D "$DIR/data" -l "$DIR/server.log" -w start >/dev/null
as_pg "$AFTER_BIN/psql" -X -q -h "$DIR" -p "$PORT" -U "$PG_USER" -d postgres -c "CREATE DATABASE bench"
psql_as -v ON_ERROR_STOP=1 >/dev/null <<'SQL'
SET client_min_messages = warning;
CREATE EXTENSION anon_dp;
CREATE TABLE tiny AS SELECT u AS uid FROM generate_series(1, 1000) u;
SECURITY LABEL FOR anon_dp ON COLUMN tiny.uid IS 'privacy_unit';
VACUUM ANALYZE tiny;
CREATE ROLE bench_ledger_analyst LOGIN;
SECURITY LABEL FOR anon_dp ON ROLE bench_ledger_analyst IS 'anonymized';
SQL
as_pg "$AFTER_BIN/pg_ctl" -D "$DIR/data" -m fast -w stop >/dev/null
echo 'SELECT ANON_COUNT(*) FROM tiny;' >"$DIR/tiny.sql"
chmod 644 "$DIR/tiny.sql"

RESULTS="$DIR/results"
: >"$RESULTS"
# run <label> <bin> <clients> <round>: one line "label clients round tps us_per_charge per_xact"
run() {
	local label=$1 bin=$2 clients=$3 round=$4 worker c0 c1 ms tps x
	as_pg "$bin/pg_ctl" -D "$DIR/data" -l "$DIR/server.log" -w start >/dev/null
	psql_as -c "SELECT anon_dp_reset_budget('bench_ledger_analyst')" \
		-c "SELECT anon_dp_set_budget('bench_ledger_analyst', 1e6, 1)" >/dev/null
	as_pg env PGOPTIONS="-c anon_dp.epsilon=1" "$bin/pgbench" -h "$DIR" -p "$PORT" \
		-U bench_ledger_analyst -n -c "$clients" -j 2 -T "$DURATION" -f "$DIR/tiny.sql" bench \
		>"$DIR/pgbench.out" 2>&1 &
	local bench=$!
	sleep 1.5
	worker=$(pgrep -f "anon_dp ledger worker" | head -n 1 || true)
	[ -n "$worker" ] || { wait "$bench"; echo "ledger_batching.sh: no ledger worker ($label)" >&2; exit 1; }
	c0=$(psql_as -c "SELECT count(*) FROM anon_dp_ledger WHERE outcome = 'charged'")
	perf stat -x, -e task-clock -p "$worker" -o "$DIR/perf.out" -- sleep $((DURATION - 3)) 2>/dev/null
	c1=$(psql_as -c "SELECT count(*) FROM anon_dp_ledger WHERE outcome = 'charged'")
	wait "$bench" || { cat "$DIR/pgbench.out" >&2; exit 1; }
	ms=$(grep task-clock "$DIR/perf.out" | cut -d, -f1)
	tps=$(grep -o 'tps = [0-9.]*' "$DIR/pgbench.out" | cut -d' ' -f3)
	x=$(psql_as -c "SELECT round(count(*)::numeric / count(DISTINCT xmin::text), 2) FROM anon_dp_ledger WHERE outcome = 'charged' AND entry > (SELECT max(entry) - ($c1 - $c0) FROM anon_dp_ledger)")
	grep -q 'refused' <(psql_as -c "SELECT DISTINCT outcome FROM anon_dp_ledger") &&
		{ echo "ledger_batching.sh: a charge was refused ($label)" >&2; exit 1; }
	as_pg "$bin/pg_ctl" -D "$DIR/data" -m fast -w stop >/dev/null
	printf '%s %s %s %.1f %s %s\n' "$label" "$clients" "$round" "$tps" \
		"$(awk -v m="$ms" -v c="$((c1 - c0))" 'BEGIN { printf "%.1f", m * 1000 / c }')" "$x" | tee -a "$RESULTS" >&2
}

for clients in ${CLIENTS//,/ }; do
	for round in $(seq 1 "$ROUNDS"); do
		if [ $((round % 2)) -eq 1 ]; then
			run "$BEFORE_LABEL" "$BEFORE_BIN" "$clients" "$round"
			run "$AFTER_LABEL" "$AFTER_BIN" "$clients" "$round"
		else
			run "$AFTER_LABEL" "$AFTER_BIN" "$clients" "$round"
			run "$BEFORE_LABEL" "$BEFORE_BIN" "$clients" "$round"
		fi
	done
done

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.1f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
echo "# The ledger worker's CPU per charge: $BEFORE_LABEL and $AFTER_LABEL"
echo
echo "- date: $(date -u '+%Y-%m-%d %H:%M:%S UTC'); $(nproc) cores; load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "- command: \`bench/ledger_batching.sh --clients $CLIENTS --time $DURATION --rounds $ROUNDS --before-label '$BEFORE_LABEL' --after-label '$AFTER_LABEL'\`; rounds interleaved (odd rounds: $BEFORE_LABEL first), fsync on, pgbench -j 2, anon_dp.epsilon = 1, budget (1e6, 1) reset before each run"
echo
echo "| clients | build | charged tps (median) | worker CPU µs per charge (median) | charges per worker transaction (mean) | rounds: tps / µs per charge |"
echo "|---:|---|---:|---:|---:|---|"
for clients in ${CLIENTS//,/ }; do
	for label in "$BEFORE_LABEL" "$AFTER_LABEL"; do
		rows=$(awk -v l="$label" -v c="$clients" '$1 == l && $2 == c' "$RESULTS")
		echo "| $clients | $label | $(awk '{ print $4 }' <<<"$rows" | median) | $(awk '{ print $5 }' <<<"$rows" | median) | $(awk '{ s += $6 } END { printf "%.2f", s / NR }' <<<"$rows") | $(awk '{ printf "%s%s / %s", (NR > 1 ? ", " : ""), $4, $5 }' <<<"$rows") |"
	done
done
