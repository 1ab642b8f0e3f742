#!/bin/sh
# Install clforge's build, run and test dependencies from Debian 12 packages.
# Idempotent: installs only what is missing. Runs apt-get as root, through
# sudo otherwise.
set -eu

packages="
  build-essential cmake pkg-config
  ocl-icd-opencl-dev opencl-headers clinfo
  pocl-opencl-icd
  libclblast-dev libclfft-dev libopenblas-dev libdnnl-dev
  libcjson-dev libxxhash-dev
  oclgrind
  clang libclang-rt-14-dev
"
# pocl-opencl-icd: the OpenCL device on machines without a GPU (and in CI).
# oclgrind: the checking device the kernel tests also run on.
# libopenblas-dev: the CPU peer of `clforge bench gemm`; libdnnl-dev (oneDNN):
# that of `clforge bench conv` (optional: the bench builds without it).
# clang + its sanitizer runtime: the second compiler and the ASan/UBSan build.

missing=""
for p in $packages; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing="$missing $p"
  fi
done
if [ -z "$missing" ]; then
  echo "install-deps: all dependencies are installed"
  exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
  sudo=""
elif command -v sudo > /dev/null 2>&1; then
  sudo="sudo"
else
  echo "install-deps: need root or sudo to install:$missing" >&2
  exit 1
fi
echo "install-deps: installing$missing"
$sudo apt-get update -qq
# shellcheck disable=SC2086
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq $missing
