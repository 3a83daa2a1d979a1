#!/usr/bin/env bash
# How many waiting widgets one livechatd holds while the REST API stays
# responsive: p99 of GET /chat/conversations (wrk, 16 connections) with 0,
# 1,000 and 10,000 widgets waiting in long-polls on --storefront-listen, and
# 10,000 on the main listener; livechatd's threads and resident memory with
# each (memory per waiter: the growth over the row without widgets).
# Writes bench/results/storefront.txt; RESULTS.md is written by hand from it.
# Usage: bench/storefront.sh [BUILD_DIR] [DURATION_SECONDS]   (BUILD_DIR default build-bench)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
build=${1:-$root/build-bench}
dur=${2:-10}
command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk; }
if [ ! -x "$build/hosts/livechatd" ]; then
  cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DLIVECHAT_BUILD_TESTS=OFF >/dev/null
  cmake --build "$build" -j2 --target livechatd livechatctl >/dev/null
fi
ulimit -n 20000

work=$(mktemp -d)
pids=()
stop_all() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done; pids=(); }
trap 'stop_all; rm -rf "$work"' EXIT
db=$work/bench.db
ctl() { "$build/hosts/livechatctl" --db "$db" "$@"; }
json() { python3 -c "import json,sys; print(json.load(sys.stdin)$1)"; }

created=$(ctl store create --name Bench --plan pro)
shop=$(echo "$created" | json "['id']")
app=$(echo "$created" | json "['appId']")
key=$(ctl key create --store "$shop" --name bench --permissions read_conversations | json "['key']")
ctl seed --store "$shop" --conversations 10000 --messages-per-conversation 5 >/dev/null
export LC_KEY=$key
out=$here/results/storefront.txt
mkdir -p "$here/results"
{
  echo "machine: $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB, $(uname -srm); build: $build"
  echo "wrk: 1 thread, 16 connections, ${dur}s, GET /chat/conversations?limit=20 (10,000 seeded conversations)"
} >"$out"

# run LABEL WIDGETS APART
run() {
  local label=$1 widgets=$2 apart=$3 args=(--db "$db" --listen 127.0.0.1:18180 --access-log off
                                             --rate-limit-key 1000000000 --rate-limit-ip 1000000000 --threads 64
                                             --storefront-sessions-per-ip 1000000000
                                             --storefront-waiters 11000 --max-connections 11000)
  local wbase=http://127.0.0.1:18180
  if [ "$apart" = yes ]; then
    args+=(--storefront-listen 127.0.0.1:18181)
    wbase=http://127.0.0.1:18181
  fi
  "$build/hosts/livechatd" "${args[@]}" >"$work/d.out" 2>"$work/d.err" &
  pids+=($!)
  for _ in $(seq 100); do grep -q '^listening' "$work/d.out" 2>/dev/null && break; sleep 0.1; done
  if [ "$widgets" -gt 0 ]; then
    node "$here/storefront_widgets.mjs" "$wbase" "$app" "$widgets" >"$work/w.out" 2>&1 &
    pids+=($!)
    for _ in $(seq 1200); do grep -q '^waiting' "$work/w.out" 2>/dev/null && break; sleep 0.1; done
    sleep 2
  fi
  local threads
  threads=$(ls /proc/"${pids[0]}"/task | wc -l)
  local rss
  rss=$(awk '/VmRSS/{print $2}' /proc/"${pids[0]}"/status)
  {
    echo "== $label: widgets=$widgets storefront-listen=$apart; livechatd threads=$threads rss=${rss}kB; $(tail -1 "$work/w.out" 2>/dev/null || echo 'no widgets')"
    wrk -t1 -c16 -d"${dur}s" --latency -s "$here/get_with_key.lua" "http://127.0.0.1:18180/chat/conversations?limit=20" 2>&1 \
      | grep -E 'Requests/sec|Latency|50%|90%|99%|Non-2xx|Socket errors|requests in'
    echo "   widgets during the run: $(tail -1 "$work/w.out" 2>/dev/null || echo none)"
  } >>"$out"
  stop_all
  rm -f "$work/w.out"
}

run "baseline" 0 yes
run "1000 waiting widgets" 1000 yes
run "10000 waiting widgets" 10000 yes
run "10000 waiting widgets on the main listener (no --storefront-listen)" 10000 no
