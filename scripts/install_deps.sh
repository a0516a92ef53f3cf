#!/usr/bin/env bash
# Installs the Debian packages streamd needs to build and test, only if one is missing
# (dpkg-query is instant; apt-get update is not). Runs apt-get as root, else through sudo.
set -euo pipefail

PACKAGES=(cmake g++ make libasio-dev libfmt-dev libspdlog-dev libgtest-dev
          libssl-dev openssl
          redis-server redis-tools python3 python3-redis)

missing=()
for pkg in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done

if ((${#missing[@]} == 0)); then
  echo "== all build and test packages are installed"
  exit 0
fi

echo "== installing missing packages: ${missing[*]}"
SUDO=()
if [[ $(id -u) -ne 0 ]]; then
  SUDO=(sudo)
fi
"${SUDO[@]}" apt-get update
DEBIAN_FRONTEND=noninteractive "${SUDO[@]}" apt-get install -y --no-install-recommends "${PACKAGES[@]}"
