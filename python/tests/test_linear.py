"""clforge.linear (F.linear) and clforge.gated_linear (a Llama MLP's gate
and up projections as one GEMM over fuse_gate_up's weight), float and q8_0
weights, against float64 numpy written here: the projections, the gate's
activation, and q8_0 rows decoded here from ggml's layout."""
import math

import numpy as np
import pytest

import clforge
from conftest import DTYPES, TOL, dname, f64, rand
from test_embedding import decode_q8_0


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


def test_linear(rng):
    x, w, b = rand(rng, (4, 3, 48), np.float32), rand(rng, (20, 48), np.float32), rand(rng, (20,), np.float32)
    got = clforge.linear(x, w, b, activation="gelu_tanh")
    z = f64(x) @ f64(w).T + f64(b)
    w64 = gelu_tanh(z)
    assert got.shape == (4, 3, 20)
    np.testing.assert_allclose(f64(got), w64, rtol=1e-4, atol=1e-4 * np.abs(w64).max())


@pytest.mark.parametrize("m", [1, 40])
def test_q8_0_weights(rng, m):
    """Decode (m = 1) and prefill (40) with llama.cpp's Q8_0 weights:
    against the decoded blocks in float64 (f32's rounding only), and the
    gated MLP over fused q8_0 rows."""
    x, wg, wu = rand(rng, (m, 96), np.float32), rand(rng, (24, 96), np.float32), rand(rng, (24, 96), np.float32)
    qg, qu = clforge.quantize_q8_0(wg), clforge.quantize_q8_0(wu)
    y = clforge.linear(x, qg, weight_dtype="q8_0")
    want = f64(x) @ decode_q8_0(qg).T
    assert y.dtype == np.float32 and y.shape == (m, 24)
    np.testing.assert_allclose(f64(y), want, rtol=1e-5, atol=1e-5 * np.abs(want).max())
    # within q8_0's step of the float weights: half a block's scale per weight
    step = np.abs(f64(x)) @ np.repeat(np.abs(decode_q8_0(qg)).reshape(24, 3, 32).max(axis=2) / 127 / 2, 32, axis=1).T
    assert (np.abs(f64(y) - f64(x) @ f64(wg).T) <= step * 1.01 + 1e-5).all()
    g = clforge.gated_linear(x, clforge.fuse_gate_up(qg, qu), weight_dtype="q8_0")
    w = silu(f64(x) @ decode_q8_0(qg).T) * (f64(x) @ decode_q8_0(qu).T)
    np.testing.assert_allclose(f64(g), w, rtol=1e-4, atol=1e-4 * np.abs(w).max())


def test_linear_k1_and_f16_q8_0(rng):
    x, w = rand(rng, (4, 1), np.float32), rand(rng, (3, 1), np.float32)
    np.testing.assert_allclose(f64(clforge.linear(x, w)), f64(x) @ f64(w).T, rtol=1e-6)
    xh, wq, b = rand(rng, (5, 64), np.float16), clforge.quantize_q8_0(rand(rng, (6, 64), np.float32)), rand(rng, (6,), np.float32)
    y = clforge.linear(xh, wq, b, weight_dtype="q8_0", activation="relu")
    want = np.maximum(f64(xh) @ decode_q8_0(wq).T + f64(b), 0)
    assert y.dtype == np.float32
    np.testing.assert_allclose(f64(y), want, rtol=1e-5, atol=1e-5 * np.abs(want).max())


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
    with pytest.raises(ValueError, match="q8_0 weight is uint8"):
        clforge.linear(x, w, weight_dtype="q8_0")
    with pytest.raises(ValueError, match="weight_dtype"):
        clforge.linear(x, w, weight_dtype="q4_0")
    q = clforge.quantize_q8_0(rand(rng, (4, 64), np.float32))
    with pytest.raises(ValueError, match="weight must be"):
        clforge.linear(x, q, weight_dtype="q8_0")           # k = 64 against the input's 8
