#!/usr/bin/env bash
# npm test on a loaded machine: starts busy processes (four by default, one spinning loop each, at normal priority) on
# the machine's cores, runs `npm test` three times in a row, stops the load and prints each run's result and duration.
# Exit 0 when every run passed. Arguments go to `npm test` (e.g. a test file); BUSY=n sets the busy processes,
# RUNS=n the runs, BUSY_MAX_S the most seconds the load may last (it stops itself then, whatever happens to this script).
set -u
cd "$(dirname "$0")/.." || exit 2

BUSY=${BUSY:-4}
RUNS=${RUNS:-3}
BUSY_MAX_S=${BUSY_MAX_S:-3600}
pids=()

stop_load() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
  wait "${pids[@]}" 2>/dev/null
  pids=()
}
trap 'stop_load; exit 130' INT TERM
trap 'stop_load' EXIT

for _ in $(seq 1 "$BUSY"); do
  node -e "const end = Date.now() + ${BUSY_MAX_S} * 1000; let x = 0; while (Date.now() < end) x++;" &
  pids+=("$!")
done
echo "busy-test: ${BUSY} busy processes on $(nproc) cores; ${RUNS} runs of npm test $*"

results=()
failed=0
for i in $(seq 1 "$RUNS"); do
  log=$(mktemp -t busy-test-run-XXXXXX.log)
  start=$(date +%s)
  npm test -- "$@" >"$log" 2>&1
  code=$?
  secs=$(( $(date +%s) - start ))
  summary=$(sed 's/\x1b\[[0-9;]*m//g' "$log" | grep -E '^ *(Test Files|Tests) ' | tr -s ' ' | paste -sd ';' -)
  if [ "$code" -ne 0 ]; then
    failed=$((failed + 1))
    results+=("run $i: FAILED (exit $code) in ${secs} s: ${summary} (log: $log)")
    sed 's/\x1b\[[0-9;]*m//g' "$log" | grep -E '(FAIL|×) ' | sort -u | head -20 | sed 's/^/    /'
  else
    results+=("run $i: passed in ${secs} s: ${summary}")
    rm -f "$log"
  fi
  echo "${results[-1]}"
done

stop_load
echo "busy-test: ${BUSY} busy processes, ${RUNS} runs:"
printf '  %s\n' "${results[@]}"
[ "$failed" -eq 0 ]
