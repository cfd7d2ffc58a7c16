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
# shellcheck source=scripts/free-port.sh
. "$SCRIPT_DIR/free-port.sh"
# shellcheck source=scripts/apt-install.sh
. "$SCRIPT_DIR/apt-install.sh"

STATE_FILE=${1:-$PG_DEFAULT_STATE_FILE}

# Name of the database user (superuser created by initdb) and database.
DB_USER=orseis
DB_NAME=orseis

# How long to wait for the server to accept connections, in seconds.
READY_TIMEOUT=30

# How many times to retry the start when the chosen port was grabbed by
# someone else between our check and the server's bind (e.g. two test runs
# starting at the same moment).
MAX_START_ATTEMPTS=5

# ---------------------------------------------------------------------------
# 1. Refuse to clobber a server that is still running under this state file.
# ---------------------------------------------------------------------------
if [[ -s "$STATE_FILE" ]]; then
    old_datadir=$(
        # Read the old file in a subshell so its variables do not leak here.
        # shellcheck source=/dev/null
        . "$STATE_FILE" && printf '%s' "${PG_DATADIR:-}"
    ) || old_datadir=""
    if [[ -n "$old_datadir" && -f "$old_datadir/postmaster.pid" ]] &&
        pg_pid_is_postgres "$(head -n 1 "$old_datadir/postmaster.pid")"; then
        pg_die "a server recorded in $STATE_FILE is still running; stop it first with scripts/pg-stop.sh $STATE_FILE (or pass another state file)"
    fi
    pg_log "replacing stale state file $STATE_FILE"
fi

# ---------------------------------------------------------------------------
# 2. Make sure the PostgreSQL server binaries are installed.
# ---------------------------------------------------------------------------
if ! PG_BIN=$(pg_find_bin); then
    if [[ $EUID -ne 0 ]]; then
        pg_die "PostgreSQL server binaries not found (looked in ${ORSEIS_PG_BIN:-/usr/lib/postgresql/*/bin and PATH}), and we are not root so cannot install them. Install Debian's 'postgresql' package (sudo apt-get install postgresql), set ORSEIS_PG_BIN to a directory containing initdb, or set ORSEIS_POSTGRES to an existing server's connection string."
    fi
    command -v apt-get >/dev/null 2>&1 ||
        pg_die "PostgreSQL server binaries not found and apt-get is not available to install them; set ORSEIS_PG_BIN or ORSEIS_POSTGRES."
    pg_log "PostgreSQL not found; installing Debian's postgresql package..."
    apt_install_quietly postgresql || pg_die "apt-get could not install postgresql"
    PG_BIN=$(pg_find_bin) || pg_die "installed postgresql but still cannot find initdb"
fi
for tool in initdb postgres pg_ctl pg_isready createdb; do
    [[ -x "$PG_BIN/$tool" ]] || pg_die "$PG_BIN/$tool is missing or not executable"
done
if [[ $EUID -eq 0 ]]; then
    id -u postgres >/dev/null 2>&1 ||
        pg_die "running as root but there is no 'postgres' OS user to run the server as (PostgreSQL refuses to run as root)"
fi
pg_log "using PostgreSQL binaries in $PG_BIN ($("$PG_BIN/postgres" --version))"

# ---------------------------------------------------------------------------
# 3. Create the private temp directory.
#    Layout:  $PG_TMPDIR/            (mode 700, owned by the server user)
#               .orseis-pg           marker, see pg-lib.sh
#               data/                the cluster (initdb)
#               postgres.log         server log
#               initdb.log           initdb output
#               .s.PGSQL.<port>      the Unix socket
# ---------------------------------------------------------------------------
PG_TMPDIR=$(mktemp -d "${TMPDIR:-/tmp}/orseis-pg.XXXXXXXX")

# From here on, undo everything if we fail or are interrupted before the end.
started_ok=false
state_tmp=""
cleanup_on_failure() {
    local rc=$?
    if [[ $started_ok != true ]]; then
        [[ -z "$state_tmp" ]] || rm -f -- "$state_tmp"
        if [[ -f "$PG_TMPDIR/data/postmaster.pid" ]]; then
            pg_as_server_user "$PG_BIN/pg_ctl" stop -D "$PG_TMPDIR/data" -m immediate -w -t 30 >&2 || true
        fi
        rm -rf -- "$PG_TMPDIR"
    fi
    exit "$rc"
}
trap cleanup_on_failure EXIT
# Turn signals into a normal exit so the EXIT trap above runs.
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

touch "$PG_TMPDIR/$PG_MARKER_NAME"
if [[ $EUID -eq 0 ]]; then
    chown -R postgres: "$PG_TMPDIR"
    # If $TMPDIR sits somewhere the postgres user cannot reach (e.g. under
    # /root), fall back to a dir directly in /tmp.
    if ! pg_as_server_user test -w "$PG_TMPDIR"; then
        pg_log "postgres user cannot use $PG_TMPDIR; falling back to /tmp"
        rm -rf -- "$PG_TMPDIR"
        PG_TMPDIR=$(mktemp -d /tmp/orseis-pg.XXXXXXXX)
        touch "$PG_TMPDIR/$PG_MARKER_NAME"
        chown -R postgres: "$PG_TMPDIR"
    fi
fi
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
pg_log "initialising cluster in $PG_DATADIR"
if ! pg_as_server_user "$PG_BIN/initdb" -D "$PG_DATADIR" --auth=trust -U "$DB_USER" \
    --no-locale -E UTF8 --no-sync >"$PG_TMPDIR/initdb.log" 2>&1; then
    cat "$PG_TMPDIR/initdb.log" >&2
    pg_die "initdb failed"
fi

# ---------------------------------------------------------------------------
# 5. Pick a free TCP port.
# ---------------------------------------------------------------------------

# port_in_use and find_free_port come from free-port.sh (sourced above).

# ---------------------------------------------------------------------------
# 6. Start the server with pg_ctl (it daemonises postgres, sends its output to
#    the log file, and with -w waits until postmaster.pid reports "ready" or
#    the server dies). Options passed to postgres:
#    -p PORT                          the free port
#    -k DIR                           Unix socket in our temp dir, not /run
#    listen_addresses=127.0.0.1       loopback only, never reachable remotely
#    max_connections=200              room for parallel tests + pools
#    fsync / synchronous_commit / full_page_writes = off   speed over safety
# pg_ctl hands -o to /bin/sh, hence the %q quoting of the socket dir.
# ---------------------------------------------------------------------------
PG_PORT=""
for ((attempt = 1; attempt <= MAX_START_ATTEMPTS; attempt++)); do
    port=$(find_free_port) || pg_die "no free TCP port found in 20000-31999"
    pg_log "starting postgres on 127.0.0.1:$port (attempt $attempt)"
    pg_opts="-p $port -k $(printf '%q' "$PG_TMPDIR")"
    pg_opts+=" -c listen_addresses=127.0.0.1 -c max_connections=200"
    pg_opts+=" -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
    # Fresh log per attempt, so the "address in use" check below only sees
    # this attempt's messages.
    rm -f -- "$PG_LOG"
    if pg_as_server_user "$PG_BIN/pg_ctl" start -D "$PG_DATADIR" -l "$PG_LOG" \
        -w -t "$READY_TIMEOUT" -o "$pg_opts" >&2; then
        PG_PORT=$port
        break
    fi
    if grep -qE 'Address already in use|could not bind|could not create any TCP/IP sockets|could not create lock file' "$PG_LOG" 2>/dev/null; then
        pg_log "port $port was taken meanwhile; trying another"
        # Make sure nothing of this attempt is left running before retrying.
        if [[ -f "$PG_DATADIR/postmaster.pid" ]]; then
            pg_as_server_user "$PG_BIN/pg_ctl" stop -D "$PG_DATADIR" -m immediate -w >&2 || true
        fi
        continue
    fi
    pg_log "server failed to start; its log follows:"
    cat "$PG_LOG" >&2 2>/dev/null || true
    pg_die "could not start PostgreSQL"
done
[[ -n "$PG_PORT" ]] || pg_die "could not find a port PostgreSQL could bind to after $MAX_START_ATTEMPTS attempts"

# ---------------------------------------------------------------------------
# 7. Double-check readiness over TCP, exactly as the tests will connect,
#    with a bounded wait.
# ---------------------------------------------------------------------------
deadline=$((SECONDS + READY_TIMEOUT))
until "$PG_BIN/pg_isready" -q -h 127.0.0.1 -p "$PG_PORT" -U "$DB_USER" -d postgres; do
    if ((SECONDS >= deadline)); then
        pg_log "server not accepting connections after ${READY_TIMEOUT}s; its log follows:"
        cat "$PG_LOG" >&2 2>/dev/null || true
        pg_die "PostgreSQL did not become ready"
    fi
    sleep 0.2
done

# ---------------------------------------------------------------------------
# 8. Create the test database.
# ---------------------------------------------------------------------------
"$PG_BIN/createdb" -h 127.0.0.1 -p "$PG_PORT" -U "$DB_USER" "$DB_NAME" >&2 ||
    pg_die "createdb $DB_NAME failed"

ORSEIS_POSTGRES="Host=127.0.0.1;Port=$PG_PORT;Username=$DB_USER;Database=$DB_NAME;Pooling=true"

# ---------------------------------------------------------------------------
# 9. Record the state (shell-quoted assignments, written atomically via a
#    temp file + mv so a reader never sees half a file), then print the
#    connection string as the only line on stdout.
# ---------------------------------------------------------------------------
state_tmp=$(mktemp "$STATE_FILE.XXXXXX")
{
    printf '# Throwaway PostgreSQL for Orseis tests; stop with scripts/pg-stop.sh\n'
    printf 'PG_TMPDIR=%q\n' "$PG_TMPDIR"
    printf 'PG_DATADIR=%q\n' "$PG_DATADIR"
    printf 'PG_PORT=%q\n' "$PG_PORT"
    printf 'PG_BIN=%q\n' "$PG_BIN"
    printf 'PG_LOG=%q\n' "$PG_LOG"
    printf 'ORSEIS_POSTGRES=%q\n' "$ORSEIS_POSTGRES"
} >"$state_tmp"
chmod 644 "$state_tmp"
mv -f -- "$state_tmp" "$STATE_FILE"

started_ok=true
pg_log "PostgreSQL ready on 127.0.0.1:$PG_PORT (data: $PG_DATADIR, state: $STATE_FILE)"
printf '%s\n' "$ORSEIS_POSTGRES"
