#!/usr/bin/env bash
#
# Stop a throwaway MariaDB server started by scripts/mariadb-start.sh and
# delete everything it left behind (temp dir with data, log, socket, pid file;
# the state file).
#
# Usage: scripts/mariadb-stop.sh [STATE_FILE]
#
#   STATE_FILE  the file mariadb-start.sh wrote
#               (default: ${TMPDIR:-/tmp}/orseis-mariadb.env)
#
# Idempotent: stopping an already stopped server, or a state file that does
# not exist, is not an error. This script always exits 0, so it is safe to
# call from an EXIT trap.

set -euo pipefail

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=scripts/mariadb-lib.sh
. "$SCRIPT_DIR/mariadb-lib.sh"

STATE_FILE=${1:-$SERVER_DEFAULT_STATE_FILE}
server_stop_begin "$STATE_FILE"

# ---------------------------------------------------------------------------
# 1. Load the state (shell assignments). An empty file (e.g. a state file
#    created by test.sh for a start that failed) just leaves them unset.
# ---------------------------------------------------------------------------
MARIADB_TMPDIR="" MARIADB_PID="" MARIADB_PIDFILE="" MARIADB_SOCKET="" MARIADB_PORT=""
# shellcheck source=/dev/null
. "$STATE_FILE"

# The server's PID: the one recorded at start, else the one in its pid file.
pid=$MARIADB_PID
if [[ -z "$pid" && -n "$MARIADB_PIDFILE" && -f "$MARIADB_PIDFILE" ]]; then
    pid=$(head -n 1 "$MARIADB_PIDFILE" 2>/dev/null || true)
fi

# ---------------------------------------------------------------------------
# 2. Stop the server, if it is still running: a clean `mariadb-admin shutdown`
#    over its socket, then SIGTERM, then SIGKILL, each only while the PID
#    still belongs to a mariadbd process (never a recycled PID).
# ---------------------------------------------------------------------------
if [[ -n "$pid" ]] && server_running "$pid"; then
    server_log "stopping MariaDB on port ${MARIADB_PORT:-?} (pid $pid)"
    if [[ -n "$MARIADB_SOCKET" && -S "$MARIADB_SOCKET" ]]; then
        (cd / && mariadb_admin "$MARIADB_SOCKET" --connect-timeout=5 shutdown) >&2 2>/dev/null || true
    fi
    if ! server_wait_gone "$pid" 300; then
        server_log "mariadbd $pid still alive; sending SIGTERM"
        kill -TERM "$pid" 2>/dev/null || true
        if ! server_wait_gone "$pid" 100; then
            server_log "mariadbd $pid ignored SIGTERM; sending SIGKILL"
            kill -KILL "$pid" 2>/dev/null || true
            server_wait_gone "$pid" 50 || server_log "WARNING: mariadbd $pid survived SIGKILL"
        fi
    fi
fi

# ---------------------------------------------------------------------------
# 3. Remove the temp dir (only if it carries mariadb-start.sh's marker, so a
#    bad state file can never point rm -rf at anything else; a failure to
#    remove it is only a warning), then the state file.
# ---------------------------------------------------------------------------
server_remove_tmpdir "$MARIADB_TMPDIR" || server_log "WARNING: could not remove $MARIADB_TMPDIR"
rm -f -- "$STATE_FILE"
exit 0
