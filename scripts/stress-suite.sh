#!/usr/bin/env bash
# The game centre's tests on a busy machine (issue 26): the server tests (tests/test_server_*.py,
# the fast ones: not slow, not browser) run RUNS times, 10 by default, while two busy-loop
# processes keep both cores loaded. Every run must pass; a failing run's output is printed.
#
#   scripts/stress-suite.sh [--runs RUNS]      # .ci/run runs it with --runs 1
set -uo pipefail
cd "$(dirname "$0")/.."

runs=10
while [ $# -gt 0 ]; do
  case "$1" in
    --runs|-n) runs="$2"; shift 2 ;;
    --runs=*) runs="${1#--runs=}"; shift ;;
    *) echo "usage: scripts/stress-suite.sh [--runs RUNS]" >&2; exit 2 ;;
  esac
done
case "$runs" in ''|*[!0-9]*|0) echo "stress-suite: --runs takes a whole number of at least 1" >&2; exit 2 ;; esac

busy=()
stop_busy() { for pid in "${busy[@]}"; do kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; done; }
trap stop_busy EXIT
for _ in 1 2; do
  python3 -c 'while True: pass' &
  busy+=("$!")
done

log=$(mktemp)
good=0
for i in $(seq 1 "$runs"); do
  start=$(date +%s)
  # a run that hangs (a test waiting for a state that never comes) fails after 20 minutes
  if timeout 1200 python3 -m pytest -n 2 -p no:cacheprovider tests/test_server_*.py >"$log" 2>&1; then
    good=$((good + 1))
    echo "stress run $i of $runs: ok: $(grep -E "[0-9]+ passed" "$log" | tail -n 1 | tr -d '=') ($(( $(date +%s) - start )) s)"
  else
    echo "stress run $i of $runs: FAILED after $(( $(date +%s) - start )) s:"
    grep -E "^(FAILED|ERROR)|Error|^E " "$log" | head -n 40
    tail -n 3 "$log"
  fi
done
rm -f "$log"
echo "stress-suite: $good of $runs runs of the server tests passed with both cores busy"
[ "$good" -eq "$runs" ]
