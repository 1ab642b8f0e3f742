"""The ctypes declarations against the C compiler's layout of every public struct."""
import ctypes
import os
import subprocess

import pytest

from clforge import _capi


def test_struct_layouts_match_the_header():
    probe = os.environ.get("CLFORGE_ABI_LAYOUT")
    if not probe:
        pytest.skip("CLFORGE_ABI_LAYOUT is not set (ctest sets it to build/tests/abi_layout)")
    out = subprocess.run([probe], capture_output=True, text=True, check=True).stdout.split("\n")
    seen = 0
    for line in filter(None, out):
        name, kind, value = line.split()[0], line.split()[1], int(line.split()[-1])
        if kind == "size":
            assert ctypes.sizeof(_capi.STRUCTS[name]) == value, "sizeof(%s)" % name
        else:
            struct, field = name.split(".")
            assert getattr(_capi.STRUCTS[struct], field).offset == value, name
        seen += 1
    assert seen == len(_capi.STRUCTS) + sum(len(s._fields_) for s in _capi.STRUCTS.values())
