#!/usr/bin/env bash
# bench/budget_composition.sh -- how many releases a budget of epsilon 10 and
# delta 1e-4 pays for (issue 33, doc/budget.md "The accountant"): TPC-H Q13-
# and Q4-shaped anonymization queries (bench/tpch/queries/anon/q13.sql,
# q04.sql, customers as users) run by an anonymized role again and again
# until its budget refuses, under the accountant of anon_dp 1.1, beside the
# number basic composition (anon_dp 1.0's ledger) pays for the same
# statements.  Same queries and settings in both columns, hence the same
# accuracy of every release.
#
# Workloads, each from a fresh budget:
#   Q13 Laplace      C_u 1, ANON_COUNT(*) (its count selects), Laplace noise
#   Q13 Gaussian     the same with Gaussian noise and Gaussian selection
#   Q4 Laplace       C_u 5, ANON_COUNT(o_orderkey, 5) and a selecting count
#   Q4 Gaussian      the same with Gaussian noise and Gaussian selection
#   mixed            Q13 Laplace and Q4 Gaussian, alternating
# for two settings of each statement: epsilon 1, delta 1e-6, every release
# run through the ledger; epsilon 0.1 (bench/accuracy.sh's), delta 1e-8,
# every release run up to --cap (default 1500), the rest of a homogeneous
# workload read from anon_dp_budget.releases_that_fit (the accountant's own
# count of further charges of the same cost, equal to what running them
# gives: tests/unit accountant_capacity).
#
# Basic composition: from the ledger's charged (epsilon, delta) of each
# statement (what anon_dp 1.0 charged, unchanged), the longest prefix of the
# workload's statements whose sums stay within (10, 1e-4), in exact decimals.
#
# Usage: bench/budget_composition.sh [--sf SF] [--cap N] [--cluster] [--no-save]
#   --sf       TPC-H scale factor (default 0.01: the charges do not depend on
#              the data, only the queries' settings do)
#   --cap      releases run per workload at epsilon 0.1 (default 1500)
#   --cluster  start a throwaway cluster (tools/lib.sh, port $ANON_DP_PORT);
#              without it, the cluster of the PG* variables (a superuser,
#              anon_dp preloaded)
#   --no-save  do not write bench/results/budget_composition.md
# Markdown on stdout and in bench/results/budget_composition.md; progress on
# stderr.
set -euo pipefail

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CMDLINE="bench/budget_composition.sh"
[ $# -eq 0 ] || CMDLINE="$CMDLINE$(printf ' %q' "$@")"
SAVED_PGPORT=${PGPORT-}
SAVED_PGPORT_SET=${PGPORT+set}
# shellcheck source=../tools/lib.sh
source "$BENCH_DIR/../tools/lib.sh"

SF=0.01
CAP=1500
USE_CLUSTER=0
SAVE=1
ROLE=bench_composition_analyst
DB=anon_dp_bench_composition
BUDGET_EPSILON=10
BUDGET_DELTA=0.0001

usage() { sed -n '2,36p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }
while [ $# -gt 0 ]; do
	case "$1" in
		--sf) SF=${2:?--sf needs a value}; shift 2 ;;
		--cap) CAP=${2:?--cap needs a value}; shift 2 ;;
		--cluster) USE_CLUSTER=1; shift ;;
		--no-save) SAVE=0; shift ;;
		-h|--help) usage; exit 0 ;;
		*) echo "budget_composition.sh: unknown argument: $1" >&2; usage >&2; exit 2 ;;
	esac
done
case "$CAP" in '' | *[!0-9]*) echo "budget_composition.sh: --cap must be a positive integer" >&2; exit 2 ;; esac

if [ "$USE_CLUSTER" = 1 ]; then
	trap stop_cluster EXIT
	start_cluster
else
	if [ "$SAVED_PGPORT_SET" = set ]; then PGPORT=$SAVED_PGPORT; else unset PGPORT; fi
fi

psql_db() {	# psql_db DB [psql args]: as the cluster's superuser, stop on errors
	local db=$1
	shift
	as_pg env PGHOST="${PGHOST-}" PGPORT="${PGPORT-}" PGUSER="${PGUSER-}" \
		"$PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 -d "$db" "$@"
}

log "database $DB, TPC-H at scale factor $SF (tpch_cust)"
psql_db postgres -c "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB" >/dev/null 2>&1
PGDATABASE=$DB "$BENCH_DIR/tpch/load.sh" -s "$SF" --schemas tpch_cust --labels >/dev/null

Q13="SELECT c_count, ANON_COUNT(*) AS custdist FROM (SELECT c_custkey, count(o_orderkey) AS c_count FROM customer LEFT OUTER JOIN orders ON c_custkey = o_custkey AND o_comment NOT LIKE '%special%requests%' GROUP BY c_custkey) AS c_orders GROUP BY c_count"
Q4="SELECT o_orderpriority, ANON_COUNT(o_orderkey, 5) AS order_count FROM orders WHERE o_orderdate >= date '1993-07-01' AND o_orderdate < date '1993-07-01' + interval '3' month AND EXISTS (SELECT * FROM lineitem WHERE l_orderkey = o_orderkey AND l_custkey = o_custkey AND l_commitdate < l_receiptdate) GROUP BY o_orderpriority"

psql_db "$DB" <<SQL >/dev/null
SET client_min_messages = warning;
DROP ROLE IF EXISTS $ROLE;
CREATE ROLE $ROLE;
SECURITY LABEL FOR anon_dp ON ROLE $ROLE IS 'anonymized';
GRANT USAGE ON SCHEMA tpch_cust TO $ROLE;

CREATE SCHEMA bench_composition;
-- the statements of a workload, run in turn: (query, C_u, noise, selection)
CREATE TABLE bench_composition.statement (ord int, workload text, position int, query text, cu int,
                                          noise text, selection text);
INSERT INTO bench_composition.statement VALUES
  (1, 'Q13 Laplace', 1, \$q\$$Q13\$q\$, 1, 'laplace', 'laplace'),
  (2, 'Q13 Gaussian', 1, \$q\$$Q13\$q\$, 1, 'gaussian', 'gaussian'),
  (3, 'Q4 Laplace', 1, \$q\$$Q4\$q\$, 5, 'laplace', 'laplace'),
  (4, 'Q4 Gaussian', 1, \$q\$$Q4\$q\$, 5, 'gaussian', 'gaussian'),
  (5, 'mixed: Q13 Laplace, Q4 Gaussian', 1, \$q\$$Q13\$q\$, 1, 'laplace', 'laplace'),
  (5, 'mixed: Q13 Laplace, Q4 Gaussian', 2, \$q\$$Q4\$q\$, 5, 'gaussian', 'gaussian');
SECURITY LABEL FOR anon_dp ON TABLE bench_composition.statement IS 'public';
GRANT USAGE ON SCHEMA bench_composition TO $ROLE;
GRANT SELECT ON bench_composition.statement TO $ROLE;
SQL

# run WORKLOAD EPSILON DELTA CAP: releases until the budget refuses (or CAP)
run() {
	local workload=$1 epsilon=$2 delta=$3 cap=$4
	psql_db "$DB" -At <<SQL
SET client_min_messages = warning;
SET extra_float_digits = 0;
SELECT anon_dp_reset_budget('$ROLE');
SELECT anon_dp_set_budget('$ROLE', $BUDGET_EPSILON, $BUDGET_DELTA);
SET anon_dp.max_delta = 0.01;
SET anon_dp.budget_notice = 0;
SET SESSION AUTHORIZATION $ROLE;
SET search_path = tpch_cust, public;
SET anon_dp.epsilon = $epsilon;
SET anon_dp.delta = $delta;
DO \$\$
DECLARE
  s record;
  n int := 0;
  refused boolean := false;
BEGIN
  WHILE NOT refused AND n < $cap LOOP
    FOR s IN SELECT * FROM bench_composition.statement WHERE workload = '$workload' ORDER BY position LOOP
      PERFORM set_config('anon_dp.max_groups_contributed', s.cu::text, false);
      PERFORM set_config('anon_dp.noise', s.noise, false);
      PERFORM set_config('anon_dp.partition_selection', s.selection, false);
      BEGIN
        EXECUTE 'SELECT count(*) FROM (' || s.query || ') released';
        n := n + 1;
      EXCEPTION WHEN configuration_limit_exceeded THEN
        refused := true;
        EXIT;
      END;
      EXIT WHEN n >= $cap;
    END LOOP;
  END LOOP;
END \$\$;
SELECT releases, coalesce(releases_that_fit, 0), accounting, round(spent_epsilon, 3),
       round(spent_delta, 10)::float8, round(rho::numeric, 4)
FROM anon_dp_budget;
RESET SESSION AUTHORIZATION;
-- basic composition: the longest prefix of the workload within the budget
WITH RECURSIVE cost AS (
  SELECT row_number() OVER (ORDER BY entry) - 1 AS k, epsilon, delta
  FROM (SELECT entry, epsilon, delta FROM anon_dp_ledger
        WHERE role = '$ROLE'::regrole AND outcome = 'charged'
          AND entry > (SELECT max(entry) FROM anon_dp_ledger
                       WHERE role = '$ROLE'::regrole AND outcome = 'budget reset')
        ORDER BY entry
        LIMIT (SELECT count(*) FROM bench_composition.statement WHERE workload = '$workload')) c),
period AS (SELECT count(*) AS m FROM cost),
prefix(n, e, d) AS (
  SELECT 0::bigint, 0::numeric, 0::numeric
  UNION ALL
  SELECT p.n + 1, p.e + c.epsilon, p.d + c.delta FROM prefix p, period, cost c
  WHERE c.k = p.n % period.m AND p.e + c.epsilon <= $BUDGET_EPSILON
    AND p.d + c.delta <= $BUDGET_DELTA AND p.n < 1000000)
SELECT max(n) FROM prefix;
SQL
}

report() {	# report EPSILON DELTA CAP
	local epsilon=$1 delta=$2 cap=$3 workload line run_n fits acc spent_e spent_d rho basic total limit
	echo
	echo "**Each statement at ε = $epsilon, δ = $delta** (anon_dp.epsilon, anon_dp.delta; budget ε = $BUDGET_EPSILON, δ = $BUDGET_DELTA)"
	echo
	echo "| workload | basic composition (1.0) | accountant (1.1) | gain | run through the ledger | accounting | spent ε | spent δ | Σρ |"
	echo "|---|---:|---:|---:|---:|---|---:|---:|---:|"
	while IFS= read -r workload; do
		log "  $workload at epsilon $epsilon, delta $delta"
		case "$workload" in mixed*) limit=1000000 ;; *) limit=$cap ;; esac
		mapfile -t line < <(run "$workload" "$epsilon" "$delta" "$limit" | grep -v '^$')
		IFS='|' read -r run_n fits acc spent_e spent_d rho <<<"${line[0]}"
		basic=${line[1]}
		total=$run_n
		case "$workload" in mixed*) ;; *) total=$((run_n + fits)) ;; esac
		printf '| %s | %s | %s | %s× | %s | %s | %s | %s | %s |\n' "$workload" "$basic" "$total" \
			"$(awk -v a="$total" -v b="$basic" 'BEGIN { printf (b > 0 ? "%.1f" : "-"), a / b }')" \
			"$run_n" "$acc" "$spent_e" "$spent_d" "$rho"
	done < <(psql_db "$DB" -At -c "SELECT workload FROM bench_composition.statement GROUP BY workload ORDER BY min(ord)")
}

T0=$(date +%s)
OUT=$(mktemp)
{
	echo "# Releases a budget pays for: basic composition against the accountant"
	echo
	echo "- command: \`$CMDLINE\`; checkout $(git -C "$BENCH_DIR/.." rev-parse --short HEAD); PostgreSQL $(psql_db "$DB" -At -c 'SHOW server_version')"
	echo "- TPC-H scale factor $SF, customers as users (tpch_cust); a role's budget ε = $BUDGET_EPSILON, δ = $BUDGET_DELTA, reset before each workload"
	echo "- each row: the same statements, settings and noise in both columns; *basic composition* is what anon_dp 1.0's ledger pays for (the longest prefix whose charged ε and δ stay within the budget), *accountant* what anon_dp 1.1's ledger pays for, counted by running them until refused"
	report 1 1e-6 100000
	echo
	echo "At ε = 0.1 every release is run through the ledger up to $CAP per workload; the rest of a homogeneous workload is the accountant's own count of further statements of the same cost (\`anon_dp_budget.releases_that_fit\`); the mixed workload is run to its end."
	report 0.1 1e-8 "$CAP"
	echo
	echo "- done in $(( $(date +%s) - T0 )) s"
} | tee "$OUT"
if [ "$SAVE" = 1 ]; then
	mkdir -p "$BENCH_DIR/results"
	cp "$OUT" "$BENCH_DIR/results/budget_composition.md"
	log "wrote bench/results/budget_composition.md"
fi
rm -f "$OUT"
psql_db postgres -c "DROP DATABASE IF EXISTS $DB" >/dev/null 2>&1 || true
