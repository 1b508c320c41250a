#!/usr/bin/env bash
# bench/scaleout.sh -- rows and bytes that cross the network when a private
# table is sharded with postgres_fdw (doc/scale-out.md): rows scanned on the
# shards against rows shipped to the coordinator, with the per-user
# aggregation pushed down (partitionwise aggregation) and without it.
#
#   bench/scaleout.sh                       1,000,000 rows, 100,000 users (10 per user)
#   USERS=10000 bench/scaleout.sh           100 rows per user
#
# Counts, not times: rows from EXPLAIN ANALYZE of the foreign scans, and the
# payload bytes of what those scans return (pg_column_size of each column on
# the shards, for the pushed-down query with the same plan run there with a
# fixed secret).  postgres_fdw transfers text, so the wire carries about twice
# the bytea bytes.  Writes bench/results/scaleout-ROWS-USERS.md.
source "$(dirname "${BASH_SOURCE[0]}")/../tools/lib.sh"
source "$ANON_DP_ROOT/tests/scaleout/cluster.sh"
ROWS=${ROWS:-1000000}
USERS=${USERS:-100000}
OUT="$ANON_DP_ROOT/bench/results/scaleout-$ROWS-$USERS.md"

bootstrap
trap scaleout_stop EXIT
scaleout_start
scaleout_private_table events "uid int, g5 text, g1000 int, amount float8" uid
log "loading $ROWS rows of $USERS users through the coordinator"
coord <<SQL
INSERT INTO events
SELECT 1 + i % $USERS, 'g' || abs(hashint4(i)) % 5, abs(hashint4(i + 1)) % 1000,
       abs(hashint4(i + 2)) % 1000 / 10.0
FROM generate_series(1, $ROWS) i;
SET ROLE data_owner;
ANALYZE events;
SQL

# rows out of the coordinator's foreign scans, and the plan's first Remote SQL
explain() {	# explain SETTINGS QUERY
	coord -c "SET ROLE data_owner; $1 EXPLAIN (ANALYZE, VERBOSE, COSTS OFF, TIMING OFF, SUMMARY OFF) $2"
}
shipped() { grep -E 'Foreign Scan' | grep -o 'actual rows=[0-9]*' | awk -F= '{ s += $2 } END { print s + 0 }'; }

# payload bytes of a shipped query's result, summed over the shards: the
# Remote SQL of the plan, with the secret parameter replaced by a constant
payload_bytes() {	# payload_bytes REMOTE_SQL_OF_SHARD_1
	local k sql total=0 b
	for k in 1 2 3; do
		sql=$(sed -e "s/events_p0/events_p$((k - 1))/" -e "s/\\\$1::bytea/'\\\\x000102030405060708090a0b0c0d0e0f'::bytea/" <<<"$1")
		b=$(shard "$k" -c "SELECT coalesce(sum(pg_column_size(r.*) - 24), 0) FROM ($sql) r")
		total=$((total + b))
	done
	echo "$total"
}

scanned=0
for k in 1 2 3; do scanned=$((scanned + $(shard "$k" -c "SELECT count(*) FROM events"))); done
users=$(coord -c "SET ROLE data_owner; SELECT count(DISTINCT uid) FROM events")

{
	echo "# Scale-out: rows shipped vs. rows scanned (bench/scaleout.sh)"
	echo
	echo "- date: $(date -u '+%Y-%m-%d %H:%M:%S UTC'), commit $(git -C "$ANON_DP_ROOT" rev-parse --short HEAD)"
	echo "- PostgreSQL $("$PG_BIN/postgres" --version | awk '{ print $3 }'), one coordinator and 3 shards on one machine (postgres_fdw over Unix sockets)"
	echo "- table \`events(uid int, g5 text, g1000 int, amount float8)\`, hash-partitioned by \`uid\` into one foreign partition per shard"
	echo "- $ROWS rows, $users users (about $((ROWS / USERS)) rows per user); rows scanned on the shards: $scanned"
	echo "- command: \`ROWS=$ROWS USERS=$USERS bench/scaleout.sh\`"
	echo
	echo "Bytes: the binary size of the columns the foreign scans return (\`pg_column_size\`, summed"
	echo "on the shards); postgres_fdw transfers them as text, a bytea in hex (about twice as long)."
	echo
	echo "| query | C_u | pushdown | rows shipped | rows / user | bytes shipped | bytes / scanned row |"
	echo "|---|---|---|---|---|---|---|"
} >"$OUT.partial"

row() {	# row LABEL C_U QUERY
	local label=$1 cu=$2 query=$3 plan rows bytes remote
	for mode in on off; do
		plan=$(explain "SET anon_dp.max_groups_contributed = $cu; SET enable_partitionwise_aggregate = $mode;" "$query")
		rows=$(shipped <<<"$plan")
		remote=$(grep -m1 'Remote SQL:' <<<"$plan" | sed 's/^ *Remote SQL: //')
		bytes=$(payload_bytes "$remote")
		printf '| %s | %s | %s | %s | %s | %s | %s |\n' "$label" "$cu" "$mode" "$rows" \
			"$(awk -v r="$rows" -v u="$users" 'BEGIN { printf "%.2f", r / u }')" "$bytes" \
			"$(awk -v b="$bytes" -v s="$scanned" 'BEGIN { printf "%.1f", b / s }')" >>"$OUT.partial"
		log "$label C_u=$cu pushdown=$mode: $rows rows, $bytes bytes"
	done
}
row "\`SELECT g5, ANON_COUNT(*), ANON_SUM(amount, 0, 100) ... GROUP BY g5\` (5 partitions)" 1 \
	"SELECT g5, ANON_COUNT(*), ANON_SUM(amount, 0, 100) FROM events GROUP BY g5"
row "the same" 5 "SELECT g5, ANON_COUNT(*), ANON_SUM(amount, 0, 100) FROM events GROUP BY g5"
row "\`SELECT g1000, ANON_COUNT(*) ... GROUP BY g1000\` (1,000 partitions)" 1 \
	"SELECT g1000, ANON_COUNT(*) FROM events GROUP BY g1000"
row "the same" 10 "SELECT g1000, ANON_COUNT(*) FROM events GROUP BY g1000"
row "\`SELECT ANON_COUNT(*), ANON_AVG(amount, 0, 100)\` (no GROUP BY)" 1 \
	"SELECT ANON_COUNT(*), ANON_AVG(amount, 0, 100) FROM events"
{
	echo
	echo "With pushdown each shard returns one row per user: the user's at most C_u kept"
	echo "partitions with their partials in one \`bytea\` (and the unit); without it, every row of"
	echo "the table crosses the network. The bytes per user grow with C_u and the width of the"
	echo "keys, not with the user's rows."
} >>"$OUT.partial"
mv "$OUT.partial" "$OUT"
cat "$OUT"
