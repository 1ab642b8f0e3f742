"""python -m clforge bench gemm|overhead: clforge through Python, next to its peers.

gemm: clforge.matmul on pyopencl arrays (device-resident, the arrays' queue)
timed with profiling markers around each run, as `clforge bench gemm` times
the C call, so the two rates compare; pyclblast.gemm on the same arrays and
queue; numpy's matmul on the host (wall clock). overhead: the per-call cost
of the Python layer over the C call, on a tiny op."""
import argparse
import ctypes
import json
import os
import statistics
import sys
import time

import numpy as np

from . import _opencl
from ._arrays import as_dtype


def _pyopencl():
    from . import _optional
    cla, err = _optional.load("pyopencl.array")
    if err is not None:
        print("python -m clforge bench: needs pyopencl (Debian: python3-pyopencl): %s"
              % _optional.describe(err, "pyopencl"), file=sys.stderr)
        return None, None
    import pyopencl as cl
    return cl, cla


def _queue():
    from .context import pyopencl_queue
    # The device clforge would choose (CLFORGE_DEVICE), as a pyopencl queue.
    return pyopencl_queue(profiling=True)


def _median_p95(xs):
    s = sorted(xs)
    return statistics.median(s), s[min(len(s) - 1, int(0.95 * len(s) + 0.5) - 1 if len(s) > 1 else 0)]


def _time_events(cl, q, fn, runs, warmup):
    """Median seconds of fn() between two markers on q (every kernel counts)."""
    for _ in range(warmup):
        fn()
    q.finish()
    ts = []
    for _ in range(runs):
        m0 = cl.enqueue_marker(q)
        fn()
        m1 = cl.enqueue_marker(q)
        m1.wait()
        ts.append((m1.profile.end - m0.profile.end) * 1e-9)
    return _median_p95(ts)


def _time_wall(fn, runs, warmup):
    for _ in range(warmup):
        fn()
    ts = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t)
    return _median_p95(ts)


def _peak():
    from ._command import command_path
    path = command_path()
    if not path:
        return {}
    import subprocess
    try:
        out = subprocess.run([path, "bench", "peak", "--json"], capture_output=True, text=True, timeout=120).stdout
        for line in out.splitlines():
            row = json.loads(line)
            if row.get("op") == "peak":
                return {"peak_gflops": row.get("peak_gflops"), "peak_gbps": row.get("peak_gbps")}
    except (OSError, ValueError, subprocess.SubprocessError):
        pass
    return {}


def bench_gemm(args):
    cl, cla = _pyopencl()
    if cl is None:
        return 1
    from . import matmul
    q = _queue()
    from . import _optional
    pyclblast, err = _optional.load("pyclblast")
    if err is not None and not _optional.missing(err, "pyclblast"):
        print("python -m clforge bench: running without pyclblast: %s" % _optional.describe(err, "pyclblast"),
              file=sys.stderr)
    peak = {} if args.no_peak else _peak()
    shapes = [(s, s, s) for s in args.sizes] + [tuple(s) for s in args.shape]
    dtypes = [as_dtype(d) for d in args.dtype.split(",")]
    rows = []
    dev = q.device.name
    if not args.json:
        print("clforge from Python on %s: C = A*B, row-major; %d runs after %d warm-up, median" %
              (dev, args.runs, args.warmup))
        print("clforge: clforge.matmul on pyopencl arrays, timed between profiling markers (as clforge bench);")
        print("  also its wall time per call (enqueue + finish, Python included)")
        print("peers: pyclblast %s on the same arrays and queue; numpy %s matmul on the host (wall clock)%s" % (
            getattr(pyclblast, "__version__", "") if pyclblast else "(not installed)", np.__version__,
            "; OPENBLAS_CORETYPE unset for it" if os.environ.get("CLFORGE_DROPPED_OPENBLAS_CORETYPE") else ""))
        print("%-18s %-5s %10s %10s %10s %10s %10s %9s %9s" % ("m x n x k", "dtype", "ms", "GFLOP/s", "wall ms",
                                                             "pyclblast", "numpy", "vs clbl", "vs numpy"))
    rng = np.random.default_rng(1)
    for (m, n, k) in shapes:
        for dt in dtypes:
            a = rng.standard_normal((m, k), dtype=np.float32).astype(dt)
            b = rng.standard_normal((k, n), dtype=np.float32).astype(dt)
            da, db = cla.to_device(q, a), cla.to_device(q, b)
            dc = cla.empty(q, (m, n), dt)
            flops = 2.0 * m * n * k
            med, p95 = _time_events(cl, q, lambda: matmul(da, db, out=dc), args.runs, args.warmup)

            def wall():
                matmul(da, db, out=dc)
                q.finish()
            wmed, _ = _time_wall(wall, max(3, args.runs // 2), 1)
            ref = (a.astype(np.float32) @ b.astype(np.float32))
            err = float(np.abs(dc.get().astype(np.float32) - ref).max() / max(1.0, float(np.abs(ref).max())))
            row = {"op": "gemm", "m": m, "n": n, "k": k, "batch": 1, "dtype": {1: "f32", 2: "f16", 3: "bf16"}[
                {np.dtype(np.float32): 1, np.dtype(np.float16): 2}.get(np.dtype(dt), 3)], "trans": "NN",
                "provider": "clforge-python", "median_ms": med * 1e3, "p95_ms": p95 * 1e3,
                "gflops": flops / med * 1e-9, "gbps": (a.nbytes + b.nbytes + dc.nbytes) / med * 1e-9,
                "wall_ms": wmed * 1e3, "max_rel_err": err, "device": dev, "runs": args.runs, "warmup": args.warmup,
                "timer": "events"}
            row.update({k2: v for k2, v in peak.items() if v})
            if row.get("peak_gflops"):
                row["frac_peak_flops"] = row["gflops"] / row["peak_gflops"]
            if pyclblast is not None and np.dtype(dt) in (np.dtype(np.float32), np.dtype(np.float16)) \
                    and not args.no_peers:
                dp = cla.empty(q, (m, n), dt)
                try:
                    pm, _ = _time_events(cl, q, lambda: pyclblast.gemm(q, m, n, k, da, db, dp, a_ld=k, b_ld=n,
                                                                       c_ld=n), args.runs, args.warmup)
                    perr = float(np.abs(dp.get().astype(np.float32) - ref).max() / max(1.0, float(np.abs(ref).max())))
                    if perr > 1e-2:
                        row["pyclblast_note"] = "result differs from the reference (%.3g): no number" % perr
                    else:
                        row.update(pyclblast_gflops=flops / pm * 1e-9, pyclblast_median_ms=pm * 1e3,
                                   vs_pyclblast=pm / med)
                except Exception as e:  # a peer's failure is a note, not the bench's
                    row["pyclblast_note"] = str(e)
            if not args.no_peers and np.dtype(dt) == np.dtype(np.float32):
                nm, _ = _time_wall(lambda: a @ b, args.runs, args.warmup)
                row.update(numpy_gflops=flops / nm * 1e-9, numpy_median_ms=nm * 1e3, vs_numpy=nm / med,
                           numpy_timer="wall")
            rows.append(row)
            if args.json:
                print(json.dumps(row))
            else:
                print("%-18s %-5s %10.3f %10.1f %10.3f %10s %10s %9s %9s" % (
                    "%dx%dx%d" % (m, n, k), row["dtype"], row["median_ms"], row["gflops"], row["wall_ms"],
                    "%.1f" % row["pyclblast_gflops"] if "pyclblast_gflops" in row else "-",
                    "%.1f" % row["numpy_gflops"] if "numpy_gflops" in row else "-",
                    "%.2fx" % row["vs_pyclblast"] if "vs_pyclblast" in row else "-",
                    "%.2fx" % row["vs_numpy"] if "vs_numpy" in row else "-"))
            sys.stdout.flush()
    return 0


def bench_overhead(args):
    """Per call: the raw C call through ctypes (descriptor built once) and
    clforge.softmax on the same pyopencl arrays, interleaved, several rounds."""
    cl, cla = _pyopencl()
    if cl is None:
        return 1
    from . import softmax
    from ._capi import SoftmaxDesc, lib
    from .context import context_for_queue
    q = _queue()
    x = cla.to_device(q, np.random.default_rng(0).standard_normal((8, 16), dtype=np.float32))
    y = cla.empty_like(x)
    softmax(x, out=y)
    q.finish()
    cx = context_for_queue(q)
    d = SoftmaxDesc()
    d.rows, d.n = 8, 16
    ev = ctypes.c_void_p()
    xb, yb, h = x.base_data.int_ptr, y.base_data.int_ptr, cx.handle
    n = args.calls

    def raw():
        t = time.perf_counter()
        for _ in range(n):
            lib.clforge_softmax(h, ctypes.byref(d), xb, None, yb, 0, None, ctypes.byref(ev))
            _opencl.cl.clReleaseEvent(ev)
        q.finish()
        return (time.perf_counter() - t) / n

    # The C call's own time inside clforge.softmax, measured in the same
    # loop: a proxy times each call of clforge_softmax (the proxy's own cost,
    # a fraction of a microsecond, counts as C time, against the layer).
    smod = sys.modules["clforge.softmax"]
    inside = [0.0]

    class Timed:
        def __getattr__(self, name):
            return getattr(lib, name)

        @staticmethod
        def clforge_softmax(*a):
            t0 = time.perf_counter()
            st = lib.clforge_softmax(*a)
            inside[0] += time.perf_counter() - t0
            return st

    def py():
        inside[0] = 0.0
        smod.lib = Timed()
        try:
            t = time.perf_counter()
            for _ in range(n):
                softmax(x, out=y)
            total = time.perf_counter() - t
        finally:
            smod.lib = lib
        q.finish()
        return total / n, inside[0] / n

    class Stub(Timed):
        @staticmethod
        def clforge_softmax(*a):
            return 0  # no event comes back: nothing is enqueued

    def stubbed():
        smod.lib = Stub()
        try:
            t = time.perf_counter()
            for _ in range(n):
                softmax(x, out=y)
            return (time.perf_counter() - t) / n
        finally:
            smod.lib = lib

    rs, ps, cs, ss = [], [], [], []
    for _ in range(args.rounds):
        rs.append(raw())
        total, c = py()
        ps.append(total)
        cs.append(c)
        ss.append(stubbed())
    r, p, c = statistics.median(rs), statistics.median(ps), statistics.median(cs)
    over = statistics.median(t - ci for t, ci in zip(ps, cs))
    row = {"op": "overhead", "call": "softmax 8x16 f32 on pyopencl arrays", "device": q.device.name,
           "raw_loop_us": r * 1e6, "python_call_us": p * 1e6, "c_call_us": c * 1e6, "overhead_us": over * 1e6,
           "layer_alone_us": statistics.median(ss) * 1e6,
           "calls": n, "rounds": args.rounds}
    if args.json:
        print(json.dumps(row))
    else:
        print("per call, median of %d rounds of %d calls (enqueue only; one finish per round) on %s:" %
              (args.rounds, n, q.device.name))
        print("  clforge.softmax(x, out=y) on pyopencl arrays        %7.1f us" % (p * 1e6))
        print("    of which inside the C call (clforge_softmax)      %7.1f us" % (c * 1e6))
        print("  overhead of the Python layer over the C call        %7.1f us" % (over * 1e6))
        print("  the layer alone (C call stubbed, device idle)       %7.1f us" % (row["layer_alone_us"]))
        print("  (a bare ctypes loop of the C call, descriptor built once: %.1f us)" % (r * 1e6))
    return 0


def main(argv):
    p = argparse.ArgumentParser(prog="python -m clforge bench", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="op", required=True)
    g = sub.add_parser("gemm", help="clforge.matmul vs pyclblast and numpy")
    g.add_argument("--sizes", type=lambda s: [int(v) for v in s.split(",") if v], default=[512, 1024, 2048])
    g.add_argument("--shape", type=lambda s: [int(v) for v in s.split(",")], action="append", default=[],
                   help="M,N,K (repeatable)")
    g.add_argument("--dtype", default="f32", help="f32,f16,bf16 or a subset (default f32)")
    g.add_argument("--runs", type=int, default=10)
    g.add_argument("--warmup", type=int, default=2)
    g.add_argument("--no-peers", action="store_true")
    g.add_argument("--no-peak", action="store_true", help="do not read the device's peak (clforge bench peak)")
    g.add_argument("--json", action="store_true", help="one JSON object per row (python -m clforge plot reads it)")
    o = sub.add_parser("overhead", help="per-call cost of the Python layer over the C call")
    o.add_argument("--calls", type=int, default=2000)
    o.add_argument("--rounds", type=int, default=5)
    o.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    if args.op == "gemm":
        return bench_gemm(args)
    return bench_overhead(args)
