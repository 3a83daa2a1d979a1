#!/usr/bin/env bash
# Message sends against SQLite's own commit rate, in the same run (issue 17,
# item 2). Seeds 10,000 conversations x 10 messages, then for 1, 16 and 64
# concurrent senders: the ceiling first (bench_sqlite_commit: one-row
# BEGIN IMMEDIATE / INSERT / COMMIT on a WAL file beside the store's, same
# pragmas), then wrk POSTing agent replies round robin over 64 conversations.
# Afterwards livechatd's /metrics tells how many sends each transaction carried.
# BENCH_BUILD=DIR uses an existing build tree with livechatd, livechatctl and
# bench_sqlite_commit (configured with -DLIVECHAT_BUILD_BENCH=ON).
# Writes bench/results/writes-latest.txt; RESULTS.md is written by hand from it.
# Usage: bench/writes.sh [DURATION_SECONDS] (default 8)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
dur=${1:-8}
# shellcheck source=bench/common.sh
. "$here/common.sh"
bench_setup "livechatd livechatctl bench_sqlite_commit"
ctl seed --store "$shop" --conversations 10000 --messages-per-conversation 10 >/dev/null

"$build/hosts/livechatd" --db "$db" --listen 127.0.0.1:18080 --admin-listen 127.0.0.1:18081 --rate-limit-key 1000000000 \
  --rate-limit-ip 1000000000 --max-connections-per-address 0 --access-log off --threads 80 2>/dev/null >"$work/d.out" &
pids+=($!)
for _ in $(seq 50); do grep -q listening "$work/d.out" 2>/dev/null && break; sleep 0.1; done
base=http://127.0.0.1:18080
convs=$(curl -s -H "X-Api-Key: $key" "$base/chat/conversations?limit=64" |
  python3 -c "import json,sys; print(','.join(c['id'] for c in json.load(sys.stdin)['data']))")
export LC_KEY=$key LC_MEMBER=$member LC_CONVS=$convs

metric() { curl -s http://127.0.0.1:18081/metrics | awk -v n="$1" '$1 == n { print $2 }'; }
out=$here/results/writes-latest.txt
mkdir -p "$here/results"
{
  echo "machine: $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB, $(uname -srm)"
  echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
  echo "sqlite: $(python3 -c 'import sqlite3; print(sqlite3.sqlite_version)') (python's; livechat links Debian's libsqlite3)"
  echo "store: 10000 conversations x 10 messages; sends round robin over 64 conversations; ${dur}s per row"
} >"$out"
for c in 1 16 64; do
  echo "== ceiling: SQLite one-row commits, 1 connection (before $c senders)" >>"$out"
  "$build/bench/bench_sqlite_commit" "$work/ceiling.db" "$dur" >>"$out"
  w0=$(metric livechat_store_writes_total); t0=$(metric livechat_store_write_transactions_total)
  echo "== POST /chat/conversations/{id}/messages, $c senders" >>"$out"
  wrk -t1 -c"$c" -d"${dur}s" --latency -s "$here/post_spread.lua" "$base" >>"$out" 2>&1
  w1=$(metric livechat_store_writes_total); t1=$(metric livechat_store_write_transactions_total)
  echo "store writes $((w1 - w0)) in $((t1 - t0)) transactions" >>"$out"
done
cat "$out"
