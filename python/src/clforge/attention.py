"""scaled_dot_product_attention: PyTorch's call over clforge_attention
(fused prefill / split-KV decode; no Sq x Sk buffer)."""
import math
from ctypes import byref, c_void_p

import numpy as np

from ._arrays import Call, is_device
from ._capi import AttentionBuffers, AttentionDesc, lib
from .errors import check
from .softmax import additive_mask

ALIGN = {"top_left": 1, "bottom_right": 2}


def _bhsd(shape, strides, what):
    """A (..., S, D) tensor as (B, H, S, D) shape and element strides."""
    nd = len(shape)
    if nd == 4:
        return tuple(shape), tuple(strides)
    if nd == 3:
        return (shape[0], 1, shape[1], shape[2]), (strides[0], 0, strides[1], strides[2])
    if nd == 2:
        return (1, 1) + tuple(shape), (0, 0) + tuple(strides)
    raise ValueError("scaled_dot_product_attention: %s must be 2-D (S, E), 3-D (N, S, E) or 4-D (N, H, S, E), "
                     "got %d-D" % (what, nd))


def _lens(call, lens, b, what):
    """int32 per-sequence lengths: numpy (uploaded) or a pyopencl int32 array."""
    if is_device(lens):
        if lens.dtype != np.int32 or lens.shape != (b,) or (b > 1 and lens.strides[0] != 4):
            raise ValueError("scaled_dot_product_attention: %s must be a contiguous int32 array of %d values" % (what, b))
        call.add_waits(lens)
        return lens.base_data.int_ptr, lens.offset // 4
    arr = np.ascontiguousarray(np.asarray(lens, dtype=np.int64).reshape(-1))
    if arr.shape != (b,):
        raise ValueError("scaled_dot_product_attention: %s must have %d values (the batch), got %d"
                         % (what, b, arr.size))
    if (arr < 0).any() or (arr > 2**31 - 1).any():
        raise ValueError("scaled_dot_product_attention: %s must be in [0, 2^31)" % what)
    return call._upload(arr.astype(np.int32)), 0


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None,
                                 enable_gqa=False, *, causal_alignment="top_left", window=None, kv_lens=None,
                                 q_lens=None, softcap=None, return_lse=False, out=None, ctx=None):
    """torch.nn.functional.scaled_dot_product_attention, fused.

    Shapes (N, H, L, E) / (N, Hkv, S, E) / (N, Hkv, S, Ev) (or 3-D without the
    head axis, or 2-D); any strides (BSHD views, packed QKV slices) pass
    through. Defaults as PyTorch: scale 1/sqrt(E); ``is_causal`` is
    top-left aligned (query i sees keys j <= i) — ``causal_alignment=
    "bottom_right"`` aligns the last query with the last key (a KV-cache
    decoder's causal mask); ``enable_gqa`` must be set when Hq != Hkv.
    ``attn_mask`` broadcasts to (N, Hq, L, S): boolean (True takes part) or
    additive. Beyond PyTorch: ``window`` (sliding window, with is_causal),
    ``kv_lens``/``q_lens`` (per-sequence lengths, int32; query rows past
    q_lens are zero in a new result, untouched in ``out``), ``softcap`` and
    ``return_lse`` (then returns (out, lse), lse f32 of shape (..., L)).
    Unlike PyTorch, a mask and is_causal may be combined."""
    op = "scaled_dot_product_attention"
    if dropout_p:
        raise NotImplementedError("%s: dropout_p must be 0 (clforge attention is inference-only)" % op)
    if causal_alignment not in ALIGN:
        raise ValueError("%s: causal_alignment must be 'top_left' or 'bottom_right'" % op)
    if window is not None and not is_causal:
        raise ValueError("%s: window needs is_causal=True (it counts keys back from the causal diagonal)" % op)
    with Call(op, (query, key, value, attn_mask, out), ctx) as call:
        Q, K, V = call.operand(query, "query"), call.operand(key, "key"), call.operand(value, "value")
        if not (len(Q.shape) == len(K.shape) == len(V.shape)):
            raise ValueError("%s: query, key and value must have the same number of dimensions (%d, %d, %d)"
                             % (op, len(Q.shape), len(K.shape), len(V.shape)))
        qs, qst = _bhsd(Q.shape, Q.strides, "query")
        ks, kst = _bhsd(K.shape, K.strides, "key")
        vs, vst = _bhsd(V.shape, V.strides, "value")
        b, hq, sq, dq = qs
        if ks[0] != b or vs[0] != b:
            raise ValueError("%s: batch sizes differ: query %d, key %d, value %d" % (op, b, ks[0], vs[0]))
        if ks[1] != vs[1] or ks[2] != vs[2]:
            raise ValueError("%s: key %s and value %s must agree in heads and sequence length"
                             % (op, K.shape, V.shape))
        if ks[3] != dq:
            raise ValueError("%s: query's embedding size %d differs from key's %d" % (op, dq, ks[3]))
        hkv = ks[1]
        if hq != hkv:
            if not enable_gqa:
                raise ValueError("%s: query has %d heads and key/value %d; set enable_gqa=True for grouped-query "
                                 "attention" % (op, hq, hkv))
            if hq % hkv:
                raise ValueError("%s: the number of query heads (%d) must be a multiple of key/value heads (%d)"
                                 % (op, hq, hkv))
        if K.code != V.code:
            raise TypeError("%s: key and value must have one dtype (%s, %s)" % (op, K.dtype, V.dtype))
        sk, dv = ks[2], vs[3]
        oshape = tuple(Q.shape[:-1]) + (dv,)
        # Rows past q_lens are not written: zeros in a new result, a given
        # out keeps its values there.
        partial = q_lens is not None
        O = call.output(oshape, Q.dtype if out is None else out.dtype, out, read=partial, zero=partial)
        _, ost = _bhsd(O.shape, O.strides, "out")
        d = AttentionDesc()
        d.batch, d.heads_q, d.heads_kv, d.seq_q, d.seq_kv, d.head_dim, d.head_dim_v = b, hq, hkv, sq, sk, dq, dv
        d.q_type, d.kv_type, d.o_type = Q.code, K.code, O.code
        d.q_offset, d.k_offset, d.v_offset, d.o_offset = Q.offset, K.offset, V.offset, O.offset
        for name, st, shape in (("q_strides", qst, qs), ("k_strides", kst, ks), ("v_strides", vst, vs),
                                ("o_strides", ost, qs[:3] + (dv,))):
            # size-1 axes: any stride; give them the tight one so that an
            # all-zero array (the C API's "tight") never arises by accident
            tight = [shape[1] * shape[2] * shape[3], shape[2] * shape[3], shape[3], 1]
            if not any(s for s, n in zip(st, shape) if n > 1) and any(n > 1 for n in shape):
                raise ValueError("%s: %s has strides of 0 along every axis; materialize it first" % (op, name[0]))
            getattr(d, name)[:] = [s if n > 1 else t for s, n, t in zip(st, shape, tight)]
        d.scale = (1.0 / math.sqrt(dq)) if scale is None else float(scale)
        if scale is not None and d.scale == 0.0:
            raise ValueError("%s: scale 0 is read as the default 1/sqrt(E) by clforge; pass a small nonzero value" % op)
        d.softcap = float(softcap or 0.0)
        d.causal = ALIGN[causal_alignment] if is_causal else 0
        d.window = int(window or 0)
        bufs = AttentionBuffers()
        if attn_mask is not None:
            mask = additive_mask(attn_mask, Q.dtype, op)
            full = (b, hq, sq, sk)
            target = tuple(Q.shape[:-1]) + (sk,)
            try:
                fits = np.broadcast_shapes(tuple(mask.shape), target) == target
            except ValueError:
                fits = False
            if not fits:
                raise ValueError("%s: attn_mask of shape %s does not broadcast to %s" % (op, tuple(mask.shape), target))
            M = call.operand(mask if is_device(mask) else np.ascontiguousarray(mask), "attn_mask")
            nd = len(M.shape)
            mshape = (1,) * (4 - nd) + tuple(M.shape)
            mst = (0,) * (4 - nd) + tuple(M.strides)
            if len(Q.shape) == 3 and nd >= 3:  # (N, L, S) masks against (N, L, E) queries
                mshape = (mshape[1], 1) + mshape[2:]
                mst = (mst[1], 0) + mst[2:]
            mst = [0 if n == 1 else s for n, s in zip(mshape, mst)]
            if not any(mst):
                if is_device(mask):
                    raise ValueError("%s: a one-element device mask broadcasts with all strides 0, which the C API "
                                     "reads as tight; give it at least one key axis" % op)
                M = call.operand(np.ascontiguousarray(np.broadcast_to(np.asarray(mask), full[-nd:] if nd else full)),
                                 "attn_mask")
                mst = [0, 0, 0, 1] if sk > 1 else [0, 0, 1, 1]
            d.mask_type, d.mask_offset = M.code, M.offset
            d.mask_strides[:] = mst
            bufs.mask = M.buf
        if kv_lens is not None:
            bufs.kv_lens, d.kv_lens_offset = _lens(call, kv_lens, b, "kv_lens")
        if q_lens is not None:
            bufs.q_lens, d.q_lens_offset = _lens(call, q_lens, b, "q_lens")
        L = None
        if return_lse:
            L = call.output(tuple(Q.shape[:-1]), np.float32, None, "lse", zero=partial)
            _, lst = _bhsd(tuple(Q.shape[:-1]) + (1,), tuple(L.strides) + (1,), "lse")
            d.lse_offset = L.offset
            tight = [hq * sq, sq, 1]
            d.lse_strides[:] = [s if n > 1 else t for s, n, t in zip(lst[:3], (b, hq, sq), tight)]
            bufs.lse = L.buf
        event = c_void_p()
        if sq == 0 or b == 0 or hq == 0:
            res = call.finish(event, O)
            return (res, L.array) if return_lse else res
        nw, wl = call.wait_list()
        check(lib.clforge_attention(call.handle, byref(d), Q.buf, K.buf, V.buf, O.buf, byref(bufs), nw, wl,
                                    byref(event)), call.handle)
        if return_lse and call.device:
            import pyopencl as pcl
            call.attach(L.array, pcl.Event.from_int_ptr(event.value, retain=True))  # O's event ends both
        res = call.finish(event, O)
        return (res, L.array) if return_lse else res
