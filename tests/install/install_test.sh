#!/usr/bin/env bash
# Installs the built project into a temporary prefix, builds examples/ against
# it through find_package(livechat CONFIG), runs the embedding example and the
# webhook verifier on a known vector.
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
  *"-> 200"*) ;;
  *) echo "install test: the example did not get a 200 response"; exit 1 ;;
esac

# A delivery signed outside livechat (Python's hmac, by hand): timestamp
# 1700000000, secret whsec_example_secret, this exact body without a newline.
body='{"eventId":"3f1c2d4e-0000-4000-8000-000000000001","type":"message.created","shopId":"shop_example","conversationId":"c_1","occurredAt":"2023-11-14T22:13:20.000Z","data":{"text":"Hi"}}'
sig=ac829a3a0f6b2ea0209738b9b09f3705335449b703b1005a326a8c7e813d6011
printf '%s' "$body" >"$work/body.json"
printf '%s' "${body/Hi/Hi!}" >"$work/tampered.json"
verify() {  # expected-exit args...
  local want=$1 got=0
  shift
  "$work/build/verify_webhook" "$@" || got=$?
  if [ "$got" != "$want" ]; then
    echo "install test: verify_webhook $* exited $got, expected $want"
    exit 1
  fi
}
verify 0 1700000000 "$sig" whsec_example_secret "$work/body.json" --now 1700000100
verify 1 1700000000 "$sig" whsec_example_secret "$work/tampered.json" --now 1700000100
verify 1 1700000000 "$sig" whsec_other_secret "$work/body.json" --now 1700000100
verify 1 1700000000 "$sig" whsec_example_secret "$work/body.json" --now 1700000400  # 400 s late
verify 1 1700000000 "$sig" whsec_example_secret "$work/body.json"                    # the real clock: years late
verify 2 1700000000 "$sig" whsec_example_secret "$work/missing.json"
# The storefront SDK rules through the installed livechat::sdk.
sdk() {  # expected-exit expected-output args...
  local want=$1 text=$2 got=0 out
  shift 2
  out=$("$work/build/validate_sdk_command" "$@") || got=$?
  if [ "$got" != "$want" ] || [ "$out" != "$text" ]; then
    echo "install test: validate_sdk_command $* gave exit $got, output '$out'; expected $want, '$text'"
    exit 1
  fi
}
sdk 0 "accept" message:send '["Hello"]'
sdk 0 "accept" chat:open
sdk 1 "reject: typing:set: active must be true or false (got string)" typing:set '["yes"]'
sdk 0 "accept" --burst 15 message:send '["hi"]'
sdk 1 "reject: message:send: rate limit of 15 messages per minute reached; try again in 60 s" --burst 16 message:send '["hi"]'
echo "install test: ok"
