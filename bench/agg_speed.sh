#!/usr/bin/env bash
# bench/agg_speed.sh -- per-row cost of the anon_dp aggregates against the
# built-in PostgreSQL aggregates on one large table.
#
# Starts a throwaway cluster (tools/lib.sh), loads N rows (default 10,000,000)
# with an int4, a bigint, a float8 and a numeric column, and times each
# aggregate with EXPLAIN (ANALYZE, TIMING OFF, SUMMARY ON): the server-side
# "Execution Time", median of --runs runs (default 5), serial plans
# (max_parallel_workers_per_gather = 0, jit = off).  Then runs sum(f),
# dp_sum(f) and dp_ntile(f) with 2 parallel workers to show that parallel
# aggregation (combine / serialize / deserialize) works.
#
# Usage: bench/agg_speed.sh [--rows N] [--runs R]
# Prints markdown on stdout; progress goes to stderr.
set -euo pipefail

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../tools/lib.sh
source "$BENCH_DIR/../tools/lib.sh"

ROWS=10000000
RUNS=5

usage() {
	sed -n '2,15p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
}

while [ $# -gt 0 ]; do
	case "$1" in
		--rows) ROWS=${2:?--rows needs a value}; shift 2 ;;
		--rows=*) ROWS=${1#--rows=}; shift ;;
		--runs) RUNS=${2:?--runs needs a value}; shift 2 ;;
		--runs=*) RUNS=${1#--runs=}; shift ;;
		-h|--help) usage; exit 0 ;;
		*) echo "agg_speed.sh: unknown argument: $1" >&2; usage >&2; exit 2 ;;
	esac
done
case "$ROWS" in '' | *[!0-9]*) echo "agg_speed.sh: --rows must be a positive integer" >&2; exit 2 ;; esac
case "$RUNS" in '' | *[!0-9]*) echo "agg_speed.sh: --runs must be a positive integer" >&2; exit 2 ;; esac
[ "$ROWS" -gt 0 ] && [ "$RUNS" -gt 0 ] || { echo "agg_speed.sh: --rows and --runs must be > 0" >&2; exit 2; }

T_START=$(date +%s)

bootstrap
trap stop_cluster EXIT
start_cluster

# A buffer cache that holds the whole table (about 65 bytes a row), so that
# every timed run reads shared buffers and not the kernel page cache; and
# enough work_mem for percentile_cont to sort 10M values in memory (its best
# case).
SHARED_BUFFERS=${BENCH_SHARED_BUFFERS:-2GB}
log "restarting the cluster with shared_buffers = $SHARED_BUFFERS"
printf "shared_buffers = '%s'\nwork_mem = '1GB'\nmaintenance_work_mem = '1GB'\n" "$SHARED_BUFFERS" |
	as_pg tee -a "$CLUSTER_DIR/data/postgresql.conf" >/dev/null
as_pg "$PG_BIN/pg_ctl" -D "$CLUSTER_DIR/data" -l "$CLUSTER_DIR/server.log" -w restart >/dev/null

SERIAL="SET max_parallel_workers_per_gather = 0; SET jit = off"
PARALLEL="SET max_parallel_workers_per_gather = 2; SET jit = off; SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0"

log "loading $ROWS rows"
pg_psql <<SQL
CREATE EXTENSION anon_dp;
CREATE TABLE bench_t (i int4 NOT NULL, b int8 NOT NULL, f float8 NOT NULL, n numeric NOT NULL);
INSERT INTO bench_t
SELECT v::int4, v::int8, v, round(v::numeric, 2)
FROM (SELECT random() * 100 AS v FROM generate_series(1, $ROWS)) s;
VACUUM ANALYZE bench_t;
SQL
TABLE_SIZE=$(pg_psql -At -c "SELECT pg_size_pretty(pg_table_size('bench_t'))")
# load the table into shared buffers once before any timing
pg_psql -At -c "$SERIAL" -c "SELECT count(*) FROM bench_t" >/dev/null

# label | built-in expression | anon_dp expression
PAIRS=(
	"sum int4|sum(i)|dp_sum(i, 0, 100, 1.0, 1)"
	"sum int8|sum(b)|dp_sum(b, 0::int8, 100::int8, 1.0, 1)"
	"sum float8|sum(f)|dp_sum(f, 0::float8, 100::float8, 1.0, 1)"
	"sum numeric|sum(n)|dp_sum(n, 0::numeric, 100::numeric, 1.0, 1)"
	"avg float8|avg(f)|dp_avg(f, 0, 100, 1.0, 1)"
	"variance float8|var_pop(f)|dp_var(f, 0, 100, 1.0, 1)"
	"count|count(*)|dp_count(1::int8, 1, 1.0, 1)"
	"median float8|percentile_cont(0.5) WITHIN GROUP (ORDER BY f)|dp_ntile(f, 0.5, 0, 100, 1.0, 1)"
)
BASELINE="count(*)"

# distinct expressions to time, baseline first
EXPRS=("$BASELINE")
for pair in "${PAIRS[@]}"; do
	IFS='|' read -r _label builtin anon <<<"$pair"
	for e in "$builtin" "$anon"; do
		seen=0
		for x in "${EXPRS[@]}"; do [ "$x" = "$e" ] && seen=1; done
		[ $seen -eq 1 ] || EXPRS+=("$e")
	done
done

# server-side execution time (ms) of one run of "SELECT <expr> FROM bench_t"
exec_ms() {
	local settings=$1 expr=$2 out
	out=$(pg_psql -At -c "$settings" \
		-c "EXPLAIN (ANALYZE, TIMING OFF, SUMMARY ON, COSTS OFF) SELECT $expr FROM bench_t")
	printf '%s\n' "$out" | sed -n 's/^Execution Time: \([0-9.]*\) ms$/\1/p'
}

median() {
	tr ' ' '\n' | grep -v '^$' | sort -g | awk '{ v[NR] = $1 } END {
		if (NR % 2) printf "%.1f", v[(NR + 1) / 2]; else printf "%.1f", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

declare -A TIMES=()
# one warm-up round, then RUNS rounds; each round times every expression once
# (round-robin, so slow drift of the machine spreads over all of them)
for round in $(seq 0 "$RUNS"); do
	if [ "$round" -eq 0 ]; then log "warm-up round"; else log "round $round of $RUNS"; fi
	for e in "${EXPRS[@]}"; do
		ms=$(exec_ms "$SERIAL" "$e")
		[ -n "$ms" ] || { echo "agg_speed.sh: no Execution Time for: $e" >&2; exit 1; }
		[ "$round" -eq 0 ] || TIMES[$e]="${TIMES[$e]:-} $ms"
	done
done

declare -A MED=()
for e in "${EXPRS[@]}"; do MED[$e]=$(median <<<"${TIMES[$e]}"); done
BASE_MS=${MED[$BASELINE]}

# values, once (two scans), as a sanity check of what is being timed
builtin_list="" anon_list=""
for pair in "${PAIRS[@]}"; do
	IFS='|' read -r _label builtin anon <<<"$pair"
	builtin_list="$builtin_list${builtin_list:+, }($builtin)::text"
	anon_list="$anon_list${anon_list:+, }($anon)::text"
done
log "computing result values"
mapfile -t BUILTIN_VALUES < <(pg_psql -At -F $'\n' -c "$SERIAL" -c "SELECT $builtin_list FROM bench_t")
mapfile -t ANON_VALUES < <(pg_psql -At -F $'\n' -c "$SERIAL" -c "SELECT $anon_list FROM bench_t")

ns_per_row() {	# ms -> (ms - baseline) per row, in ns
	awk -v ms="$1" -v base="$BASE_MS" -v rows="$ROWS" 'BEGIN { printf "%.1f", (ms - base) * 1e6 / rows }'
}
ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else printf "n/a" }'
}
meets() {	# ratio -> verdict
	awk -v r="$1" 'BEGIN { if (r == "n/a") print "n/a"; else if (r + 0 <= 1.5) print "meets"; else print "**misses**" }'
}

PG_VERSION=$(pg_psql -At -c "SHOW server_version")
SUM_INT8_NS=$(ns_per_row "${MED[sum(b)]}")

echo "### Aggregate speed: $ROWS rows, serial plans"
echo
echo "PostgreSQL $PG_VERSION, table bench_t ($TABLE_SIZE; columns i int4, b int8, f float8 = random() * 100, n numeric(2 decimals)), shared_buffers = $SHARED_BUFFERS, work_mem = 1GB, max_parallel_workers_per_gather = 0, jit = off.  Times are the server's Execution Time of \`EXPLAIN (ANALYZE, TIMING OFF, SUMMARY ON) SELECT <aggregate> FROM bench_t\`, median of $RUNS runs after one warm-up round."
echo
echo "Scan baseline: \`$BASELINE\` = $BASE_MS ms ($(awk -v ms="$BASE_MS" -v rows="$ROWS" 'BEGIN { printf "%.1f", ms * 1e6 / rows }') ns/row).  \"ns/row\" = (median - baseline) / rows: the estimated cost of the transition function (plus reading its argument column).  \"transition ratio\" = anon_dp ns/row / built-in ns/row; \"raw ratio\" = anon_dp ms / built-in ms.  Target: transition ratio <= 1.5."
echo
echo "| aggregate | built-in | built-in ms | anon_dp | anon_dp ms | built-in ns/row | anon_dp ns/row | transition ratio | raw ratio | target (<= 1.5x) |"
echo "|---|---|---:|---|---:|---:|---:|---:|---:|---|"
for pair in "${PAIRS[@]}"; do
	IFS='|' read -r label builtin anon <<<"$pair"
	b_ms=${MED[$builtin]}
	a_ms=${MED[$anon]}
	a_ns=$(ns_per_row "$a_ms")
	if [ "$builtin" = "$BASELINE" ]; then
		b_ns="0 (baseline)"
		t_ratio="n/a"
		raw=$(ratio "$a_ms" "$b_ms")
		verdict="$(meets "$raw") (raw)¹"
	else
		b_ns=$(ns_per_row "$b_ms")
		t_ratio=$(ratio "$a_ns" "$b_ns")
		raw=$(ratio "$a_ms" "$b_ms")
		verdict=$(meets "$t_ratio")
	fi
	echo "| $label | \`$builtin\` | $b_ms | \`$anon\` | $a_ms | $b_ns | $a_ns | $t_ratio | $raw | $verdict |"
done
echo
echo "¹ count(*) is itself the scan baseline, so its transition cost cannot be separated; dp_count is judged on the raw ratio.  For reference its transition cost, $(ns_per_row "${MED[dp_count(1::int8, 1, 1.0, 1)]}") ns/row, is $(ratio "$(ns_per_row "${MED[dp_count(1::int8, 1, 1.0, 1)]}")" "$SUM_INT8_NS")x that of the built-in sum(int8) ($SUM_INT8_NS ns/row)."
echo
echo "#### All runs (ms)"
echo
echo "| expression | runs | median |"
echo "|---|---|---:|"
for e in "${EXPRS[@]}"; do
	echo "| \`$e\` |$(sed 's/^ //; s/ /, /g; s/^/ /' <<<"${TIMES[$e]}") | ${MED[$e]} |"
done
echo
echo "#### Result values (one serial run each; anon_dp values carry noise, epsilon 1)"
echo
echo "| aggregate | built-in | anon_dp |"
echo "|---|---:|---:|"
i=0
for pair in "${PAIRS[@]}"; do
	IFS='|' read -r label _builtin _anon <<<"$pair"
	echo "| $label | ${BUILTIN_VALUES[$i]:-?} | ${ANON_VALUES[$i]:-?} |"
	i=$((i + 1))
done
echo

# ---- parallel aggregation ----
log "parallel runs"
PAR_EXPRS=("sum(f)" "dp_sum(f, 0::float8, 100::float8, 1.0, 1)" "dp_ntile(f, 0.5, 0, 100, 1.0, 1)")
PAR_RUNS=3
echo "### Parallel aggregation (max_parallel_workers_per_gather = 2)"
echo
echo "Median of $PAR_RUNS runs after one warm-up run; parallel_setup_cost = parallel_tuple_cost = 0.  The machine has $(nproc) cores, so 2 workers plus the leader compete for them."
echo
echo "| aggregate | plan | workers launched | parallel ms | serial ms | speed-up | parallel result | serial result |"
echo "|---|---|---:|---:|---:|---:|---:|---:|"
for e in "${PAR_EXPRS[@]}"; do
	plan=$(pg_psql -At -c "$PARALLEL" \
		-c "EXPLAIN (ANALYZE, TIMING OFF, SUMMARY ON, COSTS OFF) SELECT $e FROM bench_t")
	shape=$(printf '%s\n' "$plan" | grep -oE '(Finalize Aggregate|Gather|Partial Aggregate|Parallel Seq Scan)' | paste -sd'>' - | sed 's/>/ > /g')
	launched=$(printf '%s\n' "$plan" | sed -n 's/.*Workers Launched: \([0-9]*\).*/\1/p' | head -n 1)
	times=""
	for _r in $(seq 1 "$PAR_RUNS"); do times="$times $(exec_ms "$PARALLEL" "$e")"; done
	p_ms=$(median <<<"$times")
	s_ms=${MED[$e]:-}
	if [ -z "$s_ms" ]; then s_ms=$(exec_ms "$SERIAL" "$e"); fi
	p_val=$(pg_psql -At -c "$PARALLEL" -c "SELECT ($e)::text FROM bench_t")
	s_val=$(pg_psql -At -c "$SERIAL" -c "SELECT ($e)::text FROM bench_t")
	echo "| \`$e\` | ${shape:-serial} | ${launched:-0} | $p_ms | $s_ms | $(ratio "$s_ms" "$p_ms")x | $p_val | $s_val |"
done
echo
echo "agg_speed.sh: $ROWS rows, total wall time $(( $(date +%s) - T_START )) s (including loading the table)."
