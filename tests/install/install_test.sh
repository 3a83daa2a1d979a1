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
expect() {  # example expected-exit expected-output args...
  local example=$1 want=$2 text=$3 got=0 out
  shift 3
  out=$("$work/build/$example" "$@") || got=$?
  if [ "$got" != "$want" ] || [ "$out" != "$text" ]; then
    echo "install test: $example $* gave exit $got, output '$out'; expected $want, '$text'"
    exit 1
  fi
}
sdk() { expect validate_sdk_command "$@"; }
sdk 0 "accept" message:send '["Hello"]'
sdk 0 "accept" chat:open
sdk 1 "reject: typing:set: active must be true or false (got string)" typing:set '["yes"]'
sdk 0 "accept" --burst 15 message:send '["hi"]'
sdk 1 "reject: message:send: rate limit of 15 messages per minute reached; try again in 60 s" --burst 16 message:send '["hi"]'
# The HTTPS webhook transport through the installed livechat::outbound (it
# links OpenSSL): the address rule refuses loopback, and allowed, a port
# where nothing listens is a connect failure at the checked address.
send() { expect send_webhook "$@"; }
send 1 "failed: url must resolve to a public address (127.0.0.1 resolves to 127.0.0.1, which is private, loopback, link-local or reserved)" \
  https://127.0.0.1:1/hook
send 1 "failed: cannot connect to 127.0.0.1:1: Connection refused [Connection]" https://127.0.0.1:1/hook --allow-private
send 1 "failed: cannot read $work/none.pem: No such file or directory" https://127.0.0.1:1/hook --ca-file "$work/none.pem"
echo "install test: ok"
