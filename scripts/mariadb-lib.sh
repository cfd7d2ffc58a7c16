# shellcheck shell=bash
#
# Helpers shared by scripts/mariadb-start.sh and scripts/mariadb-stop.sh.
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
