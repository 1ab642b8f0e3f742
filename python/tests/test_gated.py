"""clforge.gated_linear (a Llama MLP's gate and up projections as one GEMM
over fuse_gate_up's weight) against the two projections and the gate's
activation in float64 numpy, written here."""
import math

import numpy as np
import pytest

import clforge
from conftest import DTYPES, TOL, dname, f64, rand


def silu(z):
    return z / (1.0 + np.exp(-z))


def gelu_erf(z):
    return 0.5 * z * (1.0 + np.vectorize(math.erf)(z / math.sqrt(2.0)))


def gelu_tanh(z):
    return 0.5 * z * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (z + 0.044715 * z ** 3)))


ACTS = {"silu": silu, "gelu": gelu_erf, "gelu_tanh": gelu_tanh, "relu": lambda z: np.maximum(z, 0.0),
        None: lambda z: z}


def want(x, wg, wu, act, bg=None, bu=None):
    g, u = f64(x) @ f64(wg).T, f64(x) @ f64(wu).T
    if bg is not None:
        g, u = g + f64(bg), u + f64(bu)
    return ACTS[act](g) * u


@pytest.mark.parametrize("dt", DTYPES, ids=dname)
def test_swiglu(rng, dt):
    x, wg, wu = rand(rng, (3, 5, 64), dt), rand(rng, (40, 64), dt, 0.2), rand(rng, (40, 64), dt, 0.2)
    got = clforge.gated_linear(x, clforge.fuse_gate_up(wg, wu))
    assert got.shape == (3, 5, 40) and got.dtype == np.dtype(dt)
    w = want(x, wg, wu, "silu")
    np.testing.assert_allclose(f64(got), w, rtol=TOL[np.dtype(dt)] * 4, atol=TOL[np.dtype(dt)] * 4 * np.abs(w).max())


@pytest.mark.parametrize("act", ["gelu", "gelu_tanh", "relu", None])
def test_activations_and_bias(rng, act):
    x, wg, wu = rand(rng, (7, 33), np.float32), rand(rng, (18, 33), np.float32), rand(rng, (18, 33), np.float32)
    bg, bu = rand(rng, (18,), np.float32), rand(rng, (18,), np.float32)
    got = clforge.gated_linear(x, clforge.fuse_gate_up(wg, wu), clforge.fuse_gate_up(bg, bu), activation=act)
    w = want(x, wg, wu, act, bg, bu)
    np.testing.assert_allclose(f64(got), w, rtol=1e-4, atol=1e-4 * np.abs(w).max())


def test_fuse_layout():
    g, u = np.arange(6.0).reshape(3, 2), -np.arange(6.0).reshape(3, 2)
    np.testing.assert_array_equal(clforge.fuse_gate_up(g, u), [[0, 1], [0, -1], [2, 3], [-2, -3], [4, 5], [-4, -5]])


def test_errors(rng):
    x, w = rand(rng, (2, 8), np.float32), rand(rng, (6, 8), np.float32)
    with pytest.raises(ValueError, match="weight must be"):
        clforge.gated_linear(x, w[:5])                      # an odd number of rows
    with pytest.raises(ValueError, match="weight must be"):
        clforge.gated_linear(x, w[:, :4])                   # k mismatch
    with pytest.raises(ValueError, match="activation"):
        clforge.gated_linear(x, w, activation="tanh")
    with pytest.raises(ValueError, match="bias"):
        clforge.gated_linear(x, w, np.zeros(3, np.float32))
    with pytest.raises(ValueError, match="one shape"):
        clforge.fuse_gate_up(w, w[:2])
