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


def _literals(path):
    import ast
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read())
    return {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)}


def test_names_come_from_the_library():
    """The package's lists of names are the library's (clforge_registry_name),
    and no module keeps a copy of its own that could drift."""
    import importlib
    conv2d = importlib.import_module("clforge.conv2d")  # the module; clforge.conv2d is its function
    conv = _capi.registry_names(_capi.REGISTRY_CONV_ALGOS)
    assert conv2d.ALGOS == conv
    assert conv == tuple(_capi.text(_capi.lib.clforge_conv_algo_name(i)) for i in range(len(conv)))
    attn = _capi.registry_names(_capi.REGISTRY_ATTENTION_ALGOS)
    assert attn == tuple(_capi.text(_capi.lib.clforge_attention_algo_name(i)) for i in range(len(attn)))
    families = _capi.registry_names(_capi.REGISTRY_FAMILIES)
    tuned = _capi.registry_names(_capi.REGISTRY_TUNED_FAMILIES)
    assert set(tuned) < set(families) and len(set(families)) == len(families)
    for algo in conv[1:]:
        assert "conv_" + algo in families
    count = ctypes.c_int(-1)
    assert _capi.lib.clforge_registry_count(_capi.REGISTRY_ATTENTION_ALGOS + 1, ctypes.byref(count)) != 0
    # A module naming three or more algorithms of an op keeps a copy of the
    # list (ops' and families' names are also the package's function names).
    lists = {"conv algorithms": set(conv[1:]), "attention algorithms": set(attn)}
    here = os.path.dirname(os.path.abspath(_capi.__file__))
    for name in sorted(os.listdir(here)):
        if name.endswith(".py"):
            found = _literals(os.path.join(here, name))
            for what, names in lists.items():
                assert len(found & names) < 3, "%s names %s %s: read them with registry_names" % (
                    name, what, sorted(found & names))
