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
  python3 python3-venv python3-pip python3-numpy python3-pyopencl python3-matplotlib python3-pytest
  libopenmpi-dev openmpi-bin python3-mpi4py
"
# pocl-opencl-icd: the OpenCL device on machines without a GPU (and in CI).
# oclgrind: the checking device the kernel tests also run on.
# libopenblas-dev: the CPU peer of `clforge bench gemm`; libdnnl-dev (oneDNN):
# that of `clforge bench conv` (optional: the bench builds without it).
# clang + its sanitizer runtime: the second compiler and the ASan/UBSan build.
# python3-*: the Python package's dependencies, tests and benches (see below).
# Open MPI (+ mpi4py): the communicator's MPI transport and its mpirun tests
# (optional: without it the library builds with local communicators only).

missing=""
for p in $packages; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing="$missing $p"
  fi
done
if [ -z "$missing" ]; then
  echo "install-deps: all Debian packages are installed"
fi

if [ -n "$missing" ]; then
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
fi

# The Python environment of the Python package (python/): .venv in the
# checkout, on Debian's python3 with its numpy, pyopencl, matplotlib and
# pytest (--system-site-packages), plus what Debian lacks from PyPI: ml_dtypes
# (bfloat16) and pyclblast (a peer of `python -m clforge bench gemm`), held to
# Debian's numpy so that pip never replaces the numpy pyopencl was built for.
# The tests use it; `.venv/bin/pip install ./python` installs the package.
here=$(cd "$(dirname "$0")/.." && pwd)
venv="$here/.venv"
if ! "$venv/bin/python" -c "import numpy, ml_dtypes, pyopencl, pytest" 2> /dev/null; then
  echo "install-deps: making the Python environment $venv"
  /usr/bin/python3 -m venv --system-site-packages "$venv"
  pin="$venv/numpy-constraint.txt"
  /usr/bin/python3 -c "import numpy; print('numpy==' + numpy.__version__)" > "$pin"
  "$venv/bin/pip" install -q --disable-pip-version-check -c "$pin" "ml_dtypes>=0.2,<0.6" ||
    echo "install-deps: warning: ml_dtypes did not install from PyPI; clforge's bfloat16 arrays need it" >&2
  "$venv/bin/pip" install -q --disable-pip-version-check -c "$pin" pyclblast ||
    echo "install-deps: note: pyclblast did not install; python -m clforge bench gemm runs without it" >&2
fi

# Intel's OpenCL CPU runtime, the second driver the tests and benches run on
# (tools/install-intel-opencl.sh: from PyPI into _drivers/, not registered
# system-wide). Where it cannot be had (another architecture, no PyPI) PoCL
# serves alone, with a note; CI requires it (CI=true).
if ! "$here/tools/install-intel-opencl.sh" "$venv/bin/pip"; then
  if [ "${CI:-}" = "true" ]; then
    echo "install-deps: CI needs Intel's OpenCL CPU runtime (the second driver of every run)" >&2
    exit 1
  fi
  echo "install-deps: note: Intel's OpenCL CPU runtime is not installed; clforge runs on PoCL alone" >&2
fi
