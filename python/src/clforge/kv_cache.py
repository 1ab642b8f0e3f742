"""flash_attn_with_kvcache: FlashAttention's KV-cache call over clforge_attention
(a contiguous or a paged cache, in f32/f16/bf16 or ggml's q8_0 blocks), and
reshape_and_cache: vLLM's append of new tokens into a paged pool over
clforge_kv_cache_append."""
import math
from ctypes import byref, c_void_p

import numpy as np

from ._arrays import Call
from ._capi import AttentionBuffers, AttentionDesc, KvAppendDesc, lib
from .attention import _lens
from .conv2d import _tight
from .errors import check

Q8_0 = 7  # clforge_dtype's CLFORGE_Q8_0


def _bhsd(strides, shape):
    """(b, s, h, d) strides as the C API's (b, h, s, d); size-1 axes get the
    tight stride, so that an all-zero array (the C API's "tight") never
    arises by accident."""
    st = (strides[0], strides[2], strides[1], strides[3])
    n = (shape[0], shape[2], shape[1], shape[3])
    tight = [n[1] * n[2] * n[3], n[2] * n[3], n[3], 1]
    return [s if k > 1 else t for s, k, t in zip(st, n, tight)]


def flash_attn_with_kvcache(q, k_cache, v_cache, cache_seqlens=None, block_table=None, softmax_scale=None,
                            causal=False, softcap=0.0, kv_dtype=None, out=None, ctx=None):
    """``flash_attn.flash_attn_with_kvcache``'s attention over a KV cache
    (the cache is read, not appended to; no rotary embedding).

    ``q`` (B, Sq, Hq, D); ``k_cache``, ``v_cache`` (B, S_cache, Hkv, D), or
    with ``block_table`` a paged pool (num_blocks, block_size, Hkv, D) and
    ``block_table`` (B, max_blocks) int32 the pool blocks of each sequence in
    order. ``cache_seqlens`` (B,) int32: each sequence's keys (default: the
    whole cache; with a table, it is checked against the table, and a block
    number a sequence uses outside the pool is an error). ``causal``
    aligns bottom-right, the last query with the last key: a chunk of Sq new
    tokens over the cache (chunked prefill), or Sq = 1 (decode).
    ``kv_dtype="q8_0"``: the caches are uint8 arrays whose last axis holds
    D/32 blocks of 34 bytes (``clforge.quantize_q8_0``'s output) and D is
    q's. Returns (B, Sq, Hq, D) in q's dtype (or ``out``)."""
    op = "flash_attn_with_kvcache"
    if kv_dtype not in (None, "q8_0"):
        raise ValueError("%s: kv_dtype must be None (the caches' own dtype) or 'q8_0'" % op)
    q8 = kv_dtype == "q8_0"
    with Call(op, (q, k_cache, v_cache, out), ctx) as call:
        Q = call.operand(q, "q")
        K, V = call.operand(k_cache, "k_cache", ints=q8), call.operand(v_cache, "v_cache", ints=q8)
        if len(Q.shape) != 4 or len(K.shape) != 4 or len(V.shape) != 4:
            raise ValueError("%s: q, k_cache and v_cache must be 4-D (B, S, H, D)" % op)
        b, sq, hq, d = Q.shape
        if K.shape != V.shape:
            raise ValueError("%s: k_cache %s and v_cache %s differ" % (op, K.shape, V.shape))
        if q8:
            if np.dtype(K.dtype) != np.uint8 or np.dtype(V.dtype) != np.uint8:
                raise TypeError("%s: q8_0 caches are uint8 bytes (clforge.quantize_q8_0)" % op)
            if d % 32 or K.shape[3] != d // 32 * 34:
                raise ValueError("%s: q8_0 caches need D a multiple of 32 and a last axis of D/32*34 = %d bytes, "
                                 "got D %d and %d" % (op, d // 32 * 34, d, K.shape[3]))
        elif K.shape[3] != d:
            raise ValueError("%s: q's head size %d differs from the caches' %d" % (op, d, K.shape[3]))
        elif K.code != V.code:
            raise TypeError("%s: k_cache and v_cache must have one dtype (%s, %s)" % (op, K.dtype, V.dtype))
        hkv = K.shape[2]
        if hq % hkv:
            raise ValueError("%s: query heads (%d) must be a multiple of the caches' heads (%d)" % (op, hq, hkv))
        dsc = AttentionDesc()
        bufs = AttentionBuffers()
        if block_table is not None:
            T = call.operand(block_table, "block_table", ints=True)
            if np.dtype(T.dtype) != np.int32 or len(T.shape) != 2 or T.shape[0] != b:
                raise ValueError("%s: block_table must be int32 of shape (B, max_blocks) = (%d, ...)" % (op, b))
            if T.shape[1] > 1 and T.strides[1] != 1:
                raise ValueError("%s: block_table's rows must be contiguous" % op)
            sk = T.shape[1] * K.shape[1]
            dsc.kv_block_size, dsc.kv_num_blocks = K.shape[1], K.shape[0]
            dsc.block_table_stride = T.strides[0] if b > 1 else max(T.shape[1], 1)
            dsc.block_table_offset = T.offset
            bufs.block_table = T.buf
        else:
            if K.shape[0] != b:
                raise ValueError("%s: the caches hold %d sequences, q %d" % (op, K.shape[0], b))
            sk = K.shape[1]
        O = call.output((b, sq, hq, d), Q.dtype if out is None else out.dtype, out)
        dsc.batch, dsc.heads_q, dsc.heads_kv, dsc.seq_q, dsc.seq_kv, dsc.head_dim = b, hq, hkv, sq, sk, d
        dsc.q_type, dsc.kv_type, dsc.o_type = Q.code, Q8_0 if q8 else K.code, O.code
        dsc.q_offset, dsc.k_offset, dsc.v_offset, dsc.o_offset = Q.offset, K.offset, V.offset, O.offset
        dsc.q_strides[:] = _bhsd(Q.strides, Q.shape)
        dsc.k_strides[:] = _bhsd(K.strides, K.shape)
        dsc.v_strides[:] = _bhsd(V.strides, V.shape)
        dsc.o_strides[:] = _bhsd(O.strides, O.shape)
        dsc.scale = (1.0 / math.sqrt(d)) if softmax_scale is None else float(softmax_scale)
        if softmax_scale is not None and dsc.scale == 0.0:
            raise ValueError("%s: softmax_scale 0 is read as the default 1/sqrt(D) by clforge" % op)
        dsc.softcap = float(softcap or 0.0)
        dsc.causal = 2 if causal else 0
        if cache_seqlens is not None:
            bufs.kv_lens, dsc.kv_lens_offset = _lens(call, cache_seqlens, b, "cache_seqlens")
        event = c_void_p()
        if b == 0 or sq == 0 or hq == 0:
            return call.finish(event, O)
        nw, wl = call.wait_list()
        check(lib.clforge_attention(call.handle, byref(dsc), Q.buf, K.buf, V.buf, O.buf, byref(bufs), nw, wl,
                                    byref(event)), call.handle)
        return call.finish(event, O)


def reshape_and_cache(key, value, key_cache, value_cache, slot_mapping, kv_dtype=None, ctx=None):
    """vLLM's ``reshape_and_cache_flash``: the new tokens' ``key`` and
    ``value`` (T, Hkv, D) into the paged pools ``key_cache``,
    ``value_cache`` (num_blocks, block_size, Hkv, D; flash_attn_with_kvcache's
    layout) at ``slot_mapping`` (T,) int32 (block * block_size + position;
    -1 skips a token), in place (clforge_kv_cache_append). ``kv_dtype="q8_0"``:
    uint8 pools of D/32 blocks of 34 bytes, each row quantized on the way as
    ``quantize_q8_0`` does. A slot outside the pool or two tokens on one slot
    raise before anything runs."""
    op = "reshape_and_cache"
    if kv_dtype not in (None, "q8_0"):
        raise ValueError("%s: kv_dtype must be None (the caches' own dtype) or 'q8_0'" % op)
    q8 = kv_dtype == "q8_0"
    sdt = getattr(slot_mapping, "dtype", None)
    if sdt is None or np.dtype(sdt) != np.int32:
        raise ValueError("%s: slot_mapping must be an int32 array, got %r" % (op, sdt))
    with Call(op, (key, value, slot_mapping, key_cache, value_cache), ctx) as call:
        K, V = call.operand(key, "key"), call.operand(value, "value")
        S = call.operand(slot_mapping, "slot_mapping", ints=True)
        if len(K.shape) != 3 or K.shape != V.shape or tuple(S.shape) != (K.shape[0],):
            raise ValueError("%s: key and value must be (T, Hkv, D) alike and slot_mapping (T,), got %s, %s, %s"
                             % (op, K.shape, V.shape, S.shape))
        t, h, d = K.shape
        if np.dtype(key_cache.dtype) != np.dtype(value_cache.dtype):
            raise ValueError("%s: key_cache (%s) and value_cache (%s) must have one dtype"
                             % (op, key_cache.dtype, value_cache.dtype))
        if isinstance(key_cache, np.ndarray) and isinstance(value_cache, np.ndarray) and \
                np.shares_memory(key_cache, value_cache):
            raise ValueError("%s: key_cache and value_cache share memory" % op)
        kc_shape = tuple(np.shape(key_cache))
        if len(kc_shape) != 4 or kc_shape != tuple(np.shape(value_cache)) or kc_shape[2] != h:
            raise ValueError("%s: the caches must be (num_blocks, block_size, Hkv, D) alike, got %s and %s"
                             % (op, kc_shape, tuple(np.shape(value_cache))))
        row = d // 32 * 34 if q8 else d
        if (q8 and (d % 32 or np.dtype(key_cache.dtype) != np.uint8)) or kc_shape[3] != row:
            raise ValueError("%s: the caches' last axis must be %s, got %s %s"
                             % (op, "D/32*34 uint8 bytes" if q8 else "D", key_cache.dtype, kc_shape))
        for T_, what in ((K, "key"), (V, "value"), (S, "slot_mapping")):
            if int(np.prod(T_.shape)) and not _tight(T_.shape, T_.strides):
                raise ValueError("%s: %s must be contiguous" % (op, what))
        KC = call.output(kc_shape, key_cache.dtype, key_cache, "key_cache", read=True, ints=q8)
        VC = call.output(kc_shape, value_cache.dtype, value_cache, "value_cache", read=True, ints=q8)
        if not _tight(KC.shape, KC.strides) or not _tight(VC.shape, VC.strides):
            raise ValueError("%s: the caches must be contiguous" % op)
        desc = KvAppendDesc()
        desc.tokens, desc.heads_kv, desc.head_dim, desc.block_size, desc.num_blocks = t, h, d, kc_shape[1], kc_shape[0]
        desc.src_type, desc.cache_type = K.code, Q8_0 if q8 else KC.code
        if V.code != K.code:
            raise ValueError("%s: key and value must have one dtype" % op)
        desc.k_offset, desc.v_offset, desc.slots_offset = K.offset, V.offset, S.offset
        desc.k_cache_offset, desc.v_cache_offset = KC.offset, VC.offset
        desc.cache_layout = 1  # CLFORGE_KV_BLOCK_SLOT_HEAD
        event = c_void_p()
        nw, wl = call.wait_list()
        check(lib.clforge_kv_cache_append(call.handle, byref(desc), K.buf, V.buf, S.buf, KC.buf, VC.buf, nw, wl,
                                          byref(event)), call.handle)
        return call.finish(event, KC, also=(VC,))
