#!/usr/bin/env bash
# Install what is missing, build everything with warnings as errors, and run
# the whole suite (unit, storage, REST, webhooks, GraphQL, end-to-end, install,
# graphql-js, fuzzing) with ctest, on SQLite and on a throwaway PostgreSQL
# server.
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
# The PostgreSQL tests (the storage conformance suite on PostgreSQL, the *_pg
# suites, the multi-instance tests) need a server: pg_virtualenv (from
# postgresql-common) creates a throwaway cluster in a temporary directory on
# a free port, runs the command with PGHOST, PGPORT, PGUSER and PGPASSWORD
# pointing at it, and removes the cluster afterwards. It runs the server as
# the postgres user, so it works as root. fsync is off: the cluster is thrown
# away, and durability under kill -9 is tested on SQLite files.
pg_virtualenv -t -o fsync=off -o max_connections=400 \
  ctest --test-dir "$build" --output-on-failure -j "$(livechat_jobs)" "$@"
