#!/bin/bash
# node_entry_ab.sh: backend CPU time of the typical-shape query, plain GROUP BY
# and anonymized, for two installed builds of anon_dp, rounds interleaved
# (issue 35, item 1: what one change of the bounding node buys).
#
# Usage: bench/node_entry_ab.sh ROUNDS WORK_MEM BIN_A BIN_B
#   BIN_A, BIN_B: bin directories of two PostgreSQL copies (tools/relocated-postgres),
#   each with its build of anon_dp installed.
# Environment: ANON_DP_DATA (data directory of a cluster whose database "bench"
#   holds bench_rw as bench/rewriter_speed.sh loads it; preloads anon_dp),
#   ANON_DP_SOCKET (its socket directory), ANON_DP_PORT.
# Each round restarts the cluster with one build, runs each query once to warm
# the buffers and once measured; CPU ms is the backend's, from
# /proc/<pid>/schedstat (time waiting for a CPU left out).  Prints one line per
# build and round, then the medians.
set -euo pipefail
ROUNDS=$1 WM=$2 A=$3 B=$4
DATA=${ANON_DP_DATA:?} SOCK=${ANON_DP_SOCKET:?} PORT=${ANON_DP_PORT:?}
OUT=$(mktemp -d); chmod 777 "$OUT"
PLAIN="SELECT g, count(*) AS n, sum(x) AS s FROM bench_rw GROUP BY g"
ANON="SELECT g, ANON_COUNT(*) AS n, ANON_SUM(x, 0, 100) AS s FROM bench_rw GROUP BY g"
cpu_ms() {	# cpu_ms BIN QUERY
	cat > "$OUT/q.sql" <<SQL
SET max_parallel_workers_per_gather = 0; SET jit = off; SET work_mem = '$WM';
SET anon_dp.max_groups_contributed = 1; SET anon_dp.epsilon = 1; SET anon_dp.delta = 1e-5;
SELECT pg_backend_pid() AS pid \gset
\setenv BPID :pid
\o /dev/null
$2;
\! awk '{print \$1}' /proc/\$BPID/schedstat > $OUT/s0
$2;
\! awk '{print \$1}' /proc/\$BPID/schedstat > $OUT/s1
SQL
	chmod 644 "$OUT/q.sql"
	runuser -u postgres -- "$1/psql" -h "$SOCK" -p "$PORT" -d bench -q -f "$OUT/q.sql" >/dev/null
	echo $(( ($(cat "$OUT/s1") - $(cat "$OUT/s0")) / 1000000 ))
}
for r in $(seq 1 "$ROUNDS"); do
	for bin in "$A" "$B"; do
		runuser -u postgres -- "$bin/pg_ctl" -D "$DATA" -m fast stop >/dev/null 2>&1 || true
		runuser -u postgres -- "$bin/pg_ctl" -D "$DATA" -l "$OUT/log" -w start >/dev/null
		echo "$bin $r plain $(cpu_ms "$bin" "$PLAIN") anonymized $(cpu_ms "$bin" "$ANON") load $(cut -d' ' -f1 /proc/loadavg)"
	done
done | tee "$OUT/rounds"
for bin in "$A" "$B"; do
	for q in plain anonymized; do
		m=$(awk -v b="$bin" -v q="$q" '$1 == b { for (i = 3; i < NF; i++) if ($i == q) print $(i + 1) }' "$OUT/rounds" | sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}')
		echo "median $bin $q $m ms"
	done
done
