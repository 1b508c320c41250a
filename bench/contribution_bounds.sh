#!/usr/bin/env bash
# bench/contribution_bounds.sh -- the bias a contribution bound C_u causes,
# before and after choosing it from the data (issue 32, item 2; doc/noise.md
# §11): the analyst guide's GROUP BY day example and TPC-H Q13.
#
# Usage: bench/contribution_bounds.sh [--runs R] [--sf SF] [--cluster]
#   --runs     runs of each configuration (default 40)
#   --sf       TPC-H scale factor for Q13 (default 0.1: 15,000 customers)
#   --cluster  start a throwaway cluster (tools/lib.sh, port $ANON_DP_PORT);
#              without it, use the server of the PG* variables (anon_dp in
#              shared_preload_libraries, a superuser: nothing is charged)
#
# Configurations, each run afresh R times (a new measurement every run):
#   before     C_u = 1 (the default), the whole epsilon on the query
#   measured   anon_dp_contribution_bounds(query, epsilon / 10) first, then the
#              query at the suggested C_u with the other 9/10 of epsilon
# on: the orders of doc/analyst-guide.md (5,000 customers ordering on 1 to 7
# days of 2024; its "data: orders" block is read from the guide), per day,
# thresholded (GROUP BY ordered_at) and by the public calendar (days LEFT
# JOIN orders), at epsilon 1; and TPC-H Q13 (customers as users, each in one
# partition: C_u = 1 is right there) at the paper's epsilon 0.1 and delta.
# Writes bench/results/contribution_bounds.md.  About 3 minutes at the
# defaults on a 2-core machine.
set -euo pipefail

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$BENCH_DIR/.." && pwd)
RUNS=40
SF=0.1
CLUSTER=false
while [ $# -gt 0 ]; do
	case "$1" in
		--runs) RUNS=$2; shift 2 ;;
		--sf) SF=$2; shift 2 ;;
		--cluster) CLUSTER=true; shift ;;
		*) echo "usage: bench/contribution_bounds.sh [--runs R] [--sf SF] [--cluster]" >&2; exit 2 ;;
	esac
done
DB=anon_dp_contribution_bench
OUT_MD="$BENCH_DIR/results/contribution_bounds.md"

source "$BENCH_DIR/guide_lib.sh"
bench_server $CLUSTER

ORDERS_SQL=$(guide_orders_sql)
Q13=$(sed -n '/^SELECT$/,$p' "$BENCH_DIR/tpch/queries/anon/q13.sql" | sed -e '$ s/;[[:space:]]*$//')
Q13_EXACT=$(sed -n '/^SELECT$/,$p' "$BENCH_DIR/tpch/queries/plain/q13.sql" | sed -e '$ s/;[[:space:]]*$//')

fresh_database $DB
PSQL -d $DB <<<"$ORDERS_SQL" >/dev/null
echo "loading TPC-H at SF $SF (customers as users)" >&2
PGDATABASE=$DB "$BENCH_DIR/tpch/load.sh" -s "$SF" --schemas tpch_cust --labels >/dev/null
PSQL -d $DB <<'SQL'
ANALYZE;
-- one configuration: runs of a query returning (key, value), after a
-- measurement when measured (C_u the suggestion, epsilon the rest)
CREATE TABLE released (config text, q text, run int, key text, value float8, c_u int);
CREATE FUNCTION run_config(config text, q text, query text, epsilon float8, measured bool, runs int)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  i int;
  c int := 1;
BEGIN
  FOR i IN 1 .. runs LOOP
    IF measured THEN
      SELECT value INTO c FROM anon_dp_contribution_bounds(query, epsilon / 10)
      WHERE setting = 'anon_dp.max_groups_contributed' AND suggested;
    END IF;
    PERFORM set_config('anon_dp.max_groups_contributed', coalesce(c, 1)::text, true),
            set_config('anon_dp.epsilon', (CASE WHEN measured THEN epsilon * 0.9 ELSE epsilon END)::text, true);
    EXECUTE format('INSERT INTO released SELECT %L, %L, %s, k::text, v, %s FROM (%s) r(k, v)',
                   config, q, i, coalesce(c, 1), query);
  END LOOP;
END $$;
CREATE TABLE truth (q text, key text, value float8);
SQL

DAY="SELECT ordered_at, ANON_COUNT(*) FROM orders GROUP BY ordered_at"
PUBLIC_DAY="SELECT d.day, ANON_COUNT(o.customer_id) FROM days d LEFT JOIN orders o ON o.ordered_at = d.day GROUP BY d.day"
echo "day example: $RUNS runs of 4 configurations" >&2
PSQL -d $DB <<SQL
INSERT INTO truth SELECT 'day', d.day::text, count(DISTINCT o.customer_id)
FROM days d LEFT JOIN orders o ON o.ordered_at = d.day GROUP BY d.day;
BEGIN; SELECT run_config('day, thresholded: before', 'day', \$q\$$DAY\$q\$, 1.0, false, $RUNS); COMMIT;
BEGIN; SELECT run_config('day, thresholded: measured', 'day', \$q\$$DAY\$q\$, 1.0, true, $RUNS); COMMIT;
BEGIN; SELECT run_config('day, public calendar: before', 'day', \$q\$$PUBLIC_DAY\$q\$, 1.0, false, $RUNS); COMMIT;
BEGIN; SELECT run_config('day, public calendar: measured', 'day', \$q\$$PUBLIC_DAY\$q\$, 1.0, true, $RUNS); COMMIT;
SQL
echo "TPC-H Q13: $RUNS runs of 2 configurations" >&2
PSQL -d $DB <<SQL
SET search_path = tpch_cust, public;
SET anon_dp.delta = 6.78e-7;
INSERT INTO truth SELECT 'q13', c_count::text, custdist FROM ($Q13_EXACT) e;
BEGIN; SELECT run_config('TPC-H Q13: before', 'q13', \$q\$$Q13\$q\$, 0.1, false, $RUNS); COMMIT;
BEGIN; SELECT run_config('TPC-H Q13: measured', 'q13', \$q\$$Q13\$q\$, 0.1, true, $RUNS); COMMIT;
SQL

report() {
	PSQL -d $DB -A -F ' | ' -t <<'SQL'
WITH keys AS (SELECT q, count(*) AS n FROM truth GROUP BY q),
r AS (SELECT r.*, t.value AS exact FROM released r JOIN truth t USING (q, key))
SELECT '| ' || r.config,
       min(r.c_u) || CASE WHEN max(r.c_u) <> min(r.c_u) THEN ' to ' || max(r.c_u) ELSE '' END,
       round(count(*)::numeric / max(r.run), 1) || ' of ' || max(k.n),
       round(avg(r.exact)::numeric, 1), round(avg(r.value)::numeric, 1),
       round(avg(r.value / nullif(r.exact, 0) - 1)::numeric, 3),
       round(percentile_cont(0.5) WITHIN GROUP (ORDER BY abs(r.value - r.exact) / nullif(r.exact, 0))::numeric, 3),
       round(sqrt(avg((r.value - r.exact) ^ 2))::numeric, 1),
       round(100.0 * count(*) FILTER (WHERE abs(r.value - r.exact) <= 0.2 * r.exact)
             / (max(r.run) * max(k.n)), 1) || ' % |'
FROM r JOIN keys k USING (q)
GROUP BY r.config ORDER BY r.config LIKE 'TPC%', r.config;
SQL
}

mkdir -p "$(dirname "$OUT_MD")"
{
	echo "# Contribution bounds: bias before and after choosing C_u from the data"
	echo
	echo "- date: $(date -u '+%Y-%m-%d'), commit $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown); command: \`bench/contribution_bounds.sh --runs $RUNS --sf $SF\`"
	echo "- PostgreSQL $(PSQL -d $DB -A -t -c 'SHOW server_version'), as a superuser (not charged); $RUNS runs of each configuration, each with fresh noise and, when measured, a fresh measurement"
	echo "- day: the orders of doc/analyst-guide.md (5,000 customers on 1 to 7 days of 2024, 55 customers a day), ANON_COUNT per day at epsilon 1:"
	echo "  thresholded \`$DAY\`; public calendar \`$PUBLIC_DAY\`"
	echo "- TPC-H Q13 (bench/tpch/queries/anon/q13.sql, customers as users) at SF $SF, epsilon 0.1, delta 6.78e-7 (bench/results/accuracy.md's Table 4 setting)"
	echo "- before: C_u = 1 and the whole epsilon; measured: anon_dp_contribution_bounds(query, epsilon / 10), then the query at the suggested C_u with 9/10 of epsilon (the same total)"
	echo
	echo "| configuration | C_u used | groups released per run | exact value (mean over released) | released value (mean) | relative bias (mean of released / exact - 1) | median relative error | RMSE | groups within 20 % of exact (of all groups and runs) |"
	echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
	report
	echo
	echo "Reading: with C_u = 1 each customer counts on one of its 1 to 7 days, so a day's count"
	echo "is about a quarter of its customers whatever epsilon (relative bias about -0.75), and the"
	echo "days whose few counted customers fall below the threshold are hidden. The measurement"
	echo "suggests C_u = 7 (every day of 95 % of the customers kept); at C_u = 7 a day needs about"
	echo "51 customers to appear half of the time, so by the thresholded query fewer days appear"
	echo "and those that do are biased upwards (only days whose noisy count passed are shown);"
	echo "by the public calendar every day appears, with counts unbiased and a larger noise."
	echo "On Q13 every customer is in one partition: the measurement suggests C_u = 1 at every"
	echo "run, and the only cost is the tenth of epsilon it spends (noise 10/9 as large)."
} >"$OUT_MD"
PSQL -d postgres -c "DROP DATABASE $DB"
cat "$OUT_MD"
echo "wrote $OUT_MD" >&2
