"""clforge.fuse_conv_bn_weights against float64 numpy written here from
torch.nn.utils.fusion's definition, and against its meaning: the folded
1x1 convolution (a matrix product here) equals the convolution followed by
the batch norm."""
import numpy as np
import pytest

import clforge
from conftest import DTYPES, assert_close, dname, f64, rand


@pytest.mark.parametrize("dt", DTYPES, ids=dname)
def test_fold(rng, dt):
    k = 12
    w, b = rand(rng, (k, 5, 3, 3), dt), rand(rng, (k,), dt)
    rm, rv = rng.standard_normal(k).astype(np.float32), (rng.random(k) + 0.2).astype(np.float32)
    g, be = rng.standard_normal(k).astype(np.float32), rng.standard_normal(k).astype(np.float32)
    fw, fb = clforge.fuse_conv_bn_weights(w, b, rm, rv, 1e-5, g, be)
    s = f64(g) / np.sqrt(f64(rv) + 1e-5)
    assert fw.shape == w.shape and fw.dtype == w.dtype and fb.dtype == b.dtype
    assert_close(fw, f64(w) * s[:, None, None, None], dt, "fused_w", factor=2)
    assert_close(fb, (f64(b) - f64(rm)) * s + f64(be), dt, "fused_b", factor=2)


def test_meaning_and_defaults(rng):
    k, c = 6, 4
    w = rng.standard_normal((k, c, 1, 1)).astype(np.float32)
    rm, rv = rng.standard_normal(k).astype(np.float32), (rng.random(k) + 0.5).astype(np.float32)
    x = rng.standard_normal((10, c)).astype(np.float64)          # 10 pixels of a 1x1 convolution
    fw, fb = clforge.fuse_conv_bn_weights(w, None, rm, rv, 1e-3, None, None)  # no conv bias, bn affine off
    conv_bn = (x @ f64(w)[:, :, 0, 0].T - f64(rm)) / np.sqrt(f64(rv) + 1e-3)
    assert_close(x @ f64(fw)[:, :, 0, 0].T + f64(fb), conv_bn, np.float32, "conv + BN", factor=4)


def test_errors():
    w = np.zeros((3, 2, 1, 1), np.float32)
    v = np.ones(3, np.float32)
    with pytest.raises(ValueError, match="3"):
        clforge.fuse_conv_bn_weights(w, None, np.ones(4, np.float32), v, 1e-5, v, v)
    with pytest.raises(ValueError, match="bn_eps"):
        clforge.fuse_conv_bn_weights(w, None, v, v, 0.0, v, v)
    with pytest.raises(NotImplementedError, match="transpose"):
        clforge.fuse_conv_bn_weights(w, None, v, v, 1e-5, v, v, transpose=True)
