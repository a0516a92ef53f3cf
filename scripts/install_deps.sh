#!/usr/bin/env bash
# Installs the Debian packages streamd needs to build and test, only if one is missing
# (dpkg-query is instant; apt-get update is not). Runs apt-get as root, else through sudo.
set -euo pipefail

PACKAGES=(cmake g++ make libasio-dev libfmt-dev libspdlog-dev libgtest-dev
          libssl-dev libhttp-parser-dev nlohmann-json3-dev openssl
          redis-server redis-tools redis-sentinel python3 python3-redis nodejs
          clang libclang-rt-14-dev  # the libFuzzer targets (tests/fuzz)
          prometheus)  # tests/integration/test_metrics.py scrapes streamd with a real Prometheus

missing=()
for pkg in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done

# Node.js client tests use npm packages pinned by their package-lock.json:
# tests/clients/node (ioredis, test_client_node.py) and tests/clients/upstash (@upstash/redis,
# test_upstash_sdk.py). A test whose node_modules is missing skips with a message.
install_node_client() {
  local dir=$1 marker=$2
  if [[ -d $dir/node_modules/$marker ]]; then
    return 0
  fi
  if ! command -v npm >/dev/null; then
    # Debian ships npm apart from nodejs (NodeSource's nodejs bundles it).
    local sudo=()
    [[ $(id -u) -ne 0 ]] && sudo=(sudo)
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y --no-install-recommends npm ||
      { echo "== npm is not available: the Node client tests will skip"; return 0; }
  fi
  echo "== npm ci in $dir"
  (cd "$dir" && npm ci --no-audit --no-fund) || echo "== npm ci failed in $dir: its test will skip"
}
install_node_clients() {
  install_node_client tests/clients/node ioredis
  install_node_client tests/clients/upstash @upstash/redis
}
cd "$(dirname "${BASH_SOURCE[0]}")/.."

if ((${#missing[@]} == 0)); then
  echo "== all build and test packages are installed"
  install_node_clients
  exit 0
fi

echo "== installing missing packages: ${missing[*]}"
SUDO=()
if [[ $(id -u) -ne 0 ]]; then
  SUDO=(sudo)
fi
"${SUDO[@]}" apt-get update
DEBIAN_FRONTEND=noninteractive "${SUDO[@]}" apt-get install -y --no-install-recommends "${PACKAGES[@]}"
install_node_clients
