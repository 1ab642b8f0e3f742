#!/bin/sh
# The layers below the ops include no ops header and name no op's symbol:
# src/core (infrastructure), src/desc (descriptors), src/families (family
# descriptors and the registry), src/ref (CPU references) and
# src/providers (peer libraries) are what the ops build on; the tuner
# (src/tuning) runs the ops and registers their tune hooks from above
# (src/tuning/tunables.c). They include nothing from src/tuning/ either
# (the tuning file's reader and the clock are runtime services: src/core).
# Usage: layering.sh SOURCE_DIR
set -u
src=${1:?usage: layering.sh SOURCE_DIR}/src
status=0
files=0
for layer in core desc families ref providers; do
  for f in "$src/$layer"/*.c "$src/$layer"/*.h; do
    [ -f "$f" ] || continue
    files=$((files + 1))
    # an include that reaches into src/ops/ (../ops/x.h, ops/x.h)
    if grep -nE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"([^"]*/)?ops/' "$f"; then
      echo "FAIL ${f#"$src"/}: includes an ops header (layer $layer is below src/ops)"
      status=1
    fi
    # a tuning header
    if grep -nE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"([^"]*/)?tuning/' "$f"; then
      echo "FAIL ${f#"$src"/}: includes a tuning header (layer $layer is below the tuner)"
      status=1
    fi
    # an op's tune hook named downward (clforge__tune_<op>, src/ops/*_tune.c)
    if grep -nE 'clforge__tune_[a-z_0-9]+' "$f" | grep -vE 'clforge__tune_(op|parse_dtypes|compute_type)\b'; then
      echo "FAIL ${f#"$src"/}: names an op's tune hook (register it in src/tuning/tunables.c)"
      status=1
    fi
  done
done
# The call sequence is shared (src/ops/op_call.c): no other file in
# src/ops/ enqueues an empty call's marker of its own.
for f in "$src"/ops/*.c; do
  [ "${f##*/}" = op_call.c ] && continue
  if grep -n 'clEnqueueMarker' "$f"; then
    echo "FAIL ${f#"$src"/}: enqueues a marker (use clforge__call_marker, src/ops/op_call.h)"
    status=1
  fi
done
if [ "$files" -lt 50 ]; then
  echo "FAIL only $files files below src/ops under $src: wrong directory?"
  status=1
fi
[ "$status" -eq 0 ] &&
  echo "$files files below src/ops: no ops header, no op's tune hook, no tuning header; no marker in src/ops but op_call.c"
exit "$status"
