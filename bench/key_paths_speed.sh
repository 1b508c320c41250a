#!/usr/bin/env bash
# bench/key_paths_speed.sh -- what a privacy unit reached through foreign keys
# costs (issue 31): an anonymization query over tables whose unit comes
# through keys (schema tpch, bench/tpch/labels.sql) against the same query
# over the copied-column layouts (tpch_cust: lineitem.l_custkey; tpch_supp),
# and, where the rewriter adds the key's joins, against the same query with
# those joins written by hand.  Same data (same generator and seed).
#
# Each block sets the labels of tpch it measures (restored to labels.sql's
# at the end):
#   cust_natural  orders.o_custkey holds the customer, lineitem through orders
#   cust_keys     orders through customer (o_custkey via customer) as well
#   supp_keys     partsupp and lineitem through their keys to supplier
#   supp_partsupp lineitem through its composite key to partsupp
# and runs each of its cases in three variants:
#   key     the query over tpch, the unit through keys
#   copied  the same query over tpch_cust / tpch_supp (the unit a column)
#   hand    (where anon_dp adds joins) the query over tpch with the joins
#           the keys define written in FROM
# Serial plans (max_parallel_workers_per_gather = 0) so that the backend's
# CPU time is the query's; measured per run: wall time (psql \timing) and the
# backend's CPU time (/proc/<pid>/schedstat, which leaves out the time spent
# waiting for a CPU on a shared machine).  One warm-up run of every variant,
# then R rounds, each running every variant of every case of the block once
# in one session, the order of the variants rotated every round.  Ratios are
# medians over rounds of the per-round ratio of CPU times.
#
# Usage: bench/key_paths_speed.sh [--sf SF] [--runs R] [--cluster]
#          [--skip-load] [--no-save]
#   --sf         scale factor (default 1)
#   --runs       rounds (default 5)
#   --cluster    start a throwaway cluster (tools/lib.sh start_cluster, port
#                $ANON_DP_PORT, default 54329) with shared_buffers for the
#                data; else the cluster of the PG* variables (local server)
#   --skip-load  use the tpch, tpch_cust and tpch_supp schemas already loaded
#   --no-save    do not write bench/results/key_paths_speed.md
# Markdown goes to stdout (and the results file); progress to stderr.
set -euo pipefail

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TPCH="$BENCH_DIR/tpch"
SAVED_PGPORT=${PGPORT-}
SAVED_PGPORT_SET=${PGPORT+set}
# shellcheck source=../tools/lib.sh
source "$BENCH_DIR/../tools/lib.sh"

SF=1
RUNS=5
USE_CLUSTER=0
SKIP_LOAD=0
SAVE=1
usage() { sed -n '2,37p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }
die() { echo "key_paths_speed.sh: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
	case "$1" in
		--sf) SF=${2:?}; shift 2 ;;
		--runs) RUNS=${2:?}; shift 2 ;;
		--cluster) USE_CLUSTER=1; shift ;;
		--skip-load) SKIP_LOAD=1; shift ;;
		--no-save) SAVE=0; shift ;;
		-h|--help) usage; exit 0 ;;
		*) usage >&2; die "unknown argument: $1" ;;
	esac
done

T_START=$(date +%s)
LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)
if [ -n "$SAVED_PGPORT_SET" ]; then PGPORT=$SAVED_PGPORT; else unset PGPORT; fi
WORK_DIR=$(mktemp -d /tmp/anon_dp_keyspeed.XXXXXX)
cleanup() { rm -rf "$WORK_DIR"; if [ "$USE_CLUSTER" -eq 1 ]; then stop_cluster; fi; true; }
trap cleanup EXIT
if [ "$USE_CLUSTER" -eq 1 ]; then
	PGPORT=${ANON_DP_PORT:-54329}
	start_cluster
	RAM_MB=$(awk '/^MemTotal/ { print int($2 / 1024) }' /proc/meminfo)
	SB_MB=$(awk -v s="$SF" -v r="$RAM_MB" 'BEGIN { m = int(s * 6400) + 512; if (m > r * 0.5) m = int(r * 0.5); print m }')
	printf '%s\n' "shared_buffers = '${SB_MB}MB'" "work_mem = '256MB'" "jit = off" \
		"max_wal_size = '4GB'" "maintenance_work_mem = '1GB'" |
		as_pg tee -a "$CLUSTER_DIR/data/postgresql.conf" >/dev/null
	as_pg "$PG_BIN/pg_ctl" -D "$CLUSTER_DIR/data" -l "$CLUSTER_DIR/server.log" -w restart >/dev/null
fi
q() { "$PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 "$@"; }
qv() { q -At -F '|' -c "$1"; }
qv "SELECT 1" >/dev/null || die "cannot connect with the PG* environment variables; pass --cluster"
[ "$(qv "SELECT inet_server_addr() IS NULL")" = t ] || die "the server must be local (a Unix socket): CPU time is read from /proc"

if [ "$SKIP_LOAD" -eq 0 ]; then
	log "loading TPC-H SF $SF (tpch, tpch_cust, tpch_supp, labels)"
	"$TPCH/load.sh" -s "$SF" --schemas "tpch tpch_cust tpch_supp" --labels >"$WORK_DIR/load.md"
fi
for s in tpch tpch_cust tpch_supp; do
	[ "$(qv "SELECT to_regnamespace('$s') IS NOT NULL")" = t ] || die "schema $s is not loaded"
done
N_CUST=$(qv "SELECT count(*) FROM tpch.customer")
N_SUPP=$(qv "SELECT count(*) FROM tpch.supplier")
DELTA_CUST=$(qv "SELECT exp(-0.1 * ln($N_CUST) ^ 2)")
DELTA_SUPP=$(qv "SELECT exp(-0.1 * ln($N_SUPP) ^ 2)")

# ---- the labels of each block (schema tpch) ----
label() { printf "SECURITY LABEL FOR anon_dp ON COLUMN tpch.%s IS '%s';\n" "$1" "$2"; }
block_labels() {
	case "$1" in
		cust_natural) label orders.o_custkey 'privacy_unit customer' ;;
		cust_keys) label orders.o_custkey 'privacy_unit customer via customer' ;;
		supp_keys) label partsupp.ps_suppkey 'privacy_unit supplier via supplier'
			label lineitem.l_suppkey 'privacy_unit supplier via supplier' ;;
		supp_partsupp) label partsupp.ps_suppkey 'privacy_unit supplier'
			label lineitem.l_suppkey 'privacy_unit supplier via partsupp' ;;
	esac
}
restore_labels() {
	{ label orders.o_custkey 'privacy_unit customer'
	  label partsupp.ps_suppkey 'privacy_unit supplier'
	  label lineitem.l_suppkey 'privacy_unit supplier'; } | q
}
trap 'restore_labels 2>/dev/null || true; cleanup' EXIT

# ---- the cases: block|case|unit|C_u|delta|variant|schema|SQL ----
Q4_WHERE="o_orderdate >= date '1993-07-01' AND o_orderdate < date '1993-07-01' + interval '3' month"
Q4="SELECT o_orderpriority, ANON_COUNT(o_orderkey, 5) FROM orders WHERE $Q4_WHERE
  AND EXISTS (SELECT * FROM lineitem WHERE l_orderkey = o_orderkey AND l_commitdate < l_receiptdate)
GROUP BY o_orderpriority"
Q4_COPIED="SELECT o_orderpriority, ANON_COUNT(o_orderkey, 5) FROM orders WHERE $Q4_WHERE
  AND EXISTS (SELECT * FROM lineitem WHERE l_orderkey = o_orderkey AND l_custkey = o_custkey AND l_commitdate < l_receiptdate)
GROUP BY o_orderpriority"
Q4_HAND="SELECT o_orderpriority, ANON_COUNT(o_orderkey, 5) FROM orders JOIN customer ON c_custkey = o_custkey WHERE $Q4_WHERE
  AND EXISTS (SELECT * FROM lineitem WHERE l_orderkey = o_orderkey AND l_commitdate < l_receiptdate)
GROUP BY o_orderpriority"
Q13="SELECT c_count, ANON_COUNT(*) FROM (SELECT c_custkey, count(o_orderkey) AS c_count
  FROM customer LEFT OUTER JOIN orders ON c_custkey = o_custkey AND o_comment NOT LIKE '%special%requests%'
  GROUP BY c_custkey) AS c_orders GROUP BY c_count"
Q16_WHERE="p_partkey = ps_partkey AND p_brand <> 'Brand#45' AND p_type NOT LIKE 'MEDIUM POLISHED%'
  AND p_size IN (49, 14, 23, 45, 19, 3, 36, 9)"
Q16="SELECT p_brand, p_type, p_size, ANON_COUNT(*) FROM partsupp, part WHERE $Q16_WHERE
  AND ps_suppkey NOT IN (SELECT s_suppkey FROM supplier WHERE s_suppkey = ps_suppkey AND s_comment LIKE '%Customer%Complaints%')
GROUP BY p_brand, p_type, p_size"
Q16_HAND="SELECT p_brand, p_type, p_size, ANON_COUNT(*) FROM partsupp JOIN supplier ON s_suppkey = ps_suppkey, part WHERE $Q16_WHERE
  AND ps_suppkey NOT IN (SELECT s_suppkey FROM supplier WHERE s_suppkey = ps_suppkey AND s_comment LIKE '%Customer%Complaints%')
GROUP BY p_brand, p_type, p_size"
Q21="SELECT s_name, ANON_COUNT(*) FROM supplier, lineitem l1, orders, nation
WHERE s_suppkey = l1.l_suppkey AND o_orderkey = l1.l_orderkey AND o_orderstatus = 'F'
  AND l1.l_receiptdate > l1.l_commitdate AND s_nationkey = n_nationkey AND n_name = 'SAUDI ARABIA'
GROUP BY s_name"
Q1_WHERE="l_shipdate <= date '1998-12-01' - interval '90' day"
Q1="SELECT l_returnflag, l_linestatus, ANON_COUNT(*), ANON_SUM(l_quantity, 0, 18650) FROM lineitem WHERE $Q1_WHERE
GROUP BY l_returnflag, l_linestatus"
Q1_HAND_ORDERS="SELECT l_returnflag, l_linestatus, ANON_COUNT(*), ANON_SUM(l_quantity, 0, 18650)
FROM lineitem JOIN orders ON o_orderkey = l_orderkey WHERE $Q1_WHERE GROUP BY l_returnflag, l_linestatus"
Q1_HAND_CUST="SELECT l_returnflag, l_linestatus, ANON_COUNT(*), ANON_SUM(l_quantity, 0, 18650)
FROM lineitem JOIN orders ON o_orderkey = l_orderkey JOIN customer ON c_custkey = o_custkey WHERE $Q1_WHERE
GROUP BY l_returnflag, l_linestatus"
Q1_HAND_SUPP="SELECT l_returnflag, l_linestatus, ANON_COUNT(*), ANON_SUM(l_quantity, 0, 18650)
FROM lineitem JOIN supplier ON s_suppkey = l_suppkey WHERE $Q1_WHERE GROUP BY l_returnflag, l_linestatus"
Q1_HAND_PS="SELECT l_returnflag, l_linestatus, ANON_COUNT(*), ANON_SUM(l_quantity, 0, 18650)
FROM lineitem JOIN partsupp ON ps_partkey = l_partkey AND ps_suppkey = l_suppkey WHERE $Q1_WHERE
GROUP BY l_returnflag, l_linestatus"
CASES="$WORK_DIR/cases"
: >"$CASES"
# one line per variant, the SQL flattened
addq() { printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "$5" "$6" "$7" "$(printf '%s' "$8" | tr '\n' ' ')" >>"$CASES"; }
addq cust_natural q04 customer 5 "$DELTA_CUST" key tpch "$Q4"
addq cust_natural q04 default 5 "$DELTA_CUST" copied tpch_cust "$Q4_COPIED"
addq cust_natural q01_customers customer 4 "$DELTA_CUST" key tpch "$Q1"
addq cust_natural q01_customers default 4 "$DELTA_CUST" copied tpch_cust "$Q1"
addq cust_natural q01_customers customer 4 "$DELTA_CUST" hand tpch "$Q1_HAND_ORDERS"
addq cust_keys q04 customer 5 "$DELTA_CUST" key tpch "$Q4"
addq cust_keys q04 default 5 "$DELTA_CUST" copied tpch_cust "$Q4_COPIED"
addq cust_keys q04 customer 5 "$DELTA_CUST" hand tpch "$Q4_HAND"
addq cust_keys q13 customer 1 "$DELTA_CUST" key tpch "$Q13"
addq cust_keys q13 default 1 "$DELTA_CUST" copied tpch_cust "$Q13"
addq cust_keys q01_customers customer 4 "$DELTA_CUST" key tpch "$Q1"
addq cust_keys q01_customers default 4 "$DELTA_CUST" copied tpch_cust "$Q1"
addq cust_keys q01_customers customer 4 "$DELTA_CUST" hand tpch "$Q1_HAND_CUST"
addq supp_keys q16 supplier 5 "$DELTA_SUPP" key tpch "$Q16"
addq supp_keys q16 default 5 "$DELTA_SUPP" copied tpch_supp "$Q16"
addq supp_keys q16 supplier 5 "$DELTA_SUPP" hand tpch "$Q16_HAND"
addq supp_keys q21 supplier 1 "$DELTA_SUPP" key tpch "$Q21"
addq supp_keys q21 default 1 "$DELTA_SUPP" copied tpch_supp "$Q21"
addq supp_keys q01_suppliers supplier 4 "$DELTA_SUPP" key tpch "$Q1"
addq supp_keys q01_suppliers default 4 "$DELTA_SUPP" copied tpch_supp "$Q1"
addq supp_keys q01_suppliers supplier 4 "$DELTA_SUPP" hand tpch "$Q1_HAND_SUPP"
addq supp_partsupp q21 supplier 1 "$DELTA_SUPP" key tpch "$Q21"
addq supp_partsupp q21 default 1 "$DELTA_SUPP" copied tpch_supp "$Q21"
addq supp_partsupp q01_suppliers supplier 4 "$DELTA_SUPP" key tpch "$Q1"
addq supp_partsupp q01_suppliers default 4 "$DELTA_SUPP" copied tpch_supp "$Q1"
addq supp_partsupp q01_suppliers supplier 4 "$DELTA_SUPP" hand tpch "$Q1_HAND_PS"

# One session: settings of a variant, then its run between two CPU probes.
probe() { printf '\\! awk '"'"'{ print "cpu_ns_%s", $1 }'"'"' /proc/$ANON_BENCH_PID/schedstat\n' "$1"; }
run_script() {	# run_script <block> <round> <rotation>: the psql script of one round
	local block=$1 round=$2 rot=$3
	printf 'SET max_parallel_workers_per_gather = 0;\nSET anon_dp.epsilon = 0.1;\nSET anon_dp.partition_selection = laplace;\n'
	printf 'SELECT pg_backend_pid() AS anon_bench_pid \\gset\n\\setenv ANON_BENCH_PID :anon_bench_pid\n\\timing on\n'
	awk -F'\t' -v b="$block" '$1 == b' "$CASES" | awk -v r="$rot" '{ lines[NR] = $0 } END {
		# rotate the variants of each case: group lines by case, keep case order
		n = 0; for (i = 1; i <= NR; i++) { split(lines[i], f, "\t"); if (!(f[2] in seen)) { seen[f[2]] = ++n; order[n] = f[2] } cnt[f[2]]++; v[f[2], cnt[f[2]]] = lines[i] }
		for (k = 1; k <= n; k++) { c = order[k]; m = cnt[c]; for (j = 0; j < m; j++) print v[c, ((j + r) % m) + 1] } }' |
	while IFS=$'\t' read -r _ case unit cu delta variant schema sql; do
		printf 'SET search_path = %s, public;\nSET anon_dp.privacy_unit = %s;\nSET anon_dp.max_groups_contributed = %s;\nSET anon_dp.delta = %s;\n' \
			"$schema" "$unit" "$cu" "$delta"
		printf '\\echo run %s %s %s\n' "$round" "$case" "$variant"
		probe before
		printf '\\o /dev/null\n%s;\n\\o\n' "$sql"
		probe after
	done
}
MEAS="$WORK_DIR/meas"
: >"$MEAS"
parse() {	# psql output of a round -> "block round case variant wall_ms cpu_ms"
	awk -v b="$1" '$1 == "run" { r = $2; c = $3; v = $4 } $1 == "cpu_ns_before" { cb = $2 }
		$1 == "Time:" { w = $2 } $1 == "cpu_ns_after" { printf "%s %s %s %s %s %.1f\n", b, r, c, v, w, ($2 - cb) / 1e6 }'
}
BLOCKS="cust_natural cust_keys supp_keys supp_partsupp"
declare -A BLOCK_LOAD=()
for block in $BLOCKS; do
	log "block $block: labels"
	block_labels "$block" | q
	l0=$(cut -d' ' -f1-3 /proc/loadavg)
	for round in $(seq 0 "$RUNS"); do
		t0=$(date +%s)
		run_script "$block" "$round" "$round" | q -At 2>&1 | parse "$block" >"$WORK_DIR/round"
		[ "$round" -eq 0 ] || cat "$WORK_DIR/round" >>"$MEAS"
		log "block $block round $round$( [ "$round" -eq 0 ] && echo " (warm-up)"): $(( $(date +%s) - t0 )) s"
	done
	BLOCK_LOAD[$block]="$l0 → $(cut -d' ' -f1-3 /proc/loadavg)"
done
restore_labels

# ---- report ----
report() {
	q -At -F '|' <<SQL
CREATE TEMP TABLE m (block text, round int, query text, variant text, wall float8, cpu float8);
\\copy m FROM '$MEAS' WITH (DELIMITER ' ')
WITH r AS (
  SELECT block, query, round,
         max(cpu) FILTER (WHERE variant = 'key') AS k, max(cpu) FILTER (WHERE variant = 'copied') AS c,
         max(cpu) FILTER (WHERE variant = 'hand') AS h,
         max(wall) FILTER (WHERE variant = 'key') AS kw, max(wall) FILTER (WHERE variant = 'copied') AS cw
  FROM m GROUP BY block, query, round)
SELECT format('| %s | %s | %s | %s | %s | %s | %s | %s |', block, query,
  round(percentile_cont(0.5) WITHIN GROUP (ORDER BY c)::numeric),
  round(percentile_cont(0.5) WITHIN GROUP (ORDER BY k)::numeric),
  coalesce(round(percentile_cont(0.5) WITHIN GROUP (ORDER BY h)::numeric)::text, '-'),
  round(percentile_cont(0.5) WITHIN GROUP (ORDER BY k / c)::numeric, 2) || ' (' || round(min(k / c)::numeric, 2) || '–' || round(max(k / c)::numeric, 2) || ')',
  coalesce(round(percentile_cont(0.5) WITHIN GROUP (ORDER BY k / h)::numeric, 2) || ' (' || round(min(k / h)::numeric, 2) || '–' || round(max(k / h)::numeric, 2) || ')', '-'),
  round(percentile_cont(0.5) WITHIN GROUP (ORDER BY kw / cw)::numeric, 2))
FROM r GROUP BY block, query
ORDER BY array_position(array['cust_natural', 'cust_keys', 'supp_keys', 'supp_partsupp'], block), query;
SQL
}
OUT="$WORK_DIR/key_paths_speed.md"
{
echo "# Privacy units through foreign keys: speed (issue 31)"
echo
echo "- command: \`bench/key_paths_speed.sh --sf $SF --runs $RUNS$( [ "$USE_CLUSTER" -eq 1 ] && echo " --cluster")$( [ "$SKIP_LOAD" -eq 1 ] && echo " --skip-load")\`, checkout $(git -C "$BENCH_DIR/.." rev-parse --short HEAD 2>/dev/null || echo '?')"
echo "- data: TPC-H SF $SF (bench/tpch, seed 1): schema \`tpch\` (the unit through keys, bench/tpch/labels.sql, relabelled per block) and the copied-column layouts \`tpch_cust\`, \`tpch_supp\` (the default unit on a column of every private table)"
echo "- PostgreSQL $(qv "SHOW server_version"); shared_buffers $(qv "SHOW shared_buffers"), work_mem $(qv "SHOW work_mem"), jit $(qv "SHOW jit"); serial plans; ε = 0.1, δ = n^(−ε ln n), C_u as in the paper (Q1: 4)"
echo "- machine: $(nproc) cores shared with other jobs; load average $LOAD_START at the start, $(cut -d' ' -f1-3 /proc/loadavg) at the end; per block: $(for b in $BLOCKS; do printf '%s %s; ' "$b" "${BLOCK_LOAD[$b]}"; done)"
echo "- CPU ms: the backend's CPU time for the statement (parse analysis with the rewrite, planning, execution), median of $RUNS rounds; ratios: median (min–max) over rounds of the per-round ratio; the last column is the same ratio of wall times"
echo
echo "| labels (block) | query | copied column: CPU ms | key path: CPU ms | joins by hand: CPU ms | key ÷ copied | key ÷ by hand | key ÷ copied, wall |"
echo "|---|---|---:|---:|---:|---:|---:|---:|"
report
echo
} >"$OUT"
cat "$OUT"
if [ "$SAVE" -eq 1 ]; then
	mkdir -p "$BENCH_DIR/results"
	cp "$OUT" "$BENCH_DIR/results/key_paths_speed.md"
fi
log "done in $(( $(date +%s) - T_START )) s"
