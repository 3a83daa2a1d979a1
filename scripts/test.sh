#!/usr/bin/env bash
# Install what is missing, build everything with warnings as errors, and run
# the whole suite (unit, storage, REST, webhooks, GraphQL, end-to-end, install,
# graphql-js, fuzzing) with ctest.
#
#   ./scripts/test.sh [extra ctest arguments, e.g. -R e2e]
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/deps.sh
source "$root/scripts/deps.sh"
livechat_install_test_deps

build="$root/build/test"
cmake -S "$root" -B "$build" -DLIVECHAT_WERROR=ON -DLIVECHAT_BUILD_TESTS=ON -DLIVECHAT_BUILD_HOSTS=ON
cmake --build "$build" -j "$(livechat_jobs)"
ctest --test-dir "$build" --output-on-failure -j "$(livechat_jobs)" "$@"
