#!/usr/bin/env bash
# Tool-server benchmark: tools/call of faq_retrieval and product_lookup over
# 10,000 products and 2,000 FAQ entries (FTS5 search), against the transport
# ceiling in the same run: a cpp-httplib server answering a body of the
# tool's mean answer size over mcp_call.lua's queries, one per tool.
# Output: bench/results/mcp.txt.
# Usage: [BENCH_BUILD=DIR] bench/mcp.sh [DURATION_SECONDS] (default 8)
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
db=$work/mcp.db

store=$(ctl store create --name McpBench --plan pro)
shop=$(echo "$store" | json "['id']")
app=$(echo "$store" | json "['appId']")
key=$(ctl key create --store "$shop" --name mcp --permissions read_conversations,manage_conversations | json "['key']")
python3 "$here/mcp_catalog.py" 10000 2000 >"$work/catalog.json"
start_ns=$(date +%s%N)
ctl catalog import --store "$shop" --file "$work/catalog.json" >"$work/import.json"
import_s=$(python3 -c "print(round(($(date +%s%N) - $start_ns) / 1e9, 2))")
ctl settings set --store "$shop" --set trainingData.products=on >/dev/null

"$build/hosts/livechatd" --db "$db" --listen 127.0.0.1:18084 --access-log off --admin-listen none --threads 64 2>/dev/null >"$work/d.out" &
pids+=($!)
for _ in $(seq 50); do grep -q listening "$work/d.out" 2>/dev/null && break; sleep 0.1; done

export LC_APP=$app LC_KEY=$key
# The mean size of a tool's answers over the queries mcp_call.lua rotates through.
answer_size() {
  python3 - "$1" "$here/mcp_call.lua" "$app" "$key" <<'PY'
import json, re, subprocess, sys
tool, lua, app, key = sys.argv[1:]
table = "faqQueries" if tool == "faq_retrieval" else "productQueries"
queries = re.findall(r'"([^"]*)"', re.search(table + r" = \{(.*?)\}", open(lua).read(), re.S).group(1))
sizes = []
for i, q in enumerate(queries):
    body = json.dumps({"jsonrpc": "2.0", "id": i + 1, "method": "tools/call",
                       "params": {"name": tool, "arguments": {"query": q, "limit": 5}}})
    out = subprocess.run(["curl", "-s", "-X", "POST", "-H", "Content-Type: application/json",
                          "-H", "Accept: application/json, text/event-stream", "-H", "X-App-Id: " + app,
                          "-H", "Authorization: Bearer " + key, "--data", body, "http://127.0.0.1:18084/mcp"],
                         capture_output=True, check=True).stdout
    if b'"result"' not in out:
        sys.exit("no result from %s: %r" % (tool, out[:300]))
    sizes.append(len(out))
print(round(sum(sizes) / len(sizes)))
PY
}
faq_size=$(answer_size faq_retrieval)
product_size=$(answer_size product_lookup)
"$build/bench/bench_ceiling_server" 18094 "$faq_size" >"$work/c1.out" &
pids+=($!)
"$build/bench/bench_ceiling_server" 18095 "$product_size" >"$work/c2.out" &
pids+=($!)
for _ in $(seq 50); do grep -q listening "$work/c1.out" 2>/dev/null && grep -q listening "$work/c2.out" && break; sleep 0.1; done
out=$here/results/mcp.txt
mkdir -p "$here/results"
{
  echo "machine: $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
  echo "catalog: $(cat "$work/import.json"); import took ${import_s}s"
  echo "wrk: 1 thread, 16 connections, ${dur}s each"
} >"$out"
run() {
  local name=$1; shift
  echo "== $name" >>"$out"
  wrk -t1 -c16 -d"${dur}s" --latency "$@" >>"$out" 2>&1
}
for round in 1 2; do
  run "ceiling GET ($faq_size-byte body, faq_retrieval's mean answer) (round $round)" http://127.0.0.1:18094/x
  run "ceiling GET ($product_size-byte body, product_lookup's mean answer) (round $round)" http://127.0.0.1:18095/x
  LC_TOOL=faq_retrieval run "tools/call faq_retrieval (round $round)" -s "$here/mcp_call.lua" http://127.0.0.1:18084/mcp
  LC_TOOL=product_lookup run "tools/call product_lookup (round $round)" -s "$here/mcp_call.lua" http://127.0.0.1:18084/mcp
done
cat "$out"
