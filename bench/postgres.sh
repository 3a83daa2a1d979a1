#!/usr/bin/env bash
# livechatd on PostgreSQL, with 1 and with 3 instances on one database,
# beside the ceilings measured in the same run: pgbench's one-row insert
# transaction on the same server (writes) and a cpp-httplib server answering
# a body of the same size (reads). Starts its own throwaway PostgreSQL
# cluster (pg_virtualenv, default durability settings: fsync on).
# Usage: bench/postgres.sh [DURATION_SECONDS] [CONVERSATIONS]   (default 10, 20000)
# Writes bench/results/postgres-latest.txt; RESULTS.md is written by hand from it.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
if [ -z "${PGHOST:-}" ]; then
  exec pg_virtualenv -t -o max_connections=200 -o shared_buffers=512MB "$0" "$@"
fi
dur=${1:-10}
convs=${2:-20000}
# BENCH_BUILD=DIR uses an existing build tree (bench/common.sh).
# shellcheck source=bench/common.sh
. "$here/common.sh"
bench_build "livechatd livechatctl bench_ceiling_server"

bench_pg
t0=$(date +%s.%N)
ctl seed --store "$shop" --conversations "$convs" --messages-per-conversation 10 >/dev/null
t1=$(date +%s.%N)

start() {  # start PORT
  "$build/hosts/livechatd" --db "$db" --files-dir "$work/files" --listen "127.0.0.1:$1" --admin-listen 127.0.0.1:0 \
    --rate-limit-key 1000000000 --rate-limit-ip 1000000000 --access-log off --threads 64 2>/dev/null >"$work/d$1.out" &
  pids+=($!)
  for _ in $(seq 100); do grep -q listening "$work/d$1.out" 2>/dev/null && break; sleep 0.1; done
}
start 18081
start 18082
start 18083

base=http://127.0.0.1:18081
conv=$(curl -s -H "X-Api-Key: $key" "$base/chat/conversations?limit=1" | json "['data'][0]['id']")
size20=$(curl -s -H "X-Api-Key: $key" "$base/chat/conversations?limit=20" | wc -c)
size100=$(curl -s -H "X-Api-Key: $key" "$base/chat/conversations?limit=100" | wc -c)
"$build/bench/bench_ceiling_server" 18090 "$size20" >"$work/c20.out" &
pids+=($!)
"$build/bench/bench_ceiling_server" 18091 "$size100" >"$work/c100.out" &
pids+=($!)
sleep 0.5

export LC_KEY=$key LC_MEMBER=$member
out=$here/results/postgres-latest.txt
mkdir -p "$here/results"
{
  echo "machine: $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB, $(uname -srm)"
  echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
  echo "postgres: $(psql -Atc 'SELECT version()')"
  echo "seed: $convs conversations x 10 messages in $(python3 -c "print(round($t1-$t0,1))") s"
  echo "bodies: limit=20 $size20 bytes, limit=100 $size100 bytes"
  echo "wrk: 16 connections in total, ${dur}s each"
} >"$out"
run() {  # run NAME wrk-args...
  local name=$1; shift
  echo "== $name" >>"$out"
  wrk -t1 -c16 -d"${dur}s" --latency "$@" >>"$out" 2>&1
}
run3() {  # run3 NAME PATH [script]: three wrk processes, one per instance, 6+5+5 connections
  local name=$1 path=$2 script=$3
  echo "== $name (3 instances; sum the Requests/sec)" >>"$out"
  wrk -t1 -c6 -d"${dur}s" --latency -s "$script" "http://127.0.0.1:18081$path" >"$work/w1" 2>&1 &
  local a=$!
  wrk -t1 -c5 -d"${dur}s" --latency -s "$script" "http://127.0.0.1:18082$path" >"$work/w2" 2>&1 &
  local b=$!
  wrk -t1 -c5 -d"${dur}s" --latency -s "$script" "http://127.0.0.1:18083$path" >"$work/w3" 2>&1
  wait "$a" "$b"
  cat "$work/w1" "$work/w2" "$work/w3" >>"$out"
}

# The write ceiling: one-row insert transactions on the same server.
psql -q -c "CREATE TABLE bench_rows (id bigserial PRIMARY KEY, v text NOT NULL, at bigint NOT NULL)"
echo "INSERT INTO bench_rows (v, at) VALUES ('Thanks for waiting, your parcel ships today.', 1);" >"$work/insert.sql"
echo "== pgbench one-row insert, 16 clients" >>"$out"
pgbench -n -c16 -j2 -T"$dur" -f "$work/insert.sql" >>"$out" 2>&1

run "ceiling GET ($size20-byte body)" http://127.0.0.1:18090/x
run "GET /chat/conversations?limit=20 (1 instance)" -s "$here/get_with_key.lua" "$base/chat/conversations?limit=20"
run3 "GET /chat/conversations?limit=20" "/chat/conversations?limit=20" "$here/get_with_key.lua"
run "ceiling GET ($size100-byte body)" http://127.0.0.1:18091/x
run "GET /chat/conversations?limit=100 (1 instance)" -s "$here/get_with_key.lua" "$base/chat/conversations?limit=100"
run3 "GET /chat/conversations?limit=100" "/chat/conversations?limit=100" "$here/get_with_key.lua"
run "POST /chat/conversations/{id}/messages (1 instance)" -s "$here/post_message.lua" "$base/chat/conversations/$conv/messages"
run3 "POST /chat/conversations/{id}/messages" "/chat/conversations/$conv/messages" "$here/post_message.lua"
cat "$out"
