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

STATE_FILE=${1:-$SERVER_DEFAULT_STATE_FILE}

# Extra mariadbd options, separated by spaces (a test that needs a server setting, e.g.
# --innodb-rollback-on-timeout); kept in STATE_FILE so scripts/mariadb-restart.sh starts it the same way.
read -r -a SERVER_OPTIONS <<<"${MARIADB_SERVER_OPTIONS:-}"

# The database, and the user the tests connect as.
DB_NAME=orseis
DB_USER=orseis
DB_PASSWORD=orseis

# ---------------------------------------------------------------------------
# 1. Refuse to clobber a server that is still running under this state file.
# ---------------------------------------------------------------------------
server_refuse_running "$STATE_FILE" MARIADB_PID server_running

# ---------------------------------------------------------------------------
# 2. Make sure the MariaDB server and client tools are installed.
# ---------------------------------------------------------------------------
have_tools() {
    local tool
    for tool in mariadbd mariadb-install-db mariadb mariadb-admin; do
        command -v "$tool" >/dev/null 2>&1 || [[ -x "/usr/sbin/$tool" ]] || return 1
    done
}
server_install have_tools "its tools" \
    "MariaDB (mariadbd, mariadb-install-db, mariadb, mariadb-admin) not found, and we are not root so cannot install it. Install Debian's 'mariadb-server' package (sudo apt-get install mariadb-server), or set ORSEIS_MYSQL to an existing server's connection string." \
    "MariaDB not found and apt-get is not available to install it; set ORSEIS_MYSQL instead." \
    mariadb-server mariadb-client
# When root, the server drops to the `mysql` OS user (created by the package).
server_check_os_user ""
SERVER_USER_OPT=()
[[ $EUID -ne 0 ]] || SERVER_USER_OPT=(--user="$SERVER_OS_USER")
server_log "using $(mariadbd --version)"

# ---------------------------------------------------------------------------
# 3. Create the private temp directory (lib/server.sh), undone if the start
#    fails: then the server, if it was launched, is killed.
#    Layout:  $MARIADB_TMPDIR/        (mode 700, owned by the server user)
#               .orseis-mariadb      marker, see lib/server.sh
#               data/                the data directory (mariadb-install-db)
#               mariadbd.log         server log
#               install-db.log       mariadb-install-db output
#               mariadbd.pid         the server's pid file
#               mysqld.sock          the Unix socket
# ---------------------------------------------------------------------------
MARIADB_PID=""
server_stop_partial() {
    if [[ -n "$MARIADB_PID" ]] && kill -0 "$MARIADB_PID" 2>/dev/null; then
        kill -KILL "$MARIADB_PID" 2>/dev/null || true
        wait "$MARIADB_PID" 2>/dev/null || true
    fi
}
server_make_tmpdir
MARIADB_TMPDIR=$SERVER_TMPDIR
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
server_log "initialising data directory $MARIADB_DATADIR"
if ! (cd / && mariadb-install-db --no-defaults "${SERVER_USER_OPT[@]}" \
    --datadir="$MARIADB_DATADIR" --auth-root-authentication-method=normal \
    --skip-test-db --skip-name-resolve) >"$MARIADB_TMPDIR/install-db.log" 2>&1; then
    cat "$MARIADB_TMPDIR/install-db.log" >&2
    server_die "mariadb-install-db failed"
fi

# ---------------------------------------------------------------------------
# 5. Start mariadbd on a free TCP port (lib/server.sh retries on another port
#    when this one was taken meanwhile): in the background (mariadb_launch, in
#    mariadb-lib.sh, says with which options), then wait, bounded, until it
#    answers on its socket.
# ---------------------------------------------------------------------------
try_start() {
    mariadb_launch "$MARIADB_DATADIR" "$1" "$MARIADB_SOCKET" "$MARIADB_PIDFILE" "$MARIADB_LOG" "${SERVER_OPTIONS[@]}"
    if mariadb_wait_ready "$MARIADB_SOCKET" "$READY_TIMEOUT"; then
        return 0
    fi
    if kill -0 "$MARIADB_PID" 2>/dev/null; then
        server_fail_with_log "$MARIADB_LOG" "server not ready after ${READY_TIMEOUT}s" "MariaDB did not become ready"
    fi
    wait "$MARIADB_PID" 2>/dev/null || true
    MARIADB_PID=""
    return 1
}
server_start_on_free_port try_start "$MARIADB_LOG" 'Address already in use|Do you already have another .* server running'
MARIADB_PORT=$SERVER_PORT

# ---------------------------------------------------------------------------
# 6. Create the test database and user (over the socket, as root), then check
#    that the user can connect over TCP exactly as the tests will.
# ---------------------------------------------------------------------------
(cd / && mariadb --no-defaults --protocol=socket --socket="$MARIADB_SOCKET" -u root) >&2 <<SQL ||
CREATE DATABASE \`$DB_NAME\` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
CREATE USER '$DB_USER'@'127.0.0.1' IDENTIFIED BY '$DB_PASSWORD';
GRANT ALL PRIVILEGES ON \`$DB_NAME\`.* TO '$DB_USER'@'127.0.0.1';
SQL
    server_die "creating database $DB_NAME and user $DB_USER failed"
(cd / && MYSQL_PWD=$DB_PASSWORD mariadb --no-defaults --protocol=tcp -h 127.0.0.1 \
    -P "$MARIADB_PORT" -u "$DB_USER" "$DB_NAME" -e 'select 1') >/dev/null ||
    server_die "user $DB_USER cannot connect over TCP to 127.0.0.1:$MARIADB_PORT"

ORSEIS_MYSQL="Server=127.0.0.1;Port=$MARIADB_PORT;User ID=$DB_USER;Password=$DB_PASSWORD;Database=$DB_NAME"

# ---------------------------------------------------------------------------
# 7. Record the state, then print the connection string as the only line on
#    stdout.
# ---------------------------------------------------------------------------
server_finish_start "$STATE_FILE" MARIADB_TMPDIR MARIADB_DATADIR MARIADB_PORT MARIADB_SOCKET MARIADB_PIDFILE \
    MARIADB_PID MARIADB_SERVER_OPTIONS MARIADB_LOG ORSEIS_MYSQL
server_log "MariaDB ready on 127.0.0.1:$MARIADB_PORT (pid $MARIADB_PID, data: $MARIADB_DATADIR, state: $STATE_FILE)"
printf '%s\n' "$ORSEIS_MYSQL"
