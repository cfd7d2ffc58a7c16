#!/usr/bin/env bash
#
# Start a throwaway PostgreSQL server for Orseis' integration tests.
#
# Usage: scripts/pg-start.sh [STATE_FILE]
#
#   STATE_FILE  where to record how to find/stop the server
#               (default: ${TMPDIR:-/tmp}/orseis-pg.env)
#
# On success prints exactly ONE line to stdout, the Npgsql connection string:
#   Host=127.0.0.1;Port=PORT;Username=orseis;Database=orseis;Pooling=true
# and writes STATE_FILE with shell assignments (PG_TMPDIR, PG_DATADIR, PG_PORT,
# PG_BIN, PG_LOG, ORSEIS_POSTGRES) that scripts/pg-stop.sh reads.
# Every other message goes to stderr.
#
# The server is private to the caller: a fresh data directory under a mktemp
# dir, a free TCP port, listening on 127.0.0.1 only, its Unix socket inside the
# temp dir, trust authentication (acceptable: loopback-only and throwaway),
# and durability switched off for speed. The distribution's own cluster and
# system service are never touched.
#
# Environment:
#   ORSEIS_PG_BIN  directory with initdb/postgres/pg_ctl (default: auto-detect)

set -euo pipefail

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=scripts/pg-lib.sh
. "$SCRIPT_DIR/pg-lib.sh"

STATE_FILE=${1:-$SERVER_DEFAULT_STATE_FILE}

# Name of the database user (superuser created by initdb) and database.
DB_USER=orseis
DB_NAME=orseis

# ---------------------------------------------------------------------------
# 1. Refuse to clobber a server that is still running under this state file.
# ---------------------------------------------------------------------------
server_refuse_running "$STATE_FILE" PG_DATADIR pg_runs_on

# ---------------------------------------------------------------------------
# 2. Make sure the PostgreSQL server binaries are installed.
# ---------------------------------------------------------------------------
have_bin() {
    PG_BIN=$(pg_find_bin)
}
server_install have_bin initdb \
    "PostgreSQL server binaries not found (looked in ${ORSEIS_PG_BIN:-/usr/lib/postgresql/*/bin and PATH}), and we are not root so cannot install them. Install Debian's 'postgresql' package (sudo apt-get install postgresql), set ORSEIS_PG_BIN to a directory containing initdb, or set ORSEIS_POSTGRES to an existing server's connection string." \
    "PostgreSQL server binaries not found and apt-get is not available to install them; set ORSEIS_PG_BIN or ORSEIS_POSTGRES." \
    postgresql
for tool in initdb postgres pg_ctl pg_isready createdb; do
    [[ -x "$PG_BIN/$tool" ]] || server_die "$PG_BIN/$tool is missing or not executable"
done
server_check_os_user "(PostgreSQL refuses to run as root)"
server_log "using PostgreSQL binaries in $PG_BIN ($("$PG_BIN/postgres" --version))"

# ---------------------------------------------------------------------------
# 3. Create the private temp directory (lib/server.sh), undone if the start
#    fails: then whatever of the server runs is stopped at once.
#    Layout:  $PG_TMPDIR/            (mode 700, owned by the server user)
#               .orseis-pg           marker, see lib/server.sh
#               data/                the cluster (initdb)
#               postgres.log         server log
#               initdb.log           initdb output
#               .s.PGSQL.<port>      the Unix socket
# ---------------------------------------------------------------------------
server_stop_partial() {
    if [[ -f "$SERVER_TMPDIR/data/postmaster.pid" ]]; then
        server_as_os_user "$PG_BIN/pg_ctl" stop -D "$SERVER_TMPDIR/data" -m immediate -w -t 30 >&2 || true
    fi
}
server_make_tmpdir
PG_TMPDIR=$SERVER_TMPDIR
PG_DATADIR="$PG_TMPDIR/data"
PG_LOG="$PG_TMPDIR/postgres.log"

# ---------------------------------------------------------------------------
# 4. initdb: create the cluster.
#    --auth=trust   no passwords (loopback only, throwaway)
#    -U orseis      name of the bootstrap superuser
#    --no-locale    C collation: deterministic ordering, no dependency on
#                   which locales happen to be generated on the machine
#    -E UTF8        Unicode text
#    --no-sync      skip fsync of the new files (throwaway data)
# ---------------------------------------------------------------------------
server_log "initialising cluster in $PG_DATADIR"
if ! server_as_os_user "$PG_BIN/initdb" -D "$PG_DATADIR" --auth=trust -U "$DB_USER" \
    --no-locale -E UTF8 --no-sync >"$PG_TMPDIR/initdb.log" 2>&1; then
    cat "$PG_TMPDIR/initdb.log" >&2
    server_die "initdb failed"
fi

# ---------------------------------------------------------------------------
# 5. Start the server on a free TCP port (lib/server.sh retries on another
#    port when this one was taken meanwhile), with pg_ctl: it daemonises
#    postgres, sends its output to the log file, and with -w waits until
#    postmaster.pid reports "ready" or the server dies. Options passed to
#    postgres:
#    -p PORT                          the free port
#    -k DIR                           Unix socket in our temp dir, not /run
#    listen_addresses=127.0.0.1       loopback only, never reachable remotely
#    max_connections=200              room for parallel tests + pools
#    fsync / synchronous_commit / full_page_writes = off   speed over safety
# pg_ctl hands -o to /bin/sh, hence the %q quoting of the socket dir.
# ---------------------------------------------------------------------------
try_start() {
    local port=$1 pg_opts
    pg_opts="-p $port -k $(printf '%q' "$PG_TMPDIR")"
    pg_opts+=" -c listen_addresses=127.0.0.1 -c max_connections=200"
    pg_opts+=" -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
    if server_as_os_user "$PG_BIN/pg_ctl" start -D "$PG_DATADIR" -l "$PG_LOG" \
        -w -t "$READY_TIMEOUT" -o "$pg_opts" >&2; then
        return 0
    fi
    # Make sure nothing of this attempt is left running before another.
    if [[ -f "$PG_DATADIR/postmaster.pid" ]]; then
        server_as_os_user "$PG_BIN/pg_ctl" stop -D "$PG_DATADIR" -m immediate -w >&2 || true
    fi
    return 1
}
server_start_on_free_port try_start "$PG_LOG" \
    'Address already in use|could not bind|could not create any TCP/IP sockets|could not create lock file'
PG_PORT=$SERVER_PORT

# ---------------------------------------------------------------------------
# 6. Double-check readiness over TCP, exactly as the tests will connect,
#    with a bounded wait.
# ---------------------------------------------------------------------------
deadline=$((SECONDS + READY_TIMEOUT))
until "$PG_BIN/pg_isready" -q -h 127.0.0.1 -p "$PG_PORT" -U "$DB_USER" -d postgres; do
    if ((SECONDS >= deadline)); then
        server_fail_with_log "$PG_LOG" "server not accepting connections after ${READY_TIMEOUT}s" \
            "PostgreSQL did not become ready"
    fi
    sleep 0.2
done

# ---------------------------------------------------------------------------
# 7. Create the test database.
# ---------------------------------------------------------------------------
"$PG_BIN/createdb" -h 127.0.0.1 -p "$PG_PORT" -U "$DB_USER" "$DB_NAME" >&2 ||
    server_die "createdb $DB_NAME failed"

ORSEIS_POSTGRES="Host=127.0.0.1;Port=$PG_PORT;Username=$DB_USER;Database=$DB_NAME;Pooling=true"

# ---------------------------------------------------------------------------
# 8. Record the state, then print the connection string as the only line on
#    stdout.
# ---------------------------------------------------------------------------
server_finish_start "$STATE_FILE" PG_TMPDIR PG_DATADIR PG_PORT PG_BIN PG_LOG ORSEIS_POSTGRES
server_log "PostgreSQL ready on 127.0.0.1:$PG_PORT (data: $PG_DATADIR, state: $STATE_FILE)"
printf '%s\n' "$ORSEIS_POSTGRES"
