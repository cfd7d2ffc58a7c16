#!/usr/bin/env bash
#
# Run a command on one CPU core together with a local database server (or, with
# --apart, on the other cores), for timing studies on a small machine.
#
# Usage: scripts/pin-with-server.sh SERVER_PID [--core C] [--apart] -- COMMAND [ARGS...]
#
#   SERVER_PID  the server's process id: MARIADB_PID in the state file of
#               scripts/mariadb-start.sh; for PostgreSQL the first line of
#               postmaster.pid in PG_DATADIR (scripts/pg-start.sh's state file)
#   --core C    the server's core (default: the last one)
#   --apart     the server alone on core C, COMMAND on every other core
#
# Every thread of the server and of COMMAND (and of the processes either starts)
# runs on core C; while COMMAND runs, every other process is moved off core C
# once a second (only those this user may move: all of them as root). At the end
# every process is allowed every core again. Exits with COMMAND's exit code.
#
# Why: a client waiting for a server on another core is woken through the
# scheduler of both cores, and on two shared cores that wake-up, not the query,
# sets the spread of a round trip. On one core the hand-over is a context switch:
# a sequential `select 1` loop through MySqlConnector measured 87.5-91.8 us per
# call over 5 processes pinned, 65-224 us unpinned, on the same idle machine.
#
# With --apart the server runs on core C and COMMAND (with the processes it
# starts) on the others, nothing else is moved, and at the end the server may
# use every core again. Every round trip then crosses cores, the same way in
# every process: for what a client-side cost adds to a round trip (the detector
# overhead), where one shared core would hand the client's own background
# threads the core the query needs, and unpinned the scheduler places client
# and server on one core in some processes and apart in others.

set -uo pipefail

if [[ $# -lt 3 ]]; then
    sed -n '6,12p' "$0" >&2
    exit 2
fi
server=$1; shift
core=$(( $(nproc) - 1 ))
if [[ $1 == --core ]]; then core=$2; shift 2; fi
apart=false
if [[ $1 == --apart ]]; then apart=true; shift; fi
if [[ $1 != -- ]]; then
    echo "pin-with-server.sh: expected -- before the command, got '$1'" >&2
    exit 2
fi
shift
if ! kill -0 "$server" 2>/dev/null; then
    echo "pin-with-server.sh: no process $server (the server's pid)" >&2
    exit 2
fi
if ! command -v taskset >/dev/null; then
    echo "pin-with-server.sh: taskset not found (Debian: apt-get install util-linux)" >&2
    exit 2
fi
all="0-$(( $(nproc) - 1 ))"
others=$(seq 0 $(( $(nproc) - 1 )) | grep -vx "$core" | paste -sd, -)
if [[ -z $others ]]; then
    echo "pin-with-server.sh: one core only; nothing to move off it" >&2
    others=$core
fi

if $apart; then
    if [[ $others == "$core" ]]; then
        echo "pin-with-server.sh: --apart needs two cores" >&2
        exit 2
    fi
    taskset -a -p -c "$core" "$server" >/dev/null
    taskset -c "$others" "$@"
    code=$?
    taskset -a -p -c "$all" "$server" >/dev/null 2>&1
    exit $code
fi

taskset -a -p -c "$core" "$server" >/dev/null
taskset -c "$core" "$@" &
root=$!

# Every process may use every core again, at the end and when this script is stopped (a stopped study must not leave the
# machine's other processes on the remaining cores).
restore() {
    for p in $(ps -eo pid=); do taskset -a -p -c "$all" "$p" >/dev/null 2>&1; done
}
trap 'kill "$root" 2>/dev/null; restore; exit 130' INT
trap 'kill "$root" 2>/dev/null; restore; exit 143' TERM
trap 'kill "$root" 2>/dev/null; restore; exit 129' HUP

# The command's and the server's process trees (PostgreSQL forks a backend per connection), found again each pass.
tree() {
    ps -eo pid=,ppid= | awk -v root="$root" -v server="$server" '
        { parent[$1] = $2 }
        END { keep[root] = 1; keep[server] = 1; changed = 1
              while (changed) { changed = 0
                  for (p in parent) if (!(p in keep) && (parent[p] in keep)) { keep[p] = 1; changed = 1 } }
              for (p in keep) print p }'
}

while kill -0 "$root" 2>/dev/null; do
    keep=" $(tree | tr '\n' ' ') "
    for p in $(ps -eo pid=); do
        if [[ $keep == *" $p "* ]]; then
            taskset -a -p -c "$core" "$p" >/dev/null 2>&1
        elif [[ $p != "$$" ]]; then
            taskset -a -p -c "$others" "$p" >/dev/null 2>&1
        fi
    done
    sleep 1
done
wait "$root"
code=$?
restore
exit $code
