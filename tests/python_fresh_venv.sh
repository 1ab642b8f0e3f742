#!/bin/sh
# tests/python_fresh_venv.sh: `pip install ./python` the way a Debian user
# does it, into a fresh virtual environment that sees Debian's packages
# (/usr/bin/python3 -m venv --system-site-packages: python3-numpy,
# python3-pyopencl, python3-matplotlib), then check that
#   1. numpy is still Debian's (pip replaced nothing that Debian's pyopencl,
#      matplotlib and scipy were built for),
#   2. those packages still import,
#   3. python -m clforge info, bench (pyopencl) and plot (matplotlib) work
#      from the installed package,
#   4. the examples in python/examples run and match numpy (they assert).
# Needs PyPI (scikit-build-core for the build, ml_dtypes) and builds the C
# library inside the wheel (minutes). Exit 77 (skipped) with the reason when
# Debian's python3 lacks venv, numpy, pyopencl or matplotlib.
#
#   tests/python_fresh_venv.sh [WORKDIR]   (default: a temporary directory, removed after)
#
# The device is the one clforge picks (CLFORGE_DEVICE, OCL_ICD_VENDORS apply).
set -eu

here=$(cd "$(dirname "$0")/.." && pwd)
sys_py=/usr/bin/python3
if ! "$sys_py" -c "import venv, ensurepip, numpy, pyopencl, matplotlib" 2> /dev/null; then
  echo "skipped: $sys_py lacks venv/ensurepip, numpy, pyopencl or matplotlib" \
       "(Debian: python3-venv python3-numpy python3-pyopencl python3-matplotlib)"
  exit 77
fi

if [ $# -ge 1 ]; then
  work=$1
  mkdir -p "$work"
else
  work=$(mktemp -d "${TMPDIR:-/tmp}/clforge-fresh-venv.XXXXXX")
  trap 'rm -rf "$work"' EXIT
fi
venv=$work/venv
rm -rf "$venv"
# The package must come from the venv, not from a source tree or a build.
unset PYTHONPATH CLFORGE_LIBRARY CLFORGE_COMMAND PIP_CONSTRAINT PIP_REQUIRE_VIRTUALENV || true
export MPLBACKEND=Agg

step() { echo "== $*"; }

step "fresh venv over Debian's packages: $venv"
"$sys_py" -m venv --system-site-packages "$venv"
py=$venv/bin/python
before=$("$sys_py" -c "import numpy; print(numpy.__version__, numpy.__file__)")
echo "Debian's numpy: $before"

step "pip install $here/python (builds the C library)"
start=$(date +%s)
# The wheel's CMake build in WORKDIR, not python/build: nothing of an earlier build is reused.
"$py" -m pip install --disable-pip-version-check \
  --config-settings=build-dir="$work/wheel-build" "$here/python"
echo "pip install took $(( $(date +%s) - start )) s"

step "numpy is still Debian's"
after=$("$py" -c "import numpy; print(numpy.__version__, numpy.__file__)")
echo "venv's numpy: $after"
if [ "$after" != "$before" ]; then
  echo "FAIL: pip install ./python replaced numpy ($before -> $after)" >&2
  "$py" -m pip list --disable-pip-version-check --path "$("$py" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')" >&2
  exit 1
fi

step "Debian's pyopencl and matplotlib still import; clforge comes from the venv"
cd "$work"  # not the source tree: python/src must not shadow the installed package
"$py" - << 'EOF'
import sys
import matplotlib, ml_dtypes, numpy, pyopencl  # noqa: F401  (a failure here is the defect)
import clforge
assert clforge.__file__.startswith(sys.prefix), "clforge from %s, not the venv %s" % (clforge.__file__, sys.prefix)
assert clforge.library_path.startswith(sys.prefix), clforge.library_path
print("clforge", clforge.__version__, "from", clforge.__file__, "; ml_dtypes", ml_dtypes.__version__,
      "; pyopencl", pyopencl.VERSION_TEXT, "; matplotlib", matplotlib.__version__)
EOF

step "python -m clforge info"
"$py" -m clforge info > info.txt
cat info.txt
# pyclblast is only in the [bench] extra: absent is fine, broken is not.
if grep -q "failed to import" info.txt ||
   grep -Eq "^ *(ml_dtypes|pyopencl|matplotlib) +\(not installed\)" info.txt; then
  echo "FAIL: ml_dtypes, pyopencl or matplotlib is missing, or a package is broken (above)" >&2
  exit 1
fi

step "python -m clforge bench gemm --json (pyopencl arrays), then plot"
"$py" -m clforge bench gemm --sizes 64 --runs 2 --warmup 1 --no-peers --no-peak --json > gemm.jsonl
cat gemm.jsonl
"$py" -m clforge plot gemm.jsonl -o roofline.png
"$py" -c "import sys; assert open('roofline.png', 'rb').read(8) == b'\x89PNG\r\n\x1a\n', 'not a PNG'"

step "python/examples (each checks its result against numpy)"
"$py" "$here/python/examples/matmul_timing.py" --size 128 --runs 2
"$py" "$here/python/examples/decode_gqa.py" --heads 4 --kv-heads 2 --dim 64 --prompt 64 --steps 4
"$py" "$here/python/examples/resnet_bottleneck.py" --batch 1 --size 8 --channels 32 --runs 1
"$py" "$here/python/examples/paged_decode.py" --seqs 2 --steps 4

echo "python_fresh_venv: OK"
