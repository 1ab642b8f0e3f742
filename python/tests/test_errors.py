"""Every status family raises its exception, with the status name and clforge's
message; a refused call leaves its output untouched."""
import numpy as np
import pytest

import clforge
from clforge import errors
from conftest import assert_close, f64, rand


@pytest.mark.parametrize("offset,cls", [
    (1, clforge.InvalidArgumentError), (2, clforge.InvalidArgumentError), (3, clforge.InvalidArgumentError),
    (4, clforge.UnsupportedError), (5, clforge.OutOfMemoryError), (6, clforge.OutOfMemoryError),
    (7, clforge.OpenCLError), (8, clforge.ValidationError), (9, clforge.InternalError), (10, clforge.OpenCLError),
    (11, clforge.InternalError), (12, clforge.InternalError), (13, clforge.InvalidArgumentError),
    (14, clforge.CommError), (15, clforge.CommError), (16, clforge.CommError)])
def test_each_clforge_status_has_its_family(offset, cls):
    with pytest.raises(cls) as e:
        errors.raise_status(1000 + offset, "detail text")
    assert e.value.status == 1000 + offset
    assert e.value.name.startswith("CLFORGE_") and e.value.name in str(e.value)
    assert "detail text" in str(e.value) and isinstance(e.value, clforge.Error)


def test_opencl_codes():
    with pytest.raises(clforge.OutOfMemoryError, match="CL_MEM_OBJECT_ALLOCATION_FAILURE"):
        errors.raise_status(-4, "x")
    with pytest.raises(clforge.OpenCLError, match="CL_INVALID_VALUE"):
        errors.raise_status(-30, "x")
    # families are also the built-in exceptions Python code catches
    assert issubclass(clforge.InvalidArgumentError, ValueError)
    assert issubclass(clforge.UnsupportedError, NotImplementedError)
    assert issubclass(clforge.OutOfMemoryError, MemoryError)


def test_no_device():
    with pytest.raises(clforge.OpenCLError) as e:
        clforge.Context(device="no such device name")
    assert e.value.name == "CLFORGE_DEVICE_NOT_FOUND" and "no such device name" in e.value.detail


def test_unsupported_algorithm_leaves_out_untouched(rng):
    x, w = rand(rng, (1, 2, 8, 8)), rand(rng, (3, 2, 5, 5))
    out = np.full((1, 3, 4, 4), 7.0, np.float32)
    with pytest.raises(clforge.UnsupportedError) as e:
        clforge.conv2d(x, w, algo="winograd_4x4", out=out)
    assert e.value.name == "CLFORGE_UNSUPPORTED" and "winograd" in e.value.detail.lower()
    assert (out == 7.0).all()


def test_refused_device_call_with_residual_leaves_out_untouched(rng, cl_queue, cla):
    # the residual is copied into out before a beta = 1 call: clforge checks the call first
    x, w = cla.to_device(cl_queue, rand(rng, (1, 2, 8, 8))), cla.to_device(cl_queue, rand(rng, (3, 2, 5, 5)))
    res = cla.to_device(cl_queue, rand(rng, (1, 3, 4, 4)))
    out = cla.to_device(cl_queue, np.full((1, 3, 4, 4), 7.0, np.float32))
    with pytest.raises(clforge.UnsupportedError):
        clforge.conv2d(x, w, algo="winograd_4x4", residual=res, out=out)
    assert (out.get() == 7.0).all()


def test_invalid_argument_from_the_c_library(rng, cl_queue, cla):
    # the C checks see what Python passes through: a window without causal alignment is refused by
    # Python first; a head dimension past clforge's limit is the C library's to refuse
    q = cla.to_device(cl_queue, rand(rng, (1, 1, 2, 300)))
    out = cla.to_device(cl_queue, np.full((1, 1, 2, 300), 3.0, np.float32))
    with pytest.raises(clforge.Error) as e:
        clforge.scaled_dot_product_attention(q, q, q, out=out)
    assert e.value.name in ("CLFORGE_INVALID_ARGUMENT", "CLFORGE_LIMIT_EXCEEDED", "CLFORGE_UNSUPPORTED")
    assert "256" in e.value.detail
    assert (out.get() == 3.0).all()


def test_validation_mode_runs_the_reference(rng):
    ctx = clforge.Context(validate=True)
    assert ctx.validation
    a, b = rand(rng, (5, 4)), rand(rng, (4, 3))
    # a correct result passes validation (a wrong one raises ValidationError: the family test above)
    np.testing.assert_allclose(clforge.matmul(a, b, ctx=ctx), a @ b, rtol=1e-5, atol=1e-5)
    ctx.close()


def test_python_side_errors_come_first(rng):
    with pytest.raises(ValueError, match="Expected 4-D input"):
        clforge.conv2d(rand(rng, (2, 8, 8)), rand(rng, (3, 2, 3, 3)))
    with pytest.raises(ValueError, match="expected input"):
        clforge.conv2d(rand(rng, (1, 4, 8, 8)), rand(rng, (3, 2, 3, 3)))
    with pytest.raises(TypeError):
        clforge.softmax(np.zeros((2, 3), np.float64))
    with pytest.raises(IndexError, match="Dimension out of range"):
        clforge.softmax(np.zeros((2, 3), np.float32), dim=2)


def test_wrong_device_context(rng, cl_queue, cla):
    import pyopencl as cl
    other = cl.Context([cl_queue.device])
    a = cla.to_device(cl_queue, rand(rng, (4, 4)))
    b = cla.to_device(cl.CommandQueue(other), rand(rng, (4, 4)))
    with pytest.raises(ValueError, match="different OpenCL contexts"):
        clforge.matmul(a, b)


def test_queue_whose_context_was_released(rng, cl_queue):
    """A queue whose pyopencl Context was dropped (its last application
    reference to the cl_context): PoCL keeps the context usable, Intel's
    runtime does not. clforge then either works correctly or says why, with
    an OpenCLError from Context(queue=...), never a half-made context."""
    import gc
    import pyopencl as cl
    q = cl.CommandQueue(cl.Context([cl_queue.device]))
    gc.collect()
    try:
        ctx = clforge.Context(queue=q)
    except clforge.OpenCLError as e:
        assert "keep its own reference to the context" in str(e)
        return
    a, b = rand(rng, (6, 4)), rand(rng, (4, 3))
    assert_close(clforge.matmul(a, b, ctx=ctx), f64(a) @ f64(b), np.float32, "queue of a released context")
    ctx.close()


def test_optional_import_reasons(monkeypatch):
    """An optional package that is missing says so; one that is installed but
    breaks on import gives its own exception (here a numpy C-API failure)."""
    from clforge import _optional
    monkeypatch.setitem(__import__("sys").modules, "pyclblast_absent_for_test", None)
    m, err = _optional.load("pyclblast_absent_for_test")
    assert m is None and _optional.missing(err, "pyclblast_absent_for_test")
    assert _optional.describe(err, "pyclblast_absent_for_test") == "pyclblast_absent_for_test is not installed"
    broken = ImportError("numpy.core.multiarray failed to import")
    assert not _optional.missing(broken, "matplotlib")
    why = _optional.describe(broken, "matplotlib")
    assert why.startswith("matplotlib is installed but failed to import: ImportError: numpy.core.multiarray")
    assert "numpy %s from" % np.__version__ in why
    # a dependency of the package missing is not the package missing
    assert not _optional.missing(ModuleNotFoundError("No module named 'PIL'", name="PIL"), "matplotlib")
