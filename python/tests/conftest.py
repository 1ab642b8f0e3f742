"""Shared fixtures. The tests are hermetic: before clforge is imported, the
tuning files point into a temporary directory (ctest gives each test a home
of its own as well), so no run reads or writes the user's clforge files."""
import os
import tempfile

_tmp = tempfile.mkdtemp(prefix="clforge-pytest-")
os.environ["CLFORGE_TUNING_FILE"] = os.path.join(_tmp, "tuning.json")
os.environ["CLFORGE_SYSTEM_TUNING_FILE"] = os.path.join(_tmp, "system-tuning.json")
for _v in ("CLFORGE_PARAMS", "CLFORGE_GEMM_PATH", "CLFORGE_VALIDATE", "CLFORGE_CONV_ALGO"):
    os.environ.pop(_v, None)

import numpy as np  # noqa: E402
import pytest  # noqa: E402

import clforge  # noqa: E402

BF16 = clforge.bfloat16
DTYPES = [np.dtype(np.float32), np.dtype(np.float16), BF16]
# Relative tolerance per storage type: the output's rounding plus f32 accumulation.
TOL = {np.dtype(np.float32): 2e-5, np.dtype(np.float16): 2e-3, BF16: 1.6e-2}


def dname(dt):
    return {np.dtype(np.float32): "f32", np.dtype(np.float16): "f16"}.get(np.dtype(dt), "bf16")


def rand(rng, shape, dtype=np.float32, scale=1.0):
    """Random values already representable in dtype, and their float64 twin."""
    x = (rng.standard_normal(shape) * scale).astype(np.float32).astype(dtype)
    return x


def f64(x):
    if hasattr(x, "get"):
        x = x.get()
    return np.asarray(x).astype(np.float32).astype(np.float64)


def assert_close(got, want, dtype, what="", factor=1.0):
    got, want = f64(got), np.asarray(want, dtype=np.float64)
    assert got.shape == want.shape, "%s: shape %s, expected %s" % (what, got.shape, want.shape)
    tol = TOL[np.dtype(dtype)] * factor
    finite = np.isfinite(want)
    assert (np.isfinite(got) == finite).all(), "%s: non-finite values differ" % what
    if not finite.all():
        assert (got[~finite] == want[~finite]).all(), "%s: infinities differ" % what
    scale = max(1.0, float(np.abs(want[finite]).max()) if finite.any() else 1.0)
    err = float(np.abs(got[finite] - want[finite]).max()) if finite.any() else 0.0
    assert err <= tol * scale, "%s: max error %.3g > %.3g (scale %.3g)" % (what, err, tol * scale, scale)


@pytest.fixture
def rng():
    return np.random.default_rng(1234)


@pytest.fixture(scope="session")
def cl_queue():
    """A pyopencl queue on the device clforge uses (CLFORGE_DEVICE), holding
    its pyopencl context (skipped, with the reason, without pyopencl)."""
    pytest.importorskip("pyopencl", reason="pyopencl is not installed (Debian: python3-pyopencl)")
    try:
        return clforge.pyopencl_queue(profiling=True)
    except RuntimeError as e:
        pytest.skip(str(e))


@pytest.fixture(scope="session")
def cla(cl_queue):
    import pyopencl.array
    return pyopencl.array
