"""clforge.conv2d_input / conv2d_weight (torch.nn.grad's signatures) against
float64 gradients written here from the forward's definition, and the
adjoint identity <conv(x, w), dy> = <x, dx> = <w, dw> on clforge's own results."""
import numpy as np
import pytest

import clforge
from conftest import DTYPES, assert_close, dname, f64, rand
from test_conv2d import ref_conv


def out_size(h, r, stride, pad, dil):
    return (h + pad[0] + pad[1] - dil * (r - 1) - 1) // stride + 1


def ref_grads(x, w, dy, stride, pad, dil, groups):
    """dx, dw, db of L = <conv(x, w), dy> in float64; pad (top, bottom, left, right)."""
    x, w, dy = f64(x), f64(w), f64(dy)
    n, c, h, wd = x.shape
    k, cg, r, s = w.shape
    _, _, p, q = dy.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad[0], pad[1]), (pad[2], pad[3])))
    dxp, dw = np.zeros_like(xp), np.zeros_like(w)
    kg = k // groups
    for g in range(groups):
        ks, cs = slice(g * kg, (g + 1) * kg), slice(g * cg, (g + 1) * cg)
        for i in range(r):
            for j in range(s):
                i0, j0 = i * dil, j * dil
                rows, cols = slice(i0, i0 + stride * p, stride), slice(j0, j0 + stride * q, stride)
                dxp[:, cs, rows, cols] += np.einsum("nkpq,kc->ncpq", dy[:, ks], w[ks, :, i, j])
                dw[ks, :, i, j] = np.einsum("ncpq,nkpq->kc", xp[:, cs, rows, cols], dy[:, ks])
    dx = dxp[:, :, pad[0]:pad[0] + h, pad[2]:pad[2] + wd]
    return dx, dw, dy.sum(axis=(0, 2, 3))


@pytest.mark.parametrize("dt", DTYPES, ids=dname)
@pytest.mark.parametrize("stride,groups", [(1, 1), (2, 2)])
def test_gradients_against_float64(rng, dt, stride, groups):
    x, w = rand(rng, (2, 4, 9, 8), dt), rand(rng, (6, 4 // groups, 3, 3), dt)
    p, q = out_size(9, 3, stride, (1, 1), 1), out_size(8, 3, stride, (1, 1), 1)
    dy = rand(rng, (2, 6, p, q), dt)
    dx_want, dw_want, db_want = ref_grads(x, w, dy, stride, (1, 1, 1, 1), 1, groups)
    dx = clforge.conv2d_input(x.shape, w, dy, stride=stride, padding=1, groups=groups)
    assert dx.dtype == np.dtype(dt) and dx.shape == x.shape
    assert_close(dx, dx_want, dt, "conv2d_input", factor=4)
    dw, db = clforge.conv2d_weight(x, w.shape, dy, stride=stride, padding=1, groups=groups, bias_grad=True)
    assert dw.shape == w.shape and db.shape == (6,)
    assert_close(dw, dw_want, dt, "conv2d_weight", factor=8)
    assert_close(db, db_want, dt, "bias grad", factor=8)


def test_nhwc_dilation_asymmetric_and_algorithms(rng):
    x, w = rand(rng, (2, 5, 10, 9), np.float32), rand(rng, (16, 5, 3, 2), np.float32)
    pad = (2, 0, 1, 1)  # top, bottom, left, right; clforge's 4-int padding is (left, right, top, bottom)
    p, q = out_size(10, 3, 2, pad[:2], 2), out_size(9, 2, 2, pad[2:], 2)
    dy = rand(rng, (2, 16, p, q), np.float32)
    dx_want, dw_want, _ = ref_grads(x, w, dy, 2, pad, 2, 1)
    torch_pad = (pad[2], pad[3], pad[0], pad[1])
    for algo in ("auto", "direct", "im2col"):
        dx = clforge.conv2d_input(x.shape, w, dy, stride=2, padding=torch_pad, dilation=2, algo=algo)
        assert_close(dx, dx_want, np.float32, "conv2d_input " + algo, factor=4)
    nhwc = dict(stride=2, padding=torch_pad, dilation=2, layout="NHWC")
    dx = clforge.conv2d_input(x.shape, w, dy.transpose(0, 2, 3, 1).copy(), **nhwc)
    assert dx.shape == (2, 10, 9, 5)
    assert_close(dx.transpose(0, 3, 1, 2), dx_want, np.float32, "conv2d_input NHWC", factor=4)
    for algo in ("auto", "direct", "im2col"):
        dw = clforge.conv2d_weight(x, w.shape, dy, stride=2, padding=torch_pad, dilation=2, algo=algo)
        assert_close(dw, dw_want, np.float32, "conv2d_weight " + algo, factor=8)
    dw = clforge.conv2d_weight(x.transpose(0, 2, 3, 1).copy(), w.shape, dy.transpose(0, 2, 3, 1).copy(), **nhwc)
    assert_close(dw, dw_want, np.float32, "conv2d_weight NHWC", factor=8)


def test_adjoint_identity_on_clforge_results(rng):
    x, w = rand(rng, (2, 8, 7, 7), np.float32), rand(rng, (8, 8, 3, 3), np.float32)
    y = clforge.conv2d(x, w, padding=1)
    dy = rand(rng, y.shape, np.float32)
    dx = clforge.conv2d_input(x.shape, w, dy, padding=1)
    dw = clforge.conv2d_weight(x, w.shape, dy, padding=1)
    a, b, c = (f64(y) * f64(dy)).sum(), (f64(x) * f64(dx)).sum(), (f64(w) * f64(dw)).sum()
    assert abs(a - b) < 1e-4 * (1 + abs(a)) and abs(a - c) < 1e-4 * (1 + abs(a)), (a, b, c)


def test_device_arrays(rng, cl_queue, cla):
    x, w = rand(rng, (2, 4, 6, 6), np.float32), rand(rng, (16, 4, 3, 3), np.float32)
    dy = rand(rng, (2, 16, 4, 4), np.float32)
    dx_want, dw_want, db_want = ref_grads(x, w, dy, 1, (0, 0, 0, 0), 1, 1)
    X, W, DY = (cla.to_device(cl_queue, a) for a in (x, w, dy))
    dx = clforge.conv2d_input(x.shape, W, DY)
    dw, db = clforge.conv2d_weight(X, w.shape, DY, bias_grad=True)
    assert isinstance(dx, cla.Array) and isinstance(dw, cla.Array) and isinstance(db, cla.Array)
    assert_close(dx.get(), dx_want, np.float32, "device dx", factor=4)
    assert_close(dw.get(), dw_want, np.float32, "device dw", factor=8)
    assert_close(db.get(), db_want, np.float32, "device db", factor=8)


def test_errors_are_clear(rng):
    x, w = rand(rng, (1, 3, 6, 6), np.float32), rand(rng, (4, 3, 3, 3), np.float32)
    with pytest.raises(ValueError, match="grad_output must have shape"):
        clforge.conv2d_input(x.shape, w, np.zeros((1, 4, 5, 5), np.float32))
    with pytest.raises(ValueError, match="grad_output must have shape"):
        clforge.conv2d_weight(x, w.shape, np.zeros((1, 4, 3, 3), np.float32), padding=1)
    with pytest.raises(clforge.errors.UnsupportedError, match="direct does every shape"):
        clforge.conv2d_input(x.shape, w, np.zeros((1, 4, 2, 2), np.float32), stride=2, algo="winograd_2x2")
