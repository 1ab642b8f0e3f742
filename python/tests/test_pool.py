"""clforge.max_pool2d / avg_pool2d / adaptive_{avg,max}_pool2d against a
float64 numpy pooling written here from PyTorch's definitions (output size,
ceil mode's rule that a window may not start in the right padding,
count_include_pad, divisor_override, dilation), NCHW and NHWC."""
import numpy as np
import pytest

import clforge
from conftest import DTYPES, assert_close, dname, f64, rand


def out_len(n, k, s, p, d, ceil):
    span = d * (k - 1) + 1
    o = (n + 2 * p - span + (s - 1 if ceil else 0)) // s + 1
    if ceil and (o - 1) * s >= n + p:  # the last window would start in the right padding
        o -= 1
    return o


def ref(x, kind, k, s=None, p=0, d=1, ceil=False, include_pad=True, divisor=None):
    """x (N, C, H, W) in float64; windows on the padded grid."""
    k, s, p, d = [(v, v) if isinstance(v, int) else v for v in (k, s or k, p, d)]
    n, c, h, w = x.shape
    oh, ow = out_len(h, k[0], s[0], p[0], d[0], ceil), out_len(w, k[1], s[1], p[1], d[1], ceil)
    # room for every window on the padded grid (ceil mode's may pass its end)
    H, W = (oh - 1) * s[0] + d[0] * (k[0] - 1) + 1, (ow - 1) * s[1] + d[1] * (k[1] - 1) + 1
    H, W = max(H, h + 2 * p[0]), max(W, w + 2 * p[1])
    fill = -np.inf if kind == "max" else 0.0
    grid = np.full((n, c, H, W), fill)
    grid[:, :, p[0]:p[0] + h, p[1]:p[1] + w] = x
    inside = np.zeros((H, W))                     # the input's cells
    inside[p[0]:p[0] + h, p[1]:p[1] + w] = 1
    padded = np.zeros((H, W))                     # the padded input's cells
    padded[:h + 2 * p[0], :w + 2 * p[1]] = 1
    y = np.empty((n, c, oh, ow))
    for i in range(oh):
        for j in range(ow):
            rows = i * s[0] + d[0] * np.arange(k[0])
            cols = j * s[1] + d[1] * np.arange(k[1])
            win = grid[:, :, rows][:, :, :, cols]
            if kind == "max":
                y[:, :, i, j] = np.where(np.isnan(win).any(axis=(2, 3)), np.nan, win.max(axis=(2, 3)))
            else:
                cnt = (padded if include_pad else inside)[np.ix_(rows, cols)].sum()
                total = win.sum(axis=(2, 3))
                y[:, :, i, j] = total / (divisor or cnt) if inside[np.ix_(rows, cols)].any() else 0.0
    return y


def nhwc(a):
    return np.ascontiguousarray(np.moveaxis(np.asarray(a), 1, -1))


@pytest.mark.parametrize("dt", DTYPES, ids=dname)
def test_max_pool2d(rng, dt):
    x = rand(rng, (2, 5, 13, 11), dt)
    x[1, 2, 4, 4] = np.nan
    for kw in ({"kernel_size": 3, "stride": 2, "padding": 1},
               {"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True},
               {"kernel_size": (3, 2), "stride": (1, 2), "padding": (1, 1), "dilation": (2, 1)},
               {"kernel_size": 2}):
        want = ref(f64(x), "max", kw["kernel_size"], kw.get("stride"), kw.get("padding", 0), kw.get("dilation", 1),
                   kw.get("ceil_mode", False))
        got = clforge.max_pool2d(x, **kw)
        assert got.dtype == x.dtype
        np.testing.assert_array_equal(f64(got), want, "max_pool2d %s" % kw)  # max of stored values: exact
        np.testing.assert_array_equal(f64(clforge.max_pool2d(nhwc(x), layout="NHWC", **kw)), nhwc(want))


@pytest.mark.parametrize("dt", DTYPES, ids=dname)
def test_avg_pool2d(rng, dt):
    x = rand(rng, (3, 4, 10, 9), dt)
    for kw in ({"kernel_size": 10, "stride": 2, "ceil_mode": True},  # the kernel past the input: one window
               {"kernel_size": 3, "stride": 2, "padding": 1},
               {"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True},
               {"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True, "count_include_pad": False},
               {"kernel_size": (2, 4), "stride": (2, 3), "padding": (1, 2), "count_include_pad": False},
               {"kernel_size": 2, "divisor_override": 3}):
        want = ref(f64(x), "avg", kw["kernel_size"], kw.get("stride"), kw.get("padding", 0), 1,
                   kw.get("ceil_mode", False), kw.get("count_include_pad", True), kw.get("divisor_override"))
        assert_close(clforge.avg_pool2d(x, **kw), want, dt, "avg_pool2d %s" % kw, factor=2)
        assert_close(clforge.avg_pool2d(nhwc(x), layout="NHWC", **kw), nhwc(want), dt, "NHWC %s" % kw, factor=2)


def test_adaptive_to_one_and_unbatched(rng):
    x = rand(rng, (2, 7, 7, 40), np.float32)  # NHWC, a CNN's head
    want = f64(x).mean(axis=(1, 2)).reshape(2, 1, 1, 40)
    assert_close(clforge.adaptive_avg_pool2d(x, 1, layout="NHWC"), want, np.float32, "global average", factor=4)
    xc = rand(rng, (3, 5, 6), np.float32)  # one image, (C, H, W)
    got = clforge.adaptive_max_pool2d(xc, (1, 1))
    assert got.shape == (3, 1, 1)
    np.testing.assert_array_equal(got.reshape(3), f64(xc).max(axis=(1, 2)))
    y = np.full((3, 2, 3), 7.0, np.float32)
    r = clforge.max_pool2d(xc, 2, out=y)
    assert r is y
    np.testing.assert_array_equal(f64(y), ref(f64(xc)[None], "max", 2)[0])


def test_device_arrays(cla, cl_queue, rng):
    x = rand(rng, (1, 3, 9, 9), np.float32)
    got = clforge.avg_pool2d(cla.to_device(cl_queue, x), 3, 2, 1, count_include_pad=False)
    assert_close(got.get(), ref(f64(x), "avg", 3, 2, 1, include_pad=False), np.float32, "device arrays", factor=2)


def test_errors():
    x = np.zeros((1, 1, 4, 4), np.float32)
    with pytest.raises(ValueError, match="half"):
        clforge.max_pool2d(x, 3, padding=2)
    with pytest.raises(ValueError, match="larger than the padded input"):
        clforge.avg_pool2d(x, 7)
    with pytest.raises(ValueError, match="should not be zero"):
        clforge.max_pool2d(x, 2, stride=0)
    with pytest.raises(NotImplementedError, match="return_indices"):
        clforge.max_pool2d(x, 2, return_indices=True)
    with pytest.raises(NotImplementedError, match="1 x 1"):
        clforge.adaptive_avg_pool2d(x, 2)
    with pytest.raises(ValueError, match="dilation"):
        clforge.max_pool2d(x, 2, dilation=0)
    with pytest.raises(NotImplementedError, match="1 x 1"):
        clforge.adaptive_avg_pool2d(x, (1, None))
    with pytest.raises(ValueError, match="3-D or 4-D"):
        clforge.max_pool2d(np.zeros((4, 4), np.float32), 2)
    with pytest.raises(ValueError, match="positive integer"):
        clforge.avg_pool2d(x, 2, divisor_override=2.5)
    with pytest.raises(ValueError, match="layout"):
        clforge.max_pool2d(x, 2, layout="CHWN")
