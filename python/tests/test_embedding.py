"""clforge.embedding against numpy's row indexing (float tables: exact) and
against q8_0 rows decoded here from ggml's layout (an f16 scale, then 32
int8 per block)."""
import numpy as np
import pytest

import clforge
from conftest import DTYPES, dname, f64, rand


def decode_q8_0(q):
    """q (vocab, dim / 32 * 34) uint8 -> float64 (vocab, dim)."""
    blocks = q.reshape(q.shape[0], -1, 34)
    scale = blocks[:, :, :2].copy().view(np.float16).astype(np.float64)        # (vocab, nb, 1)
    vals = blocks[:, :, 2:].view(np.int8).astype(np.float64)                   # (vocab, nb, 32)
    return (vals * scale).reshape(q.shape[0], -1)


@pytest.mark.parametrize("dt", DTYPES, ids=dname)
def test_float_tables(rng, dt):
    w = rand(rng, (50, 24), dt)
    ids = rng.integers(0, 50, size=(3, 7))
    got = clforge.embedding(ids, w)                       # int64 ids, as torch's
    assert got.shape == (3, 7, 24) and got.dtype == w.dtype
    np.testing.assert_array_equal(f64(got), f64(w)[ids])  # a copy: exact
    np.testing.assert_array_equal(f64(clforge.embedding(ids.astype(np.int32), w, dtype=np.float32)), f64(w)[ids])


def test_q8_0_table(rng):
    w = rand(rng, (40, 64), np.float32)
    q = clforge.quantize_q8_0(w)
    ids = np.array([3, 39, 0, 3], np.int32)
    got = clforge.embedding(ids, q, weight_dtype="q8_0")
    assert got.dtype == np.float32 and got.shape == (4, 64)
    np.testing.assert_array_equal(f64(got), decode_q8_0(q)[ids])     # d * q exact in f32
    assert np.abs(f64(got) - f64(w)[ids]).max() <= np.abs(w).max() / 127  # within q8_0's step of the source


def test_errors():
    w = np.zeros((10, 32), np.float32)
    with pytest.raises(ValueError, match="outside the vocabulary"):
        clforge.embedding(np.array([1, 10]), w)
    with pytest.raises(ValueError, match="outside the vocabulary"):
        clforge.embedding(np.array([-1]), w)
    with pytest.raises(ValueError, match="integers"):
        clforge.embedding(np.array([1.0]), w)
    with pytest.raises(ValueError, match="padding_idx"):
        clforge.embedding(np.array([1]), w, padding_idx=10)
    with pytest.raises(NotImplementedError, match="max_norm"):
        clforge.embedding(np.array([1]), w, max_norm=1.0)
    with pytest.raises(ValueError, match="q8_0"):
        clforge.embedding(np.array([1]), np.zeros((10, 33), np.uint8), weight_dtype="q8_0")
