#!/usr/bin/env bash
# bench/range_clamping.sh -- what moving released values into what is
# possible does to their accuracy (issue 32, item 3; doc/functions.md §10,
# "Released values stay inside what the bounds allow").
#
# Usage: bench/range_clamping.sh [--runs R] [--cluster]
#   --runs     runs of each query (default 2000)
#   --cluster  start a throwaway cluster (tools/lib.sh, port $ANON_DP_PORT);
#              without it, use the server of the PG* variables (anon_dp in
#              shared_preload_libraries, a superuser: nothing is charged)
#
# On the orders of doc/analyst-guide.md, for sets of 0, 1, 5, 50 and 5,000
# customers (WHERE customer_id <= n), at epsilon 1 without GROUP BY:
#   before  the building block alone, as the rewrite calls it:
#           dp_sum(per-user sum, 0, 4000, 1, 1) and its interval value +- h
#   after   ANON_SUM(amount, 0, 4000) and ANON_SUM_CI(amount, 0, 4000): the
#           same release, moved into [0, infinity) (no customer spends more
#           than 4,000, so the exact sum is the true value)
# and the same for a count (ANON_COUNT(*) against dp_count, 0 and 5 users),
# which was already shown at 0 or above before.  Writes
# bench/results/range_clamping.md.  About a minute.
set -euo pipefail

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$BENCH_DIR/.." && pwd)
RUNS=2000
CLUSTER=false
while [ $# -gt 0 ]; do
	case "$1" in
		--runs) RUNS=$2; shift 2 ;;
		--cluster) CLUSTER=true; shift ;;
		*) echo "usage: bench/range_clamping.sh [--runs R] [--cluster]" >&2; exit 2 ;;
	esac
done
DB=anon_dp_range_bench
OUT_MD="$BENCH_DIR/results/range_clamping.md"

source "$BENCH_DIR/guide_lib.sh"
bench_server $CLUSTER
ORDERS_SQL=$(guide_orders_sql)

fresh_database $DB
PSQL -d $DB <<<"$ORDERS_SQL" >/dev/null
echo "$RUNS runs of each query" >&2
PSQL -d $DB <<SQL
CREATE TABLE draws (release text, customers int, form text, value float8, lower float8, upper float8, exact float8);
CREATE FUNCTION draw(release text, customers int, form text, query text, exact float8, runs int)
RETURNS void LANGUAGE plpgsql AS \$\$
DECLARE i int;
BEGIN
  FOR i IN 1 .. runs LOOP
    EXECUTE format('INSERT INTO draws SELECT %L, %s, %L, v, l, u, %s FROM (%s) r(v, l, u)',
                   release, customers, form, exact, query);
  END LOOP;
END \$\$;
CREATE FUNCTION half_width(query text) RETURNS float8 LANGUAGE sql AS
\$\$ SELECT half_width FROM anon_dp_explain(query) \$\$;
DO \$\$
DECLARE
  n int;
  exact float8;
  h float8 := half_width('SELECT ANON_SUM(amount, 0, 4000) FROM orders');
  hc float8 := half_width('SELECT ANON_COUNT(*) FROM orders');
BEGIN
  FOREACH n IN ARRAY ARRAY[0, 1, 5, 50, 5000] LOOP
    SELECT coalesce(sum(amount), 0) INTO exact FROM orders WHERE customer_id <= n;
    PERFORM draw('sum', n, 'before: dp_sum',
      format('SELECT s, s - %s, s + %s FROM (SELECT anon_dp_internal.dp_sum(t, 0::numeric, 4000::numeric, 1.0, 1)::float8 AS s
              FROM (SELECT customer_id, sum(amount) AS t FROM orders WHERE customer_id <= %s GROUP BY 1) u) x',
             h, h, n), exact, $RUNS);
    PERFORM draw('sum', n, 'after: ANON_SUM',
      format('SELECT (c).value, (c).lower, (c).upper FROM (SELECT ANON_SUM_CI(amount, 0, 4000) AS c
              FROM orders WHERE customer_id <= %s) x', n), exact, $RUNS);
  END LOOP;
  FOREACH n IN ARRAY ARRAY[0, 5] LOOP
    PERFORM draw('count', n, 'before: dp_count',
      format('SELECT s, s - %s, s + %s FROM (SELECT anon_dp_internal.dp_count(1::int8, 1, 1.0, 1)::float8 AS s
              FROM (SELECT DISTINCT customer_id FROM orders WHERE customer_id <= %s) u) x', ceil(hc), ceil(hc), n),
      n, $RUNS);
    PERFORM draw('count', n, 'after: ANON_COUNT',
      format('SELECT (c).value, (c).lower, (c).upper FROM (SELECT ANON_COUNT_CI(*) AS c
              FROM orders WHERE customer_id <= %s) x', n), n, $RUNS);
  END LOOP;
END \$\$;
SQL

mkdir -p "$(dirname "$OUT_MD")"
{
	echo "# Released values inside what is possible: the accuracy effect"
	echo
	echo "- date: $(date -u '+%Y-%m-%d'), commit $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown); command: \`bench/range_clamping.sh --runs $RUNS\`"
	echo "- PostgreSQL $(PSQL -d $DB -A -t -c 'SHOW server_version'), as a superuser; $RUNS runs of each row, epsilon 1, no GROUP BY"
	echo "- data: the orders of doc/analyst-guide.md; the customers customer_id <= n (their orders' amounts, 10 to 499, at most 3,493 per customer)"
	echo "- sum: \`ANON_SUM_CI(amount, 0, 4000)\` (after) against its building block \`dp_sum(per-user sum, 0, 4000, 1, 1)\` and value +- h (before: the same release before this change), Laplace b = 4,000, h = $(PSQL -d $DB -A -t -c "SELECT round(half_width::numeric) FROM anon_dp_explain('SELECT ANON_SUM(amount, 0, 4000) FROM orders')")"
	echo "- count: \`ANON_COUNT_CI(*)\` against \`dp_count\` (a count was already shown at 0 or above before; the interval's integer ends and the clamp of both ends are what is new for intervals of sums)"
	echo
	echo "| release | customers | exact | form | mean released (bias) | mean absolute error | RMSE | released below 0 | interval covers the exact value | mean interval width |"
	echo "|---|---:|---:|---|---:|---:|---:|---:|---:|---:|"
	PSQL -d $DB -A -t -F ' | ' <<'SQL'
SELECT '| ' || release, customers, round(max(exact)::numeric, 2), form,
       round(avg(value)::numeric, 1) || ' (' || round(avg(value - exact)::numeric, 1) || ')',
       round(avg(abs(value - exact))::numeric, 1), round(sqrt(avg((value - exact) ^ 2))::numeric, 1),
       round(100.0 * avg((value < 0)::int), 1) || ' %',
       round(100.0 * avg((exact BETWEEN lower AND upper)::int), 1) || ' %',
       round(avg(upper - lower)::numeric, 1) || ' |'
FROM draws GROUP BY release, customers, form ORDER BY release DESC, customers, form DESC;
SQL
	echo
	echo "Reading: on empty input a sum's noise alone is released. Before, half of the runs"
	echo "released a negative total of amounts that cannot be negative; after, those runs show 0:"
	echo "the mean absolute error halves (b / 2 instead of b for Laplace noise of scale b around 0),"
	echo "the RMSE falls by a factor of about 1.4 (b instead of b times the square root of 2), at the"
	echo "price of an upward bias of b / 2. The effect shrinks as the exact value grows: with 50"
	echo "customers the sum is far above its noise and nothing changes. Intervals keep their"
	echo "coverage (the true sum is never below 0, so a clamped interval holds it whenever the"
	echo "unclamped one did) and get narrower near 0."
} >"$OUT_MD"
PSQL -d postgres -c "DROP DATABASE $DB"
cat "$OUT_MD"
echo "wrote $OUT_MD" >&2
