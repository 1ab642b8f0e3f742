#!/usr/bin/env python3
"""An alpha-beta model of clforge_allreduce over MPI, fitted to
`clforge bench allreduce --mpi --json` rows, and what it predicts at scale.

    mpirun -np 2 clforge bench allreduce --mpi --json > rows.jsonl
    python3 bench/allreduce_model.py rows.jsonl [--step-bytes B,B,...]

Each row holds clforge's time and MPI_Allreduce's on host memory of the
same size, side by side. The model splits a clforge all-reduce of S bytes
on N ranks into what it adds to host MPI (the staging: copies to and from
the device, the progress thread's hand-offs) and the exchange itself:

    T_mpi(S)     = a_net + b_net * S                       (fitted on the MPI rows)
    T_clforge(S) = a_stage + b_stage * S + T_exchange(S)   (the excess fitted on clforge - MPI)

At scale the exchange is the algorithm's over a real link (per rank:
2(N-1) messages and 2(N-1)/N of the bytes for the owner algorithm, whose
pieces pipeline with the staging, so the slower of the two bounds the
bandwidth); the staging stays per rank. Predictions for N = 8 and 64 on
25 and 100 Gb/s links take the link's bandwidth and a per-message latency
(--alpha-us, default 10 us: TCP on a data-centre network), and report busbw
= S / T * 2(N-1)/N as nccl-tests define it. --step-bytes gives the sizes of
one training step's all-reduces (e.g. train_cnn's six gradients) for the
communication time of a step.
"""
import argparse
import json
import sys


def fit(xs, ys):
    """Least squares y = a + b x (a >= 0, b >= 0)."""
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    b = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx if sxx else 0.0
    b = max(b, 0.0)
    a = max(my - b * mx, 0.0)
    return a, b


def owner_time(S, N, alpha, beta_link, a_stage, b_stage, piece):
    """Pipelined owner all-reduce: per piece, two exchanges of (N-1) messages
    of piece/N bytes; the staging of a piece overlaps the next piece's exchange."""
    pieces = max(1, -(-S // piece))
    p = min(S, piece)
    exch = 2 * (N - 1) * alpha + 2 * (N - 1) / N * p * beta_link
    stage = b_stage * p
    return a_stage + pieces * max(exch, stage) + min(exch, stage)


def gather_time(S, N, alpha, beta_link, a_stage, b_stage):
    """Latency-optimal: one exchange of the whole message with N-1 peers."""
    return a_stage + b_stage * S + (N - 1) * alpha + (N - 1) * S * beta_link


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    ap.add_argument("rows", help="JSON lines of `clforge bench allreduce --mpi --json`")
    ap.add_argument("--alpha-us", type=float, default=10.0, help="per-message latency at scale (default 10 us)")
    ap.add_argument("--piece", type=int, default=1 << 20, help="the pipeline's piece (default 1 MiB)")
    ap.add_argument("--crossover", type=int, default=64 << 10, help="gather below, owner from (default 64 KiB)")
    ap.add_argument("--step-bytes", default="", help="one step's all-reduce sizes, comma-separated")
    a = ap.parse_args()
    rows = []
    with open(a.rows) as f:
        for line in f:
            line = line.strip()
            if line.startswith("{"):
                r = json.loads(line)
                if r.get("status") == "ok" and r.get("transport") == "mpi":
                    rows.append(r)
    if len(rows) < 3:
        sys.exit("allreduce_model: need at least 3 ok rows of `clforge bench allreduce --mpi --json`")
    N0 = rows[0]["ranks"]
    S = [r["bytes"] for r in rows]
    t_mpi = [r["mpi_median_ms"] * 1e-3 for r in rows]
    t_cl = [r["median_ms"] * 1e-3 for r in rows]
    a_net, b_net = fit(S, t_mpi)
    a_stage, b_stage = fit(S, [c - m for c, m in zip(t_cl, t_mpi)])
    print("fitted on %d rows, %d ranks (%s):" % (len(rows), N0, rows[0]["device"]))
    print("  host MPI_Allreduce:   alpha %.1f us, beta %.3f ns/B (%.2f GB/s)" % (
        a_net * 1e6, b_net * 1e9, 1e-9 / b_net if b_net else float("inf")))
    print("  clforge's staging:    alpha %.1f us, beta %.3f ns/B (%.2f GB/s) on top of it" % (
        a_stage * 1e6, b_stage * 1e9, 1e-9 / b_stage if b_stage else float("inf")))
    print("  measured vs fitted (ms):")
    for s, c, m in zip(S, t_cl, t_mpi):
        print("    %11d  clforge %9.3f (model %9.3f)  MPI %9.3f (model %9.3f)" % (
            s, c * 1e3, (a_stage + b_stage * s + a_net + b_net * s) * 1e3, m * 1e3, (a_net + b_net * s) * 1e3))
    alpha = a.alpha_us * 1e-6
    print("\npredicted busbw (GB/s), alpha %.0f us per message, piece %d B, crossover %d B:" % (
        a.alpha_us, a.piece, a.crossover))
    sizes = [1 << 10, 64 << 10, 1 << 20, 16 << 20, 256 << 20]
    print("  %-18s" % "N, link" + "".join("%11s" % (str(s >> 10) + " KiB" if s < (1 << 20) else str(s >> 20) + " MiB")
                                         for s in sizes))
    for N in (8, 64):
        for gbps in (25, 100):
            beta = 8.0 / (gbps * 1e9)
            cells = []
            for s in sizes:
                t = (gather_time(s, N, alpha, beta, a_stage, b_stage) if s < a.crossover
                     else owner_time(s, N, alpha, beta, a_stage, b_stage, a.piece))
                cells.append("%11.2f" % (s / t * 2 * (N - 1) / N / 1e9))
            print("  %-18s" % ("N=%d, %d Gb/s" % (N, gbps)) + "".join(cells))
    if a.step_bytes:
        step = [int(x) for x in a.step_bytes.split(",") if x]
        print("\none step's all-reduces (%s bytes), not overlapped with compute (ms):" % ",".join(map(str, step)))
        for N in (2, 8, 64):
            for gbps in (25, 100):
                beta = 8.0 / (gbps * 1e9)
                t = sum(gather_time(s, N, alpha, beta, a_stage, b_stage) if s < a.crossover
                        else owner_time(s, N, alpha, beta, a_stage, b_stage, a.piece) for s in step)
                print("  N=%-3d %3d Gb/s: %.3f" % (N, gbps, t * 1e3))


if __name__ == "__main__":
    main()
