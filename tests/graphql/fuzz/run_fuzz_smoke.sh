#!/usr/bin/env bash
# Builds the GraphQL parser fuzz target with clang (libFuzzer + ASan + UBSan)
# when clang is present, replays the committed corpus, then fuzzes for a
# bounded time on a scratch copy of it. Exit 77 (ctest: skipped) when clang or
# its fuzzer runtime is missing. It links the engine (lib/graphql) and the
# base layer alone, so an engine that reached into core, http or storage
# would fail this build: the engine's layering, checked at link time.
#   run_fuzz_smoke.sh SOURCE_DIR BINARY_DIR [SECONDS]
set -eo pipefail
src=$1
bin=$2
secs=${3:-15}
clangxx=$(command -v clang++ || true)
if [ -z "$clangxx" ]; then
  echo "clang++ not found: fuzz target skipped"
  exit 77
fi
out="$bin/fuzz"
mkdir -p "$out"
if ! "$clangxx" -std=c++20 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
    -fsanitize-ignorelist="$src/tests/sanitizers/ubsan_ignorelist.txt" \
    -DRAPIDJSON_HAS_STDSTRING=1 -I"$src/include" -I"$src/lib" -I"$src/tests" \
    "$src/tests/graphql/fuzz/graphql_fuzzer.cc" "$src"/lib/graphql/*.cc "$src"/lib/base/*.cc \
    -o "$out/graphql_fuzzer" 2>"$out/build.log"; then
  if grep -q "fuzzer" "$out/build.log" && grep -qi "cannot find\|no such file" "$out/build.log"; then
    echo "clang's libFuzzer runtime is missing (libclang-rt-*-dev): fuzz target skipped"
    exit 77
  fi
  cat "$out/build.log"
  exit 1
fi
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cp -r "$src/tests/graphql/fuzz/corpus/." "$scratch/"
# Every committed input must pass (no crash, no sanitizer report)...
"$out/graphql_fuzzer" -artifact_prefix="$out/" -runs=0 "$scratch" 2>&1 | tail -3
# ...and a bounded fuzzing run must find nothing new.
"$out/graphql_fuzzer" -artifact_prefix="$out/" -max_len=4096 -max_total_time="$secs" -print_final_stats=1 "$scratch" 2>&1 | tail -12
