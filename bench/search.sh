#!/usr/bin/env bash
# Conversation search (GET /chat/conversations?q=) on a store of
# CONVERSATIONS x 10 seeded messages (default 100,000 x 10 = 1,000,000),
# one query at a time (wrk, 1 connection: the latency of each query, not a
# throughput), beside the ceiling measured in the same run: a cpp-httplib
# server answering a body of the same size. The seeded texts draw from a
# vocabulary with a skew (DemoService::Seed), so common and rare words meet
# the index as in a real store.
# Usage: bench/search.sh sqlite|postgres [CONVERSATIONS] [SECONDS_PER_QUERY]
# LC_BUILD: a build directory with livechatd, livechatctl and bench/bench_ceiling_server
# (default build-bench, configured Release with LIVECHAT_BUILD_BENCH=ON); LC_CEILING_SERVER
# another bench_ceiling_server binary.
# Writes bench/results/search-<backend>-latest.txt; RESULTS.md is written by hand from it.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
backend=${1:?usage: bench/search.sh sqlite|postgres [CONVERSATIONS] [SECONDS]}
if [ "$backend" = postgres ] && [ -z "${PGHOST:-}" ] && [ -z "${LC_DB:-}" ]; then
  exec pg_virtualenv -t -o max_connections=200 -o shared_buffers=1GB "$0" "$@"
fi
convs=${2:-100000}
dur=${3:-5}
build=${LC_BUILD:-$root/build-bench}
command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk; }
if [ -z "${LC_BUILD:-}" ]; then
  cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DLIVECHAT_BUILD_TESTS=OFF -DLIVECHAT_BUILD_BENCH=ON >/dev/null
  cmake --build "$build" -j2 --target livechatd livechatctl bench_ceiling_server >/dev/null
fi

work=$(mktemp -d /work/tmp/search-bench.XXXXXX 2>/dev/null || mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT
if [ -n "${LC_DB:-}" ]; then
  :
elif [ "$backend" = postgres ]; then
  createdb lc_search
  db=postgresql:///lc_search
else
  db=$work/search.db
fi
ctl() { "$build/hosts/livechatctl" --db "$db" "$@"; }
json() { python3 -c "import json,sys; print(json.load(sys.stdin)$1)"; }

if [ -n "${LC_DB:-}" ]; then
  # A store seeded before (LC_DB, LC_SHOP, LC_KEY): the seed takes minutes.
  db=$LC_DB
  key=$LC_KEY
  t0=0 t1=0
else
  shop=$(ctl store create --name Bench --plan pro | json "['id']")
  key=$(ctl key create --store "$shop" --name bench --permissions read_conversations,read_customers | json "['key']")
  t0=$(date +%s.%N)
  ctl seed --store "$shop" --conversations "$convs" --messages-per-conversation 10 >/dev/null
  t1=$(date +%s.%N)
  if [ "$backend" = postgres ]; then psql -q -c "VACUUM ANALYZE"; fi
fi

"$build/hosts/livechatd" --db "$db" --files-dir "$work/files" --listen 127.0.0.1:18181 --admin-listen 127.0.0.1:0 \
  --rate-limit-key 1000000000 --rate-limit-ip 1000000000 --access-log off 2>/dev/null >"$work/d.out" &
pids+=($!)
for _ in $(seq 300); do grep -q listening "$work/d.out" 2>/dev/null && break; sleep 0.1; done
base=http://127.0.0.1:18181

# The query mix: the most common word, common and rare words, diacritics,
# prefixes (search as you type), a name, an email, an order number, with
# and without filters, in both orders.
last=$((convs - 1))
queries=(
  "q=the"
  "q=order"
  "q=parcel%20damaged"
  "q=damaged%20parc"
  "q=wa"
  "q=cashmere"
  "q=%C3%A5lesund"
  "q=alesund%20krakow"
  "q=velvet%20suede%20zipper"
  "q=seed${last}%40example.com"
  "q=customer%204242"
  "q=1042"
  "q=refund&status=open"
  "q=jacket%20blue&sort=lastActive"
  "q=tracking&tag=shipping&isRead=false"
  "q=nothing%20matches%20this"
)

export LC_KEY=$key
out=$here/results/search-$backend-latest.txt
mkdir -p "$here/results"
size=$(curl -s -H "X-Api-Key: $key" "$base/chat/conversations?q=order" | wc -c)
"${LC_CEILING_SERVER:-$build/bench/bench_ceiling_server}" 18190 "$size" >"$work/c.out" &
pids+=($!)
sleep 0.5
{
  echo "machine: $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB, $(uname -srm)"
  echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
  echo "backend: $backend $([ "$backend" = postgres ] && psql -d "$db" -Atc 'SELECT version()' || sqlite3 --version 2>/dev/null || true)"
  echo "build: $build ($(grep -m1 CMAKE_BUILD_TYPE: "$build/CMakeCache.txt" | cut -d= -f2))"
  if [ -n "${LC_DB:-}" ]; then
    echo "seed: $convs conversations x 10 messages, seeded before ($LC_DB)"
  else
    echo "seed: $convs conversations x 10 messages in $(python3 -c "print(round($t1-$t0,1))") s"
  fi
  echo "ceiling body: $size bytes (the q=order page of 20)"
  echo "wrk: 1 connection, ${dur}s per query"
} >"$out"
run() {  # run NAME URL [script]
  echo "== $1" >>"$out"
  if [ -n "${3:-}" ]; then
    wrk -t1 -c1 -d"${dur}s" --latency -s "$3" "$2" >>"$out" 2>&1
  else
    wrk -t1 -c1 -d"${dur}s" --latency "$2" >>"$out" 2>&1
  fi
}
run "ceiling GET ($size-byte body)" http://127.0.0.1:18190/x
for q in "${queries[@]}"; do
  n=$(curl -s -H "X-Api-Key: $key" "$base/chat/conversations?$q&limit=20" | json "['data'].__len__()")
  # Warm every pooled connection for this query shape first: the figure is
  # the server's steady state, not its first minute.
  for _ in $(seq 40); do curl -s -o /dev/null -H "X-Api-Key: $key" "$base/chat/conversations?$q"; done
  run "GET /chat/conversations?$q ($n hits on the first page)" "$base/chat/conversations?$q" "$here/get_with_key.lua"
done
run "GET /chat/conversations (no q, for comparison)" "$base/chat/conversations" "$here/get_with_key.lua"
# One line per query: its p50 and p99 in ms, and the ratio of its
# requests/s to the ceiling's.
python3 - "$out" <<'EOF' | tee -a "$out"
import re, sys
text = open(sys.argv[1]).read()
blocks = re.split(r"^== ", text, flags=re.M)[1:]
def ms(v):
    m = re.match(r"([\d.]+)(us|ms|s)", v)
    n, u = float(m.group(1)), m.group(2)
    return n / 1000 if u == "us" else n * 1000 if u == "s" else n
rows = []
for b in blocks:
    name = b.splitlines()[0]
    p50 = re.search(r"^\s+50%\s+(\S+)", b, re.M)
    p99 = re.search(r"^\s+99%\s+(\S+)", b, re.M)
    rps = re.search(r"Requests/sec:\s+([\d.]+)", b)
    if p50 and p99 and rps:
        rows.append((name, ms(p50.group(1)), ms(p99.group(1)), float(rps.group(1))))
ceiling = rows[0][3]
print("\nsummary: query | p50 ms | p99 ms | req/s | ratio to ceiling")
for name, p50, p99, rps in rows:
    print(f"{name} | {p50:.2f} | {p99:.2f} | {rps:.0f} | {rps / ceiling:.3f}")
print(f"worst p99 over the queries: {max(r[2] for r in rows[1:-1]):.2f} ms")
EOF
