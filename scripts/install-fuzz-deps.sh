#!/usr/bin/env bash
# Installs the Debian packages `make fuzz` needs on top of scripts/install-deps.sh's: clang and
# its libFuzzer runtime. clang 19, which Debian 12 ships besides its default clang 14: 14 cannot
# compile lambdas that capture structured bindings (C++20), which the sources use. Only the fuzz
# target runs this, so `make test` never pulls in a second compiler. Run as root or with sudo.
set -euo pipefail
clang_version=${PT2OV_CLANG_VERSION:-19}
packages=("clang-$clang_version" "libfuzzer-$clang_version-dev" "libclang-rt-$clang_version-dev")
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
    exit 0
fi
echo "installing Debian packages: ${missing[*]}"
sudo_cmd=""
[ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo_cmd apt-get update -qq
$sudo_cmd apt-get install -y -qq "${missing[@]}" >/dev/null
