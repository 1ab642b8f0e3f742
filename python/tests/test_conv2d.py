"""clforge.conv2d against a float64 numpy convolution written here (PyTorch's
definition: cross-correlation, groups, dilation, padding forms)."""
import numpy as np
import pytest

import clforge
from conftest import DTYPES, assert_close, dname, f64, rand


def ref_conv(x, w, b=None, stride=(1, 1), pad=(0, 0, 0, 0), dil=(1, 1), groups=1):
    """x (N, C, H, W), w (K, C/g, R, S), pad (top, bottom, left, right)."""
    x, w = f64(x), f64(w)
    n, c, h, wd = x.shape
    k, cg, r, s = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad[0], pad[1]), (pad[2], pad[3])))
    p = (h + pad[0] + pad[1] - dil[0] * (r - 1) - 1) // stride[0] + 1
    q = (wd + pad[2] + pad[3] - dil[1] * (s - 1) - 1) // stride[1] + 1
    y = np.zeros((n, k, p, q))
    kg = k // groups
    for g in range(groups):
        for i in range(r):
            for j in range(s):
                i0, j0 = i * dil[0], j * dil[1]
                patch = xp[:, g * cg:(g + 1) * cg, i0:i0 + stride[0] * p:stride[0], j0:j0 + stride[1] * q:stride[1]]
                y[:, g * kg:(g + 1) * kg] += np.einsum("ncpq,kc->nkpq", patch, w[g * kg:(g + 1) * kg, :, i, j])
    if b is not None:
        y += f64(b)[None, :, None, None]
    return y


@pytest.mark.parametrize("dt", DTYPES, ids=dname)
def test_dtypes_stride_padding_groups(rng, dt):
    x, w, b = rand(rng, (2, 4, 9, 8), dt), rand(rng, (6, 2, 3, 3), dt), rand(rng, (6,), dt)
    got = clforge.conv2d(x, w, b, stride=2, padding=1, groups=2)
    assert got.dtype == np.dtype(dt)
    assert_close(got, ref_conv(x, w, b, (2, 2), (1, 1, 1, 1), groups=2), dt, "conv", factor=4)


def test_padding_forms_as_pytorch(rng):
    x, w = rand(rng, (1, 3, 7, 6)), rand(rng, (4, 3, 3, 2))
    assert_close(clforge.conv2d(x, w, padding=(2, 1)), ref_conv(x, w, pad=(2, 2, 1, 1)), np.float32, "(ph, pw)")
    # four numbers: (left, right, top, bottom), torch.nn.functional.pad's order
    assert_close(clforge.conv2d(x, w, padding=(1, 0, 2, 3)), ref_conv(x, w, pad=(2, 3, 1, 0)), np.float32, "4 ints")
    assert_close(clforge.conv2d(x, w, padding="valid"), ref_conv(x, w), np.float32, "valid")
    # "same": the output keeps H x W; the odd extra row/column of padding goes last (bottom/right)
    same = clforge.conv2d(x, w, padding="same", dilation=(1, 2))
    assert same.shape == (1, 4, 7, 6)
    assert_close(same, ref_conv(x, w, pad=(1, 1, 1, 1), dil=(1, 2)), np.float32, "same")
    same = clforge.conv2d(x, w, padding="same")  # S = 2: one column of padding, on the right
    assert same.shape == (1, 4, 7, 6)
    assert_close(same, ref_conv(x, w, pad=(1, 1, 0, 1)), np.float32, "same, even kernel")
    with pytest.raises(ValueError, match="strided"):
        clforge.conv2d(x, w, padding="same", stride=2)


def test_dilation_depthwise_and_nhwc(rng):
    x, w = rand(rng, (2, 6, 10, 10)), rand(rng, (12, 1, 3, 3))
    want = ref_conv(x, w, stride=(1, 2), pad=(2, 2, 2, 2), dil=(2, 2), groups=6)
    got = clforge.conv2d(x, w, stride=(1, 2), padding=2, dilation=2, groups=6)
    assert_close(got, want, np.float32, "depthwise, multiplier 2")
    nhwc = clforge.conv2d(np.ascontiguousarray(x.transpose(0, 2, 3, 1)), w, stride=(1, 2), padding=2, dilation=2,
                          groups=6, layout="NHWC")
    assert nhwc.shape == (2, want.shape[2], want.shape[3], 12)
    assert_close(nhwc.transpose(0, 3, 1, 2), want, np.float32, "NHWC")
    # a channels-last filter (memory K, R, S, C/g) is read through its strides
    wcl = np.ascontiguousarray(w.transpose(0, 2, 3, 1)).transpose(0, 3, 1, 2)
    assert_close(clforge.conv2d(x, wcl, stride=(1, 2), padding=2, dilation=2, groups=6), want, np.float32, "KRSC")


# The algorithm reaches the C call as given (each one's own coverage is tests/test_conv*.c;
# implicit_gemm is left out here: its first build costs 17 s on PoCL).
@pytest.mark.parametrize("algo", ["direct", "im2col", "winograd_2x2", "winograd_4x4"])
def test_forced_algorithms_and_epilogue(rng, algo):
    x, w, b = rand(rng, (1, 16, 12, 12)), rand(rng, (16, 16, 3, 3), scale=0.2), rand(rng, (16,))
    res = rand(rng, (1, 16, 12, 12))
    want = np.maximum(ref_conv(x, w, b, pad=(1, 1, 1, 1)) + f64(res), 0)
    got = clforge.conv2d(x, w, b, padding=1, activation="relu", residual=res, algo=algo)
    assert_close(got, want, np.float32, algo, factor=20 if algo.startswith("winograd") else 1)


def test_prepared_weights(rng):
    x, w = rand(rng, (2, 8, 14, 14)), rand(rng, (8, 8, 3, 3), scale=0.3)
    pw = clforge.Conv2dWeights(w, x.shape, padding=1, algo="winograd_4x4")
    assert pw.algo == "winograd_4x4"
    want = ref_conv(x, w, pad=(1, 1, 1, 1))
    assert_close(clforge.conv2d(x, pw), want, np.float32, "prepared", factor=20)
    assert_close(clforge.conv2d(x * 2, pw), 2 * want, np.float32, "prepared, second input", factor=20)
    with pytest.raises(ValueError, match="prepared weights are for input"):
        clforge.conv2d(x[:1], pw)
    # the geometry is the prepared one: repeating it is fine, changing it is refused
    assert_close(clforge.conv2d(x, pw, padding=1), want, np.float32, "prepared, padding repeated", factor=20)
    with pytest.raises(ValueError, match="fixed by the prepared weights"):
        clforge.conv2d(x, pw, padding=2)
    with pytest.raises(ValueError, match="algorithm"):
        clforge.conv2d(x, pw, algo="direct")
    pw.release()
    # each value given on its own is compared: a partial repeat passes, an explicit default is checked
    ps = clforge.Conv2dWeights(w, x.shape, stride=2, padding=1)
    want2 = ref_conv(x, w, stride=(2, 2), pad=(1, 1, 1, 1))
    assert_close(clforge.conv2d(x, ps, padding=1), want2, np.float32, "prepared, stride left out")
    with pytest.raises(ValueError, match="padding is fixed"):
        clforge.conv2d(x, ps, padding=0)
    with pytest.raises(ValueError, match="stride is fixed"):
        clforge.conv2d(x, ps, stride=1)
    ps.release()
    # prepared for NHWC: conv2d takes the layout from the weights
    xh = np.ascontiguousarray(x.transpose(0, 2, 3, 1))
    pwh = clforge.Conv2dWeights(w, xh.shape, padding=1, layout="NHWC", algo="winograd_4x4")
    assert_close(clforge.conv2d(xh, pwh).transpose(0, 3, 1, 2), want, np.float32, "prepared NHWC", factor=20)
    with pytest.raises(ValueError, match="stride must be positive"):
        clforge.conv2d(x, w, stride=0)


def test_device_arrays(rng, cl_queue, cla):
    x, w, b = rand(rng, (1, 4, 8, 8)), rand(rng, (4, 4, 1, 1)), rand(rng, (4,), np.float32)
    dx, dw, db = cla.to_device(cl_queue, x), cla.to_device(cl_queue, w), cla.to_device(cl_queue, b)
    out = cla.empty(cl_queue, (1, 4, 8, 8), np.float32)
    r = clforge.conv2d(dx, dw, db, out=out)
    assert r is out
    assert_close(out, ref_conv(x, w, b), np.float32, "device")
    # the residual in place: out holds it, nothing is copied
    clforge.conv2d(dx, dw, db, residual=out, out=out)
    assert_close(out, 2 * ref_conv(x, w, b), np.float32, "residual in place", factor=2)
    with pytest.raises(ValueError, match="contiguous"):
        clforge.conv2d(dx[:, :, ::2], dw)
    wide = cla.to_device(cl_queue, rand(rng, (8,)))
    with pytest.raises(ValueError, match="bias must be contiguous"):
        clforge.conv2d(dx, dw, wide[::2])


def test_explain_names_the_algorithm():
    e = clforge.explain("conv2d", n=8, c=64, h=56, k=64, r=3, padding=1)
    assert e["algo"] in ("winograd_4x4", "winograd_2x2", "implicit_gemm", "im2col", "direct")
    assert e["source"] in ("heuristic", "tuned", "nearest") and e["why"] and e["output"] == [56, 56]
    assert e["kernels"] and all("params" in k for k in e["kernels"])
