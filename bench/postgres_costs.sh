#!/usr/bin/env bash
# Where PostgreSQL's time goes for one kind of request: livechatd on a
# throwaway cluster (fsync on, pg_stat_statements loaded), wrk for a while,
# then per request: the CPU of each of livechatd's server processes (from
# /proc, with the last statement each ran, which names its role: the
# writer's is a COMMIT after inserts, a reader's a COMMIT, the counters' a
# rate window), the WAL written, the commits, and each statement's calls and
# execution time (nested ones too: a trigger's statements are listed under
# their own text and counted again inside the statement that fired them).
# pg_stat_statements costs some CPU of its own: compare runs of this script
# with each other, and throughput with bench/postgres.sh.
# Usage: bench/postgres_costs.sh [send|list20] [DURATION_SECONDS] [CONVERSATIONS] [CONNECTIONS]
#        (default send 10 2000 16; sends go round robin to 100 conversations)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
if [ -z "${PGHOST:-}" ]; then
  exec pg_virtualenv -t -o max_connections=200 -o shared_buffers=512MB \
    -o shared_preload_libraries=pg_stat_statements -o pg_stat_statements.track=all "$0" "$@"
fi
what=${1:-send}
dur=${2:-10}
convs=${3:-2000}
conns=${4:-16}
# shellcheck source=bench/common.sh
. "$here/common.sh"
bench_build "livechatd livechatctl"

bench_pg
ctl seed --store "$shop" --conversations "$convs" --messages-per-conversation 10 >/dev/null
psql -q -d lc_bench -c "CREATE EXTENSION pg_stat_statements" -c "VACUUM ANALYZE" -c "CHECKPOINT"

"$build/hosts/livechatd" --db "$db" --files-dir "$work/files" --listen 127.0.0.1:18081 --admin-listen 127.0.0.1:0 \
  --rate-limit-key 1000000000 --rate-limit-ip 1000000000 --access-log off --threads 64 2>"$work/err" >"$work/d.out" &
pids+=($!)
for _ in $(seq 100); do grep -q listening "$work/d.out" 2>/dev/null && break; sleep 0.1; done
base=http://127.0.0.1:18081
export LC_KEY=$key LC_MEMBER=$member
LC_CONVS=$(curl -s -H "X-Api-Key: $key" "$base/chat/conversations?limit=100" |
  python3 -c "import json,sys; print(','.join(c['id'] for c in json.load(sys.stdin)['data']))")
export LC_CONVS
case "$what" in
  send) script=$here/post_spread.lua url=$base ;;
  list20) script=$here/get_with_key.lua url="$base/chat/conversations?limit=20" ;;
  *) echo "usage: $0 [send|list20] [DURATION] [CONVERSATIONS] [CONNECTIONS]" >&2; exit 2 ;;
esac

wrk -t1 -c"$conns" -d3s -s "$script" "$url" >/dev/null
psql -Atq -d lc_bench -c "SELECT pg_stat_statements_reset()" -c "SELECT pg_stat_reset_shared('wal')" \
  -c "SELECT pg_stat_reset()" >/dev/null
backends() {  # pid, CPU ticks and last statement of each of livechatd's server processes
  psql -AtqF $'\t' -d lc_bench -c "SELECT pid, left(regexp_replace(query, '\s+', ' ', 'g'), 70) FROM pg_stat_activity
    WHERE datname = 'lc_bench' AND backend_type = 'client backend' AND pid <> pg_backend_pid()" |
    while IFS=$'\t' read -r pid q; do
      echo -e "$pid\t$(awk '{print $14+$15}' "/proc/$pid/stat" 2>/dev/null || echo 0)\t$q"
    done
}
backends >"$work/before"
wrk -t1 -c"$conns" -d"${dur}s" --latency -s "$script" "$url" >"$work/wrk"
backends >"$work/after"
n=$(awk '/requests in/{print $1}' "$work/wrk")
tick=$(getconf CLK_TCK)

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(uname -sr)"
echo "postgres: $(psql -Atc 'SHOW server_version')"
echo "load: $what, $conns connections, ${dur}s, $convs conversations x 10 messages"
grep -E "Requests/sec|requests in| 99%|Non-2xx" "$work/wrk"
echo
echo "== CPU of each server process per request (us), with its last statement"
python3 - "$work/before" "$work/after" "$n" "$tick" <<'PY'
import sys
def load(path):
    out = {}
    for line in open(path):
        pid, ticks, q = (line.rstrip("\n").split("\t") + ["", ""])[:3]
        out[pid] = (int(ticks), q)
    return out
before, after, n, tick = load(sys.argv[1]), load(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
rows = sorted(((t - before.get(p, (0, ""))[0], q) for p, (t, q) in after.items()), reverse=True)
for ticks, q in rows:
    print(f"{ticks * 1e6 / tick / n:8.1f}  {q}")
print(f"{sum(t for t, _ in rows) * 1e6 / tick / n:8.1f}  all of them")
PY
echo
echo "== WAL and commits per request"
psql -Atq -d lc_bench -c "SELECT 'WAL records ' || round(wal_records::numeric / $n, 2) || ', bytes ' || round(wal_bytes / $n)
  FROM pg_stat_wal" -c "SELECT 'commits ' || round(xact_commit::numeric / $n, 2) FROM pg_stat_database WHERE datname = 'lc_bench'"
echo
echo "== statements: calls and execution time per request"
psql -q -d lc_bench -c "SELECT round((calls::numeric / $n), 2) AS calls, round((1000 * total_exec_time / $n)::numeric, 1) AS us,
  left(regexp_replace(query, '\s+', ' ', 'g'), 100) AS statement FROM pg_stat_statements
  WHERE calls >= $n / 100 AND query NOT LIKE '%pg_stat%' ORDER BY total_exec_time DESC LIMIT 25"
