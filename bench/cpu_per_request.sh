#!/usr/bin/env bash
# CPU per request of two (or more) livechatd builds, for an A/B of a change:
# livechatd's utime + stime (/proc/PID/stat) over the requests wrk completed
# in 4 s (1 thread, 16 connections, after 1 s of warm-up), for
# GET /chat/conversations/{id} and its /messages, on a store of 10,000
# conversations x 10 messages. The builds alternate in the order given,
# ROUNDS times (default 2): compare within a round. Steadier than req/s on a
# machine whose speed drifts, but still run it on a quiet machine.
# The store is seeded once into BENCH_AB_DIR (default /tmp/livechat-ab).
# Usage: bench/cpu_per_request.sh LIVECHATCTL LABEL=LIVECHATD [LABEL=LIVECHATD ...]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
ctl=$1; shift
work=${BENCH_AB_DIR:-/tmp/livechat-ab}
mkdir -p "$work"
db=$work/bench.db
lua=$here/get_with_key.lua
json() { python3 -c "import json,sys; print(json.load(sys.stdin)$1)"; }
if [ ! -f "$work/key" ]; then
  rm -f "$db"*
  shop=$("$ctl" --db "$db" store create --name Bench --plan pro | json "['id']")
  "$ctl" --db "$db" key create --store "$shop" --name bench --permissions read_conversations,manage_conversations | json "['key']" >"$work/key.tmp"
  "$ctl" --db "$db" member create --store "$shop" --email agent@bench.test --first-name Bench --last-name Agent --role member >/dev/null
  "$ctl" --db "$db" seed --store "$shop" --conversations 10000 --messages-per-conversation 10 >/dev/null
  mv "$work/key.tmp" "$work/key"
fi
export LC_KEY=$(cat "$work/key")
port=18281
tck=$(getconf CLK_TCK)
cpu() { awk '{print $14+$15}' /proc/$1/stat; }
one() {
  local label=$1 bin=$2
  "$bin" --db "$db" --listen 127.0.0.1:$port --admin-listen 127.0.0.1:0 --rate-limit-key 1000000000 --rate-limit-ip 1000000000 \
    --access-log off --threads 64 >"$work/d.out" 2>"$work/d.err" &
  local pid=$!
  for _ in $(seq 400); do grep -q listening "$work/d.out" 2>/dev/null && break; sleep 0.1; done
  local base=http://127.0.0.1:$port
  local conv
  conv=
  for _ in $(seq 100); do
    conv=$(curl -s -H "X-Api-Key: $LC_KEY" "$base/chat/conversations?limit=1" | json "['data'][0]['id']" 2>/dev/null) && break
    sleep 0.2
  done
  [ -n "$conv" ] || { echo "no answer from $label" >&2; kill $pid; exit 1; }
  for what in detail messages; do
    local url=$base/chat/conversations/$conv
    [ $what = messages ] && url=$url/messages
    wrk -t1 -c16 -d1s -s "$lua" "$url" >/dev/null
    local c0 c1 n
    c0=$(cpu $pid)
    n=$(wrk -t1 -c16 -d4s -s "$lua" "$url" | awk '/requests in/{print $1}')
    c1=$(cpu $pid)
    python3 -c "print('%-4s %-8s requests %7d  cpu %5.2f s  %6.1f us/request' % ('$label','$what',$n,($c1-$c0)/$tck,($c1-$c0)/$tck*1e6/$n))"
  done
  kill $pid; wait $pid 2>/dev/null || true
}
for round in $(seq ${ROUNDS:-2}); do
  for pair in "$@"; do one "${pair%%=*}" "${pair#*=}"; done
done
