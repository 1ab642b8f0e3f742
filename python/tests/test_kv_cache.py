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
