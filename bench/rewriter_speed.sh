#!/usr/bin/env bash
# bench/rewriter_speed.sh -- cost of an anonymization query (the rewriter's
# plan) against plain SQL doing the same work (issue 3).
#
# One table bench_rw(uid bigint, g int, x float8): N rows, 100,000 users
# (uid, the privacy unit), 1000 partitions (g), x in [0, 100).  Two shapes:
#   typical  each user picks 3 partitions and spreads its rows over them
#   worst    each row's g is uniform over the 1000 partitions, so the
#            (uid, g) pairs are about as many as the rows
# Queries (each returns g, n, s for every partition):
#   (a)     SELECT g, count(*), sum(x) FROM bench_rw GROUP BY g
#   (b)     plain two-stage SQL: GROUP BY uid, g; clamp each user's count to
#           1 and sum to [0, 100]; GROUP BY g (+ HAVING count(*) >= tau)
#   (c)     hand-written Listing 4: (b) plus ROW_NUMBER() OVER (PARTITION BY
#           uid ORDER BY random()) <= C_u between the two stages
#   anon    SELECT g, ANON_COUNT(*), ANON_SUM(x, 0, 100) FROM bench_rw
#           GROUP BY g  (anon_dp.max_groups_contributed = C_u)
# (c) and anon run with C_u = 1 and 3.  Timed with EXPLAIN (ANALYZE, TIMING
# OFF, SUMMARY ON): the server's Execution Time; one warm-up round, then R
# rounds, each running every query once (order rotated every round).
#
# Usage: bench/rewriter_speed.sh [--rows N[,N...]] [--runs R]
#          [--shapes typical,worst] [--cu 1,3] [--work-mem 256MB]
#          [--parallel] [--cluster] [--no-save]
#   --rows      row counts (default 1000000,10000000)
#   --runs      timed rounds (default 5); the tables show median and min
#   --shapes    typical, worst or both (default both)
#   --cu        C_u values for (c) and anon (default 1,3)
#   --work-mem  work_mem of every query (default 256MB)
#   --parallel  also run everything with max_parallel_workers_per_gather = 2
#               (the main comparison is always serial: 0 workers)
#   --cluster   start a throwaway cluster (tools/lib.sh start_cluster, port
#               $ANON_DP_PORT, default 54329) with shared_buffers sized for
#               the table; without it, use the cluster of the PG* environment
#               variables (anon_dp installed and in shared_preload_libraries)
#   --no-save   do not write bench/results/rewriter_speed-<rows>.md
#   --tag T     write bench/results/rewriter_speed-<rows>-T.md instead
# The extension must already be installed (make install); nothing is built.
# The script creates (and drops at the end of each shape) the table bench_rw
# in the database it connects to.
# Markdown goes to stdout and, per row count, to
# bench/results/rewriter_speed-<rows>.md; progress goes to stderr.
set -euo pipefail

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# tools/lib.sh assigns PGPORT: keep the caller's connection settings
SAVED_PGPORT=${PGPORT-}
SAVED_PGPORT_SET=${PGPORT+set}
# shellcheck source=../tools/lib.sh
source "$BENCH_DIR/../tools/lib.sh"

ROWS_LIST="1000000,10000000"
RUNS=5
SHAPES="typical,worst"
CU_LIST="1,3"
WORK_MEM=256MB
PARALLEL=0
USE_CLUSTER=0
SAVE=1
USERS=100000
PARTITIONS=1000
EPSILON=1
DELTA=1e-5
RESULTS_DIR="$BENCH_DIR/results"
TAG=""

usage() {
	sed -n '2,40p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
}
die() { echo "rewriter_speed.sh: $*" >&2; exit 2; }

while [ $# -gt 0 ]; do
	case "$1" in
		--rows) ROWS_LIST=${2:?--rows needs a value}; shift 2 ;;
		--rows=*) ROWS_LIST=${1#--rows=}; shift ;;
		--runs) RUNS=${2:?--runs needs a value}; shift 2 ;;
		--runs=*) RUNS=${1#--runs=}; shift ;;
		--shapes) SHAPES=${2:?--shapes needs a value}; shift 2 ;;
		--shapes=*) SHAPES=${1#--shapes=}; shift ;;
		--cu) CU_LIST=${2:?--cu needs a value}; shift 2 ;;
		--cu=*) CU_LIST=${1#--cu=}; shift ;;
		--work-mem) WORK_MEM=${2:?--work-mem needs a value}; shift 2 ;;
		--work-mem=*) WORK_MEM=${1#--work-mem=}; shift ;;
		--parallel) PARALLEL=1; shift ;;
		--cluster) USE_CLUSTER=1; shift ;;
		--no-save) SAVE=0; shift ;;
		--tag) TAG=${2:?--tag needs a value}; shift 2 ;;
		-h|--help) usage; exit 0 ;;
		*) echo "rewriter_speed.sh: unknown argument: $1" >&2; usage >&2; exit 2 ;;
	esac
done

IFS=', ' read -r -a ROWS_ARR <<<"$ROWS_LIST"
IFS=', ' read -r -a SHAPE_ARR <<<"$SHAPES"
IFS=', ' read -r -a CU_ARR <<<"$CU_LIST"
[ "${#ROWS_ARR[@]}" -gt 0 ] || die "--rows needs at least one row count"
for r in "${ROWS_ARR[@]}"; do
	case "$r" in '' | *[!0-9]*) die "--rows must be positive integers (comma-separated)" ;; esac
	[ "$r" -gt 0 ] || die "--rows must be > 0"
done
case "$RUNS" in '' | *[!0-9]*) die "--runs must be a positive integer" ;; esac
[ "$RUNS" -gt 0 ] || die "--runs must be > 0"
[ "${#SHAPE_ARR[@]}" -gt 0 ] || die "--shapes needs typical, worst or both"
for s in "${SHAPE_ARR[@]}"; do
	case "$s" in typical | worst) ;; *) die "unknown shape: $s (typical, worst)" ;; esac
done
[ "${#CU_ARR[@]}" -gt 0 ] || die "--cu needs at least one value"
for c in "${CU_ARR[@]}"; do
	case "$c" in '' | *[!0-9]*) die "--cu must be positive integers" ;; esac
	[ "$c" -gt 0 ] || die "--cu must be > 0"
done
case "$WORK_MEM" in *[!0-9A-Za-z]* | '') die "--work-mem must look like 256MB" ;; esac

T_START=$(date +%s)
LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)

# ---- connection ----
if [ "$USE_CLUSTER" -eq 0 ]; then
	if [ -n "$SAVED_PGPORT_SET" ]; then PGPORT=$SAVED_PGPORT; else unset PGPORT; fi
fi
if [ "$USE_CLUSTER" -eq 1 ]; then
	trap stop_cluster EXIT
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
else
	q() { "$PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 "$@"; }
	q -At -c "SELECT 1" >/dev/null ||
		die "cannot connect with the PG* environment variables; pass --cluster to start a throwaway cluster"
fi

# postgresql.conf additions, then a restart (throwaway cluster only)
configure() {
	printf '%s\n' "$@" | as_pg tee -a "$CLUSTER_DIR/data/postgresql.conf" >/dev/null
	as_pg "$PG_BIN/pg_ctl" -D "$CLUSTER_DIR/data" -l "$CLUSTER_DIR/server.log" -w restart >/dev/null
}

MAX_ROWS=0
for r in "${ROWS_ARR[@]}"; do [ "$r" -gt "$MAX_ROWS" ] && MAX_ROWS=$r; done
if [ "$USE_CLUSTER" -eq 1 ]; then
	# A sequential scan of a table larger than shared_buffers / 4 reads
	# through a 256 kB ring (BAS_BULKREAD) and re-reads every page from the
	# kernel at every run.  The table takes about 52 bytes a row (24-byte
	# header + 20 bytes of data, aligned to 48, + 4-byte line pointer):
	# make shared_buffers more than 4.5 times that.
	RAM_MB=$(awk '/^MemTotal/ { print int($2 / 1024) }' /proc/meminfo)
	TABLE_MB_EST=$(( MAX_ROWS * 52 / 1048576 + 1 ))
	SB_MB=$(( (TABLE_MB_EST * 9 / 2 / 256 + 1) * 256 ))
	if [ "$SB_MB" -gt $((RAM_MB * 6 / 10)) ]; then
		log "warning: a $TABLE_MB_EST MB table does not fit 4 times into 60 % of RAM; scans will use the ring buffer"
		SB_MB=$((RAM_MB * 6 / 10))
	fi
	log "restarting the cluster with shared_buffers = ${SB_MB}MB"
	configure "shared_buffers = '${SB_MB}MB'" "max_wal_size = '4GB'" "maintenance_work_mem = '1GB'"
fi

q -c "CREATE EXTENSION IF NOT EXISTS anon_dp" >/dev/null
PG_VERSION=$(q -At -c "SHOW server_version")
SHARED_BUFFERS=$(q -At -c "SHOW shared_buffers")
SB_BYTES=$(q -At -c "SELECT setting::int8 * 8192 FROM pg_settings WHERE name = 'shared_buffers'")
HASH_MEM_MULT=$(q -At -c "SHOW hash_mem_multiplier")
# the per-user bounding's executor (PGOPTIONS='-c anon_dp.bounding_node=off' for the hash aggregation)
BOUNDING_NODE=$(q -At -c "LOAD 'anon_dp'; SHOW anon_dp.bounding_node" 2>/dev/null | tail -1 || echo n/a)
BATCH_MEMORY=$(q -At -c "LOAD 'anon_dp'; SHOW anon_dp.bounding_batch_memory" 2>/dev/null | tail -1 || echo n/a)
EXT_VERSION=$(q -At -c "SELECT extversion FROM pg_extension WHERE extname = 'anon_dp'")
LIB_FILE="$("$PG_BIN/pg_config" --pkglibdir)/anon_dp.so"
lib_date() { date -u -r "$LIB_FILE" '+%Y-%m-%d %H:%M:%S UTC' 2>/dev/null || echo unknown; }
LIB_DATE=$(lib_date)
COMMIT=$(git -C "$BENCH_DIR/.." rev-parse --short HEAD 2>/dev/null || echo unknown)

COMMON="SET work_mem = '$WORK_MEM'; SET jit = off; SET anon_dp.epsilon = $EPSILON; SET anon_dp.delta = $DELTA"
SERIAL="SET max_parallel_workers_per_gather = 0"
PARALLEL_SET="SET max_parallel_workers_per_gather = 2"

# tau of the exact user count in (b) and (c): the threshold the anonymized
# query applies to its noisy user count (epsilon share for N = 2 aggregates)
declare -A TAU=()
for c in 1 "${CU_ARR[@]}"; do
	TAU[$c]=$(q -At -c "SELECT anon_dp_tau(anon_dp_epsilon_share($EPSILON, $c, 2), $DELTA, $c)")
done

# ---- the queries: id | label | C_u ('' = none) | SQL ----
PER_USER="SELECT uid, g, count(*) AS n, sum(x) AS s FROM bench_rw GROUP BY uid, g"
QUERIES=(
	"a|(a) plain GROUP BY g||SELECT g, count(*) AS n, sum(x) AS s FROM bench_rw GROUP BY g"
	"b|(b) two-stage plain SQL||SELECT g, sum(least(n, 1)) AS n, sum(least(greatest(s, 0), 100)) AS s FROM ($PER_USER) per_user GROUP BY g HAVING count(*) >= ${TAU[1]}"
)
for c in "${CU_ARR[@]}"; do
	QUERIES+=("c$c|(c) Listing 4, C_u = $c|$c|SELECT g, sum(least(n, 1)) AS n, sum(least(greatest(s, 0), 100)) AS s FROM (SELECT g, n, s, row_number() OVER (PARTITION BY uid ORDER BY random()) AS pick FROM ($PER_USER) per_user) ranked WHERE pick <= $c GROUP BY g HAVING count(*) >= ${TAU[$c]}")
done
for c in "${CU_ARR[@]}"; do
	QUERIES+=("anon$c|anonymized, C_u = $c|$c|SELECT g, ANON_COUNT(*) AS n, ANON_SUM(x, 0, 100) AS s FROM bench_rw GROUP BY g")
done

q_field() {	# q_field <id> <field 1..4>
	local e id label cu sql
	for e in "${QUERIES[@]}"; do
		IFS='|' read -r id label cu sql <<<"$e"
		if [ "$id" = "$1" ]; then
			case "$2" in 2) printf '%s' "$label" ;; 3) printf '%s' "$cu" ;; 4) printf '%s' "$sql" ;; esac
			return 0
		fi
	done
	return 1
}
q_settings() {	# session settings of query <id> under <mode settings>
	local cu
	cu=$(q_field "$1" 3)
	printf '%s; %s%s' "$COMMON" "$2" "${cu:+; SET anon_dp.max_groups_contributed = $cu}"
}
QIDS=()
for e in "${QUERIES[@]}"; do QIDS+=("${e%%|*}"); done

# A psql command that prints "cpu_ns_<$1> <ns>": the CPU time the backend
# has used so far (first field of /proc/<pid>/schedstat, nanoseconds; it
# leaves out time spent waiting for a CPU, which other jobs on a shared
# machine add to the Execution Time).  Only when the server is local.
cpu_probe() {
	# shellcheck disable=SC2016  # $1 and $ANON_BENCH_PID are for awk and the shell psql starts
	printf '\\! awk '"'"'{ print "cpu_ns_%s", $1 }'"'"' /proc/$ANON_BENCH_PID/schedstat' "$1"
}
CPU_OK=0
# one EXPLAIN ANALYZE run of query <id> under <mode settings>: the plan text,
# with "cpu_ns_before N" and "cpu_ns_after N" lines when CPU_OK = 1
explain_run() {
	local settings explain
	settings=$(q_settings "$1" "$2")
	explain="EXPLAIN (ANALYZE, TIMING OFF, SUMMARY ON, COSTS OFF) $(q_field "$1" 4)"
	if [ "$CPU_OK" -eq 1 ]; then
		printf '%s;\nSELECT pg_backend_pid() AS anon_bench_pid \\gset\n\\setenv ANON_BENCH_PID :anon_bench_pid\n%s\n%s;\n%s\n' \
			"$settings" "$(cpu_probe before)" "$explain" "$(cpu_probe after)" | q -At
	else
		q -At -c "$settings" -c "$explain"
	fi
}
exec_ms_of() {	# Execution Time (ms) out of a plan text on stdin
	sed -n 's/^Execution Time: \([0-9.]*\) ms$/\1/p'
}
cpu_ms_of() {	# backend CPU ms out of explain_run's output on stdin, or n/a
	awk '$1 == "cpu_ns_before" { b = $2 } $1 == "cpu_ns_after" { a = $2 }
	     END { if (a != "" && b != "") printf "%.1f", (a - b) / 1e6; else printf "n/a" }'
}
# measure CPU time only if the server runs on this machine (Unix socket) and
# its /proc/<pid>/schedstat is readable
if [ "$(q -At -c "SELECT inet_server_addr() IS NULL")" = t ] &&
	[ "$(printf 'SELECT pg_backend_pid() AS anon_bench_pid \\gset\n\\setenv ANON_BENCH_PID :anon_bench_pid\n%s\nSELECT 1;\n%s\n' \
		"$(cpu_probe before)" "$(cpu_probe after)" | q -At 2>/dev/null | cpu_ms_of)" != n/a ]; then
	CPU_OK=1
fi

# ---- data ----
# uid: 1 + hash(i) mod 100000, so a user's rows are scattered over the table.
# typical: the user's k-th partition (k = hash(i) mod 3) is hash(uid, k) mod 1000.
# worst:   g = hash(i) mod 1000.  x = hash(i) scaled to [0, 100).
load_table() {	# load_table <rows> <shape>; sets LOAD_SQL to what it ran
	local rows=$1 shape=$2 gexpr
	if [ "$shape" = typical ]; then
		gexpr="((hashint8extended(u * 4 + (hashint8extended(i, 2) & 9223372036854775807) % 3, 3) & 9223372036854775807) % $PARTITIONS)::int"
	else
		gexpr="((hashint8extended(i, 3) & 9223372036854775807) % $PARTITIONS)::int"
	fi
	LOAD_SQL="CREATE TABLE bench_rw (uid bigint NOT NULL, g int NOT NULL, x float8 NOT NULL);
SECURITY LABEL FOR anon_dp ON COLUMN bench_rw.uid IS 'privacy_unit';
INSERT INTO bench_rw (uid, g, x)
SELECT u, $gexpr, (hashint8extended(i, 4) & 1048575)::float8 / 10485.76
FROM (SELECT i, 1 + (hashint8extended(i, 1) & 9223372036854775807) % $USERS AS u
      FROM generate_series(1, $rows::int8) i) s;
VACUUM ANALYZE bench_rw;"
	q <<SQL
SET client_min_messages = warning;
DROP TABLE IF EXISTS bench_rw;
$LOAD_SQL
SQL
}

median() {
	tr ' ' '\n' | { grep -v '^$' || true; } | sort -g | awk '{ v[NR] = $1 } END {
		if (NR == 0) print "n/a"; else if (NR % 2) printf "%.1f", v[(NR + 1) / 2]; else printf "%.1f", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
minimum() {
	tr ' ' '\n' | { grep -v '^$' || true; } | sort -g | awk 'NR == 1 { printf "%.1f", $1 } END { if (NR == 0) printf "n/a" }'
}
ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN { if (a == "n/a" || b == "n/a" || b + 0 <= 0) printf "n/a"; else printf "%.2f", a / b }'
}
# verdict <op> <limit> <ratio>...: op is le or ge; "meets" when every
# available ratio meets the limit, "misses" when none does; n/a ones are skipped
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
rows_label() {
	local n=$1
	if [ $((n % 1000000)) -eq 0 ]; then echo "$((n / 1000000))M"
	elif [ $((n % 1000)) -eq 0 ]; then echo "$((n / 1000))k"
	else echo "$n"; fi
}
# compact notes from an EXPLAIN ANALYZE text: batches and disk use of hash
# aggregates and of the bounding node, sort methods, workers launched
plan_notes() {
	awk '
	/Worker [0-9]+:/ { next }	# per-worker details of parallel nodes
	/Custom Scan \(AnonDPBoundUsers\)/ { kind = "bounding node" }
	/HashAggregate/ { kind = "HashAgg" }
	/Group Key:/ { key = $0; sub(/^ *Group Key: */, "", key); gsub(/[a-z_0-9]+\./, "", key)
		if (length(key) > 50) key = substr(key, 1, 47) "..." }
	/Batches:/ {
		b = $0; sub(/^ *Batches: */, "", b)
		n = b; sub(/ .*/, "", n); sub(/^[0-9]+ */, "", b); gsub(/  +/, ", ", b)
		sub(/Memory Usage: /, "mem ", b); sub(/Disk Usage: /, "disk ", b)
		sub(/Rows Spilled: /, "rows spilled ", b)
		out = out (out ? "; " : "") (kind ? kind : "HashAgg") " (" key "): " n (n == 1 ? " batch, " : " batches, ") b
	}
	/Sort Method:/ {
		s = $0; sub(/^ *Sort Method: */, "", s); gsub(/  +/, ", ", s); sub(/Memory: /, "mem ", s); sub(/Disk: /, "disk ", s)
		out = out (out ? "; " : "") "Sort: " s
	}
	/Workers Launched:/ { w = $0; sub(/^ */, "", w); out = out (out ? "; " : "") w }
	END { print (out ? out : "-") }'
}

# ---- one shape: measure and print its section ----
WORK_DIR=$(mktemp -d /tmp/anon_dp_rw_bench.XXXXXX)
MEAS=$WORK_DIR/times
trap 'rm -rf "$WORK_DIR"; [ "$USE_CLUSTER" -eq 1 ] && stop_cluster; true' EXIT

# run_mode <mode name> <mode settings>: appends "mode round id ms cpu_ms" to
# $MEAS and keeps the plan of each query's last run in $WORK_DIR/<mode>.<id>.plan
run_mode() {
	local mode=$1 settings=$2 round n k i id ms cpu plan
	n=${#QIDS[@]}
	for round in $(seq 0 "$RUNS"); do
		if [ "$round" -eq 0 ]; then log "  $mode: warm-up round"; else log "  $mode: round $round of $RUNS"; fi
		for k in $(seq 0 $((n - 1))); do
			i=$(( (k + round) % n ))
			id=${QIDS[$i]}
			plan=$(explain_run "$id" "$settings")
			printf '%s\n' "$plan" | grep -v '^cpu_ns_' >"$WORK_DIR/$mode.$id.plan" || true
			ms=$(printf '%s\n' "$plan" | exec_ms_of)
			cpu=$(printf '%s\n' "$plan" | cpu_ms_of)
			# the leader's CPU time says little about a parallel plan
			[ "$mode" = serial ] || cpu=n/a
			[ -n "$ms" ] || { echo "rewriter_speed.sh: no Execution Time for query $id" >&2; return 1; }
			[ "$round" -eq 0 ] || printf '%s %s %s %s %s\n' "$mode" "$round" "$id" "$ms" "$cpu" >>"$MEAS"
		done
	done
}
times_of() {	# times_of <mode> <id> [5]: the run times (field 5: CPU ms) in round order
	awk -v m="$1" -v id="$2" -v f="${3:-4}" '$1 == m && $3 == id && $f != "n/a" { printf "%s ", $f }' "$MEAS"
}

print_mode_table() {	# print_mode_table <mode> <shape>
	local mode=$1 shape=$2 id label cu t am ab ac bm cm cb cc ra rb rc allruns cpu_cols=0
	declare -A MED=() MIN=() CPU=()
	for id in "${QIDS[@]}"; do
		t=$(times_of "$mode" "$id")
		MED[$id]=$(median <<<"$t")
		MIN[$id]=$(minimum <<<"$t")
		CPU[$id]=$(times_of "$mode" "$id" 5 | median)
		[ "${CPU[$id]}" = n/a ] || cpu_cols=1
	done
	if [ "$cpu_cols" -eq 1 ]; then
		echo "| query | C_u | median ms | min ms | / (a) | / (b) | / (c) same C_u | CPU ms | CPU / (b) | CPU / (c) | all runs (ms) |"
		echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"
	else
		echo "| query | C_u | median ms | min ms | / (a) | / (b) | / (c) same C_u | all runs (ms) |"
		echo "|---|---:|---:|---:|---:|---:|---:|---|"
	fi
	for id in "${QIDS[@]}"; do
		label=$(q_field "$id" 2)
		cu=$(q_field "$id" 3)
		ra=$(ratio "${MED[$id]}" "${MED[a]}")
		rb=$(ratio "${MED[$id]}" "${MED[b]}")
		case "$id" in
			anon*) rc=$(ratio "${MED[$id]}" "${MED[c$cu]:-n/a}"); cc=$(ratio "${CPU[$id]}" "${CPU[c$cu]:-n/a}") ;;
			*) rc="-"; cc="-" ;;
		esac
		allruns=$(times_of "$mode" "$id" | awk '{ for (i = 1; i <= NF; i++) printf "%s%.0f", (i > 1 ? ", " : ""), $i }')
		if [ "$cpu_cols" -eq 1 ]; then
			echo "| $label | ${cu:--} | ${MED[$id]} | ${MIN[$id]} | $ra | $rb | $rc | ${CPU[$id]} | $(ratio "${CPU[$id]}" "${CPU[b]}") | $cc | $allruns |"
		else
			echo "| $label | ${cu:--} | ${MED[$id]} | ${MIN[$id]} | $ra | $rb | $rc | $allruns |"
		fi
	done
	echo
	echo "Ratios are of medians.$( [ "$cpu_cols" -eq 1 ] && echo "  \"CPU ms\": median CPU time of the backend over the same runs (statement included, waiting for a CPU excluded).")  Targets (issue 3), \"best run\" = the ratio of the fastest runs (interference only adds time)$( [ "$cpu_cols" -eq 1 ] && echo ", \"CPU\" = the ratio of the median CPU times; the verdict is \"unclear (noise)\" when they disagree"):"
	echo
	echo "| target | C_u | median-based | best run | CPU | verdict |"
	echo "|---|---:|---:|---:|---:|---|"
	for c in "${CU_ARR[@]}"; do
		am=$(ratio "${MED[anon$c]}" "${MED[b]}")
		ab=$(ratio "${MIN[anon$c]}" "${MIN[b]}")
		ac=$(ratio "${CPU[anon$c]}" "${CPU[b]}")
		echo "| anonymized <= 1.1 x (b) | $c | $am | $ab | $ac | $(verdict le 1.1 "$am" "$ab" "$ac") |"
	done
	for c in "${CU_ARR[@]}"; do
		cm=$(ratio "${MED[c$c]}" "${MED[anon$c]}")
		cb=$(ratio "${MIN[c$c]}" "${MIN[anon$c]}")
		cc=$(ratio "${CPU[c$c]}" "${CPU[anon$c]}")
		if [ "$shape" = worst ]; then
			echo "| (c) / anonymized >= 1.5 (worst shape) | $c | $cm | $cb | $cc | $(verdict ge 1.5 "$cm" "$cb" "$cc") |"
		else
			echo "| (c) / anonymized >= 1.2 (issue 22, typical shape) | $c | $cm | $cb | $cc | $(verdict ge 1.2 "$cm" "$cb" "$cc") |"
		fi
	done
	if [ "$shape" = typical ]; then
		for c in "${CU_ARR[@]}"; do
			am=$(ratio "${MED[anon$c]}" "${MED[b]}")
			ab=$(ratio "${MIN[anon$c]}" "${MIN[b]}")
			ac=$(ratio "${CPU[anon$c]}" "${CPU[b]}")
			echo "| anonymized <= 1.0 x (b) (issue 22, typical shape) | $c | $am | $ab | $ac | $(verdict le 1.0 "$am" "$ab" "$ac") |"
			am=$(ratio "${MED[anon$c]}" "${MED[a]}")
			ab=$(ratio "${MIN[anon$c]}" "${MIN[a]}")
			ac=$(ratio "${CPU[anon$c]}" "${CPU[a]}")
			echo "| anonymized <= 2.5 x (a) (issue 22, typical shape) | $c | $am | $ab | $ac | $(verdict le 2.5 "$am" "$ab" "$ac") |"
		done
	fi
	for c in "${CU_ARR[@]}"; do
		am=$(ratio "${MED[anon$c]}" "${MED[a]}")
		ab=$(ratio "${MIN[anon$c]}" "${MIN[a]}")
		ac=$(ratio "${CPU[anon$c]}" "${CPU[a]}")
		echo "| anonymized / (a) (reported, no target) | $c | $am | $ab | $ac | - |"
	done
	bm=$(ratio "${MED[b]}" "${MED[a]}")
	echo
	if [ "$shape" = worst ]; then
		echo "Reference (issue 3, stock PostgreSQL 15, 10M rows, worst shape): (b) / (a) about 17, (c) / (b) about 1.4.  Here: (b) / (a) = $bm, (c) / (b) = $(for c in "${CU_ARR[@]}"; do printf '%s (C_u = %s) ' "$(ratio "${MED[c$c]}" "${MED[b]}")" "$c"; done | sed 's/ $//')."
	else
		echo "Reference (issue 3, stock PostgreSQL 15, 10M rows, typical shape): (b) / (a) about 4, (c) / (b) about 1.  Here: (b) / (a) = $bm, (c) / (b) = $(for c in "${CU_ARR[@]}"; do printf '%s (C_u = %s) ' "$(ratio "${MED[c$c]}" "${MED[b]}")" "$c"; done | sed 's/ $//')."
	fi
	echo
}

bench_shape() {	# bench_shape <rows> <shape>: prints the markdown section
	local rows=$1 shape=$2 id label cu stats table_size table_bytes notes check sql
	log "$(rows_label "$rows") rows, $shape shape: loading"
	load_table "$rows" "$shape"
	table_size=$(q -At -c "SELECT pg_size_pretty(pg_table_size('bench_rw'))")
	table_bytes=$(q -At -c "SELECT pg_table_size('bench_rw')")
	log "  table: $table_size; computing data statistics"
	stats=$(q -At -F ' ' -c "$COMMON; $SERIAL" -c "
		SELECT count(*), count(DISTINCT uid), count(DISTINCT g),
		       (SELECT count(*) FROM (SELECT 1 FROM bench_rw GROUP BY uid, g) p),
		       round(avg(x)::numeric, 2)
		FROM bench_rw")
	read -r s_rows s_users s_parts s_pairs s_avgx <<<"$stats"
	# load the table into shared buffers, then check that a scan reads only them
	q -At -c "$SERIAL" -c "SELECT count(*) FROM bench_rw" >/dev/null
	BUFFERS_LINE=$(q -At -c "$SERIAL" \
		-c "EXPLAIN (ANALYZE, BUFFERS, TIMING OFF, COSTS OFF) SELECT count(*) FROM bench_rw" |
		sed -n 's/^ *Buffers: //p' | head -n 1)

	: >"$MEAS"
	rm -f "$WORK_DIR"/*.plan
	run_mode serial "$SERIAL"
	[ "$PARALLEL" -eq 0 ] || run_mode parallel "$PARALLEL_SET"

	echo "### $(rows_label "$rows") rows, $shape shape"
	echo
	if [ "$shape" = typical ]; then
		echo "Each user picks 3 partitions and spreads its rows over them."
	else
		echo "Each row's partition is uniform over the $PARTITIONS partitions: (uid, g) pairs are about as many as the rows."
	fi
	echo
	echo "The table is generated in the server (deterministic, no client loop):"
	echo
	echo '```sql'
	echo "$LOAD_SQL"
	echo '```'
	echo
	echo "Data: $s_rows rows, $s_users users, $s_parts partitions, $s_pairs (uid, g) pairs ($(awk -v p="$s_pairs" -v u="$s_users" 'BEGIN { printf "%.1f", p / u }') partitions per user, $(awk -v p="$s_pairs" -v r="$s_rows" 'BEGIN { printf "%.2f", p / r }') pairs per row), avg(x) = $s_avgx; table $table_size.  A scan reports \"Buffers: $BUFFERS_LINE\"$( [ "$table_bytes" -gt $((SB_BYTES / 4)) ] && echo " (**warning**: the table is larger than shared_buffers / 4, so scans read through the bulk-read ring)")."
	echo
	echo "#### Serial plans (max_parallel_workers_per_gather = 0)"
	echo
	print_mode_table serial "$shape"
	if [ "$PARALLEL" -eq 1 ]; then
		echo "#### With parallel workers (max_parallel_workers_per_gather = 2, default parallel costs; the plan decides)"
		echo
		print_mode_table parallel "$shape"
	fi

	# plan notes, a client-side cross-check and the released values, once per query
	log "  plan notes, client-timed runs and result values"
	echo "#### Plans, a client-timed run, results"
	echo
	# shellcheck disable=SC2028  # the backslashes are meant literally
	echo "\"plan notes\": from the last timed EXPLAIN ANALYZE run$( [ "$PARALLEL" -eq 1 ] && echo " (serial, then with 2 workers)").  \"psql ms\": one more run of the query itself (serial), timed by psql's \\timing (planning and sending the rows to psql included): a cross-check that EXPLAIN ANALYZE adds little; the client adds up that run's rows: partitions released, sum(n), sum(s).  Anonymized values carry noise; (b) counts (uid, g) pairs, (c) and the anonymized query count at most C_u pairs per user."
	echo
	if [ "$PARALLEL" -eq 1 ]; then
		echo "| query | plan notes, serial | plan notes, 2 workers | psql ms | partitions | sum(n) | sum(s) |"
		echo "|---|---|---|---:|---:|---:|---:|"
	else
		echo "| query | plan notes | psql ms | partitions | sum(n) | sum(s) |"
		echo "|---|---|---:|---:|---:|---:|"
	fi
	for id in "${QIDS[@]}"; do
		label=$(q_field "$id" 2)
		sql=$(q_field "$id" 4)
		notes=$(plan_notes <"$WORK_DIR/serial.$id.plan")
		[ "$PARALLEL" -eq 0 ] || notes="$notes | $(plan_notes <"$WORK_DIR/parallel.$id.plan")"
		# the query itself, rows to the client (1000 at most), timed by psql
		check=$(q -At -F ' ' -c "$(q_settings "$id" "$SERIAL")" -c '\timing on' -c "$sql" |
			awk '/^Time: / { t = $2; next }
			     NF == 3 { k++; n += $2; s += $3 }
			     END { printf "%s | %d | %.0f | %.1f", (t == "" ? "?" : t), k, n, s }')
		echo "| $label | $notes | $check |"
	done
	echo
	echo "#### The anonymized query's plan"
	echo
	echo "\`EXPLAIN (VERBOSE, COSTS OFF)\` with C_u = ${CU_ARR[0]}:"
	echo
	echo '```'
	q -At -c "$(q_settings "anon${CU_ARR[0]}" "$SERIAL")" \
		-c "EXPLAIN (VERBOSE, COSTS OFF) $(q_field "anon${CU_ARR[0]}" 4)"
	echo '```'
	echo
	for c in "${CU_ARR[@]}"; do
		echo "\`EXPLAIN (ANALYZE, TIMING OFF, COSTS OFF)\`, C_u = $c, serial (the last timed run):"
		echo
		echo '```'
		cat "$WORK_DIR/serial.anon$c.plan"
		echo '```'
		echo
	done
	echo "#### Every round"
	echo
	echo "Each timed run in the order it ran (one new session per run; the warm-up round is not listed).  \"CPU ms\": the backend's CPU time of the statement (serial runs only)."
	echo
	echo "| mode | round | query | ms | CPU ms |"
	echo "|---|---:|---|---:|---:|"
	while read -r m r id ms cpu; do
		echo "| $m | $r | $(q_field "$id" 2) | $ms | $cpu |"
	done <"$MEAS"
	echo
	q -c "DROP TABLE bench_rw"
}

header() {	# header <rows>
	echo "# anon_dp rewriter speed: $(rows_label "$1") rows"
	echo
	echo "- date: $(date -u '+%Y-%m-%d %H:%M:%S UTC'); commit: $COMMIT; anon_dp $EXT_VERSION, library installed $LIB_DATE"
	echo "- PostgreSQL $PG_VERSION; CPU: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1), $(nproc) cores; memory $(awk '/^MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)"
	echo "- load average at start: $LOAD_START"
	echo "- command: bench/rewriter_speed.sh --rows $1 --runs $RUNS --shapes $SHAPES --cu $CU_LIST --work-mem $WORK_MEM$( [ "$PARALLEL" -eq 1 ] && echo " --parallel")$( [ "$USE_CLUSTER" -eq 1 ] && echo " --cluster")${TAG:+ --tag $TAG}"
	echo "- settings: work_mem = $WORK_MEM (hash_mem_multiplier = $HASH_MEM_MULT), shared_buffers = $SHARED_BUFFERS, jit = off, anon_dp.epsilon = $EPSILON, anon_dp.delta = $DELTA, anon_dp.bounding_node = $BOUNDING_NODE, anon_dp.bounding_batch_memory = $BATCH_MEMORY; main comparison serial (max_parallel_workers_per_gather = 0)$( [ "$PARALLEL" -eq 1 ] && echo ", also with 2 workers")"
	echo "- table bench_rw(uid bigint, g int, x float8), $USERS users, $PARTITIONS partitions, uid labelled privacy_unit, VACUUM ANALYZEd"
	echo "- timing: server Execution Time of EXPLAIN (ANALYZE, TIMING OFF, SUMMARY ON); one warm-up round, then $RUNS rounds, each running every query once in a new session (order rotated by one query each round); median and min over the rounds$( [ "$CPU_OK" -eq 1 ] && echo "; also the backend's CPU time of the same runs (/proc/<pid>/schedstat), which leaves out waiting for a CPU" || echo "; backend CPU time not measured (the server is not local or /proc/<pid>/schedstat is not readable)")"
	echo "- tau in (b)'s and (c)'s HAVING: the threshold the anonymized query applies to its noisy user count ($(for c in 1 "${CU_ARR[@]}"; do echo "C_u = $c: ${TAU[$c]}"; done | sort -u | paste -sd';' - | sed 's/;/; /g'); (b) uses C_u = 1's)"
	echo
	echo "Queries (\`bench_rw\` is the table):"
	echo
	for e in "${QUERIES[@]}"; do
		IFS='|' read -r _id label cu sql <<<"$e"
		echo "- $label: \`$sql\`"
	done
	echo
	echo "Caveat: a 2-core virtual machine shared with other engineers' builds and tests while this ran (load average above); absolute times move by 10-25 % from run to run: compare ratios, and prefer the CPU-time ratios (waiting for a CPU excluded)."
	echo
}

[ "$SAVE" -eq 0 ] || mkdir -p "$RESULTS_DIR"
for rows in "${ROWS_ARR[@]}"; do
	out="$RESULTS_DIR/rewriter_speed-$(rows_label "$rows")${TAG:+-$TAG}.md"
	{
		header "$rows"
		for shape in "${SHAPE_ARR[@]}"; do
			bench_shape "$rows" "$shape"
		done
		if [ "$(lib_date)" != "$LIB_DATE" ]; then
			echo "Note: $LIB_FILE was replaced during the run (now $(lib_date)).  The server keeps the library it preloaded when it (re)started (the $LIB_DATE file): a backend's LOAD of the same path reuses the loaded copy.  Run again to measure the new one."
			echo
			log "note: $LIB_FILE was replaced during the run; the server keeps the preloaded copy"
		fi
		echo "rewriter_speed.sh: $(rows_label "$rows") rows done; wall time so far $(( $(date +%s) - T_START )) s; load average now $(cut -d' ' -f1-3 /proc/loadavg)."
		echo
	} | if [ "$SAVE" -eq 1 ]; then tee "$out.partial"; else cat; fi
	if [ "$SAVE" -eq 1 ]; then
		mv "$out.partial" "$out"
		log "results written to $out"
	fi
done
