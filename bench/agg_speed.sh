#!/usr/bin/env bash
# bench/agg_speed.sh -- per-row cost of the anon_dp aggregates against the
# built-in PostgreSQL aggregates on one large table.
#
# Starts a throwaway cluster (tools/lib.sh), loads N rows (default 10,000,000)
# with an int4, a bigint, a float8 and a numeric column, and times each
# aggregate with EXPLAIN (ANALYZE, TIMING OFF, SUMMARY ON): the server-side
# "Execution Time", median of R rounds (default 5; in each round every pair
# runs count(*) baseline, built-in and anon_dp back to back), serial plans
# (max_parallel_workers_per_gather = 0, jit = off).  Then runs sum(f),
# dp_sum(f) and dp_ntile(f) with 2 parallel workers to show that parallel
# aggregation (combine / serialize / deserialize) works.  See bench/README.md.
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
if [ "$ROWS" -le 0 ] || [ "$RUNS" -le 0 ]; then
	echo "agg_speed.sh: --rows and --runs must be > 0" >&2
	exit 2
fi

T_START=$(date +%s)

bootstrap
trap stop_cluster EXIT
start_cluster

# the dp_* building blocks are called by name: their schema on the search path
BLOCKS="SET search_path = public, anon_dp_internal"
SERIAL="$BLOCKS; SET max_parallel_workers_per_gather = 0; SET jit = off"
PARALLEL="$BLOCKS; SET max_parallel_workers_per_gather = 2; SET jit = off; SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0"

# postgresql.conf additions, then a restart
configure() {
	printf '%s\n' "$@" | as_pg tee -a "$CLUSTER_DIR/data/postgresql.conf" >/dev/null
	as_pg "$PG_BIN/pg_ctl" -D "$CLUSTER_DIR/data" -l "$CLUSTER_DIR/server.log" -w restart >/dev/null
}

# enough work_mem for percentile_cont to sort every value in memory (its
# best case) and for the load
configure "work_mem = '1GB'" "maintenance_work_mem = '1GB'"

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
TABLE_MB=$(pg_psql -At -c "SELECT ceil(pg_table_size('bench_t') / 1048576.0)::int8")

# A sequential scan of a table larger than shared_buffers / 4 goes through a
# 256 kB ring of buffers (BAS_BULKREAD) and re-reads every page from the
# kernel page cache on every run.  Make shared_buffers more than 4 times the
# table so that every timed run reads only shared buffers.
RAM_MB=$(awk '/^MemTotal/ { print int($2 / 1024) }' /proc/meminfo)
SB_MB=$(( (TABLE_MB * 9 / 2 / 256 + 1) * 256 ))
[ "$SB_MB" -ge 256 ] || SB_MB=256
if [ "$SB_MB" -gt $((RAM_MB * 6 / 10)) ]; then
	log "warning: the table ($TABLE_MB MB) is too large to fit 4 times into 60 % of RAM; scans will use the ring buffer"
	SB_MB=$((RAM_MB * 6 / 10))
fi
SHARED_BUFFERS="${SB_MB}MB"
log "restarting the cluster with shared_buffers = $SHARED_BUFFERS (table: $TABLE_SIZE)"
configure "shared_buffers = '$SHARED_BUFFERS'"

# load the table into shared buffers before any timing, then check that a
# scan now finds every page there
pg_psql -At -c "$SERIAL" -c "SELECT count(*) FROM bench_t" >/dev/null
BUFFERS_LINE=$(pg_psql -At -c "$SERIAL" \
	-c "EXPLAIN (ANALYZE, BUFFERS, TIMING OFF, COSTS OFF) SELECT count(*) FROM bench_t" |
	sed -n 's/^ *Buffers: //p' | head -n 1)

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

# server-side execution time (ms) of one run of "SELECT <expr> FROM bench_t"
exec_ms() {
	local settings=$1 expr=$2 out ms
	out=$(pg_psql -At -c "$settings" \
		-c "EXPLAIN (ANALYZE, TIMING OFF, SUMMARY ON, COSTS OFF) SELECT $expr FROM bench_t")
	ms=$(printf '%s\n' "$out" | sed -n 's/^Execution Time: \([0-9.]*\) ms$/\1/p')
	[ -n "$ms" ] || { echo "agg_speed.sh: no Execution Time for: $expr" >&2; return 1; }
	printf '%s\n' "$ms"
}

median() {
	tr ' ' '\n' | grep -v '^$' | sort -g | awk '{ v[NR] = $1 } END {
		if (NR % 2) printf "%.1f", v[(NR + 1) / 2]; else printf "%.1f", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# Paired measurement: in every round each pair runs baseline, built-in and
# anon_dp back to back (built-in first in odd rounds, anon_dp first in even
# ones), so that each transition cost is estimated from three runs a few
# seconds apart; drift of the (virtual) machine over minutes cancels out.
# Round 0 is a warm-up and is not recorded.
MEAS=$(mktemp /tmp/anon_dp_bench.XXXXXX)
trap 'stop_cluster; rm -f "$MEAS"' EXIT
for round in $(seq 0 "$RUNS"); do
	if [ "$round" -eq 0 ]; then log "warm-up round"; else log "round $round of $RUNS"; fi
	p=0
	for pair in "${PAIRS[@]}"; do
		IFS='|' read -r _label builtin anon <<<"$pair"
		base=$(exec_ms "$SERIAL" "$BASELINE")
		if [ "$builtin" = "$BASELINE" ]; then
			b=$base
			a=$(exec_ms "$SERIAL" "$anon")
		elif [ $((round % 2)) -eq 1 ]; then
			b=$(exec_ms "$SERIAL" "$builtin")
			a=$(exec_ms "$SERIAL" "$anon")
		else
			a=$(exec_ms "$SERIAL" "$anon")
			b=$(exec_ms "$SERIAL" "$builtin")
		fi
		[ "$round" -eq 0 ] || printf '%s %s %s %s %s\n' "$round" "$p" "$base" "$b" "$a" >>"$MEAS"
		p=$((p + 1))
	done
done

# statistics of pair $1: prints
#   base_ms builtin_ms anon_ms builtin_ns anon_ns ratio raw_ratio best_ratio per_round_ratios
# (medians over rounds; *_ns = median over rounds of (run - same-round baseline)
# per row; ratio = anon_ns / builtin_ns; best_ratio = the same ratio from the
# fastest run of each of the three queries; per_round_ratios comma-separated)
pair_stats() {
	awk -v pair="$1" -v rows="$ROWS" '
	function med(v, n,    i, j, t, w) {
		for (i = 1; i <= n; i++) w[i] = v[i]
		for (i = 2; i <= n; i++) { t = w[i]; for (j = i - 1; j >= 1 && w[j] > t; j--) w[j + 1] = w[j]; w[j + 1] = t }
		return (n % 2) ? w[(n + 1) / 2] : (w[n / 2] + w[n / 2 + 1]) / 2
	}
	$2 == pair {
		n++; base[n] = $3; b[n] = $4; a[n] = $5
		tb[n] = ($4 - $3) * 1e6 / rows; ta[n] = ($5 - $3) * 1e6 / rows; raw[n] = $5 / $4
		rr = (tb[n] > 0) ? sprintf("%.2f", ta[n] / tb[n]) : "n/a"
		list = list (n > 1 ? ", " : "") rr
	}
	END {
		mtb = med(tb, n); mta = med(ta, n)
		ratio = (mtb > 0) ? sprintf("%.2f", mta / mtb) : "n/a"
		minbase = base[1]; minb = b[1]; mina = a[1]
		for (i = 2; i <= n; i++) {
			if (base[i] < minbase) minbase = base[i]
			if (b[i] < minb) minb = b[i]
			if (a[i] < mina) mina = a[i]
		}
		best = (minb - minbase > 0) ? sprintf("%.2f", (mina - minbase) / (minb - minbase)) : "n/a"
		printf "%.1f %.1f %.1f %.1f %.1f %s %.2f %s %s\n", med(base, n), med(b, n), med(a, n), mtb, mta, ratio, med(raw, n), best, list
	}' "$MEAS"
}

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

ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else printf "n/a" }'
}
meets() {	# median-based ratio [best-run ratio] -> verdict
	awk -v r="$1" -v s="${2:-$1}" 'BEGIN {
		if (r == "n/a" || s == "n/a") print "n/a"
		else if (r + 0 <= 1.5 && s + 0 <= 1.5) print "meets"
		else if (r + 0 > 1.5 && s + 0 > 1.5) print "**misses**"
		else print "unclear (noise)"
	}'
}

PG_VERSION=$(pg_psql -At -c "SHOW server_version")
BASE_MS=$(cut -d' ' -f3 "$MEAS" | median)
declare -A SERIAL_MS=()	# median serial ms of each expression, for the parallel table

echo "### Aggregate speed: $ROWS rows, serial plans"
echo
echo "PostgreSQL $PG_VERSION, table bench_t ($TABLE_SIZE; columns i int4, b int8, f float8 = random() * 100, n numeric(2 decimals)), shared_buffers = $SHARED_BUFFERS (more than 4 x the table, so scans do not use the bulk-read ring; a scan reports \"Buffers: $BUFFERS_LINE\"), work_mem = 1GB, max_parallel_workers_per_gather = 0, jit = off.  Times are the server's Execution Time of \`EXPLAIN (ANALYZE, TIMING OFF, SUMMARY ON) SELECT <aggregate> FROM bench_t\`, medians over $RUNS rounds after one warm-up round."
echo
echo "Scan baseline: \`$BASELINE\` = $BASE_MS ms ($(awk -v ms="$BASE_MS" -v rows="$ROWS" 'BEGIN { printf "%.1f", ms * 1e6 / rows }') ns/row, median of all its runs); in every round it runs right before each pair.  \"ns/row\" = median over rounds of (run - baseline of the same round) / rows: the estimated cost of the transition function plus reading its argument column.  \"transition ratio\" = anon_dp ns/row / built-in ns/row; \"best-run ratio\" = the same from the fastest run of each query (interference only ever adds time); \"per-round ratios\" shows the spread; \"raw ratio\" = median over rounds of anon_dp ms / built-in ms.  Target: transition ratio <= 1.5; the verdict is \"unclear (noise)\" when the median and best-run ratios fall on different sides of 1.5."
echo
echo "| aggregate | built-in | built-in ms | anon_dp | anon_dp ms | built-in ns/row | anon_dp ns/row | transition ratio | best-run ratio | per-round ratios | raw ratio | target (<= 1.5x) |"
echo "|---|---|---:|---|---:|---:|---:|---:|---:|---|---:|---|"
p=0
for pair in "${PAIRS[@]}"; do
	IFS='|' read -r label builtin anon <<<"$pair"
	read -r _base b_ms a_ms b_ns a_ns t_ratio raw best rounds <<<"$(pair_stats "$p")"
	SERIAL_MS[$builtin]=$b_ms
	SERIAL_MS[$anon]=$a_ms
	if [ "$builtin" = "$BASELINE" ]; then
		COUNT_NS=$a_ns
		b_ns="0 (baseline)"
		t_ratio="n/a"
		best="n/a"
		rounds="n/a"
		verdict="$(meets "$raw") (raw)¹"
	else
		verdict=$(meets "$t_ratio" "$best")
	fi
	[ "$builtin" = "sum(b)" ] && SUM_INT8_NS=$b_ns
	echo "| $label | \`$builtin\` | $b_ms | \`$anon\` | $a_ms | $b_ns | $a_ns | $t_ratio | $best | $rounds | $raw | $verdict |"
	p=$((p + 1))
done
echo
echo "¹ count(*) is itself the scan baseline, so its transition cost cannot be separated; dp_count is judged on the raw ratio.  For reference its transition cost, ${COUNT_NS:-?} ns/row, is $(ratio "${COUNT_NS:-0}" "${SUM_INT8_NS:-0}")x that of the built-in sum(int8) (${SUM_INT8_NS:-?} ns/row)."
echo
echo "#### All runs (ms, in round order)"
echo
echo "| aggregate | baseline runs | built-in runs | anon_dp runs |"
echo "|---|---|---|---|"
p=0
for pair in "${PAIRS[@]}"; do
	IFS='|' read -r label _builtin _anon <<<"$pair"
	cols=$(awk -v pair="$p" '$2 == pair { n++; s = (n > 1 ? ", " : ""); x = x s $3; y = y s $4; z = z s $5 } END { printf "%s | %s | %s", x, y, z }' "$MEAS")
	echo "| $label | $cols |"
	p=$((p + 1))
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
echo "| aggregate | plan | workers planned / launched | parallel ms | serial ms | speed-up | parallel result | serial result |"
echo "|---|---|---:|---:|---:|---:|---:|---:|"
for e in "${PAR_EXPRS[@]}"; do
	plan=$(pg_psql -At -c "$PARALLEL" \
		-c "EXPLAIN (ANALYZE, TIMING OFF, SUMMARY ON, COSTS OFF) SELECT $e FROM bench_t")
	shape=$(printf '%s\n' "$plan" | grep -oE '(Finalize Aggregate|Gather|Partial Aggregate|Parallel Seq Scan)' | paste -sd'>' - | sed 's/>/ > /g')
	planned=$(printf '%s\n' "$plan" | sed -n 's/.*Workers Planned: \([0-9]*\).*/\1/p' | head -n 1)
	launched=$(printf '%s\n' "$plan" | sed -n 's/.*Workers Launched: \([0-9]*\).*/\1/p' | head -n 1)
	times=""
	for _r in $(seq 1 "$PAR_RUNS"); do times="$times $(exec_ms "$PARALLEL" "$e")"; done
	p_ms=$(median <<<"$times")
	s_ms=${SERIAL_MS[$e]:-}
	if [ -z "$s_ms" ]; then s_ms=$(exec_ms "$SERIAL" "$e"); fi
	p_val=$(pg_psql -At -c "$PARALLEL" -c "SELECT ($e)::text FROM bench_t")
	s_val=$(pg_psql -At -c "$SERIAL" -c "SELECT ($e)::text FROM bench_t")
	echo "| \`$e\` | ${shape:-serial} | ${planned:-0} / ${launched:-0} | $p_ms | $s_ms | $(ratio "$s_ms" "$p_ms")x | $p_val | $s_val |"
done
echo
echo "agg_speed.sh: $ROWS rows, total wall time $(( $(date +%s) - T_START )) s (including loading the table)."
