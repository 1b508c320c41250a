# tests/scaleout/cluster.sh -- sourced by tests/scaleout/run and
# bench/scaleout.sh: a coordinator and three shard clusters on this machine,
# set up as doc/scale-out.md tells a DBA to.
#
#   scaleout_start         four throwaway clusters (Unix sockets only, ports
#                          SCALEOUT_PORT .. SCALEOUT_PORT + 3), anon_dp on
#                          each, postgres_fdw servers shard1..shard3 on the
#                          coordinator, the remote role anon_dp_shard on each
#                          shard (password authentication), the table owner
#                          data_owner with its user mappings, and a mapping
#                          of the superuser to the shards' superuser (to load
#                          rows through the coordinator)
#   scaleout_private_table NAME "COLUMNS" UNIT
#                          a table hash-partitioned by UNIT: one foreign
#                          partition per shard, each shard holding the same
#                          partitioned table with only its own partition
#   scaleout_stop          stop the clusters and remove them
#   coord [psql args]      psql on the coordinator as the superuser
#   coord_as ROLE [args]   psql on the coordinator as ROLE
#   shard K [psql args]    psql on shard K (1..3) as the superuser
#
# Needs tools/lib.sh sourced first (PG_BIN, PG_USER, as_pg, log).

SCALEOUT_PORT=${SCALEOUT_PORT:-${ANON_DP_PORT:-54329}}
SCALEOUT_SHARDS=3
SCALEOUT_DIR=""
SCALEOUT_PASSWORD=""

scaleout_node_dir() { echo "$SCALEOUT_DIR/node$1"; }	# 0: coordinator, 1..3: shards

scaleout_psql() {	# scaleout_psql NODE ROLE psql-args...
	local node=$1 role=$2
	shift 2
	as_pg env PGHOST="$(scaleout_node_dir "$node")" PGPORT=$((SCALEOUT_PORT + node)) \
		"$PG_BIN/psql" -X -q -A -t -v ON_ERROR_STOP=1 -U "$role" -d postgres "$@"
}
coord() { scaleout_psql 0 "$PG_USER" "$@"; }
coord_as() { local role=$1; shift; scaleout_psql 0 "$role" "$@"; }
shard() { local k=$1; shift; scaleout_psql "$k" "$PG_USER" "$@"; }

scaleout_init_node() {	# scaleout_init_node NODE
	local node=$1 dir
	dir=$(scaleout_node_dir "$node")
	mkdir -p "$dir"
	chmod 755 "$dir"
	[ "$(id -u)" -eq 0 ] && chown "$PG_USER" "$dir"
	as_pg "$PG_BIN/initdb" -D "$dir/data" -U "$PG_USER" --auth=trust -E UTF8 --locale=C >/dev/null
	cat <<EOF | as_pg tee -a "$dir/data/postgresql.conf" >/dev/null
shared_preload_libraries = 'anon_dp'
listen_addresses = ''
unix_socket_directories = '$dir'
port = $((SCALEOUT_PORT + node))
max_parallel_workers_per_gather = 0
fsync = off
EOF
	if [ "$node" -gt 0 ]; then
		# the remote role logs in with its password only (postgres_fdw
		# requires one for a mapping of a role that is not a superuser)
		as_pg sed -i '1i local all anon_dp_shard scram-sha-256' "$dir/data/pg_hba.conf"
	fi
	as_pg "$PG_BIN/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w start >/dev/null
}

scaleout_start() {
	local k
	SCALEOUT_DIR=$(mktemp -d /tmp/anon_dp_scaleout.XXXXXX)
	chmod 755 "$SCALEOUT_DIR"
	SCALEOUT_PASSWORD=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
	log "scale-out: a coordinator and $SCALEOUT_SHARDS shards in $SCALEOUT_DIR"
	for k in $(seq 0 "$SCALEOUT_SHARDS"); do
		scaleout_init_node "$k"
	done
	for k in $(seq 1 "$SCALEOUT_SHARDS"); do
		shard "$k" <<SQL
SET client_min_messages = warning;
CREATE EXTENSION anon_dp;
-- the role the coordinator connects as: it reads the shard's tables and
-- nothing else (doc/scale-out.md, "Security")
CREATE ROLE anon_dp_shard LOGIN PASSWORD '$SCALEOUT_PASSWORD';
REVOKE ALL ON SCHEMA public FROM PUBLIC;
GRANT USAGE ON SCHEMA public TO anon_dp_shard;
SQL
	done
	coord <<SQL
SET client_min_messages = warning;
CREATE EXTENSION anon_dp;
CREATE EXTENSION postgres_fdw;
CREATE ROLE data_owner NOLOGIN;
GRANT CREATE ON SCHEMA public TO data_owner;
SQL
	for k in $(seq 1 "$SCALEOUT_SHARDS"); do
		coord <<SQL
CREATE SERVER shard$k FOREIGN DATA WRAPPER postgres_fdw
    OPTIONS (host '$(scaleout_node_dir "$k")', port '$((SCALEOUT_PORT + k))', dbname 'postgres',
             extensions 'anon_dp', async_capable 'true', batch_size '1000', fetch_size '10000');
GRANT USAGE ON FOREIGN SERVER shard$k TO data_owner;
CREATE USER MAPPING FOR data_owner SERVER shard$k
    OPTIONS (user 'anon_dp_shard', password '$SCALEOUT_PASSWORD');
-- the loader: the superuser writes through the coordinator, which routes
-- each row to the shard of its partition
CREATE USER MAPPING FOR $PG_USER SERVER shard$k OPTIONS (user '$PG_USER');
SQL
	done
	# partitionwise aggregation for everyone (doc/scale-out.md, step 4)
	coord -c "ALTER DATABASE postgres SET enable_partitionwise_aggregate = on" \
		-c "ALTER DATABASE postgres SET enable_partitionwise_join = on"
}

scaleout_private_table() {	# scaleout_private_table NAME "COLUMNS" UNIT
	local name=$1 columns=$2 unit=$3 k r
	for k in $(seq 1 "$SCALEOUT_SHARDS"); do
		r=$((k - 1))
		shard "$k" <<SQL
CREATE TABLE $name ($columns) PARTITION BY HASH ($unit);
CREATE TABLE ${name}_p$r PARTITION OF $name FOR VALUES WITH (MODULUS $SCALEOUT_SHARDS, REMAINDER $r);
SECURITY LABEL FOR anon_dp ON COLUMN $name.$unit IS 'privacy_unit';
GRANT SELECT ON ${name}_p$r TO anon_dp_shard;
SQL
	done
	coord <<SQL
SET ROLE data_owner;
CREATE TABLE $name ($columns) PARTITION BY HASH ($unit);
SQL
	for k in $(seq 1 "$SCALEOUT_SHARDS"); do
		r=$((k - 1))
		coord <<SQL
SET ROLE data_owner;
CREATE FOREIGN TABLE ${name}_p$r PARTITION OF $name
    FOR VALUES WITH (MODULUS $SCALEOUT_SHARDS, REMAINDER $r)
    SERVER shard$k OPTIONS (table_name '${name}_p$r');
SQL
	done
	coord -c "SECURITY LABEL FOR anon_dp ON COLUMN $name.$unit IS 'privacy_unit'"
}

scaleout_stop() {
	local k dir
	[ -n "$SCALEOUT_DIR" ] || return 0
	for k in $(seq 0 "$SCALEOUT_SHARDS"); do
		dir=$(scaleout_node_dir "$k")
		[ -d "$dir/data" ] && as_pg "$PG_BIN/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1
	done
	rm -rf "$SCALEOUT_DIR"
	SCALEOUT_DIR=""
}
