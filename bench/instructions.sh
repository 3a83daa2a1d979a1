#!/usr/bin/env bash
# Instructions per request of two (or more) livechatd builds, for an A/B of a
# change too small for bench/cpu_per_request.sh to see on a machine whose
# speed drifts (this VM's CPU time per request moves by 10-40 % between
# rounds, and it has no hardware counters). livechatd runs under valgrind's
# callgrind; after 200 warm-up requests the counts are zeroed, N requests go
# over one keep-alive connection, and the count is dumped: instructions
# executed by every thread of livechatd, divided by N. The same build gives
# the same count to within about 0.25 % run to run. It counts work, not time:
# cache misses, system calls and lock waits are not in it, so a change that
# trades instructions for any of those needs cpu_per_request.sh as well.
# Uses cpu_per_request.sh's store (10,000 conversations x 10 messages in
# BENCH_AB_DIR, default /tmp/livechat-ab; run that script once to seed it).
# WHAT (default "detail messages list20 list100") picks the reads:
#   detail    GET /chat/conversations/{id}
#   messages  GET /chat/conversations/{id}/messages
#   list20    GET /chat/conversations?limit=20
#   list100   GET /chat/conversations?limit=100
# N (default 1000) requests per read; list100 runs N/2.
# Usage: [WHAT=list20] [N=1000] bench/instructions.sh LABEL=LIVECHATD [LABEL=LIVECHATD ...]
set -euo pipefail
work=${BENCH_AB_DIR:-/tmp/livechat-ab}
[ -f "$work/key" ] || { echo "no seeded store in $work: run bench/cpu_per_request.sh once first" >&2; exit 2; }
command -v valgrind >/dev/null || { echo "valgrind is not installed (apt-get install valgrind)" >&2; exit 2; }
port=18282
n=${N:-1000}
one() {
  local label=$1 bin=$2 what=$3 count=$4
  rm -f "$work/ic.db-wal" "$work/ic.db-shm" "$work/cg.out"*
  cp "$work/bench.db" "$work/ic.db"
  # A store seeded but never checkpointed keeps part of itself in the WAL.
  [ -f "$work/bench.db-wal" ] && cp "$work/bench.db-wal" "$work/ic.db-wal"
  valgrind --tool=callgrind --callgrind-out-file="$work/cg.out" "$bin" --db "$work/ic.db" \
    --listen 127.0.0.1:$port --admin-listen 127.0.0.1:0 --rate-limit-key 1000000000 --rate-limit-ip 1000000000 \
    --access-log off --threads 8 --max-connections-per-address 0 >"$work/ic.out" 2>"$work/ic.err" &
  local pid=$!
  # A failed request or a dump that never comes must not leave a valgrind'd
  # livechatd holding the port for the next run.
  trap "kill $pid 2>/dev/null || true" EXIT
  for _ in $(seq 600); do grep -q listening "$work/ic.out" 2>/dev/null && break; sleep 0.1; done
  grep -q listening "$work/ic.out" || { echo "$label did not start under valgrind: $work/ic.err" >&2; kill $pid; exit 1; }
  LC_KEY=$(cat "$work/key") python3 - "$what" "$count" "$port" "$pid" <<'PY'
import http.client, json, os, subprocess, sys
what, count, port, pid = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
key = os.environ['LC_KEY']
c = http.client.HTTPConnection('127.0.0.1', port, timeout=60)
def get(path):
    c.request('GET', path, headers={'X-Api-Key': key})
    r = c.getresponse()
    body = r.read()
    if r.status != 200:
        sys.exit('%s answered %d: %s' % (path, r.status, body[:200]))
    return body
conv = json.loads(get('/chat/conversations?limit=1'))['data'][0]['id']
path = {'detail': '/chat/conversations/' + conv, 'messages': '/chat/conversations/%s/messages' % conv,
        'list20': '/chat/conversations?limit=20', 'list100': '/chat/conversations?limit=100'}[what]
for _ in range(200): get(path)
subprocess.run(['callgrind_control', '-z', pid], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
for _ in range(count): get(path)
subprocess.run(['callgrind_control', '-d', pid], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
PY
  kill $pid; wait $pid 2>/dev/null || true
  trap - EXIT
  # The dump requested above is cg.out.1 (cg.out is written at exit).
  local total
  total=$(awk '/^(summary|totals):/{print $2; exit}' "$work/cg.out.1")
  python3 -c "print('%-8s %-8s %6d requests  %12d instructions  %9.0f per request' % ('$label', '$what', $count, $total, $total / $count))"
}
for what in ${WHAT:-detail messages list20 list100}; do
  case $what in detail|messages|list20) count=$n ;; list100) count=$(( n / 2 > 0 ? n / 2 : 1 )) ;;
    *) echo "unknown read: $what (detail, messages, list20, list100)" >&2; exit 2 ;; esac
  for pair in "$@"; do one "${pair%%=*}" "${pair#*=}" "$what" "$count"; done
done
