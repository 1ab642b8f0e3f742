"""A ResNet-50 bottleneck block (1x1 -> 3x3 -> 1x1, each with bias and ReLU,
the last one adding the identity before its ReLU) with prepared weights:
each filter is transformed once for its algorithm (Winograd tiles for the
3x3, GEMM layouts for the 1x1s) and reused on every input. Batch norm is
folded into the weights and biases, as inference does.

    python resnet_bottleneck.py [--batch 8] [--size 56] [--channels 256] [--layout NHWC] [--runs 10]
"""
import argparse
import time

import numpy as np
import pyopencl.array as cla

import clforge

p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
p.add_argument("--batch", type=int, default=8)
p.add_argument("--size", type=int, default=56)
p.add_argument("--channels", type=int, default=256)
p.add_argument("--layout", default="NHWC", choices=["NCHW", "NHWC"])
p.add_argument("--runs", type=int, default=10)
args = p.parse_args()
N, H, C, M = args.batch, args.size, args.channels, args.channels // 4

queue = clforge.pyopencl_queue()  # holds its pyopencl context (docs/python.md)
rng = np.random.default_rng(0)


def he(k, c, r):
    return (rng.standard_normal((k, c, r, r)) * np.sqrt(2.0 / (c * r * r))).astype(np.float32)


w1, w2, w3 = he(M, C, 1), he(M, M, 3), he(C, M, 1)
b1, b2, b3 = (rng.standard_normal(k).astype(np.float32) * 0.1 for k in (M, M, C))
shape = (N, H, H, C) if args.layout == "NHWC" else (N, C, H, H)
mid = (N, H, H, M) if args.layout == "NHWC" else (N, M, H, H)
x_host = rng.standard_normal(shape).astype(np.float32)

dw = [cla.to_device(queue, w) for w in (w1, w2, w3)]
db = [cla.to_device(queue, b) for b in (b1, b2, b3)]
x = cla.to_device(queue, x_host)
t1, t2, y = cla.empty(queue, mid, np.float32), cla.empty(queue, mid, np.float32), cla.empty(queue, shape, np.float32)
ctx = clforge.Context(queue=queue)
lay = dict(layout=args.layout, ctx=ctx)
pw1 = clforge.Conv2dWeights(dw[0], shape, **lay)
pw2 = clforge.Conv2dWeights(dw[1], mid, padding=1, **lay)
pw3 = clforge.Conv2dWeights(dw[2], mid, **lay)


def block():
    clforge.conv2d(x, pw1, db[0], activation="relu", out=t1)
    clforge.conv2d(t1, pw2, db[1], activation="relu", out=t2)
    clforge.conv2d(t2, pw3, db[2], activation="relu", residual=x, out=y)


block()
queue.finish()
t = time.perf_counter()
for _ in range(args.runs):
    block()
queue.finish()
sec = (time.perf_counter() - t) / args.runs
flops = 2.0 * N * H * H * (C * M + 9 * M * M + M * C)

# numpy float64 reference of the same block (im2col for the 3x3)
xn = x_host if args.layout == "NHWC" else x_host.transpose(0, 2, 3, 1)
xn = xn.astype(np.float64)
relu = lambda v: np.maximum(v, 0)  # noqa: E731
a1 = relu(xn @ w1[:, :, 0, 0].T + b1)
ap = np.pad(a1, ((0, 0), (1, 1), (1, 1), (0, 0)))
cols = np.stack([ap[:, i:i + H, j:j + H] for i in range(3) for j in range(3)], axis=3)  # N H W 9 M
a2 = relu(np.einsum("nhwtc,ktc->nhwk", cols, w2.transpose(0, 2, 3, 1).reshape(M, 9, M)) + b2)
ref = relu(a2 @ w3[:, :, 0, 0].T + b3 + xn)
got = y.get() if args.layout == "NHWC" else y.get().transpose(0, 2, 3, 1)
err = np.abs(got - ref).max() / np.abs(ref).max()
print("device: %s" % queue.device.name)
print("bottleneck N=%d %dx%d C=%d (%s), algorithms %s / %s / %s: %.2f ms, %.1f GFLOP/s" % (
    N, H, H, C, args.layout, pw1.algo, pw2.algo, pw3.algo, sec * 1e3, flops / sec * 1e-9))
print("max error relative to the largest value: %.2e" % err)
assert err < 1e-3, "block differs from numpy"
