/* `clforge bench conv --network`: whole-network totals from the per-layer
 * rows. Each distinct layer of a network (src/families/conv_layers.c) is timed
 * once and counted as often as the network has it; a total is the sum over
 * its layers, per batch and per image, for clforge's automatic choice, for
 * the best algorithm of each layer (when several were timed) and for oneDNN,
 * with the share of each layer kind (stem, 3x3, 1x1, strided, depthwise). */
#ifndef CLFORGE_BENCH_CONV_NETWORK_H
#define CLFORGE_BENCH_CONV_NETWORK_H

#include <clforge/clforge.h>
#include <stdio.h>

#include "families/conv_layers.h"

enum { CLFORGE_BENCH_CONV_KINDS = 6 };

/* One (network, N, dtype, layout): what its layers gave. A total counts
 * only when every layer has a number (`missing` says how many did not). */
typedef struct clforge_bench_conv_net_total {
  double ms;          /* sum of count x median ms */
  double weights_ms;  /* preparing every distinct layer's weights once */
  unsigned missing;   /* layers (with their counts) without a number */
  double kind_ms[CLFORGE_BENCH_CONV_KINDS];
} clforge_bench_conv_net_total;

enum { CLFORGE_BENCH_NET_AUTO = 0, CLFORGE_BENCH_NET_BEST = 1, CLFORGE_BENCH_NET_ONEDNN = 2, CLFORGE_BENCH_NET_SERIES = 3 };

typedef struct clforge_bench_conv_net {
  const clforge__conv_network *net;
  size_t n;
  clforge_dtype dtype;
  clforge_tensor_layout layout;
  unsigned layers, distinct;
  unsigned kind_layers[CLFORGE_BENCH_CONV_KINDS];
  int has[CLFORGE_BENCH_NET_SERIES]; /* auto asked for; more than one algorithm; oneDNN run */
  clforge_bench_conv_net_total t[CLFORGE_BENCH_NET_SERIES];
  /* per algorithm: how many layers (with counts) it ran for auto and best */
  unsigned algo_count[CLFORGE_BENCH_NET_BEST + 1][CLFORGE_CONV_ALGO_COUNT];
} clforge_bench_conv_net;

/* What one layer gave: each series' median ms (< 0: no number), the
 * algorithm behind the auto and best numbers, the auto row's weight time. */
typedef struct clforge_bench_conv_net_layer {
  double ms[CLFORGE_BENCH_NET_SERIES];
  clforge_conv_algo algo[CLFORGE_BENCH_NET_BEST + 1];
  double weights_ms[CLFORGE_BENCH_NET_BEST + 1];
} clforge_bench_conv_net_layer;

/** The kind's index in the kind tables, and its name. */
int clforge_bench_conv_kind_index(const clforge__conv_layer *l);
const char *clforge_bench_conv_kind_name(int kind);

void clforge_bench_conv_net_begin(clforge_bench_conv_net *t, const clforge__conv_network *net, size_t n,
                                  clforge_dtype dtype, clforge_tensor_layout layout, int has_auto, int has_best,
                                  int has_onednn);
void clforge_bench_conv_net_add(clforge_bench_conv_net *t, const clforge__conv_layer *l,
                                const clforge_bench_conv_net_layer *r);

/** The summary tables (totals, then kinds, then each network's best layout)
 *  or, with json, one {"op":"conv_network"} line per total. */
void clforge_bench_conv_net_print(FILE *out, const clforge_bench_conv_net *t, size_t count, int json);

#endif
