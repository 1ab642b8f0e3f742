#!/usr/bin/env python3
"""An alpha-beta model of clforge_allreduce over MPI, fitted to
`clforge bench allreduce --mpi --json` rows, and what it predicts at scale.

    mpirun -np 2 clforge bench allreduce --mpi --json > mpi.jsonl
    clforge bench allreduce --on contexts --ranks 2 --json > local.jsonl   # optional
    python3 bench/allreduce_model.py mpi.jsonl [--local local.jsonl] [--step-bytes B,B,...]

Each MPI row holds clforge's time and MPI_Allreduce's on host memory of the
same size, side by side. Fitted, for each of the two: a latency alpha (the
median of the rows up to 8 KiB) and a cost per byte beta (the median of
(t - alpha) / S over the rows from 1 MiB). clforge's alpha less MPI's is
what staging adds to a collective's latency (the copies to and from the
device, the progress thread's hand-offs). The local rows (two ranks of one
process: staging and sums, no network) give the staging's bandwidth
ceiling: the busbw clforge cannot pass whatever the link.

At scale, per piece of the pipeline (1 MiB), the owner algorithm makes two
exchange rounds, every peer's message posted at once (2 alpha_link), and
moves 2(N-1)/N of the piece per rank; pieces pipeline, so the slower of the
link and the staging ceiling sets the bandwidth. Gathering (below the
crossover) is one round moving (N-1) times the message. With alpha_link per
message (--alpha-us, default 10 us: TCP on a data-centre network) and the
link's bandwidth (25 and 100 Gb/s), it predicts busbw = S / T * 2(N-1)/N
(nccl-tests) for 8 and 64 nodes, and with --step-bytes the communication
time of one training step's all-reduces (not overlapped with compute).
"""
import argparse
import json
import statistics
import sys


def load(path, transport):
    rows = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith("{"):
                r = json.loads(line)
                if r.get("status") == "ok" and r.get("op") == "allreduce" and \
                        (r.get("transport") == "mpi") == (transport == "mpi"):
                    rows.append(r)
    return rows


def alpha_beta(sizes, times):
    small = [t for s, t in zip(sizes, times) if s <= 8 << 10]
    alpha = statistics.median(small) if small else 0.0
    large = [(t - alpha) / s for s, t in zip(sizes, times) if s >= 1 << 20]
    return alpha, max(statistics.median(large), 0.0) if large else 0.0


def predict(S, N, alpha_stage, alpha_link, beta_link, ceiling, piece, crossover):
    """Seconds for an all-reduce of S bytes on N ranks."""
    if S < crossover:  # gather: one round, (N-1) S per rank
        return alpha_stage + alpha_link + max((N - 1) * S * beta_link, S * 2 * (N - 1) / N / ceiling)
    pieces = max(1, -(-S // piece))
    p = min(S, piece)
    per_piece = max(2 * alpha_link + 2 * (N - 1) / N * p * beta_link, p * 2 * (N - 1) / N / ceiling)
    return alpha_stage + 2 * alpha_link + pieces * per_piece


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    ap.add_argument("rows", help="JSON lines of `clforge bench allreduce --mpi --json`")
    ap.add_argument("--local", help="JSON lines of `clforge bench allreduce --json` (ranks of one process)")
    ap.add_argument("--alpha-us", type=float, default=10.0, help="per-message latency at scale (default 10 us)")
    ap.add_argument("--piece", type=int, default=1 << 20, help="the pipeline's piece (default 1 MiB)")
    ap.add_argument("--crossover", type=int, default=64 << 10, help="gather below, owner from (default 64 KiB)")
    ap.add_argument("--step-bytes", default="", help="one step's all-reduce sizes, comma-separated")
    a = ap.parse_args()
    rows = load(a.rows, "mpi")
    if len(rows) < 3:
        sys.exit("allreduce_model: need at least 3 ok rows of `clforge bench allreduce --mpi --json`")
    N0 = rows[0]["ranks"]
    S = [r["bytes"] for r in rows]
    a_mpi, b_mpi = alpha_beta(S, [r["mpi_median_ms"] * 1e-3 for r in rows])
    a_cl, b_cl = alpha_beta(S, [r["median_ms"] * 1e-3 for r in rows])
    alpha_stage = max(a_cl - a_mpi, 0.0)
    ceiling, how = float("inf"), "none given (--local)"
    if a.local:
        local = [r for r in load(a.local, "local") if r["bytes"] >= 1 << 20]
        if local:
            ceiling = max(r["busbw_gbps"] for r in local) * 1e9
            how = "%.2f GB/s busbw (%d ranks of one process, best of %d rows from 1 MiB)" % (
                ceiling / 1e9, local[0]["ranks"], len(local))
    print("fitted on %d rows, %d ranks over MPI (%s):" % (len(rows), N0, rows[0]["device"]))
    print("  host MPI_Allreduce:  alpha %7.1f us, beta %.3f ns/B (algbw %.2f GB/s)" % (
        a_mpi * 1e6, b_mpi * 1e9, 1e-9 / b_mpi if b_mpi else float("inf")))
    print("  clforge_allreduce:   alpha %7.1f us, beta %.3f ns/B (algbw %.2f GB/s)" % (
        a_cl * 1e6, b_cl * 1e9, 1e-9 / b_cl if b_cl else float("inf")))
    print("  staging adds %.1f us of latency; its bandwidth ceiling: %s" % (alpha_stage * 1e6, how))
    alpha = a.alpha_us * 1e-6
    sizes = [1 << 10, 64 << 10, 1 << 20, 16 << 20, 256 << 20]
    print("\npredicted busbw (GB/s): alpha_link %.0f us per message, piece %d B, crossover %d B" % (
        a.alpha_us, a.piece, a.crossover))
    print("  %-16s" % "nodes, link" + "".join("%10s" % ("%d KiB" % (s >> 10) if s < 1 << 20 else "%d MiB" % (s >> 20))
                                             for s in sizes))
    for N in (8, 64):
        for gbps in (25, 100):
            beta = 8.0 / (gbps * 1e9)
            cells = ["%10.2f" % (s / predict(s, N, alpha_stage, alpha, beta, ceiling, a.piece, a.crossover)
                                 * 2 * (N - 1) / N / 1e9) for s in sizes]
            print("  %-16s" % ("%d, %d Gb/s" % (N, gbps)) + "".join(cells))
    if a.step_bytes:
        step = [int(x) for x in a.step_bytes.split(",") if x]
        print("\none step's all-reduces (%s bytes, one call each), not overlapped with compute (ms):"
              % ",".join(map(str, step)))
        for N in (2, 8, 64):
            cells = []
            for gbps in (25, 100):
                beta = 8.0 / (gbps * 1e9)
                t = sum(predict(s, N, alpha_stage, alpha, beta, ceiling, a.piece, a.crossover) for s in step)
                cells.append("%d Gb/s %.3f" % (gbps, t * 1e3))
            print("  %2d nodes: %s" % (N, ", ".join(cells)))


if __name__ == "__main__":
    main()
