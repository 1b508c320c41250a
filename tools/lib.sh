# tools/lib.sh -- shared by tools/demo and tools/test (sourced, not run).
#
# bootstrap:   install Debian packages if missing, build and install anon_dp
# start_cluster / stop_cluster: a throwaway PostgreSQL cluster owned by an
#              unprivileged user, on a Unix socket in a private directory,
#              with shared_preload_libraries = 'anon_dp'

set -euo pipefail

ANON_DP_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PG_MAJOR=${PG_MAJOR:-15}
# ANON_DP_PG_BIN: another PostgreSQL installation's bin directory (developers
# running several checkouts side by side, each against its own relocated copy)
PG_BIN=${ANON_DP_PG_BIN:-/usr/lib/postgresql/$PG_MAJOR/bin}
PACKAGES="build-essential postgresql-$PG_MAJOR postgresql-server-dev-$PG_MAJOR libssl-dev libpq-dev python3 python3-psycopg2 sqlsmith default-jdk-headless libpostgresql-jdbc-java"

log() {
	printf '==> %s\n' "$*" >&2
	if [ -n "${PROGRESS_FILE:-}" ]; then
		printf '%s\n%s\n%s\n' "$SECONDS" "$*" "${PROGRESS_DIR:-}" >"$PROGRESS_FILE"
	fi
}

# While a phase announced by log() runs, a line on stderr every
# PROGRESS_SECONDS (30): its name, how long it has run, and the latest result
# line (ok, PASS, FAIL) of the newest *.log in PROGRESS_DIR (when set).
start_progress() {
	PROGRESS_FILE=$(mktemp /tmp/anon_dp_progress.XXXXXX)
	(
		while sleep "${PROGRESS_SECONDS:-30}"; do
			started="" phase="" dir=""
			{ read -r started; read -r phase; read -r dir; } <"$PROGRESS_FILE" || true
			[ -n "$started" ] || continue
			latest=""
			if [ -n "$dir" ] && [ -d "$dir" ]; then
				newest=$(ls -t "$dir" 2>/dev/null | grep '\.log$' | head -n 1 || true)
				if [ -n "$newest" ]; then
					latest=$(grep -E '^(ok|not ok|PASS|FAIL)|[.][.][.] (ok|FAILED|failed)' "$dir/$newest" 2>/dev/null | tail -n 1 || true)
				fi
			fi
			printf '    ... still running (%d s): %s%s\n' "$((SECONDS - started))" "${phase%% (*}" \
				"${latest:+; latest: $latest}" >&2
		done
	) &
	PROGRESS_PID=$!
}

stop_progress() {
	if [ -n "${PROGRESS_PID:-}" ]; then kill "$PROGRESS_PID" 2>/dev/null || true; wait "$PROGRESS_PID" 2>/dev/null || true; fi
	if [ -n "${PROGRESS_FILE:-}" ]; then rm -f "$PROGRESS_FILE"; fi
	PROGRESS_PID="" PROGRESS_FILE=""
}

# run a command as root (directly, or through sudo when we are not root)
as_root() {
	if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

bootstrap() {
	local missing=""
	local p
	for p in $PACKAGES; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
	done
	if [ -n "$missing" ]; then
		log "installing Debian packages:$missing"
		as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq
		# shellcheck disable=SC2086
		as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null
	fi
	log "building anon_dp"
	make -C "$ANON_DP_ROOT" -s PG_CONFIG="$PG_BIN/pg_config"
	log "installing anon_dp into PostgreSQL $PG_MAJOR"
	as_root make -C "$ANON_DP_ROOT" -s PG_CONFIG="$PG_BIN/pg_config" install >/dev/null
}

# The cluster runs as $PG_USER: root may not run PostgreSQL.
if [ "$(id -u)" -eq 0 ]; then PG_USER=postgres; else PG_USER=$(id -un); fi

# Run a command as $PG_USER.  From root it runs in / : the checkout may be
# anywhere (a clone in /root, mode 700) and $PG_USER may not be able to enter
# it, so nothing it runs may depend on the current directory or read a file of
# the checkout by name: pass such files on standard input, or copy them to a
# directory $PG_USER can read.
as_pg() {
	if [ "$(id -un)" = "$PG_USER" ]; then "$@"; else (cd / && runuser -u "$PG_USER" -- "$@"); fi
}

CLUSTER_DIR=""
PGPORT=${ANON_DP_PORT:-54329}

start_cluster() {
	CLUSTER_DIR=$(mktemp -d /tmp/anon_dp_cluster.XXXXXX)
	chmod 755 "$CLUSTER_DIR"
	[ "$(id -u)" -eq 0 ] && chown "$PG_USER" "$CLUSTER_DIR"
	log "starting a throwaway cluster in $CLUSTER_DIR (user $PG_USER)"
	as_pg "$PG_BIN/initdb" -D "$CLUSTER_DIR/data" -U "$PG_USER" --auth=trust -E UTF8 --locale=C >/dev/null
	cat <<EOF | as_pg tee -a "$CLUSTER_DIR/data/postgresql.conf" >/dev/null
shared_preload_libraries = 'anon_dp'
listen_addresses = ''
unix_socket_directories = '$CLUSTER_DIR'
port = $PGPORT
max_parallel_workers_per_gather = 2
fsync = off
EOF
	as_pg "$PG_BIN/pg_ctl" -D "$CLUSTER_DIR/data" -l "$CLUSTER_DIR/server.log" -w start >/dev/null
	export PGHOST=$CLUSTER_DIR PGPORT PGUSER=$PG_USER PGDATABASE=postgres
}

stop_cluster() {
	if [ -n "$CLUSTER_DIR" ] && [ -d "$CLUSTER_DIR/data" ]; then
		as_pg "$PG_BIN/pg_ctl" -D "$CLUSTER_DIR/data" -m immediate -w stop >/dev/null 2>&1 || true
		rm -rf "$CLUSTER_DIR"
	fi
	CLUSTER_DIR=""
}

# the suites of `make installcheck`, one a line: pg_regress's (REGRESS in the
# Makefile), then pg_isolation_regress's (ISOLATION)
regress_suites() {
	make -s -C "$ANON_DP_ROOT" PG_CONFIG="$PG_BIN/pg_config" print-regress print-isolation
}

# regress_failed_suites LOG: the suites of regress_suites that the output of
# `make installcheck` in LOG does not report as passed, one a line
regress_failed_suites() {
	local suite
	while IFS= read -r suite; do
		grep -Eq "^(test|ok|not ok)? *[0-9 ]*-? *${suite} +\.\.\. ok|^ok +[0-9]+ +- +${suite} " "$1" || echo "$suite"
	done < <(regress_suites)
}

# run_installcheck DIR "PG_REGRESS OPTIONS" [MAKE_VARIABLE=VALUE...]: `make
# installcheck` of this checkout against a running server, pg_regress's suites
# and then pg_isolation_regress's, each with its output in a directory of its
# own (DIR/regress, DIR/isolation); the log is DIR/installcheck.log
run_installcheck() {
	local dir=$1 options=$2
	shift 2
	mkdir -p "$dir/regress" "$dir/isolation"
	make -s -C "$ANON_DP_ROOT" PG_CONFIG="$PG_BIN/pg_config" installcheck ISOLATION= "$@" \
		EXTRA_REGRESS_OPTS="$options --outputdir=$dir/regress" >"$dir/installcheck.log" 2>&1
	make -s -C "$ANON_DP_ROOT" PG_CONFIG="$PG_BIN/pg_config" installcheck REGRESS= "$@" \
		EXTRA_REGRESS_OPTS="$options --outputdir=$dir/isolation" >>"$dir/installcheck.log" 2>&1
}

# installcheck_report DIR: the log and the differences of run_installcheck DIR
installcheck_report() {
	cat "$1/installcheck.log"
	head -n 200 "$1/regress/regression.diffs" "$1/isolation/regression.diffs" 2>/dev/null
}

# psql as the cluster owner, quiet, stop on the first error
pg_psql() {
	as_pg env PGHOST="$PGHOST" PGPORT="$PGPORT" PGUSER="$PGUSER" \
		"$PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 "$@"
}
