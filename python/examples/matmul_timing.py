"""A 4096^3 matmul timed the way GPU tutorials time PyTorch's: warm up first
(kernels compile, caches fill), finish the queue before reading the clock and
after the last run, report GFLOP/s = 2 m n k / time; numpy's matmul on the
host next to it.

    python matmul_timing.py [--size 4096] [--runs 5] [--dtype f32]
"""
import argparse
import time

import numpy as np
import pyopencl.array as cla

import clforge

p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
p.add_argument("--size", type=int, default=4096)
p.add_argument("--runs", type=int, default=5)
p.add_argument("--dtype", default="f32", help="f32, f16 or bf16 storage (f32 accumulation)")
args = p.parse_args()
n, dt = args.size, clforge._arrays.as_dtype(args.dtype)

# A queue on the device clforge picks (CLFORGE_DEVICE or the first GPU, else the CPU).
queue = clforge.pyopencl_queue()  # holds its pyopencl context (docs/python.md)

rng = np.random.default_rng(0)
a = rng.standard_normal((n, n), dtype=np.float32)
b = rng.standard_normal((n, n), dtype=np.float32)
da, db = cla.to_device(queue, a.astype(dt)), cla.to_device(queue, b.astype(dt))
dc = cla.empty(queue, (n, n), dt)

clforge.matmul(da, db, out=dc)  # warm-up: builds the kernels
queue.finish()
t = time.perf_counter()
for _ in range(args.runs):
    clforge.matmul(da, db, out=dc)  # enqueued on the queue; returns at once
queue.finish()  # the clock stops when the device is done, not when the calls return
sec = (time.perf_counter() - t) / args.runs
gflops = 2.0 * n ** 3 / sec * 1e-9

a @ b  # numpy's warm-up (threads start)
t = time.perf_counter()
for _ in range(args.runs):
    ref = a @ b
nsec = (time.perf_counter() - t) / args.runs

err = np.abs(dc.get().astype(np.float32) - ref).max() / np.abs(ref).max()
print("device: %s" % queue.device.name)
print("clforge.matmul %dx%dx%d %s: %8.2f ms  %7.1f GFLOP/s" % (n, n, n, args.dtype, sec * 1e3, gflops))
print("numpy matmul   %dx%dx%d f32: %8.2f ms  %7.1f GFLOP/s (host)" % (n, n, n, nsec * 1e3,
                                                                       2.0 * n ** 3 / nsec * 1e-9))
print("max error relative to the largest value: %.2e" % err)
assert err < (1e-4 if args.dtype == "f32" else 2e-2), "result differs from numpy"
