#!/usr/bin/env bash
#
# Mutation testing of src/Orseis against the unit tests (tests/Orseis.Tests), with
# Stryker.NET (the local tool in .config/dotnet-tools.json). Not part of CI: a full
# run takes tens of minutes on two cores. See docs/mutation-testing.md.
#
#   ./scripts/mutation.sh [extra dotnet-stryker args]
#   ./scripts/mutation.sh --mutate "**/Mapping/ValueConverter.cs"     # one file while iterating
#   ./scripts/mutation.sh --mutate "**/Execution/**/*.cs"              # one folder
#   ./scripts/mutation.sh --summary <report dir>                       # table of an earlier run
#
# The settings are in tests/Orseis.Tests/stryker-config.json (Mapping/ and Execution/,
# Release build, one test session at a time, json + html + cleartext + progress
# reporters). Stryker runs under `nice -n 19` so it yields to anything else on the
# machine. Reports go to $ORSEIS_MUTATION_OUT (default /tmp/orseis-mutation/<time>),
# outside the repository; the per-file table is printed at the end, the layout of
# the table in docs/mutation-testing.md.
#
# A mutant's score counts killed and timed-out mutants over all tested ones
# (killed + timeout + survived + no coverage); compile errors and ignored mutants
# are left out, as Stryker does.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

summary() {
  local report="$1/reports/mutation-report.json"
  [[ -f "$report" ]] || { echo "no report at $report" >&2; return 1; }
  echo
  echo "| File | Mutants | Killed | Timeout | Survived | No coverage | Score |"
  echo "|---|---:|---:|---:|---:|---:|---:|"
  jq -r --arg root "$root/src/Orseis/" '
    def row($name; $m):
      ($m | map(select(.status == "Killed")) | length) as $k
      | ($m | map(select(.status == "Timeout")) | length) as $t
      | ($m | map(select(.status == "Survived")) | length) as $s
      | ($m | map(select(.status == "NoCoverage")) | length) as $n
      | ($k + $t + $s + $n) as $all
      | select($all > 0)
      | "| \($name) | \($all) | \($k) | \($t) | \($s) | \($n) | \(if $all == 0 then "-" else ((($k + $t) * 1000 / $all | round) / 10 | tostring) + " %" end) |";
    (.files | to_entries | sort_by(.key)
      | map(row(.key | ltrimstr($root); .value.mutants)) | .[]),
    row("**All**"; [.files[].mutants[]])
  ' "$report"
}

if [[ "${1:-}" == "--summary" ]]; then
  summary "${2:?usage: $0 --summary <report dir>}"
  exit 0
fi

out="${ORSEIS_MUTATION_OUT:-/tmp/orseis-mutation/$(date +%Y%m%d-%H%M%S)}"
mkdir -p "$out"
cd "$root"
dotnet tool restore >/dev/null
cd "$root/tests/Orseis.Tests"
nice -n 19 dotnet tool run dotnet-stryker --output "$out" "$@"
summary "$out"
echo
echo "HTML report: $out/reports/mutation-report.html"
