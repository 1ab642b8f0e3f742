"""clforge.matmul against numpy float64: dtypes, strides, broadcasting, epilogue, out=."""
import numpy as np
import pytest

import clforge
from conftest import BF16, DTYPES, assert_close, dname, f64, rand

GELU_ERF = np.vectorize(lambda v: 0.5 * v * (1 + __import__("math").erf(v / 2 ** 0.5)))


@pytest.mark.parametrize("dt", DTYPES, ids=dname)
def test_dtypes_and_transposed_views(rng, dt):
    a = rand(rng, (33, 20), dt)
    b = rand(rng, (20, 17), dt)
    want = f64(a) @ f64(b)
    got = clforge.matmul(a, b)
    assert got.dtype == np.dtype(dt) and isinstance(got, np.ndarray)
    assert_close(got, want, dt, "plain")
    # transposes come from the strides (numpy copies; the device test checks no copy)
    assert_close(clforge.matmul(np.ascontiguousarray(a.T).T, b), want, dt, "a transposed view")


def test_mixed_dtypes_give_f32(rng):
    a, b = rand(rng, (8, 9), np.float16), rand(rng, (9, 5), BF16)
    got = clforge.matmul(a, b)
    assert got.dtype == np.float32
    assert_close(got, f64(a) @ f64(b), np.float32, "mixed")


def test_broadcast_batches_and_vectors(rng):
    a = rand(rng, (4, 1, 6, 5))
    b = rand(rng, (3, 5, 7))
    got = clforge.matmul(a, b)
    assert got.shape == (4, 3, 6, 7)
    assert_close(got, np.matmul(f64(a), f64(b)), np.float32, "broadcast")
    v = rand(rng, (5,))
    assert clforge.matmul(a, v).shape == (4, 1, 6)
    assert_close(clforge.matmul(a, v), np.matmul(f64(a), f64(v)), np.float32, "matrix @ vector")
    assert_close(clforge.matmul(v, b), np.matmul(f64(v), f64(b)), np.float32, "vector @ matrix")
    assert_close(clforge.matmul(v, v), np.matmul(f64(v), f64(v)), np.float32, "dot")


def test_epilogue_alpha_beta_out(rng):
    a, b = rand(rng, (6, 4)), rand(rng, (4, 9))
    bias = rand(rng, (9,))
    got = clforge.matmul(a, b, bias=bias, activation="relu", alpha=0.5)
    assert_close(got, np.maximum(0.5 * (f64(a) @ f64(b)) + f64(bias), 0), np.float32, "relu(alpha ab + bias)")
    row_bias = rand(rng, (6, 1))
    assert_close(clforge.matmul(a, b, bias=row_bias, activation="gelu"),
                 GELU_ERF(f64(a) @ f64(b) + f64(row_bias)), np.float32, "gelu, bias per row", factor=5)
    out = rand(rng, (6, 9))
    c0 = f64(out).copy()
    r = clforge.matmul(a, b, beta=2.0, out=out)
    assert r is out
    assert_close(out, f64(a) @ f64(b) + 2.0 * c0, np.float32, "beta reads out")
    # a transposed out is written through its strides
    outt = np.zeros((9, 6), np.float32).T
    clforge.matmul(a, b, out=outt)
    assert_close(outt, f64(a) @ f64(b), np.float32, "transposed out")


def test_shape_and_dtype_errors(rng):
    a, b = rand(rng, (3, 4)), rand(rng, (5, 2))
    with pytest.raises(ValueError, match="mismatch in its core dimension"):
        clforge.matmul(a, b)
    with pytest.raises(TypeError, match="float32, float16 and bfloat16"):
        clforge.matmul(a.astype(np.float64), rand(rng, (4, 2)))
    with pytest.raises(ValueError, match="broadcast"):
        clforge.matmul(rand(rng, (2, 3, 4)), rand(rng, (3, 4, 2)))
    with pytest.raises(ValueError, match="beta"):
        clforge.matmul(a, rand(rng, (4, 2)), beta=1.0)
    with pytest.raises(ValueError, match="activation"):
        clforge.matmul(a, rand(rng, (4, 2)), activation="tanh")


def test_pyopencl_queue_keeps_its_context(rng, cla):
    """clforge.pyopencl_queue: clforge's device (same cl_device_id), and a
    queue that stays usable with no other reference to its pyopencl context.
    Intel's OpenCL runtime invalidates a context whose last application
    reference is gone (every call on it: INVALID_CONTEXT), so this failed
    there while the tests' queue came from CommandQueue(Context([dev]))."""
    import gc
    q = clforge.pyopencl_queue()
    gc.collect()
    assert q.device.int_ptr == clforge.default_context().device_ptr
    assert q.context.devices[0].int_ptr == q.device.int_ptr
    a, b = rand(rng, (9, 7)), rand(rng, (7, 5))
    got = clforge.matmul(cla.to_device(q, a), cla.to_device(q, b))
    assert_close(got, f64(a) @ f64(b), np.float32, "queue from pyopencl_queue")


def test_device_arrays_zero_copy(rng, cl_queue, cla):
    a, b = rand(rng, (2, 16, 12)), rand(rng, (2, 12, 10))
    da, db = cla.to_device(cl_queue, a), cla.to_device(cl_queue, b)
    cl_queue.finish()
    out = cla.empty(cl_queue, (2, 16, 10), np.float32)
    before = out.base_data.int_ptr
    r = clforge.matmul(da, db, out=out)
    assert r is out and out.base_data.int_ptr == before
    # the result's event is clforge's kernel on the caller's queue, nothing else (no transfer)
    assert len(out.events) == 1
    ev = out.events[-1]
    assert ev.command_queue.int_ptr == cl_queue.int_ptr
    import pyopencl as cl
    assert ev.command_type == cl.command_type.NDRANGE_KERNEL
    assert_close(out, np.matmul(f64(a), f64(b)), np.float32, "device")
    # transposed and sliced device views pass through as strides and offsets
    # b stored as (2, 10, 12), seen as (2, 12, 10): column-major matrices
    dbt = cla.to_device(cl_queue, np.ascontiguousarray(b.transpose(0, 2, 1))).transpose((0, 2, 1))
    assert dbt.strides[1] == 4 and not dbt.flags.c_contiguous
    got = clforge.matmul(da, dbt)
    assert type(got).__name__ == "Array"
    assert_close(got, np.matmul(f64(a), f64(b)), np.float32, "transposed device view")
    # a column-major out (C^T computed row-major) with a bias per column, then per row
    out_mem = cla.zeros(cl_queue, (2, 10, 16), np.float32)
    outt = out_mem.transpose((0, 2, 1))
    col_bias, row_bias = rand(rng, (10,)), rand(rng, (16, 1))
    r = clforge.matmul(da, dbt, bias=cla.to_device(cl_queue, col_bias), out=outt)
    assert r is outt
    assert_close(out_mem.get().transpose(0, 2, 1), np.matmul(f64(a), f64(b)) + f64(col_bias), np.float32,
                 "column-major out, column bias")
    clforge.matmul(da, dbt, bias=cla.to_device(cl_queue, row_bias), activation="relu", out=outt)
    assert_close(out_mem.get().transpose(0, 2, 1), np.maximum(np.matmul(f64(a), f64(b)) + f64(row_bias), 0), np.float32,
                 "column-major out, row bias")
    got = clforge.matmul(da[1], db[1])
    assert_close(got, f64(a[1]) @ f64(b[1]), np.float32, "offset view")


def test_device_strides_that_need_a_copy_are_refused(rng, cl_queue, cla):
    a = cla.to_device(cl_queue, rand(rng, (8, 8)))
    b = cla.to_device(cl_queue, rand(rng, (8, 8)))
    with pytest.raises(ValueError, match="strided along both"):
        clforge.matmul(a[::2, ::2], b[:4, :4])
    # a row repeated by a 0 stride (a broadcast view) would read as a tight matrix: refused
    rows = cla.Array(cl_queue, (8, 8), np.float32, strides=(0, 4), data=a.base_data)
    with pytest.raises(ValueError, match="stride of 0"):
        clforge.matmul(rows, b)
    out = cla.to_device(cl_queue, np.full((8, 8), 4.0, np.float32))
    with pytest.raises(ValueError, match="overlap"):
        clforge.matmul(a, b, out=cla.Array(cl_queue, (8, 8), np.float32, strides=(0, 4), data=out.base_data))
    assert (out.get() == 4.0).all()


def test_threads_share_the_default_context(rng):
    # each call holds its context's lock: four threads on one context, every result right
    import threading
    a, b = rand(rng, (16, 8)), rand(rng, (8, 12))
    want = f64(a) @ f64(b)
    errors = []

    def work():
        for _ in range(20):
            try:
                assert_close(clforge.matmul(a, b), want, np.float32, "threaded")
            except Exception as e:  # collected: an exception in a thread would not fail the test
                errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors[0]
