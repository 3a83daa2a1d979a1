#!/usr/bin/env bash
# Installs the Debian 12 packages livechat needs to build and test, and only
# those that are missing; `apt-get update` runs only when something is.
# Sourced by quickstart.sh and test.sh; also runnable on its own.
set -euo pipefail

LIVECHAT_PACKAGES=(
  build-essential cmake pkg-config
  libsqlite3-dev rapidjson-dev libsodium-dev libfmt-dev
  libcpp-httplib-dev libboost-dev libssl-dev zlib1g-dev libbrotli-dev
  doctest-dev libpq-dev libgoogle-perftools-dev
)

# Only the test suite needs these: python3 (the install test signs a vector
# with its hmac module), clang with its libFuzzer runtime (the GraphQL parser
# fuzz target), Node.js with npm (graphql-js, the reference client), and
# chromium (the storefront widget in a real browser, driven by playwright-core),
# PostgreSQL (the server the PostgreSQL store's tests start on a throwaway
# cluster through pg_virtualenv, from postgresql-common; contrib for unaccent),
# and the openssl command (the soak makes its webhook receiver's CA with it).
LIVECHAT_TEST_PACKAGES=(python3 clang libclang-rt-14-dev chromium postgresql postgresql-contrib openssl)

livechat_install_test_deps() {
  local extra=("${LIVECHAT_TEST_PACKAGES[@]}")
  # Node may come from another source than Debian's packages: only the
  # commands matter.
  if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
    extra+=(nodejs npm)
  fi
  livechat_install_deps "${extra[@]}"
}

# Installs LIVECHAT_PACKAGES plus any package names given as arguments.
livechat_install_deps() {
  local missing=()
  local pkg
  for pkg in "${LIVECHAT_PACKAGES[@]}" "$@"; do
    # The dpkg -s status, read whole (a `| grep -q` could SIGPIPE under
    # pipefail); a removed package whose config files remain is missing.
    local status
    status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
    if [ "$status" != "install ok installed" ]; then
      missing+=("$pkg")
    fi
  done
  if [ ${#missing[@]} -eq 0 ]; then
    return 0
  fi
  echo "installing: ${missing[*]}" >&2
  local sudo=()
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "need root (or sudo) to install: ${missing[*]}" >&2; return 1; }
    sudo=(sudo)
  fi
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

# Parallel build jobs: LIVECHAT_JOBS, else 2 (the reference machine has 2 cores).
livechat_jobs() {
  echo "${LIVECHAT_JOBS:-2}"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  livechat_install_deps
fi
