#!/usr/bin/env bash
# bench/resource_limits.sh -- memory per backend (bytes) and cancel latency of
# anonymization queries as rows, users and partitions grow (issue 22, item 2).
#
#   ANON_DP_PORT=54422 bench/resource_limits.sh [--quick] [--no-save] [-- options of resource_limits.py]
#
# Starts a throwaway cluster (tools/lib.sh start_cluster, port $ANON_DP_PORT,
# shared_buffers sized for 10M rows), runs bench/resource_limits.py (what is
# measured and how: its docstring) and writes bench/results/resource_limits.md
# (--quick: 1M rows only, results/resource_limits-quick.md).  The extension
# must be installed (make install); nothing is built.  About 20 minutes here.
set -euo pipefail
BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../tools/lib.sh
source "$BENCH_DIR/../tools/lib.sh"

SAVE=1
OUT="$BENCH_DIR/results/resource_limits.md"
PY_ARGS=()
while [ $# -gt 0 ]; do
	case "$1" in
		--quick) OUT="$BENCH_DIR/results/resource_limits-quick.md"
			PY_ARGS+=(--datasets 1000000:100000:1000,1000000:10000:100 --cancel-dataset 1000000:100000:1000); shift ;;
		--no-save) SAVE=0; shift ;;
		--) shift; PY_ARGS+=("$@"); break ;;
		*) echo "usage: $0 [--quick] [--no-save] [-- options of resource_limits.py]" >&2; exit 2 ;;
	esac
done

LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)
T_START=$(date +%s)
trap stop_cluster EXIT
start_cluster
printf '%s\n' "shared_buffers = '2304MB'" "max_wal_size = '4GB'" "maintenance_work_mem = '1GB'" "jit = off" \
	"log_line_prefix = '%m [%p] '" |
	as_pg tee -a "$CLUSTER_DIR/data/postgresql.conf" >/dev/null
as_pg "$PG_BIN/pg_ctl" -D "$CLUSTER_DIR/data" -l "$CLUSTER_DIR/server.log" -w restart >/dev/null
pg_psql -c "CREATE EXTENSION anon_dp"
export PG_BIN PGHOST PGPORT PGUSER PGDATABASE
# the statements' and errors' times (cancel latency split in served + cleanup)
export ANON_DP_BENCH_LOG="$CLUSTER_DIR/server.log"

{
	echo "# anon_dp resource limits: memory per backend and cancel latency"
	echo
	echo "- date: $(date -u '+%Y-%m-%d %H:%M:%S UTC'); commit: $(git -C "$BENCH_DIR/.." rev-parse --short HEAD 2>/dev/null || echo unknown)"
	echo "- PostgreSQL $(pg_psql -At -c 'SHOW server_version'); CPU: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1), $(nproc) cores; memory $(awk '/^MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)"
	echo "- command: bench/resource_limits.sh $*"
	echo "- settings: shared_buffers = $(pg_psql -At -c 'SHOW shared_buffers'), hash_mem_multiplier = $(pg_psql -At -c 'SHOW hash_mem_multiplier'), jit = off, anon_dp.epsilon = 1, C_u = 1"
	echo "- load average at start: $LOAD_START.  The machine has 2 cores shared with other engineers' builds, tests and a fuzz run: durations are noisy; memory is not."
	echo "- data: \`bench_rl(uid bigint, g int, x float8)\`, uid labelled privacy_unit, generated in the server: \`uid = 1 + hash(i, 1) % users\`, \`g = hash(i, 3) % partitions\`, \`x = (hash(i, 4) & 1048575) / 10485.76\` with \`hash = hashint8extended(...) & 9223372036854775807\`, \`i\` in \`generate_series(1, rows)\` (the worst shape: every (uid, g) pair random), then VACUUM ANALYZE"
	echo
	python3 "$BENCH_DIR/resource_limits.py" "${PY_ARGS[@]}"
	echo "Wall time $(( $(date +%s) - T_START )) s; load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)."
} | if [ "$SAVE" -eq 1 ]; then tee "$OUT.partial"; else cat; fi
if [ "$SAVE" -eq 1 ]; then mv "$OUT.partial" "$OUT"; log "results written to $OUT"; fi
