"""clforge.add / sub / mul / div / maximum / minimum and relu / gelu / silu
against float64 numpy (NumPy's broadcasting, the activations written here
from their definitions), storage types, in place, scalars, device arrays."""
import math

import numpy as np
import pytest

import clforge
from conftest import DTYPES, assert_close, dname, f64, rand

ERF = np.vectorize(math.erf)


def gelu(x, tanh=False):
    if tanh:
        return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))
    return 0.5 * x * (1 + ERF(x / math.sqrt(2)))


ACTS = {None: lambda x: x, "relu": lambda x: np.where(np.isnan(x) | (x > 0), x, 0.0), "gelu": gelu,
        "gelu_tanh": lambda x: gelu(x, True), "silu": lambda x: x / (1 + np.exp(-x))}


@pytest.mark.parametrize("dt", DTYPES, ids=dname)
def test_binary_broadcasting(rng, dt):
    # each broadcast with one op and activation (every combination is the C
    # test's, tests/test_elementwise.c; each is a program of its own)
    a = rand(rng, (2, 5, 6, 8), dt)
    for other, fn, ref, act in ((rand(rng, (2, 5, 6, 8), dt), clforge.add, np.add, "relu"),  # a residual + ReLU
                                (rand(rng, (8,), dt), clforge.sub, np.subtract, None),     # per channel, NHWC
                                (rand(rng, (5, 1, 1), dt), clforge.mul, np.multiply, "silu"),  # per channel, NCHW
                                ((rand(rng, (6, 1), np.float32) + 3.0).astype(dt), clforge.div, np.divide, "gelu_tanh")):
        got = fn(a, other, activation=act)
        assert got.dtype == a.dtype and got.shape == np.broadcast_shapes(a.shape, other.shape)
        assert_close(got, ACTS[act](ref(f64(a), f64(other))), dt, "%s %s %s" % (fn.__name__, other.shape, act),
                     factor=2)


def test_nan_inf_and_mixed_types(rng):
    a = np.array([[np.nan, 1.0, -2.0], [0.0, 3.0, np.inf]], np.float32)
    b = np.array([2.0, np.nan, 0.0], np.float16)
    assert clforge.maximum(a, b).dtype == np.float32  # a mix computes and stores in f32
    np.testing.assert_array_equal(clforge.maximum(a, b), np.maximum(f64(a), f64(b)))
    np.testing.assert_array_equal(clforge.minimum(a, b), np.minimum(f64(a), f64(b)))
    with np.errstate(divide="ignore", invalid="ignore"):
        np.testing.assert_array_equal(clforge.div(a, b), f64(a) / f64(b))
    h = np.array([1e-3, 2.0, 1000.0], np.float16)
    got = clforge.mul(h, 1e-4)  # a Python scalar: computed in f32, stored in the input's dtype (torch's rule)
    assert got.dtype == np.float16
    np.testing.assert_array_equal(got, (f64(h) * np.float64(np.float32(1e-4))).astype(np.float16))
    np.testing.assert_array_equal(clforge.relu(np.array([np.nan, -1.0, 2.0], np.float32)), [np.nan, 0.0, 2.0])
    assert clforge.add(np.zeros((0, 3), np.float32), np.zeros(3, np.float32)).shape == (0, 3)


@pytest.mark.parametrize("dt", DTYPES, ids=dname)
def test_activations(rng, dt):
    x = rand(rng, (7, 33), dt, 3.0)
    assert_close(clforge.relu(x), ACTS["relu"](f64(x)), dt, "relu")
    if dt == np.float32:  # the other storage types: ReLU and SiLU (each is a program)
        assert_close(clforge.gelu(x), gelu(f64(x)), dt, "gelu", factor=2)
        assert_close(clforge.gelu(x, approximate="tanh"), gelu(f64(x), True), dt, "gelu tanh", factor=2)
    want = ACTS["silu"](f64(x))
    y = clforge.silu(x, inplace=True)
    assert y is x
    assert_close(x, want, dt, "silu in place", factor=2)


def test_device_arrays_in_place(cla, cl_queue, rng):
    a, b = rand(rng, (4, 16), np.float32), rand(rng, (16,), np.float32)
    da, db = cla.to_device(cl_queue, a), cla.to_device(cl_queue, b)
    r = clforge.add(da, db, activation="relu", out=da)  # the residual's add + ReLU into its input
    assert r is da
    assert_close(da.get(), np.maximum(f64(a) + f64(b), 0), np.float32, "device, in place")


def test_errors():
    x = np.zeros((2, 3), np.float32)
    with pytest.raises(ValueError, match="do not broadcast"):
        clforge.add(x, np.zeros((4,), np.float32))
    with pytest.raises(ValueError, match="activation"):
        clforge.mul(x, x, activation="tanh")
    with pytest.raises(NotImplementedError, match="alpha"):
        clforge.add(x, x, alpha=2)
    with pytest.raises(ValueError, match="at most 8"):
        clforge.relu(np.zeros((1,) * 9, np.float32))
    with pytest.raises(ValueError, match="approximate"):
        clforge.gelu(x, approximate="erf")
