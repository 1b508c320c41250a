#!/usr/bin/env bash
# bench/library_overhead.sh -- what loading anon_dp costs ordinary SQL
# (issue 35 item 0): the throughput of pgbench on one cluster restarted with
# and without shared_preload_libraries = 'anon_dp', nothing else changed
# (same data directory, same settings, same binaries).
#
# Workloads (pgbench's built-in scripts, scale --scale, run as the cluster
# owner, which is not anonymized):
#   select     pgbench -S                 (select-only, simple protocol)
#   prepared   pgbench -S -M prepared     (select-only, prepared statements)
#   tpcb       pgbench                    (the TPC-B-like default script)
# each with every client count of --clients (pgbench -j 2), in two
# databases of the cluster:
#   plain      without anon_dp (no CREATE EXTENSION)
#   ext        CREATE EXTENSION anon_dp, a private table (privacy unit
#              labelled), a public table and an anonymized role; the pgbench
#              tables themselves are not labelled
# A cell is one (database, workload, clients).  In every round each cell runs
# once per configuration, back to back, each run on a server started for it;
# the order of the configurations rotates from cell to cell and from round
# to round, so that each takes each place equally often:
#   without    shared_preload_libraries = ''
#   with       shared_preload_libraries = 'anon_dp' (the library installed in
#              $ANON_DP_PG_BIN: the checked-out code after `make install`)
#   before     (with --before-bin DIR) the same, served by the PostgreSQL copy
#              of DIR, into which another build of anon_dp was installed
# After each start pg_prewarm loads the pgbench tables of both databases
# (if pg_prewarm is available); every timed run follows an untimed warm-up
# run of the same cell.  Reported: tps as pgbench prints it (without the
# connection time), medians over the rounds and their ratio to "without";
# the server's CPU time per transaction (the postmaster's reaped and live
# children: backends, autovacuum, ...); the 1-minute load; the share of the
# 2 cores that processes outside this benchmark used during the run
# (/proc/stat busy time minus this script's children and the server).  Each
# attempt waits (at most --quiet-wait s) for a second in which other
# processes used at most --max-others % of the cores; a run during which they
# used more is run again (at most --retries times; the least disturbed attempt
# is kept).
#
# Usage: bench/library_overhead.sh [--rounds R] [--time T] [--warmup W]
#          [--clients 2,8] [--workloads select,prepared,tpcb] [--scale S]
#          [--before-bin DIR] [--before-label TEXT] [--max-others PCT]
#          [--retries N] [--quiet-wait S] [--note TEXT] [--output FILE]
#          [--no-save]
#   --rounds       timed rounds (default 5)
#   --time         seconds of each timed pgbench run (default 30)
#   --warmup       seconds of the untimed run before each timed one (default 3)
#   --clients      client counts (default 2,8)
#   --workloads    any of select, prepared, tpcb (default all three)
#   --scale        pgbench scale factor (default 10)
#   --before-bin   bin directory of another PostgreSQL copy (tools/relocated-
#                  postgres) with another build of anon_dp installed: adds the
#                  configuration "before"
#   --before-label what that build is, for the report (e.g. a commit)
#   --max-others   rerun a run when other processes used more than this % of
#                  all cores during it (default 25)
#   --retries      reruns of one run at most (default 2)
#   --quiet-wait   before each attempt, wait until other processes used at most
#                  --max-others % of the cores over one second, at most this
#                  many seconds (default 60; 0: do not wait)
#   --note         a line added to the report's header
#   --output       the report (default bench/results/library_overhead.md)
#   --no-save      print the report only
# The cluster is a throwaway one (tools/lib.sh start_cluster, port
# $ANON_DP_PORT, default 54329) with fsync = off (no disk flush in any
# configuration: the comparison is of CPU work) and shared_buffers large
# enough for both databases.  Nothing is built: run `make install` first.
# Markdown goes to stdout and to the report file; progress to stderr.
set -euo pipefail

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CMDLINE="bench/library_overhead.sh"
[ $# -eq 0 ] || CMDLINE="$CMDLINE$(printf ' %q' "$@")"
# shellcheck source=../tools/lib.sh
source "$BENCH_DIR/../tools/lib.sh"

ROUNDS=5
DURATION=30
WARMUP=3
CLIENTS_LIST="2,8"
WORKLOADS_LIST="select,prepared,tpcb"
SCALE=10
BEFORE_BIN=""
BEFORE_LABEL=""
MAX_OTHERS=25
RETRIES=2
QUIET_WAIT=60
NOTE=""
OUTPUT="$BENCH_DIR/results/library_overhead.md"
SAVE=1
TARGET=0.97

usage() { sed -n '2,67p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }
die() { echo "library_overhead.sh: $*" >&2; exit 2; }

while [ $# -gt 0 ]; do
	case "$1" in
		--rounds) ROUNDS=${2:?--rounds needs a value}; shift 2 ;;
		--time) DURATION=${2:?--time needs a value}; shift 2 ;;
		--warmup) WARMUP=${2:?--warmup needs a value}; shift 2 ;;
		--clients) CLIENTS_LIST=${2:?--clients needs a value}; shift 2 ;;
		--workloads) WORKLOADS_LIST=${2:?--workloads needs a value}; shift 2 ;;
		--scale) SCALE=${2:?--scale needs a value}; shift 2 ;;
		--before-bin) BEFORE_BIN=${2:?--before-bin needs a value}; shift 2 ;;
		--before-label) BEFORE_LABEL=${2:?--before-label needs a value}; shift 2 ;;
		--max-others) MAX_OTHERS=${2:?--max-others needs a value}; shift 2 ;;
		--retries) RETRIES=${2:?--retries needs a value}; shift 2 ;;
		--quiet-wait) QUIET_WAIT=${2:?--quiet-wait needs a value}; shift 2 ;;
		--note) NOTE=${2:?--note needs a value}; shift 2 ;;
		--output) OUTPUT=${2:?--output needs a value}; shift 2 ;;
		--no-save) SAVE=0; shift ;;
		-h | --help) usage; exit 0 ;;
		*) echo "library_overhead.sh: unknown argument: $1" >&2; usage >&2; exit 2 ;;
	esac
done

number() {	# number <option> <value> <minimum>
	case "$2" in '' | *[!0-9]*) die "$1 must be a whole number" ;; esac
	[ "$2" -ge "$3" ] || die "$1 must be at least $3"
}
number --rounds "$ROUNDS" 1
number --time "$DURATION" 1
number --warmup "$WARMUP" 0
number --scale "$SCALE" 1
number --max-others "$MAX_OTHERS" 0
number --retries "$RETRIES" 0
number --quiet-wait "$QUIET_WAIT" 0
IFS=',' read -r -a CLIENTS <<<"$CLIENTS_LIST"
for c in "${CLIENTS[@]}"; do number --clients "$c" 1; done
IFS=',' read -r -a WORKLOADS <<<"$WORKLOADS_LIST"
for w in "${WORKLOADS[@]}"; do
	case "$w" in select | prepared | tpcb) ;; *) die "unknown workload: $w (select, prepared, tpcb)" ;; esac
done
DATABASES=(plain ext)
CONFIGS=(without with)
if [ -n "$BEFORE_BIN" ]; then
	[ -x "$BEFORE_BIN/postgres" ] && [ -x "$BEFORE_BIN/pg_ctl" ] || die "--before-bin: no postgres and pg_ctl in $BEFORE_BIN"
	[ -f "$("$BEFORE_BIN/pg_config" --pkglibdir)/anon_dp.so" ] || die "--before-bin: anon_dp is not installed in that copy"
	CONFIGS=(without with before)
fi
[ -f "$("$PG_BIN/pg_config" --pkglibdir)/anon_dp.so" ] || die "anon_dp is not installed in $PG_BIN (make install)"

NCPU=$(nproc)
CLK_TCK=$(getconf CLK_TCK)
LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)
T_START=$(date +%s)
WORK_DIR=$(mktemp -d /tmp/anon_dp_overhead.XXXXXX)
RUNS_FILE="$WORK_DIR/runs"      # one line per timed run, see run_cell
REPORT="$WORK_DIR/report.md"
: >"$RUNS_FILE"

cleanup() {
	local rc=$?
	if [ "$rc" -ne 0 ] && [ "$SAVE" -eq 1 ] && [ -s "$RUNS_FILE" ]; then
		mkdir -p "$(dirname "$OUTPUT")"
		cp "$RUNS_FILE" "$OUTPUT.partial-runs"
		log "failed (status $rc); the runs so far are in $OUTPUT.partial-runs"
	fi
	stop_server
	stop_cluster
	rm -rf "$WORK_DIR"
}

# ---- the server: one data directory, started in one configuration at a time ----
CURRENT=""
POSTMASTER_PID=""
bin_of() { if [ "$1" = before ]; then echo "$BEFORE_BIN"; else echo "$PG_BIN"; fi; }
library_of() { if [ "$1" = without ]; then echo ""; else echo anon_dp; fi; }

stop_server() {
	if [ -n "$CURRENT" ] && [ -n "$CLUSTER_DIR" ]; then
		as_pg "$(bin_of "$CURRENT")/pg_ctl" -D "$CLUSTER_DIR/data" -m fast -w stop >/dev/null 2>&1 || true
	fi
	CURRENT=""
	POSTMASTER_PID=""
}

psql_db() {	# psql_db <database> <psql args...>
	local db=$1; shift
	as_pg env PGHOST="$PGHOST" PGPORT="$PGPORT" PGUSER="$PGUSER" \
		"$PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 -d "$db" "$@"
}
value() { psql_db "$1" -At -c "$2"; }

PREWARM=0		# 1 once both databases have pg_prewarm
prewarm() {
	local db
	[ "$PREWARM" -eq 1 ] || return 0
	for db in "${DATABASES[@]}"; do
		value "bench_$db" "SELECT sum(pg_prewarm(c::regclass)) FROM unnest(ARRAY['pgbench_accounts',
			'pgbench_accounts_pkey', 'pgbench_branches', 'pgbench_branches_pkey', 'pgbench_tellers',
			'pgbench_tellers_pkey', 'pgbench_history']) c" >/dev/null
	done
}

start_server() {	# start_server <configuration>: a fresh start, even in the same configuration
	local config=$1 loaded
	stop_server
	as_pg "$(bin_of "$config")/pg_ctl" -D "$CLUSTER_DIR/data" -l "$CLUSTER_DIR/server.log" -w \
		-o "-c shared_preload_libraries='$(library_of "$config")'" start >/dev/null
	CURRENT=$config
	POSTMASTER_PID=$(head -n 1 "$CLUSTER_DIR/data/postmaster.pid")
	loaded=$(value postgres "SELECT count(*) > 0 FROM pg_settings WHERE name LIKE 'anon_dp.%'")
	case "$config:$loaded" in
		without:f | with:t | before:t) ;;
		*) die "the server in configuration $config has anon_dp loaded = $loaded" ;;
	esac
	prewarm
}

# ---- CPU accounting ----
# "<busy ticks of all CPUs> <ticks of this script's children and of the server>"
cpu_snapshot() {
	local busy mine server live
	busy=$(awk '$1 == "cpu" { print $2 + $3 + $4 + $7 + $8 + $9; exit }' /proc/stat)
	mine=$(awk '{ print $14 + $15 + $16 + $17 }' "/proc/$$/stat")
	server=$(awk '{ print $14 + $15 + $16 + $17 }' "/proc/$POSTMASTER_PID/stat" 2>/dev/null || echo 0)
	live=$(for pid in $(cat "/proc/$POSTMASTER_PID/task/$POSTMASTER_PID/children" 2>/dev/null); do
		awk '{ print $14 + $15 }' "/proc/$pid/stat" 2>/dev/null || true
	done | awk '{ s += $1 } END { print s + 0 }')
	echo "$busy $((mine + server + live)) $((server + live))"
}
# others_pct <busy0> <ours0> <busy1> <ours1> <seconds>: the % of all cores that
# processes outside this benchmark used
others_pct() {
	awk -v b="$(($3 - $1))" -v m="$(($4 - $2))" -v t="$5" -v hz="$CLK_TCK" -v n="$NCPU" \
		'BEGIN { x = b - m; if (x < 0) x = 0; printf "%.0f", x / (t * hz * n) * 100 }'
}
# wait_quiet: wait until other processes used at most --max-others % of the
# cores over one second, at most --quiet-wait seconds; prints the seconds waited
wait_quiet() {
	local waited=0 b0 m0 b1 m1 _
	while [ "$waited" -lt "$QUIET_WAIT" ]; do
		read -r b0 m0 _ < <(cpu_snapshot)
		sleep 1
		read -r b1 m1 _ < <(cpu_snapshot)
		[ "$(others_pct "$b0" "$m0" "$b1" "$m1" 1)" -gt "$MAX_OTHERS" ] || break
		waited=$((waited + 1))
	done
	echo "$waited"
}

# ---- one run ----
pgbench_args() {	# pgbench_args <workload>
	case "$1" in
		select) echo "-S" ;;
		prepared) echo "-S -M prepared" ;;
		tpcb) echo "" ;;
	esac
}

pgbench_run() {	# pgbench_run <database> <workload> <clients> <seconds>: prints tps
	local db=$1 workload=$2 clients=$3 seconds=$4 out
	# shellcheck disable=SC2046
	out=$(as_pg env PGHOST="$PGHOST" PGPORT="$PGPORT" PGUSER="$PGUSER" \
		"$PG_BIN/pgbench" $(pgbench_args "$workload") -c "$clients" -j "$(( clients < 2 ? clients : 2 ))" \
		-T "$seconds" "bench_$db" 2>&1) || { echo "$out" >&2; die "pgbench failed ($db $workload $clients)"; }
	awk '/^tps = .*without initial connection time/ { print $3 }' <<<"$out"
}

# run_cell <round> <configuration> <database> <workload> <clients>: appends
#   round config db workload clients tps server_us_per_tx others_pct load_start
#   load_end attempt seconds_waited_for_quiet
run_cell() {
	local round=$1 config=$2 db=$3 workload=$4 clients=$5
	local attempt best_line="" best_others=1000 line tps b0 m0 s0 b1 m1 s1 l0 l1 t0 t1 others us waited
	start_server "$config"
	for attempt in $(seq 1 $((RETRIES + 1))); do
		waited=$(wait_quiet)
		[ "$WARMUP" -eq 0 ] || pgbench_run "$db" "$workload" "$clients" "$WARMUP" >/dev/null
		l0=$(cut -d' ' -f1 /proc/loadavg)
		read -r b0 m0 s0 < <(cpu_snapshot)
		t0=$(date +%s.%N)
		tps=$(pgbench_run "$db" "$workload" "$clients" "$DURATION")
		sleep 0.3		# the backends exit and are reaped
		t1=$(date +%s.%N)
		read -r b1 m1 s1 < <(cpu_snapshot)
		l1=$(cut -d' ' -f1 /proc/loadavg)
		others=$(others_pct "$b0" "$m0" "$b1" "$m1" "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')")
		us=$(awk -v s="$((s1 - s0))" -v hz="$CLK_TCK" -v tps="$tps" -v d="$DURATION" \
			'BEGIN { printf "%.1f", s / hz * 1e6 / (tps * d) }')
		line="$round $config $db $workload $clients $tps $us $others $l0 $l1 $attempt $waited"
		if [ "$others" -lt "$best_others" ]; then best_others=$others; best_line=$line; fi
		log "round $round $config $db $workload c=$clients: $tps tps, ${us} µs server CPU/tx, others ${others} %, load $l0 -> $l1 (waited ${waited} s for quiet)"
		[ "$others" -gt "$MAX_OTHERS" ] || break
		[ "$attempt" -gt "$RETRIES" ] || log "  other processes used ${others} % of the cores: run again"
	done
	echo "$best_line" >>"$RUNS_FILE"
}

# ---- the cluster and its data ----
trap cleanup EXIT
start_cluster
as_pg "$PG_BIN/pg_ctl" -D "$CLUSTER_DIR/data" -m fast -w stop >/dev/null
RAM_MB=$(awk '/^MemTotal/ { print int($2 / 1024) }' /proc/meminfo)
SB_MB=$(awk -v s="$SCALE" -v r="$RAM_MB" 'BEGIN { m = int(s * 40) + 256; if (m > r / 4) m = int(r / 4); print m }')
# start_cluster wrote shared_preload_libraries = 'anon_dp': every start passes the configuration's own value
printf '%s\n' "shared_buffers = '${SB_MB}MB'" "max_connections = 100" "jit = off" \
	"max_wal_size = '4GB'" "checkpoint_timeout = '30min'" |
	as_pg tee -a "$CLUSTER_DIR/data/postgresql.conf" >/dev/null
start_server with
log "pgbench -i -s $SCALE in bench_plain and bench_ext"
PREWARM_OK=1
for db in "${DATABASES[@]}"; do
	value postgres "CREATE DATABASE bench_$db" >/dev/null
	as_pg env PGHOST="$PGHOST" PGPORT="$PGPORT" PGUSER="$PGUSER" \
		"$PG_BIN/pgbench" -i -q -s "$SCALE" "bench_$db" >/dev/null 2>&1
	value "bench_$db" "CREATE EXTENSION IF NOT EXISTS pg_prewarm" >/dev/null 2>&1 || PREWARM_OK=0
done
PREWARM=$PREWARM_OK
psql_db bench_ext <<'SQL' >/dev/null
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
value bench_ext "CHECKPOINT" >/dev/null
PG_VERSION=$(value postgres "SHOW server_version")
SETTINGS=$(value postgres "SELECT string_agg(name || ' = ' || current_setting(name), ', ' ORDER BY name) FROM pg_settings
	WHERE name IN ('fsync', 'synchronous_commit', 'shared_buffers', 'max_connections', 'jit', 'autovacuum',
		'compute_query_id', 'max_wal_size', 'checkpoint_timeout')")
LIB_FILE="$("$PG_BIN/pg_config" --pkglibdir)/anon_dp.so"
LIB_DATE=$(date -u -r "$LIB_FILE" '+%Y-%m-%d %H:%M:%S UTC')
COMMIT=$(git -C "$BENCH_DIR/.." rev-parse --short HEAD 2>/dev/null || echo unknown)
DIRTY=$(git -C "$BENCH_DIR/.." status --porcelain --untracked-files=no -- src sql 2>/dev/null | wc -l)

# ---- the rounds ----
cells=()
for db in "${DATABASES[@]}"; do
	for w in "${WORKLOADS[@]}"; do
		for c in "${CLIENTS[@]}"; do cells+=("$db $w $c"); done
	done
done
for round in $(seq 1 "$ROUNDS"); do
	for i in "${!cells[@]}"; do
		# the configurations rotated by (cell + round): each in each place equally often
		for k in "${!CONFIGS[@]}"; do
			config=${CONFIGS[$(( (k + i + round) % ${#CONFIGS[@]} ))]}
			# shellcheck disable=SC2086
			run_cell "$round" "$config" ${cells[$i]}
		done
	done
done
stop_server
LOAD_END=$(cut -d' ' -f1-3 /proc/loadavg)
T_END=$(date +%s)

# ---- the report ----
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) { print "n/a"; exit } if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
field_of() {	# field_of <config> <db> <workload> <clients> <field>: values in round order
	awk -v c="$1" -v d="$2" -v w="$3" -v n="$4" -v f="$5" '$2 == c && $3 == d && $4 == w && $5 == n { print $f }' "$RUNS_FILE"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "n/a" || b == "n/a" || b + 0 == 0) print "n/a"; else printf "%.3f", a / b }'; }
round_ratios() {	# round_ratios <config> <db> <workload> <clients>: with / without of each round
	paste -d' ' <(field_of "$1" "$2" "$3" "$4" 6) <(field_of without "$2" "$3" "$4" 6) |
		awk '{ printf "%s%.3f", (NR > 1 ? ", " : ""), $1 / $2 }'
}
workload_label() {
	case "$1" in
		select) echo '`-S`' ;;
		prepared) echo '`-S -M prepared`' ;;
		tpcb) echo 'TPC-B-like' ;;
	esac
}
db_label() { if [ "$1" = plain ]; then echo "without extension"; else echo "CREATE EXTENSION, labels"; fi; }
config_label() {
	case "$1" in
		without) echo "without the library" ;;
		with) echo "with anon_dp ($COMMIT)" ;;
		before) echo "with anon_dp ${BEFORE_LABEL:-(--before-bin)}" ;;
	esac
}

{
	echo "# anon_dp library overhead: ordinary SQL with and without the library loaded"
	echo
	echo "- date: $(date -u '+%Y-%m-%d %H:%M:%S UTC'); checkout: $COMMIT$( [ "$DIRTY" -gt 0 ] && echo " (with uncommitted changes to src/ or sql/)"); library installed $LIB_DATE"
	echo "- PostgreSQL $PG_VERSION; $("$PG_BIN/pgbench" --version); CPU: $(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo), $NCPU cores; memory $(awk '/^MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)"
	echo "- command: \`$CMDLINE\` ($ROUNDS rounds, ${DURATION} s per timed run after a ${WARMUP} s warm-up, scale $SCALE, clients ${CLIENTS_LIST}, pgbench -j 2)"
	echo "- configurations: $(for c in "${CONFIGS[@]}"; do printf '**%s** = %s; ' "$c" "$(config_label "$c")"; done | sed 's/; $//')$( [ -n "$BEFORE_BIN" ] && echo " (served by the PostgreSQL copy $BEFORE_BIN, same binaries)")"
	echo "- one throwaway cluster, stopped and started with \`-c shared_preload_libraries=...\` as the only difference; settings: $SETTINGS; pg_prewarm after each start: $( [ "$PREWARM" -eq 1 ] && echo yes || echo "no (not available)")"
	echo "- databases: **plain** = pgbench tables only, no \`CREATE EXTENSION anon_dp\`; **ext** = pgbench tables, \`CREATE EXTENSION anon_dp\`, a private table (100,000 rows, \`uid\` labelled \`privacy_unit\`), a public table, an anonymized role.  pgbench runs as the cluster owner (a superuser, not anonymized); no statement reads a labelled table"
	echo "- load average at start: $LOAD_START; at the end: $LOAD_END; 1-minute load at the start of the kept runs: $(awk '{ print $9 }' "$RUNS_FILE" | sort -g | sed -n '1p;$p' | paste -sd' ' | sed 's/ / .. /') (median $(awk '{ print $9 }' "$RUNS_FILE" | median)); the load includes this benchmark's own pgbench and its backends"
	echo "- other processes (not this script, pgbench or the server) used $(awk '{ print $8 }' "$RUNS_FILE" | sort -g | sed -n '1p;$p' | paste -sd' ' | sed 's/ / .. /') % (median $(awk '{ print $8 }' "$RUNS_FILE" | median) %) of the $NCPU cores during the kept runs; each attempt first waited for a second in which they used at most ${MAX_OTHERS} % (at most ${QUIET_WAIT} s; the kept runs waited $(awk '{ s += $12 } END { print s + 0 }' "$RUNS_FILE") s in all), and a run above ${MAX_OTHERS} % was run again (at most ${RETRIES} times, the least disturbed attempt kept): $(awk '$11 > 1' "$RUNS_FILE" | wc -l) of $(wc -l <"$RUNS_FILE") runs were rerun$( [ -n "$NOTE" ] && printf '.  %s' "$NOTE")"
	echo "- run time: $(( (T_END - T_START) / 60 )) min"
	echo
	echo "## Throughput"
	echo
	printf '| database | workload | clients |'
	for c in "${CONFIGS[@]}"; do printf ' tps %s |' "$c"; done
	for c in "${CONFIGS[@]}"; do [ "$c" = without ] || printf ' %s ÷ without |' "$c"; done
	printf ' per-round with ÷ without | server CPU µs/tx without | with |'
	[ -z "$BEFORE_BIN" ] || printf ' before |'
	printf ' target ≥ %s |\n' "$TARGET"
	printf '|---|---|---:|'
	for _ in "${CONFIGS[@]}"; do printf -- '---:|'; done
	for c in "${CONFIGS[@]}"; do [ "$c" = without ] || printf -- '---:|'; done
	printf -- '---|---:|---:|'
	[ -z "$BEFORE_BIN" ] || printf -- '---:|'
	printf -- '---|\n'
	for cell in "${cells[@]}"; do
		read -r db w c <<<"$cell"
		declare -A MED=()
		for config in "${CONFIGS[@]}"; do MED[$config]=$(field_of "$config" "$db" "$w" "$c" 6 | median); done
		r=$(ratio "${MED[with]}" "${MED[without]}")
		verdict=$(awk -v r="$r" -v t="$TARGET" 'BEGIN { print (r == "n/a" ? "n/a" : (r >= t ? "meets" : "**misses**")) }')
		printf '| %s | %s | %s |' "$db" "$(workload_label "$w")" "$c"
		for config in "${CONFIGS[@]}"; do printf ' %.0f |' "${MED[$config]}"; done
		for config in "${CONFIGS[@]}"; do [ "$config" = without ] || printf ' %s |' "$(ratio "${MED[$config]}" "${MED[without]}")"; done
		printf ' %s | %s | %s |' "$(round_ratios with "$db" "$w" "$c")" \
			"$(field_of without "$db" "$w" "$c" 7 | median)" "$(field_of with "$db" "$w" "$c" 7 | median)"
		[ -z "$BEFORE_BIN" ] || printf ' %s |' "$(field_of before "$db" "$w" "$c" 7 | median)"
		printf ' %s |\n' "$verdict"
		unset MED
	done
	echo
	echo "tps: median over the rounds of pgbench's \"tps ... without initial connection time\"; ratios are of the medians; per-round: the ratio of the two runs of one round, which ran back to back, each on a server started for it.  Server CPU µs/tx: median over the rounds of the CPU time of the server's processes (backends, background processes) during the run divided by the transactions, a measure that waiting for a CPU does not inflate."
	echo
	echo "## Every kept run"
	echo
	echo "| round | configuration | database | workload | clients | tps | server CPU µs/tx | other processes' CPU % | 1-min load at start | at end | attempt | s waited for quiet |"
	echo "|---:|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"
	awk '{ printf "| %s | %s | %s | %s | %s | %.0f | %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12 }' "$RUNS_FILE"
} >"$REPORT"

cat "$REPORT"
if [ "$SAVE" -eq 1 ]; then
	mkdir -p "$(dirname "$OUTPUT")"
	cp "$REPORT" "$OUTPUT"
	log "report written to $OUTPUT"
fi
