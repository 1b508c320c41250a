#!/usr/bin/env bash
# bench/guard_speed.sh -- what the protections of anonymized sessions cost:
# the same anonymization queries run by the cluster owner ("full" session,
# not anonymized) and by an anonymized role (bench_analyst, labelled
# 'anonymized', SELECT only on tables labelled 'public'; anon_dp lends it the
# private tables of its anonymization queries).
#
# Part 1, TPC-H Q1 and Q13 (bench/tpch/queries/anon/q01.sql, q13.sql) at
#   scale factor SF, two measures per query and session:
#     plan   PREPARE <query>: parse, analysis (the guard and the
#            allow-list of anonymized sessions run there), rewrite, planning
#     total  the query itself (SAFE-wrapped calls included)
#   The allow-list's share is (anonymized plan - full plan) / full total
#   (target < 1 %); total anonymized / full is reported.
# Part 2, SAFE arithmetic: bench_safe(uid int, x int), N rows, 100,000 users
#   (uid, the privacy unit), x uniform in [0, 100);
#   SELECT ANON_SUM(x * 2 + 1, 0, 100) FROM bench_safe, serial, total time
#   (target: anonymized / full <= 1.10).
# Timed on the client: psql \timing ("Time: N ms"), one new session per
# query, session kind and round, warmed by one untimed PREPARE;
# one warm-up round, then R rounds, sessions interleaved (full, anonymized,
# full, ...).  Local servers: also the backend's CPU time.
#
# Usage: bench/guard_speed.sh [--sf SF] [--rows N] [--runs R] [--skip-load]
#          [--parallel] [--cluster] [--no-save] [--keep]
#   --sf         TPC-H scale factor of part 1, 0.01 .. 1 (default 1)
#   --rows       rows of bench_safe in part 2 (default 10000000)
#   --runs       timed rounds (default 5); tables show median and min
#   --skip-load  use the tpch_cust / tpch_supp schemas already loaded
#                (default: bench/tpch/load.sh -s SF --schemas "tpch_cust tpch_supp" --labels)
#   --parallel   part 1 also with max_parallel_workers_per_gather = 2
#                (the main table is always serial: 0 workers)
#   --cluster    start a throwaway cluster (tools/lib.sh start_cluster, port
#                $ANON_DP_PORT, default 54329) with shared_buffers sized for
#                the data; without it, use the cluster of the PG* variables
#                (a superuser; anon_dp in shared_preload_libraries; the role
#                bench_analyst must be able to log in, e.g. trust on a socket)
#   --no-save    do not write bench/results/guard_speed.md
#   --keep       keep bench_safe and the role bench_analyst at the end
# The extension must already be installed (make install); nothing is built
# (load.sh builds its generator under bench/tpch/build).  Markdown goes to
# stdout and to bench/results/guard_speed.md (a failed report leaves
# guard_speed.md.partial); progress goes to stderr.
set -euo pipefail

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TPCH="$BENCH_DIR/tpch"
CMDLINE="bench/guard_speed.sh"
[ $# -eq 0 ] || CMDLINE="$CMDLINE$(printf ' %q' "$@")"
# tools/lib.sh assigns PGPORT: keep the caller's connection settings
SAVED_PGPORT=${PGPORT-}
SAVED_PGPORT_SET=${PGPORT+set}
# shellcheck source=../tools/lib.sh
source "$BENCH_DIR/../tools/lib.sh"

SF=1
ROWS=10000000
RUNS=5
SKIP_LOAD=0
PARALLEL=0
USE_CLUSTER=0
SAVE=1
KEEP=0
USERS=100000
ROLE=bench_analyst
EPS_TPCH=0.1          # the queries' usual epsilon (bench/accuracy.sh, the paper)
EPS_SAFE=1
WORK_MEM=256MB        # as bench/accuracy.sh's cluster
RESULTS_DIR="$BENCH_DIR/results"

usage() { sed -n '2,43p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }
die() { echo "guard_speed.sh: $*" >&2; exit 2; }

while [ $# -gt 0 ]; do
	case "$1" in
		--sf) SF=${2:?--sf needs a value}; shift 2 ;;
		--sf=*) SF=${1#--sf=}; shift ;;
		--rows) ROWS=${2:?--rows needs a value}; shift 2 ;;
		--rows=*) ROWS=${1#--rows=}; shift ;;
		--runs) RUNS=${2:?--runs needs a value}; shift 2 ;;
		--runs=*) RUNS=${1#--runs=}; shift ;;
		--skip-load) SKIP_LOAD=1; shift ;;
		--parallel) PARALLEL=1; shift ;;
		--cluster) USE_CLUSTER=1; shift ;;
		--no-save) SAVE=0; shift ;;
		--keep) KEEP=1; shift ;;
		-h|--help) usage; exit 0 ;;
		*) echo "guard_speed.sh: unknown argument: $1" >&2; usage >&2; exit 2 ;;
	esac
done

awk -v s="$SF" 'BEGIN { exit !(s ~ /^[0-9.]+$/ && s >= 0.01 && s <= 1) }' || die "--sf must be between 0.01 and 1"
case "$ROWS" in '' | *[!0-9]*) die "--rows must be a positive integer" ;; esac
[ "$ROWS" -gt 0 ] || die "--rows must be > 0"
case "$RUNS" in '' | *[!0-9]*) die "--runs must be a positive integer" ;; esac
[ "$RUNS" -gt 0 ] || die "--runs must be > 0"
[ "$ROWS" -ge "$USERS" ] || USERS=$ROWS

T_START=$(date +%s)
LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)
now() { date +%s; }

# ---- connection ----
if [ "$USE_CLUSTER" -eq 0 ]; then
	if [ -n "$SAVED_PGPORT_SET" ]; then PGPORT=$SAVED_PGPORT; else unset PGPORT; fi
fi
WORK_DIR=$(mktemp -d /tmp/anon_dp_guard_bench.XXXXXX)
chmod 755 "$WORK_DIR"
OUT="$WORK_DIR/guard_speed.md"
MEAS="$WORK_DIR/times"
: >"$MEAS"
SETUP_DONE=0
cleanup() {
	local rc=$?
	if [ "$rc" -ne 0 ] && [ "$SAVE" -eq 1 ] && [ -s "$OUT" ]; then
		mkdir -p "$RESULTS_DIR"
		cp "$OUT" "$RESULTS_DIR/guard_speed.md.partial"
		log "failed (status $rc); the report so far is in $RESULTS_DIR/guard_speed.md.partial"
	fi
	# an existing cluster: do not leave the table or the role behind
	if [ "$USE_CLUSTER" -eq 0 ] && [ "$KEEP" -eq 0 ] && [ "$SETUP_DONE" -eq 1 ]; then
		q -c "SET client_min_messages = warning" -c "DROP TABLE IF EXISTS public.bench_safe" >/dev/null 2>&1 || true
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
	# Both TPC-H schemas take about 3 GB at SF 1 (bench/accuracy.sh's sizing,
	# which keeps lineitem below shared_buffers / 4 so that scans do not go
	# through the 256 kB bulk-read ring); bench_safe about 36 bytes a row
	# (24-byte header + 8 bytes of data + 4-byte line pointer), 4.5 times.
	RAM_MB=$(awk '/^MemTotal/ { print int($2 / 1024) }' /proc/meminfo)
	SB_MB=$(awk -v s="$SF" -v n="$ROWS" -v r="$RAM_MB" 'BEGIN {
		m = int(s * 4608) + 512 + int(n * 36 * 4.5 / 1048576) + 1
		if (m > r * 0.6) m = int(r * 0.6); print m }')
	log "restarting the cluster with shared_buffers = ${SB_MB}MB"
	printf '%s\n' "shared_buffers = '${SB_MB}MB'" "work_mem = '$WORK_MEM'" "jit = off" \
		"max_wal_size = '4GB'" "maintenance_work_mem = '1GB'" |
		as_pg tee -a "$CLUSTER_DIR/data/postgresql.conf" >/dev/null
	as_pg "$PG_BIN/pg_ctl" -D "$CLUSTER_DIR/data" -l "$CLUSTER_DIR/server.log" -w restart >/dev/null
else
	q() { "$PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 "$@"; }
	q -At -c "SELECT 1" >/dev/null ||
		die "cannot connect with the PG* environment variables; pass --cluster to start a throwaway cluster"
fi
qv() { q -At -F '|' -c "$1"; }
qa() { q -U "$ROLE" "$@"; }   # psql as the anonymized role

[ "$(qv "SELECT rolsuper FROM pg_roles WHERE rolname = current_user")" = t ] ||
	die "the PG* user must be a superuser (it is the \"full\" session and creates the role)"
qv "SELECT 'ok' WHERE current_setting('shared_preload_libraries') ~ 'anon_dp'" | grep -q ok ||
	die "anon_dp is not in shared_preload_libraries of this cluster"
q -c "SET client_min_messages = warning" -c "CREATE EXTENSION IF NOT EXISTS anon_dp" >/dev/null
PG_VERSION=$(qv "SHOW server_version")
SHARED_BUFFERS=$(qv "SHOW shared_buffers")
SB_BYTES=$(qv "SELECT setting::int8 * 8192 FROM pg_settings WHERE name = 'shared_buffers'")
EXT_VERSION=$(qv "SELECT extversion FROM pg_extension WHERE extname = 'anon_dp'")
LIB_FILE="$("$PG_BIN/pg_config" --pkglibdir)/anon_dp.so"
lib_date() { date -u -r "$LIB_FILE" '+%Y-%m-%d %H:%M:%S UTC' 2>/dev/null || echo unknown; }
LIB_DATE=$(lib_date)
COMMIT=$(git -C "$BENCH_DIR/.." rev-parse --short HEAD 2>/dev/null || echo unknown)
DIRTY=$(git -C "$BENCH_DIR/.." status --porcelain --untracked-files=no -- src sql 2>/dev/null | wc -l)

# ---- helpers (as in rewriter_speed.sh) ----
median() {
	tr ' ' '\n' | { grep -v '^$' || true; } | sort -g | awk '{ v[NR] = $1 } END {
		if (NR == 0) print "n/a"; else { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		printf (m < 10 ? "%.2f" : "%.1f"), m } }'
}
minimum() {	# two decimals below 10 ms: plan times are about 1 ms
	tr ' ' '\n' | { grep -v '^$' || true; } | sort -g | awk 'NR == 1 { printf ($1 < 10 ? "%.2f" : "%.1f"), $1 } END { if (NR == 0) printf "n/a" }'
}
ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN { if (a == "n/a" || b == "n/a" || b + 0 <= 0) printf "n/a"; else printf "%.2f", a / b }'
}
# share <anonymized plan> <full plan> <full total>: (a - f) / t in percent
share() {
	awk -v a="$1" -v f="$2" -v t="$3" 'BEGIN {
		if (a == "n/a" || f == "n/a" || t == "n/a" || t + 0 <= 0) printf "n/a"
		else printf "%.3f %%", (a - f) / t * 100 }'
}
# verdict <op> <limit> <value>...: op is lt or le; "meets" when every
# available value meets the limit, "misses" when none does; n/a ones are skipped
verdict() {
	local op=$1 lim=$2
	shift 2
	printf '%s\n' "$@" | awk -v op="$op" -v lim="$lim" '
		$1 == "n/a" || $1 == "" { next }
		{ n++; if ((op == "lt") ? ($1 + 0 < lim + 0) : ($1 + 0 <= lim + 0)) ok++ }
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
# the SELECT statement of a query file (from the line "SELECT" to the end),
# without its final semicolon (as bench/accuracy.sh)
select_of() {
	sed -n '/^SELECT$/,$p' "$TPCH/queries/$1" | sed -e '$ s/;[[:space:]]*$//'
}

# A psql command that prints "cpu_ns_<$1> <ns>": the CPU time the backend
# has used so far (first field of /proc/<pid>/schedstat), and "flt_<$1> <n>":
# its minor page faults so far (field 10 of /proc/<pid>/stat).  Only when
# the server is local.
cpu_probe() {
	# shellcheck disable=SC2016  # $1 and $ANON_BENCH_PID are for awk and the shell psql starts
	printf '\\! awk '"'"'{ print "cpu_ns_%s", $1 }'"'"' /proc/$ANON_BENCH_PID/schedstat; awk '"'"'{ print "flt_%s", $10 }'"'"' /proc/$ANON_BENCH_PID/stat\n' "$1" "$1"
}
CPU_OK=0
if [ "$(qv "SELECT inet_server_addr() IS NULL")" = t ] &&
	printf 'SELECT pg_backend_pid() AS anon_bench_pid \\gset\n\\setenv ANON_BENCH_PID :anon_bench_pid\n%s\nSELECT 1;\n%s\n' \
		"$(cpu_probe before)" "$(cpu_probe after)" | q -At 2>/dev/null | grep -q '^cpu_ns_after [0-9]'; then
	CPU_OK=1
fi

# session_script <settings> <sql> <measures>: a psql script for one new
# session: the settings, one untimed PREPARE (loads the backend's
# catalog caches, so that is not timed), then each measure timed by \timing,
# between "\echo mark <measure>" and CPU probes:
#   first  the query, its first run in the backend
#   plan   PREPARE <query> (parse analysis, the guard and the allow-list,
#          the rewrite; EXPLAIN of an anonymization query is refused for
#          anonymized roles)
#   total  the query again
# Query output goes to /dev/null; "Time:" lines, \echo and \! output still
# reach stdout.
session_script() {
	local settings=$1 sql=$2 measures=$3 m
	printf '%s;\n' "$settings"
	if [ "$CPU_OK" -eq 1 ]; then
		printf 'SELECT pg_backend_pid() AS anon_bench_pid \\gset\n\\setenv ANON_BENCH_PID :anon_bench_pid\n'
	fi
	printf '\\o /dev/null\nPREPARE anon_bench_warm AS %s;\nDEALLOCATE anon_bench_warm;\n' "$sql"
	for m in $measures; do
		printf '\\echo mark %s\n' "$m"
		[ "$CPU_OK" -eq 0 ] || cpu_probe before
		printf '\\timing on\n'
		case "$m" in
			plan) printf 'PREPARE anon_bench_plan AS %s;\n' "$sql" ;;
			first | total) printf '%s;\n' "$sql" ;;
		esac
		printf '\\timing off\n'
		[ "$CPU_OK" -eq 0 ] || cpu_probe after
	done
}
# parse a session's output: one line "<measure> <ms> <cpu ms> <page faults>"
# each (n/a when not measured)
parse_session() {
	awk '$1 == "mark" { m = $2; order[++n] = m; next }
	     /^Time: / { t[m] = $2; next }
	     $1 == "cpu_ns_before" { b[m] = $2; next }
	     $1 == "cpu_ns_after" { a[m] = $2; next }
	     $1 == "flt_before" { fb[m] = $2; next }
	     $1 == "flt_after" { fa[m] = $2; next }
	     END { for (i = 1; i <= n; i++) { m = order[i]
	             printf "%s %s %s %s\n", m, (m in t) ? t[m] : "n/a",
	                    (m in a && m in b) ? sprintf("%.1f", (a[m] - b[m]) / 1e6) : "n/a",
	                    (m in fa && m in fb) ? fa[m] - fb[m] : "n/a" } }'
}
# run_session <kind> <settings> <sql> <measures>: one new session as the
# cluster owner (kind full) or as the anonymized role (kind anon)
run_session() {
	local kind=$1 script out
	script=$(session_script "$2" "$3" "$4")
	if [ "$kind" = full ]; then
		out=$(printf '%s\n' "$script" | q -At) || return 1
	else
		out=$(printf '%s\n' "$script" | qa -At) || return 1
	fi
	printf '%s\n' "$out" | parse_session
}
# measure <part> <mode> <qid> <kind> <round> <settings> <sql> <measures>:
# appends "part mode qid measure kind round ms cpu_ms faults" to $MEAS (not
# for round 0, the warm-up)
measure() {
	local part=$1 mode=$2 qid=$3 kind=$4 round=$5 res m ms cpu flt
	res=$(run_session "$kind" "$6" "$7" "$8") ||
		die "$part $qid failed in the $kind session (round $round); see the psql error above"
	while read -r m ms cpu flt; do
		[ "$ms" != n/a ] || die "$part $qid: no \\timing line for $m in the $kind session"
		# the leader's CPU and faults say little about a parallel plan
		[ "$mode" = serial ] || { cpu=n/a; flt=n/a; }
		[ "$round" -eq 0 ] || printf '%s %s %s %s %s %s %s %s %s\n' "$part" "$mode" "$qid" "$m" "$kind" "$round" "$ms" "$cpu" "$flt" >>"$MEAS"
	done <<<"$res"
}
times_of() {	# times_of <part> <mode> <qid> <measure> <kind> [8|9]: ms (field 8: CPU ms, 9: page faults) in round order
	awk -v p="$1" -v mo="$2" -v id="$3" -v me="$4" -v k="$5" -v f="${6:-7}" \
		'$1 == p && $2 == mo && $3 == id && $4 == me && $5 == k && $f != "n/a" { printf "%s ", $f }' "$MEAS"
}
# the plan notes of a query in a session, from EXPLAIN (VERBOSE, COSTS OFF):
# "<workers planned> <the functions wrapped for SAFE evaluation, comma-separated, or ->"
# (anon_dp_safe_call_*('f(...)'::regprocedure, ...) gives f; anon_dp_safe_io_* gives "I/O cast")
plan_info() {	# plan_info <kind> <settings> <sql>
	local script out
	script=$(printf '%s;\nEXPLAIN (VERBOSE, COSTS OFF) %s;\n' "$2" "$3")
	# the anonymized plan as the data owner sees it (anon_dp.access_level): an
	# anonymized role may not EXPLAIN an anonymization query
	if [ "$1" = full ]; then out=$(printf '%s\n' "$script" | q -At); else out=$(printf "SET anon_dp.access_level = 'anonymized';\n%s\n" "$script" | q -At); fi
	printf '%s\n' "$out" | awk -v q="'" '
		BEGIN { re = "anon_dp_safe_call_[a-z]+\\(" q "[^" q "]*" q "::regprocedure" }
		/Workers Planned:/ { w = $3 }
		{ s = $0
		  while (match(s, re)) {
			f = substr(s, RSTART, RLENGTH); sub("^[^" q "]*" q, "", f); sub(q ".*", "", f); sub(/\(.*/, "", f); sub(/^pg_catalog\./, "", f)
			if (!(f in seen)) { seen[f] = 1; list = list (list ? "," : "") f }
			s = substr(s, RSTART + RLENGTH) }
		  if ($0 ~ /anon_dp_safe_io_/ && !("I/O cast" in seen)) { seen["I/O cast"] = 1; list = list (list ? "," : "") "I/O_cast" } }
		END { printf "%s %s\n", (w == "" ? 0 : w), (list == "" ? "-" : list) }'
}
wrapped_of() {	# the wrapped functions of plan_info's output, readable
	local w
	w=$(cut -d' ' -f2 <<<"$1")
	# shellcheck disable=SC2016  # the backquotes are Markdown
	if [ "$w" = - ]; then echo none; else printf '`%s`' "$w" | sed 's/,/`, `/g; s/I\/O_cast/I\/O cast/g'; fi
}

# ---- data: TPC-H ----
LOAD_SECONDS=-
if [ "$SKIP_LOAD" -eq 0 ]; then
	log "loading TPC-H SF $SF (both schemas, labels)"
	t0=$(now)
	"$TPCH/load.sh" -s "$SF" --schemas "tpch_cust tpch_supp" --labels >"$WORK_DIR/load.md"
	LOAD_SECONDS=$(( $(now) - t0 ))
else
	q -c "SET client_min_messages = warning" -c "CREATE EXTENSION IF NOT EXISTS anon_dp" -f "$TPCH/labels.sql" >/dev/null
fi
DATA_SF=$(qv "SELECT round(count(*) / 150000.0, 2) FROM tpch_cust.customer" 2>/dev/null || echo none)
awk -v a="$DATA_SF" -v b="$SF" 'BEGIN { exit !(a == b + 0) }' ||
	die "the loaded data are SF $DATA_SF, not $SF (drop --skip-load)"
N_CUST=$(qv "SELECT count(*) FROM tpch_cust.customer")
N_SUPP=$(qv "SELECT count(*) FROM tpch_supp.supplier")
# bench/accuracy.sh's settings: the paper's epsilon, delta = n^(-eps ln n)
DELTA_CUST=$(qv "SELECT exp(-$EPS_TPCH * ln($N_CUST) ^ 2)")
DELTA_SUPP=$(qv "SELECT exp(-$EPS_TPCH * ln($N_SUPP) ^ 2)")

# ---- the anonymized role ----
log "role $ROLE (anonymized; SELECT on the tables labelled public only)"
q <<SQL >/dev/null
SET client_min_messages = warning;
DO \$\$ BEGIN
	IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '$ROLE') THEN CREATE ROLE $ROLE LOGIN; END IF;
END \$\$;
SECURITY LABEL FOR anon_dp ON ROLE $ROLE IS 'anonymized';
-- the data owner's caps and budget, wide enough for every round (doc/budget.md)
ALTER ROLE $ROLE SET anon_dp.max_epsilon = 10;
ALTER ROLE $ROLE SET anon_dp.max_delta = 0.01;
SELECT anon_dp_set_budget('$ROLE', 1000000, 1);
GRANT USAGE ON SCHEMA public, tpch_cust, tpch_supp TO $ROLE;
SELECT format('GRANT SELECT ON %s TO $ROLE', l.objoid::regclass)
FROM pg_seclabel l JOIN pg_class c ON c.oid = l.objoid
WHERE l.provider = 'anon_dp' AND l.classoid = 'pg_class'::regclass AND l.objsubid = 0
  AND l.label = 'public' AND c.relnamespace::regnamespace::text IN ('tpch_cust', 'tpch_supp')
ORDER BY 1 \gexec
SQL
SETUP_DONE=1
GRANTED=$(qv "SELECT string_agg(format('%s.%s', table_schema, table_name), ', ' ORDER BY 1)
	FROM information_schema.role_table_grants WHERE grantee = '$ROLE' AND privilege_type = 'SELECT'")
LEVEL_FULL=$(qv "SELECT anon_dp_access_level()")
LEVEL_ANON=$(qa -At -c "SELECT anon_dp_access_level()")
[ "$LEVEL_FULL" = full ] || die "the owner's session is $LEVEL_FULL, not full"
[ "$LEVEL_ANON" = anonymized ] || die "$ROLE's session is $LEVEL_ANON, not anonymized"

# ---- part 1: TPC-H ----
Q1_SQL=$(select_of anon/q01.sql)
Q13_SQL=$(select_of anon/q13.sql)
COMMON="SET work_mem = '$WORK_MEM'; SET jit = off"
SERIAL="SET max_parallel_workers_per_gather = 0"
PARALLEL_SET="SET max_parallel_workers_per_gather = 2"
Q1_SET="SET search_path = tpch_supp, public; SET anon_dp.epsilon = $EPS_TPCH; SET anon_dp.delta = $DELTA_SUPP; SET anon_dp.max_groups_contributed = 4; SET anon_dp.max_rows_contributed = 0"
Q13_SET="SET search_path = tpch_cust, public; SET anon_dp.epsilon = $EPS_TPCH; SET anon_dp.delta = $DELTA_CUST; SET anon_dp.max_groups_contributed = 1; SET anon_dp.max_rows_contributed = 0"
TPCH_QIDS=(q01 q13)
q_sql() { case "$1" in q01) printf '%s' "$Q1_SQL" ;; q13) printf '%s' "$Q13_SQL" ;; safe) printf '%s' "$SAFE_SQL" ;; esac; }
q_set() { case "$1" in q01) printf '%s' "$Q1_SET" ;; q13) printf '%s' "$Q13_SET" ;; safe) printf '%s' "$SAFE_SET" ;; esac; }
q_label() { case "$1" in q01) echo Q1 ;; q13) echo Q13 ;; safe) echo "ANON_SUM(x * 2 + 1, 0, 100)" ;; esac; }
measure_label() { case "$1" in first) echo "total, first run in the session" ;; *) echo "$1" ;; esac; }
kind_label() { case "$1" in full) echo full ;; anon) echo anonymized ;; esac; }

LINEITEM_BYTES=$(qv "SELECT pg_table_size('tpch_supp.lineitem')")
LINEITEM_SIZE=$(qv "SELECT pg_size_pretty(pg_table_size('tpch_supp.lineitem'))")
ORDERS_SIZE=$(qv "SELECT pg_size_pretty(pg_table_size('tpch_cust.orders'))")

T_PART1=$(now)
declare -A INFO=()
run_tpch() {	# run_tpch <mode> <mode settings>
	local mode=$1 mset=$2 round qid kind
	for round in $(seq 0 "$RUNS"); do
		if [ "$round" -eq 0 ]; then log "part 1 ($mode): warm-up round"; else log "part 1 ($mode): round $round of $RUNS"; fi
		for qid in "${TPCH_QIDS[@]}"; do
			for kind in full anon; do
				measure tpch "$mode" "$qid" "$kind" "$round" "$COMMON; $mset; $(q_set "$qid")" "$(q_sql "$qid")" "first plan total"
			done
		done
	done
	for qid in "${TPCH_QIDS[@]}"; do
		for kind in full anon; do
			INFO[$mode.$qid.$kind]=$(plan_info "$kind" "$COMMON; $mset; $(q_set "$qid")" "$(q_sql "$qid")")
		done
	done
}
run_tpch serial "$SERIAL"
[ "$PARALLEL" -eq 0 ] || run_tpch parallel "$PARALLEL_SET"
PART1_SECONDS=$(( $(now) - T_PART1 ))

# ---- part 2: SAFE arithmetic ----
T_PART2=$(now)
log "part 2: loading bench_safe ($(rows_label "$ROWS") rows, $USERS users)"
q <<SQL
SET client_min_messages = warning;
DROP TABLE IF EXISTS public.bench_safe;
CREATE TABLE public.bench_safe (uid int NOT NULL, x int NOT NULL);
SECURITY LABEL FOR anon_dp ON COLUMN public.bench_safe.uid IS 'privacy_unit';
INSERT INTO public.bench_safe (uid, x)
SELECT (i % $USERS)::int + 1, ((hashint8extended(i, 7) & 2147483647) % 100)::int
FROM generate_series(0, $ROWS::int8 - 1) i;
VACUUM ANALYZE public.bench_safe;
SQL
SAFE_SQL="SELECT ANON_SUM(x * 2 + 1, 0, 100) FROM bench_safe"
SAFE_SET="SET search_path = public; SET anon_dp.epsilon = $EPS_SAFE"
SAFE_STATS=$(qv "SELECT count(*), count(DISTINCT uid), min(x), max(x), round(avg(x)::numeric, 2),
	pg_size_pretty(pg_table_size('public.bench_safe')), pg_table_size('public.bench_safe') FROM public.bench_safe")
IFS='|' read -r s_rows s_users s_minx s_maxx s_avgx SAFE_SIZE SAFE_BYTES <<<"$SAFE_STATS"
# read it into shared buffers, then check that a scan reads only them
q -At -c "$SERIAL" -c "SELECT count(*) FROM public.bench_safe" >/dev/null
BUFFERS_LINE=$(q -At -c "$SERIAL" \
	-c "EXPLAIN (ANALYZE, BUFFERS, TIMING OFF, COSTS OFF) SELECT count(*) FROM public.bench_safe" |
	sed -n 's/^ *Buffers: //p' | head -n 1)
for round in $(seq 0 "$RUNS"); do
	if [ "$round" -eq 0 ]; then log "part 2: warm-up round"; else log "part 2: round $round of $RUNS"; fi
	for kind in full anon; do
		measure safe serial safe "$kind" "$round" "$COMMON; $SERIAL; $SAFE_SET" "$SAFE_SQL" "first total"
	done
done
for kind in full anon; do
	INFO[serial.safe.$kind]=$(plan_info "$kind" "$COMMON; $SERIAL; $SAFE_SET" "$SAFE_SQL")
done
PLAN_SAFE_ANON=$(q -At -c "SET anon_dp.access_level = 'anonymized'; $COMMON; $SERIAL; $SAFE_SET" -c "EXPLAIN (VERBOSE, COSTS OFF) $SAFE_SQL")
PLAN_SAFE_FULL=$(q -At -c "$COMMON; $SERIAL; $SAFE_SET" -c "EXPLAIN (VERBOSE, COSTS OFF) $SAFE_SQL")
RESULT_FULL=$(q -At -c "$COMMON; $SERIAL; $SAFE_SET" -c "$SAFE_SQL")
RESULT_ANON=$(qa -At -c "$COMMON; $SERIAL; $SAFE_SET" -c "$SAFE_SQL")
if [ "$KEEP" -eq 0 ]; then
	q -c "DROP TABLE public.bench_safe" >/dev/null
fi
PART2_SECONDS=$(( $(now) - T_PART2 ))

# ---- report ----
log "writing the report"
declare -A MED=() MIN=() CPU=() FLT=()
stats_for() {	# stats_for <part> <mode> <qid> <measure> <kind>: fills MED, MIN, CPU
	local key="$1.$2.$3.$4.$5" t
	t=$(times_of "$@")
	MED[$key]=$(median <<<"$t")
	MIN[$key]=$(minimum <<<"$t")
	CPU[$key]=$(times_of "$@" 8 | median)
	FLT[$key]=$(times_of "$@" 9 | median | sed 's/\.[0-9]*$//')
}
while read -r p mo id me k; do
	stats_for "$p" "$mo" "$id" "$me" "$k"
done < <(awk '{ print $1, $2, $3, $4, $5 }' "$MEAS" | sort -u)

# tpch_tables <mode>: the measures table and the allow-list share table
tpch_tables() {
	local mode=$1 qid me f a sm sb sc tm tb tc wf wa
	echo "| query | measure | full median ms | full min ms | anonymized median ms | anonymized min ms | anonymized ÷ full | full CPU ms | anonymized CPU ms | CPU anonymized ÷ full | page faults full / anonymized |"
	echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
	for qid in "${TPCH_QIDS[@]}"; do
		for me in plan total first; do
			f="tpch.$mode.$qid.$me.full"
			a="tpch.$mode.$qid.$me.anon"
			echo "| $(q_label "$qid") | $(measure_label "$me") | ${MED[$f]} | ${MIN[$f]} | ${MED[$a]} | ${MIN[$a]} | $(ratio "${MED[$a]}" "${MED[$f]}") | ${CPU[$f]} | ${CPU[$a]} | $(ratio "${CPU[$a]}" "${CPU[$f]}") | ${FLT[$f]} / ${FLT[$a]} |"
		done
	done
	echo
	echo "The allow-list's share = (anonymized plan − full plan) ÷ full total: the guard and the allow-list run at parse analysis, which \`PREPARE\` includes and which the total includes once.  Computed from the medians, from the fastest runs (\"best run\"; interference only adds time) and from the median CPU times; target < 1 %.  Total anonymized ÷ full includes the guard and the SAFE wrappers of the calls over private values (\"wrapped calls\": \`anon_dp_safe_call_*\` / \`anon_dp_safe_io_*\` in \`EXPLAIN (VERBOSE, COSTS OFF)\` of each session)."
	echo
	echo "| query | allow-list share, medians | best run | CPU | target < 1 % | total anonymized ÷ full, medians | best run | CPU | wrapped functions, full / anonymized | workers planned, full / anonymized |"
	echo "|---|---:|---:|---:|---|---:|---:|---:|---:|---:|"
	for qid in "${TPCH_QIDS[@]}"; do
		sm=$(share "${MED[tpch.$mode.$qid.plan.anon]}" "${MED[tpch.$mode.$qid.plan.full]}" "${MED[tpch.$mode.$qid.total.full]}")
		sb=$(share "${MIN[tpch.$mode.$qid.plan.anon]}" "${MIN[tpch.$mode.$qid.plan.full]}" "${MIN[tpch.$mode.$qid.total.full]}")
		sc=$(share "${CPU[tpch.$mode.$qid.plan.anon]}" "${CPU[tpch.$mode.$qid.plan.full]}" "${CPU[tpch.$mode.$qid.total.full]}")
		tm=$(ratio "${MED[tpch.$mode.$qid.total.anon]}" "${MED[tpch.$mode.$qid.total.full]}")
		tb=$(ratio "${MIN[tpch.$mode.$qid.total.anon]}" "${MIN[tpch.$mode.$qid.total.full]}")
		tc=$(ratio "${CPU[tpch.$mode.$qid.total.anon]}" "${CPU[tpch.$mode.$qid.total.full]}")
		wf=$(wrapped_of "${INFO[$mode.$qid.full]}")
		wa=$(wrapped_of "${INFO[$mode.$qid.anon]}")
		echo "| $(q_label "$qid") | $sm | $sb | $sc | $(verdict lt 1 "${sm% %}" "${sb% %}" "${sc% %}") | $tm | $tb | $tc | $wf / $wa | $(cut -d' ' -f1 <<<"${INFO[$mode.$qid.full]}") / $(cut -d' ' -f1 <<<"${INFO[$mode.$qid.anon]}") |"
	done
	echo
}
# appendix rows: every round's ms (field 7) or CPU ms (field 8)
appendix_rows() {	# appendix_rows <field>
	local p mo id me k label
	while read -r p mo id me k; do
		label=$(q_label "$id")
		[ "$p" = safe ] && label="part 2"
		echo "| $label | $mo | $(measure_label "$me") | $(kind_label "$k") | $(times_of "$p" "$mo" "$id" "$me" "$k" "$1" | awk '{ for (i = 1; i <= NF; i++) printf "%s%s", (i > 1 ? " | " : ""), $i }') |"
	done < <(awk '{ print $1, $2, $3, $4, $5 }' "$MEAS" | awk '!seen[$0]++')
}
round_header() {
	local r
	printf '| query | mode | measure | session |'
	for r in $(seq 1 "$RUNS"); do printf ' round %s |' "$r"; done
	printf '\n|---|---|---|---|'
	for r in $(seq 1 "$RUNS"); do printf -- '---:|'; done
	printf '\n'
}

{
echo "# anon_dp guard speed: what anonymized sessions' protections cost"
echo
echo "- date: $(date -u '+%Y-%m-%d %H:%M:%S UTC'); checkout: $COMMIT$( [ "$DIRTY" -gt 0 ] && echo " (with uncommitted changes under src/ or sql/)"); anon_dp $EXT_VERSION, library installed $LIB_DATE"
echo "- PostgreSQL $PG_VERSION; CPU: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1), $(nproc) cores; memory $(awk '/^MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)"
echo "- load average at start: $LOAD_START; at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "- command: \`$( [ "$USE_CLUSTER" -eq 1 ] && printf 'ANON_DP_PORT=%s ' "$PGPORT")$CMDLINE\` (SF $SF, $ROWS rows, $RUNS rounds$( [ "$SKIP_LOAD" -eq 1 ] && echo ", data already loaded")$( [ "$PARALLEL" -eq 1 ] && echo ", also with 2 workers")$( [ "$USE_CLUSTER" -eq 1 ] && echo ", throwaway cluster"))"
echo "- settings, both sessions: work_mem = $WORK_MEM, jit = off, shared_buffers = $SHARED_BUFFERS (server), max_parallel_workers_per_gather = 0 for the main tables$( [ "$PARALLEL" -eq 1 ] && echo " (2 in the extra table)"), anon_dp.max_rows_contributed = 0"
echo "  - Q1 (\`tpch/queries/anon/q01.sql\`, suppliers are the users, schema tpch_supp): anon_dp.epsilon = $EPS_TPCH, anon_dp.delta = $DELTA_SUPP (n^(−ε ln n), n = $N_SUPP suppliers), anon_dp.max_groups_contributed = 4"
echo "  - Q13 (\`tpch/queries/anon/q13.sql\`, customers are the users, schema tpch_cust): anon_dp.epsilon = $EPS_TPCH, anon_dp.delta = $DELTA_CUST (n = $N_CUST customers), anon_dp.max_groups_contributed = 1"
echo "  - part 2: anon_dp.epsilon = $EPS_SAFE (no GROUP BY)"
echo "  - these are bench/accuracy.sh's settings for its speed part"
echo "- sessions: **full** = the cluster owner ($(qv "SELECT current_user"), superuser; \`anon_dp_access_level()\` = $LEVEL_FULL); **anonymized** = \`$ROLE\` (\`CREATE ROLE $ROLE LOGIN; SECURITY LABEL FOR anon_dp ON ROLE $ROLE IS 'anonymized'\`; \`anon_dp_access_level()\` = $LEVEL_ANON), \`GRANT USAGE\` on schemas public, tpch_cust, tpch_supp and \`GRANT SELECT\` only on the tables labelled \`'public'\`: ${GRANTED:-none}.  It holds no privilege on the private tables (anon_dp refuses such GRANTs); anon_dp lends them to its anonymization queries"
echo "- timing: on the client, psql \`\\timing\` (\`Time: N ms\`: the statement including the round trip; \`EXPLAIN ANALYZE\` is refused for anonymized roles).  Each query, session kind and round runs in a new psql session: the settings, one untimed \`PREPARE\` (so that loading the backend's catalog caches is not timed), then, timed: the query (\"first run in the session\"), \`PREPARE\` of it (\"plan\": parse analysis and the rewrite, not planned) and the query again (\"total\"); query output discarded.  The first run of a query in a backend is slower than the next ones (it grows the backend's memory: fresh pages are faulted in; Q1 here: first ÷ second run = $(ratio "${MED[tpch.serial.q01.first.full]}" "${MED[tpch.serial.q01.total.full]}") full, $(ratio "${MED[tpch.serial.q01.first.anon]}" "${MED[tpch.serial.q01.total.anon]}") anonymized, medians) by an amount that varies from session to session, so the comparisons use the second run; the first is shown for reference.  One warm-up round, then $RUNS rounds; in each round the sessions alternate full, anonymized (query by query).  Median and min over the rounds; ratios are of medians$( [ "$CPU_OK" -eq 1 ] && echo ".  \"CPU ms\": the backend's CPU time over the same statement (/proc/<pid>/schedstat), which leaves out waiting for a CPU that other jobs on the machine add to the wall time; \"page faults\": the backend's minor page faults over the statement (/proc/<pid>/stat), median" || echo "; backend CPU time not measured (the server is not local)")"
echo "- run time: load $LOAD_SECONDS s, part 1 $PART1_SECONDS s, part 2 $PART2_SECONDS s, whole script $(( $(now) - T_START )) s"
echo
echo "Caveat: a $(nproc)-core machine that other jobs may share (see the load averages); absolute times move from run to run, compare ratios and CPU times."
echo
echo "## Part 1: TPC-H Q1 and Q13, SF $SF"
echo
echo "**plan** = \`PREPARE <query>\` (parse, analysis with the guard and the allow-list in anonymized sessions, the rewrite; no planning, no execution: \`EXPLAIN\` of an anonymization query is refused for anonymized roles); **total** = the query itself, its second run in the session (the first, \"total, first run in the session\", is shown for reference, not used in the ratios below).  \`tpch_supp.lineitem\`: $LINEITEM_SIZE, \`tpch_cust.orders\`: $ORDERS_SIZE$( [ "$LINEITEM_BYTES" -gt $((SB_BYTES / 4)) ] && echo " (**warning**: lineitem is larger than shared_buffers / 4, so its scans read through the bulk-read ring)")."
echo
echo "### Serial plans (max_parallel_workers_per_gather = 0)"
echo
tpch_tables serial
if [ "$PARALLEL" -eq 1 ]; then
	echo "### With parallel workers (max_parallel_workers_per_gather = 2, default parallel costs; the plan decides)"
	echo
	tpch_tables parallel
fi
echo "## Part 2: SAFE arithmetic"
echo
echo "\`$SAFE_SQL\`, serial, total time (the second run of the query in each session, as in part 1).  Table \`bench_safe(uid int, x int)\`, uid labelled \`privacy_unit\`: $s_rows rows, $s_users users (uid = row number mod $USERS + 1), x from a hash of the row number, in [$s_minx, $s_maxx], avg $s_avgx; $SAFE_SIZE.  A scan reports \"Buffers: $BUFFERS_LINE\"$( [ "$SAFE_BYTES" -gt $((SB_BYTES / 4)) ] && echo " (**warning**: the table is larger than shared_buffers / 4, so scans read through the bulk-read ring)").  In the anonymized session \`x * 2 + 1\` is evaluated SAFE (a data exception makes the value NULL instead of failing the query): the plan below shows the wrapped \`int4mul\` and \`int4pl\`."
echo
f=safe.serial.safe.total.full
a=safe.serial.safe.total.anon
echo "| session | median ms | min ms | CPU ms | page faults | wrapped functions | one result (noisy) |"
echo "|---|---:|---:|---:|---:|---:|---:|"
echo "| full | ${MED[$f]} | ${MIN[$f]} | ${CPU[$f]} | ${FLT[$f]} | $(wrapped_of "${INFO[serial.safe.full]}") | $RESULT_FULL |"
echo "| anonymized | ${MED[$a]} | ${MIN[$a]} | ${CPU[$a]} | ${FLT[$a]} | $(wrapped_of "${INFO[serial.safe.anon]}") | $RESULT_ANON |"
echo "| full, first run in the session | ${MED[safe.serial.safe.first.full]} | ${MIN[safe.serial.safe.first.full]} | ${CPU[safe.serial.safe.first.full]} | ${FLT[safe.serial.safe.first.full]} | | |"
echo "| anonymized, first run in the session | ${MED[safe.serial.safe.first.anon]} | ${MIN[safe.serial.safe.first.anon]} | ${CPU[safe.serial.safe.first.anon]} | ${FLT[safe.serial.safe.first.anon]} | | |"
echo
rm_=$(ratio "${MED[$a]}" "${MED[$f]}")
rb_=$(ratio "${MIN[$a]}" "${MIN[$f]}")
rc_=$(ratio "${CPU[$a]}" "${CPU[$f]}")
echo "| target | median-based | best run | CPU | verdict |"
echo "|---|---:|---:|---:|---|"
echo "| anonymized ÷ full <= 1.10 | $rm_ | $rb_ | $rc_ | $(verdict le 1.10 "$rm_" "$rb_" "$rc_") |"
echo
echo "Per row: $(awk -v a="${MED[$a]}" -v f="${MED[$f]}" -v n="$ROWS" 'BEGIN { if (a == "n/a" || f == "n/a") print "n/a"; else printf "%.1f ns", (a - f) * 1e6 / n }') more in the anonymized session (medians$( [ "$CPU_OK" -eq 1 ] && awk -v a="${CPU[$a]}" -v f="${CPU[$f]}" -v n="$ROWS" 'BEGIN { if (a != "n/a" && f != "n/a") printf "; CPU: %.1f ns", (a - f) * 1e6 / n }')), for the two wrapped calls of each row."
echo
echo "\`EXPLAIN (VERBOSE, COSTS OFF)\` in the anonymized session:"
echo
echo '```'
printf '%s\n' "$PLAN_SAFE_ANON"
echo '```'
echo
echo "and in the full session:"
echo
echo '```'
printf '%s\n' "$PLAN_SAFE_FULL"
echo '```'
echo
echo "## Appendix: every round"
echo
# shellcheck disable=SC2028  # the backslash is meant literally
echo "Milliseconds (psql \`\\timing\`), rounds in the order they ran (the warm-up round left out)."
echo
round_header
appendix_rows 7
echo
if [ "$CPU_OK" -eq 1 ]; then
	echo "Backend CPU ms of the same statements (serial only):"
	echo
	round_header
	appendix_rows 8 | grep -v '| parallel |' || true
	echo
fi
if [ "$(lib_date)" != "$LIB_DATE" ]; then
	echo "Note: $LIB_FILE was replaced during the run (now $(lib_date)).  The server keeps the library it preloaded when it (re)started (the $LIB_DATE file).  Run again to measure the new one."
	echo
fi
} >"$OUT"

cat "$OUT"
if [ "$SAVE" -eq 1 ]; then
	mkdir -p "$RESULTS_DIR"
	cp "$OUT" "$RESULTS_DIR/guard_speed.md"
	rm -f "$RESULTS_DIR/guard_speed.md.partial"
	log "results written to $RESULTS_DIR/guard_speed.md"
fi
log "done in $(( $(now) - T_START )) s"
