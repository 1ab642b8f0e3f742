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


def test_adamw_against_float64(rng, cl_queue, cla):
    """clforge.optim.AdamW over f32 and f16 parameters (f32 masters) for three
    steps against torch's AdamW written out in float64."""
    ps = [rand(rng, (5, 7)), rand(rng, (9,), np.float16)]
    params = [cla.to_device(cl_queue, p.copy()) for p in ps]
    opt = clforge.optim.AdamW(params, lr=1e-2, betas=(0.8, 0.99), eps=1e-6, weight_decay=0.1)
    w = [p.astype(np.float64) for p in ps]
    m = [np.zeros_like(x) for x in w]
    v = [np.zeros_like(x) for x in w]
    for k in range(1, 4):
        gs = [rand(rng, p.shape, p.dtype) for p in ps]
        opt.step([cla.to_device(cl_queue, g) for g in gs])
        for i, g in enumerate(gs):
            g = g.astype(np.float64)
            w[i] *= 1 - 1e-2 * 0.1
            m[i] = 0.8 * m[i] + 0.2 * g
            v[i] = 0.99 * v[i] + 0.01 * g * g
            w[i] -= 1e-2 * (m[i] / (1 - 0.8 ** k)) / (np.sqrt(v[i] / (1 - 0.99 ** k)) + 1e-6)
    assert_close(params[0].get(), w[0], np.float32, "f32 params", factor=4)
    assert_close(params[1].get(), w[1], np.float16, "f16 params", factor=2)
    assert opt.state == {"scale": 1.0, "good_steps": 0, "skipped": False, "step": 3}


def test_sgd_loss_scaling_skips_a_poisoned_step(rng, cl_queue, cla):
    p0 = rand(rng, (33,), np.float16)
    params = [cla.to_device(cl_queue, p0.copy())]
    opt = clforge.optim.SGD(params, lr=0.1, momentum=0.9, loss_scale=1024.0, growth_interval=2)
    g = (rand(rng, (33,)) * 1024).astype(np.float16)
    g[5] = np.inf
    opt.step([cla.to_device(cl_queue, g)])
    assert (params[0].get() == p0).all(), "a step with inf changed the parameters"
    assert opt.state == {"scale": 512.0, "good_steps": 0, "skipped": True, "step": 0}
    g[5] = 1.0
    opt.step([cla.to_device(cl_queue, g)])
    want = p0.astype(np.float64) - 0.1 * g.astype(np.float64) / 512  # the first step: buf = grad
    assert_close(params[0].get(), want, np.float16, "after the skip")
    assert opt.state["step"] == 1 and not opt.state["skipped"]
    with pytest.raises(ValueError, match="gradients"):
        opt.step([])
    with pytest.raises(TypeError, match="pyopencl"):
        clforge.optim.SGD([np.zeros(3, np.float32)], lr=0.1)
