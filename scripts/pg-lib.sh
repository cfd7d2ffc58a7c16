# shellcheck shell=bash
#
# Helpers shared by scripts/pg-start.sh and scripts/pg-stop.sh.
# This file is sourced, not executed; it defines functions only.
#
# The throwaway PostgreSQL server used by the integration tests is always run
# from a private temp directory, on 127.0.0.1 only, and never through the
# distribution's system service (pg_ctlcluster / systemd are not used).

# (The two constants below are used by the scripts that source this file.)
# shellcheck disable=SC2034
# Default location of the state file written by pg-start.sh and read by
# pg-stop.sh (both accept another path as their first argument).
PG_DEFAULT_STATE_FILE="${TMPDIR:-/tmp}/orseis-pg.env"

# shellcheck disable=SC2034
# Name of the marker file pg-start.sh drops into every temp dir it creates.
# pg-stop.sh only ever deletes a directory that carries this marker, so a
# corrupted or hand-edited state file can never make it `rm -rf` something else.
PG_MARKER_NAME=".orseis-pg"

# Diagnostics always go to stderr: stdout of pg-start.sh is reserved for the
# connection string so callers can capture it with $(...).
pg_log() {
    printf '%s: %s\n' "${0##*/}" "$*" >&2
}

pg_die() {
    pg_log "ERROR: $*"
    exit 1
}

# PostgreSQL refuses to run as root. When we are root, run the server tools
# as the `postgres` OS user (created by Debian's postgresql package); when we
# are an ordinary user, just run them as ourselves.
# The command runs from / so the tools never complain that they cannot read
# the caller's working directory (e.g. /root).
pg_as_server_user() {
    if [[ $EUID -ne 0 ]]; then
        (cd / && "$@")
    elif command -v runuser >/dev/null 2>&1; then
        (cd / && runuser -u postgres -- "$@")
    else
        # Fallback for systems without util-linux' runuser: su with an explicit
        # shell (the postgres account's own shell may be nologin) and the
        # command re-quoted so paths with odd characters survive.
        (cd / && su postgres -s /bin/bash -c "$(printf '%q ' "$@")")
    fi
}

# Print the directory holding the PostgreSQL *server* binaries (initdb,
# postgres, pg_ctl, ...). Returns non-zero if none is found. Search order:
#   1. $ORSEIS_PG_BIN, if set (escape hatch for non-Debian layouts);
#   2. Debian/Ubuntu: the newest /usr/lib/postgresql/<version>/bin;
#   3. other distributions: wherever `initdb` on PATH lives.
pg_find_bin() {
    local initdb
    if [[ -n "${ORSEIS_PG_BIN:-}" ]]; then
        [[ -x "$ORSEIS_PG_BIN/initdb" ]] || return 1
        printf '%s\n' "$ORSEIS_PG_BIN"
        return 0
    fi
    # printf + sort -V instead of `ls | sort` (shellcheck SC2012); if the glob
    # matches nothing it stays literal and the -x test below fails.
    initdb=$(printf '%s\n' /usr/lib/postgresql/*/bin/initdb | sort -V | tail -n 1)
    if [[ -x "$initdb" ]]; then
        dirname "$initdb"
        return 0
    fi
    if initdb=$(command -v initdb 2>/dev/null) && [[ -x "$(dirname "$initdb")/postgres" ]]; then
        dirname "$initdb"
        return 0
    fi
    return 1
}

# Succeeds if $1 is the PID of a live postgres process. Used before signalling
# a PID read from a postmaster.pid file, so a recycled PID is never killed.
pg_pid_is_postgres() {
    local pid=$1
    [[ $pid =~ ^[0-9]+$ ]] || return 1
    kill -0 "$pid" 2>/dev/null || return 1
    # /proc/<pid>/cmdline is NUL-separated; tr makes it greppable.
    tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q 'postgres'
}
