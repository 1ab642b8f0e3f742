"""scaled_dot_product_attention against a float64 numpy version of PyTorch's
documented semantics (its reference implementation in the docs: a top-left
causal mask, scale 1/sqrt(E), boolean masks that take part where True).

The cases use the compile-time values the C tests share (tests/attention_cases.h:
f32 with D = Dv = 16 and each causal alignment; f32, D = 32, soft cap, an f32
mask, top-left; f16 with D = 48, Dv = 40, an f16 mask, bottom-right), so that in
the suite they reuse those builds instead of compiling their own."""
import numpy as np
import pytest

import clforge
from conftest import assert_close, f64, rand


def ref_sdpa(q, k, v, mask=None, causal=None, scale=None, window=0, kv_lens=None, q_lens=None, softcap=0.0):
    q, k, v = f64(q), f64(k), f64(v)
    hq, hk = q.shape[-3], k.shape[-3]
    k, v = np.repeat(k, hq // hk, -3), np.repeat(v, hq // hk, -3)
    L, S = q.shape[-2], k.shape[-2]
    s = q @ np.swapaxes(k, -1, -2) * (1 / np.sqrt(q.shape[-1]) if scale is None else scale)
    if softcap:
        s = softcap * np.tanh(s / softcap)
    if mask is not None:
        s = s + (np.where(mask, 0.0, -np.inf) if mask.dtype == bool else f64(mask))
    b = q.shape[0]
    kvl = np.full(b, S) if kv_lens is None else np.asarray(kv_lens)
    ql = np.full(b, L) if q_lens is None else np.asarray(q_lens)
    out = np.zeros(q.shape[:-1] + (v.shape[-1],))
    lse = np.full(q.shape[:-1], -np.inf)
    for bi in range(b):
        i = np.arange(L)[:, None]
        j = np.arange(S)[None, :]
        diag = i if causal != "bottom_right" else i + kvl[bi] - ql[bi]
        keep = j < kvl[bi]
        if causal:
            keep = keep & (j <= diag)
            if window:
                keep = keep & (j > diag - window)
        sb = np.where(keep, s[bi], -np.inf)
        m = sb.max(-1, keepdims=True)
        m = np.where(np.isfinite(m), m, 0)
        e = np.exp(sb - m)
        z = e.sum(-1, keepdims=True)
        o = np.where(z > 0, (e / np.where(z > 0, z, 1)) @ v[bi], 0)
        out[bi] = o
        lse[bi] = np.where(z[..., 0] > 0, np.log(np.where(z[..., 0] > 0, z[..., 0], 1)) + m[..., 0], -np.inf)
        out[bi, :, ql[bi]:] = np.nan  # rows past q_len are not written: compared separately
        lse[bi, :, ql[bi]:] = np.nan
    return out, lse


def check(got, want, dt, what, factor=1.0):
    got = f64(got)
    rows = ~np.isnan(want)
    assert_close(np.where(rows, got, 0), np.where(rows, want, 0), dt, what, factor)


def test_pytorch_defaults(rng):
    q, k, v = rand(rng, (2, 3, 5, 16)), rand(rng, (2, 3, 7, 16)), rand(rng, (2, 3, 7, 16))
    check(clforge.scaled_dot_product_attention(q, k, v), ref_sdpa(q, k, v)[0], np.float32, "plain")
    # is_causal with L != S: PyTorch's mask is torch.ones(L, S).tril(diagonal=0), top-left aligned
    tril = np.tril(np.ones((5, 7), bool))
    got = clforge.scaled_dot_product_attention(q, k, v, is_causal=True)
    check(got, ref_sdpa(q, k, v, mask=tril)[0], np.float32, "is_causal is top-left")
    got = clforge.scaled_dot_product_attention(q, k, v, is_causal=True, causal_alignment="bottom_right")
    check(got, ref_sdpa(q, k, v, mask=np.tril(np.ones((5, 7), bool), 2))[0], np.float32, "bottom-right")
    check(clforge.scaled_dot_product_attention(q, k, v, scale=0.3), ref_sdpa(q, k, v, scale=0.3)[0], np.float32,
          "scale")


def test_gqa_needs_enable_gqa(rng):
    q, k, v = rand(rng, (1, 4, 3, 16)), rand(rng, (1, 2, 6, 16)), rand(rng, (1, 2, 6, 16))
    with pytest.raises(ValueError, match="enable_gqa"):
        clforge.scaled_dot_product_attention(q, k, v)
    got = clforge.scaled_dot_product_attention(q, k, v, enable_gqa=True)
    check(got, ref_sdpa(q, k, v)[0], np.float32, "GQA: query head h uses kv head h // 2")
    with pytest.raises(ValueError, match="multiple"):
        clforge.scaled_dot_product_attention(rand(rng, (1, 3, 3, 16)), k, v, enable_gqa=True)
    with pytest.raises(NotImplementedError, match="dropout"):
        clforge.scaled_dot_product_attention(q, k, v, None, 0.1, enable_gqa=True)


def test_masks_and_softcap(rng):
    q, k, v = rand(rng, (2, 2, 6, 32)), rand(rng, (2, 2, 9, 32)), rand(rng, (2, 2, 9, 32))
    add = rand(rng, (6, 9))  # broadcast over batch and heads
    got = clforge.scaled_dot_product_attention(q, k, v, add, is_causal=True, softcap=2.0)
    check(got, ref_sdpa(q, k, v, mask=add, causal="top_left", softcap=2.0)[0], np.float32, "additive + softcap")
    keep = rng.random((2, 1, 6, 9)) > 0.4
    keep[..., 0] = True
    got = clforge.scaled_dot_product_attention(q, k, v, keep, is_causal=True, softcap=3.0)
    check(got, ref_sdpa(q, k, v, mask=keep, causal="top_left", softcap=3.0)[0], np.float32, "boolean mask")


def test_lengths_window_lse(rng):
    q, k, v = rand(rng, (2, 2, 6, 16)), rand(rng, (2, 2, 9, 16)), rand(rng, (2, 2, 9, 16))
    want, wlse = ref_sdpa(q, k, v, causal="bottom_right", window=3, kv_lens=[9, 5], q_lens=[6, 4])
    o, lse = clforge.scaled_dot_product_attention(q, k, v, is_causal=True, causal_alignment="bottom_right",
                                                  window=3, kv_lens=[9, 5], q_lens=[6, 4], return_lse=True)
    check(o, want, np.float32, "window + lengths")
    assert lse.shape == (2, 2, 6) and lse.dtype == np.float32
    check(lse, wlse, np.float32, "lse")
    # rows past q_lens are not computed: a new numpy result holds zeros there, a given out its own values
    assert (o[1, :, 4:] == 0).all() and (lse[1, :, 4:] == 0).all()
    out = np.full(q.shape, 5.0, np.float32)
    clforge.scaled_dot_product_attention(q, k, v, is_causal=True, causal_alignment="bottom_right", window=3,
                                         kv_lens=[9, 5], q_lens=[6, 4], out=out)
    check(out, want, np.float32, "window + lengths, out given")
    assert (out[1, :, 4:] == 5.0).all()
    with pytest.raises(ValueError, match="window needs is_causal"):
        clforge.scaled_dot_product_attention(q, k, v, window=2)


def test_three_d_inputs_and_f16(rng):
    q, k, v = rand(rng, (2, 4, 48), np.float16), rand(rng, (2, 5, 48), np.float16), rand(rng, (2, 5, 40), np.float16)
    mask = rand(rng, (4, 5), np.float16)
    got = clforge.scaled_dot_product_attention(q, k, v, mask, is_causal=True, causal_alignment="bottom_right")
    assert got.shape == (2, 4, 40) and got.dtype == np.float16
    want = ref_sdpa(q[:, None], k[:, None], v[:, None], mask=mask, causal="bottom_right")[0][:, 0]
    check(got, want, np.float16, "3-D, f16", factor=4)
    # an (N, L, S) mask against (N, L, E) queries: one mask per batch entry
    nmask = rand(rng, (2, 4, 5), np.float16)
    got = clforge.scaled_dot_product_attention(q, k, v, nmask, is_causal=True, causal_alignment="bottom_right")
    want = ref_sdpa(q[:, None], k[:, None], v[:, None], mask=nmask[:, None], causal="bottom_right")[0][:, 0]
    check(got, want, np.float16, "3-D, (N, L, S) mask", factor=4)
    with pytest.raises(ValueError, match="does not broadcast"):
        clforge.scaled_dot_product_attention(q, k, v, rand(rng, (3, 2, 4, 5), np.float16))


def test_device_bshd_views_and_packed_qkv(rng, cl_queue, cla):
    B, S, H, D = 2, 6, 4, 16
    qkv = rand(rng, (B, S, 3, H, D))  # one packed projection, as models store it
    d = cla.to_device(cl_queue, qkv)
    # q, k, v: (B, H, S, D) views of the packed buffer, strides passed through
    q, k, v = (d[:, :, i].transpose((0, 2, 1, 3)) for i in range(3))
    out = cla.empty(cl_queue, (B, S, H, D), np.float32)
    o = clforge.scaled_dot_product_attention(q, k, v, is_causal=True, out=out.transpose((0, 2, 1, 3)))
    assert o.base_data.int_ptr == out.base_data.int_ptr
    hq = np.moveaxis(qkv, 3, 1)  # (B, H, S, 3, D)
    want = ref_sdpa(hq[..., 0, :], hq[..., 1, :], hq[..., 2, :], causal="top_left")[0]
    check(out.get().transpose(0, 2, 1, 3), want, np.float32, "packed QKV, BSHD out")
    o, lse = clforge.scaled_dot_product_attention(q, k, v, return_lse=True)
    assert type(lse).__name__ == "Array" and lse.shape == (B, H, S)
    check(lse.get(), ref_sdpa(hq[..., 0, :], hq[..., 1, :], hq[..., 2, :])[1], np.float32, "device lse")
    # q_lens on the device: rows past each length are zero in a new result
    o, lse = clforge.scaled_dot_product_attention(q, k, v, q_lens=[6, 2], return_lse=True)
    want, wlse = ref_sdpa(hq[..., 0, :], hq[..., 1, :], hq[..., 2, :], q_lens=[6, 2])
    check(o.get(), want, np.float32, "device q_lens")
    assert (o.get()[1, :, 2:] == 0).all() and (lse.get()[1, :, 2:] == 0).all()
