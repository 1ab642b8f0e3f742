#!/bin/sh
# Install Intel's OpenCL CPU runtime, clforge's second CPU driver, from PyPI
# into _drivers/ of this checkout (git ignores it), without registering it
# system-wide. What a program needs to see it: OCL_ICD_VENDORS pointing at
# _drivers/vendors, which lists the system's ICDs (PoCL, any GPU's) plus this
# one. clforge's tests, benches and `clforge info` point there themselves.
#
# The three wheels (intel-opencl-rt; tbb; intel-cmplr-lib-rt, which provides
# libsvml.so and libimf.so though the first does not declare it) are
# downloaded without dependencies, so nothing else (numpy above all) is
# touched; their data/lib folders together hold the runtime, and
# libintelocl.so finds its siblings through $ORIGIN.
#
# usage: tools/install-intel-opencl.sh [PIP]   (PIP: a pip to download with)
# Exit status: 0 installed (or already there); 3 not installable on this
# machine (another architecture, no PyPI), with the reason on stderr.
set -eu

here=$(cd "$(dirname "$0")/.." && pwd)
dest="$here/_drivers"
lib="$dest/intel-opencl/lib"
vendors="$dest/vendors"
# Pinned: a new runtime is a new driver to test, not a silent upgrade.
wheels="intel-opencl-rt==2026.2.0 intel-cmplr-lib-rt==2026.2.0 tbb==2023.2.0"
stamp="$dest/intel-opencl/installed"
pip=${1:-}

if [ "$(uname -m)" != "x86_64" ]; then
  echo "install-intel-opencl: Intel's OpenCL CPU runtime is built for x86_64 only ($(uname -m) here): PoCL alone" >&2
  exit 3
fi

if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$wheels" ]; then
  if [ -z "$pip" ]; then
    if [ -x "$here/.venv/bin/pip" ]; then pip="$here/.venv/bin/pip"; else pip="/usr/bin/python3 -m pip"; fi
  fi
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  echo "install-intel-opencl: downloading $wheels"
  # shellcheck disable=SC2086
  if ! $pip download -q --disable-pip-version-check --no-deps --only-binary=:all: -d "$tmp" $wheels; then
    echo "install-intel-opencl: the wheels did not download (no PyPI here?): PoCL alone" >&2
    exit 3
  fi
  rm -rf "$dest/intel-opencl"
  mkdir -p "$lib"
  # Each wheel's data/lib into one folder; files the wheels carry twice
  # (a library under its soname and its full version: zip has no links)
  # become links, which saves some 300 MB.
  /usr/bin/python3 - "$tmp" "$lib" << 'EOF'
import hashlib, os, sys, zipfile
src, lib = sys.argv[1], sys.argv[2]
seen = {}
for whl in sorted(os.listdir(src)):
    with zipfile.ZipFile(os.path.join(src, whl)) as z:
        for info in z.infolist():
            parts = info.filename.split("/")
            if len(parts) != 4 or not parts[0].endswith(".data") or parts[1:3] != ["data", "lib"] or not parts[3]:
                continue
            data = z.read(info)
            out = os.path.join(lib, parts[3])
            digest = hashlib.sha256(data).hexdigest()
            if digest in seen:
                os.symlink(seen[digest], out)
                continue
            seen[digest] = parts[3]
            with open(out, "wb") as f:
                f.write(data)
            os.chmod(out, 0o755 if ".so" in parts[3] else 0o644)
EOF
  if [ ! -f "$lib/libintelocl.so" ] || [ ! -f "$lib/libsvml.so" ] || [ ! -e "$lib/libtbb.so.12" ]; then
    echo "install-intel-opencl: the wheels lacked libintelocl.so, libsvml.so or libtbb.so.12" >&2
    exit 1
  fi
  echo "$wheels" > "$stamp"
fi

# The vendors folder: every ICD the system registers, plus this runtime's
# (re-made each time, so a driver installed later joins it).
mkdir -p "$vendors"
rm -f "$vendors"/*.icd
for icd in /etc/OpenCL/vendors/*.icd; do
  [ -f "$icd" ] && cp "$icd" "$vendors/"
done
echo "$lib/libintelocl.so" > "$vendors/intel-cpu.icd"
echo "install-intel-opencl: Intel's OpenCL CPU runtime is in $lib; show it to a program with"
echo "  export OCL_ICD_VENDORS=$vendors"
