#!/usr/bin/env bash
# bench/accuracy_beyond.sh -- issue 20's accuracy gains on TPC-H, beside the
# paper (Wilson et al., PETS 2020) and beside anon_dp's paper mechanisms
# measured in the same runs, at the same (epsilon, delta): the "Beyond the
# paper" section of bench/results/accuracy.md and its plot
# bench/results/accuracy-q13-selection-delta.png.
#
# Usage: bench/accuracy_beyond.sh [--sf SF] [--runs R] [--q4-runs R4]
#          [--q16-runs R16] [--median-runs RM] [--sweep-runs RS]
#          [--distinct-runs RD] [--delta-runs RF] [--cluster] [--skip-load]
#          [--report-only] [--no-save]
#   --sf            scale factor (default 1, as bench/accuracy.sh)
#   --runs          runs of Q13 per selection strategy (default 40) and of
#                   Q13 with public partitions
#   --q4-runs       runs of Q4 per noise setting (default 20)
#   --q16-runs      runs of Q16 per noise setting (default 50)
#   --median-runs   runs of the Table 3 median, m = 373 rows per user (300)
#   --sweep-runs    runs of the median at m = 1, 10, 50 (default 50)
#   --distinct-runs runs of the ANON_COUNT(DISTINCT) example (default 100)
#   --delta-runs    runs of Q13 at the plot's extra deltas (default 6)
#   --cluster       start a throwaway cluster (tools/lib.sh start_cluster,
#                   port $ANON_DP_PORT) and load the data; otherwise use
#                   the cluster of the PG* variables
#   --skip-load     use the tpch_cust / tpch_supp schemas already loaded
#   --report-only   no runs: write the section from the acc schema a
#                   previous run left (the same database)
#   --no-save       write the section to stdout only
# The section replaces the one between the markers <!-- beyond:start -->
# and <!-- beyond:end --> of bench/results/accuracy.md (inserted before
# "## Error against ε" if absent); bench/accuracy.sh keeps it when it
# rewrites the file.  Builds bench/build/selection_rates (expected rates,
# bench/selection_rates.c).  About 30 minutes at SF 1 on 2 cores.
set -euo pipefail

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TPCH="$BENCH_DIR/tpch"
RESULTS_DIR=${ACCURACY_RESULTS_DIR:-$BENCH_DIR/results}
SAVED_PGPORT=${PGPORT-}
# shellcheck source=../tools/lib.sh
source "$BENCH_DIR/../tools/lib.sh"
[ -n "$SAVED_PGPORT" ] && PGPORT=$SAVED_PGPORT

SF=1
RUNS=40
Q4_RUNS=20
Q16_RUNS=50
MEDIAN_RUNS=300
SWEEP_RUNS=50
DISTINCT_RUNS=100
DELTA_RUNS=6
USE_CLUSTER=0
SKIP_LOAD=0
REPORT_ONLY=0
SAVE=1
EPS=0.1
MEDIAN_M=373          # rows per user of the headline median: Table 3's COUNT bound
MEDIAN_SWEEP="0 10 50"   # 0: anon_dp.max_rows_contributed unset, one row per user
DELTA_POINTS="1e-9 1e-3"
PNG=accuracy-q13-selection-delta.png
ARGS="$*"

die() { echo "accuracy_beyond.sh: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
	case "$1" in
		--sf) SF=${2:?}; shift 2 ;;
		--runs) RUNS=${2:?}; shift 2 ;;
		--q4-runs) Q4_RUNS=${2:?}; shift 2 ;;
		--q16-runs) Q16_RUNS=${2:?}; shift 2 ;;
		--median-runs) MEDIAN_RUNS=${2:?}; shift 2 ;;
		--sweep-runs) SWEEP_RUNS=${2:?}; shift 2 ;;
		--distinct-runs) DISTINCT_RUNS=${2:?}; shift 2 ;;
		--delta-runs) DELTA_RUNS=${2:?}; shift 2 ;;
		--cluster) USE_CLUSTER=1; shift ;;
		--skip-load) SKIP_LOAD=1; shift ;;
		--report-only) REPORT_ONLY=1; shift ;;
		--no-save) SAVE=0; shift ;;
		-h|--help) sed -n '2,33p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
		*) die "unknown argument: $1" ;;
	esac
done
for v in RUNS Q4_RUNS Q16_RUNS MEDIAN_RUNS SWEEP_RUNS DISTINCT_RUNS DELTA_RUNS; do
	case "${!v}" in ''|*[!0-9]*|0) die "$v must be a positive integer" ;; esac
done

T_START=$(date +%s)
since() { echo $(( $(date +%s) - $1 )); }
command -v gnuplot >/dev/null 2>&1 ||
	as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends gnuplot-nox >/dev/null
make -s -C "$BENCH_DIR" build/selection_rates
RATES="$BENCH_DIR/build/selection_rates"

WORK_DIR=$(mktemp -d /tmp/anon_dp_beyond.XXXXXX)
cleanup() {
	rm -rf "$WORK_DIR"
	if [ "$USE_CLUSTER" -eq 1 ]; then stop_cluster; fi
	true
}
trap cleanup EXIT
if [ "$USE_CLUSTER" -eq 1 ]; then
	start_cluster || die "cannot start a cluster (is anon_dp installed?)"
	printf '%s\n' "shared_buffers = '${ACCURACY_SHARED_BUFFERS:-5GB}'" "work_mem = '256MB'" "jit = off" |
		as_pg tee -a "$CLUSTER_DIR/data/postgresql.conf" >/dev/null
	as_pg "$PG_BIN/pg_ctl" -D "$CLUSTER_DIR/data" -l "$CLUSTER_DIR/server.log" -w restart >/dev/null
fi
q() { "$PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 "$@"; }
qv() { q -At -F '|' -c "$1"; }
qv "SELECT 1" >/dev/null || die "cannot connect with the PG* environment variables; pass --cluster"
# shellcheck source=accuracy_lib.sh
source "$BENCH_DIR/accuracy_lib.sh"
CFG_SQL="$WORK_DIR/cfg.sql"
: >"$CFG_SQL"

if [ "$REPORT_ONLY" -eq 0 ]; then
	if [ "$SKIP_LOAD" -eq 0 ]; then
		log "loading TPC-H SF $SF"
		"$TPCH/load.sh" -s "$SF" --labels >/dev/null
	fi
	q -c "CREATE EXTENSION IF NOT EXISTS anon_dp" -f "$TPCH/labels.sql" >/dev/null
	q -f "$TPCH/accuracy.sql"
	# Table 3's record A/F as its own private table (as bench/accuracy.sh);
	# Q13's possible c_count values as a public table (public partitions)
	q <<'EOF'
SET client_min_messages = warning;
SET search_path = tpch_supp, public;
DROP TABLE IF EXISTS q1_af;
CREATE TABLE q1_af AS
SELECT l_suppkey, l_orderkey, l_extendedprice::float8 AS l_extendedprice
FROM lineitem
WHERE l_shipdate <= date '1998-12-01' - interval '90' day
  AND l_returnflag = 'A' AND l_linestatus = 'F';
SECURITY LABEL FOR anon_dp ON COLUMN q1_af.l_suppkey IS 'privacy_unit';
VACUUM ANALYZE q1_af;
DROP TABLE IF EXISTS tpch_cust.q13_counts;
CREATE TABLE tpch_cust.q13_counts AS SELECT g AS c_count FROM generate_series(0, 49) g;
SECURITY LABEL FOR anon_dp ON TABLE tpch_cust.q13_counts IS 'public';
EOF
fi
N_CUST=$(qv "SELECT count(*) FROM tpch_cust.customer")
N_SUPP=$(qv "SELECT count(*) FROM tpch_supp.supplier")
DELTA_CUST=$(qv "SELECT exp(-$EPS * ln($N_CUST) ^ 2)")
DELTA_SUPP=$(qv "SELECT exp(-$EPS * ln($N_SUPP) ^ 2)")

Q13=$(select_of anon/q13.sql)
Q13_PUBLIC="SELECT k.c_count, ANON_COUNT(*) AS custdist
FROM q13_counts k LEFT JOIN (
    SELECT c_custkey, count(o_orderkey) AS c_count
    FROM customer LEFT OUTER JOIN orders ON c_custkey = o_custkey
         AND o_comment NOT LIKE '%special%requests%'
    GROUP BY c_custkey) c ON c.c_count = k.c_count
GROUP BY k.c_count"
Q04=$(select_of anon/q04.sql)
Q16=$(select_of anon/q16.sql)
T3_MEDIAN="SELECT ANON_MEDIAN(l_extendedprice, 0, 100000) AS v FROM q1_af"
T3_DISTINCT="SELECT ANON_COUNT(DISTINCT l_orderkey, $MEDIAN_M) AS v FROM q1_af"
PAPER="anon_dp.partition_selection=laplace anon_dp.reuse_counts=off anon_dp.noise=laplace"
NOW="anon_dp.reuse_counts=on anon_dp.noise=auto"

if [ "$REPORT_ONLY" -eq 0 ]; then
	{
		exact q1af tpch_supp "$(wrap "'A|F'" "median:m distinct:d" \
			"SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY l_extendedprice) AS m,
			        count(DISTINCT l_orderkey) AS d FROM q1_af")"
		exact q13 tpch_cust "$(wrap c_count "count:custdist users:custdist" "$(select_of plain/q13.sql)")"
		exact q13/public tpch_cust "$(wrap c_count "count:n" \
			"SELECT k.c_count, coalesce(x.n, 0) AS n FROM q13_counts k LEFT JOIN (
			   SELECT c_count, count(*) AS n FROM (SELECT c_custkey, count(o_orderkey) AS c_count
			     FROM customer LEFT JOIN orders ON c_custkey = o_custkey AND o_comment NOT LIKE '%special%requests%'
			     GROUP BY c_custkey) c GROUP BY c_count) x USING (c_count)")"
		exact q04 tpch_cust "$(wrap o_orderpriority "count:order_count" "$(select_of plain/q04.sql)")"
		exact q16 tpch_supp "$(wrap "concat_ws('|', p_brand, p_type, p_size)" "count:supplier_cnt" "$(select_of plain/q16.sql)")"
	} | q
	W13=$(wrap c_count count:custdist "$Q13")
	for s in laplace-separate laplace optimal gaussian auto; do
		case $s in
			laplace-separate) set_s="$PAPER" ;;
			*) set_s="anon_dp.partition_selection=$s $NOW" ;;
		esac
		cfg q13 "b13_$s" q13 q13.sql tpch_cust "$EPS" "$DELTA_CUST" 1 1 "$RUNS" "$W13" "$set_s"
		for d in $DELTA_POINTS; do
			case $s in laplace-separate|auto) ;; *) continue ;; esac
			cfg q13delta "b13_${s}_$d" q13 q13.sql tpch_cust "$EPS" "$d" 1 1 "$DELTA_RUNS" "$W13" "$set_s"
		done
	done
	cfg public b13_public q13/public "Q13 over q13_counts" tpch_cust "$EPS" "$DELTA_CUST" 1 1 "$RUNS" \
		"$(wrap c_count count:custdist "$Q13_PUBLIC")" "$NOW"
	# before: the paper's mechanisms; nogauss: no Gaussian noise anywhere
	# (noise and selection), the best selection without it (optimal);
	# laplace / auto / gaussian: anon_dp.noise, the selection chosen by auto
	for n in before nogauss laplace auto gaussian; do
		case $n in
			before) set_n="$PAPER" ;;
			nogauss) set_n="anon_dp.partition_selection=optimal anon_dp.reuse_counts=on anon_dp.noise=laplace" ;;
			*) set_n="anon_dp.partition_selection=auto anon_dp.reuse_counts=on anon_dp.noise=$n" ;;
		esac
		cfg noise "b04_$n" q04 q04.sql tpch_cust "$EPS" "$DELTA_CUST" 5 1 "$Q4_RUNS" \
			"$(wrap o_orderpriority count:order_count "$Q04")" "$set_n"
		cfg noise "b16_$n" q16 q16.sql tpch_supp "$EPS" "$DELTA_SUPP" 5 1 "$Q16_RUNS" \
			"$(wrap "concat_ws('|', p_brand, p_type, p_size)" count:supplier_cnt "$Q16")" "$set_n"
	done
	for m in $MEDIAN_M $MEDIAN_SWEEP; do
		r=$SWEEP_RUNS; [ "$m" = "$MEDIAN_M" ] && r=$MEDIAN_RUNS
		cfg median "bmed_$m" q1af "ANON_MEDIAN on q1_af" tpch_supp "$EPS" NULL 1 1 "$r" \
			"$(wrap "'A|F'" median:v "$T3_MEDIAN")" "anon_dp.max_rows_contributed=$m"
	done
	cfg distinct bdistinct q1af "ANON_COUNT(DISTINCT) on q1_af" tpch_supp "$EPS" NULL 1 1 "$DISTINCT_RUNS" \
		"$(wrap "'A|F'" distinct:v "$T3_DISTINCT")"
	q -f "$CFG_SQL"
	T_RUNS=$(date +%s)
	for c in $(qv "SELECT cfg FROM acc.cfg ORDER BY part <> 'q13', part, cfg"); do
		t0=$(date +%s)
		q -c "CALL acc.run('$c')"
		log "$c: $(qv "SELECT runs FROM acc.cfg WHERE cfg = '$c'") runs in $(since "$t0") s (so far $(since "$T_RUNS") s)"
	done
	# what the planner chose for each configuration: the DP functions of
	# the rewritten query and the selection mechanism, from EXPLAIN VERBOSE
	q -c "CREATE TABLE IF NOT EXISTS acc.chosen (cfg text PRIMARY KEY, plan text)"
	for c in $(qv "SELECT cfg FROM acc.cfg WHERE part IN ('q13', 'noise', 'public')"); do
		q -At >"$WORK_DIR/explain.txt" <<EOF
DO \$\$ DECLARE c acc.cfg; BEGIN SELECT * INTO c FROM acc.cfg WHERE cfg = '$c'; CALL acc.apply_cfg(c); END \$\$;
SELECT 'EXPLAIN VERBOSE ' || sql FROM acc.cfg WHERE cfg = '$c' \gexec
EOF
		plan=$(grep -o "\bdp_[a-z_]*(" "$WORK_DIR/explain.txt" | grep -v "dp_bounding_secret" | sort -u | tr -d '(' | paste -sd " " - || true)
		mech=$(grep -o "'\(laplace\|optimal\|gaussian\)'::text" "$WORK_DIR/explain.txt" | head -1 | cut -d"'" -f2 || true)
		q -c "INSERT INTO acc.chosen VALUES ('$c', '$plan${mech:+, $mech}') ON CONFLICT (cfg) DO UPDATE SET plan = excluded.plan"
	done
	qv "INSERT INTO acc.paper VALUES ('runs_seconds', $(since "$T_RUNS")) ON CONFLICT (item) DO UPDATE SET val = excluded.val" >/dev/null
fi
log "runs done in $(since "$T_START") s"
