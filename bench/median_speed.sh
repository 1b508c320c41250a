#!/usr/bin/env bash
# bench/median_speed.sh -- cost of ANON_MEDIAN and ANON_NTILE against plain
# per-user two-stage SQL doing the same work (issue 35, item 2).
#
# The table of bench/rewriter_speed.sh, typical shape: bench_rw(uid bigint,
# g int, x float8), N rows, 100,000 users (uid, the privacy unit), 1000
# partitions (g), each user in 3 partitions, x in [0, 100).
# Queries (each returns one value per partition):
#   (a)   plain:  SELECT g, percentile_cont(0.5) WITHIN GROUP (ORDER BY x)
#                 FROM bench_rw GROUP BY g                      (reference)
#   (b)   per-user two-stage SQL, the reduction ANON_MEDIAN makes: per
#         (uid, g) one of the user's values at random (m = 1 value per user
#         and partition, anon_dp.max_rows_contributed unset), then the
#         median of those per partition, HAVING count(*) >= tau:
#           SELECT g, percentile_cont(0.5) WITHIN GROUP (ORDER BY v)
#           FROM (SELECT uid, g, (array_agg(x))[1 + floor(random() *
#                 count(*))::int] AS v FROM bench_rw GROUP BY uid, g) p
#           GROUP BY g HAVING count(*) >= tau
#   (b')  the same with min(x) instead of a random value: the cheapest
#         per-user reduction plain SQL has (not the mechanism's choice, a
#         stricter floor)
#   median  SELECT g, ANON_MEDIAN(x, 0, 100) FROM bench_rw GROUP BY g
#   ntile   SELECT g, ANON_NTILE(x, 0.9, 0, 100) FROM bench_rw GROUP BY g
# with anon_dp.max_groups_contributed = 1 (C_u = 1).  (b) and (b') do not
# restrict a user to C_u partitions (neither does bench/rewriter_speed.sh's
# (b)); the anonymized queries do.
# Timed with EXPLAIN (ANALYZE, TIMING OFF, SUMMARY ON): the server's
# Execution Time, and the backend's CPU time from /proc/<pid>/schedstat (the
# server must be local); one warm-up round, then R rounds, each running
# every query once in a new session (order rotated every round); medians.
#
# Usage: bench/median_speed.sh [--rows N] [--runs R] [--work-mem 64MB,4MB]
#          [--parallel] [--cluster] [--out FILE]
#   --rows      rows (default 10000000)
#   --runs      timed rounds (default 5)
#   --work-mem  work_mem settings, each measured (default 64MB,4MB)
#   --parallel  also with max_parallel_workers_per_gather = 2
#   --cluster   start a throwaway cluster (tools/lib.sh, port $ANON_DP_PORT);
#               without it, use the cluster of the PG* environment variables
#               (anon_dp installed and preloaded); an existing bench_rw with
#               N rows is then reused
#   --out FILE  also write the markdown to FILE
# Markdown goes to stdout, progress to stderr.
set -euo pipefail

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SAVED_PGPORT=${PGPORT-}
SAVED_PGPORT_SET=${PGPORT+set}
# shellcheck source=../tools/lib.sh
source "$BENCH_DIR/../tools/lib.sh"

ROWS=10000000
RUNS=5
WORK_MEMS="64MB,4MB"
PARALLEL=0
USE_CLUSTER=0
OUT=""
USERS=100000
PARTITIONS=1000
EPSILON=1
DELTA=1e-5

die() { echo "median_speed.sh: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
	case "$1" in
		--rows) ROWS=${2:?}; shift 2 ;;
		--runs) RUNS=${2:?}; shift 2 ;;
		--work-mem) WORK_MEMS=${2:?}; shift 2 ;;
		--parallel) PARALLEL=1; shift ;;
		--cluster) USE_CLUSTER=1; shift ;;
		--out) OUT=${2:?}; shift 2 ;;
		-h|--help) sed -n '2,45p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
		*) die "unknown argument: $1" ;;
	esac
done
case "$ROWS" in '' | *[!0-9]*) die "--rows must be a positive integer" ;; esac
case "$RUNS" in '' | *[!0-9]*) die "--runs must be a positive integer" ;; esac
IFS=', ' read -r -a WM_ARR <<<"$WORK_MEMS"
COMMAND="bench/median_speed.sh --rows $ROWS --runs $RUNS --work-mem $WORK_MEMS"
[ "$PARALLEL" -eq 0 ] || COMMAND="$COMMAND --parallel"
[ "$USE_CLUSTER" -eq 0 ] || COMMAND="$COMMAND --cluster"
LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)

if [ "$USE_CLUSTER" -eq 1 ]; then
	trap stop_cluster EXIT
	start_cluster || die "cannot start a cluster (is anon_dp installed?)"
	q() { pg_psql "$@"; }
	SB_MB=$(( (ROWS * 52 / 1048576 + 1) * 9 / 2 / 256 * 256 + 256 ))
	printf '%s\n' "shared_buffers = '${SB_MB}MB'" "max_wal_size = '4GB'" "maintenance_work_mem = '1GB'" |
		as_pg tee -a "$CLUSTER_DIR/data/postgresql.conf" >/dev/null
	as_pg "$PG_BIN/pg_ctl" -D "$CLUSTER_DIR/data" -l "$CLUSTER_DIR/server.log" -w restart >/dev/null
else
	if [ -n "$SAVED_PGPORT_SET" ]; then PGPORT=$SAVED_PGPORT; else unset PGPORT; fi
	q() { "$PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 "$@"; }
fi
q -At -c "SELECT 1" >/dev/null || die "cannot connect"
q -c "CREATE EXTENSION IF NOT EXISTS anon_dp" >/dev/null

if [ "$(q -At -c "SELECT count(*) FROM pg_class WHERE relname = 'bench_rw'")" = 1 ] &&
	[ "$(q -At -c "SELECT count(*) FROM bench_rw")" = "$ROWS" ]; then
	log "reusing bench_rw ($ROWS rows)"
else
	log "loading bench_rw ($ROWS rows, typical shape)"
	q <<SQL
SET client_min_messages = warning;
DROP TABLE IF EXISTS bench_rw;
CREATE TABLE bench_rw (uid bigint NOT NULL, g int NOT NULL, x float8 NOT NULL);
SECURITY LABEL FOR anon_dp ON COLUMN bench_rw.uid IS 'privacy_unit';
INSERT INTO bench_rw (uid, g, x)
SELECT u, ((hashint8extended(u * 4 + (hashint8extended(i, 2) & 9223372036854775807) % 3, 3) & 9223372036854775807) % $PARTITIONS)::int,
       (hashint8extended(i, 4) & 1048575)::float8 / 10485.76
FROM (SELECT i, 1 + (hashint8extended(i, 1) & 9223372036854775807) % $USERS AS u
      FROM generate_series(1, $ROWS::int8) i) s;
VACUUM ANALYZE bench_rw;
SQL
fi
q -At -c "SET max_parallel_workers_per_gather = 0" -c "SELECT count(*) FROM bench_rw" >/dev/null

TAU=$(q -At -c "SELECT anon_dp_tau($EPSILON / 2.0, $DELTA, 1)")
PER_USER_RANDOM="SELECT uid, g, (array_agg(x))[1 + floor(random() * count(*))::int] AS v FROM bench_rw GROUP BY uid, g"
PER_USER_MIN="SELECT uid, g, min(x) AS v FROM bench_rw GROUP BY uid, g"
QUERIES=(
	"a|(a) plain percentile_cont|SELECT g, percentile_cont(0.5) WITHIN GROUP (ORDER BY x) FROM bench_rw GROUP BY g"
	"b|(b) per-user two-stage SQL, random value|SELECT g, percentile_cont(0.5) WITHIN GROUP (ORDER BY v) FROM ($PER_USER_RANDOM) p GROUP BY g HAVING count(*) >= $TAU"
	"bmin|(b') per-user two-stage SQL, min(x)|SELECT g, percentile_cont(0.5) WITHIN GROUP (ORDER BY v) FROM ($PER_USER_MIN) p GROUP BY g HAVING count(*) >= $TAU"
	"median|ANON_MEDIAN|SELECT g, ANON_MEDIAN(x, 0, 100) FROM bench_rw GROUP BY g"
	"ntile|ANON_NTILE 0.9|SELECT g, ANON_NTILE(x, 0.9, 0, 100) FROM bench_rw GROUP BY g"
)
QIDS=()
for e in "${QUERIES[@]}"; do QIDS+=("${e%%|*}"); done
q_field() {
	local e id label sql
	for e in "${QUERIES[@]}"; do
		IFS='|' read -r id label sql <<<"$e"
		[ "$id" = "$1" ] || continue
		if [ "$2" = 2 ]; then printf '%s' "$label"; else printf '%s' "$sql"; fi
	done
}

WORK_DIR=$(mktemp -d /tmp/anon_dp_median_bench.XXXXXX)
MEAS=$WORK_DIR/times
: >"$MEAS"
trap 'rm -rf "$WORK_DIR"; [ "$USE_CLUSTER" -eq 1 ] && stop_cluster; true' EXIT

cpu_probe() {
	# shellcheck disable=SC2016
	printf '\\! awk '"'"'{ print "cpu_ns_%s", $1 }'"'"' /proc/$ANON_BENCH_PID/schedstat' "$1"
}
explain_run() {	# explain_run <id> <settings>
	printf '%s;\nSELECT pg_backend_pid() AS anon_bench_pid \\gset\n\\setenv ANON_BENCH_PID :anon_bench_pid\n%s\nEXPLAIN (ANALYZE, TIMING OFF, SUMMARY ON, COSTS OFF) %s;\n%s\n' \
		"$2" "$(cpu_probe before)" "$(q_field "$1" 4)" "$(cpu_probe after)" | q -At
}
median() {
	tr ' ' '\n' | { grep -v '^$' || true; } | sort -g | awk '{ v[NR] = $1 } END {
		if (NR == 0) print "n/a"; else if (NR % 2) printf "%.1f", v[(NR + 1) / 2]; else printf "%.1f", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "n/a" || b == "n/a" || b + 0 <= 0) printf "n/a"; else printf "%.2f", a / b }'; }
plan_notes() {
	awk '
	/Worker [0-9]+:/ { next }
	/Custom Scan \(AnonDPBoundUsers\)/ { kind = "bounding node" }
	/HashAggregate/ { kind = "HashAgg" }
	/Batches:/ {
		b = $0; sub(/^ *Batches: */, "", b); gsub(/  +/, ", ", b)
		sub(/Memory Usage: /, "mem ", b); sub(/Disk Usage: /, "disk ", b); sub(/Rows Spilled: /, "rows spilled ", b)
		out = out (out ? "; " : "") (kind ? kind : "HashAgg") ": batches " b
	}
	/Sort Method:/ {
		s = $0; sub(/^ *Sort Method: */, "", s); gsub(/  +/, ", ", s); sub(/Memory: /, "mem ", s); sub(/Disk: /, "disk ", s)
		out = out (out ? "; " : "") "Sort: " s
	}
	/Full-sort Groups:/ { out = out (out ? "; " : "") "Incremental Sort" }
	/Workers Launched:/ { w = $0; sub(/^ */, "", w); out = out (out ? "; " : "") w }
	END { print (out ? out : "-") }'
}

MODES=()
for wm in "${WM_ARR[@]}"; do
	MODES+=("$wm serial|SET work_mem = '$wm'; SET jit = off; SET anon_dp.epsilon = $EPSILON; SET anon_dp.delta = $DELTA; SET anon_dp.max_groups_contributed = 1; SET max_parallel_workers_per_gather = 0")
	[ "$PARALLEL" -eq 0 ] ||
		MODES+=("$wm 2 workers|SET work_mem = '$wm'; SET jit = off; SET anon_dp.epsilon = $EPSILON; SET anon_dp.delta = $DELTA; SET anon_dp.max_groups_contributed = 1; SET max_parallel_workers_per_gather = 2")
done

n=${#QIDS[@]}
for me in "${MODES[@]}"; do
	mode=${me%%|*}
	settings=${me#*|}
	tag=${mode// /_}
	for round in $(seq 0 "$RUNS"); do
		log "$mode: round $round of $RUNS (0 = warm-up)"
		for k in $(seq 0 $((n - 1))); do
			id=${QIDS[$(( (k + round) % n ))]}
			plan=$(explain_run "$id" "$settings")
			printf '%s\n' "$plan" | grep -v '^cpu_ns_' >"$WORK_DIR/$tag.$id.plan" || true
			ms=$(printf '%s\n' "$plan" | sed -n 's/^Execution Time: \([0-9.]*\) ms$/\1/p')
			cpu=$(printf '%s\n' "$plan" | awk '$1 == "cpu_ns_before" { b = $2 } $1 == "cpu_ns_after" { a = $2 }
				END { if (a != "" && b != "") printf "%.1f", (a - b) / 1e6; else printf "n/a" }')
			[ -n "$ms" ] || die "no Execution Time for $id"
			[ "$round" -eq 0 ] || echo "$tag $round $id $ms $cpu" >>"$MEAS"
		done
	done
done

{
	echo "# ANON_MEDIAN / ANON_NTILE against per-user two-stage SQL"
	echo
	echo "- date: $(date -u '+%Y-%m-%d %H:%M:%S UTC'); commit: $(git -C "$BENCH_DIR/.." rev-parse --short HEAD 2>/dev/null || echo unknown)$(git -C "$BENCH_DIR/.." diff --quiet HEAD -- src sql 2>/dev/null || echo ' (with uncommitted changes)'); PostgreSQL $(q -At -c 'SHOW server_version')"
	echo "- command: \`$COMMAND\`"
	echo "- load average at start: $LOAD_START; at end: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) cores, shared with other engineers' builds and benchmarks)"
	echo "- $ROWS rows, $USERS users, $PARTITIONS partitions, typical shape; shared_buffers = $(q -At -c 'SHOW shared_buffers'); hash_mem_multiplier = $(q -At -c 'SHOW hash_mem_multiplier'); jit off; epsilon $EPSILON, delta $DELTA, C_u = 1; tau = $TAU"
	echo "- one warm-up round, then $RUNS rounds, every query in a new session, order rotated each round; medians.  \"CPU ms\": the backend's CPU time (/proc/<pid>/schedstat), which leaves out waiting for a CPU; with workers it counts the leader only."
	echo
	echo "Queries:"
	echo
	for id in "${QIDS[@]}"; do echo "- $(q_field "$id" 2): \`$(q_field "$id" 4)\`"; done
	echo
	for me in "${MODES[@]}"; do
		mode=${me%%|*}
		tag=${mode// /_}
		echo "## work_mem $mode"
		echo
		echo "| query | median ms | CPU ms | ms / (b) | CPU / (b) | ms / (b') | CPU / (b') | memory, disk (last run) |"
		echo "|---|---:|---:|---:|---:|---:|---:|---|"
		declare -A MS=() CPU=()
		for id in "${QIDS[@]}"; do
			MS[$id]=$(awk -v m="$tag" -v id="$id" '$1 == m && $3 == id { printf "%s ", $4 }' "$MEAS" | median)
			CPU[$id]=$(awk -v m="$tag" -v id="$id" '$1 == m && $3 == id && $5 != "n/a" { printf "%s ", $5 }' "$MEAS" | median)
		done
		for id in "${QIDS[@]}"; do
			echo "| $(q_field "$id" 2) | ${MS[$id]} | ${CPU[$id]} | $(ratio "${MS[$id]}" "${MS[b]}") | $(ratio "${CPU[$id]}" "${CPU[b]}") | $(ratio "${MS[$id]}" "${MS[bmin]}") | $(ratio "${CPU[$id]}" "${CPU[bmin]}") | $(plan_notes <"$WORK_DIR/$tag.$id.plan") |"
		done
		echo
		echo "Every run (ms / CPU ms):"
		echo
		for id in "${QIDS[@]}"; do
			echo "- $(q_field "$id" 2): $(awk -v m="$tag" -v id="$id" '$1 == m && $3 == id { printf "%s%s/%s", (n++ ? ", " : ""), $4, $5 }' "$MEAS")"
		done
		echo
		echo "ANON_MEDIAN's plan (last run):"
		echo
		echo '```'
		cat "$WORK_DIR/$tag.median.plan"
		echo '```'
		echo
		unset MS CPU
	done
} | if [ -n "$OUT" ]; then tee "$OUT"; else cat; fi
