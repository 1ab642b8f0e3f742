#!/bin/sh
# tests/python_check.sh PYTHON VENV TEST_FILE: run one file of the Python
# package's tests with pytest, under PYTHON, else VENV's python (README
# command 1 makes it), else python3; exit 77 (ctest: skipped) with the reason
# when that interpreter lacks numpy or pytest.
py=$1
venv=$2
file=$3
if [ -z "$py" ]; then
  if [ -x "$venv/bin/python" ]; then py=$venv/bin/python; else py=$(command -v python3); fi
fi
if [ -z "$py" ] || ! "$py" -c "import numpy, pytest" 2> /dev/null; then
  echo "skipped: ${py:-no Python interpreter} cannot import numpy and pytest; README command 1 (tools/install-deps.sh) makes .venv with them, or configure with -DCLFORGE_PYTHON=..."
  exit 77
fi
# -p no:cacheprovider: nothing is written into the source tree.
exec "$py" -m pytest -q -p no:cacheprovider -o console_output_style=classic "$file"
