#!/usr/bin/env bash
# The long fuzz runs that docs/testing.md records: each target from its
# committed seeds until 10 million executions or 30 minutes, whichever comes
# first, JOBS targets at a time (default 2, one per core), from the sanitizer
# build (`./scripts/test-sanitizers.sh -L fuzz` builds it). Prints one
# Markdown row per target; a crash, leak or sanitizer report stops with the
# target's log and leaves crash-/leak-<sha1> in OUT.
#   tests/fuzz/long_runs.sh [TARGET...]     (default: every fuzz_* target)
#   FUZZ_BUILD=build/asan RUNS=10000000 SECONDS_MAX=1800 JOBS=2 OUT=/tmp/fuzz-long
set -uo pipefail
cd "$(dirname "$0")/../.."
build=${FUZZ_BUILD:-build/asan}
runs=${RUNS:-10000000}
secs=${SECONDS_MAX:-1800}
jobs=${JOBS:-2}
out=${OUT:-/tmp/fuzz-long}
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for d in tests/fuzz/corpus/*/; do targets+=("$(basename "$d")"); done
fi
mkdir -p "$out"

one() {
  local t=$1 dir="$out/$1"
  rm -rf "$dir" && mkdir -p "$dir/corpus"
  cp tests/fuzz/corpus/"$t"/* "$dir/corpus/"
  local start=$SECONDS
  "$build/tests/$t" -artifact_prefix="$dir/" -max_len=16384 -timeout=10 -rss_limit_mb=2048 \
    -runs="$runs" -max_total_time="$secs" -print_final_stats=1 "$dir/corpus" >"$dir/log" 2>&1
  local rc=$? took=$((SECONDS - start))
  local execs cov corp
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$dir/log")
  cov=$(grep -oE 'cov: [0-9]+' "$dir/log" | tail -1 | cut -d' ' -f2)
  corp=$(find "$dir/corpus" -type f | wc -l)
  if [ $rc -ne 0 ] || grep -qE 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:' "$dir/log"; then
    echo "| \`$t\` | FAILED (exit $rc) after ${took} s: see $dir/log |"
    return 1
  fi
  printf '| `%s` | %d s | %s | %s | %s |\n' "$t" "$took" "$(echo "$execs" | sed ':a;s/\B[0-9]\{3\}\>/,&/;ta')" "$cov" "$corp"
}

echo "| Target | Time | Executions | Coverage (edges) | Corpus at the end |"
echo "|---|---:|---:|---:|---:|"
status=0
running=0
for t in "${targets[@]}"; do
  one "$t" &
  running=$((running + 1))
  if [ $running -ge "$jobs" ]; then
    wait -n || status=1
    running=$((running - 1))
  fi
done
while [ $running -gt 0 ]; do
  wait -n || status=1
  running=$((running - 1))
done
exit $status
