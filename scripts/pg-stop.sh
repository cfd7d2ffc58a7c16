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

STATE_FILE=${1:-$PG_DEFAULT_STATE_FILE}

if [[ ! -e "$STATE_FILE" ]]; then
    pg_log "no state file $STATE_FILE; nothing to stop"
    exit 0
fi

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
        pg_log "stopping PostgreSQL on port ${PG_PORT:-?} (data: $PG_DATADIR)"
        pg_as_server_user "$PG_BIN/pg_ctl" stop -D "$PG_DATADIR" -m immediate -w -t 30 >&2 || true
    fi
fi

# Belt and braces: if pg_ctl was unavailable or failed, signal the postmaster
# directly (SIGQUIT = immediate shutdown, then SIGKILL) — but only after
# checking that the PID still belongs to a postgres process.
if [[ -n "$pid" ]] && pg_pid_is_postgres "$pid"; then
    pg_log "postmaster $pid still alive; sending SIGQUIT"
    kill -QUIT "$pid" 2>/dev/null || true
    for _ in {1..50}; do
        pg_pid_is_postgres "$pid" || break
        sleep 0.1
    done
    if pg_pid_is_postgres "$pid"; then
        pg_log "postmaster $pid ignored SIGQUIT; sending SIGKILL"
        kill -KILL "$pid" 2>/dev/null || true
        sleep 0.5
    fi
fi

# ---------------------------------------------------------------------------
# 3. Remove the temp dir (only if it carries pg-start.sh's marker, so a bad
#    state file can never point rm -rf at anything else), then the state file.
# ---------------------------------------------------------------------------
if [[ -n "$PG_TMPDIR" && -d "$PG_TMPDIR" ]]; then
    if [[ -f "$PG_TMPDIR/$PG_MARKER_NAME" ]]; then
        rm -rf -- "$PG_TMPDIR"
        pg_log "removed $PG_TMPDIR"
    else
        pg_log "WARNING: $PG_TMPDIR lacks the $PG_MARKER_NAME marker; not deleting it"
    fi
fi
rm -f -- "$STATE_FILE"
exit 0
