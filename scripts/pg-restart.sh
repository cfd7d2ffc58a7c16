#!/usr/bin/env bash
#
# Restart a throwaway PostgreSQL server started by scripts/pg-start.sh, as a server restart looks to its clients: stop it
# (fast shutdown: every connection is ended, the port closes), keep it down for DOWN_SECONDS, and start it again on the
# same port and data with the options pg-start.sh gave it (pg_ctl keeps them in postmaster.opts).
#
# Usage: scripts/pg-restart.sh STATE_FILE [DOWN_SECONDS]
#
# Only a server whose state file pg-start.sh wrote (its temp directory carries the throwaway marker) is touched, never
# a system service.

set -euo pipefail

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=scripts/pg-lib.sh
. "$SCRIPT_DIR/pg-lib.sh"

STATE_FILE=${1:?usage: pg-restart.sh STATE_FILE [DOWN_SECONDS]}
DOWN_SECONDS=${2:-0}
[[ -s "$STATE_FILE" ]] || server_die "no state file $STATE_FILE"

PG_TMPDIR="" PG_DATADIR="" PG_BIN="" PG_PORT="" PG_LOG=""
# shellcheck disable=SC1090
. "$STATE_FILE"
[[ -f "$PG_TMPDIR/$SERVER_MARKER_NAME" ]] || server_die "$PG_TMPDIR is not a throwaway server's directory"
[[ -f "$PG_DATADIR/postmaster.opts" ]] || server_die "$PG_DATADIR/postmaster.opts is missing: was the server started?"

# The options the server last ran with: postmaster.opts holds the postgres command line, each word quoted.
opts=$(sed -e 's/^[^ ]* //' "$PG_DATADIR/postmaster.opts")

server_log "stopping PostgreSQL on port $PG_PORT"
server_as_os_user "$PG_BIN/pg_ctl" stop -D "$PG_DATADIR" -m fast -w -t 30 >&2

sleep "$DOWN_SECONDS"

server_log "starting PostgreSQL again on port $PG_PORT"
server_as_os_user "$PG_BIN/pg_ctl" start -D "$PG_DATADIR" -l "$PG_LOG" -w -t 30 -o "$opts" >&2 ||
    server_die "PostgreSQL did not come back on port $PG_PORT"
server_log "PostgreSQL back on port $PG_PORT"
