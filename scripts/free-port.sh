# shellcheck shell=bash
# Sourced by lib/server.sh, for pg-start.sh and mariadb-start.sh: finding a free TCP port on 127.0.0.1 for a private server.

# Succeeds if something already listens on TCP port $1. Prefers `ss` (sees
# listeners on any address); otherwise, or additionally, tries to connect to
# 127.0.0.1:$1 with bash's /dev/tcp (a refused connection means free).
port_in_use() {
    local port=$1
    if command -v ss >/dev/null 2>&1 &&
        [[ -n "$(ss -Hltn "sport = :$port" 2>/dev/null)" ]]; then
        return 0
    fi
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null
}

# Prints a free port. Candidates are 20000-31999, below Linux's ephemeral
# range (32768+) so outgoing connections do not compete for them; the scan
# starts at a random offset so concurrent runs are unlikely to collide (and if
# they do, the start is retried, see below).
find_free_port() {
    local first=20000 span=12000 offset port i
    offset=$((RANDOM % span))
    for ((i = 0; i < span; i++)); do
        port=$((first + (offset + i) % span))
        if ! port_in_use "$port"; then
            printf '%s\n' "$port"
            return 0
        fi
    done
    return 1
}
