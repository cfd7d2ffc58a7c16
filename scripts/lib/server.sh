# shellcheck shell=bash
#
# What the scripts of the throwaway test servers share, whatever the server
# (pg-start.sh, pg-stop.sh, mariadb-start.sh, mariadb-stop.sh,
# mariadb-restart.sh): logging, checking a PID before signalling it, running a
# tool as the server's OS user, installing the server from Debian, the private
# temp directory and the undo of a start that did not finish, the start on a
# free port retried when another process takes that port first, the state file,
# and the end of a stop. Sourced, not executed; it defines functions only.
#
# Sourced by pg-lib.sh and mariadb-lib.sh, after they describe their server in:
#   SERVER_NAME             PostgreSQL, MariaDB: for messages
#   SERVER_KIND             orseis-pg, orseis-mariadb: names the temp dirs
#                           ($TMPDIR/SERVER_KIND.XXXXXXXX), their marker file
#                           (.SERVER_KIND), the default state file
#                           ($TMPDIR/SERVER_KIND.env) and, without its
#                           orseis- prefix, the scripts (pg-stop.sh)
#   SERVER_DAEMON           the server program, as the start log names it
#   SERVER_PROCESS_PATTERN  an extended regex matching its command line
#   SERVER_OS_USER          the OS user it runs as when started by root
#
# The server is always run from a private temp directory, on 127.0.0.1 only,
# and never through the distribution's system service.

# shellcheck source=scripts/free-port.sh
. "${BASH_SOURCE[0]%/*}/../free-port.sh"
# shellcheck source=scripts/apt-install.sh
. "${BASH_SOURCE[0]%/*}/../apt-install.sh"

# (The constants below are used by the scripts that source this file.)
# shellcheck disable=SC2034
# Default location of the state file written by the start script and read by
# the stop script (both accept another path as their first argument).
SERVER_DEFAULT_STATE_FILE="${TMPDIR:-/tmp}/$SERVER_KIND.env"

# Name of the marker file the start script drops into every temp dir it
# creates. The stop script only ever deletes a directory that carries this
# marker, so a corrupted or hand-edited state file can never make it `rm -rf`
# something else.
SERVER_MARKER_NAME=".$SERVER_KIND"

# The script that stops the server, as the messages name it.
SERVER_STOP_SCRIPT="scripts/${SERVER_KIND#orseis-}-stop.sh"

# shellcheck disable=SC2034
# How long a start waits for the server to accept connections, in seconds.
READY_TIMEOUT=30

# How many times a start is retried when the chosen port was grabbed by
# someone else between our check and the server's bind (e.g. two test runs
# starting at the same moment).
MAX_START_ATTEMPTS=5

# Diagnostics always go to stderr: stdout of a start script is reserved for
# the connection string so callers can capture it with $(...).
server_log() {
    printf '%s: %s\n' "${0##*/}" "$*" >&2
}

server_die() {
    server_log "ERROR: $*"
    exit 1
}

# Succeeds if $1 is the PID of a live server process (its command line matches
# SERVER_PROCESS_PATTERN). Used before signalling a PID read from a file, so a
# recycled PID is never killed.
server_running() {
    local pid=$1
    [[ $pid =~ ^[0-9]+$ ]] || return 1
    kill -0 "$pid" 2>/dev/null || return 1
    # /proc/<pid>/cmdline is NUL-separated; tr makes it greppable.
    tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qE "$SERVER_PROCESS_PATTERN"
}

# Waits up to $2 tenths of a second for server process $1 to be gone; fails if
# it is still there.
server_wait_gone() {
    local pid=$1 i
    for ((i = 0; i < $2; i++)); do
        server_running "$pid" || return 0
        sleep 0.1
    done
    ! server_running "$pid"
}

# Runs a command as the server's OS user when we are root (the servers refuse
# to run as root, or drop to that user), as ourselves otherwise. It runs from /
# so the tools never complain that they cannot read the caller's working
# directory (e.g. /root).
server_as_os_user() {
    if [[ $EUID -ne 0 ]]; then
        (cd / && "$@")
    elif command -v runuser >/dev/null 2>&1; then
        (cd / && runuser -u "$SERVER_OS_USER" -- "$@")
    else
        # Fallback for systems without util-linux' runuser: su with an explicit
        # shell (the account's own shell may be nologin) and the command
        # re-quoted so paths with odd characters survive.
        (cd / && su "$SERVER_OS_USER" -s /bin/bash -c "$(printf '%q ' "$@")")
    fi
}

# server_refuse_running STATE_FILE VARIABLE RUNNING: a start never clobbers a
# server that is still running under its state file. Dies when STATE_FILE
# records a VARIABLE for which the command RUNNING succeeds; otherwise says
# the stale file is replaced (when there is one).
server_refuse_running() {
    local state=$1 variable=$2 running=$3 value
    [[ -s "$state" ]] || return 0
    value=$(
        # Read the old file in a subshell so its variables do not leak here.
        # shellcheck source=/dev/null
        . "$state" && printf '%s' "${!variable:-}"
    ) || value=""
    if [[ -n "$value" ]] && "$running" "$value"; then
        server_die "a server recorded in $state is still running; stop it first with $SERVER_STOP_SCRIPT" \
            "$state (or pass another state file)"
    fi
    server_log "replacing stale state file $state"
}

# server_install HAVE MISSING NOT_ROOT NO_APT PACKAGE...: makes sure the server
# is installed. Unless the command HAVE succeeds, installs PACKAGE... from
# Debian (only root can: apt-install.sh) and checks HAVE again. NOT_ROOT and
# NO_APT are what the user is told when we are not root or have no apt-get;
# MISSING names what is still missing if the install did not bring it.
server_install() {
    local have=$1 missing=$2 not_root=$3 no_apt=$4
    shift 4
    "$have" && return 0
    [[ $EUID -eq 0 ]] || server_die "$not_root"
    command -v apt-get >/dev/null 2>&1 || server_die "$no_apt"
    server_log "$SERVER_NAME not found; installing Debian's $1 package..."
    apt_install_quietly "$@" || server_die "apt-get could not install $1"
    "$have" || server_die "installed $1 but still cannot find $missing"
}

# server_check_os_user WHY: when root, the server's OS user (created by the
# package) must exist to run the server as; WHY, when not empty, says why.
server_check_os_user() {
    [[ $EUID -eq 0 ]] || return 0
    id -u "$SERVER_OS_USER" >/dev/null 2>&1 ||
        server_die "running as root but there is no '$SERVER_OS_USER' OS user to run the server as${1:+ $1}"
}

# Creates SERVER_TMPDIR, the private temp directory of the server being
# started (mode 700, owned by the server's OS user when we are root), with its
# marker, and from then on undoes everything if the start fails or is
# interrupted before server_finish_start: the start script's server_stop_partial
# stops whatever of the server runs, then the temp dir and a half-written state
# file go. Signals become ordinary exits, so that undo runs for them too.
server_make_tmpdir() {
    SERVER_TMPDIR=$(mktemp -d "${TMPDIR:-/tmp}/$SERVER_KIND.XXXXXXXX")
    SERVER_STARTED=false
    SERVER_STATE_TMP=""
    trap server_undo_start EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
    trap 'exit 129' HUP

    touch "$SERVER_TMPDIR/$SERVER_MARKER_NAME"
    if [[ $EUID -eq 0 ]]; then
        chown -R "$SERVER_OS_USER:" "$SERVER_TMPDIR"
        # If $TMPDIR sits somewhere the server user cannot reach (e.g. under
        # /root), fall back to a dir directly in /tmp.
        if ! server_as_os_user test -w "$SERVER_TMPDIR" 2>/dev/null; then
            server_log "$SERVER_OS_USER user cannot use $SERVER_TMPDIR; falling back to /tmp"
            rm -rf -- "$SERVER_TMPDIR"
            SERVER_TMPDIR=$(mktemp -d "/tmp/$SERVER_KIND.XXXXXXXX")
            touch "$SERVER_TMPDIR/$SERVER_MARKER_NAME"
            chown -R "$SERVER_OS_USER:" "$SERVER_TMPDIR"
        fi
    fi
}

# The EXIT trap of a start (server_make_tmpdir).
server_undo_start() {
    local rc=$?
    if [[ $SERVER_STARTED != true ]]; then
        [[ -z "$SERVER_STATE_TMP" ]] || rm -f -- "$SERVER_STATE_TMP"
        server_stop_partial
        rm -rf -- "$SERVER_TMPDIR"
    fi
    exit "$rc"
}

# server_start_on_free_port TRY LOG BUSY: starts the server on a free TCP port
# and sets SERVER_PORT. The command `TRY PORT` starts it on PORT, writing its
# log to LOG (emptied before each attempt, so the check below only sees this
# attempt's messages): it succeeds once the server is ready, fails when the
# server failed and is gone, and dies itself on any failure it knows better.
# When the log then matches the extended regex BUSY, another process took the
# port meanwhile and another port is tried; any other failure shows the log
# and dies.
server_start_on_free_port() {
    local try=$1 log=$2 busy=$3 attempt port
    SERVER_PORT=""
    for ((attempt = 1; attempt <= MAX_START_ATTEMPTS; attempt++)); do
        port=$(find_free_port) || server_die "no free TCP port found in 20000-31999"
        server_log "starting $SERVER_DAEMON on 127.0.0.1:$port (attempt $attempt)"
        rm -f -- "$log"
        if "$try" "$port"; then
            # shellcheck disable=SC2034  # read by the start script
            SERVER_PORT=$port
            return 0
        fi
        if grep -qE "$busy" "$log" 2>/dev/null; then
            server_log "port $port was taken meanwhile; trying another"
            continue
        fi
        server_fail_with_log "$log" "server failed to start" "could not start $SERVER_NAME"
    done
    server_die "could not find a port $SERVER_NAME could bind to after $MAX_START_ATTEMPTS attempts"
}

# server_fail_with_log LOG WHAT ERROR: says WHAT happened, shows the server's
# log, and dies with ERROR.
server_fail_with_log() {
    server_log "$2; its log follows:"
    cat "$1" >&2 2>/dev/null || true
    server_die "$3"
}

# server_finish_start STATE_FILE VARIABLE...: records the named variables in
# STATE_FILE as shell-quoted assignments (written to a temp file and moved, so
# a reader never sees half a file), for the stop script to read; from then on
# a failure no longer undoes the start.
server_finish_start() {
    local state=$1 variable
    shift
    SERVER_STATE_TMP=$(mktemp "$state.XXXXXX")
    {
        printf '# Throwaway %s for Orseis tests; stop with %s\n' "$SERVER_NAME" "$SERVER_STOP_SCRIPT"
        for variable in "$@"; do
            printf '%s=%q\n' "$variable" "${!variable-}"
        done
    } >"$SERVER_STATE_TMP"
    chmod 644 "$SERVER_STATE_TMP"
    mv -f -- "$SERVER_STATE_TMP" "$state"
    SERVER_STARTED=true
}

# server_stop_begin STATE_FILE: a stop of a server with no state file has
# nothing to do, and is not an error.
server_stop_begin() {
    if [[ ! -e "$1" ]]; then
        server_log "no state file $1; nothing to stop"
        exit 0
    fi
}

# server_remove_tmpdir DIR: deletes a stopped server's temp dir, only if it
# carries the start script's marker, so a bad state file can never point
# rm -rf at anything else. Fails when rm does.
server_remove_tmpdir() {
    local dir=$1
    [[ -n "$dir" && -d "$dir" ]] || return 0
    if [[ ! -f "$dir/$SERVER_MARKER_NAME" ]]; then
        server_log "WARNING: $dir lacks the $SERVER_MARKER_NAME marker; not deleting it"
        return 0
    fi
    rm -rf -- "$dir" || return
    server_log "removed $dir"
}
