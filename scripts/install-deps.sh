#!/usr/bin/env bash
# Installs Debian packages, only those missing, so a machine that has never seen the project can
# build it. Run as root (CI and sessions are) or with sudo.
#
#   scripts/install-deps.sh            the packages the C++ build and the Python module need
#   scripts/install-deps.sh --fuzz     the fuzz targets' compiler besides (`make fuzz`)
#
# The fuzz targets need clang 19 and its libFuzzer runtime, which Debian 12 ships besides its
# default clang 14: 14 cannot compile lambdas that capture structured bindings (C++20), which
# the sources use. Only `make fuzz` asks for them, so `make test` never pulls in a second
# compiler.
set -euo pipefail
# The model server (`pt2ov serve`, src/serve/) speaks REST through Boost.Beast and gRPC through
# gRPC C++, its .proto compiled at build time by protoc and grpc_cpp_plugin.
packages=(cmake g++ make pkg-config nlohmann-json3-dev libzip-dev libcli11-dev libfmt-dev libgtest-dev libeigen3-dev
          libboost-dev libgrpc++-dev libprotobuf-dev protobuf-compiler protobuf-compiler-grpc)
if [ "${1:-}" = "--fuzz" ]; then
    clang_version=${PT2OV_CLANG_VERSION:-19}
    packages=("clang-$clang_version" "libfuzzer-$clang_version-dev" "libclang-rt-$clang_version-dev")
elif [ $# -gt 0 ]; then
    echo "usage: $0 [--fuzz]" >&2
    exit 2
else
    # The Python module is built against the interpreter the venv comes from: its headers too.
    python_has_headers=$(${PYTHON_BOOT:-python3} -c 'import os, sysconfig; print(int(os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h"))))' 2>/dev/null || echo 0)
    [ "$python_has_headers" = 1 ] || packages+=(python3-dev)
fi
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
