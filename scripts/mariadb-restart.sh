#!/usr/bin/env bash
#
# Stop a throwaway MariaDB started by scripts/mariadb-start.sh and start it
# again on the same port and data directory, as a server restart looks to its
# clients: every connection is cut, new connections are refused while it is
# down, and it comes back with its data.
#
# Usage: scripts/mariadb-restart.sh STATE_FILE [DOWN_SECONDS]
#
#   STATE_FILE    the state file mariadb-start.sh wrote
#   DOWN_SECONDS  how long to stay down before starting again (default 0)
#
# Prints nothing on stdout; updates MARIADB_PID in STATE_FILE. Used by the
# fault tests (tests/Orseis.IntegrationTests/Faults), each on a server of its own.

set -euo pipefail

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=scripts/mariadb-lib.sh
. "$SCRIPT_DIR/mariadb-lib.sh"

STATE_FILE=${1:?usage: mariadb-restart.sh STATE_FILE [DOWN_SECONDS]}
DOWN_SECONDS=${2:-0}
[[ -s "$STATE_FILE" ]] || server_die "no state file $STATE_FILE"

MARIADB_TMPDIR="" MARIADB_DATADIR="" MARIADB_PID="" MARIADB_PIDFILE="" MARIADB_SOCKET="" MARIADB_PORT="" MARIADB_LOG=""
# shellcheck source=/dev/null
. "$STATE_FILE"
[[ -f "$MARIADB_TMPDIR/$SERVER_MARKER_NAME" ]] || server_die "$MARIADB_TMPDIR is not a throwaway server's directory"

old=$MARIADB_PID
if server_running "$old"; then
    server_log "stopping MariaDB on port $MARIADB_PORT (pid $old)"
    (cd / && mariadb_admin "$MARIADB_SOCKET" --connect-timeout=5 shutdown) >&2 2>/dev/null || kill -TERM "$old" 2>/dev/null || true
    server_wait_gone "$old" 300 || server_die "mariadbd $old did not stop within 30 s"
fi

sleep "$DOWN_SECONDS"

server_log "starting MariaDB again on port $MARIADB_PORT"
read -r -a SERVER_OPTIONS <<<"${MARIADB_SERVER_OPTIONS:-}"
mariadb_launch "$MARIADB_DATADIR" "$MARIADB_PORT" "$MARIADB_SOCKET" "$MARIADB_PIDFILE" "$MARIADB_LOG" "${SERVER_OPTIONS[@]}"
mariadb_wait_ready "$MARIADB_SOCKET" 30 || server_die "MariaDB did not come back on port $MARIADB_PORT"

state_tmp=$(mktemp "$STATE_FILE.XXXXXX")
sed "s/^MARIADB_PID=.*/MARIADB_PID=$MARIADB_PID/" "$STATE_FILE" >"$state_tmp"
chmod 644 "$state_tmp"
mv -f -- "$state_tmp" "$STATE_FILE"
server_log "MariaDB back on port $MARIADB_PORT (pid $MARIADB_PID)"
