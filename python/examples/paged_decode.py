"""Batched decode over a paged KV cache, from Python: several sequences of
different lengths share one pool of fixed-size blocks (vLLM's layout,
(num_blocks, block_size, Hkv, D)), each with a row of a block table; every
step appends each sequence's new K and V into its blocks (a new block from
the free list when it crosses into one) and one
``clforge.flash_attn_with_kvcache`` call attends for all of them.
``--kv q8_0`` stores the pool as ggml's 8-bit blocks (``clforge.quantize_q8_0``).

    python paged_decode.py [--seqs 4] [--steps 32] [--block 16] [--kv f16|q8_0]

No model: a token's Q, K and V are random; the last step is checked against
numpy over the same (dequantized) keys.
"""
import argparse
import time

import numpy as np

import clforge

p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
p.add_argument("--seqs", type=int, default=4)
p.add_argument("--steps", type=int, default=32)
p.add_argument("--block", type=int, default=16)
p.add_argument("--heads", type=int, default=8)
p.add_argument("--kv-heads", type=int, default=2)
p.add_argument("--dim", type=int, default=64)
p.add_argument("--kv", choices=["f16", "q8_0"], default="f16")
args = p.parse_args()
B, Hq, Hkv, D, bs = args.seqs, args.heads, args.kv_heads, args.dim, args.block
rng = np.random.default_rng(0)
prompts = [int(n) for n in rng.integers(1, 200, B)]
max_len = max(prompts) + args.steps
per_seq = (max_len + bs - 1) // bs
num_blocks = B * per_seq  # enough for every sequence at its longest
q8 = args.kv == "q8_0"
row = D // 32 * 34 if q8 else D
dtype = np.uint8 if q8 else np.float16
k_pool = np.zeros((num_blocks, bs, Hkv, row), dtype)
v_pool = np.zeros((num_blocks, bs, Hkv, row), dtype)
table = np.full((B, per_seq), -1, np.int32)  # entries past a sequence are never read
free = list(range(num_blocks))[::-1]
rng.shuffle(free)  # a pool in use for a while: blocks anywhere
lens = np.zeros(B, np.int32)
k_all = [[] for _ in range(B)]  # what each sequence's cache holds, as float32 (for the check)
v_all = [[] for _ in range(B)]


def store(x):
    """One token's (Hkv, D) values as the pool stores them, and as they read back."""
    if q8:
        q = clforge.quantize_q8_0(x)
        return q, clforge.dequantize_q8_0(q)
    h = x.astype(np.float16)
    return h, h.astype(np.float32)


def append(b, k, v):
    pos = int(lens[b])
    if pos % bs == 0:
        table[b, pos // bs] = free.pop()
    blk, slot = table[b, pos // bs], pos % bs
    k_pool[blk, slot], kd = store(k)
    v_pool[blk, slot], vd = store(v)
    k_all[b].append(kd)
    v_all[b].append(vd)
    lens[b] = pos + 1


for b in range(B):  # the prompts' keys and values
    for _ in range(prompts[b]):
        append(b, rng.standard_normal((Hkv, D)).astype(np.float32), rng.standard_normal((Hkv, D)).astype(np.float32))

times = []
for step in range(args.steps):
    for b in range(B):
        append(b, rng.standard_normal((Hkv, D)).astype(np.float32), rng.standard_normal((Hkv, D)).astype(np.float32))
    q = rng.standard_normal((B, 1, Hq, D)).astype(np.float32)
    t = time.perf_counter()
    out = clforge.flash_attn_with_kvcache(q, k_pool, v_pool, cache_seqlens=lens, block_table=table,
                                         kv_dtype="q8_0" if q8 else None)
    times.append(time.perf_counter() - t)

# The last step against numpy (float64) over each sequence's keys.
err = 0.0
for b in range(B):
    k = np.stack(k_all[b]).astype(np.float64)  # (L, Hkv, D)
    v = np.stack(v_all[b]).astype(np.float64)
    for h in range(Hq):
        g = h // (Hq // Hkv)
        s = k[:, g] @ q[b, 0, h].astype(np.float64) / np.sqrt(D)
        w = np.exp(s - s.max())
        err = max(err, np.abs(out[b, 0, h] - (w / w.sum()) @ v[:, g]).max())
med = sorted(times)[len(times) // 2]
print("paged decode: %d sequences of %d..%d tokens, KV %s in %d blocks of %d keys (%d in use): "
      "median %.3f ms a step (numpy in and out)" % (B, int(lens.min()), int(lens.max()), args.kv, num_blocks, bs,
                                                   num_blocks - len(free), med * 1e3))
print("last step vs numpy: max abs error %.2e" % err)
assert err < 1e-3, "paged decode differs from numpy"
