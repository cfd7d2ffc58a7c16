# shellcheck shell=bash
#
# Helpers shared by scripts/mariadb-start.sh, mariadb-stop.sh and mariadb-restart.sh.
# This file is sourced, not executed; it defines functions only.
#
# The throwaway MariaDB server used by the integration tests is always run
# from a private temp directory, on 127.0.0.1 only, and never through the
# distribution's system service (systemd / /etc/init.d/mariadb are not used,
# and --no-defaults keeps /etc/mysql/*.cnf out of it).

# (The two constants below are used by the scripts that source this file.)
# shellcheck disable=SC2034
# Default location of the state file written by mariadb-start.sh and read by
# mariadb-stop.sh (both accept another path as their first argument).
MARIADB_DEFAULT_STATE_FILE="${TMPDIR:-/tmp}/orseis-mariadb.env"

# shellcheck disable=SC2034
# Name of the marker file mariadb-start.sh drops into every temp dir it
# creates. mariadb-stop.sh only ever deletes a directory that carries this
# marker, so a corrupted state file can never make it `rm -rf` something else.
MARIADB_MARKER_NAME=".orseis-mariadb"

# Diagnostics always go to stderr: stdout of mariadb-start.sh is reserved for
# the connection string so callers can capture it with $(...).
mariadb_log() {
    printf '%s: %s\n' "${0##*/}" "$*" >&2
}

mariadb_die() {
    mariadb_log "ERROR: $*"
    exit 1
}

# Succeeds if $1 is the PID of a live mariadbd process. Used before signalling
# a PID read from a pid file, so a recycled PID is never killed.
mariadb_pid_is_server() {
    local pid=$1
    [[ $pid =~ ^[0-9]+$ ]] || return 1
    kill -0 "$pid" 2>/dev/null || return 1
    # /proc/<pid>/cmdline is NUL-separated; tr makes it greppable.
    tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qE 'mariadbd|mysqld'
}

# Runs the mariadb-admin client against the server's private Unix socket as
# the database root user (passwordless over the socket; see mariadb-start.sh).
# --no-defaults: never pick up the system's client configuration.
mariadb_admin() {
    local socket=$1
    shift
    mariadb-admin --no-defaults --protocol=socket --socket="$socket" -u root "$@"
}

# Starts mariadbd in the background (it does not daemonise itself) on an
# existing data directory and sets MARIADB_PID. Arguments: DATADIR PORT SOCKET
# PIDFILE LOG, then extra server options. Options:
#    --no-defaults                        ignore /etc/mysql/*.cnf (must be first)
#    --bind-address=127.0.0.1 --port=P    loopback only, never reachable remotely
#    --socket / --pid-file / --log-error  all inside the temp dir
#    --skip-name-resolve                  no DNS lookups of clients
#    --innodb-flush-log-at-trx-commit=0 --sync-binlog=0 --innodb-doublewrite=0
#                                         speed over safety (throwaway data)
#    --max-connections=200                room for parallel tests + pools
# When root, the server drops to the `mysql` OS user. setsid puts it in its
# own session, so a Ctrl-C aimed at the caller does not reach it.
mariadb_launch() {
    local datadir=$1 port=$2 socket=$3 pidfile=$4 log=$5
    shift 5
    local user_opt=()
    [[ $EUID -ne 0 ]] || user_opt=(--user=mysql)
    (cd / && exec setsid mariadbd --no-defaults "${user_opt[@]}" \
        --datadir="$datadir" --bind-address=127.0.0.1 --port="$port" \
        --socket="$socket" --pid-file="$pidfile" \
        --log-error="$log" --skip-name-resolve \
        --innodb-flush-log-at-trx-commit=0 --sync-binlog=0 --innodb-doublewrite=0 \
        --innodb-buffer-pool-size=64M --max-connections=200 "$@" \
        </dev/null >/dev/null 2>&1) &
    MARIADB_PID=$!
}

# Waits, at most $2 seconds, until the server with socket $1 answers, while
# process MARIADB_PID lives. Succeeds when it answers.
mariadb_wait_ready() {
    local socket=$1 deadline=$((SECONDS + $2))
    # kill -0 rather than mariadb_pid_is_server: it is our own child, and for
    # a moment after the fork its command line is still bash's.
    while kill -0 "$MARIADB_PID" 2>/dev/null; do
        if mariadb_admin "$socket" --connect-timeout=2 ping >/dev/null 2>&1; then
            return 0
        fi
        ((SECONDS < deadline)) || return 1
        sleep 0.2
    done
    return 1
}
