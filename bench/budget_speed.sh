#!/usr/bin/env bash
# bench/budget_speed.sh -- what charging the privacy budget costs (issue 18,
# doc/budget.md sections 4-5): every release of an anonymized role is charged
# in the ExecutorStart hook through the database's ledger worker, which
# commits the charge synchronously (a WAL flush) before the query runs.
#
# Part 1, added latency per anonymization query: pgbench, one client, per-
#   transaction latency logs; the same query run by an anonymized role
#   (charged) and by the cluster owner (a superuser: neither guarded nor
#   charged), sessions alternating round by round:
#     tiny   SELECT ANON_COUNT(*) FROM bench_budget_tiny  (1,000 rows, one
#            user each, epsilon 1, no GROUP BY)
#     Q13    bench/tpch/queries/anon/q13.sql at scale factor SF (customers
#            are the users; epsilon 0.1, delta = n^(-eps ln n), C_u = 1)
#     commit a reference, not a release: the cluster owner inserts one row
#            (one synchronous commit from a client: the flush any durable
#            charge must wait for)
#   Reported: median and p99 of each session and their differences.
# Part 2, throughput and latency under concurrency: pgbench -c 8 -j 2 and
#   -c 32 -j 2 -T T of the tiny query, as the anonymized role (transactions/s
#   = charged queries/s) and as the cluster owner, in R2 rounds with the
#   sessions alternating, each transaction's latency logged; reported: tps,
#   and the added latency (median and p99, anonymized - superuser) at 1
#   (part 1), 8 and 32 clients against one durable flush (issue 35: median
#   <= one flush + 0.5 ms, p99 <= two flushes).  After each run the ledger's
#   'charged' rows of the role must have grown by exactly pgbench's
#   transaction count (a mismatch fails the script, exit status 1).
# Where the time goes (anonymized runs): WAL flushes and their time
# (pg_stat_wal, track_wal_io_timing), the ledger worker's CPU and run-queue
# wait (/proc/<pid>/schedstat), charges per worker transaction (distinct
# xmin of the ledger rows), and pg_test_fsync on the cluster's disk.
#
# Usage: bench/budget_speed.sh [--sf SF] [--runs R] [--tiny-tx N] [--q13-tx N]
#          [--time T] [--tput-runs R2] [--clients 8,32] [--protocol simple]
#          [--skip-load] [--cluster] [--no-fsync-test] [--quick] [--note TEXT]
#          [--no-save] [--keep]
#   --sf             TPC-H scale factor of Q13, 0.01 .. 1 (default 0.1)
#   --runs           timed rounds of part 1 (default 5), after one warm-up round
#   --tiny-tx        transactions per session and round, tiny query and the
#                    commit reference (default 2000)
#   --q13-tx         Q13 executions per session and round (default 20)
#   --time           seconds of each part 2 run (pgbench -T, default 30)
#   --tput-runs      rounds of part 2 (default 3; sessions alternate)
#   --quick          for iterating (about 2 minutes): --sf 0.01 --runs 2
#                    --tiny-tx 500 --q13-tx 3 --time 8 --tput-runs 1
#                    --no-fsync-test --no-save (later options override)
#   --clients        client counts of part 2 (default 8,32; pgbench -j 2)
#   --protocol       pgbench -M: simple, extended or prepared (default simple)
#   --skip-load      use the tpch_cust schema already loaded (default:
#                    bench/tpch/load.sh -s SF --schemas tpch_cust --labels)
#   --cluster        start a throwaway cluster (tools/lib.sh start_cluster,
#                    port $ANON_DP_PORT, default 54329) and restart it with
#                    fsync = on, synchronous_commit = on (start_cluster sets
#                    fsync = off); without it, use the cluster of the PG*
#                    variables (a superuser; anon_dp preloaded; fsync on; the
#                    role bench_budget_analyst must be able to log in)
#   --no-fsync-test  skip pg_test_fsync (it runs only with --cluster, on the
#                    cluster's file system, about 20 s)
#   --note TEXT      a line added to the report's header (e.g. who else used
#                    the machine)
#   --no-save        do not write bench/results/budget_speed.md
#   --keep           keep the tables and the role in an existing cluster
# The extension must already be installed (make install); nothing is built
# (load.sh builds its generator under bench/tpch/build).  Markdown goes to
# stdout and to bench/results/budget_speed.md (a failed run leaves
# budget_speed.md.partial); progress goes to stderr.
set -euo pipefail

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TPCH="$BENCH_DIR/tpch"
CMDLINE="bench/budget_speed.sh"
[ $# -eq 0 ] || CMDLINE="$CMDLINE$(printf ' %q' "$@")"
# tools/lib.sh assigns PGPORT: keep the caller's connection settings
SAVED_PGPORT=${PGPORT-}
SAVED_PGPORT_SET=${PGPORT+set}
# shellcheck source=../tools/lib.sh
source "$BENCH_DIR/../tools/lib.sh"

SF=0.1
RUNS=5
TINY_TX=2000
Q13_TX=20
DURATION=30
TPUT_RUNS=3
CLIENTS_LIST="8,32"
PROTOCOL=simple
SKIP_LOAD=0
USE_CLUSTER=0
FSYNC_TEST=1
NOTE=""
SAVE=1
KEEP=0
ROLE=bench_budget_analyst
TINY_ROWS=1000
EPS_TINY=1
EPS_Q13=0.1            # bench/accuracy.sh's and guard_speed.sh's Q13 settings
WORK_MEM=256MB
TPUT_TARGET=300        # charged queries/s with 8 clients (issue 18)
LAT_TARGET=2           # ms of median added latency at 1 client (issue 18)
# issue 35: at 8 and 32 clients the added median within one durable flush
# plus FLUSH_SLACK ms, the added p99 within FLUSH_P99 flushes
FLUSH_SLACK=0.5
FLUSH_P99=2
RESULTS_DIR="$BENCH_DIR/results"

usage() { sed -n '2,65p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }
die() { echo "budget_speed.sh: $*" >&2; exit 2; }

while [ $# -gt 0 ]; do
	case "$1" in
		--sf) SF=${2:?--sf needs a value}; shift 2 ;;
		--sf=*) SF=${1#--sf=}; shift ;;
		--runs) RUNS=${2:?--runs needs a value}; shift 2 ;;
		--runs=*) RUNS=${1#--runs=}; shift ;;
		--tiny-tx) TINY_TX=${2:?--tiny-tx needs a value}; shift 2 ;;
		--tiny-tx=*) TINY_TX=${1#--tiny-tx=}; shift ;;
		--q13-tx) Q13_TX=${2:?--q13-tx needs a value}; shift 2 ;;
		--q13-tx=*) Q13_TX=${1#--q13-tx=}; shift ;;
		--time) DURATION=${2:?--time needs a value}; shift 2 ;;
		--time=*) DURATION=${1#--time=}; shift ;;
		--tput-runs) TPUT_RUNS=${2:?--tput-runs needs a value}; shift 2 ;;
		--tput-runs=*) TPUT_RUNS=${1#--tput-runs=}; shift ;;
		--quick) SF=0.01; RUNS=2; TINY_TX=500; Q13_TX=3; DURATION=8; TPUT_RUNS=1; FSYNC_TEST=0; SAVE=0; shift ;;
		--clients) CLIENTS_LIST=${2:?--clients needs a value}; shift 2 ;;
		--clients=*) CLIENTS_LIST=${1#--clients=}; shift ;;
		--protocol) PROTOCOL=${2:?--protocol needs a value}; shift 2 ;;
		--protocol=*) PROTOCOL=${1#--protocol=}; shift ;;
		--skip-load) SKIP_LOAD=1; shift ;;
		--cluster) USE_CLUSTER=1; shift ;;
		--no-fsync-test) FSYNC_TEST=0; shift ;;
		--note) NOTE=${2:?--note needs a value}; shift 2 ;;
		--note=*) NOTE=${1#--note=}; shift ;;
		--no-save) SAVE=0; shift ;;
		--keep) KEEP=1; shift ;;
		-h|--help) usage; exit 0 ;;
		*) echo "budget_speed.sh: unknown argument: $1" >&2; usage >&2; exit 2 ;;
	esac
done

awk -v s="$SF" 'BEGIN { exit !(s ~ /^[0-9.]+$/ && s >= 0.01 && s <= 1) }' || die "--sf must be between 0.01 and 1"
positive() {	# positive <option> <value>
	case "$2" in '' | *[!0-9]*) die "$1 must be a positive integer" ;; esac
	[ "$2" -gt 0 ] || die "$1 must be > 0"
}
positive --runs "$RUNS"
positive --tiny-tx "$TINY_TX"
positive --q13-tx "$Q13_TX"
positive --time "$DURATION"
positive --tput-runs "$TPUT_RUNS"
IFS=',' read -r -a CLIENTS <<<"$CLIENTS_LIST"
[ "${#CLIENTS[@]}" -gt 0 ] || die "--clients needs at least one client count"
for c in "${CLIENTS[@]}"; do positive --clients "$c"; done
case "$PROTOCOL" in simple | extended | prepared) ;; *) die "--protocol must be simple, extended or prepared" ;; esac

T_START=$(date +%s)
LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)
now() { date +%s; }

# ---- connection ----
if [ "$USE_CLUSTER" -eq 0 ]; then
	if [ -n "$SAVED_PGPORT_SET" ]; then PGPORT=$SAVED_PGPORT; else unset PGPORT; fi
fi
WORK_DIR=$(mktemp -d /tmp/anon_dp_budget_bench.XXXXXX)
# pgbench runs as the cluster's user and writes its logs here
chmod 777 "$WORK_DIR"
OUT="$WORK_DIR/budget_speed.md"
RUNS_FILE="$WORK_DIR/runs"     # one line per pgbench run (see record_run)
: >"$RUNS_FILE"
SETUP_DONE=0
cleanup() {
	local rc=$?
	if [ "$rc" -ne 0 ] && [ "$SAVE" -eq 1 ] && [ -s "$OUT" ]; then
		mkdir -p "$RESULTS_DIR"
		cp "$OUT" "$RESULTS_DIR/budget_speed.md.partial"
		log "failed (status $rc); the report is in $RESULTS_DIR/budget_speed.md.partial"
	fi
	if [ "$USE_CLUSTER" -eq 0 ] && [ "$KEEP" -eq 0 ] && [ "$SETUP_DONE" -eq 1 ]; then
		q -c "SET client_min_messages = warning" \
			-c "DROP TABLE IF EXISTS public.bench_budget_tiny, public.bench_budget_commit" >/dev/null 2>&1 || true
		# the role keeps its budget and ledger rows (doc/budget.md section 7)
		q -c "DROP OWNED BY $ROLE" -c "DROP ROLE IF EXISTS $ROLE" >/dev/null 2>&1 || true
	fi
	rm -rf "$WORK_DIR"
	if [ "$USE_CLUSTER" -eq 1 ]; then stop_cluster; fi
	true
}
trap cleanup EXIT
if [ "$USE_CLUSTER" -eq 1 ]; then
	for attempt in 1 2 3 4 5; do
		if start_cluster; then break; fi
		failed_dir=$CLUSTER_DIR
		stop_cluster
		[ -n "$failed_dir" ] && rm -rf "$failed_dir"
		[ "$attempt" -lt 5 ] || die "cannot start a cluster (is anon_dp installed?)"
		log "cluster start failed (attempt $attempt; the library may be being reinstalled); retrying in 5 s"
		sleep 5
	done
	q() { pg_psql "$@"; }
	# tpch_cust takes about 2.3 GB at SF 1; keep it and the ledger cached.
	# fsync = on overrides start_cluster's fsync = off (the last line wins):
	# the charge's commit must reach the disk, as in production.
	RAM_MB=$(awk '/^MemTotal/ { print int($2 / 1024) }' /proc/meminfo)
	SB_MB=$(awk -v s="$SF" -v r="$RAM_MB" 'BEGIN { m = int(s * 2304) + 256; if (m > r * 0.5) m = int(r * 0.5); print m }')
	log "restarting the cluster with fsync = on, synchronous_commit = on, shared_buffers = ${SB_MB}MB"
	printf '%s\n' "fsync = on" "synchronous_commit = on" "track_wal_io_timing = on" \
		"shared_buffers = '${SB_MB}MB'" "work_mem = '$WORK_MEM'" "jit = off" \
		"max_connections = 100" "max_wal_size = '4GB'" |
		as_pg tee -a "$CLUSTER_DIR/data/postgresql.conf" >/dev/null
	as_pg "$PG_BIN/pg_ctl" -D "$CLUSTER_DIR/data" -l "$CLUSTER_DIR/server.log" -w restart >/dev/null
	pgb() { as_pg env PGHOST="$PGHOST" PGPORT="$PGPORT" PGUSER="$PGUSER" PGDATABASE="$PGDATABASE" \
		PGOPTIONS="$PGB_OPTIONS" "$PG_BIN/pgbench" "$@"; }
else
	q() { "$PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 "$@"; }
	q -At -c "SELECT 1" >/dev/null ||
		die "cannot connect with the PG* environment variables; pass --cluster to start a throwaway cluster"
	pgb() { env PGOPTIONS="$PGB_OPTIONS" "$PG_BIN/pgbench" "$@"; }
fi
qv() { q -At -F '|' -c "$1"; }

[ "$(qv "SELECT rolsuper FROM pg_roles WHERE rolname = current_user")" = t ] ||
	die "the PG* user must be a superuser (it is the uncharged session and creates the role)"
qv "SELECT 'ok' WHERE current_setting('shared_preload_libraries') ~ 'anon_dp'" | grep -q ok ||
	die "anon_dp is not in shared_preload_libraries of this cluster"
[ "$(qv "SHOW fsync")" = on ] ||
	die "fsync is off in this cluster: a charge's commit would not reach the disk; measure with fsync = on (or pass --cluster)"
q -c "SET client_min_messages = warning" -c "CREATE EXTENSION IF NOT EXISTS anon_dp" >/dev/null
PG_VERSION=$(qv "SHOW server_version")
EXT_VERSION=$(qv "SELECT extversion FROM pg_extension WHERE extname = 'anon_dp'")
EXT_SCHEMA=$(qv "SELECT quote_ident(extnamespace::regnamespace::text) FROM pg_extension WHERE extname = 'anon_dp'")
LEDGER="$EXT_SCHEMA.anon_dp_ledger"
SETTINGS=$(qv "SELECT string_agg(name || ' = ' || CASE current_setting(name) WHEN '' THEN '(empty)' ELSE current_setting(name) END, ', ' ORDER BY name) FROM pg_settings
	WHERE name IN ('fsync', 'synchronous_commit', 'wal_sync_method', 'full_page_writes', 'wal_level',
		'commit_delay', 'shared_buffers', 'max_connections', 'track_wal_io_timing', 'synchronous_standby_names')")
WAL_SYNC_METHOD=$(qv "SHOW wal_sync_method")
DATA_DIR=$(qv "SHOW data_directory" 2>/dev/null || echo "")
LIB_FILE="$("$PG_BIN/pg_config" --pkglibdir)/anon_dp.so"
lib_date() { date -u -r "$LIB_FILE" '+%Y-%m-%d %H:%M:%S UTC' 2>/dev/null || echo unknown; }
LIB_DATE=$(lib_date)
COMMIT=$(git -C "$BENCH_DIR/.." rev-parse --short HEAD 2>/dev/null || echo unknown)
DIRTY=$(git -C "$BENCH_DIR/.." status --porcelain --untracked-files=no -- src sql 2>/dev/null | wc -l)
PGBENCH_VERSION=$("$PG_BIN/pgbench" --version)

# The ledger worker's CPU time is read from /proc: only for a local server
# whose postmaster this script can see.
LOCAL=0
POSTMASTER_PID=""
if [ "$(qv "SELECT inet_server_addr() IS NULL")" = t ] && [ -n "$DATA_DIR" ] &&
	[ -r "$DATA_DIR/postmaster.pid" ]; then
	POSTMASTER_PID=$(head -n 1 "$DATA_DIR/postmaster.pid")
	if [ -r "/proc/$POSTMASTER_PID/schedstat" ]; then LOCAL=1; else POSTMASTER_PID=""; fi
fi

# ---- pg_test_fsync: how long one flush takes on this disk ----
FSYNC_LINE="not measured"
FSYNC_OUT=""
if [ "$USE_CLUSTER" -eq 1 ] && [ "$FSYNC_TEST" -eq 1 ]; then
	log "pg_test_fsync on the cluster's file system (1 s per test)"
	FSYNC_OUT=$(as_pg "$PG_BIN/pg_test_fsync" -s 1 -f "$CLUSTER_DIR/pg_test_fsync.tmp" 2>&1 | sed -n '/one 8kB write/,/^$/p') || true
	as_pg rm -f "$CLUSTER_DIR/pg_test_fsync.tmp"
	FSYNC_LINE=$(awk -v m="$WAL_SYNC_METHOD" '$1 == m && /usecs/ { printf "%s: %s ops/s, %.2f ms per flush of one 8 kB write", m, $2, $4 / 1000; exit }' <<<"$FSYNC_OUT")
	[ -n "$FSYNC_LINE" ] || FSYNC_LINE="no result for $WAL_SYNC_METHOD (see the appendix)"
fi

# ---- data ----
LOAD_SECONDS=-
if [ "$SKIP_LOAD" -eq 0 ]; then
	log "loading TPC-H SF $SF (schema tpch_cust, labels)"
	t0=$(now)
	"$TPCH/load.sh" -s "$SF" --schemas tpch_cust --labels >"$WORK_DIR/load.md"
	LOAD_SECONDS=$(( $(now) - t0 ))
else
	q -c "SET client_min_messages = warning" -f "$TPCH/labels.sql" >/dev/null
fi
DATA_SF=$(qv "SELECT round(count(*) / 150000.0, 2) FROM tpch_cust.customer" 2>/dev/null || echo none)
awk -v a="$DATA_SF" -v b="$SF" 'BEGIN { exit !(a == b + 0) }' ||
	die "the loaded data are SF $DATA_SF, not $SF (drop --skip-load)"
N_CUST=$(qv "SELECT count(*) FROM tpch_cust.customer")
DELTA_Q13=$(qv "SELECT exp(-$EPS_Q13 * ln($N_CUST) ^ 2)")
log "tables bench_budget_tiny ($TINY_ROWS rows) and bench_budget_commit; role $ROLE"
q <<SQL >/dev/null
SET client_min_messages = warning;
DROP TABLE IF EXISTS public.bench_budget_tiny, public.bench_budget_commit;
CREATE TABLE public.bench_budget_tiny AS SELECT u AS uid FROM generate_series(1, $TINY_ROWS) u;
SECURITY LABEL FOR anon_dp ON COLUMN public.bench_budget_tiny.uid IS 'privacy_unit';
VACUUM ANALYZE public.bench_budget_tiny;
CREATE TABLE public.bench_budget_commit (i int);
DO \$\$ BEGIN
	IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '$ROLE') THEN CREATE ROLE $ROLE LOGIN; END IF;
END \$\$;
SECURITY LABEL FOR anon_dp ON ROLE $ROLE IS 'anonymized';
GRANT USAGE ON SCHEMA public, tpch_cust TO $ROLE;
-- a budget no run exhausts (the charge's cost does not depend on it)
SELECT anon_dp_set_budget('$ROLE', 1e6, 1);
SELECT anon_dp_reset_budget('$ROLE');
-- Q13's delta n^(-eps ln n) is above the default cap of 1e-5 at SF < 1
ALTER ROLE $ROLE SET anon_dp.max_delta = $DELTA_Q13;
SQL
SETUP_DONE=1
LEVEL_ANON=$(q -U "$ROLE" -At -c "SELECT anon_dp_access_level()")
[ "$LEVEL_ANON" = anonymized ] || die "$ROLE's session is $LEVEL_ANON, not anonymized"
[ "$(qv "SELECT anon_dp_access_level()")" = full ] || die "the owner's session is not full"

# pgbench scripts (one statement each)
printf 'SELECT ANON_COUNT(*) FROM bench_budget_tiny;\n' >"$WORK_DIR/tiny.sql"
sed -n '/^SELECT$/,$p' "$TPCH/queries/anon/q13.sql" >"$WORK_DIR/q13.sql"
printf 'INSERT INTO bench_budget_commit VALUES (1);\n' >"$WORK_DIR/commit.sql"
chmod 644 "$WORK_DIR"/*.sql
COMMON_OPTS="-c jit=off -c max_parallel_workers_per_gather=0 -c work_mem=$WORK_MEM"
TINY_OPTS="$COMMON_OPTS -c search_path=public -c anon_dp.epsilon=$EPS_TINY"
Q13_OPTS="$COMMON_OPTS -c search_path=tpch_cust,public -c anon_dp.epsilon=$EPS_Q13 -c anon_dp.delta=$DELTA_Q13 -c anon_dp.max_groups_contributed=1 -c anon_dp.max_rows_contributed=0"
opts_of() { case "$1" in tiny | commit) printf '%s' "$TINY_OPTS" ;; q13) printf '%s' "$Q13_OPTS" ;; esac; }

# ---- helpers ----
worker_count() {
	qv "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'anon_dp ledger worker' AND datname = current_database()"
}
# the ledger worker leaves 2 s after its last charge; wait for it so that each
# anonymized run starts its own worker (whose CPU time is then this run's)
# and its WAL statistics (reported when it exits) are in pg_stat_wal
wait_worker_gone() {
	local _
	for _ in $(seq 1 100); do
		[ "$(worker_count)" -eq 0 ] && return 0
		sleep 0.2
	done
	die "the ledger worker did not leave within 20 s after the last charge"
}
# "<cpu ns> <run-queue wait ns>" of the running ledger worker, or "n/a n/a"
worker_sched() {
	local pid
	pid=$(qv "SELECT pid FROM pg_stat_activity WHERE backend_type = 'anon_dp ledger worker' AND datname = current_database() LIMIT 1")
	if [ "$LOCAL" -eq 1 ] && [ -n "$pid" ] && [ -r "/proc/$pid/schedstat" ]; then
		awk '{ print $1, $2 }' "/proc/$pid/schedstat"
	else
		echo "n/a n/a"
	fi
}
# "<charged rows> <refused rows> <last entry>" of the role in the ledger
ledger_state() {
	qv "SELECT count(*) FILTER (WHERE outcome = 'charged'), count(*) FILTER (WHERE outcome = 'refused'),
		(SELECT coalesce(max(entry), 0) FROM $LEDGER) FROM $LEDGER WHERE role = '$ROLE'::regrole" | tr '|' ' '
}
# "<worker transactions> <releases>" of the role's charges after entry $1
ledger_batches() {
	qv "SELECT count(DISTINCT xmin::text), coalesce(sum(releases), 0) FROM $LEDGER
		WHERE role = '$ROLE'::regrole AND outcome = 'charged' AND entry > $1" | tr '|' ' '
}
# "<flushes> <flush ms> <writes> <write ms>" since the last reset
wal_stats() {
	qv "SELECT wal_sync, round(wal_sync_time::numeric, 3), wal_write, round(wal_write_time::numeric, 3) FROM pg_stat_wal" | tr '|' ' '
}

# CPU time of the machine and of this benchmark, to tell how much other jobs
# used: "<busy jiffies of all CPUs> <jiffies of this script, its children
# (pgbench, psql) and the server>" or "n/a n/a".  The server's share is the
# postmaster's own and reaped children's time plus that of its live children.
CLK_TCK=$(getconf CLK_TCK)
cpu_snap() {
	local busy ours pm_ticks kids
	[ -n "$POSTMASTER_PID" ] || { echo "n/a n/a"; return; }
	busy=$(awk '$1 == "cpu" { print $2 + $3 + $4 + $7 + $8; exit }' /proc/stat)
	ours=$(awk '{ print $14 + $15 + $16 + $17 }' "/proc/$$/stat")
	pm_ticks=$(awk '{ print $14 + $15 + $16 + $17 }' "/proc/$POSTMASTER_PID/stat" 2>/dev/null || echo 0)
	kids=$(tr ' ' '\n' <"/proc/$POSTMASTER_PID/task/$POSTMASTER_PID/children" 2>/dev/null |
		while read -r k; do [ -z "$k" ] || awk '{ print $14 + $15 }' "/proc/$k/stat" 2>/dev/null || true; done |
		awk '{ s += $1 } END { print s + 0 }')
	echo "$busy $((ours + pm_ticks + kids))"
}
# others_pct <busy0> <ours0> <busy1> <ours1> <seconds>: the percentage of all
# cores used by processes outside this benchmark
others_pct() {
	awk -v b0="$1" -v o0="$2" -v b1="$3" -v o1="$4" -v t="$5" -v hz="$CLK_TCK" -v n="$(nproc)" 'BEGIN {
		if (b0 == "n/a" || t + 0 <= 0) { printf "n/a"; exit }
		x = (b1 - b0) - (o1 - o0); if (x < 0) x = 0
		printf "%.0f", x / (t * hz * n) * 100 }'
}

MISMATCH=0
# run_bench <part> <query> <kind> <round> <pgbench options...>: one pgbench
# run; appends to $RUNS_FILE (round 0, the warm-up, is not recorded):
#   part query kind round clients transactions tps charged_delta refused_delta
#   worker_tx releases cpu_ns wait_ns flushes flush_ms load1 seconds others_pct
# and keeps the per-transaction latencies (microseconds, the first
# transaction of each client left out) in $WORK_DIR/lat.<part>.<query>.<kind>.<round>,
# the first transactions in ...first.
run_bench() {
	local part=$1 query=$2 kind=$3 round=$4 tag out rc ntx tps user
	local c0 r0 e0 c1 r1 wtx rel cpu wait syncs sync_ms load1 t0 t1 t2 clients
	local busy0 ours0 busy1 ours1
	shift 4
	tag="$part.$query.$kind.$round"
	user=$PGUSER
	[ "$kind" = anon ] && user=$ROLE
	wait_worker_gone
	read -r c0 r0 e0 < <(ledger_state)
	qv "SELECT pg_stat_reset_shared('wal')" >/dev/null
	load1=$(cut -d' ' -f1 /proc/loadavg)
	read -r busy0 ours0 < <(cpu_snap)
	t0=$(date +%s.%N)
	set +e
	out=$(cd "$WORK_DIR" && PGB_OPTIONS=$(opts_of "$query") pgb -n -M "$PROTOCOL" -U "$user" \
		--log --log-prefix="$WORK_DIR/log.$tag" -f "$WORK_DIR/$query.sql" "$@" 2>&1)
	rc=$?
	set -e
	t1=$(date +%s.%N)
	cpu="n/a n/a"
	[ "$kind" = anon ] && cpu=$(worker_sched)
	printf '%s\n' "$out" >"$WORK_DIR/pgbench.$tag.out"
	[ "$rc" -eq 0 ] || { printf '%s\n' "$out" >&2; die "pgbench failed ($part $query, $kind session, round $round)"; }
	ntx=$(sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p' <<<"$out")
	tps=$(sed -n 's/^tps = \([0-9.]*\) .*/\1/p' <<<"$out" | awk '{ printf "%.1f", $1 }')
	clients=$(sed -n 's/^number of clients: \([0-9]*\)/\1/p' <<<"$out")
	if [ -z "$ntx" ] || [ -z "$tps" ]; then die "cannot read pgbench's output ($tag): $out"; fi
	wait_worker_gone
	read -r busy1 ours1 < <(cpu_snap)
	t2=$(date +%s.%N)
	read -r syncs sync_ms _ _ < <(wal_stats)
	read -r c1 r1 _ < <(ledger_state)
	read -r wtx rel < <(ledger_batches "$e0")
	# every charged transaction is one ledger row, uncharged ones none
	local expect=0
	[ "$kind" = anon ] && expect=$ntx
	if [ $((c1 - c0)) -ne "$expect" ] || [ "$rel" -ne "$expect" ] || [ $((r1 - r0)) -ne 0 ]; then
		MISMATCH=1
		log "MISMATCH ($tag): pgbench $ntx transactions, ledger 'charged' +$((c1 - c0)) (releases $rel), 'refused' +$((r1 - r0)); expected +$expect"
	fi
	log "$tag: $ntx transactions, $tps tps; ledger charged +$((c1 - c0)) in $wtx worker transactions; $syncs WAL flushes"
	# a client's transactions are logged in the order they end: its first
	# line is its first transaction
	cat "$WORK_DIR/log.$tag".* | awk 'seen[$1]++ { print $3 }' >"$WORK_DIR/lat.$tag"
	cat "$WORK_DIR/log.$tag".* | awk '!seen[$1]++ { print $3 }' >"$WORK_DIR/first.$tag"
	rm -f "$WORK_DIR/log.$tag".*
	grep -qv '^[0-9][0-9]*$' "$WORK_DIR/lat.$tag" && die "pgbench logged failed or skipped transactions ($tag)"
	[ "$round" = 0 ] ||
		echo "$part $query $kind $round $clients $ntx $tps $((c1 - c0)) $((r1 - r0)) $wtx $rel $cpu $syncs $sync_ms $load1 $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') $(others_pct "$busy0" "$ours0" "$busy1" "$ours1" "$(awk -v a="$t0" -v b="$t2" 'BEGIN { print b - a }')")" >>"$RUNS_FILE"
}

# stats of microsecond values on stdin: "n median p99 mean min max" in ms
# (nearest rank: p99 is the value at rank ceil(0.99 n))
lat_stats() {
	sort -n | awk '{ v[NR] = $1; s += $1 } END {
		if (NR == 0) { print "0 n/a n/a n/a n/a n/a"; exit }
		m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		r = int(0.99 * NR); if (r < 0.99 * NR) r++
		printf "%d %.3f %.3f %.3f %.3f %.3f\n", NR, m / 1000, v[r] / 1000, s / NR / 1000, v[1] / 1000, v[NR] / 1000 }'
}
lats() {	# lats <part> <query> <kind> [round]: the latency files' values
	local f
	for f in "$WORK_DIR/lat.$1.$2.$3".*; do
		[ "${f##*.}" != 0 ] || continue	# the warm-up round
		[ -z "${4:-}" ] || [ "$f" = "$WORK_DIR/lat.$1.$2.$3.$4" ] || continue
		cat "$f"
	done
}
tlats() {	# tlats <kind> <clients> [round] [query]: part 2's latencies
	local f q=${4:-tiny}
	for f in "$WORK_DIR/lat.tput.$q.$1.$2x"*; do
		[ -z "${3:-}" ] || [ "$f" = "$WORK_DIR/lat.tput.$q.$1.$2x$3" ] || continue
		cat "$f"
	done
}
diff_ms() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "n/a" || b == "n/a") printf "n/a"; else printf "%.3f", a - b }'; }
# verdict <op> <limit> <value>...: "meets" when every value meets it, "misses"
# when none does, "unclear (noise)" otherwise (n/a values skipped)
verdict() {
	local op=$1 lim=$2
	shift 2
	printf '%s\n' "$@" | awk -v op="$op" -v lim="$lim" '
		$1 == "n/a" || $1 == "" { next }
		{ n++; if ((op == "le") ? ($1 + 0 <= lim + 0) : ($1 + 0 >= lim + 0)) ok++ }
		END {
			if (n == 0) print "n/a"
			else if (ok == n) print "meets"
			else if (ok == 0) print "**misses**"
			else print "unclear (noise)"
		}'
}
runs_of() {	# runs_of <part> <query> <kind>: the $RUNS_FILE lines
	awk -v p="$1" -v q="$2" -v k="$3" '$1 == p && $2 == q && $3 == k' "$RUNS_FILE"
}
# sums over runs: "<transactions> <worker tx> <cpu ns> <wait ns> <flushes> <flush ms>"
run_sums() {
	runs_of "$@" | awk '{ tx += $6; w += $10; if ($12 != "n/a") { c += $12; cw += $13; nc++ }
		f += $14; fm += $15 }
		END { printf "%d %d %s %s %d %.3f\n", tx, w, (nc ? c : "n/a"), (nc ? cw : "n/a"), f, fm }'
}
per() {	# per <total> <count> <scale>: total / count * scale, 3 decimals
	awk -v t="$1" -v n="$2" -v s="${3:-1}" 'BEGIN { if (t == "n/a" || n + 0 <= 0) printf "n/a"; else printf "%.3f", t / n * s }'
}

# ---- part 1: latency ----
T_PART1=$(now)
LAT_QUERIES=(tiny q13 commit)
tx_of() { case "$1" in q13) echo "$Q13_TX" ;; *) echo "$TINY_TX" ;; esac; }
kinds_of() { case "$1" in commit) echo full ;; *) echo "full anon" ;; esac; }
for round in $(seq 0 "$RUNS"); do
	if [ "$round" -eq 0 ]; then log "part 1: warm-up round"; else log "part 1: round $round of $RUNS"; fi
	for query in "${LAT_QUERIES[@]}"; do
		n=$(tx_of "$query")
		[ "$round" -gt 0 ] || n=$(( n / 10 + 2 ))
		kinds=$(kinds_of "$query")
		# alternate which session goes first
		[ $((round % 2)) -eq 0 ] && kinds=$(tr ' ' '\n' <<<"$kinds" | tac | tr '\n' ' ')
		for kind in $kinds; do
			run_bench lat "$query" "$kind" "$round" -c 1 -j 1 -t "$n"
		done
	done
done
PART1_SECONDS=$(( $(now) - T_PART1 ))

# ---- part 2: throughput ----
T_PART2=$(now)
# a run's "round" is <clients>x<round>; the sessions alternate as in part 1
for r in $(seq 1 "$TPUT_RUNS"); do
	for c in "${CLIENTS[@]}"; do
		kinds="anon full"
		[ $((r % 2)) -eq 0 ] && kinds="full anon"
		for kind in $kinds; do
			log "part 2: round $r of $TPUT_RUNS, $c clients, $kind session, $DURATION s"
			run_bench tput tiny "$kind" "${c}x$r" -c "$c" -j 2 -T "$DURATION"
		done
		# what PostgreSQL's own synchronous commit costs at this concurrency
		log "part 2: round $r of $TPUT_RUNS, $c clients, commit reference, $DURATION s"
		run_bench tput commit full "${c}x$r" -c "$c" -j 2 -T "$DURATION"
	done
done
PART2_SECONDS=$(( $(now) - T_PART2 ))

# ---- report ----
log "writing the report"
LOAD_END=$(cut -d' ' -f1-3 /proc/loadavg)
NCPU=$(nproc)
kind_label() { case "$1" in full) echo "superuser (not charged)" ;; anon) echo "anonymized (charged)" ;; esac; }
query_label() {
	case "$1" in
		tiny) echo "tiny: \`SELECT ANON_COUNT(*) FROM bench_budget_tiny\`" ;;
		q13) echo "TPC-H Q13, SF $SF" ;;
		commit) echo "reference: \`INSERT\` of one row, synchronous commit" ;;
	esac
}
LOADS=$(awk '{ print $16 }' "$RUNS_FILE" | sort -g | awk '{ v[NR] = $1 } END { if (NR) printf "%s .. %s (median %s)", v[1], v[NR], v[int((NR + 1) / 2)] }')
OTHERS=$(awk '$18 != "n/a" { print $18 }' "$RUNS_FILE" | sort -g | awk '{ v[NR] = $1 } END { if (NR) printf "%s %s %s", v[1], v[NR], v[int((NR + 1) / 2)]; else printf "n/a" }')
if [ "$OTHERS" = n/a ]; then
	SHARED_LINE="the CPU time of other processes was not measured (the server is not local); see the load averages"
else
	read -r o_min o_max o_med <<<"$OTHERS"
	SHARED_LINE="processes outside this benchmark used $o_min % .. $o_max % (median $o_med %) of the $NCPU cores during the timed runs (/proc/stat busy time minus that of this script, pgbench, psql and the server); the load averages include this benchmark's own processes"
	[ "$o_max" -ge 5 ] && SHARED_LINE="**the machine was shared**: $SHARED_LINE"
fi

{
echo "# anon_dp budget speed: what charging the privacy budget costs"
echo
echo "- date: $(date -u '+%Y-%m-%d %H:%M:%S UTC'); checkout: $COMMIT$( [ "$DIRTY" -gt 0 ] && echo " (with uncommitted changes under src/ or sql/)"); anon_dp $EXT_VERSION, library installed $LIB_DATE"
echo "- PostgreSQL $PG_VERSION; $PGBENCH_VERSION; CPU: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1), $NCPU cores; memory $(awk '/^MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo); disk of the cluster: $(df -h "${DATA_DIR:-/tmp}" 2>/dev/null | awk 'NR == 2 { print $1 }' || echo unknown)"
echo "- load average at start: $LOAD_START; at the end: $LOAD_END; 1-minute load at the start of the $(wc -l <"$RUNS_FILE") timed runs: $LOADS"
echo "- other jobs: $SHARED_LINE$( [ -n "$NOTE" ] && printf '.  %s' "$NOTE")"
echo "- command: \`$( [ "$USE_CLUSTER" -eq 1 ] && printf 'ANON_DP_PORT=%s ' "$PGPORT")$CMDLINE\` (SF $SF, $RUNS rounds, $TINY_TX tiny and commit transactions and $Q13_TX Q13 executions per session and round, $TPUT_RUNS rounds of $DURATION s per client count and session in part 2$( [ "$SKIP_LOAD" -eq 1 ] && echo ", data already loaded")$( [ "$USE_CLUSTER" -eq 1 ] && echo ", throwaway cluster"))"
echo "- server settings: $SETTINGS$( [ "$USE_CLUSTER" -eq 1 ] && echo " (the throwaway cluster is restarted with fsync = on, synchronous_commit = on after \`tools/lib.sh start_cluster\`'s fsync = off)")"
echo "- disk: pg_test_fsync on the cluster's file system: $FSYNC_LINE"
echo "- sessions: **anonymized** = \`$ROLE\` (\`SECURITY LABEL FOR anon_dp ON ROLE $ROLE IS 'anonymized'\`, \`anon_dp_set_budget('$ROLE', 1e6, 1)\` and a reset at the start, \`ALTER ROLE $ROLE SET anon_dp.max_delta = $DELTA_Q13\` for Q13's δ; no privilege on the private tables): its guard checks each statement and each release is charged; **superuser** = the cluster owner ($(qv "SELECT current_user")): not anonymized, so neither guarded nor charged"
echo "- queries, via pgbench \`-n -M $PROTOCOL\`, one statement per transaction, session settings in PGOPTIONS (\`$COMMON_OPTS\`):"
echo "  - tiny: \`SELECT ANON_COUNT(*) FROM bench_budget_tiny\` (1,000 rows, one per user, \`uid\` labelled \`privacy_unit\`), anon_dp.epsilon = $EPS_TINY, no \`GROUP BY\`: one release of ε $EPS_TINY, δ 0"
echo "  - Q13: \`tpch/queries/anon/q13.sql\` (schema tpch_cust, customers are the users), anon_dp.epsilon = $EPS_Q13, anon_dp.delta = $DELTA_Q13 (n^(−ε ln n), n = $N_CUST customers), max_groups_contributed = 1, max_rows_contributed = 0: one release"
echo "  - commit reference: \`INSERT INTO bench_budget_commit VALUES (1)\` by the superuser: one synchronous commit of a client, what any durable per-query charge costs at least"
echo "- part 1: pgbench \`-c 1 -j 1 -t N\` with per-transaction logs (\`--log\`: each transaction's latency in µs, measured by pgbench from the start of the transaction to the end of its result; pgbench reuses a clock reading within one pass of its event loop, so a single value can be tens of µs short, down to 0 for a fast statement: this moves sub-millisecond minimums, not the milliseconds compared here); the first transaction of each run is left out of the statistics (the backend's caches, and in the anonymized session the start of the ledger worker; they are listed separately).  One warm-up round, then $RUNS rounds; in each round the sessions alternate (superuser first in odd rounds).  Before every run the script waits for the ledger worker of the previous one to leave (2 s after its last charge), so every anonymized run starts its own worker.  Median and p99 (nearest rank) over all transactions of all rounds; the added latency is the difference of the two sessions' medians (and of their p99s)."
echo "- part 2: pgbench \`-c C -j 2 -T $DURATION\` of the tiny query with per-transaction logs, $TPUT_RUNS rounds, the sessions alternating (anonymized first in odd rounds), the first transaction of each client left out; tps as pgbench reports it (without connection time).  After each run the role's \`'charged'\` rows in \`$LEDGER\` are counted again: the increase must equal pgbench's transaction count (and 0 after a superuser run), with no \`'refused'\` row."
echo "- where the time goes: WAL flushes and their total time from \`pg_stat_wal\` (\`track_wal_io_timing = on\`; reset before each run, read after the ledger worker has left, since a background worker reports its WAL statistics when it exits; all processes of the cluster count), the ledger worker's CPU time and run-queue wait from \`/proc/<pid>/schedstat\` read right after pgbench ends$( [ "$LOCAL" -eq 1 ] || echo " (not available: the server is not local)"), and the worker's transactions as the distinct \`xmin\` of the run's ledger rows (one worker transaction decides every charge pending when it starts)"
echo "- run time: load $LOAD_SECONDS s, part 1 $PART1_SECONDS s, part 2 $PART2_SECONDS s, whole script $(( $(now) - T_START )) s"
echo
echo "## Part 1: added latency per anonymization query"
echo
echo "| query | session | transactions | median ms | p99 ms | mean ms | min ms | max ms | first transaction of a run, median ms |"
echo "|---|---|---:|---:|---:|---:|---:|---:|---:|"
declare -A MED=() P99=()
for query in "${LAT_QUERIES[@]}"; do
	for kind in $(kinds_of "$query"); do
		read -r n med p99 mean mn mx < <(lats lat "$query" "$kind" | lat_stats)
		MED[$query.$kind]=$med
		P99[$query.$kind]=$p99
		first=$(for f in "$WORK_DIR/first.lat.$query.$kind".*; do [ "${f##*.}" = 0 ] || cat "$f"; done | lat_stats | awk '{ print $2 }')
		echo "| $(query_label "$query") | $(kind_label "$kind") | $n | $med | $p99 | $mean | $mn | $mx | $first |"
	done
done
echo
echo "Added latency = anonymized − superuser.  It holds the charge (the ExecutorStart walk of the plan, the hand-over to the ledger worker and the wait for its synchronous commit) and also the guard's per-statement work in the anonymized session (parse analysis: well under 0.1 ms, \`results/guard_speed.md\`; Q13's \`NOT LIKE\` is evaluated SAFE there, about 1 % of Q13 in guard_speed.md, i.e. within this Q13's noise).  Per round: the difference of that round's medians."
echo
echo "| query | median added ms | p99 added ms | per-round median added ms | target: median added <= $LAT_TARGET ms |"
echo "|---|---:|---:|---|---|"
for query in tiny q13; do
	md=$(diff_ms "${MED[$query.anon]}" "${MED[$query.full]}")
	pd=$(diff_ms "${P99[$query.anon]}" "${P99[$query.full]}")
	rounds=""
	for r in $(seq 1 "$RUNS"); do
		a=$(lats lat "$query" anon "$r" | lat_stats | awk '{ print $2 }')
		f=$(lats lat "$query" full "$r" | lat_stats | awk '{ print $2 }')
		rounds="$rounds $(diff_ms "$a" "$f")"
	done
	# shellcheck disable=SC2086  # one value per round
	echo "| $(query_label "$query") | $md | $pd | $(echo $rounds | tr ' ' ',' | sed 's/,/, /g') | $(verdict le "$LAT_TARGET" "$md" $rounds) |"
done
echo
echo "The verdict is \"meets\" / \"misses\" when the overall median difference and every round's agree, \"unclear (noise)\" otherwise.  Q13 runs far longer than the tiny query, so a few milliseconds of difference are within its run-to-run noise on a shared machine: its row says that the charge is small next to the query, the tiny query measures it."
echo
echo "### Where the time of a charge goes (tiny query, anonymized runs)"
echo
read -r s_tx s_wtx s_cpu s_wait s_fl s_flms < <(run_sums lat tiny anon)
read -r f_tx _ _ _ f_fl _ < <(run_sums lat tiny full)
read -r c_tx _ _ _ c_fl c_flms < <(run_sums lat commit full)
FLUSH_MS=$(per "$s_flms" "$s_tx")
CPU_MS=$(per "$s_cpu" "$s_tx" 1e-6)
WAIT_MS=$(per "$s_wait" "$s_tx" 1e-6)
ADDED=$(diff_ms "${MED[tiny.anon]}" "${MED[tiny.full]}")
REST=$(awk -v a="$ADDED" -v f="$FLUSH_MS" -v c="$CPU_MS" 'BEGIN { if (a == "n/a" || f == "n/a" || c == "n/a") printf "n/a"; else printf "%.3f", a - f - c }')
echo "| part | ms per charge | source |"
echo "|---|---:|---|"
echo "| added latency (median) | $ADDED | part 1 |"
echo "| WAL flush up to the worker's commit ($WAL_SYNC_METHOD, by the waiting session; wall time around the call) | $FLUSH_MS | pg_stat_wal: $s_fl flushes ($(per "$s_flms" "$s_fl") ms each) in $s_flms ms during the anonymized runs of $s_tx charges (superuser runs: $f_fl flushes for $f_tx queries) |"
echo "| the ledger worker's CPU (its transaction: \`SELECT ... FOR UPDATE\` of the budgets, the accountant, \`UPDATE\` and \`INSERT\` of the ledger row through prepared SPI plans, the commit, the hand-over) | $CPU_MS | /proc schedstat, includes the worker's start once per run |"
echo "| everything else: the backend's side (plan walk, shared memory, the guard), the latch wake-ups, waiting for a CPU | $REST | added latency − flush − worker CPU |"
echo "| of which (and of the flush): the ledger worker runnable but waiting for a CPU | $WAIT_MS | /proc schedstat (run-queue time after its latch was set or its flush returned; other jobs on the machine add to it) |"
echo "| one synchronous commit of a client (the \`INSERT\` reference), median | ${MED[commit.full]} | part 1 ($c_fl flushes, $(per "$c_flms" "$c_fl") ms each, for $c_tx commits) |"
echo "| tiny query by the superuser (no charge), median | ${MED[tiny.full]} | part 1 |"
echo "| one flush of one 8 kB write on this disk | $(awk -v l="$FSYNC_LINE" 'BEGIN { if (match(l, /[0-9.]+ ms per flush/)) print substr(l, RSTART, RLENGTH - 13); else print "n/a" }') | pg_test_fsync ($WAL_SYNC_METHOD) |"
echo
echo "Charges per worker transaction (one commit, one flush): $(per "$s_tx" "$s_wtx") in part 1 (one client: each charge waits for its own flush).  A single session cannot be charged faster than one flush of the disk allows; part 2 shows how concurrent sessions share a flush."
echo
echo "### Every round (part 1)"
echo
echo "| query | session | round | transactions | median ms | p99 ms | first transaction ms | worker transactions | WAL flushes | flush ms each | worker CPU ms per charge | 1-min load at start | other jobs' CPU % | seconds |"
echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for query in "${LAT_QUERIES[@]}"; do
	for kind in $(kinds_of "$query"); do
		while read -r _ _ _ r _ ntx _ _ _ wtx _ cpu _ fl flms load secs others; do
			read -r _ med p99 _ < <(lats lat "$query" "$kind" "$r" | lat_stats)
			first=$(awk '{ printf "%.3f", $1 / 1000 }' "$WORK_DIR/first.lat.$query.$kind.$r")
			echo "| $query | $kind | $r | $ntx | $med | $p99 | $first | $wtx | $fl | $(per "$flms" "$fl") | $( [ "$kind" = anon ] && per "$cpu" "$ntx" 1e-6 || echo -) | $load | $others | $secs |"
		done < <(runs_of lat "$query" "$kind")
	done
done
echo
echo "## Part 2: the tiny query under concurrency"
echo
# one durable flush: what a client's synchronous commit waits for on this
# disk, measured in this run (part 1's commit reference, pg_stat_wal)
FLUSH_ONE=$(per "$c_flms" "$c_fl")
FSYNC_ONE=$(awk -v l="$FSYNC_LINE" 'BEGIN { if (match(l, /[0-9.]+ ms per flush/)) print substr(l, RSTART, RLENGTH - 13); else print "n/a" }')
MED_LIMIT=$(awk -v f="$FLUSH_ONE" -v s="$FLUSH_SLACK" 'BEGIN { if (f == "n/a") printf "n/a"; else printf "%.3f", f + s }')
P99_LIMIT=$(awk -v f="$FLUSH_ONE" -v k="$FLUSH_P99" 'BEGIN { if (f == "n/a") printf "n/a"; else printf "%.3f", f * k }')
echo "### Added latency of a charge (issue 35: median <= one flush + $FLUSH_SLACK ms, p99 <= $FLUSH_P99 flushes)"
echo
echo "One durable flush: **$FLUSH_ONE ms**, the mean wall time of the WAL flush (\`$WAL_SYNC_METHOD\`, \`pg_stat_wal.wal_sync_time\` / \`wal_sync\`) of part 1's commit reference, one client committing one row at a time in this run ($c_fl flushes); pg_test_fsync's one 8 kB write: $FSYNC_ONE ms.  So the median target is $MED_LIMIT ms and the p99 target $P99_LIMIT ms.  Added = anonymized − superuser at the same client count (medians over all rounds' transactions, and p99s); per round, the difference of that round's medians (p99s).  1 client is part 1's tiny query."
echo
echo "| clients | superuser median ms | anonymized median ms | **added median ms** | per-round added median ms | verdict (<= $MED_LIMIT) | superuser p99 ms | anonymized p99 ms | **added p99 ms** | per-round added p99 ms | verdict (<= $P99_LIMIT) | flush ms each in the anonymized runs | charged tps | superuser tps | reference: synchronous \`INSERT\` by the superuser, median / p99 ms | reference − superuser's tiny query, median / p99 ms |"
echo "|---:|---:|---:|---:|---|---|---:|---:|---:|---|---|---:|---:|---:|---|---|"
rounds1=""
rounds1p=""
for r in $(seq 1 "$RUNS"); do
	read -r _ am ap _ < <(lats lat tiny anon "$r" | lat_stats)
	read -r _ fm fp _ < <(lats lat tiny full "$r" | lat_stats)
	rounds1="$rounds1 $(diff_ms "$am" "$fm")"
	rounds1p="$rounds1p $(diff_ms "$ap" "$fp")"
done
pd1=$(diff_ms "${P99[tiny.anon]}" "${P99[tiny.full]}")
# shellcheck disable=SC2086  # one value per round
echo "| 1 | ${MED[tiny.full]} | ${MED[tiny.anon]} | $ADDED | $(echo $rounds1 | sed 's/ /, /g') | $(verdict le "$MED_LIMIT" "$ADDED" $rounds1) | ${P99[tiny.full]} | ${P99[tiny.anon]} | $pd1 | $(echo $rounds1p | sed 's/ /, /g') | $(verdict le "$P99_LIMIT" "$pd1" $rounds1p) | $FLUSH_MS | - | - | ${MED[commit.full]} / ${P99[commit.full]} | $(diff_ms "${MED[commit.full]}" "${MED[tiny.full]}") / $(diff_ms "${P99[commit.full]}" "${P99[tiny.full]}") |"
declare -A TPS=()
for c in "${CLIENTS[@]}"; do
	read -r _ am ap _ < <(tlats anon "$c" | lat_stats)
	read -r _ fm fp _ < <(tlats full "$c" | lat_stats)
	rm_=""
	rp_=""
	for r in $(seq 1 "$TPUT_RUNS"); do
		read -r _ ram rap _ < <(tlats anon "$c" "$r" | lat_stats)
		read -r _ rfm rfp _ < <(tlats full "$c" "$r" | lat_stats)
		rm_="$rm_ $(diff_ms "$ram" "$rfm")"
		rp_="$rp_ $(diff_ms "$rap" "$rfp")"
	done
	md=$(diff_ms "$am" "$fm")
	pd=$(diff_ms "$ap" "$fp")
	a_fl=$(runs_of tput tiny anon | awk -v c="$c" 'index($4, c "x") == 1 { f += $14; m += $15 } END { printf "%d %.3f", f, m }')
	TPS[$c.anon]=$(runs_of tput tiny anon | awk -v c="$c" 'index($4, c "x") == 1 { s += $7; n++ } END { if (n) printf "%.1f", s / n }')
	TPS[$c.full]=$(runs_of tput tiny full | awk -v c="$c" 'index($4, c "x") == 1 { s += $7; n++ } END { if (n) printf "%.1f", s / n }')
	# shellcheck disable=SC2086  # one value per round
	read -r _ cm cp _ < <(tlats full "$c" "" commit | lat_stats)
	echo "| $c | $fm | $am | $md | $(echo $rm_ | sed 's/ /, /g') | $(verdict le "$MED_LIMIT" "$md" $rm_) | $fp | $ap | $pd | $(echo $rp_ | sed 's/ /, /g') | $(verdict le "$P99_LIMIT" "$pd" $rp_) | $(per "${a_fl#* }" "${a_fl%% *}") | ${TPS[$c.anon]} | ${TPS[$c.full]} | $cm / $cp | $(diff_ms "$cm" "$fm") / $(diff_ms "$cp" "$fp") |"
done
echo
echo "The verdict is \"meets\" / \"misses\" when the overall difference and every round's agree, \"unclear (noise)\" otherwise.  The reference columns say what PostgreSQL's own synchronous commit of one row adds at the same concurrency (the superuser's \`INSERT\` against its tiny query): with C clients committing, a commit arriving while a flush is in progress waits for it and then for its own, about 1.5 flushes at the median, the same group commit the charges share.  With C clients on $NCPU cores pgbench runs closed loops: whatever CPU time a charge costs (the worker's transaction, the extra wake-ups) is paid C / $NCPU times over in each transaction's queueing, so at 32 clients the added latency measures CPU per charge as much as the wait for the disk."
echo
echo "### Every run (part 2)"
echo
echo "| clients | round | session | transactions | tps | ledger 'charged' increase | matches | median latency ms | p99 latency ms | worker transactions | charges per worker transaction | WAL flushes | flush ms each | worker CPU ms per charge | worker run-queue wait ms per charge | 1-min load at start | other jobs' CPU % |"
echo "|---:|---:|---|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for c in "${CLIENTS[@]}"; do
	for r in $(seq 1 "$TPUT_RUNS"); do
		for kind in anon full commit; do
			q=tiny
			[ "$kind" = commit ] && { q=commit; kind=full; }
			while read -r _ _ _ _ cl ntx tps dc dr wtx _ cpu wait fl flms load _ others; do
				read -r _ med p99 _ < <(tlats "$kind" "$c" "$r" "$q" | lat_stats)
				expect=0
				[ "$kind" = anon ] && expect=$ntx
				ok=yes
				{ [ "$dc" -eq "$expect" ] && [ "$dr" -eq 0 ]; } || ok="**NO** (expected +$expect, refused +$dr)"
				echo "| $cl | $r | $( [ "$q" = commit ] && echo "reference: \`INSERT\`, superuser" || kind_label "$kind") | $ntx | $tps | $dc | $ok | $med | $p99 | $wtx | $( [ "$kind" = anon ] && per "$ntx" "$wtx" || echo -) | $fl | $(per "$flms" "$fl") | $( [ "$kind" = anon ] && per "$cpu" "$ntx" 1e-6 || echo -) | $( [ "$kind" = anon ] && per "$wait" "$ntx" 1e-6 || echo -) | $load | $others |"
			done < <(runs_of tput "$q" "$kind" | awk -v c="${c}x$r" '$4 == c')
		done
	done
done
echo
echo "| target | measured | verdict |"
echo "|---|---:|---|"
if [ -n "${TPS[8.anon]:-}" ]; then
	echo "| >= $TPUT_TARGET charged queries/s with 8 clients on $NCPU cores (mean of the rounds) | ${TPS[8.anon]} | $(verdict ge "$TPUT_TARGET" "${TPS[8.anon]}") |"
else
	echo "| >= $TPUT_TARGET charged queries/s with 8 clients | not run (--clients $CLIENTS_LIST) | n/a |"
fi
echo "| median added latency <= $LAT_TARGET ms (tiny query, 1 client) | $ADDED | $(verdict le "$LAT_TARGET" "$ADDED") |"
echo
echo "Concurrent charges share the worker's transaction (\"charges per worker transaction\") and, through PostgreSQL's group commit, the WAL flush their sessions wait for, so charged throughput grows with the clients.  pgbench itself runs on the same $NCPU cores."
echo
if [ "$MISMATCH" -ne 0 ]; then
	echo "**FAILED: the ledger's count of charged rows does not match pgbench's transaction count in at least one run (see the tables above).**"
	echo
fi
if [ -n "$FSYNC_OUT" ]; then
	echo "## Appendix: pg_test_fsync (one 8 kB write, 1 s per method)"
	echo
	echo '```'
	printf '%s\n' "$FSYNC_OUT"
	echo '```'
	echo
fi
if [ "$(lib_date)" != "$LIB_DATE" ]; then
	echo "Note: $LIB_FILE was replaced during the run (now $(lib_date)).  The server keeps the library it preloaded when it (re)started (the $LIB_DATE file).  Run again to measure the new one."
	echo
fi
} >"$OUT"

cat "$OUT"
if [ "$MISMATCH" -ne 0 ]; then
	log "the ledger's charged rows do not match pgbench's transaction count"
	exit 1
fi
if [ "$SAVE" -eq 1 ]; then
	mkdir -p "$RESULTS_DIR"
	cp "$OUT" "$RESULTS_DIR/budget_speed.md"
	rm -f "$RESULTS_DIR/budget_speed.md.partial"
	log "results written to $RESULTS_DIR/budget_speed.md"
fi
log "done in $(( $(now) - T_START )) s"
