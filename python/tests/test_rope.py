"""clforge.rotary_embedding against float64 numpy written here from the
definitions: Hugging Face's rotate_half form (NeoX) and the interleaved
pairs (GPT-J), partial rotary, per-token positions of a batch."""
import numpy as np
import pytest

import clforge
from conftest import DTYPES, assert_close, dname, f64, rand


def ref(x, pos, theta, rot=None, style="neox"):
    x = f64(x)
    d = x.shape[-1]
    rot = rot or d
    inv = theta ** (-np.arange(0, rot, 2, dtype=np.float64) / rot)        # (rot/2,)
    ang = np.asarray(pos, np.float64)[..., None, None] * inv              # (..., 1, rot/2)
    cos, sin = np.cos(ang), np.sin(ang)
    r, rest = x[..., :rot], x[..., rot:]
    if style == "neox":  # rotate_half: (x1, x2) -> (x1 cos - x2 sin, x2 cos + x1 sin)
        x1, x2 = r[..., :rot // 2], r[..., rot // 2:]
        out = np.concatenate([x1 * cos - x2 * sin, x2 * cos + x1 * sin], axis=-1)
    else:
        x1, x2 = r[..., 0::2], r[..., 1::2]
        out = np.empty_like(r)
        out[..., 0::2], out[..., 1::2] = x1 * cos - x2 * sin, x2 * cos + x1 * sin
    return np.concatenate([out, rest], axis=-1)


# both styles in f32, NeoX (Llama's) in the 16-bit types: each is a program
@pytest.mark.parametrize("dt,style", [(DTYPES[0], "neox"), (DTYPES[0], "gptj"), (DTYPES[1], "neox"), (DTYPES[2], "neox")],
                         ids=lambda v: v if isinstance(v, str) else dname(v))
def test_rotary_embedding(rng, dt, style):
    q = rand(rng, (3, 5, 4, 32), dt)                                      # (B, S, H, D)
    pos = rng.integers(0, 200, size=(3, 5)).astype(np.int32)              # small: the f32 angle's error stays small
    assert_close(clforge.rotary_embedding(q, pos, style=style), ref(q, pos, 10000.0, style=style), dt, style, factor=4)
    k = rand(rng, (7, 2, 48), dt)                                         # (T, Hkv, D), partial rotary
    pk = rng.integers(0, 50, size=7).astype(np.int32)
    want = ref(k, pk, 500000.0, 16, style)
    got = clforge.rotary_embedding(k, pk, theta=500000.0, rotary_dim=16, style=style, inplace=True)
    assert got is k
    assert_close(k, want, dt, "in place, partial", factor=4)


def test_device_arrays(cla, cl_queue, rng):
    q = rand(rng, (6, 2, 16), np.float32)
    pos = np.arange(6, dtype=np.int32) * 7
    dq = cla.to_device(cl_queue, q)
    clforge.rotary_embedding(dq, cla.to_device(cl_queue, pos), inplace=True)
    assert_close(dq.get(), ref(q, pos, 10000.0), np.float32, "device, in place", factor=4)
    full = cla.to_device(cl_queue, np.arange(12, dtype=np.int32))
    with pytest.raises(ValueError, match="contiguous"):
        clforge.rotary_embedding(dq, full[::2])


def test_errors():
    x = np.zeros((4, 2, 8), np.float32)
    with pytest.raises(ValueError, match="int32"):
        clforge.rotary_embedding(x, np.zeros(4, np.int64))
    with pytest.raises(ValueError, match="shape"):
        clforge.rotary_embedding(x, np.zeros(3, np.int32))
    with pytest.raises(ValueError, match="even"):
        clforge.rotary_embedding(x, np.zeros(4, np.int32), rotary_dim=3)
    with pytest.raises(ValueError, match="theta"):
        clforge.rotary_embedding(x, np.zeros(4, np.int32), theta=0.5)
    with pytest.raises(ValueError, match="style"):
        clforge.rotary_embedding(x, np.zeros(4, np.int32), style="llama")
