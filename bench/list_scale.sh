#!/usr/bin/env bash
# Does the conversation list cost more as the store grows? GET
# /chat/conversations?limit=20 on a store of 10,000 conversations and on one
# of 1,000,000 (one message each), page 1 of both and page 10,000 of the big
# one (its cursor found by walking the pages), each right after a
# cpp-httplib ceiling server answering a body of the same size (same run).
# Seeding the big store takes a while (about a minute per 100,000
# conversations on 2 cores): BENCH_SCALE_DIR=DIR keeps the two SQLite files
# there and reuses them on the next run; BENCH_SEED_ONLY=1 seeds and stops.
# BENCH_BUILD=DIR uses an existing build tree with livechatd, livechatctl and
# bench_ceiling_server (-DLIVECHAT_BUILD_BENCH=ON).
# Writes bench/results/list_scale.txt; RESULTS.md is written by hand from it.
# Usage: bench/list_scale.sh [DURATION_SECONDS] (default 10)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
dur=${1:-10}
# BENCH_BUILD=DIR uses an existing build tree (bench/common.sh).
# shellcheck source=bench/common.sh
. "$here/common.sh"
bench_build "livechatd livechatctl bench_ceiling_server"
work=$(mktemp -d)
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"' EXIT
dir=${BENCH_SCALE_DIR:-$work}
mkdir -p "$dir"

# seed NAME CONVERSATIONS: a SQLite file with one store of CONVERSATIONS
# conversations and a read key (kept in NAME.key), unless it is there.
seed() {
  local name=$1 n=$2 db=$dir/$1.db
  if [ -f "$dir/$name.key" ] && [ -f "$db" ]; then return; fi
  rm -f "$db" "$db-wal" "$db-shm" "$dir/$name.key"
  local ctl=("$build/hosts/livechatctl" --db "$db")
  local shop
  shop=$("${ctl[@]}" store create --name "Scale $n" --plan pro | json "['id']")
  local t0 t1
  t0=$(date +%s.%N)
  "${ctl[@]}" seed --store "$shop" --conversations "$n" --messages-per-conversation 1 >/dev/null
  t1=$(date +%s.%N)
  "${ctl[@]}" key create --store "$shop" --name bench --permissions read_conversations | json "['key']" >"$dir/$name.key"
  echo "$name: $n conversations seeded in $(python3 -c "print(round($t1-$t0,1))") s, $(du -h "$db" | cut -f1)" >"$dir/$name.seeded"
}
seed small 10000
seed big 1000000
if [ -n "${BENCH_SEED_ONLY:-}" ]; then cat "$dir"/*.seeded; exit 0; fi

out=$here/results/list_scale.txt
mkdir -p "$here/results"
{
  echo "machine: $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB, $(uname -srm)"
  echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
  cat "$dir"/*.seeded
  echo "wrk: 1 thread, 16 connections, ${dur}s each"
} >"$out"

# serve NAME: livechatd on the store; sets base and key.
serve() {
  "$build/hosts/livechatd" --db "$dir/$1.db" --listen 127.0.0.1:18080 --rate-limit-key 1000000000 \
    --rate-limit-ip 1000000000 --access-log off --threads 64 2>/dev/null >"$work/d.out" &
  daemon=$!
  pids+=("$daemon")
  for _ in $(seq 100); do grep -q listening "$work/d.out" 2>/dev/null && break; sleep 0.1; done
  base=http://127.0.0.1:18080
  key=$(cat "$dir/$1.key")
  export LC_KEY=$key
}
unserve() { kill "$daemon"; wait "$daemon" 2>/dev/null || true; rm -f "$work/d.out"; }

# read_row NAME URL: the ceiling for the body's size, then livechatd.
read_row() {
  local name=$1 url=$2 size
  size=$(curl -s -H "X-Api-Key: $key" "$url" | wc -c)
  "$build/bench/bench_ceiling_server" 18090 "$size" >"$work/c.out" &
  local cpid=$!
  for _ in $(seq 50); do grep -q listening "$work/c.out" 2>/dev/null && break; sleep 0.1; done
  { echo "== ceiling for $name ($size bytes)"; wrk -t1 -c16 -d"${dur}s" --latency http://127.0.0.1:18090/x; } >>"$out" 2>&1
  kill "$cpid"; wait "$cpid" 2>/dev/null || true
  { echo "== $name ($size bytes)"; wrk -t1 -c16 -d"${dur}s" --latency -s "$here/get_with_key.lua" "$url"; } >>"$out" 2>&1
}

serve big
# The cursor of page 10,000: 9,999 requests on one kept-alive connection.
cursor=$(python3 - "$key" <<'EOF'
import http.client, json, sys
c = http.client.HTTPConnection("127.0.0.1", 18080)
cursor = None
for _ in range(9999):
    c.request("GET", "/chat/conversations?limit=20" + (f"&cursor={cursor}" if cursor else ""), headers={"X-Api-Key": sys.argv[1]})
    cursor = json.loads(c.getresponse().read())["paging"]["nextCursor"]
print(cursor)
EOF
)
echo "page 10000 items: $(curl -s -H "X-Api-Key: $key" "$base/chat/conversations?limit=20&cursor=$cursor" | json "['data'].__len__()")" >>"$out"
# Page 1 and page 10,000 alternate, so both see the same machine conditions.
for round in 1 2; do
  read_row "1,000,000 conversations: GET /chat/conversations?limit=20 (page 1, round $round)" "$base/chat/conversations?limit=20"
  read_row "1,000,000 conversations: GET /chat/conversations?limit=20 (page 10000, round $round)" "$base/chat/conversations?limit=20&cursor=$cursor"
done
unserve
serve small
for round in 1 2; do
  read_row "10,000 conversations: GET /chat/conversations?limit=20 (page 1, round $round)" "$base/chat/conversations?limit=20"
done
unserve
cat "$out"
