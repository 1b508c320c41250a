# bench/guide_lib.sh -- sourced by the benches that run on the guide's data
# (bench/contribution_bounds.sh, bench/range_clamping.sh).
#
#   bench_server CLUSTER   PSQL for the server of the environment (PGHOST,
#                          PGPORT, PGUSER), or with CLUSTER=true for a
#                          throwaway cluster of tools/lib.sh, stopped on exit
#   fresh_database DB      DB dropped and created, with the extension
#   guide_orders_sql       the sql block after doc/analyst-guide.md's
#                          "data: orders" marker (5,000 customers' orders)

bench_server() {
	if "$1"; then
		source "$ROOT/tools/lib.sh"
		bootstrap
		trap stop_cluster EXIT
		start_cluster
		PSQL() { pg_psql "$@"; }
	else
		PSQL() { psql -X -q -v ON_ERROR_STOP=1 "$@"; }
	fi
}

fresh_database() {
	PSQL -d postgres -c "SET client_min_messages = warning" -c "DROP DATABASE IF EXISTS $1" -c "CREATE DATABASE $1"
	PSQL -d "$1" -c "SET client_min_messages = warning" -c "CREATE EXTENSION anon_dp" >/dev/null
}

guide_orders_sql() {
	local sql
	sql=$(awk '/<!-- data: orders/ { found = 1; next } found && /^```sql/ { inside = 1; next }
		inside && /^```/ { exit } inside { print }' "$ROOT/doc/analyst-guide.md")
	[ -n "$sql" ] || { echo "no data: orders block in doc/analyst-guide.md" >&2; return 1; }
	printf '%s\n' "$sql"
}
