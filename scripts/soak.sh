#!/usr/bin/env bash
# The soak (issue #20): livechatd for SOAK_SECONDS (default 1800) under mixed
# load (REST, widget sessions and long-polls, GraphQL, MCP, webhooks to a flaky
# local receiver) while it is SIGKILLed and restarted, its database disk fills
# up and its webhook receiver hangs; then every acknowledged write, every
# committed event, resident memory and the exit statuses are checked. Needs
# root (it mounts a size-limited tmpfs for the database). docs/testing.md.
#
#   sudo ./scripts/soak.sh [path/to/livechatd]
#   SOAK_SECONDS=120 ./scripts/soak.sh build/hosts/livechatd
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
LIVECHATD=${1:-${LIVECHATD:-$root/build/hosts/livechatd}}
export LIVECHATD
exec python3 "$root/scripts/soak.py"
