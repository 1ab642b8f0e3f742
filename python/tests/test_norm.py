"""clforge.layer_norm / rms_norm / norm_backward against float64 numpy
written here from the definitions (and the backward against central
differences of that forward)."""
import numpy as np
import pytest

import clforge
from conftest import DTYPES, assert_close, dname, f64, rand


def ref(x, w, b, eps, rms):
    """In float64 throughout (f64 widens clforge's storage types exactly)."""
    x = f64(x) if x.dtype != np.float64 else x
    mean = 0.0 if rms else x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    y = (x - mean) / np.sqrt(var + eps)
    if w is not None:
        y = y * (f64(w) if w.dtype != np.float64 else w)
    if b is not None:
        y = y + (f64(b) if b.dtype != np.float64 else b)
    return y


@pytest.mark.parametrize("dt", DTYPES, ids=dname)
def test_layer_norm_and_rms_norm(rng, dt):
    x, w, b = rand(rng, (3, 5, 48), dt, 2.0) + 1, rand(rng, (48,), dt), rand(rng, (48,), dt)
    assert_close(clforge.layer_norm(x, (48,), w, b), ref(x, w, b, 1e-5, False), dt, "layer_norm", factor=4)
    assert_close(clforge.layer_norm(x, 48), ref(x, None, None, 1e-5, False), dt, "layer_norm, no affine", factor=4)
    assert_close(clforge.rms_norm(x, [48], w, eps=1e-6), ref(x, w, None, 1e-6, True), dt, "rms_norm", factor=4)
    y = clforge.layer_norm(x.reshape(3, 5, 6, 8), (6, 8), w.reshape(6, 8), b.reshape(6, 8))
    assert y.shape == (3, 5, 6, 8)
    assert_close(y.reshape(3, 5, 48), ref(x, w, b, 1e-5, False), dt, "two normalized axes", factor=4)


@pytest.mark.parametrize("rms", [False, True])
def test_backward_against_central_differences(rng, rms):
    x, w, g = rand(rng, (4, 9), np.float32) * 2, rand(rng, (9,), np.float32) + 1, rand(rng, (4, 9), np.float32)
    dx, dw, db = clforge.norm_backward(g, x, (9,), w, rms=rms, bias_grad=True)
    x64, w64, g64 = f64(x), f64(w), f64(g)

    def loss(xv, wv, bv):
        y = ref(xv, wv, None, 1e-5, rms) + bv
        return float((y * g64).sum())

    h = 1e-6
    zero = np.zeros(9)
    num_dx, num_dw, num_db = np.zeros_like(x64), np.zeros_like(w64), np.zeros(9)
    for idx in np.ndindex(*x64.shape):
        e = np.zeros_like(x64)
        e[idx] = h
        num_dx[idx] = (loss(x64 + e, w64, zero) - loss(x64 - e, w64, zero)) / (2 * h)
    for j in range(9):
        e = np.zeros(9)
        e[j] = h
        num_dw[j] = (loss(x64, w64 + e, zero) - loss(x64, w64 - e, zero)) / (2 * h)
        num_db[j] = (loss(x64, w64, zero + e) - loss(x64, w64, zero - e)) / (2 * h)
    assert_close(dx, num_dx, np.float32, "grad_input", factor=20)
    assert_close(dw, num_dw, np.float32, "grad_weight", factor=20)
    assert_close(db, num_db, np.float32, "grad_bias", factor=20)


def test_device_arrays(rng, cl_queue, cla):
    x, w, b = rand(rng, (6, 32), np.float32), rand(rng, (32,), np.float32), rand(rng, (32,), np.float32)
    y = clforge.layer_norm(cla.to_device(cl_queue, x), 32, cla.to_device(cl_queue, w), cla.to_device(cl_queue, b))
    assert isinstance(y, cla.Array)
    assert_close(y.get(), ref(x, w, b, 1e-5, False), np.float32, "device layer_norm", factor=4)
    g = rand(rng, (6, 32), np.float32)
    dx, dw, db = clforge.norm_backward(cla.to_device(cl_queue, g), cla.to_device(cl_queue, x), 32,
                                       cla.to_device(cl_queue, w), bias_grad=True)
    assert isinstance(dx, cla.Array) and isinstance(dw, cla.Array) and isinstance(db, cla.Array)
    assert_close(db.get(), f64(g).sum(0), np.float32, "device grad_bias", factor=4)


def test_errors_are_clear(rng):
    x = rand(rng, (2, 8), np.float32)
    with pytest.raises(ValueError, match="trailing shape"):
        clforge.layer_norm(x, (4,))
    with pytest.raises(ValueError, match="weight must have 8"):
        clforge.layer_norm(x, 8, np.ones(4, np.float32))
