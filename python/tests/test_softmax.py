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
