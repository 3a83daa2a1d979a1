#!/usr/bin/env bash
# One fuzz target in ctest: every committed input of its corpus must pass
# (no crash, no sanitizer report), then a bounded run on a scratch copy of
# the corpus must find nothing new. A crash leaves its input in the build
# directory (crash-<sha1>), to be fixed and added to the corpus.
#   run_fuzz.sh TARGET CORPUS_DIR SECONDS
set -eo pipefail
target=$1
corpus=$2
secs=${3:-10}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cp -r "$corpus/." "$scratch/"
opts=(-artifact_prefix="$(dirname "$target")/" -max_len=16384 -timeout=10 -rss_limit_mb=2048)
"$target" "${opts[@]}" -runs=0 "$scratch" 2>&1 | tail -3
"$target" "${opts[@]}" -max_total_time="$secs" -print_final_stats=1 "$scratch" 2>&1 | tail -8
