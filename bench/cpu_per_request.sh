#!/usr/bin/env bash
# CPU per request of two (or more) livechatd builds, for an A/B of a change:
# livechatd's utime + stime (/proc/PID/stat) over the requests wrk completed
# in 4 s (1 thread, 16 connections, after 1 s of warm-up), on a store of
# 10,000 conversations x 10 messages. The builds alternate in the order given,
# ROUNDS times (default 2): compare within a round. Steadier than req/s on a
# machine whose speed drifts, but still run it on a quiet machine.
# WHAT (default "detail messages") picks the requests, any of:
#   detail    GET /chat/conversations/{id}
#   messages  GET /chat/conversations/{id}/messages
#   list20    GET /chat/conversations?limit=20
#   list100   GET /chat/conversations?limit=100
#   send16    POST .../messages, 16 connections round robin over 64 conversations
#   send64    the same with 64 connections
#   graphql   POST /graphql, customers(first: 100) first page (graphql_query.lua)
#             over the seed's 10,000 customers (GraphQL buckets off)
# The per-address connection cap is off: wrk's 64 connections reopen right
# after the warm-up's close, before the server has seen every close.
# Sends write: each build's run starts from a copy of the seeded store, so
# every build writes into the same state.
# The store is seeded once into BENCH_AB_DIR (default /tmp/livechat-ab).
# Usage: [WHAT="list20 send64"] bench/cpu_per_request.sh LIVECHATCTL LABEL=LIVECHATD [LABEL=LIVECHATD ...]
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
  store=$("$ctl" --db "$db" store create --name Bench --plan pro)
  shop=$(echo "$store" | json "['id']")
  echo "$store" | json "['appId']" >"$work/app"
  "$ctl" --db "$db" key create --store "$shop" --name bench --permissions read_conversations,manage_conversations,read_customers | json "['key']" >"$work/key.tmp"
  "$ctl" --db "$db" member create --store "$shop" --email agent@bench.test --first-name Bench --last-name Agent --role member >/dev/null
  "$ctl" --db "$db" seed --store "$shop" --conversations 10000 --messages-per-conversation 10 >/dev/null
  mv "$work/key.tmp" "$work/key"
fi
export LC_KEY=$(cat "$work/key")
export LC_APP=$(cat "$work/app")
port=18281
tck=$(getconf CLK_TCK)
cpu() { awk '{print $14+$15}' /proc/$1/stat; }
one() {
  local label=$1 bin=$2
  # A copy per run, so a build's sends never change what the next one reads.
  # The WAL goes with it if the seed left one: the file alone may miss rows.
  rm -f "$work/run.db-wal" "$work/run.db-shm"
  cp "$db" "$work/run.db"
  if [ -f "$db-wal" ]; then cp "$db-wal" "$work/run.db-wal"; fi
  "$bin" --db "$work/run.db" --listen 127.0.0.1:$port --admin-listen 127.0.0.1:0 --rate-limit-key 1000000000 --rate-limit-ip 1000000000 \
    --access-log off --threads 64 --max-connections-per-address 0 \
    --graphql-bucket 1000000000000 --graphql-refill 1000000000000 >"$work/d.out" 2>"$work/d.err" &
  local pid=$!
  for _ in $(seq 400); do grep -q listening "$work/d.out" 2>/dev/null && break; sleep 0.1; done
  local base=http://127.0.0.1:$port
  local convs
  convs=
  for _ in $(seq 100); do
    convs=$(curl -s -H "X-Api-Key: $LC_KEY" "$base/chat/conversations?limit=64" |
      python3 -c "import json,sys; print(','.join(c['id'] for c in json.load(sys.stdin)['data']))" 2>/dev/null) && break
    sleep 0.2
  done
  [ -n "$convs" ] || { echo "no answer from $label" >&2; kill $pid; exit 1; }
  export LC_CONVS=$convs
  export LC_MEMBER
  LC_MEMBER=$(curl -s -H "X-Api-Key: $LC_KEY" "$base/chat/members" | json "['data'][0]['id']")
  local conv=${convs%%,*}
  for what in ${WHAT:-detail messages}; do
    local url script=$lua conns=16
    case $what in
      detail) url=$base/chat/conversations/$conv ;;
      messages) url=$base/chat/conversations/$conv/messages ;;
      list20) url="$base/chat/conversations?limit=20" ;;
      list100) url="$base/chat/conversations?limit=100" ;;
      send16|send64) url=$base script=$here/post_spread.lua conns=${what#send} ;;
      graphql) url=$base/graphql script=$here/graphql_query.lua ;;
      *) echo "unknown request kind: $what (detail, messages, list20, list100, send16, send64, graphql)" >&2; kill $pid; exit 2 ;;
    esac
    wrk -t1 -c"$conns" -d1s -s "$script" "$url" >/dev/null
    local c0 c1 n
    c0=$(cpu $pid)
    local out
    # SHOW_REFUSED=1: the sends print the first refused requests (a response
    # hook, which costs wrk time: off unless asked for).
    out=$(LC_SHOW_REFUSED=${SHOW_REFUSED:-} wrk -t1 -c"$conns" -d4s -s "$script" "$url" 2>&1)
    c1=$(cpu $pid)
    n=$(awk '/requests in/{print $1}' <<<"$out")
    # A refused request costs less than a served one: a run with any is void.
    if grep -q "Non-2xx" <<<"$out"; then echo "$label $what: $(grep -E 'Non-2xx|^refused' <<<"$out") (SHOW_REFUSED=1 shows why)" >&2; kill $pid; exit 1; fi
    python3 -c "print('%-6s %-8s requests %7d (%6d/s)  cpu %5.2f s  %6.1f us/request' % ('$label','$what',$n,$n/4,($c1-$c0)/$tck,($c1-$c0)/$tck*1e6/$n))"
  done
  kill $pid; wait $pid 2>/dev/null || true
}
for round in $(seq ${ROUNDS:-2}); do
  for pair in "$@"; do one "${pair%%=*}" "${pair#*=}"; done
done
