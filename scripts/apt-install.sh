# shellcheck shell=bash
#
# apt_install_quietly PACKAGE...: installs Debian packages for the private test
# servers (pg-start.sh, mariadb-start.sh) without letting the packages start
# their system services: the tests only ever use their own throwaway server.
# A temporary /usr/sbin/policy-rc.d answering 101 ("action not allowed") is
# Debian's documented way to keep maintainer scripts from starting services;
# an existing policy-rc.d is left as it is. apt's output goes to stderr (the
# start scripts keep stdout for the connection string). Sourced, not executed.

apt_install_quietly() {
    local policy=/usr/sbin/policy-rc.d ours=false rc=0
    if [[ ! -e $policy ]]; then
        printf '#!/bin/sh\n# written by Orseis scripts/apt-install.sh while installing; removed afterwards\nexit 101\n' >"$policy"
        chmod 755 "$policy"
        ours=true
    fi
    apt-get update >&2 || rc=$?
    if [[ $rc -eq 0 ]]; then
        DEBIAN_FRONTEND=noninteractive apt-get install -y "$@" >&2 || rc=$?
    fi
    if [[ $ours == true ]]; then
        rm -f "$policy"
    fi
    return "$rc"
}
