# Sourced by the bench scripts: wrk, the build tree, a work directory removed
# at exit (with the processes listed in pids), and a store with a key and an
# agent. Expects here and root set; sets build, work, pids, db, shop, key,
# member, and the helpers ctl and json.
# $1: the targets to build when BENCH_BUILD is not given.
bench_setup() {
  bench_build "$1"
  bench_work
  db=$work/bench.db
  bench_store
}
# A work directory removed at exit, with the processes listed in pids.
bench_work() {
  work=$(mktemp -d)
  pids=()
  trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"' EXIT
}
# The PostgreSQL benches (run under pg_virtualenv): a work directory, the
# database lc_bench as db, ctl with a files directory, and a store (below).
bench_pg() {
  bench_work
  createdb lc_bench
  db=postgresql:///lc_bench
  ctl() { LIVECHAT_FILES_DIR=$work/files "$build/hosts/livechatctl" --db "$db" "$@"; }
  bench_store
}
# A store with a read-and-write key and an agent, made through ctl: sets
# shop, key and member.
bench_store() {
  shop=$(ctl store create --name Bench --plan pro | json "['id']")
  key=$(ctl key create --store "$shop" --name bench --permissions read_conversations,manage_conversations | json "['key']")
  member=$(ctl member create --store "$shop" --email agent@bench.test --first-name Bench --last-name Agent --role member | json "['id']")
}
ctl() { "$build/hosts/livechatctl" --db "$db" "$@"; }
json() { python3 -c "import json,sys; print(json.load(sys.stdin)$1)"; }

# wrk, and the build tree in $build: BENCH_BUILD, or a Release tree built
# here with the targets in $1.
bench_build() {
  build=${BENCH_BUILD:-$root/build-bench}
  command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk; }
  if [ -z "${BENCH_BUILD:-}" ]; then
    cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DLIVECHAT_BUILD_TESTS=OFF -DLIVECHAT_BUILD_BENCH=ON >/dev/null
    # shellcheck disable=SC2086
    cmake --build "$build" -j2 --target $1 >/dev/null
  fi
}
