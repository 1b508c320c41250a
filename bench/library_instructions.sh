#!/usr/bin/env bash
# bench/library_instructions.sh -- what loading anon_dp costs ordinary SQL,
# counted in instructions instead of time (issue 35 item 0; the throughput
# side is bench/library_overhead.sh).
#
# Throughput on a 2-core machine moves by several per cent from run to run,
# which is the size of the difference to be shown.  An instruction count does
# not: valgrind's callgrind counts the instructions one backend executes,
# the same for the same binaries and input whatever else the machine does.
# This script runs pgbench's transactions in a single-user backend
# (`postgres --single`, which loads shared_preload_libraries as a server
# does) under callgrind, twice per configuration: with N1 and with N2
# transactions; (instructions(N2) - instructions(N1)) / (N2 - N1) is the
# cost of one transaction, without the backend's start and exit.
#
# Configurations: **without** = shared_preload_libraries = ''; **with** =
# 'anon_dp' (the library installed in $ANON_DP_PG_BIN).  Databases: **plain**
# (pgbench tables only) and **ext** (pgbench tables, CREATE EXTENSION anon_dp,
# a labelled private table, a public table, an anonymized role), as in
# library_overhead.sh.  The backend runs as the cluster owner (superuser,
# not anonymized), as pgbench does there.
# Workloads: select (pgbench -S's statement, a different aid each time) and
# tpcb (the TPC-B-like transaction: BEGIN, three UPDATEs, a SELECT, an
# INSERT, END).  Single-user mode runs the simple-query path; pgbench's
# prepared mode has no equivalent here.
#
# Usage: bench/library_instructions.sh [--n1 N] [--n2 N] [--scale S]
#          [--before-bin DIR] [--before-label TEXT] [--no-save] [--output FILE]
#   --n1, --n2   transactions of the two runs (default 500 and 2500)
#   --scale      pgbench scale factor (default 1)
#   --before-bin bin directory of another PostgreSQL copy (tools/relocated-
#                postgres) with another build of anon_dp installed: adds the
#                configuration "before" (that build loaded)
#   --before-label what that build is, for the report (e.g. a commit)
#   --output     the report (default bench/results/library_instructions.md)
#   --no-save    print the report only
# Needs valgrind (installed by Debian's package if missing).  Nothing is
# built: run `make install` first.  Takes a few minutes.
set -euo pipefail

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CMDLINE="bench/library_instructions.sh"
[ $# -eq 0 ] || CMDLINE="$CMDLINE$(printf ' %q' "$@")"
# shellcheck source=../tools/lib.sh
source "$BENCH_DIR/../tools/lib.sh"

N1=500
N2=2500
SCALE=1
OUTPUT="$BENCH_DIR/results/library_instructions.md"
SAVE=1
BEFORE_BIN=""
BEFORE_LABEL=""

usage() { sed -n '2,38p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }
die() { echo "library_instructions.sh: $*" >&2; exit 2; }

while [ $# -gt 0 ]; do
	case "$1" in
		--n1) N1=${2:?--n1 needs a value}; shift 2 ;;
		--n2) N2=${2:?--n2 needs a value}; shift 2 ;;
		--scale) SCALE=${2:?--scale needs a value}; shift 2 ;;
		--output) OUTPUT=${2:?--output needs a value}; shift 2 ;;
		--before-bin) BEFORE_BIN=${2:?--before-bin needs a value}; shift 2 ;;
		--before-label) BEFORE_LABEL=${2:?--before-label needs a value}; shift 2 ;;
		--no-save) SAVE=0; shift ;;
		-h | --help) usage; exit 0 ;;
		*) echo "library_instructions.sh: unknown argument: $1" >&2; usage >&2; exit 2 ;;
	esac
done
for v in "--n1:$N1" "--n2:$N2" "--scale:$SCALE"; do
	case "${v#*:}" in '' | *[!0-9]*) die "${v%%:*} must be a whole number" ;; esac
done
[ "$N1" -ge 1 ] && [ "$N2" -gt "$N1" ] || die "--n2 must be greater than --n1, and --n1 at least 1"
[ "$SCALE" -ge 1 ] || die "--scale must be at least 1"

if ! command -v valgrind >/dev/null; then
	log "installing valgrind"
	as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends valgrind >/dev/null
fi
[ -f "$("$PG_BIN/pg_config" --pkglibdir)/anon_dp.so" ] || die "anon_dp is not installed in $PG_BIN (make install first)"
CONFIGS=(without with)
if [ -n "$BEFORE_BIN" ]; then
	[ -x "$BEFORE_BIN/postgres" ] || die "--before-bin: no postgres in $BEFORE_BIN"
	[ -f "$("$BEFORE_BIN/pg_config" --pkglibdir)/anon_dp.so" ] || die "--before-bin: anon_dp is not installed in that copy"
	CONFIGS=(without with before)
fi

WORK=""
cleanup() {
	stop_cluster
	[ -z "$WORK" ] || rm -rf "$WORK"
}
trap cleanup EXIT
START=$(date +%s)

start_cluster
WORK=$(mktemp -d /tmp/anon_dp_instructions.XXXXXX)
chmod 755 "$WORK"
[ "$(id -u)" -eq 0 ] && chown "$PG_USER" "$WORK"

log "pgbench -i -s $SCALE in bench_plain and bench_ext"
for db in plain ext; do
	pg_psql -q -c "CREATE DATABASE bench_$db" >/dev/null
	as_pg env PGHOST="$PGHOST" PGPORT="$PGPORT" PGUSER="$PGUSER" \
		"$PG_BIN/pgbench" -i -q -s "$SCALE" "bench_$db" >/dev/null 2>&1
done
pg_psql -q -d bench_ext <<'SQL' >/dev/null
SET client_min_messages = warning;
CREATE EXTENSION anon_dp;
CREATE TABLE overhead_visits AS
SELECT u % 1000 AS uid, (u % 7)::text AS shop, u % 300 AS secs FROM generate_series(1, 100000) u;
SECURITY LABEL FOR anon_dp ON COLUMN overhead_visits.uid IS 'privacy_unit';
CREATE TABLE overhead_shops AS SELECT s::text AS shop FROM generate_series(0, 6) s;
SECURITY LABEL FOR anon_dp ON TABLE overhead_shops IS 'public';
CREATE ROLE overhead_analyst;
SECURITY LABEL FOR anon_dp ON ROLE overhead_analyst IS 'anonymized';
GRANT SELECT ON overhead_shops TO overhead_analyst;
VACUUM ANALYZE overhead_visits, overhead_shops;
SQL
PG_VERSION=$(pg_psql -At -c "SHOW server_version")
as_pg "$PG_BIN/pg_ctl" -D "$CLUSTER_DIR/data" -w stop >/dev/null
LIB_FILE="$("$PG_BIN/pg_config" --pkglibdir)/anon_dp.so"
LIB_DATE=$(date -u -r "$LIB_FILE" '+%Y-%m-%d %H:%M:%S UTC')

# transactions <workload> <n>: n transactions, one statement a line
ACCOUNTS=$((SCALE * 100000))
transactions() {
	awk -v w="$1" -v n="$2" -v accounts="$ACCOUNTS" -v scale="$SCALE" 'BEGIN {
		for (i = 0; i < n; i++) {
			aid = (i * 7919) % accounts + 1; tid = i % (scale * 10) + 1; bid = i % scale + 1; delta = i % 5000 - 2500
			if (w == "select")
				printf "SELECT abalance FROM pgbench_accounts WHERE aid = %d;\n", aid
			else {
				print "BEGIN;"
				printf "UPDATE pgbench_accounts SET abalance = abalance + %d WHERE aid = %d;\n", delta, aid
				printf "SELECT abalance FROM pgbench_accounts WHERE aid = %d;\n", aid
				printf "UPDATE pgbench_tellers SET tbalance = tbalance + %d WHERE tid = %d;\n", delta, tid
				printf "UPDATE pgbench_branches SET bbalance = bbalance + %d WHERE bid = %d;\n", delta, bid
				printf "INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (%d, %d, %d, %d, CURRENT_TIMESTAMP);\n", tid, bid, aid, delta
				print "END;"
			}
		}
	}'
}

# instructions <config> <db> <workload> <n>: callgrind's total for one backend
instructions() {
	local library=anon_dp bin="$PG_BIN" out="$WORK/callgrind.$1.$2.$3.$4" input="$WORK/input.$3.$4"
	[ "$1" = without ] && library=""
	[ "$1" = before ] && bin="$BEFORE_BIN"
	[ -f "$input" ] || { transactions "$3" "$4" >"$input"; chmod 644 "$input"; }
	as_pg valgrind --tool=callgrind --callgrind-out-file="$out" --trace-children=no \
		"$bin/postgres" --single -D "$CLUSTER_DIR/data" \
		-c shared_preload_libraries="$library" -c fsync=off -c jit=off \
		-c unix_socket_directories="$CLUSTER_DIR" "bench_$2" <"$input" >"$WORK/output.$1.$2.$3.$4" 2>&1 ||
		die "the single-user backend failed ($1, $2, $3, $4): $(tail -n 5 "$WORK/output.$1.$2.$3.$4")"
	grep -q 'ERROR' "$WORK/output.$1.$2.$3.$4" &&
		die "a statement failed ($1, $2, $3, $4): $(grep -m1 -A2 ERROR "$WORK/output.$1.$2.$3.$4")"
	awk '/^(summary|totals):/ { print $2; exit }' "$out"
}

declare -A PER_TX
ROWS=""
for db in plain ext; do
	for w in select tpcb; do
		for c in "${CONFIGS[@]}"; do
			log "callgrind: $c, $db, $w ($N1 and $N2 transactions)"
			a=$(instructions "$c" "$db" "$w" "$N1")
			b=$(instructions "$c" "$db" "$w" "$N2")
			PER_TX[$c.$db.$w]=$(awk -v a="$a" -v b="$b" -v n1="$N1" -v n2="$N2" 'BEGIN { printf "%.0f", (b - a) / (n2 - n1) }')
			log "  $a / $b instructions: ${PER_TX[$c.$db.$w]} per transaction"
		done
		for c in "${CONFIGS[@]:1}"; do
			ROWS="$ROWS$(awk -v db="$db" -v w="$w" -v c="$c" -v a="${PER_TX[without.$db.$w]}" -v b="${PER_TX[$c.$db.$w]}" 'BEGIN {
				label = (w == "select") ? "`-S` (SELECT by aid)" : "TPC-B-like"
				printf "| %s | %s | %s | %d | %d | %+d | %+.2f %% | %.3f |\n", db, label, c, a, b, b - a, 100 * (b - a) / a, a / b }')
"
		done
	done
done

report() {
	cat <<EOF
# anon_dp library overhead in instructions: ordinary SQL with and without the library loaded

- date: $(date -u '+%Y-%m-%d %H:%M:%S UTC'); checkout: $(git -C "$ANON_DP_ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown); library installed $LIB_DATE
- PostgreSQL $PG_VERSION; $(valgrind --version)
- command: \`$CMDLINE\` (scale $SCALE; $N1 and $N2 transactions per run)
- method: one single-user backend (\`postgres --single\`, the cluster owner, not anonymized) per run under \`valgrind --tool=callgrind\`; the statements of the transactions on standard input; instructions per transaction = (total of the $N2-transaction run - total of the $N1-transaction run) / $(($N2 - $N1)), which leaves out the backend's start and exit
- configurations: **without** = \`shared_preload_libraries = ''\`, **with** = \`'anon_dp'\` (this checkout's build)$([ -z "$BEFORE_BIN" ] || printf ', **before** = %s' "\`'anon_dp'\` served by $BEFORE_BIN${BEFORE_LABEL:+ ($BEFORE_LABEL)}"); databases: **plain** = pgbench tables only; **ext** = pgbench tables, \`CREATE EXTENSION anon_dp\`, a private table (\`uid\` labelled \`privacy_unit\`), a public table, an anonymized role (not used by the transactions)
- run time: $(($(date +%s) - START)) s

Instruction counts are repeatable (the same binaries and input give the same totals whatever else runs on the machine); they do not count waiting (locks, I/O, the CPU cache), so they measure the library's own work per statement, which is what it adds to ordinary SQL.

| database | transaction | configuration | instructions without | with the library | difference | change | without ÷ with the library (≈ throughput ratio if CPU-bound) |
|---|---|---|---:|---:|---:|---:|---:|
$(printf '%s' "$ROWS")
EOF
}

if [ "$SAVE" -eq 1 ]; then
	mkdir -p "$(dirname "$OUTPUT")"
	report | tee "$OUTPUT"
	log "report written to $OUTPUT"
else
	report
fi
