/* The softmax benchmark's peer: oneDNN's softmax (forward, or backward
 * from y and dy) on the host CPU, f32, on host copies of the same values,
 * rows of n along the last axis. Optional at build time
 * (CLFORGE_BENCH_HAVE_ONEDNN): without it the peer reports why it did not
 * run. */
#ifndef CLFORGE_BENCH_SOFTMAX_PEERS_H
#define CLFORGE_BENCH_SOFTMAX_PEERS_H

#include <stddef.h>

typedef struct clforge_bench_onednn_softmax clforge_bench_onednn_softmax;

/** Set up oneDNN's softmax (log: log-softmax) over rows x n f32: forward
 *  from x, or (backward) dx from y and dy; the inputs are copied in here,
 *  outside any timing. Returns 0, or -1 with *why. */
int clforge_bench_onednn_softmax_create(size_t rows, size_t n, int log, int backward, const float *x_or_y,
                                        const float *dy, clforge_bench_onednn_softmax **out, char *why, size_t cap);

/** One run, waited for (the timed part). Returns 0 or -1. */
int clforge_bench_onednn_softmax_run(clforge_bench_onednn_softmax *s);

/** The output of the last run (rows x n f32: y, or dx). */
const float *clforge_bench_onednn_softmax_result(const clforge_bench_onednn_softmax *s);

void clforge_bench_onednn_softmax_destroy(clforge_bench_onednn_softmax *s);

#endif
