#!/usr/bin/env bash
#
# Stop a throwaway PostgreSQL server started by scripts/pg-start.sh and delete
# everything it left behind (temp dir with data, log, socket; state file).
#
# Usage: scripts/pg-stop.sh [STATE_FILE]
#
#   STATE_FILE  the file pg-start.sh wrote (default: ${TMPDIR:-/tmp}/orseis-pg.env)
#
# Idempotent: stopping an already stopped server, or a state file that does
# not exist, is not an error. This script always exits 0 unless the temp
# directory cannot be removed, so it is safe to call from an EXIT trap.

set -euo pipefail

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=scripts/pg-lib.sh
. "$SCRIPT_DIR/pg-lib.sh"

STATE_FILE=${1:-$SERVER_DEFAULT_STATE_FILE}
server_stop_begin "$STATE_FILE"

# ---------------------------------------------------------------------------
# 1. Load the state: PG_TMPDIR, PG_DATADIR, PG_BIN, ... (shell assignments).
#    An empty file (e.g. a state file created by test.sh for a start that
#    failed) just leaves them unset.
# ---------------------------------------------------------------------------
PG_TMPDIR="" PG_DATADIR="" PG_BIN="" PG_PORT=""
# shellcheck source=/dev/null
. "$STATE_FILE"

# ---------------------------------------------------------------------------
# 2. Stop the server, if it is still running.
#    `pg_ctl stop -m immediate` makes the postmaster quit at once without a
#    checkpoint (nothing in it is worth keeping); -w waits until it is gone.
# ---------------------------------------------------------------------------
pid=""
if [[ -n "$PG_DATADIR" && -f "$PG_DATADIR/postmaster.pid" ]]; then
    # First line of postmaster.pid is the postmaster's PID.
    pid=$(head -n 1 "$PG_DATADIR/postmaster.pid" 2>/dev/null || true)
    if [[ -n "$PG_BIN" && -x "$PG_BIN/pg_ctl" ]]; then
        server_log "stopping PostgreSQL on port ${PG_PORT:-?} (data: $PG_DATADIR)"
        server_as_os_user "$PG_BIN/pg_ctl" stop -D "$PG_DATADIR" -m immediate -w -t 30 >&2 || true
    fi
fi

# Belt and braces: if pg_ctl was unavailable or failed, signal the postmaster
# directly (SIGQUIT = immediate shutdown, then SIGKILL) — but only after
# checking that the PID still belongs to a postgres process.
if [[ -n "$pid" ]] && server_running "$pid"; then
    server_log "postmaster $pid still alive; sending SIGQUIT"
    kill -QUIT "$pid" 2>/dev/null || true
    if ! server_wait_gone "$pid" 50; then
        server_log "postmaster $pid ignored SIGQUIT; sending SIGKILL"
        kill -KILL "$pid" 2>/dev/null || true
        sleep 0.5
    fi
fi

# ---------------------------------------------------------------------------
# 3. Remove the temp dir (only if it carries pg-start.sh's marker, so a bad
#    state file can never point rm -rf at anything else; a failure to remove it
#    fails the script), then the state file.
# ---------------------------------------------------------------------------
server_remove_tmpdir "$PG_TMPDIR"
rm -f -- "$STATE_FILE"
exit 0
