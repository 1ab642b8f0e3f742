"""cross_entropy against float64 numpy: reductions, label smoothing, ignored targets, the gradient."""
import numpy as np
import pytest

import clforge
from conftest import DTYPES, assert_close, dname, f64, rand


def ref_ce(z, t, ignore_index=-100, reduction="mean", eps=0.0):
    z = f64(z)
    m = z.max(1, keepdims=True)
    lse = (m + np.log(np.exp(z - m).sum(1, keepdims=True)))[:, 0]
    n = z.shape[1]
    keep = (t >= 0) & (t != ignore_index)
    ts = np.where(keep, t, 0)
    rows = lse - (1 - eps) * z[np.arange(len(t)), ts] - eps / n * z.sum(1)
    rows = np.where(keep, rows, 0.0)
    p = np.exp(z - lse[:, None])
    onehot = np.zeros_like(z)
    onehot[np.arange(len(t)), ts] = 1
    grad = (p - (1 - eps) * onehot - eps / n) * keep[:, None]
    if reduction == "mean":
        return rows.sum() / keep.sum(), grad / keep.sum()
    if reduction == "sum":
        return rows.sum(), grad
    return rows, grad


@pytest.mark.parametrize("dt", DTYPES, ids=dname)
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_loss_and_grad(rng, dt, reduction):
    z = rand(rng, (12, 50), dt, scale=4)
    t = rng.integers(0, 50, 12)
    t[3] = -100
    t[7] = 5
    want_l, want_g = ref_ce(z, t, ignore_index=5, reduction=reduction, eps=0.1)
    loss, grad = clforge.cross_entropy(z, t, ignore_index=5, reduction=reduction, label_smoothing=0.1,
                                       return_grad=True)
    assert_close(loss, want_l, np.float32, "loss", factor=4)
    assert_close(grad, want_g, dt, "grad", factor=2)
    assert grad.dtype == np.asarray(z).dtype


def test_grad_scale_and_loss_only(rng):
    z = rand(rng, (5, 9), scale=2)
    t = rng.integers(0, 9, 5)
    want_l, want_g = ref_ce(z, t)
    assert_close(clforge.cross_entropy(z, t), want_l, np.float32, "loss only")
    _, g = clforge.cross_entropy(z, t, return_grad=True, grad_scale=1024.0)
    assert_close(g, 1024 * want_g, np.float32, "scaled grad")


def test_refusals(rng):
    z = rand(rng, (4, 6))
    with pytest.raises(ValueError, match="reduction"):
        clforge.cross_entropy(z, np.zeros(4, np.int32), reduction="avg")
    with pytest.raises(ValueError, match="label_smoothing"):
        clforge.cross_entropy(z, np.zeros(4, np.int32), label_smoothing=2.0)
    with pytest.raises(ValueError, match="class indices"):
        clforge.cross_entropy(z, np.zeros(3, np.int32))
    with pytest.raises(ValueError, match=r"\(N, C\)"):
        clforge.cross_entropy(rand(rng, (2, 3, 4)), np.zeros(2, np.int32))
