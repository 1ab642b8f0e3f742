/* clforge_norm / clforge_norm_backward (LayerNorm, RMSNorm): the reference
 * against closed forms (a normalized row has mean 0 and variance 1, or
 * mean square 1) and its backward against central differences of its
 * forward; the device against the reference for both kinds, every storage
 * mix, strided rows, weight and bias given or not, statistics saved or
 * recomputed, in place; the same bits twice; validation mode; bad input.
 * --small: fewer cases (Oclgrind). */
#include <math.h>
#include <string.h>

#include "../src/core/context.h"
#include "../src/ref/compare.h"
#include "test_util.h"

static unsigned seed = 99;

static void fill(void *p, clforge_dtype t, size_t n, float scale, float shift) {
  float *f = malloc((n ? n : 1) * sizeof *f);
  for (size_t i = 0; i < n; ++i) f[i] = shift + scale * ((float)(tu_rand(&seed) % 4001) / 2000.0f - 1.0f);
  clforge_ref_convert(n, f, CLFORGE_F32, p, t);
  free(f);
}

static void reference_checks(void) {
  enum { R = 3, N = 17 };
  float x[R * N], y[R * N], st[2 * R], dy[R * N], dx[R * N], w[N], b[N], dw[N], db[N];
  fill(x, CLFORGE_F32, R * N, 2.0f, 0.7f), fill(w, CLFORGE_F32, N, 1.0f, 0.5f), fill(b, CLFORGE_F32, N, 1.0f, 0.0f);
  fill(dy, CLFORGE_F32, R * N, 1.0f, 0.0f);
  for (int kind = 0; kind < 2; ++kind) {
    clforge_norm_desc d = {.kind = (clforge_norm_kind)kind, .rows = R, .n = N, .eps = 1e-12f};
    CHECK_OK(NULL, clforge_ref_norm(&d, x, NULL, NULL, y, st));
    for (int r = 0; r < R; ++r) {
      double m = 0, v = 0;
      for (int j = 0; j < N; ++j) m += y[r * N + j];
      m /= N;
      for (int j = 0; j < N; ++j) v += (y[r * N + j] - (kind ? 0 : m)) * (y[r * N + j] - (kind ? 0 : m));
      v /= N;
      CHECK((kind || fabs(m) < 1e-6) && fabs(v - 1) < 1e-5, "kind %d row %d: mean %g, variance %g", kind, r, m, v);
    }
    /* central differences of L = <dy, norm(x) w + b> in x, w and b */
    CHECK_OK(NULL, clforge_ref_norm_backward(&d, x, w, dy, dx, dw, db));
    double worst = 0;
    for (int which = 0; which < 3; ++which)
      for (int i = 0; i < (which ? N : R * N); i += which ? 3 : 7) {
        float *v = which == 0 ? x : which == 1 ? w : b;
        const float keep = v[i];
        double L[2];
        for (int s = 0; s < 2; ++s) {
          v[i] = keep + (s ? -1e-3f : 1e-3f);
          CHECK_OK(NULL, clforge_ref_norm(&d, x, w, b, y, NULL));
          double l = 0;
          for (int t = 0; t < R * N; ++t) l += (double)dy[t] * y[t];
          L[s] = l;
        }
        const double step = (double)(keep + 1e-3f) - (double)(keep - 1e-3f);
        v[i] = keep;
        const double fd = (L[0] - L[1]) / step, want = which == 0 ? dx[i] : which == 1 ? dw[i] : db[i];
        worst = fmax(worst, fabs(fd - want) / (1 + fabs(want)));
      }
    CHECK(worst < 5e-3, "kind %d: the backward differs from central differences by %.3g", kind, worst);
  }
}

typedef struct {
  clforge_norm_kind kind;
  size_t rows, n, pad;  /* row stride n + pad for every tensor */
  clforge_dtype xt, yt, pt;
  int weight, bias, stats, in_place;
} ncase;

static void run(clforge_context ctx, const ncase *c) {
  const size_t st_ = c->n + c->pad, tot = c->rows * st_ + 3, es_x = clforge_dtype_size(c->xt),
               es_y = clforge_dtype_size(c->yt), es_p = clforge_dtype_size(c->pt);
  clforge_norm_desc d = {.kind = c->kind, .rows = c->rows, .n = c->n, .x_type = c->xt, .y_type = c->yt,
                         .param_type = c->pt, .x_offset = 2, .x_stride = st_, .y_offset = 2, .y_stride = st_,
                         .weight_offset = 1, .bias_offset = 1, .stats_offset = 2, .dy_type = c->yt, .dx_type = c->xt,
                         .dy_offset = 2, .dy_stride = st_, .dx_offset = 2, .dx_stride = st_, .dweight_offset = 1,
                         .dbias_offset = 1};
  void *hx = malloc(tot * es_x), *hy = malloc(tot * es_y), *hw = malloc((c->n + 1) * es_p), *hb = malloc((c->n + 1) * es_p);
  void *hdy = malloc(tot * es_y), *want = malloc(tot * 4 + tot * es_y), *got = malloc(tot * 4 + tot * es_y);
  fill(hx, c->xt, tot, 3.0f, 1.0f), fill(hy, c->yt, tot, 1.0f, 0.0f), fill(hw, c->pt, c->n + 1, 1.0f, 1.0f);
  fill(hb, c->pt, c->n + 1, 1.0f, 0.0f), fill(hdy, c->yt, tot, 1.0f, 0.0f);
  cl_mem x = tu_buffer(ctx, tot * es_x), y = c->in_place ? x : tu_buffer(ctx, tot * es_y),
         w = tu_buffer(ctx, (c->n + 1) * es_p), b = tu_buffer(ctx, (c->n + 1) * es_p),
         s = tu_buffer(ctx, (2 * c->rows + 2) * 4);
  tu_write(ctx, x, 0, tot * es_x, hx), tu_write(ctx, w, 0, (c->n + 1) * es_p, hw), tu_write(ctx, b, 0, (c->n + 1) * es_p, hb);
  if (!c->in_place) tu_write(ctx, y, 0, tot * es_y, hy);
  /* forward */
  CHECK_OK(ctx, clforge_norm(ctx, &d, x, c->weight ? w : NULL, c->bias ? b : NULL, y, c->stats ? s : NULL, 0, NULL, NULL));
  memcpy(want, c->in_place ? hx : hy, tot * es_y);
  CHECK_OK(NULL, clforge_ref_norm(&d, hx, c->weight ? hw : NULL, c->bias ? hb : NULL, want, NULL));
  tu_read(ctx, y, 0, tot * es_y, got);
  float *g = malloc(tot * 4), *wv = malloc(tot * 4);
  clforge_ref_convert(tot, got, c->yt, g, CLFORGE_F32), clforge_ref_convert(tot, want, c->yt, wv, CLFORGE_F32);
  clforge__error_stats e;
  clforge__compare_f32(tot, g, wv, &e);
  CHECK(clforge__within_tolerance(&e, clforge__tolerance_for(c->yt)) && e.bit_mismatches <= e.count,
        "forward kind %d rows %zu n %zu: nrmse %.3g max_abs %.3g", (int)c->kind, c->rows, c->n, e.nrmse, e.max_abs);
  if (c->in_place) tu_write(ctx, x, 0, tot * es_x, hx); /* the backward reads the original x (stats still hold) */
  /* backward: dx in place over dy when asked */
  cl_mem dy = tu_buffer(ctx, tot * es_y), dx = c->in_place && c->xt == c->yt ? dy : tu_buffer(ctx, tot * es_x),
         dw = tu_buffer(ctx, (c->n + 1) * es_p), db = tu_buffer(ctx, (c->n + 1) * es_p);
  tu_write(ctx, dy, 0, tot * es_y, hdy);
  if (dx != dy) tu_write(ctx, dx, 0, tot * es_x, hx);
  CHECK_OK(ctx, clforge_norm_backward(ctx, &d, x, c->weight ? w : NULL, c->stats ? s : NULL, dy, dx, dw,
                                      c->bias ? db : NULL, 0, NULL, NULL));
  void *wdx = malloc(tot * es_x), *wdw = calloc(c->n + 1, es_p), *wdb = calloc(c->n + 1, es_p);
  memcpy(wdx, dx == dy ? hdy : hx, tot * es_x);
  CHECK_OK(NULL, clforge_ref_norm_backward(&d, hx, c->weight ? hw : NULL, hdy, wdx, wdw, c->bias ? wdb : NULL));
  struct { cl_mem m; void *want; size_t n; clforge_dtype t; const char *name; } outs[3] = {
      {dx, wdx, tot, c->xt, "dx"}, {dw, wdw, c->n + 1, c->pt, "dweight"}, {db, wdb, c->n + 1, c->pt, "dbias"}};
  for (int i = 0; i < (c->bias ? 3 : 2); ++i) {
    const size_t es = clforge_dtype_size(outs[i].t), skip = i ? 1 : 0; /* the vectors start at offset 1 */
    void *raw = malloc(outs[i].n * es);
    tu_read(ctx, outs[i].m, 0, outs[i].n * es, raw);
    float *a = malloc(outs[i].n * 4), *bb = malloc(outs[i].n * 4);
    clforge_ref_convert(outs[i].n, raw, outs[i].t, a, CLFORGE_F32);
    clforge_ref_convert(outs[i].n, outs[i].want, outs[i].t, bb, CLFORGE_F32);
    clforge__compare_f32(outs[i].n - skip, a + skip, bb + skip, &e);
    CHECK(clforge__within_tolerance(&e, clforge__tolerance_for(outs[i].t)),
          "backward kind %d rows %zu n %zu stats %d: %s nrmse %.3g max_abs %.3g", (int)c->kind, c->rows, c->n, c->stats,
          outs[i].name, e.nrmse, e.max_abs);
    free(raw), free(a), free(bb);
  }
  /* the parameter gradients: the same bits on a second run */
  if (dx != dy) {
    void *first = malloc((c->n + 1) * es_p), *second = malloc((c->n + 1) * es_p);
    tu_read(ctx, dw, 0, (c->n + 1) * es_p, first);
    CHECK_OK(ctx, clforge_norm_backward(ctx, &d, x, c->weight ? w : NULL, c->stats ? s : NULL, dy, dx, dw, NULL, 0,
                                        NULL, NULL));
    tu_read(ctx, dw, 0, (c->n + 1) * es_p, second);
    CHECK(!memcmp(first, second, (c->n + 1) * es_p), "dweight differs between two runs");
    free(first), free(second);
  }
  free(hx), free(hy), free(hw), free(hb), free(hdy), free(want), free(got), free(g), free(wv), free(wdx), free(wdw),
      free(wdb);
  clReleaseMemObject(x), clReleaseMemObject(w), clReleaseMemObject(b), clReleaseMemObject(s);
  if (y != x) clReleaseMemObject(y);
  clReleaseMemObject(dy), clReleaseMemObject(dw), clReleaseMemObject(db);
  if (dx != dy) clReleaseMemObject(dx);
}

static void bad_input(clforge_context ctx) {
  cl_mem a = tu_buffer(ctx, 4096), b = tu_buffer(ctx, 4096), small = tu_buffer(ctx, 16);
  const clforge_norm_desc good = {.rows = 4, .n = 100};
  clforge_norm_desc d = good;
  CHECK_FAILS(NULL, clforge_norm(NULL, &d, a, NULL, NULL, b, NULL, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "context");
  CHECK_FAILS(ctx, clforge_norm(ctx, NULL, a, NULL, NULL, b, NULL, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "desc");
  d.kind = (clforge_norm_kind)5;
  CHECK_FAILS(ctx, clforge_norm(ctx, &d, a, NULL, NULL, b, NULL, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "kind 5");
  d = good, d.x_stride = 50;
  CHECK_FAILS(ctx, clforge_norm(ctx, &d, a, NULL, NULL, b, NULL, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "stride");
  d = good, d.eps = -1.0f;
  CHECK_FAILS(ctx, clforge_norm(ctx, &d, a, NULL, NULL, b, NULL, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "eps");
  d = good, d.reserved[0] = &d;
  CHECK_FAILS(ctx, clforge_norm(ctx, &d, a, NULL, NULL, b, NULL, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "reserved");
  d = good, d.n = 0;
  CHECK_FAILS(ctx, clforge_norm(ctx, &d, a, NULL, NULL, b, NULL, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "n = 0");
  d = good;
  CHECK_FAILS(ctx, clforge_norm(ctx, &d, a, NULL, NULL, small, NULL, 0, NULL, NULL), CLFORGE_BUFFER_TOO_SMALL, "y");
  CHECK_FAILS(ctx, clforge_norm(ctx, &d, a, small, NULL, b, NULL, 0, NULL, NULL), CLFORGE_BUFFER_TOO_SMALL, "weight");
  d.y_offset = 10;
  CHECK_FAILS(ctx, clforge_norm(ctx, &d, a, NULL, NULL, a, NULL, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "y overlaps x");
  d = good;
  CHECK_FAILS(ctx, clforge_norm(ctx, &d, a, NULL, NULL, b, b, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "stats overlaps y");
  CHECK_FAILS(ctx, clforge_norm_backward(ctx, &d, a, NULL, NULL, b, a, NULL, NULL, 0, NULL, NULL),
              CLFORGE_INVALID_ARGUMENT, "dx overlaps x");
  CHECK_FAILS(ctx, clforge_norm_backward(ctx, &d, a, NULL, NULL, b, small, NULL, NULL, 0, NULL, NULL),
              CLFORGE_BUFFER_TOO_SMALL, "dx");
  d.rows = 0;
  cl_event ev = NULL;
  CHECK_OK(ctx, clforge_norm(ctx, &d, NULL, NULL, NULL, NULL, NULL, 0, NULL, &ev));
  CHECK(ev != NULL, "rows 0: a marker event");
  if (ev) clReleaseEvent(ev);
  clReleaseMemObject(a), clReleaseMemObject(b), clReleaseMemObject(small);
}

int main(int argc, char **argv) {
  const int small = argc > 1 && !strcmp(argv[1], "--small");
  reference_checks();
  clforge_context ctx = tu_context();
  const clforge_dtype F = CLFORGE_F32, H = CLFORGE_F16, B = CLFORGE_BF16;
  const ncase cases[] = {
      {CLFORGE_NORM_LAYER, 7, 100, 0, F, F, F, 1, 1, 1, 0},   {CLFORGE_NORM_RMS, 5, 257, 3, F, F, F, 1, 0, 1, 0},
      {CLFORGE_NORM_LAYER, 9, 33, 2, B, B, F, 1, 1, 0, 0},    {CLFORGE_NORM_RMS, 4, 64, 0, H, F, B, 0, 0, 0, 0},
      {CLFORGE_NORM_LAYER, 3, 1, 0, F, F, F, 1, 1, 1, 0},     {CLFORGE_NORM_LAYER, 6, 513, 0, F, F, F, 1, 1, 1, 1},
      {CLFORGE_NORM_RMS, 8, 96, 4, B, B, B, 1, 1, 0, 1},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i)
    if (!small || i % 2 == 0) run(ctx, &cases[i]);
  bad_input(ctx);
  if (!small) {
    CHECK_OK(ctx, clforge_context_set_validation(ctx, 1));
    run(ctx, &cases[0]);
    run(ctx, &cases[3]);
    cl_mem a = tu_buffer(ctx, 1600), b = tu_buffer(ctx, 1600);
    float h[400];
    for (int i = 0; i < 400; ++i) h[i] = (float)(i % 11) / 5.0f;
    tu_write(ctx, a, 0, 1600, h), tu_write(ctx, b, 0, 1600, h);
    const clforge_norm_desc d = {.rows = 4, .n = 100};
    clforge__test_set_fault(ctx, "norm");
    CHECK_FAILS(ctx, clforge_norm(ctx, &d, a, NULL, NULL, b, NULL, 0, NULL, NULL), CLFORGE_VALIDATION_FAILED, "norm");
    clforge__test_set_fault(ctx, NULL);
    CHECK_OK(ctx, clforge_context_set_validation(ctx, 0));
    clReleaseMemObject(a), clReleaseMemObject(b);
  }
  clforge_context_destroy(ctx);
  return tu_summary();
}
