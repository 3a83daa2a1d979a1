#!/usr/bin/env bash
# GraphQL benchmark: customers(first: 100) over 100,000 customers, the first
# page and a page 90,000 customers deep, against the transport ceiling in the
# same run (a cpp-httplib server answering a body of the page's size).
# Output: bench/results/graphql.txt.
# Usage: [BENCH_BUILD=DIR] bench/graphql.sh [DURATION_SECONDS] (default 8)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
dur=${1:-8}
# BENCH_BUILD=DIR uses an existing build tree (bench/common.sh).
# shellcheck source=bench/common.sh
. "$here/common.sh"
bench_build "livechatd livechatctl bench_ceiling_server"

work=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT
db=$work/gql.db

store=$(ctl store create --name GraphQLBench --plan pro)
shop=$(echo "$store" | json "['id']")
app=$(echo "$store" | json "['appId']")
key=$(ctl key create --store "$shop" --name gql --permissions read_customers | json "['key']")
ctl seed --store "$shop" --conversations 100000 --messages-per-conversation 0 >/dev/null

"$build/hosts/livechatd" --db "$db" --listen 127.0.0.1:18083 --admin-listen 127.0.0.1:0 --access-log off --threads 64 \
  --graphql-bucket 1000000000000 --graphql-refill 1000000000000 2>/dev/null >"$work/d.out" &
pids+=($!)
for _ in $(seq 50); do grep -q listening "$work/d.out" 2>/dev/null && break; sleep 0.1; done

gql() {
  curl -s -X POST -H 'Content-Type: application/json' -H "x-api-id: $app" -H "x-api-secret: $key" \
    --data "$1" http://127.0.0.1:18083/graphql
}
# The ceiling answers a body the size of the measured page (graphql_query.lua's query).
size=$(gql '{"query":"{ customers(first: 100) { totalCount edges { cursor node { id firstName lastName email type channels createdAt } } pageInfo { hasNextPage endCursor } } }"}' | wc -c)
"$build/bench/bench_ceiling_server" 18093 "$size" >"$work/c.out" &
pids+=($!)
for _ in $(seq 50); do grep -q listening "$work/c.out" 2>/dev/null && break; sleep 0.1; done
# Walk 90 pages of 1,000 to a cursor 90,000 customers deep.
after=""
for _ in $(seq 90); do
  if [ -z "$after" ]; then q='{"query":"{ customers(first: 1000) { pageInfo { endCursor } } }"}'
  else q="{\"query\":\"{ customers(first: 1000, after: \\\"$after\\\") { pageInfo { endCursor } } }\"}"; fi
  after=$(gql "$q" | json "['data']['customers']['pageInfo']['endCursor']")
done
deep=$(LC_AFTER=$after; gql "{\"query\":\"{ customers(first: 100, after: \\\"$after\\\") { edges { node { id } } pageInfo { hasNextPage } } }\"}" | json "['data']['customers']['edges'].__len__()")

export LC_APP=$app LC_KEY=$key
out=$here/results/graphql.txt
mkdir -p "$here/results"
{
  echo "machine: $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
  echo "customers: 100000; deep page items: $deep"
  echo "wrk: 1 thread, 16 connections, ${dur}s each"
} >"$out"
run() {
  local name=$1; shift
  echo "== $name" >>"$out"
  wrk -t1 -c16 -d"${dur}s" --latency "$@" >>"$out" 2>&1
}
run "ceiling GET ($size-byte body, the page's size)" http://127.0.0.1:18093/x
for round in 1 2; do
  LC_AFTER="" run "customers(first: 100), first page (round $round)" -s "$here/graphql_query.lua" http://127.0.0.1:18083/graphql
  LC_AFTER="$after" run "customers(first: 100), after 90,000 (round $round)" -s "$here/graphql_query.lua" http://127.0.0.1:18083/graphql
done
cat "$out"
