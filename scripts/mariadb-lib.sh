# shellcheck shell=bash
#
# Helpers of scripts/mariadb-start.sh, mariadb-stop.sh and mariadb-restart.sh,
# on top of what every throwaway server's scripts share (lib/server.sh,
# sourced below). This file is sourced, not executed; it defines functions only.
#
# The throwaway MariaDB server used by the integration tests is always run
# from a private temp directory, on 127.0.0.1 only, and never through the
# distribution's system service (systemd / /etc/init.d/mariadb are not used,
# and --no-defaults keeps /etc/mysql/*.cnf out of it).

# The server, as lib/server.sh needs it described. When root, the server
# drops to the `mysql` OS user (created by Debian's mariadb-server package).
# shellcheck disable=SC2034
{
    SERVER_NAME=MariaDB
    SERVER_KIND=orseis-mariadb
    SERVER_DAEMON=mariadbd
    SERVER_PROCESS_PATTERN='mariadbd|mysqld'
    SERVER_OS_USER=mysql
}

# shellcheck source=scripts/lib/server.sh
. "${BASH_SOURCE[0]%/*}/lib/server.sh"

# Debian installs mariadbd in /usr/sbin, which is not on every user's PATH.
PATH="$PATH:/usr/sbin"

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
    [[ $EUID -ne 0 ]] || user_opt=(--user="$SERVER_OS_USER")
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
    # kill -0 rather than server_running: it is our own child, and for
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
