"""quantize / dequantize against numpy's own float32 arithmetic (rint: halves
to even), per tensor, per channel (first and last axis), dynamic scales, q8_0
bytes; errors raised before anything runs."""
import numpy as np
import pytest

import clforge
from conftest import BF16


def np_quant(x, scale, zp, qt):
    lo, hi = (-128, 127) if qt == np.int8 else (0, 255)
    inv = np.where(scale != 0, np.float32(1) / np.maximum(scale, np.float32(1e-45)), np.float32(0)).astype(np.float32)
    q = np.rint(x.astype(np.float32) * inv)
    q = np.where(np.isnan(q), 0, q)
    return np.clip(q.astype(np.int64) + zp, lo, hi).astype(qt)


def test_per_tensor_ties_and_saturation():
    x = np.array([0.5, 1.5, 2.5, -0.5, -2.5, 200, -300, np.nan, 3.25], np.float32)
    q = clforge.quantize_per_tensor(x, 0.5, 3, "qint8")
    assert q.dtype == np.int8
    assert q.tolist() == [4, 6, 8, 2, -2, 127, -128, 3, 9]  # 3.25 / 0.5 = 6.5 -> 6 (even)
    u = clforge.quantize_per_tensor(x, 1.0, 128, np.uint8)
    assert u.tolist() == [128, 130, 130, 128, 126, 255, 0, 128, 131]
    back = clforge.dequantize(u, 1.0, 128)
    assert back.tolist()[:3] == [0.0, 2.0, 2.0]


@pytest.mark.parametrize("qt", [np.int8, np.uint8])
@pytest.mark.parametrize("axis", [0, -1])
def test_per_channel_given_and_dynamic(rng, qt, axis):
    x = (rng.standard_normal((6, 5, 8)) * 4).astype(np.float32)
    n = x.shape[axis]
    scales = (2.0 ** -rng.integers(0, 5, n)).astype(np.float32)
    zps = rng.integers(-3, 4, n).astype(np.int32) + (128 if qt == np.uint8 else 0)
    q = clforge.quantize_per_channel(x, scales, zps, axis, qt)
    shp = [1] * x.ndim
    shp[axis] = n
    want = np_quant(x, scales.reshape(shp), zps.reshape(shp), qt)
    assert (q == want).all()
    y = clforge.dequantize(q, scales, zps, axis=axis)
    assert (y == ((q.astype(np.int64) - zps.reshape(shp)).astype(np.float32) * scales.reshape(shp))).all()
    q2, s2, z2 = clforge.quantize_per_channel(x, None, None, axis, qt)
    red = tuple(i for i in range(x.ndim) if i != (axis % x.ndim))
    if qt == np.int8:
        want_s = np.abs(x).max(axis=red).astype(np.float32) / np.float32(127)
        assert (s2 == want_s).all() and (z2 == 0).all()
    y2 = clforge.dequantize(q2, s2, z2, axis=axis)
    step = s2.reshape(shp) * (1.0001 if qt == np.int8 else 2.0001) / 2
    assert (np.abs(y2 - x) <= step).all()


def test_dynamic_per_tensor_and_f16_output(rng):
    x = rng.standard_normal((3, 64)).astype(np.float16)
    q, s, z = clforge.quantize_per_tensor_dynamic(x, "quint8")
    assert q.dtype == np.uint8 and s.shape == (1,) and z.shape == (1,)
    y = clforge.dequantize(q, s, z, dtype="f16")
    assert y.dtype == np.float16
    assert np.abs(y.astype(np.float32) - x.astype(np.float32)).max() <= s[0] * 0.51 + 4e-3


def test_q8_0_bytes(rng):
    x = (rng.standard_normal((4, 96)) * 3).astype(np.float32)
    x[0, :32] = 0
    b = clforge.quantize_q8_0(x)
    assert b.dtype == np.uint8 and b.shape == (4, 3 * 34)
    blocks = b.reshape(4, 3, 34)
    d = blocks[:, :, :2].copy().view(np.float16)[:, :, 0]
    amax = np.abs(x.reshape(4, 3, 32)).max(axis=2).astype(np.float32)
    dd = amax / np.float32(127)
    assert (d == dd.astype(np.float16)).all()
    inv = np.where(dd != 0, np.float32(1) / np.where(dd != 0, dd, 1), 0).astype(np.float32)
    want = np.clip(np.rint(x.reshape(4, 3, 32) * inv[:, :, None]), -128, 127).astype(np.int8)
    assert (blocks[:, :, 2:].view(np.int8) == want).all()
    y = clforge.dequantize_q8_0(b)
    assert y.shape == x.shape
    assert (y.reshape(4, 3, 32) == d.astype(np.float32)[:, :, None] * want.astype(np.float32)).all()
    yb = clforge.dequantize_q8_0(b, dtype=BF16)
    assert yb.dtype == BF16


def test_errors():
    x = np.zeros((2, 3, 4), np.float32)
    with pytest.raises(TypeError, match="int8"):
        clforge.quantize_per_tensor(x, 1.0, 0, np.float16)
    with pytest.raises(ValueError, match="first or the last axis"):
        clforge.quantize_per_channel(x, np.ones(3, np.float32), np.zeros(3, np.int32), 1, np.int8)
    with pytest.raises(ValueError, match="multiple of 32"):
        clforge.quantize_q8_0(x)
    with pytest.raises(ValueError, match="scales and int32 zero points"):
        clforge.quantize_per_channel(x, np.ones(3, np.float32), np.zeros(3, np.int32), 0, np.int8)
    with pytest.raises(TypeError):
        clforge.matmul(np.zeros((2, 2), np.int8), np.zeros((2, 2), np.int8))


def test_device_arrays_stay_on_the_device(rng, cl_queue, cla):
    """pyopencl arrays in, pyopencl arrays out (the scales too), the same
    bytes as the numpy route."""
    x = (rng.standard_normal((5, 64)) * 2).astype(np.float32)
    xd = cla.to_device(cl_queue, x)
    q, s, z = clforge.quantize_per_channel(xd, None, None, 0, np.uint8)
    assert all(isinstance(a, cla.Array) for a in (q, s, z))
    qh, sh, zh = clforge.quantize_per_channel(x, None, None, 0, np.uint8)
    assert (q.get() == qh).all() and (s.get() == sh).all() and (z.get() == zh).all()
    y = clforge.dequantize(q, s, z, axis=0)
    assert isinstance(y, cla.Array)
    assert (y.get() == clforge.dequantize(qh, sh, zh, axis=0)).all()
    b = clforge.quantize_q8_0(xd)
    assert (b.get() == clforge.quantize_q8_0(x)).all()


def test_int_mm_exact(rng):
    a = rng.integers(-128, 128, (37, 300)).astype(np.int8)
    b = rng.integers(-128, 128, (300, 45)).astype(np.int8)
    c = clforge.int_mm(a, b)
    assert c.dtype == np.int32 and (c == a.astype(np.int64) @ b.astype(np.int64)).all()
    u = rng.integers(0, 256, (5, 70)).astype(np.uint8)
    c2 = clforge.int_mm(u, b[:70], a_zero_point=128, b_zero_point=-3)
    assert (c2 == (u.astype(np.int64) - 128) @ (b[:70].astype(np.int64) + 3)).all()
    with pytest.raises(TypeError, match="int8 or uint8"):
        clforge.int_mm(a.astype(np.float32), b)
    with pytest.raises(clforge.InvalidArgumentError, match="zero_point"):
        clforge.int_mm(a, b, a_zero_point=200)


def np_conv_nhwc(x, w, zpx, zpw, stride, pad):
    """int64 sums of (x - zpx)(w - zpw): x (N, H, W, C), w (K, C, R, S), symmetric padding."""
    n, h, wd, c = x.shape
    k, _, r, s = w.shape
    xp = np.full((n, h + 2 * pad, wd + 2 * pad, c), zpx, np.int64)
    xp[:, pad:pad + h, pad:pad + wd] = x
    p, q = (h + 2 * pad - r) // stride + 1, (wd + 2 * pad - s) // stride + 1
    y = np.zeros((n, p, q, k), np.int64)
    for i in range(r):
        for j in range(s):
            patch = xp[:, i:i + stride * p:stride, j:j + stride * q:stride].astype(np.int64) - zpx
            y += patch @ (w[:, :, i, j].astype(np.int64) - zpw).T
    return y


@pytest.mark.parametrize("stride,pad", [(1, 1), (2, 0)])
def test_quantized_conv2d(rng, stride, pad):
    x = rng.integers(0, 256, (2, 7, 6, 5)).astype(np.uint8)
    w = rng.integers(-128, 128, (4, 5, 3, 3)).astype(np.int8)
    want = np_conv_nhwc(x, w, 128, 0, stride, pad)
    y = clforge.quantized_conv2d(x, w, stride=stride, padding=pad, input_zero_point=128)
    assert y.dtype == np.int32 and y.shape == want.shape
    assert (y == want).all()
    # dequantized with per-channel scales and a bias, then ReLU; requantized to uint8
    ws = np.array([0.01, 0.02, 0.005, 0.04], np.float32)
    bias = np.array([0.5, -1.0, 0.0, 2.0], np.float32)
    f = clforge.quantized_conv2d(x, w, bias, stride=stride, padding=pad, input_scale=0.05, input_zero_point=128,
                                 weight_scale=ws, dtype=np.float32, activation="relu")
    ref = np.maximum(want.astype(np.float32) * (np.float32(0.05) * ws) + bias, 0)
    np.testing.assert_allclose(f, ref, rtol=1e-6, atol=1e-5)
    u = clforge.quantized_conv2d(x, w, bias, stride=stride, padding=pad, input_scale=0.05, input_zero_point=128,
                                 weight_scale=ws, dtype=np.uint8, activation="relu", output_scale=0.25,
                                 output_zero_point=3)
    assert u.dtype == np.uint8
    assert np.abs(u.astype(int) - np.clip(np.rint(ref / 0.25) + 3, 0, 255)).max() <= 1  # f32 steps vs float64
    with pytest.raises(ValueError, match="raw sums"):
        clforge.quantized_conv2d(x, w, bias, padding=1)
    with pytest.raises(TypeError, match="int8 or uint8"):
        clforge.quantized_conv2d(x.astype(np.float32), w)


def test_quantized_conv2d_prepared_weights(rng):
    x = rng.integers(0, 256, (2, 7, 6, 5)).astype(np.uint8)
    w = rng.integers(-128, 128, (4, 5, 3, 3)).astype(np.int8)
    want = np_conv_nhwc(x, w, 128, 0, 1, 1)
    for weight in (w, np.ascontiguousarray(w.transpose(0, 2, 3, 1)).transpose(0, 3, 1, 2)):  # KCRS, channels-last
        pw = clforge.QuantizedConv2dWeights(weight)
        y = clforge.quantized_conv2d(x, pw, padding=1, input_zero_point=128)
        assert (y == want).all()
        # other inputs, strides and epilogues with the same prepared filter
        y2 = clforge.quantized_conv2d(x[:1], pw, stride=2, input_zero_point=128)
        assert (y2 == np_conv_nhwc(x[:1], w, 128, 0, 2, 0)).all()
        pw.release()
    with pytest.raises(TypeError, match="int8 or uint8"):
        clforge.QuantizedConv2dWeights(w.astype(np.float32))
    pw = clforge.QuantizedConv2dWeights(w)
    with pytest.raises(ValueError, match="to have 5 channels"):
        clforge.quantized_conv2d(x[..., :4], pw, input_zero_point=128)  # the prepared filter's C is 5


def test_quantized_conv2d_groups(rng):
    """Grouped and depthwise int8 convolutions against numpy's per-group sums, prepared weights too."""
    x = rng.integers(0, 256, (2, 6, 5, 8)).astype(np.uint8)
    for groups, k in ((2, 6), (8, 8), (8, 16)):  # grouped, depthwise, depthwise with multiplier 2
        w = rng.integers(-128, 128, (k, 8 // groups, 3, 3)).astype(np.int8)
        kg, cg = k // groups, 8 // groups
        want = np.concatenate([np_conv_nhwc(x[..., g * cg:(g + 1) * cg], w[g * kg:(g + 1) * kg], 128, 0, 1, 1)
                               for g in range(groups)], axis=-1)
        y = clforge.quantized_conv2d(x, w, padding=1, groups=groups, input_zero_point=128)
        assert (y == want).all(), groups
        pw = clforge.QuantizedConv2dWeights(w)
        assert (clforge.quantized_conv2d(x, pw, padding=1, groups=groups, input_zero_point=128) == want).all()
