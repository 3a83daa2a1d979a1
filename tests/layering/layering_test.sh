#!/usr/bin/env bash
# The build's layering (CMakeLists.txt, livechat_library ... SEES): a library
# compiles against build/layers/<target>/, which holds its own folder of lib/
# and the folders it may see. Each row includes one internal header through a
# target's include root: a granted one must compile, any other must be "not
# found". A row failing the wrong way means a layer can reach past its
# neighbour (or the grant the docs describe is gone).
#   layering_test.sh CXX SOURCE_DIR BUILD_DIR
set -uo pipefail
cxx=$1
src=$2
build=$3
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

fail=0
row() {  # row TARGET HEADER ok|refused
  local target=$1 header=$2 want=$3 out rc
  printf '#include "%s"\n' "$header" >"$scratch/t.cc"
  out=$("$cxx" -std=c++20 -fsyntax-only -I "$build/layers/$target" -I "$src/include" "$scratch/t.cc" 2>&1)
  rc=$?
  if [ "$want" = ok ]; then
    if [ $rc -ne 0 ]; then
      echo "FAIL: $target should see $header:"; echo "$out" | head -5; fail=1; return
    fi
  else
    if [ $rc -eq 0 ] || ! echo "$out" | grep -qE "$header('|\"|:)? *(: No such file or directory|file not found)|'$header' file not found"; then
      echo "FAIL: $target must not see $header (exit $rc):"; echo "$out" | head -5; fail=1; return
    fi
  fi
  echo "ok: $target $want $header"
}

# TARGET HEADER EXPECTED
while read -r target header want; do
  row "$target" "$header" "$want"
done <<'ROWS'
core core/rate_limiter.h ok
core http/json_body.h refused
core storage/common/json_columns.h refused
http http/json_body.h ok
http core/cursor.h refused
sqlite storage/common/json_columns.h ok
sqlite storage/sqlite/sqlite_schema.h ok
sqlite storage/postgres/pg_schema.h refused
sqlite core/cursor.h refused
postgres storage/common/write_batcher.h ok
postgres storage/sqlite/sqlite_schema.h refused
storage storage/common/table_copy.h ok
rest http/json_body.h ok
rest rest/rest_routes.h ok
rest core/rate_limiter.h refused
rest storage/common/json_columns.h refused
mcp http/json_body.h ok
mcp core/catalog_format.h refused
mcp rest/rest_request.h refused
graphql graphql/parser.h ok
graphql http/json_body.h refused
graphql core/token_buckets.h refused
graphql_api graphql/parser.h ok
graphql_api http/json_body.h ok
graphql_api core/token_buckets.h refused
rest graphql/parser.h refused
storefront http/json_body.h ok
storefront rest/rest_routes.h refused
storefront core/rate_limiter.h refused
sdk sdk/command_rules.h ok
sdk core/cursor.h refused
webhooks core/service_internal.h refused
outbound outbound/http_client.h ok
outbound core/service_internal.h refused
outbound http/json_body.h refused
blobs core/cursor.h refused
base core/cursor.h refused
ROWS

# Only hosts/ may include cpp-httplib: a library that speaks HTTP does it
# through Boost.Beast (lib/outbound), so an embedder never needs cpp-httplib.
if hits=$(grep -rlE '#include *[<"]httplib\.h[>"]' "$src/lib" "$src/include"); then
  echo "FAIL: only hosts/ may include httplib.h:"; echo "$hits"; fail=1
else
  echo "ok: no library includes httplib.h"
fi
exit $fail
