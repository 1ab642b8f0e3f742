#!/bin/sh
# install_test.sh CMAKE BUILD_DIR EXAMPLES_DIR CC TUNE_ON_INSTALL
# Installs the build into a temporary prefix, then consumes it like a user:
# the examples project through find_package(clforge), a one-file program
# through pkg-config, and the installed clforge command.
set -eu
cmake=$1 build=$2 examples=$3 cc=$4 tune_on_install=${5:-1}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/clforge-install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
passed=0 failed=0
check() { if "$@"; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL: $*"; fi; }

# Install-time tuning (CLFORGE_TUNE_ON_INSTALL) kept small: one shape class,
# a few candidates.
CLFORGE_INSTALL_TUNE_BUDGET=60 CLFORGE_INSTALL_TUNE_ARGS="--shapes small --dtypes f32 --max-evals 3 --no-peers" \
  "$cmake" --install "$build" --prefix "$prefix" > "$tmp/install.log"
check test -f "$prefix/include/clforge/clforge.h"
libdir=$(dirname "$(find "$prefix" -name 'libclforge.so' | head -n 1)")
check test -f "$libdir/libclforge.a"
check test -f "$libdir/cmake/clforge/clforgeConfig.cmake"
check test -f "$libdir/cmake/clforge/clforgeConfigVersion.cmake"
check test -f "$libdir/pkgconfig/clforge.pc"

# find_package, in a fresh project that knows only the prefix
"$cmake" -S "$examples" -B "$tmp/examples" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_C_COMPILER="$cc" > "$tmp/cfg.log" 2>&1 \
  || { cat "$tmp/cfg.log"; exit 1; }
"$cmake" --build "$tmp/examples" > "$tmp/build.log" 2>&1 || { cat "$tmp/build.log"; exit 1; }
check "$tmp/examples/convert_buffer"
check "$tmp/examples/gemm_4096" 256
check "$tmp/examples/conv_layer" 1 16 14 16
check test -x "$tmp/examples/train_cnn" # run by the example_train_cnn test
check "$tmp/examples/batched_decode" --kv f16 --seqs 5 --block 32 --check
# a version the package does not satisfy is refused
mkdir -p "$tmp/badver"
printf 'cmake_minimum_required(VERSION 3.25)\nproject(v C)\nfind_package(clforge 99.0 REQUIRED)\n' > "$tmp/badver/CMakeLists.txt"
check sh -c "! '$cmake' -S '$tmp/badver' -B '$tmp/badver/b' -DCMAKE_PREFIX_PATH='$prefix' > /dev/null 2>&1"

# pkg-config: the .pc file is relocatable (it finds its prefix from where it lies)
if command -v pkg-config > /dev/null; then
  export PKG_CONFIG_PATH="$libdir/pkgconfig"
  check pkg-config --exists clforge
  flags=$(pkg-config --cflags --libs clforge)
  # shellcheck disable=SC2086
  check "$cc" -std=c11 -Wall -Wextra -Wpedantic -Werror "$examples/convert_buffer.c" -o "$tmp/pc_example" $flags
  check env LD_LIBRARY_PATH="$libdir" "$tmp/pc_example"
  # an application that does not choose CL_TARGET_OPENCL_VERSION gets no
  # note from the OpenCL headers (the public header gives a default)
  printf '#include <clforge/clforge.h>\nint main(void) { return clforge_version_number() == 0; }\n' > "$tmp/quiet.c"
  # shellcheck disable=SC2086
  "$cc" -std=c11 -Wall -Wextra -Wpedantic -c "$tmp/quiet.c" -o "$tmp/quiet.o" $(pkg-config --cflags clforge) > "$tmp/quiet.log" 2>&1
  check test ! -s "$tmp/quiet.log"
else
  echo "SKIP pkg-config checks: pkg-config not installed (tools/install-deps.sh installs it)"
fi

# the installed command runs from the prefix (RPATH to the installed library)
if [ -x "$prefix/bin/clforge" ]; then
  check "$prefix/bin/clforge" --version
  # install-time tuning wrote the system tuning file, and a fresh process
  # (no user file) takes its parameters from it
  if [ "$tune_on_install" = 0 ]; then
    # configured with -DCLFORGE_TUNE_ON_INSTALL=OFF: the install says so and tunes nothing
    check grep -q "install-time tuning is off" "$tmp/install.log"
    check test ! -e "$prefix/share/clforge/tuning.json"
  elif grep -q "install-time tuning done" "$tmp/install.log"; then
    check test -s "$prefix/share/clforge/tuning.json"
    check grep -q '"format_version"' "$prefix/share/clforge/tuning.json"
    CLFORGE_TUNING_FILE=off CLFORGE_SYSTEM_TUNING_FILE="$prefix/share/clforge/tuning.json" \
      "$prefix/bin/clforge" explain gemm 64 64 64 > "$tmp/explain.log" 2>&1
    check grep -q "parameters from tuned" "$tmp/explain.log"
    # a damaged system file is ignored: the call falls back to the defaults
    printf '{"format": "clforge-tuning", "format_ver' > "$tmp/damaged.json"
    CLFORGE_TUNING_FILE=off CLFORGE_SYSTEM_TUNING_FILE="$tmp/damaged.json" \
      "$prefix/bin/clforge" explain gemm 64 64 64 > "$tmp/explain2.log" 2>&1
    check grep -q "parameters from device-default" "$tmp/explain2.log"
  else
    echo "FAIL: install-time tuning did not run:"; cat "$tmp/install.log"
    failed=$((failed + 1))
  fi
fi
# with no OpenCL driver the install still succeeds and says why tuning was skipped
mkdir -p "$tmp/no-icd"
if [ "$tune_on_install" = 0 ]; then
  : # nothing is tuned either way
elif (unset OCL_ICD_FILENAMES; OCL_ICD_VENDORS="$tmp/no-icd" CLFORGE_INSTALL_TUNE_BUDGET=5 \
      "$cmake" --install "$build" --prefix "$tmp/prefix2" > "$tmp/install2.log" 2>&1); then
  check grep -q "install-time tuning skipped" "$tmp/install2.log"
  check test ! -e "$tmp/prefix2/share/clforge/tuning.json"
else
  echo "FAIL: install without a driver failed:"; cat "$tmp/install2.log"
  failed=$((failed + 1))
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
