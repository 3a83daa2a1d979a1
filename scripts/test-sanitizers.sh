#!/usr/bin/env bash
# The whole ctest suite again, built by clang under AddressSanitizer and
# UndefinedBehaviorSanitizer: the unit, storage, REST, webhooks, GraphQL, MCP
# and storefront suites on SQLite and on PostgreSQL, the end-to-end tests with
# their real livechatd processes, and the node and Chromium tests against that
# instrumented livechatd. `.ci/run` runs it after ./scripts/test.sh.
#
#   ./scripts/test-sanitizers.sh [extra ctest arguments, e.g. -R e2e]
#
# Every process (tests and the livechatd/livechatctl they start) writes its
# reports to files under build/asan/sanitizer-reports; a report anywhere fails
# the run even when the process that made it was a child whose exit status no
# test reads. Suppressions, each with its reason: tests/sanitizers/.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/deps.sh
source "$root/scripts/deps.sh"
livechat_install_test_deps

build="$root/build/asan"
# fuzzer-no-link: the same tree also builds the libFuzzer targets (tests/fuzz).
# Line tables are all a report's stack needs (function, file, line, inlined
# frames); full debug information made a file take 14 % longer under ASan
# and 29 % under TSan (one doctest file, -O1). The
# Debug build type's own -g would come after these flags and win, so it is
# emptied (asserts stay on: NDEBUG is not defined). The tests' own files are
# built at -O0 (LIVECHAT_TEST_CODE_FLAGS, tests/CMakeLists.txt).
flags="-O1 -gline-tables-only -fno-omit-frame-pointer -fsanitize=address,undefined,fuzzer-no-link -fno-sanitize-recover=undefined"
flags+=" -fsanitize-ignorelist=$root/tests/sanitizers/ubsan_ignorelist.txt"
CC=clang CXX=clang++ cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Debug \
  -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_CXX_FLAGS_DEBUG="" \
  -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" \
  -DLIVECHAT_BUILD_TESTS=ON -DLIVECHAT_BUILD_HOSTS=ON -DLIVECHAT_FUZZ=ON
cmake --build "$build" -j "$(livechat_jobs)"

reports="$build/sanitizer-reports"
rm -rf "$reports"
mkdir -p "$reports"
supp="$root/tests/sanitizers"
export ASAN_OPTIONS="log_path=$reports/asan:detect_leaks=1:abort_on_error=0:strict_string_checks=1:detect_stack_use_after_return=1:check_initialization_order=1"
export UBSAN_OPTIONS="log_path=$reports/ubsan:print_stacktrace=1:halt_on_error=1"
# Timing bounds meant for the optimized build are relaxed under sanitizers
# (tests/e2e/slow_clients_e2e_test.cc says which and why).
export LIVECHAT_TEST_SANITIZED=1

status=0
# The install test builds an embedder against the installed package with the
# system compiler (no sanitizer runtime), and the GraphQL fuzz target is
# already built with ASan and UBSan by its own script: both run in test.sh.
# inbox_big_store measures the inbox's first screen against a time limit, which
# means nothing on a sanitized server; test.sh runs it (the inbox's functional
# browser test, inbox_browser, runs here against the sanitized livechatd).
# The soak bounds resident memory, which ASan's quarantine (up to 256 MiB of
# freed blocks held back) makes grow by design; test.sh runs it.
pg_virtualenv -t -o fsync=off -o max_connections=400 \
  ctest --test-dir "$build" --output-on-failure -j "$(livechat_jobs)" -E '^(install|graphql_fuzz|inbox_big_store|soak)$' "$@" || status=$?

# ThreadSanitizer over the suites whose tests run threads against each other:
# store transactions and the multi-instance PostgreSQL concurrency tests
# (storage), the rate limiter, summary worker and service (core), the
# dispatcher (webhooks) and the storefront's waiting polls (storefront), on
# both backends. Only their binaries are built in this tree.
tsan="$root/build/tsan"
tflags="-O1 -gline-tables-only -fno-omit-frame-pointer -fsanitize=thread"
CC=clang CXX=clang++ cmake -S "$root" -B "$tsan" -DCMAKE_BUILD_TYPE=Debug \
  -DCMAKE_CXX_FLAGS="$tflags" -DCMAKE_CXX_FLAGS_DEBUG="" -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=thread" \
  -DLIVECHAT_BUILD_TESTS=ON -DLIVECHAT_BUILD_HOSTS=ON
cmake --build "$tsan" -j "$(livechat_jobs)" --target test_storage test_core test_webhooks test_storefront
export TSAN_OPTIONS="log_path=$reports/tsan:second_deadlock_stack=1:halt_on_error=0:suppressions=$supp/tsan.supp"
pg_virtualenv -t -o fsync=off -o max_connections=400 \
  ctest --test-dir "$tsan" --output-on-failure -j "$(livechat_jobs)" \
  -R '^(storage|core|webhooks|storefront|core_pg|webhooks_pg|storefront_pg)$' || status=$?

# ThreadSanitizer over livechatd itself (its HTTP listeners' I/O and worker
# threads, the dispatcher and the workers in one process): the transport's
# end-to-end cases (thousands of trickling connections, refusals,
# pipelining, deadlines, shutdown). The multi-instance PostgreSQL case is too
# slow under ThreadSanitizer to deliver 8,000 webhooks in its time limit on
# this machine; docs/testing.md gives the command to run it by hand. These
# cases only drive livechatd processes, so the ASan tree's test_e2e drives
# this tree's hosts (LIVECHAT_TEST_HOSTS_DIR) and test_e2e is not built twice.
cmake --build "$tsan" -j "$(livechat_jobs)" --target livechatd livechatctl
LIVECHAT_TEST_HOSTS_DIR="$tsan/hosts" "$build/tests/test_e2e" -tc='transport*,slow clients*,--*' || status=$?

# Reports from any process, including children no test waited for.
shopt -s nullglob
found=("$reports"/*)
if [ ${#found[@]} -gt 0 ]; then
  echo "sanitizer reports (${#found[@]} files):" >&2
  for f in "${found[@]}"; do
    echo "== $f" >&2
    head -60 "$f" >&2
  done
  status=1
fi
exit "$status"
