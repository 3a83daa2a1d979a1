#!/usr/bin/env bash
# Installs the built project into a temporary prefix, builds examples/ against
# it through find_package(livechat CONFIG) and runs the embedding example.
# Usage: install_test.sh BUILD_DIR SOURCE_DIR [CMAKE]
set -euo pipefail

build_dir=$1
source_dir=$2
cmake=${3:-cmake}

work=$(mktemp -d "${TMPDIR:-/tmp}/livechat-install-XXXXXX")
trap 'rm -rf "$work"' EXIT

"$cmake" --install "$build_dir" --prefix "$work/prefix" >"$work/install.log" || {
  cat "$work/install.log"; exit 1; }
test -f "$work/prefix/lib/cmake/livechat/livechatConfig.cmake" || test -f "$work/prefix/lib64/cmake/livechat/livechatConfig.cmake" \
  || { echo "no livechatConfig.cmake under $work/prefix"; exit 1; }

"$cmake" -S "$source_dir/examples" -B "$work/build" -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_BUILD_TYPE=Release
"$cmake" --build "$work/build" -j2

out=$("$work/build/embed_inprocess")
echo "$out"
case "$out" in
  *"-> 200"*) echo "install test: ok" ;;
  *) echo "install test: the example did not get a 200 response"; exit 1 ;;
esac
