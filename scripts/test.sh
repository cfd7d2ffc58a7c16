#!/usr/bin/env bash
#
# Orseis' one test command:   ./scripts/test.sh [extra `dotnet test` args]
#
# 1. starts a private, throwaway PostgreSQL server (scripts/pg-start.sh) and a
#    private, throwaway MariaDB server (scripts/mariadb-start.sh) for the
#    integration tests, unless ORSEIS_POSTGRES / ORSEIS_MYSQL already name
#    servers (each script installs its Debian package first when missing and
#    run as root), and installs nftables for the fault tests, which start and
#    stop a MariaDB of their own, hey for the cold-start study's test, and
#    prometheus (promtool) for the fleet view's tests, and valgrind for the
#    instruction gate;
# 2. runs `dotnet test Orseis.sln -c Release "$@"` from the repo root with
#    ORSEIS_POSTGRES (an Npgsql connection string) and ORSEIS_MYSQL (a MySQL
#    connection string) exported;
# 3. prints each test assembly's duration, longest first, and the totals;
# 4. always stops the servers again (EXIT trap), whether the tests pass, fail
#    or are interrupted, and exits with dotnet test's exit code.
#
# Examples:
#   ./scripts/test.sh
#   ./scripts/test.sh --filter "FullyQualifiedName~Postgres"
#   ORSEIS_POSTGRES='Host=127.0.0.1;Port=5432;Username=me;Database=orseis' ./scripts/test.sh
#
# If a server cannot be started (e.g. not root and not installed) the tests
# still run locally and that server's tests skip, saying why. In CI (CI=true)
# that is a hard failure instead, so CI never silently skips them.
#
# Environment:
#   ORSEIS_POSTGRES      use this PostgreSQL server instead of starting one
#   ORSEIS_MYSQL         use this MariaDB/MySQL server instead of starting one
#   ORSEIS_SQLSERVER     run the SQL Server suite against this server
#                        (without it, that suite skips, saying why)

set -euo pipefail

# Repo root = parent of the directory holding this script, wherever it is
# called from.
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SCRIPTS="$ROOT/scripts"

log() {
    printf 'test.sh: %s\n' "$*" >&2
}

# Wall-clock start, for the elapsed time printed at the end.
START_SECONDS=$SECONDS

# Keep dotnet quiet and local: no telemetry, banner or first-run chatter.
export DOTNET_CLI_TELEMETRY_OPTOUT=${DOTNET_CLI_TELEMETRY_OPTOUT:-1}
export DOTNET_NOLOGO=${DOTNET_NOLOGO:-1}
export DOTNET_SKIP_FIRST_TIME_EXPERIENCE=${DOTNET_SKIP_FIRST_TIME_EXPERIENCE:-1}

# ---------------------------------------------------------------------------
# Preconditions.
# ---------------------------------------------------------------------------
if ! command -v dotnet >/dev/null 2>&1; then
    log "ERROR: 'dotnet' not found on PATH; install the .NET SDK first"
    exit 127
fi
if [[ ! -f "$ROOT/Orseis.sln" ]]; then
    log "ERROR: $ROOT/Orseis.sln not found"
    exit 1
fi

# ---------------------------------------------------------------------------
# Cleanup, registered before anything is started: stop our server (if we
# started one), report the elapsed time, and keep the original exit code.
# Signals are turned into ordinary exits so the EXIT trap runs for them too.
# ---------------------------------------------------------------------------
STATE_FILE=""
MARIADB_STATE_FILE=""
# shellcheck disable=SC2317  # only reached through the trap below
on_exit() {
    local rc=$?
    if [[ -n "$STATE_FILE" ]]; then
        "$SCRIPTS/pg-stop.sh" "$STATE_FILE" || log "WARNING: pg-stop.sh failed"
    fi
    if [[ -n "$MARIADB_STATE_FILE" ]]; then
        "$SCRIPTS/mariadb-stop.sh" "$MARIADB_STATE_FILE" || log "WARNING: mariadb-stop.sh failed"
    fi
    local elapsed=$((SECONDS - START_SECONDS))
    log "elapsed: $((elapsed / 60))m$((elapsed % 60))s (exit code $rc)"
    exit "$rc"
}
trap on_exit EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

# ---------------------------------------------------------------------------
# The servers for the integration tests: PostgreSQL and MariaDB.
# start_server NAME VARIABLE START_SCRIPT STATE_FILE: unless $VARIABLE already
# names a server, starts one with START_SCRIPT (recording it in STATE_FILE,
# a file of our own so concurrent test runs never share one) and sets
# VARIABLE to its connection string. A server that cannot be started fails
# the run in CI and only skips its tests elsewhere.
# ---------------------------------------------------------------------------
start_server() {
    local name=$1 variable=$2 script=$3 state=$4 conn
    if [[ -n "${!variable:-}" ]]; then
        log "using the $name server given in $variable"
    elif conn=$("$SCRIPTS/$script" "$state"); then
        printf -v "$variable" '%s' "$conn"
        log "$name for the tests: $conn"
    elif [[ "${CI:-}" == "true" ]]; then
        log "ERROR: could not start $name, which CI requires (see messages above)"
        exit 1
    else
        log "WARNING: could not start $name (see messages above);"
        log "         the $name integration tests will be skipped"
    fi
    if [[ -n "${!variable:-}" ]]; then
        export "${variable?}"
    fi
}

[[ -n "${ORSEIS_POSTGRES:-}" ]] || STATE_FILE=$(mktemp "${TMPDIR:-/tmp}/orseis-pg-test.XXXXXXXX")
start_server PostgreSQL ORSEIS_POSTGRES pg-start.sh "$STATE_FILE"
# MariaDB: the tests run through MySqlConnector, and a second set through Oracle's MySql.Data.
[[ -n "${ORSEIS_MYSQL:-}" ]] || MARIADB_STATE_FILE=$(mktemp "${TMPDIR:-/tmp}/orseis-mariadb-test.XXXXXXXX")
start_server MariaDB ORSEIS_MYSQL mariadb-start.sh "$MARIADB_STATE_FILE"

# Tools from Debian the tests run for real: nftables for the fault tests (tests/Orseis.IntegrationTests/Faults start a
# MariaDB of their own and make it stop answering by dropping its packets on loopback), hey, the HTTP load
# generator of the cold-start study (tests/Orseis.EndToEndTests/ColdStartStudyTests), and prometheus (with promtool) for
# the fleet view's rule tests and its three-instance scrape (tests/Orseis.EndToEndTests/Fleet*), and valgrind, whose
# callgrind counts the instructions per call of the performance gate (tests/Orseis.InstructionCount.Tests). Installed as
# root when missing.
need_tool() {
    local command=$1 package=$2 why=$3
    if command -v "$command" >/dev/null 2>&1 || [[ -x /usr/sbin/$command ]]; then
        return 0
    fi
    if [[ $EUID -eq 0 ]] && command -v apt-get >/dev/null 2>&1; then
        log "installing Debian's $package for $why"
        # shellcheck source=scripts/apt-install.sh
        . "$SCRIPTS/apt-install.sh"
        apt_install_quietly "$package" || log "WARNING: could not install $package"
    fi
    if [[ "${CI:-}" == "true" ]] && ! command -v "$command" >/dev/null 2>&1 && [[ ! -x /usr/sbin/$command ]]; then
        log "ERROR: $package ($command) is missing and CI requires $why to run"
        exit 1
    fi
}
need_tool nft nftables "the fault tests"
need_tool hey hey "the cold-start study's test"
need_tool promtool prometheus "the fleet view's rule and Prometheus tests"
need_tool valgrind valgrind "the instruction gate (instructions per call under callgrind)"

# ---------------------------------------------------------------------------
# Run the tests. `|| rc=$?` keeps set -e from aborting on test failures so
# we can exit with dotnet's own code (the EXIT trap still cleans up).
# ---------------------------------------------------------------------------
cd "$ROOT"
# SQL Server: its tests run when ORSEIS_SQLSERVER names a server; without it they skip, saying why.
if [[ -n "${ORSEIS_SQLSERVER:-}" ]]; then
    log "SQL Server tests enabled (ORSEIS_SQLSERVER is set)"
else
    log "SQL Server tests will skip: ORSEIS_SQLSERVER is not set (no SQL Server can run on this machine)"
fi

output=$(mktemp "${TMPDIR:-/tmp}/orseis-test-output.XXXXXXXX")
set +e
dotnet test Orseis.sln -c Release "$@" 2>&1 | tee "$output"
rc=${PIPESTATUS[0]}
set -e

# One closing line over every test assembly, in the plain form CI reads:
# "tests: N passed, N failed, N skipped".
sum() { grep -oE "$1: +[0-9]+" "$output" | awk '{s+=$2} END {print s+0}'; }
passed=$(sum Passed)
failed=$(sum Failed)
skipped=$(sum Skipped)
# Where the time went: each test assembly's duration as dotnet test printed it, longest first (they run two or more at
# once, so they add up to more than the elapsed time).
log "test assemblies, longest first:"
grep -oE 'Duration: [0-9][^-]* - [^ ]+\.dll' "$output" | awk '{
    t = 0
    for (i = 2; i < NF - 1; i++) {
        if ($(i + 1) == "h") t += $i * 3600; else if ($(i + 1) == "m") t += $i * 60
        else if ($(i + 1) == "s") t += $i; else if ($(i + 1) == "ms") t += $i / 1000
    }
    printf "%d %dm%02ds %s\n", t, t / 60, t % 60, $NF
}' | sort -rn | while read -r _ took assembly; do log "  $took $assembly"; done
rm -f "$output"
printf '\ntests: %d passed, %d failed, %d skipped\n' "$passed" "$failed" "$skipped"
if [[ "$rc" -eq 0 && "$passed" -eq 0 ]]; then
    log "ERROR: dotnet test succeeded but no test passed"
    rc=1
fi
exit "$rc"
