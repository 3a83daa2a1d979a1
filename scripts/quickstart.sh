#!/usr/bin/env bash
# Quick start: install what is missing, build Release, and run livechatd with
# a demo store on an embedded SQLite file. Prints a working API key and a curl
# line, then serves until Ctrl-C.
#
#   ./scripts/quickstart.sh [extra livechatd flags]
#
# LIVECHAT_DB (default .livechat/livechat.db) and LIVECHAT_LISTEN (default
# 127.0.0.1:8080) are read by livechatd itself; see docs/operations.md.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/deps.sh
source "$root/scripts/deps.sh"
livechat_install_deps

build="$root/build/release"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DLIVECHAT_BUILD_TESTS=OFF
cmake --build "$build" --target livechatd livechatctl -j "$(livechat_jobs)"

mkdir -p "$root/.livechat"
export LIVECHAT_DB="${LIVECHAT_DB:-$root/.livechat/livechat.db}"
echo "database: $LIVECHAT_DB (livechatctl: $build/hosts/livechatctl --db $LIVECHAT_DB --help)"
exec "$build/hosts/livechatd" --demo "$@"
