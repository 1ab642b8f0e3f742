/* --int8: one row of clforge_conv2d_quantized (u8 NHWC x, s8 KRSC w, s32 y,
 * zero points 0) per layer and batch, next to oneDNN's u8s8s32. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "conv_bench_parts.h"
#include "stats.h"

/* ------------------------------------------------------------------- int8 */

/* --int8: one row of clforge_conv2d_quantized (u8 NHWC x, s8 KRSC w, s32 y,
 * zero points 0) with prepared weights (as inference runs a layer, and as
 * oneDNN's primitive holds its reordered filter), its sampled outputs
 * against exact sums, oneDNN's u8s8s32 convolution on the same values (y
 * equal to clforge's). */
typedef struct {
  bench_env *env;
  clforge_bench_conv_shape s;
  uint8_t *x;  /* NHWC */
  int8_t *w;   /* KRSC */
  int32_t *y;  /* clforge's, NHWC */
  cl_mem dx, dw, dy;
  clforge_conv2d_desc desc;
  clforge_conv_quant quant;
  clforge_conv2d_quantized_weights weights;
  clforge_bench_onednn_conv *onednn;
} int8_conv;

static int enqueue_int8(void *user, cl_command_queue queue) {
  int8_conv *c = user;
  (void)queue;
  return clforge_conv2d_quantized_ex(c->env->s.ctx, &c->desc, &c->quant, c->dx, NULL, c->weights, NULL, c->dy, 0, NULL,
                                     NULL);
}

static void run_onednn_int8(void *user) {
  int8_conv *c = user;
  clforge_bench_onednn_conv_run(c->onednn);
}

/* The exact sum of output (n, p, q, k) (k's group's channels). */
static int64_t int8_sum(const int8_conv *c, size_t n, size_t p, size_t q, size_t k) {
  const clforge_bench_conv_shape *s = &c->s;
  const size_t cg = s->c / s->groups, kg = s->k / s->groups;
  int64_t acc = 0;
  for (size_t r = 0; r < s->r; ++r)
    for (size_t t = 0; t < s->s; ++t) {
      const long long ih = (long long)(p * s->stride + r * s->dilation) - (long long)s->pad;
      const long long iw = (long long)(q * s->stride + t * s->dilation) - (long long)s->pad;
      if (ih < 0 || iw < 0 || ih >= (long long)s->h || iw >= (long long)s->w) continue;
      const uint8_t *xp = c->x + ((n * s->h + (size_t)ih) * s->w + (size_t)iw) * s->c + k / kg * cg;
      const int8_t *wp = c->w + ((k * s->r + r) * s->s + t) * cg;
      for (size_t ch = 0; ch < cg; ++ch) acc += (int64_t)xp[ch] * wp[ch];
    }
  return acc;
}

int clforge_bench_conv_int8_row(bench_env *env, const conv_spec *sp, size_t n, double f32_ms) {
  conv_row r;
  memset(&r, 0, sizeof r);
  r.layer = sp->name, r.s = sp->s, r.s.n = n, r.dtype = CLFORGE_U8, r.layout = CLFORGE_NHWC;
  r.algo = r.chosen = CLFORGE_CONV_ALGO_AUTO;
  snprintf(r.label, sizeof r.label, "int8:u8s8s32");
  r.peers[PEER_CLBLAST].name = "clblast";
  r.peers[PEER_ONEDNN].name = "onednn";
  snprintf(r.peers[PEER_CLBLAST].note, sizeof r.peers[PEER_CLBLAST].note, "n/a: CLBlast has no int8 convolution");
  int8_conv c;
  memset(&c, 0, sizeof c);
  c.env = env, c.s = r.s;
  const clforge_bench_conv_shape *s = &c.s;
  const size_t nx = s->n * s->h * s->w * s->c, nw = s->k * s->r * s->s * (s->c / s->groups),
               ny = s->n * s->p * s->q * s->k;
  c.x = malloc(nx), c.w = malloc(nw), c.y = malloc(ny * 4);
  int32_t *peer = malloc(ny * 4);
  uint8_t *x_nchw = malloc(nx);
  int8_t *w_kcrs = malloc(nw);
  cl_int e[3] = {CL_OUT_OF_HOST_MEMORY, CL_OUT_OF_HOST_MEMORY, CL_OUT_OF_HOST_MEMORY};
  if (c.x && c.w && c.y && peer && x_nchw && w_kcrs) {
    uint32_t seed = 0x2545F491u;
    for (size_t i = 0; i < nx; ++i) c.x[i] = (uint8_t)((seed = seed * 1664525u + 1013904223u) >> 24);
    for (size_t i = 0; i < nw; ++i) c.w[i] = (int8_t)((seed = seed * 1664525u + 1013904223u) >> 24);
    c.dx = clCreateBuffer(env->s.cl_ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, nx, c.x, &e[0]);
    c.dw = clCreateBuffer(env->s.cl_ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, nw, c.w, &e[1]);
    c.dy = clCreateBuffer(env->s.cl_ctx, CL_MEM_READ_WRITE, ny * 4, NULL, &e[2]);
  }
  c.desc = (clforge_conv2d_desc){.n = s->n, .c = s->c, .h = s->h, .w = s->w, .k = s->k, .r = s->r, .s = s->s,
                                 .stride_h = s->stride, .stride_w = s->stride, .dilation_h = s->dilation,
                                 .dilation_w = s->dilation, .pad_top = s->pad, .pad_bottom = s->pad,
                                 .pad_left = s->pad, .pad_right = s->pad, .x_layout = CLFORGE_NHWC,
                                 .y_layout = CLFORGE_NHWC, .w_layout = CLFORGE_KRSC, .x_type = CLFORGE_U8,
                                 .w_type = CLFORGE_S8, .y_type = CLFORGE_S32, .groups = s->groups};
  const double flops = clforge_bench_conv_flops(s);
  if (e[0] != CL_SUCCESS || e[1] != CL_SUCCESS || e[2] != CL_SUCCESS) {
    r.status = ROW_ERROR;
    snprintf(r.error, sizeof r.error, "out of memory for the int8 case");
  } else {
    clforge_bench_progress(&env->s, "%s n=%zu int8: clforge", sp->name, n);
    clforge_bench_timing t;
    const char *where = "clforge_conv2d_quantized_weights_create";
    int rc = clforge_conv2d_quantized_weights_create(env->s.ctx, &c.desc, c.dw, 0, NULL, &c.weights);
    r.prepared = 1;
    if (rc == CLFORGE_SUCCESS) rc = clforge_bench_conv_time_device(env, enqueue_int8, &c, &t, &where);
    clforge_bench_stats st;
    if (rc || clforge_bench_summarize(t.seconds, (size_t)t.runs, &st)) {
      r.status = ROW_ERROR;
      snprintf(r.error, sizeof r.error, "%s failed (%s): %s", where, clforge_status_name(rc),
               clforge_last_error(env->s.ctx));
    } else {
      r.timer = clforge_bench_timer_name(t.timer);
      r.median_ms = st.median * 1e3, r.p95_ms = st.p95 * 1e3;
      r.gflops = flops / st.median * 1e-9;
      r.gbps = (double)(nx + nw + 4 * ny) / st.median * 1e-9;
      r.vs_f32 = f32_ms > 0 ? f32_ms / r.median_ms : 0;
      cl_int re = clEnqueueReadBuffer(env->s.queue, c.dy, CL_TRUE, 0, ny * 4, c.y, 0, NULL, NULL);
      if (re != CL_SUCCESS) {
        r.status = ROW_ERROR;
        snprintf(r.error, sizeof r.error, "reading y failed (%s)", clforge_status_name(re));
      }
      uint32_t seed = 0xC0FFEEu;
      for (int i = 0; i < SPOT_SAMPLES && r.status == ROW_OK; ++i) { /* corners, then pseudo-random */
        seed = seed * 1664525u + 1013904223u;
        const size_t at = i < 2 ? (i ? ny - 1 : 0) : (size_t)(((uint64_t)(seed >> 4) * ny) >> 28);
        const size_t k = at % s->k, pix = at / s->k, q = pix % s->q, p = pix / s->q % s->p, nn = pix / (s->p * s->q);
        const int64_t want = int8_sum(&c, nn, p, q, k);
        if (c.y[at] != (int32_t)want) {
          r.status = ROW_ERROR;
          snprintf(r.error, sizeof r.error, "wrong result: y[n %zu][%zu][%zu][k %zu] = %d, exactly %lld", nn, p, q, k,
                   (int)c.y[at], (long long)want);
        }
      }
      clforge_bench_timing_free(&t);
    }
  }
  clforge_bench_peer_result *pr = &r.peers[PEER_ONEDNN];
  const char *why = "";
  if (!env->o->cli.peers) {
    snprintf(pr->note, sizeof pr->note, "not run (--no-peers)");
  } else if (!clforge_bench_onednn_available(&why)) {
    snprintf(pr->note, sizeof pr->note, "%s", why);
  } else if (s->groups != 1) {
    snprintf(pr->note, sizeof pr->note, "not run: the int8 peer runs groups 1");
  } else if (r.status == ROW_OK) {
    for (size_t nn = 0; nn < s->n; ++nn) /* NHWC -> NCHW, KRSC -> KCRS */
      for (size_t hw = 0; hw < s->h * s->w; ++hw)
        for (size_t ch = 0; ch < s->c; ++ch) x_nchw[(nn * s->c + ch) * s->h * s->w + hw] = c.x[(nn * s->h * s->w + hw) * s->c + ch];
    for (size_t k = 0; k < s->k; ++k)
      for (size_t rs = 0; rs < s->r * s->s; ++rs)
        for (size_t ch = 0; ch < s->c; ++ch) w_kcrs[(k * s->c + ch) * s->r * s->s + rs] = c.w[(k * s->r * s->s + rs) * s->c + ch];
    char err[256];
    clforge_bench_progress(&env->s, "%s n=%zu int8: onednn", sp->name, n);
    if (clforge_bench_onednn_conv_create_u8s8s32(s, x_nchw, w_kcrs, &c.onednn, err, sizeof err)) {
      snprintf(pr->note, sizeof pr->note, "%s", err);
    } else {
      clforge_bench_timing t;
      if (clforge_bench_conv_time_host(env, run_onednn_int8, &c, &t) == 0) {
        clforge_bench_peer_timed(pr, &t, flops);
        clforge_bench_timing_free(&t);
      }
      struct timespec settle = {0, 250 * 1000 * 1000}; /* OpenMP's spinning workers (see measure_onednn) */
      nanosleep(&settle, NULL);
      if (pr->ok && clforge_bench_onednn_conv_result(c.onednn, peer, err, sizeof err)) {
        pr->ok = 0;
        snprintf(pr->note, sizeof pr->note, "%s", err);
      }
      size_t diff = 0;
      for (size_t nn = 0; pr->ok && nn < s->n; ++nn)
        for (size_t k = 0; k < s->k; ++k)
          for (size_t pq = 0; pq < s->p * s->q; ++pq)
            diff += peer[(nn * s->k + k) * s->p * s->q + pq] != c.y[(nn * s->p * s->q + pq) * s->k + k];
      if (pr->ok && diff) {
        pr->ok = 0;
        snprintf(pr->note, sizeof pr->note, "not reported: its y differs from clforge's in %zu of %zu values", diff, ny);
        clforge_bench_warn(&env->s, "%s n=%zu int8: onednn %s", sp->name, n, pr->note);
      } else if (pr->ok) {
        snprintf(pr->note, sizeof pr->note, "oneDNN's %s u8s8s32; y equal to clforge's",
                 clforge_bench_onednn_conv_impl(c.onednn));
      }
    }
  } else {
    snprintf(pr->note, sizeof pr->note, "not reported: no correct clforge result to check it against");
  }
  if (r.status == ROW_ERROR) clforge_bench_warn(&env->s, "%s n=%zu int8: %s", sp->name, n, r.error);
  clforge_bench_conv_emit(env, &r);
  if (r.status == ROW_OK && env->nint8 < (int)(sizeof env->int8s / sizeof env->int8s[0]))
    env->int8s[env->nint8++] = (struct int8_summary){sp->name, n, r.vs_f32,
                                                     pr->ok && pr->gflops > 0 ? r.gflops / pr->gflops : 0};
  clforge_bench_onednn_conv_destroy(c.onednn);
  clforge_conv2d_quantized_weights_release(c.weights);
  if (c.dx) clReleaseMemObject(c.dx);
  if (c.dw) clReleaseMemObject(c.dw);
  if (c.dy) clReleaseMemObject(c.dy);
  free(c.x), free(c.w), free(c.y), free(peer), free(x_nchw), free(w_kcrs);
  return r.status == ROW_ERROR;
}
