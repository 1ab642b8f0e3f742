"""softmax / log_softmax against float64 numpy: axes, masks, scale, dtypes, device rows."""
import numpy as np
import pytest

import clforge
from conftest import DTYPES, assert_close, dname, f64, rand


def ref_softmax(t, axis=-1):
    t = t - t.max(axis=axis, keepdims=True)
    e = np.exp(t)
    return e / e.sum(axis=axis, keepdims=True)


@pytest.mark.parametrize("dt", DTYPES, ids=dname)
def test_dtypes_and_axes(rng, dt):
    x = rand(rng, (3, 5, 40), dt, scale=3)
    assert_close(clforge.softmax(x), ref_softmax(f64(x)), dt, "last axis")
    assert_close(clforge.softmax(x, dim=1), ref_softmax(f64(x), 1), dt, "dim=1")
    assert_close(clforge.log_softmax(x, dim=0), np.log(ref_softmax(f64(x), 0)), dt, "log, dim=0", factor=2)


def test_mask_scale_and_out_dtype(rng):
    x = rand(rng, (4, 6, 33), scale=2)
    m_row = rand(rng, (33,))
    m_full = rand(rng, (6, 33))
    assert_close(clforge.softmax(x, mask=m_row, scale=0.5), ref_softmax(0.5 * f64(x) + f64(m_row)), np.float32,
                 "one mask row")
    assert_close(clforge.softmax(x, mask=m_full), ref_softmax(f64(x) + f64(m_full)), np.float32, "broadcast mask")
    keep = rng.random((4, 6, 33)) > 0.3
    keep[..., 0] = True
    want = ref_softmax(np.where(keep, f64(x), -np.inf))
    assert_close(clforge.softmax(x, mask=keep), want, np.float32, "boolean mask (True takes part)")
    out = np.empty(x.shape, np.float16)
    clforge.softmax(x, out=out)
    assert_close(out, ref_softmax(f64(x)), np.float16, "f16 out")
    # every element masked out: zeros (log_softmax: -inf), as documented
    allm = np.full((2, 5), -np.inf, np.float32)
    assert (clforge.softmax(np.zeros((2, 5), np.float32), mask=allm) == 0).all()


def test_mask_shapes_that_broadcast_by_rows(rng):
    x = rand(rng, (4, 6, 33), scale=2)
    per_row = rand(rng, (6, 1))  # one value per row: a no-op for softmax, not for a masked -inf
    per_row[2, 0] = -np.inf
    with np.errstate(invalid="ignore"):
        want = ref_softmax(f64(x) + f64(per_row))  # row 2: NaN in numpy, zeros in clforge (documented)
    got = clforge.softmax(x, mask=per_row)
    assert_close(got[:, [0, 1, 3, 4, 5]], want[:, [0, 1, 3, 4, 5]], np.float32, "a (rows, 1) mask")
    assert (got[:, 2] == 0).all(), "a fully masked row gives zeros"
    wide = rand(rng, (6, 66))
    sliced = wide[:, ::2]  # a strided numpy view
    assert_close(clforge.softmax(x, mask=sliced), ref_softmax(f64(x) + f64(sliced)), np.float32, "sliced mask")
    m = rand(rng, (4, 1, 33))
    assert_close(clforge.softmax(x, mask=m), ref_softmax(f64(x) + f64(m)), np.float32, "batch mask over rows")
    mt = rand(rng, (6, 1))
    assert_close(clforge.log_softmax(x, dim=1, mask=mt), np.log(ref_softmax(f64(x) + f64(mt), 1)), np.float32,
                 "mask with dim=1", factor=2)
    with pytest.raises(ValueError, match="does not broadcast"):
        clforge.softmax(x, mask=rand(rng, (2, 4, 6, 33)))  # more leading axes than the input
    with pytest.raises(ValueError, match="out has shape"):
        clforge.softmax(x, dim=0, out=np.empty((6, 33), np.float32))


def test_device_rows_and_in_place(rng, cl_queue, cla):
    x = rand(rng, (8, 70))
    host = np.zeros((8, 100), np.float32)
    host[:, 10:80] = x
    big = cla.to_device(cl_queue, host)
    view = big[:, 10:80]  # strided rows with an offset, no copy
    got = clforge.softmax(view)
    assert_close(got, ref_softmax(f64(x)), np.float32, "strided rows")
    clforge.log_softmax(view, out=view)  # in place
    assert_close(big.get()[:, 10:80], np.log(ref_softmax(f64(x))), np.float32, "in place")
    assert (big.get()[:, :10] == 0).all() and (big.get()[:, 80:] == 0).all()
    with pytest.raises(ValueError, match="last axis"):
        clforge.softmax(cla.to_device(cl_queue, x), dim=0)
    # device masks: a row broadcast over every row; a strided last axis is refused
    dm = cla.to_device(cl_queue, rand(rng, (2, 70)))
    assert_close(clforge.softmax(cla.to_device(cl_queue, x), mask=dm[1]), ref_softmax(f64(x) + f64(dm)[1]),
                 np.float32, "device mask row")
    wide = cla.to_device(cl_queue, rand(rng, (140,)))
    with pytest.raises(ValueError, match="contiguous"):
        clforge.softmax(cla.to_device(cl_queue, x), mask=wide[::2])


@pytest.mark.parametrize("dt", DTYPES, ids=dname)
def test_backward_against_float64(rng, dt):
    """softmax_backward / log_softmax_backward against the float64 formulas,
    on real forward outputs, along the last axis and dim=1, with a scale."""
    x = rand(rng, (3, 5, 40), dt, scale=3)
    g = rand(rng, (3, 5, 40), dt)
    y = clforge.softmax(x)
    want = f64(y) * (f64(g) - (f64(y) * f64(g)).sum(-1, keepdims=True))
    assert_close(clforge.softmax_backward(g, y), want, dt, "softmax backward", factor=2)
    ly = clforge.log_softmax(x, dim=1)
    want = 0.5 * (f64(g) - np.exp(f64(ly)) * f64(g).sum(1, keepdims=True))
    assert_close(clforge.log_softmax_backward(g, ly, dim=1, scale=0.5), want, dt, "log_softmax backward, dim=1",
                 factor=2)


def test_backward_is_the_gradient(rng):
    """d/dx of sum(g * softmax(x)) by central differences in float64."""
    x = rand(rng, (2, 9), scale=2).astype(np.float64)
    g = rand(rng, (2, 9)).astype(np.float64)
    dx = clforge.softmax_backward(g.astype(np.float32), clforge.softmax(x.astype(np.float32)))
    h, fd = 1e-4, np.zeros_like(x)
    for i in np.ndindex(x.shape):
        xp, xm = x.copy(), x.copy()
        xp[i] += h
        xm[i] -= h
        fd[i] = ((g * ref_softmax(xp)).sum() - (g * ref_softmax(xm)).sum()) / (2 * h)
    assert np.allclose(dx, fd, rtol=1e-4, atol=1e-6), (dx, fd)


def test_backward_refusals(rng):
    y = rand(rng, (4, 8))
    with pytest.raises(ValueError, match="shape"):
        clforge.softmax_backward(rand(rng, (4, 7)), y)
    with pytest.raises(IndexError, match="Dimension out of range"):
        clforge.softmax_backward(y, y, dim=2)
    with pytest.raises(ValueError, match="scale 0"):
        clforge.softmax_backward(y, y, scale=0.0)
