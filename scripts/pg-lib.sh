# shellcheck shell=bash
#
# Helpers of scripts/pg-start.sh and scripts/pg-stop.sh, on top of what every
# throwaway server's scripts share (lib/server.sh, sourced below).
# This file is sourced, not executed; it defines functions only.
#
# The throwaway PostgreSQL server used by the integration tests is always run
# from a private temp directory, on 127.0.0.1 only, and never through the
# distribution's system service (pg_ctlcluster / systemd are not used).

# The server, as lib/server.sh needs it described. PostgreSQL refuses to run
# as root: when we are root, its tools run as the `postgres` OS user (created
# by Debian's postgresql package), through server_as_os_user.
# shellcheck disable=SC2034
{
    SERVER_NAME=PostgreSQL
    SERVER_KIND=orseis-pg
    SERVER_DAEMON=postgres
    SERVER_PROCESS_PATTERN=postgres
    SERVER_OS_USER=postgres
}

# shellcheck source=scripts/lib/server.sh
. "${BASH_SOURCE[0]%/*}/lib/server.sh"

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

# Succeeds if a postmaster runs on data directory $1: the first line of its
# postmaster.pid is the PID of a live postgres process.
pg_runs_on() {
    [[ -f "$1/postmaster.pid" ]] && server_running "$(head -n 1 "$1/postmaster.pid")"
}
