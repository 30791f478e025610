#!/usr/bin/env bash
# Installs cucpu's build dependencies from Debian 12 packages. Idempotent: does nothing when
# everything is already installed.
set -euo pipefail

packages=(cmake ninja-build g++ ccache python3 llvm-19-dev llvm-19-tools zlib1g-dev libzstd-dev liblz4-dev
          libspdlog-dev libfmt-dev libgtest-dev)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all dependencies present"
  exit 0
fi

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "install-deps: installing ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
