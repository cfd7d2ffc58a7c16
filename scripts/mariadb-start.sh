#!/usr/bin/env bash
#
# Start a throwaway MariaDB server for Orseis' integration tests.
#
# Usage: scripts/mariadb-start.sh [STATE_FILE]
#
#   STATE_FILE  where to record how to find/stop the server
#               (default: ${TMPDIR:-/tmp}/orseis-mariadb.env)
#
# On success prints exactly ONE line to stdout, a MySQL connection string (keys
# both MySqlConnector and MySql.Data read):
#   Server=127.0.0.1;Port=PORT;User ID=orseis;Password=orseis;Database=orseis
# and writes STATE_FILE with shell assignments (MARIADB_TMPDIR,
# MARIADB_DATADIR, MARIADB_PORT, MARIADB_SOCKET, MARIADB_PIDFILE, MARIADB_PID,
# MARIADB_LOG, ORSEIS_MYSQL) that scripts/mariadb-stop.sh reads.
# Every other message goes to stderr.
#
# The server is private to the caller: a fresh data directory under a mktemp
# dir (mariadb-install-db), a free TCP port, listening on 127.0.0.1 only, its
# Unix socket inside the temp dir, no option files (--no-defaults), and
# durability switched off for speed. The database root user is reachable only
# over that socket; the tests use the `orseis` user with the fixed password
# `orseis` (acceptable: loopback-only and throwaway). The distribution's own
# server and its system service are never touched.
#
# If MariaDB is not installed and we are root, Debian's mariadb-server package
# is installed with apt-get, its system service kept from starting (apt-install.sh).

set -euo pipefail

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=scripts/mariadb-lib.sh
. "$SCRIPT_DIR/mariadb-lib.sh"
# shellcheck source=scripts/free-port.sh
. "$SCRIPT_DIR/free-port.sh"
# shellcheck source=scripts/apt-install.sh
. "$SCRIPT_DIR/apt-install.sh"

STATE_FILE=${1:-$MARIADB_DEFAULT_STATE_FILE}

# Extra mariadbd options, separated by spaces (a test that needs a server setting, e.g.
# --innodb-rollback-on-timeout); kept in STATE_FILE so scripts/mariadb-restart.sh starts it the same way.
read -r -a SERVER_OPTIONS <<<"${MARIADB_SERVER_OPTIONS:-}"

# The database, and the user the tests connect as.
DB_NAME=orseis
DB_USER=orseis
DB_PASSWORD=orseis

# How long to wait for the server to accept connections, in seconds.
READY_TIMEOUT=30

# How many times to retry the start when the chosen port was grabbed by
# someone else between our check and the server's bind.
MAX_START_ATTEMPTS=5

# ---------------------------------------------------------------------------
# 1. Refuse to clobber a server that is still running under this state file.
# ---------------------------------------------------------------------------
if [[ -s "$STATE_FILE" ]]; then
    old_pid=$(
        # Read the old file in a subshell so its variables do not leak here.
        # shellcheck source=/dev/null
        . "$STATE_FILE" && printf '%s' "${MARIADB_PID:-}"
    ) || old_pid=""
    if [[ -n "$old_pid" ]] && mariadb_pid_is_server "$old_pid"; then
        mariadb_die "a server recorded in $STATE_FILE is still running; stop it first with scripts/mariadb-stop.sh $STATE_FILE (or pass another state file)"
    fi
    mariadb_log "replacing stale state file $STATE_FILE"
fi

# ---------------------------------------------------------------------------
# 2. Make sure the MariaDB server and client tools are installed.
# ---------------------------------------------------------------------------
have_tools() {
    local tool
    for tool in mariadbd mariadb-install-db mariadb mariadb-admin; do
        command -v "$tool" >/dev/null 2>&1 || [[ -x "/usr/sbin/$tool" ]] || return 1
    done
}
# Debian installs mariadbd in /usr/sbin, which is not on every user's PATH.
PATH="$PATH:/usr/sbin"
if ! have_tools; then
    if [[ $EUID -ne 0 ]]; then
        mariadb_die "MariaDB (mariadbd, mariadb-install-db, mariadb, mariadb-admin) not found, and we are not root so cannot install it. Install Debian's 'mariadb-server' package (sudo apt-get install mariadb-server), or set ORSEIS_MYSQL to an existing server's connection string."
    fi
    command -v apt-get >/dev/null 2>&1 ||
        mariadb_die "MariaDB not found and apt-get is not available to install it; set ORSEIS_MYSQL instead."
    mariadb_log "MariaDB not found; installing Debian's mariadb-server package..."
    apt_install_quietly mariadb-server mariadb-client || mariadb_die "apt-get could not install mariadb-server"
    have_tools || mariadb_die "installed mariadb-server but still cannot find its tools"
fi
# When root, the server drops to the `mysql` OS user (created by the package).
SERVER_USER_OPT=()
if [[ $EUID -eq 0 ]]; then
    id -u mysql >/dev/null 2>&1 ||
        mariadb_die "running as root but there is no 'mysql' OS user to run the server as"
    SERVER_USER_OPT=(--user=mysql)
fi
mariadb_log "using $(mariadbd --version)"

# ---------------------------------------------------------------------------
# 3. Create the private temp directory.
#    Layout:  $MARIADB_TMPDIR/        (mode 700, owned by the server user)
#               .orseis-mariadb      marker, see mariadb-lib.sh
#               data/                the data directory (mariadb-install-db)
#               mariadbd.log         server log
#               install-db.log       mariadb-install-db output
#               mariadbd.pid         the server's pid file
#               mysqld.sock          the Unix socket
# ---------------------------------------------------------------------------
MARIADB_TMPDIR=$(mktemp -d "${TMPDIR:-/tmp}/orseis-mariadb.XXXXXXXX")
MARIADB_PID=""

# From here on, undo everything if we fail or are interrupted before the end.
started_ok=false
state_tmp=""
cleanup_on_failure() {
    local rc=$?
    if [[ $started_ok != true ]]; then
        [[ -z "$state_tmp" ]] || rm -f -- "$state_tmp"
        if [[ -n "$MARIADB_PID" ]] && kill -0 "$MARIADB_PID" 2>/dev/null; then
            kill -KILL "$MARIADB_PID" 2>/dev/null || true
            wait "$MARIADB_PID" 2>/dev/null || true
        fi
        rm -rf -- "$MARIADB_TMPDIR"
    fi
    exit "$rc"
}
trap cleanup_on_failure EXIT
# Turn signals into a normal exit so the EXIT trap above runs.
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

touch "$MARIADB_TMPDIR/$MARIADB_MARKER_NAME"
if [[ $EUID -eq 0 ]]; then
    chown -R mysql: "$MARIADB_TMPDIR"
    # If $TMPDIR sits somewhere the mysql user cannot reach (e.g. under
    # /root), fall back to a dir directly in /tmp.
    if ! (cd / && runuser -u mysql -- test -w "$MARIADB_TMPDIR") 2>/dev/null; then
        mariadb_log "mysql user cannot use $MARIADB_TMPDIR; falling back to /tmp"
        rm -rf -- "$MARIADB_TMPDIR"
        MARIADB_TMPDIR=$(mktemp -d /tmp/orseis-mariadb.XXXXXXXX)
        touch "$MARIADB_TMPDIR/$MARIADB_MARKER_NAME"
        chown -R mysql: "$MARIADB_TMPDIR"
    fi
fi
MARIADB_DATADIR="$MARIADB_TMPDIR/data"
MARIADB_LOG="$MARIADB_TMPDIR/mariadbd.log"
MARIADB_SOCKET="$MARIADB_TMPDIR/mysqld.sock"
MARIADB_PIDFILE="$MARIADB_TMPDIR/mariadbd.pid"

# ---------------------------------------------------------------------------
# 4. mariadb-install-db: create the system tables.
#    --no-defaults                          ignore /etc/mysql/*.cnf
#    --auth-root-authentication-method=normal
#                                           root@localhost without a password
#                                           (reachable only over our socket)
#    --skip-test-db / --skip-name-resolve   nothing we do not need
# ---------------------------------------------------------------------------
mariadb_log "initialising data directory $MARIADB_DATADIR"
if ! (cd / && mariadb-install-db --no-defaults "${SERVER_USER_OPT[@]}" \
    --datadir="$MARIADB_DATADIR" --auth-root-authentication-method=normal \
    --skip-test-db --skip-name-resolve) >"$MARIADB_TMPDIR/install-db.log" 2>&1; then
    cat "$MARIADB_TMPDIR/install-db.log" >&2
    mariadb_die "mariadb-install-db failed"
fi

# ---------------------------------------------------------------------------
# 5. Pick a free TCP port.
# ---------------------------------------------------------------------------

# port_in_use and find_free_port come from free-port.sh (sourced above).

# ---------------------------------------------------------------------------
# 6. Start mariadbd in the background (mariadb_launch, in mariadb-lib.sh, says
#    with which options) and wait, bounded, until it answers on its socket.
# ---------------------------------------------------------------------------
MARIADB_PORT=""
for ((attempt = 1; attempt <= MAX_START_ATTEMPTS; attempt++)); do
    port=$(find_free_port) || mariadb_die "no free TCP port found in 20000-31999"
    mariadb_log "starting mariadbd on 127.0.0.1:$port (attempt $attempt)"
    # Fresh log per attempt, so the "address in use" check below only sees
    # this attempt's messages.
    rm -f -- "$MARIADB_LOG"
    mariadb_launch "$MARIADB_DATADIR" "$port" "$MARIADB_SOCKET" "$MARIADB_PIDFILE" "$MARIADB_LOG" "${SERVER_OPTIONS[@]}"
    ready=false
    if mariadb_wait_ready "$MARIADB_SOCKET" "$READY_TIMEOUT"; then
        ready=true
    fi
    if [[ $ready == true ]]; then
        MARIADB_PORT=$port
        break
    fi
    if kill -0 "$MARIADB_PID" 2>/dev/null; then
        mariadb_log "server not ready after ${READY_TIMEOUT}s; its log follows:"
        cat "$MARIADB_LOG" >&2 2>/dev/null || true
        mariadb_die "MariaDB did not become ready"
    fi
    wait "$MARIADB_PID" 2>/dev/null || true
    MARIADB_PID=""
    if grep -qE 'Address already in use|Do you already have another .* server running' "$MARIADB_LOG" 2>/dev/null; then
        mariadb_log "port $port was taken meanwhile; trying another"
        continue
    fi
    mariadb_log "server failed to start; its log follows:"
    cat "$MARIADB_LOG" >&2 2>/dev/null || true
    mariadb_die "could not start MariaDB"
done
[[ -n "$MARIADB_PORT" ]] || mariadb_die "could not find a port MariaDB could bind to after $MAX_START_ATTEMPTS attempts"

# ---------------------------------------------------------------------------
# 7. Create the test database and user (over the socket, as root), then check
#    that the user can connect over TCP exactly as the tests will.
# ---------------------------------------------------------------------------
(cd / && mariadb --no-defaults --protocol=socket --socket="$MARIADB_SOCKET" -u root) >&2 <<SQL ||
CREATE DATABASE \`$DB_NAME\` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
CREATE USER '$DB_USER'@'127.0.0.1' IDENTIFIED BY '$DB_PASSWORD';
GRANT ALL PRIVILEGES ON \`$DB_NAME\`.* TO '$DB_USER'@'127.0.0.1';
SQL
    mariadb_die "creating database $DB_NAME and user $DB_USER failed"
(cd / && MYSQL_PWD=$DB_PASSWORD mariadb --no-defaults --protocol=tcp -h 127.0.0.1 \
    -P "$MARIADB_PORT" -u "$DB_USER" "$DB_NAME" -e 'select 1') >/dev/null ||
    mariadb_die "user $DB_USER cannot connect over TCP to 127.0.0.1:$MARIADB_PORT"

ORSEIS_MYSQL="Server=127.0.0.1;Port=$MARIADB_PORT;User ID=$DB_USER;Password=$DB_PASSWORD;Database=$DB_NAME"

# ---------------------------------------------------------------------------
# 8. Record the state (shell-quoted assignments, written atomically via a
#    temp file + mv so a reader never sees half a file), then print the
#    connection string as the only line on stdout.
# ---------------------------------------------------------------------------
state_tmp=$(mktemp "$STATE_FILE.XXXXXX")
{
    printf '# Throwaway MariaDB for Orseis tests; stop with scripts/mariadb-stop.sh\n'
    printf 'MARIADB_TMPDIR=%q\n' "$MARIADB_TMPDIR"
    printf 'MARIADB_DATADIR=%q\n' "$MARIADB_DATADIR"
    printf 'MARIADB_PORT=%q\n' "$MARIADB_PORT"
    printf 'MARIADB_SOCKET=%q\n' "$MARIADB_SOCKET"
    printf 'MARIADB_PIDFILE=%q\n' "$MARIADB_PIDFILE"
    printf 'MARIADB_PID=%q\n' "$MARIADB_PID"
    printf 'MARIADB_SERVER_OPTIONS=%q\n' "${MARIADB_SERVER_OPTIONS:-}"
    printf 'MARIADB_LOG=%q\n' "$MARIADB_LOG"
    printf 'ORSEIS_MYSQL=%q\n' "$ORSEIS_MYSQL"
} >"$state_tmp"
chmod 644 "$state_tmp"
mv -f -- "$state_tmp" "$STATE_FILE"

started_ok=true
mariadb_log "MariaDB ready on 127.0.0.1:$MARIADB_PORT (pid $MARIADB_PID, data: $MARIADB_DATADIR, state: $STATE_FILE)"
printf '%s\n' "$ORSEIS_MYSQL"
