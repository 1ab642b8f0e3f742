"""flash_attn_with_kvcache: a contiguous cache against a float64 numpy
attention over the same keys; the same keys scattered over a shuffled
paged pool give the same result bit for bit; q8_0 caches equal the
attention over their dequantized values; decode and a causal chunk; bad
tables refused before anything runs."""
import numpy as np
import pytest

import clforge


def reference(q, k, v, lens, causal):
    """float64 attention per sequence: q (B, Sq, Hq, D), k/v (B, S, Hkv, D)."""
    b, sq, hq, d = q.shape
    hkv = k.shape[2]
    out = np.zeros((b, sq, hq, d))
    for i in range(b):
        n = lens[i]
        for h in range(hq):
            g = h // (hq // hkv)
            s = q[i, :, h].astype(np.float64) @ k[i, :n, g].astype(np.float64).T / np.sqrt(d)
            if causal:
                rows = np.arange(sq)[:, None] + n - sq
                s = np.where(np.arange(n)[None, :] <= rows, s, -np.inf)
            p = np.exp(s - s.max(axis=1, keepdims=True))
            out[i, :, h] = (p / p.sum(axis=1, keepdims=True)) @ v[i, :n, g].astype(np.float64)
    return out


def paged(k, v, lens, bs, rng):
    """The caches' first lens[i] keys in a shuffled pool of bs-key blocks,
    unused slots NaN (-1 entries past each sequence)."""
    b, s, hkv, d = k.shape
    nb = [(n + bs - 1) // bs for n in lens]
    total = sum(nb) + 2
    order = rng.permutation(total)
    fill = 255 if k.dtype == np.uint8 else np.nan  # q8_0: an f16 NaN scale
    pool_k = np.full((total, bs, hkv, d), fill, k.dtype)
    pool_v = np.full((total, bs, hkv, d), fill, v.dtype)
    table = np.full((b, (s + bs - 1) // bs), -1, np.int32)
    at = 0
    for i in range(b):
        for p in range(nb[i]):
            blk = order[at]
            at += 1
            table[i, p] = blk
            n = min(bs, lens[i] - p * bs)
            pool_k[blk, :n] = k[i, p * bs:p * bs + n]
            pool_v[blk, :n] = v[i, p * bs:p * bs + n]
    return pool_k, pool_v, table


# Decode and a causal chunk as a decoder calls them (causal=True: a query row
# sees the keys up to its own position), D = 64: the programs the C tests
# build (tests/test_attention_kv_cache.c); causal=False runs in
# test_bad_tables_refused.
@pytest.mark.parametrize("sq,causal", [(1, True), (4, True)])
def test_contiguous_and_paged(rng, sq, causal):
    b, s, hq, hkv, d = 3, 70, 4, 2, 64
    q = rng.standard_normal((b, sq, hq, d)).astype(np.float32)
    k = rng.standard_normal((b, s, hkv, d)).astype(np.float16)
    v = rng.standard_normal((b, s, hkv, d)).astype(np.float16)
    lens = np.array([70, 33, 17], np.int32)
    o = clforge.flash_attn_with_kvcache(q, k, v, cache_seqlens=lens, causal=causal)
    assert o.shape == q.shape and o.dtype == np.float32
    np.testing.assert_allclose(o, reference(q, k, v, lens, causal), rtol=1e-4, atol=1e-4)
    pk, pv, table = paged(k, v, lens, 16, rng)
    op = clforge.flash_attn_with_kvcache(q, pk, pv, cache_seqlens=lens, block_table=table, causal=causal)
    assert op.tobytes() == o.tobytes()  # the same keys through the table: the same bits


def test_q8_0(rng):
    b, s, hq, hkv, d = 2, 40, 4, 1, 64
    q = rng.standard_normal((b, 1, hq, d)).astype(np.float32)
    k = rng.standard_normal((b, s, hkv, d)).astype(np.float32)
    v = rng.standard_normal((b, s, hkv, d)).astype(np.float32)
    kq, vq = clforge.quantize_q8_0(k), clforge.quantize_q8_0(v)
    assert kq.shape == (b, s, hkv, d // 32 * 34)
    lens = np.array([40, 9], np.int32)
    o = clforge.flash_attn_with_kvcache(q, kq, vq, cache_seqlens=lens, kv_dtype="q8_0", causal=True)
    kd, vd = clforge.dequantize_q8_0(kq), clforge.dequantize_q8_0(vq)
    np.testing.assert_allclose(o, reference(q, kd, vd, lens, True), rtol=1e-4, atol=1e-4)
    # q8_0 in a paged pool too
    pk, pv, table = paged(kq, vq, lens, 8, rng)
    op = clforge.flash_attn_with_kvcache(q, pk, pv, cache_seqlens=lens, block_table=table, kv_dtype="q8_0",
                                         causal=True)
    assert op.tobytes() == o.tobytes()


def test_bad_tables_refused(rng):
    q = rng.standard_normal((2, 1, 2, 32)).astype(np.float32)
    pool = rng.standard_normal((4, 8, 1, 32)).astype(np.float32)
    table = np.array([[0, 1], [2, 3]], np.int32)
    lens = np.array([16, 9], np.int32)
    clforge.flash_attn_with_kvcache(q, pool, pool, cache_seqlens=lens, block_table=table)
    bad = table.copy()
    bad[1, 1] = 4  # past the pool, and used (9 keys need 2 blocks)
    with pytest.raises(clforge.InvalidArgumentError, match="outside the pool"):
        clforge.flash_attn_with_kvcache(q, pool, pool, cache_seqlens=lens, block_table=bad)
    with pytest.raises(clforge.InvalidArgumentError, match="outside \\[0, Sk"):
        clforge.flash_attn_with_kvcache(q, pool, pool, cache_seqlens=np.array([17, 9], np.int32), block_table=table)
    with pytest.raises(TypeError, match="q8_0 caches are uint8"):
        clforge.flash_attn_with_kvcache(q, pool, pool, kv_dtype="q8_0", block_table=table)


def test_reshape_and_cache(rng):
    """Tokens appended through a slot mapping land where numpy puts them
    (FlashAttention's pool layout), q8_0 rows equal quantize_q8_0's, and
    the pool then reads like the contiguous cache."""
    t, h, d, bs, nblk = 7, 2, 64, 4, 5
    key = rng.standard_normal((t, h, d)).astype(np.float32)
    value = rng.standard_normal((t, h, d)).astype(np.float32)
    slots = rng.permutation(bs * nblk)[:t].astype(np.int32)
    slots[3] = -1  # padding: skipped
    kc = np.full((nblk, bs, h, d), 7.0, np.float16)
    vc = np.full((nblk, bs, h, d), 7.0, np.float16)
    want_k, want_v = kc.copy(), vc.copy()
    for i, s in enumerate(slots):
        if s >= 0:
            want_k[s // bs, s % bs], want_v[s // bs, s % bs] = key[i], value[i]
    clforge.reshape_and_cache(key, value, kc, vc, slots)
    np.testing.assert_array_equal(kc, want_k)
    np.testing.assert_array_equal(vc, want_v)
    qk = np.zeros((nblk, bs, h, d // 32 * 34), np.uint8)
    qv = np.zeros_like(qk)
    clforge.reshape_and_cache(key, value, qk, qv, slots, kv_dtype="q8_0")
    rows = clforge.quantize_q8_0(key)
    for i, s in enumerate(slots):
        if s >= 0:
            np.testing.assert_array_equal(qk[s // bs, s % bs], rows[i])
    # one sequence of 6 keys in blocks 3, 1 (slots 12..15, 4, 5): read back through the table
    seq = np.array([12, 13, 14, 15, 4, 5], np.int32)
    pk = np.zeros((nblk, bs, h, d), np.float32)
    pv = np.zeros_like(pk)
    clforge.reshape_and_cache(key[:6], value[:6], pk, pv, seq)
    q = rng.standard_normal((1, 1, 4, d)).astype(np.float32)
    table = np.array([[3, 1]], np.int32)
    got = clforge.flash_attn_with_kvcache(q, pk, pv, np.array([6], np.int32), block_table=table, causal=True)
    want = clforge.flash_attn_with_kvcache(q, key[None, :6], value[None, :6], causal=True)
    np.testing.assert_array_equal(got, want)
    with pytest.raises(ValueError, match="two tokens"):
        clforge.reshape_and_cache(key[:2], value[:2], pk, pv, np.array([3, 3], np.int32))
    with pytest.raises(ValueError, match="one dtype"):
        clforge.reshape_and_cache(key[:2], value[:2], pk, pv.astype(np.float16), np.array([3, 4], np.int32))
    with pytest.raises(ValueError, match="share memory"):
        clforge.reshape_and_cache(key[:2], value[:2], pk, pk, np.array([3, 4], np.int32))
