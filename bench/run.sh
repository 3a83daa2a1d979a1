#!/usr/bin/env bash
# Load benchmark of livechatd against the transport's ceiling, on loopback.
# Seeds 100,000 conversations x 10 messages, then runs wrk against each read
# right after a cpp-httplib ceiling server answering a body of the same size
# (bench_ceiling_server, same run): GET /chat/conversations (limit 20; limit
# 100 page 1 and page 1,000), GET /chat/conversations/{id},
# GET /chat/conversations/{id}/messages; then POST .../messages.
# BENCH_BUILD=DIR uses an existing build tree that has livechatd, livechatctl
# and bench_ceiling_server (configured with -DLIVECHAT_BUILD_BENCH=ON).
# Writes the numbers to bench/results/latest.txt; RESULTS.md is written by hand from it.
# Usage: bench/run.sh [DURATION_SECONDS] (default 10)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
dur=${1:-10}
conns=${BENCH_CONNECTIONS:-16}
# shellcheck source=bench/common.sh
. "$here/common.sh"
bench_setup "livechatd livechatctl bench_ceiling_server"
t0=$(date +%s.%N)
ctl seed --store "$shop" --conversations 100000 --messages-per-conversation 10 >/dev/null
t1=$(date +%s.%N)

"$build/hosts/livechatd" --db "$db" --listen 127.0.0.1:18080 --admin-listen 127.0.0.1:0 --rate-limit-key 1000000000 --rate-limit-ip 1000000000 --access-log off --threads 64 \
  2>/dev/null >"$work/d.out" &
pids+=($!)
for _ in $(seq 50); do grep -q listening "$work/d.out" 2>/dev/null && break; sleep 0.1; done

base=http://127.0.0.1:18080
page1=$(curl -s -H "X-Api-Key: $key" "$base/chat/conversations?limit=100")
conv=$(echo "$page1" | json "['data'][0]['id']")
# Walk to page 1,000 (limit 100) to get its cursor.
cursor=$(echo "$page1" | json "['paging']['nextCursor']")
for _ in $(seq 2 999); do
  cursor=$(curl -s -H "X-Api-Key: $key" "$base/chat/conversations?limit=100&cursor=$cursor" | json "['paging']['nextCursor']")
done
p1000_items=$(curl -s -H "X-Api-Key: $key" "$base/chat/conversations?limit=100&cursor=$cursor" | json "['data'].__len__()")

export LC_KEY=$key LC_MEMBER=$member
out=$here/results/latest.txt
mkdir -p "$here/results"
{
  echo "machine: $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB, $(uname -srm)"
  echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
  echo "seed: 100000 conversations x 10 messages in $(python3 -c "print(round($t1-$t0,1))") s"
  echo "db size: $(du -h "$db" | cut -f1)"
  echo "page 1000 items: $p1000_items"
  echo "wrk: 1 thread, $conns connections, ${dur}s each"
} >"$out"
run() {
  local name=$1; shift
  echo "== $name" >>"$out"
  wrk -t1 -c"$conns" -d"${dur}s" --latency "$@" >>"$out" 2>&1
}
# A read: its body size, the ceiling for that size, then livechatd.
read_row() {
  local name=$1 url=$2
  local size
  size=$(curl -s -H "X-Api-Key: $key" "$url" | wc -c)
  "$build/bench/bench_ceiling_server" 18090 "$size" >"$work/c.out" &
  local cpid=$!
  for _ in $(seq 50); do grep -q listening "$work/c.out" 2>/dev/null && break; sleep 0.1; done
  run "ceiling for $name ($size bytes)" http://127.0.0.1:18090/x
  kill "$cpid"; wait "$cpid" 2>/dev/null || true
  run "$name ($size bytes)" -s "$here/get_with_key.lua" "$url"
}
read_row "GET /chat/conversations?limit=20 (page 1)" "$base/chat/conversations?limit=20"
# Page 1 and page 1,000 alternate, so both see the same machine conditions.
for round in 1 2; do
  read_row "GET /chat/conversations?limit=100 (page 1, round $round)" "$base/chat/conversations?limit=100"
  read_row "GET /chat/conversations?limit=100 (page 1000, round $round)" "$base/chat/conversations?limit=100&cursor=$cursor"
done
read_row "GET /chat/conversations/{id}" "$base/chat/conversations/$conv"
read_row "GET /chat/conversations/{id}/messages" "$base/chat/conversations/$conv/messages"
run "POST /chat/conversations/{id}/messages" -s "$here/post_message.lua" "$base/chat/conversations/$conv/messages"
cat "$out"
