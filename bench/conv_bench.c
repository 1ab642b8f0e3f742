/* `clforge bench conv`: clforge_conv2d timed with profiling events, one row
 * per algorithm, next to CLBlast's convgemm (same device, same queue, same x
 * and w buffers) and oneDNN (host CPU, host copies of the same values), with
 * every result checked before its number is shown.
 *
 * Per case (layer, N, dtype, layout): make the data once; for each
 * requested algorithm ask clforge_conv2d_explain whether it can run the
 * shape (an algorithm that cannot is a row saying "unsupported" with
 * clforge's reason: not a failure), time it, spot-check its result against
 * double-precision sums on sampled outputs; then run the peers and compare
 * each peer's whole result with clforge's first correct one (or, when no
 * algorithm ran, with the CPU reference: whole for small problems, sampled
 * for large ones). A wrong result never gets a number.
 *
 * This file runs the cases and the networks; conv_bench_parts.h lists the
 * parts it calls (options, case data and checks, clforge's rows, the peers,
 * int8, the report). */
#include "conv_bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conv_bench_parts.h"
#include "peers.h"

/* One (layer, N, dtype, layout): every requested algorithm, then the peers.
 * Returns the number of clforge rows that failed (unsupported ones do not).
 * --network: `net` gets what the layer gave, and `onednn` carries oneDNN's
 * result from the layer's first case to its others (it is f32 whatever the
 * dtype, and takes its own layout). */
static int run_case(bench_env *env, const conv_spec *sp, size_t n, clforge_dtype dtype, clforge_tensor_layout layout,
                    clforge_bench_conv_net_layer *net, clforge_bench_peer_result *onednn) {
  const conv_options *o = env->o;
  conv_row rows[CLFORGE_CONV_ALGO_COUNT];
  conv_case c;
  char err[512];
  int failed = 0;
  if (net)
    for (int s = 0; s < CLFORGE_BENCH_NET_SERIES; ++s) net->ms[s] = -1;
  int rc = clforge_bench_conv_setup_case(env, &c, sp, n, dtype, layout, err, sizeof err);
  for (int i = 0; i < o->nalgos; ++i) {
    clforge_bench_conv_row_init(&rows[i], &c, o->algos[i]);
    rows[i].net_layer = o->nnetworks ? sp->layer : NULL;
    rows[i].network = o->nnetworks ? env->network : NULL;
  }
  if (rc) {
    for (int i = 0; i < o->nalgos; ++i) {
      rows[i].status = ROW_ERROR;
      snprintf(rows[i].error, sizeof rows[i].error, "%s", err);
      clforge_bench_peers_not_run(rows[i].peers, NPEERS, "not run: the case could not be set up");
      clforge_bench_conv_emit(env, &rows[i]);
    }
    clforge_bench_warn(&env->s, "%s n=%zu %s: %s", sp->name, n, clforge_dtype_name(dtype), err);
    clforge_bench_conv_free_case(&c);
    return o->nalgos;
  }

  float *want = malloc(clforge_bench_conv_out_elems(&c) * sizeof(float) + 4), *scratch = malloc(clforge_bench_conv_out_elems(&c) * sizeof(float) + 4);
  int have_want = 0;
  for (int i = 0; i < o->nalgos; ++i) {
    conv_row *r = &rows[i];
    if (!want || !scratch) {
      r->status = ROW_ERROR;
      snprintf(r->error, sizeof r->error, "out of host memory");
    } else if (clforge_bench_conv_measure_clforge(&c, r, have_want ? scratch : want) == 0) {
      have_want = 1;
      continue;
    }
    if (r->status == ROW_ERROR) {
      ++failed;
      clforge_bench_warn(&env->s, "%s n=%zu %s %s %s: %s", sp->name, n, clforge_dtype_name(dtype), clforge_bench_conv_layout_name(layout),
                         r->label, r->error);
    }
  }

  clforge_bench_peer_result peers[NPEERS];
  memset(peers, 0, sizeof peers);
  peers[PEER_CLBLAST].name = "clblast";
  peers[PEER_ONEDNN].name = "onednn";
  if (!o->cli.peers) {
    clforge_bench_peers_not_run(peers, NPEERS, "not run (--no-peers)");
  } else if (!scratch) {
    clforge_bench_peers_not_run(peers, NPEERS, "out of host memory");
  } else if (o->nnetworks) {
    snprintf(peers[PEER_CLBLAST].note, sizeof peers[PEER_CLBLAST].note,
             "not run with --network (the totals compare with oneDNN)");
    if (onednn && onednn->name) {
      peers[PEER_ONEDNN] = *onednn; /* measured on this layer and batch before */
    } else {
      clforge_bench_conv_measure_onednn(&c, &peers[PEER_ONEDNN], have_want ? want : NULL, scratch);
      if (onednn) *onednn = peers[PEER_ONEDNN];
    }
  } else {
    clforge_bench_conv_measure_clblast(&c, &peers[PEER_CLBLAST], have_want ? want : NULL, scratch);
    clforge_bench_conv_measure_onednn(&c, &peers[PEER_ONEDNN], have_want ? want : NULL, scratch);
  }
  if (net) {
    for (int i = 0; i < o->nalgos; ++i) {
      const conv_row *r = &rows[i];
      if (r->status != ROW_OK) continue;
      if (r->algo == CLFORGE_CONV_ALGO_AUTO) {
        net->ms[CLFORGE_BENCH_NET_AUTO] = r->median_ms;
        net->algo[CLFORGE_BENCH_NET_AUTO] = r->chosen;
        net->weights_ms[CLFORGE_BENCH_NET_AUTO] = r->weights_ms;
      }
      if (net->ms[CLFORGE_BENCH_NET_BEST] < 0 || r->median_ms < net->ms[CLFORGE_BENCH_NET_BEST]) {
        net->ms[CLFORGE_BENCH_NET_BEST] = r->median_ms;
        net->algo[CLFORGE_BENCH_NET_BEST] = r->chosen;
        net->weights_ms[CLFORGE_BENCH_NET_BEST] = r->weights_ms;
      }
    }
    if (peers[PEER_ONEDNN].ok) net->ms[CLFORGE_BENCH_NET_ONEDNN] = peers[PEER_ONEDNN].median_ms;
  }
  for (int i = 0; i < o->nalgos; ++i) {
    for (int j = 0; j < NPEERS; ++j) rows[i].peers[j] = peers[j];
    clforge_bench_conv_emit(env, &rows[i]);
    if (rows[i].status == ROW_OK && rows[i].algo == CLFORGE_CONV_ALGO_AUTO && dtype == CLFORGE_F32 &&
        layout == CLFORGE_NHWC)
      env->f32_nhwc_ms = rows[i].median_ms;
  }
  free(want);
  free(scratch);
  clforge_bench_conv_free_case(&c);
  return failed;
}

/* --network: each network's layers for every batch, dtype and layout (in
 * that order: oneDNN runs on a layer's first case, the others reuse it),
 * each (network, N, dtype, layout) summed into *nets. Returns the number of
 * failed clforge rows. */
static int run_networks(bench_env *env, clforge_bench_conv_net **nets, size_t *nnets) {
  const conv_options *o = env->o;
  const size_t per = (size_t)o->nbatches * (size_t)o->ndtypes * (size_t)o->nlayouts;
  int has_auto = 0, failed = 0;
  const char *why = "";
  const int have_onednn = clforge_bench_onednn_available(&why);
  for (int i = 0; i < o->nalgos; ++i) has_auto |= o->algos[i] == CLFORGE_CONV_ALGO_AUTO;
  *nets = calloc((size_t)o->nnetworks * per, sizeof **nets);
  *nnets = 0;
  if (!*nets) {
    clforge_bench_warn(&env->s, "out of host memory for the network totals");
    return 1;
  }
  size_t first = 0; /* the network's first spec: specs hold the networks' layers in order */
  for (int ni = 0; ni < o->nnetworks; ++ni) {
    const clforge__conv_network *net = o->networks[ni];
    size_t nl = 0;
    while (net->layers[nl].name) ++nl;
    env->network = net->name;
    clforge_bench_peer_result *onednn = calloc(nl ? nl : 1, sizeof *onednn);
    for (int b = 0; b < o->nbatches; ++b) {
      if (onednn) memset(onednn, 0, nl * sizeof *onednn); /* per batch */
      for (int d = 0; d < o->ndtypes; ++d)
        for (int l = 0; l < o->nlayouts; ++l) {
          clforge_bench_conv_net *t = &(*nets)[(*nnets)++];
          clforge_bench_conv_net_begin(t, net, o->batches[b], o->dtypes[d], o->layouts[l], has_auto,
                                       o->nalgos > 1 || !has_auto, o->cli.peers && have_onednn);
          for (size_t li = 0; li < nl; ++li) {
            clforge_bench_conv_net_layer r;
            memset(&r, 0, sizeof r);
            failed += run_case(env, &o->specs[first + li], o->batches[b], o->dtypes[d], o->layouts[l], &r,
                               onednn ? &onednn[li] : NULL);
            clforge_bench_conv_net_add(t, &net->layers[li], &r);
          }
        }
    }
    free(onednn);
    first += nl;
  }
  env->network = NULL;
  return failed;
}

/* ------------------------------------------------------------------- main */

int clforge_bench_conv_main(int argc, char **argv) {
  conv_options o;
  memset(&o, 0, sizeof o);
  int rc = clforge_bench_conv_parse_options(argc, argv, &o);
  if (rc >= 0) {
    free(o.specs);
    return rc;
  }

  bench_env env;
  memset(&env, 0, sizeof env);
  env.o = &o;
  if (clforge_bench_session_open(&env.s, "conv", o.cli.peak)) {
    free(o.specs);
    return 1;
  }
  if (!o.cli.json) {
    clforge_bench_print_title(&env.s);
    printf("%s: alpha 1, beta 0, no bias, no activation; filters KCRS with nchw, KRSC with nhwc;\n"
           "%d runs after %d warm-up%s; median and p95 in ms; GFLOP/s counts the direct convolution's\n"
           "2*N*K*(C/groups)*R*S*P*Q for every algorithm; GB/s: x and w read, y written once\n",
           o.pass == CLFORGE_CONV_BACKWARD_DATA     ? "dx = conv2d_backward_data(dy, w)"
           : o.pass == CLFORGE_CONV_BACKWARD_FILTER ? "dw = conv2d_backward_filter(x, dy)"
                                                    : "y = conv(x, w)",
           o.cli.runs, o.cli.warmup, o.min_time > 0 ? " (more until --min-time)" : "");
    if (o.cli.peers) {
      const char *why = "";
      int have = clforge_bench_onednn_available(&why);
      char onednn[160];
      snprintf(onednn, sizeof onednn, "oneDNN f32 on the host CPU (%d OpenMP threads, its own layouts, reorders untimed; host clock)",
               clforge_bench_onednn_threads());
      printf("peers: CLBlast convgemm on the same queue and buffers; %s\n", have ? onednn : why);
    }
    clforge_bench_print_peak(&env.s, "% peak", "% bw");
    printf("\n");
    fflush(stdout);
    clforge_bench_conv_table_columns(&env);
  }

  int failed = 0;
  clforge_bench_conv_net *nets = NULL;
  size_t nnets = 0;
  if (o.nnetworks) {
    failed = run_networks(&env, &nets, &nnets);
  } else {
    for (size_t i = 0; i < o.nspecs; ++i) {
      const conv_spec *sp = &o.specs[i];
      const int nb = sp->s.n ? 1 : o.nbatches;
      for (int b = 0; b < nb; ++b) {
        env.f32_nhwc_ms = 0;
        for (int d = 0; d < o.ndtypes; ++d)
          for (int l = 0; l < o.nlayouts; ++l)
            failed += run_case(&env, sp, sp->s.n ? sp->s.n : o.batches[b], o.dtypes[d], o.layouts[l], NULL, NULL);
        if (o.int8) failed += clforge_bench_conv_int8_row(&env, sp, sp->s.n ? sp->s.n : o.batches[b], env.f32_nhwc_ms);
      }
    }
  }

  if (!o.cli.json) clforge_bench_table_finish(&env.table);
  if (!o.cli.json) clforge_bench_conv_print_int8_summary(&env);
  if (nets) clforge_bench_conv_net_print(stdout, nets, nnets, o.cli.json);
  free(nets);
  if (o.cli.peers) clforge_bench_clblast_release();
  clforge_bench_session_close(&env.s);
  free(o.specs);
  if (fflush(stdout) != 0) return 1;
  return failed ? 1 : 0;
}
