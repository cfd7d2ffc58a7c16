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

STATE_FILE=${1:-$MARIADB_DEFAULT_STATE_FILE}
PATH="$PATH:/usr/sbin"

if [[ ! -e "$STATE_FILE" ]]; then
    mariadb_log "no state file $STATE_FILE; nothing to stop"
    exit 0
fi

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

# Waits up to $1 tenths of a second for the server to be gone.
wait_gone() {
    local i
    for ((i = 0; i < $1; i++)); do
        mariadb_pid_is_server "$pid" || return 0
        sleep 0.1
    done
    ! mariadb_pid_is_server "$pid"
}

# ---------------------------------------------------------------------------
# 2. Stop the server, if it is still running: a clean `mariadb-admin shutdown`
#    over its socket, then SIGTERM, then SIGKILL, each only while the PID
#    still belongs to a mariadbd process (never a recycled PID).
# ---------------------------------------------------------------------------
if [[ -n "$pid" ]] && mariadb_pid_is_server "$pid"; then
    mariadb_log "stopping MariaDB on port ${MARIADB_PORT:-?} (pid $pid)"
    if [[ -n "$MARIADB_SOCKET" && -S "$MARIADB_SOCKET" ]]; then
        (cd / && mariadb_admin "$MARIADB_SOCKET" --connect-timeout=5 shutdown) >&2 2>/dev/null || true
    fi
    if ! wait_gone 300; then
        mariadb_log "mariadbd $pid still alive; sending SIGTERM"
        kill -TERM "$pid" 2>/dev/null || true
        if ! wait_gone 100; then
            mariadb_log "mariadbd $pid ignored SIGTERM; sending SIGKILL"
            kill -KILL "$pid" 2>/dev/null || true
            wait_gone 50 || mariadb_log "WARNING: mariadbd $pid survived SIGKILL"
        fi
    fi
fi

# ---------------------------------------------------------------------------
# 3. Remove the temp dir (only if it carries mariadb-start.sh's marker, so a
#    bad state file can never point rm -rf at anything else), then the state
#    file.
# ---------------------------------------------------------------------------
if [[ -n "$MARIADB_TMPDIR" && -d "$MARIADB_TMPDIR" ]]; then
    if [[ -f "$MARIADB_TMPDIR/$MARIADB_MARKER_NAME" ]]; then
        rm -rf -- "$MARIADB_TMPDIR" || mariadb_log "WARNING: could not remove $MARIADB_TMPDIR"
        mariadb_log "removed $MARIADB_TMPDIR"
    else
        mariadb_log "WARNING: $MARIADB_TMPDIR lacks the $MARIADB_MARKER_NAME marker; not deleting it"
    fi
fi
rm -f -- "$STATE_FILE"
exit 0
