"""A decode loop over a growing f16 KV cache with grouped-query attention.

The cache is preallocated for the whole sequence (B, Hkv, S_max, D) in f16 on
the device; each step appends the new token's K and V at its position and
attends from one query token per sequence over the cache so far — a strided
view of the cache, passed through without a copy. PyTorch's is_causal is
top-left aligned, which for one query row sees only the first key; a decoder
wants the bottom-right alignment (the last query sees every key), or simply no
causal mask with Sq = 1, as here.

    python decode_gqa.py [--steps 256] [--prompt 1024] [--heads 32 --kv-heads 8 --dim 128]
"""
import argparse
import time

import numpy as np
import pyopencl as cl
import pyopencl.array as cla

import clforge

p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
p.add_argument("--batch", type=int, default=1)
p.add_argument("--heads", type=int, default=32)
p.add_argument("--kv-heads", type=int, default=8)
p.add_argument("--dim", type=int, default=128)
p.add_argument("--prompt", type=int, default=1024, help="tokens already in the cache")
p.add_argument("--steps", type=int, default=256, help="tokens to decode")
args = p.parse_args()
B, Hq, Hkv, D = args.batch, args.heads, args.kv_heads, args.dim
S_max = args.prompt + args.steps

queue = clforge.pyopencl_queue()  # holds its pyopencl context (docs/python.md)
rng = np.random.default_rng(0)

# The cache, filled with the prompt's keys and values; the rest is written step by step.
k_host = np.zeros((B, Hkv, S_max, D), np.float16)
v_host = np.zeros((B, Hkv, S_max, D), np.float16)
k_host[:, :, :args.prompt] = rng.standard_normal((B, Hkv, args.prompt, D)).astype(np.float16)
v_host[:, :, :args.prompt] = rng.standard_normal((B, Hkv, args.prompt, D)).astype(np.float16)
k_cache, v_cache = cla.to_device(queue, k_host), cla.to_device(queue, v_host)
out = cla.empty(queue, (B, Hq, 1, D), np.float16)
item = np.dtype(np.float16).itemsize


def append(cache, host_cache, pos, values):
    """Write one token's (B, Hkv, D) values at position pos of every head."""
    host_cache[:, :, pos] = values
    for b in range(B):
        for h in range(Hkv):
            off = ((b * Hkv + h) * S_max + pos) * D * item
            cl.enqueue_copy(queue, cache.base_data, np.ascontiguousarray(values[b, h]),
                            dst_offset=cache.offset + off, is_blocking=False)


times = []
q_host = None
for step in range(args.steps):
    pos = args.prompt + step
    append(k_cache, k_host, pos, rng.standard_normal((B, Hkv, D)).astype(np.float16))
    append(v_cache, v_host, pos, rng.standard_normal((B, Hkv, D)).astype(np.float16))
    q_host = rng.standard_normal((B, Hq, 1, D)).astype(np.float16)
    q = cla.to_device(queue, q_host)
    queue.finish()
    t = time.perf_counter()
    # the cache so far: a view (strides of the full cache), no copy
    clforge.scaled_dot_product_attention(q, k_cache[:, :, :pos + 1], v_cache[:, :, :pos + 1], enable_gqa=True,
                                         out=out)
    queue.finish()
    times.append(time.perf_counter() - t)

# Check the last step against numpy (float64).
L = args.prompt + args.steps
k = np.repeat(k_host[:, :, :L].astype(np.float64), Hq // Hkv, 1)
v = np.repeat(v_host[:, :, :L].astype(np.float64), Hq // Hkv, 1)
s = q_host.astype(np.float64) @ k.transpose(0, 1, 3, 2) / np.sqrt(D)
w = np.exp(s - s.max(-1, keepdims=True))
ref = (w / w.sum(-1, keepdims=True)) @ v
err = np.abs(out.get().astype(np.float64) - ref).max()
med = sorted(times)[len(times) // 2]
kv_bytes = 2 * B * Hkv * L * D * item
print("device: %s" % queue.device.name)
print("decode B=%d Hq=%d Hkv=%d D=%d, cache %d -> %d tokens (f16): median %.3f ms/step, %.0f tokens/s, "
      "%.1f GB/s of K+V at the last step" % (B, Hq, Hkv, D, args.prompt, L, med * 1e3, B / med,
                                             kv_bytes / times[-1] * 1e-9))
print("last step vs numpy: max abs error %.2e" % err)
assert err < 5e-3, "decode result differs from numpy"
print("explain:", clforge.explain("scaled_dot_product_attention", batch=B, heads_q=Hq, heads_kv=Hkv, seq_q=1,
                                  seq_kv=L, head_dim=D, dtype="f16")["why"])
