#!/usr/bin/env bash
# Installs the Debian packages the C++ build needs, only those missing, so a machine that has
# never seen the project can build it. Run as root (CI and sessions are) or with sudo.
set -euo pipefail
packages=(cmake g++ make pkg-config nlohmann-json3-dev libzip-dev libcli11-dev libfmt-dev libgtest-dev libeigen3-dev)
# The Python module is built against the interpreter the venv comes from: its headers too.
python_has_headers=$(${PYTHON_BOOT:-python3} -c 'import os, sysconfig; print(int(os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h"))))' 2>/dev/null || echo 0)
[ "$python_has_headers" = 1 ] || packages+=(python3-dev)
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
