#!/usr/bin/env bash
# bench/tpch/load.sh -- generate TPC-H-style data at a scale factor and load it
# with COPY FROM STDIN into the database named by the usual PG* environment
# variables (PGHOST, PGPORT, PGUSER, PGDATABASE, ...), then add the primary
# keys and ANALYZE.  The generator's output is streamed straight into psql:
# no data file is written, so the server never needs to read the checkout.
#
#   bench/tpch/load.sh [-s SF] [--seed N] [--schemas "tpch"]
#                      [--labels] [--foreign-keys]
#
#   -s SF             scale factor, 0.01 .. 1 (default 0.01)
#   --seed N          generator seed (default 1)
#   --schemas LIST    which layouts to load (default tpch):
#                       tpch       the TPC-H schema with its foreign keys;
#                                  customers and suppliers are privacy units
#                                  of one database, chosen per role (labels.sql)
#                       tpch_cust  customers are the users; lineitem gets a
#                                  copy of o_custkey (l_custkey)
#                       tpch_supp  suppliers are the users
#                     (tpch_cust and tpch_supp: the layouts before privacy units
#                     through keys, kept as the copied-column baseline of
#                     bench/key_paths_speed.sh and for the older benchmarks.)
#                     Each schema is dropped and recreated.
#   --labels          CREATE EXTENSION IF NOT EXISTS anon_dp and apply labels.sql
#                     (needs shared_preload_libraries = 'anon_dp')
#   --foreign-keys    also add the specification's foreign keys (always for tpch,
#                     whose labels follow them)
#
# Prints a markdown table of rows and seconds per table on stdout; progress
# goes to stderr.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SF=0.01
SEED=1
SCHEMAS="tpch"
LABELS=0
FKS=off

usage() { sed -n '2,30p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }

while [ $# -gt 0 ]; do
	case "$1" in
		-s|--scale) SF=$2; shift 2 ;;
		--seed) SEED=$2; shift 2 ;;
		--schemas) SCHEMAS=$2; shift 2 ;;
		--labels) LABELS=1; shift ;;
		--foreign-keys) FKS=on; shift ;;
		-h|--help) usage; exit 0 ;;
		*) echo "load.sh: unknown argument: $1" >&2; usage >&2; exit 2 ;;
	esac
done

for s in $SCHEMAS; do
	case "$s" in
		tpch|tpch_cust|tpch_supp) ;;
		*) echo "load.sh: unknown schema '$s' (tpch, tpch_cust or tpch_supp)" >&2; exit 2 ;;
	esac
done

log() { printf '==> %s\n' "$*" >&2; }
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }

PSQL=(psql -X -v ON_ERROR_STOP=1)

make -s -C "$HERE" >&2
GEN="$HERE/build/tpchgen"
"$GEN" -s "$SF" --seed "$SEED" -T region -o - -q >/dev/null   # validates SF and seed

TABLES="region nation supplier customer part partsupp orders lineitem"

echo "| schema | table | rows | COPY s |"
echo "|---|---|---:|---:|"
T_ALL=$(now)
for schema in $SCHEMAS; do
	T_SCHEMA=$(now)
	custkey=off
	[ "$schema" = tpch_cust ] && custkey=on
	log "$schema: creating tables (SF $SF, seed $SEED)"
	"${PSQL[@]}" -q -v schema="$schema" -v with_custkey="$custkey" -f "$HERE/schema.sql"

	for t in $TABLES; do
		extra=()
		[ "$t" = lineitem ] && [ "$custkey" = on ] && extra=(--lineitem-custkey)
		t0=$(now)
		# TRUNCATE + COPY ... FREEZE in one transaction: rows are written
		# frozen and visible, so later scans need not set hint bits
		out=$("$GEN" -s "$SF" --seed "$SEED" -T "$t" -o - -q "${extra[@]}" |
			"${PSQL[@]}" -1 -c "TRUNCATE $schema.$t" \
				-c "COPY $schema.$t FROM STDIN WITH (FORMAT text, DELIMITER '|', FREEZE)")
		t1=$(now)
		rows=$(printf '%s\n' "$out" | awk '/^COPY [0-9]+/ { print $2 }')
		log "$schema.$t: $rows rows in $(elapsed "$t0" "$t1") s"
		echo "| $schema | $t | $rows | $(elapsed "$t0" "$t1") |"
	done

	t0=$(now)
	fks=$FKS
	[ "$schema" = tpch ] && fks=on
	if [ "$fks" = on ]; then log "$schema: primary and foreign keys"; else log "$schema: primary keys"; fi
	"${PSQL[@]}" -q -v schema="$schema" -v foreign_keys="$fks" -f "$HERE/keys.sql"
	t1=$(now)
	echo "| $schema | (keys) | | $(elapsed "$t0" "$t1") |"
	t0=$(now)
	log "$schema: ANALYZE"
	"${PSQL[@]}" -q -c "SELECT format('ANALYZE %I.%I;', schemaname, tablename)
		FROM pg_tables WHERE schemaname = '$schema' ORDER BY tablename" -At |
		"${PSQL[@]}" -q
	t1=$(now)
	echo "| $schema | (analyze) | | $(elapsed "$t0" "$t1") |"
	echo "| $schema | **total** | | $(elapsed "$T_SCHEMA" "$t1") |"
done

if [ "$LABELS" = 1 ]; then
	log "labels (labels.sql)"
	"${PSQL[@]}" -q -c "CREATE EXTENSION IF NOT EXISTS anon_dp" -f "$HERE/labels.sql"
fi
log "done in $(elapsed "$T_ALL" "$(now)") s"
