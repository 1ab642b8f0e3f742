/* oneDNN's softmax v2 (forward, backward) behind a small wrapper. */
#include "softmax_peers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef CLFORGE_BENCH_HAVE_ONEDNN
#include <dnnl.h>
#include <dnnl_debug.h>

struct clforge_bench_onednn_softmax {
  dnnl_engine_t engine;
  dnnl_stream_t stream;
  dnnl_primitive_desc_t fwd_pd, pd;
  dnnl_primitive_t prim;
  dnnl_memory_t in, dy, out; /* forward: in = x; backward: in = y (DST), dy (DIFF_DST), out = dx (DIFF_SRC) */
  int backward;
};

static int failed(const char *what, dnnl_status_t st, char *why, size_t cap) {
  snprintf(why, cap, "oneDNN: %s failed (%s)", what, dnnl_status2str(st));
  return -1;
}

static float *data_of(dnnl_memory_t m) {
  void *h = NULL;
  return dnnl_memory_get_data_handle(m, &h) == dnnl_success ? h : NULL;
}

int clforge_bench_onednn_softmax_create(size_t rows, size_t n, int log, int backward, const float *x_or_y,
                                        const float *dy, clforge_bench_onednn_softmax **out, char *why, size_t cap) {
  *out = NULL;
  clforge_bench_onednn_softmax *s = calloc(1, sizeof *s);
  if (!s) {
    snprintf(why, cap, "out of host memory");
    return -1;
  }
  s->backward = backward;
  dnnl_dims_t dims = {(int64_t)rows, (int64_t)n};
  dnnl_memory_desc_t md;
  dnnl_softmax_v2_desc_t fd, bd;
  const dnnl_alg_kind_t alg = log ? dnnl_softmax_log : dnnl_softmax_accurate;
  dnnl_status_t st;
  int rc = 0;
  if ((st = dnnl_engine_create(&s->engine, dnnl_cpu, 0)) != dnnl_success) rc = failed("dnnl_engine_create", st, why, cap);
  if (!rc && (st = dnnl_stream_create(&s->stream, s->engine, dnnl_stream_default_flags)) != dnnl_success)
    rc = failed("dnnl_stream_create", st, why, cap);
  if (!rc && (st = dnnl_memory_desc_init_by_tag(&md, 2, dims, dnnl_f32, dnnl_ab)) != dnnl_success)
    rc = failed("dnnl_memory_desc_init_by_tag", st, why, cap);
  if (!rc && (st = dnnl_softmax_v2_forward_desc_init(&fd, backward ? dnnl_forward_training : dnnl_forward_inference,
                                                     alg, &md, &md, 1)) != dnnl_success)
    rc = failed("dnnl_softmax_v2_forward_desc_init", st, why, cap);
  if (!rc && (st = dnnl_primitive_desc_create(&s->fwd_pd, &fd, NULL, s->engine, NULL)) != dnnl_success)
    rc = failed("dnnl_primitive_desc_create (softmax forward)", st, why, cap);
  if (!rc && backward) {
    if ((st = dnnl_softmax_v2_backward_desc_init(&bd, alg, &md, &md, &md, 1)) != dnnl_success)
      rc = failed("dnnl_softmax_v2_backward_desc_init", st, why, cap);
    if (!rc && (st = dnnl_primitive_desc_create(&s->pd, &bd, NULL, s->engine, s->fwd_pd)) != dnnl_success)
      rc = failed("dnnl_primitive_desc_create (softmax backward)", st, why, cap);
  }
  const dnnl_primitive_desc_t pd = backward ? s->pd : s->fwd_pd;
  if (!rc && (st = dnnl_primitive_create(&s->prim, pd)) != dnnl_success)
    rc = failed("dnnl_primitive_create (softmax)", st, why, cap);
  if (!rc && ((st = dnnl_memory_create(&s->in, &md, s->engine, DNNL_MEMORY_ALLOCATE)) != dnnl_success ||
              (st = dnnl_memory_create(&s->out, &md, s->engine, DNNL_MEMORY_ALLOCATE)) != dnnl_success ||
              (backward && (st = dnnl_memory_create(&s->dy, &md, s->engine, DNNL_MEMORY_ALLOCATE)) != dnnl_success)))
    rc = failed("dnnl_memory_create", st, why, cap);
  if (!rc) {
    float *in = data_of(s->in), *g = backward ? data_of(s->dy) : NULL;
    if (!in || (backward && !g)) rc = failed("dnnl_memory_get_data_handle", dnnl_runtime_error, why, cap);
    else {
      memcpy(in, x_or_y, rows * n * sizeof *in);
      if (backward) memcpy(g, dy, rows * n * sizeof *g);
    }
  }
  if (rc) {
    clforge_bench_onednn_softmax_destroy(s);
    return -1;
  }
  *out = s;
  return 0;
}

int clforge_bench_onednn_softmax_run(clforge_bench_onednn_softmax *s) {
  dnnl_exec_arg_t fwd[2] = {{DNNL_ARG_SRC, s->in}, {DNNL_ARG_DST, s->out}};
  dnnl_exec_arg_t bwd[3] = {{DNNL_ARG_DST, s->in}, {DNNL_ARG_DIFF_DST, s->dy}, {DNNL_ARG_DIFF_SRC, s->out}};
  dnnl_status_t st = s->backward ? dnnl_primitive_execute(s->prim, s->stream, 3, bwd)
                                 : dnnl_primitive_execute(s->prim, s->stream, 2, fwd);
  if (st == dnnl_success) st = dnnl_stream_wait(s->stream);
  return st == dnnl_success ? 0 : -1;
}

const float *clforge_bench_onednn_softmax_result(const clforge_bench_onednn_softmax *s) { return data_of(s->out); }

void clforge_bench_onednn_softmax_destroy(clforge_bench_onednn_softmax *s) {
  if (!s) return;
  if (s->prim) dnnl_primitive_destroy(s->prim);
  if (s->pd) dnnl_primitive_desc_destroy(s->pd);
  if (s->fwd_pd) dnnl_primitive_desc_destroy(s->fwd_pd);
  dnnl_memory_t m[3] = {s->in, s->dy, s->out};
  for (int i = 0; i < 3; ++i)
    if (m[i]) dnnl_memory_destroy(m[i]);
  if (s->stream) dnnl_stream_destroy(s->stream);
  if (s->engine) dnnl_engine_destroy(s->engine);
  free(s);
}

#else

struct clforge_bench_onednn_softmax {
  int unused;
};

int clforge_bench_onednn_softmax_create(size_t rows, size_t n, int log, int backward, const float *x_or_y,
                                        const float *dy, clforge_bench_onednn_softmax **out, char *why, size_t cap) {
  (void)rows, (void)n, (void)log, (void)backward, (void)x_or_y, (void)dy;
  *out = NULL;
  snprintf(why, cap, "n/a: oneDNN not built in (install libdnnl-dev and reconfigure)");
  return -1;
}

int clforge_bench_onednn_softmax_run(clforge_bench_onednn_softmax *s) {
  (void)s;
  return -1;
}

const float *clforge_bench_onednn_softmax_result(const clforge_bench_onednn_softmax *s) {
  (void)s;
  return NULL;
}

void clforge_bench_onednn_softmax_destroy(clforge_bench_onednn_softmax *s) { (void)s; }

#endif
