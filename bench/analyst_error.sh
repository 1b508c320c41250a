#!/usr/bin/env bash
# bench/analyst_error.sh -- how large the error of a released value is, against
# epsilon, measured on the README tour's data (doc/analyst-guide.md).
#
# Usage: bench/analyst_error.sh [--runs R] [--cluster]
#   --runs     runs of each query at each epsilon (default 150)
#   --cluster  start a throwaway cluster (tools/lib.sh, port $ANON_DP_PORT);
#              without it, use the server of the PG* variables (anon_dp in
#              shared_preload_libraries, a superuser)
# For epsilon from 0.05 to 5 it runs, as a superuser (not charged),
#   count: SELECT browser, ANON_COUNT(*) FROM access_logs GROUP BY browser
#          with C_u = 3 (each user in all of its browsers: 2,500 per browser)
#   avg:   SELECT ANON_AVG(duration, 0, 3600) FROM access_logs  (5,000 users)
# and compares the 95th percentile of |released - exact| with the Laplace
# prediction: count ln(20) C_u (N + 1) / epsilon; average (U - L) / 2 over
# epsilon / 2 times ln(20) / users (the noisy sum over the user count, whose
# own noise is negligible at these sizes).  Writes bench/results/analyst_error.md
# and doc/img/error-vs-epsilon.png (gnuplot-nox is installed with apt-get if
# missing).  Measures no time.  About 3 minutes on a 2-core machine.
set -euo pipefail

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$BENCH_DIR/.." && pwd)
RUNS=150
CLUSTER=false
while [ $# -gt 0 ]; do
	case "$1" in
		--runs) RUNS=$2; shift 2 ;;
		--cluster) CLUSTER=true; shift ;;
		*) echo "usage: bench/analyst_error.sh [--runs R] [--cluster]" >&2; exit 2 ;;
	esac
done
EPSILONS="0.05 0.1 0.2 0.5 1 2 5"
DB=anon_dp_analyst_error
OUT_MD="$BENCH_DIR/results/analyst_error.md"
OUT_PNG="$ROOT/doc/img/error-vs-epsilon.png"
DATA=$(mktemp)
trap 'rm -f "$DATA"' EXIT

if $CLUSTER; then
	source "$ROOT/tools/lib.sh"
	bootstrap
	trap 'stop_cluster; rm -f "$DATA"' EXIT
	start_cluster
	PSQL() { pg_psql "$@"; }
else
	PSQL() { psql -X -q -v ON_ERROR_STOP=1 "$@"; }
fi
command -v gnuplot >/dev/null || {
	echo "installing gnuplot-nox" >&2
	if [ "$(id -u)" -eq 0 ]; then apt-get install -y -qq gnuplot-nox >/dev/null
	else sudo apt-get install -y -qq gnuplot-nox >/dev/null; fi
}

PSQL -d postgres -c "SET client_min_messages = warning" -c "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB"
# the tour's data (README.md), and the runs
PSQL -d $DB <<'SQL'
CREATE EXTENSION anon_dp;
CREATE TABLE access_logs (uid bigint, browser text, duration float8);
INSERT INTO access_logs
SELECT u, (ARRAY['Firefox', 'Chrome', 'Safari', 'Edge'])[1 + (u + v % (1 + u % 3)) % 4],
       (u * 37 + v * 101) % 3600
FROM generate_series(1, 5000) u, generate_series(1, 1 + u % 30) v;
SECURITY LABEL FOR anon_dp ON COLUMN access_logs.uid IS 'privacy_unit';
ANALYZE access_logs;
-- |released - exact| of every released value of every run
CREATE FUNCTION errors(query text, exact text, runs int) RETURNS SETOF float8 LANGUAGE plpgsql AS $$
DECLARE i int;
BEGIN
  CREATE TEMP TABLE IF NOT EXISTS truth (k text, v float8);
  TRUNCATE truth;
  EXECUTE 'INSERT INTO truth ' || exact;
  FOR i IN 1 .. runs LOOP
    RETURN QUERY EXECUTE 'SELECT abs(r.v - t.v)::float8 FROM (' || query || ') r(k, v) JOIN truth t ON t.k = r.k';
  END LOOP;
END $$;
SQL
for eps in $EPSILONS; do
	echo "epsilon $eps" >&2
	PSQL -d $DB -A -t -F ' ' <<SQL >>"$DATA"
SET client_min_messages = warning;
SET anon_dp.epsilon = $eps;
SET anon_dp.max_groups_contributed = 3;
SELECT 'count', $eps, percentile_cont(0.95) WITHIN GROUP (ORDER BY e), ln(20) * 3 * 2 / $eps::float8, count(*)
FROM errors('SELECT browser, ANON_COUNT(*) FROM access_logs GROUP BY browser',
            'SELECT browser, count(DISTINCT uid) FROM access_logs GROUP BY browser', $RUNS) e;
SET anon_dp.max_groups_contributed = 1;
SELECT 'avg', $eps, percentile_cont(0.95) WITHIN GROUP (ORDER BY e), 1800 / ($eps::float8 / 2) * ln(20) / 5000, count(*)
FROM errors('SELECT ''all'', ANON_AVG(duration, 0, 3600) FROM access_logs',
            'SELECT ''all'', avg(a) FROM (SELECT avg(duration) AS a FROM access_logs GROUP BY uid) u', $RUNS) e;
SQL
done
PSQL -d postgres -c "DROP DATABASE $DB"

mkdir -p "$(dirname "$OUT_MD")" "$(dirname "$OUT_PNG")"
{
	echo "# The error of a released value against epsilon"
	echo
	echo "- date: $(date -u '+%Y-%m-%d'), commit $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)"
	echo "- data: the README tour's access_logs (5,000 users, 1 to 30 visits, 1 to 3 browsers each)"
	echo "- $RUNS runs of each query at each epsilon, as a superuser; command: \`bench/analyst_error.sh --runs $RUNS\`"
	echo "- 95 % error: the 95th percentile of |released - exact| over all released values"
	echo
	echo "| query | epsilon | 95 % error measured | 95 % error predicted | values |"
	echo "|---|---|---|---|---|"
	awk '{ printf "| %s | %s | %.3g | %.3g | %d |\n", ($1 == "count" ? "ANON_COUNT(*) per browser, C_u = 3" : "ANON_AVG(duration, 0, 3600), no GROUP BY"), $2, $3, $4, $5 }' "$DATA"
	echo
	echo "Predicted: count \`ln(20) · C_u (N + 1) / ε\` with C_u = 3, N = 1; average"
	echo "\`(3600 / 2) / (ε / 2) · ln(20) / 5000\` (doc/analyst-guide.md)."
} >"$OUT_MD"
gnuplot <<GP
set terminal pngcairo size 900,560 font ",11"
set output "$OUT_PNG"
set termoption noenhanced
set logscale xy
set xrange [0.03:8]
set xlabel "epsilon of the query (anon_dp.epsilon)"
set ylabel "95 % of released values are within this of the truth"
set title "Error of a released value against epsilon (the README tour's data)"
set key top right
set grid
plot "< awk '\$1==\"count\"' $DATA" using 2:3 with points pt 7 ps 1.3 lc rgb "#1f77b4" title "ANON_COUNT(*) per browser, C_u = 3: measured", \
     "< awk '\$1==\"count\"' $DATA" using 2:4 with lines lw 2 lc rgb "#1f77b4" title "predicted: ln(20) C_u (N+1) / epsilon", \
     "< awk '\$1==\"avg\"' $DATA" using 2:3 with points pt 5 ps 1.3 lc rgb "#d62728" title "ANON_AVG(duration, 0, 3600), 5,000 users: measured (seconds)", \
     "< awk '\$1==\"avg\"' $DATA" using 2:4 with lines lw 2 lc rgb "#d62728" title "predicted: (U-L)/2 / (epsilon/2) ln(20) / users"
GP
cat "$OUT_MD"
echo "wrote $OUT_MD and $OUT_PNG" >&2
