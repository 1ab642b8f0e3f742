/* clforge_batchnorm_fold: the reference against a hand-folded channel and
 * against its meaning: a convolution with the folded filter and bias equals
 * the convolution followed by the batch norm (clforge_ref_conv2d, KCRS and
 * KRSC, groups), within f32's rounding; the device against the reference
 * (f32/f16/bf16 mixes, no bias, in place, offsets); validation mode; bad
 * input changing nothing. --small: fewer cases (Oclgrind). */
#include <math.h>
#include <string.h>

#include "../src/core/context.h"
#include "../src/ref/compare.h"
#include "oclgrind_keep.h"
#include "test_util.h"

static void hand_values(void) {
  const float w[2] = {2, 4}, b[1] = {1}, g[1] = {3}, be[1] = {0.5f}, m[1] = {1}, v[1] = {3};
  float wo[2], bo[1];
  clforge_batchnorm_fold_desc d = {.k = 1, .per_k = 2, .eps = 1.0f}; /* s = 3 / sqrt(4) */
  CHECK_OK(NULL, clforge_ref_batchnorm_fold(&d, w, b, g, be, m, v, wo, bo));
  CHECK(wo[0] == 3 && wo[1] == 6 && bo[0] == 0.5f, "folded: %g %g, bias %g", wo[0], wo[1], bo[0]);
  CHECK_OK(NULL, clforge_ref_batchnorm_fold(&d, w, NULL, g, be, m, v, wo, bo));
  CHECK(bo[0] == -1.0f, "no bias: (0 - 1) * 1.5 + 0.5 = %g", bo[0]);
}

/* conv(x, w') + b' against BN(conv(x, w) + b), in either filter layout. */
static void meaning(clforge_filter_layout wl, size_t groups) {
  enum { N = 2, C = 4, H = 6, W = 5, K = 6, R = 3, S = 3 };
  const size_t per_k = C / groups * R * S;
  static float x[N * C * H * W], w[K * C * R * S], b[K], g[K], be[K], m[K], v[K], wf[K * C * R * S], bf[K];
  static float y0[N * K * H * W], y1[N * K * H * W];
  unsigned seed = 8 + (unsigned)wl + 3 * (unsigned)groups;
  tu_fill(x, CLFORGE_F32, N * C * H * W, &seed), tu_fill(w, CLFORGE_F32, K * per_k, &seed), tu_fill(b, CLFORGE_F32, K, &seed);
  tu_fill(g, CLFORGE_F32, K, &seed), tu_fill(be, CLFORGE_F32, K, &seed), tu_fill(m, CLFORGE_F32, K, &seed);
  for (int k = 0; k < K; ++k) v[k] = 0.5f + (float)k / 4.0f;
  clforge_conv2d_desc c = {.n = N, .c = C, .h = H, .w = W, .k = K, .r = R, .s = S, .groups = groups, .pad_top = 1,
                           .pad_bottom = 1, .pad_left = 1, .pad_right = 1, .w_layout = wl};
  CHECK_OK(NULL, clforge_ref_conv2d(&c, x, w, b, y0));
  const double eps = 1e-3;
  for (size_t n = 0; n < N; ++n) /* the batch norm, in double */
    for (size_t k = 0; k < K; ++k)
      for (size_t i = 0; i < H * W; ++i) {
        float *p = &y0[(n * K + k) * H * W + i];
        *p = (float)(g[k] * ((double)*p - m[k]) / sqrt(v[k] + eps) + be[k]);
      }
  const clforge_batchnorm_fold_desc d = {.k = K, .per_k = per_k, .eps = (float)eps};
  CHECK_OK(NULL, clforge_ref_batchnorm_fold(&d, w, b, g, be, m, v, wf, bf));
  CHECK_OK(NULL, clforge_ref_conv2d(&c, x, wf, bf, y1));
  clforge__error_stats s;
  clforge__compare_f32(N * K * H * W, y1, y0, &s);
  CHECK(clforge__within_tolerance(&s, clforge__tolerance_for(CLFORGE_F32)),
        "layout %d groups %zu: the folded convolution differs from conv + BN: nrmse %.3g", (int)wl, groups, s.nrmse);
}

typedef struct {
  clforge_dtype wt, wot, bt, bot;
  size_t k, per_k;
  int bias, in_place;
} fcase;

static void run(clforge_context ctx, const fcase *c) {
  const size_t off = 3, nw = c->k * c->per_k + 2 * off, nb = c->k + 2 * off;
  const size_t ws = clforge_dtype_size(c->wt), wos = clforge_dtype_size(c->wot), bs = clforge_dtype_size(c->bt);
  const size_t bos = clforge_dtype_size(c->bot);
  unsigned seed = 21 + (unsigned)nw;
  void *hw = malloc(nw * ws), *hb = malloc(nb * bs), *hwo = malloc(nw * wos), *hbo = malloc(nb * bos);
  float *bn[4];
  for (int i = 0; i < 4; ++i) bn[i] = malloc(nb * 4), tu_fill(bn[i], CLFORGE_F32, nb, &seed);
  for (size_t i = 0; i < nb; ++i) bn[3][i] = fabsf(bn[3][i]) + 0.1f; /* var > 0 */
  tu_fill(hw, c->wt, nw, &seed), tu_fill(hb, c->bt, nb, &seed), tu_fill(hwo, c->wot, nw, &seed), tu_fill(hbo, c->bot, nb, &seed);
  const clforge_batchnorm_fold_desc d = {.k = c->k, .per_k = c->per_k, .w_type = c->wt, .w_out_type = c->wot,
                                         .bias_type = c->bt, .bias_out_type = c->bot, .w_offset = off,
                                         .w_out_offset = off, .bias_offset = off, .bias_out_offset = off, .bn_offset = 1};
  cl_mem dw = tu_buffer(ctx, nw * ws), db = tu_buffer(ctx, nb * bs), dbn[4];
  for (int i = 0; i < 4; ++i) dbn[i] = tu_buffer(ctx, nb * 4), tu_write(ctx, dbn[i], 0, nb * 4, bn[i]);
  tu_write(ctx, dw, 0, nw * ws, hw), tu_write(ctx, db, 0, nb * bs, hb);
  cl_mem dwo = c->in_place ? dw : tu_buffer(ctx, nw * wos), dbo = c->in_place ? db : tu_buffer(ctx, nb * bos);
  if (!c->in_place) tu_write(ctx, dwo, 0, nw * wos, hwo), tu_write(ctx, dbo, 0, nb * bos, hbo);
  void *ww = malloc(nw * wos), *wb = malloc(nb * bos), *gw = malloc(nw * wos), *gb = malloc(nb * bos);
  memcpy(ww, c->in_place ? hw : hwo, nw * wos), memcpy(wb, c->in_place ? hb : hbo, nb * bos);
  CHECK_OK(NULL, clforge_ref_batchnorm_fold(&d, hw, c->bias ? hb : NULL, bn[0], bn[1], bn[2], bn[3], ww, wb));
  CHECK_OK(ctx, clforge_batchnorm_fold(ctx, &d, dw, c->bias ? db : NULL, dbn[0], dbn[1], dbn[2], dbn[3], dwo, dbo, 0,
                                       NULL, NULL));
  tu_read(ctx, dwo, 0, nw * wos, gw), tu_read(ctx, dbo, 0, nb * bos, gb);
  float *g = malloc(nw * 4), *w = malloc(nw * 4);
  clforge__error_stats s;
  clforge_ref_convert(nw, gw, c->wot, g, CLFORGE_F32), clforge_ref_convert(nw, ww, c->wot, w, CLFORGE_F32);
  clforge__compare_f32(c->k * c->per_k, g + off, w + off, &s);
  CHECK(clforge__within_tolerance(&s, clforge__tolerance_for(c->wot)), "w' (k %zu): nrmse %.3g", c->k, s.nrmse);
  CHECK(!memcmp(gw, ww, off * wos) && !memcmp((char *)gw + (nw - off) * wos, (char *)ww + (nw - off) * wos, off * wos),
        "elements outside w_out changed");
  clforge_ref_convert(nb, gb, c->bot, g, CLFORGE_F32), clforge_ref_convert(nb, wb, c->bot, w, CLFORGE_F32);
  clforge__compare_f32(c->k, g + off, w + off, &s);
  CHECK(clforge__within_tolerance(&s, clforge__tolerance_for(c->bot)), "b' (k %zu, bias %d): nrmse %.3g", c->k, c->bias, s.nrmse);
  free(hw), free(hb), free(hwo), free(hbo), free(ww), free(wb), free(gw), free(gb), free(g), free(w);
  for (int i = 0; i < 4; ++i) free(bn[i]), keep_release(dbn[i]);
  keep_release(dw), keep_release(db);
  if (!c->in_place) keep_release(dwo), keep_release(dbo);
}

static void bad_input(clforge_context ctx) {
  cl_mem w = tu_buffer(ctx, 4096), b = tu_buffer(ctx, 256), p = tu_buffer(ctx, 256), o = tu_buffer(ctx, 4096);
  cl_mem ob = tu_buffer(ctx, 256), small = tu_buffer(ctx, 8);
  float sent[1024];
  for (int i = 0; i < 1024; ++i) sent[i] = 7.0f;
  tu_write(ctx, o, 0, 4096, sent), tu_write(ctx, w, 0, 4096, sent), tu_write(ctx, p, 0, 256, sent);
  tu_write(ctx, b, 0, 256, sent), tu_write(ctx, ob, 0, 256, sent);
  const clforge_batchnorm_fold_desc good = {.k = 16, .per_k = 27}; /* 432 of 1024 */
  clforge_batchnorm_fold_desc d = good;
  CHECK_FAILS(NULL, clforge_batchnorm_fold(NULL, &d, w, b, p, p, p, p, o, ob, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "context");
  CHECK_FAILS(ctx, clforge_batchnorm_fold(ctx, NULL, w, b, p, p, p, p, o, ob, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "desc");
  d.eps = -1.0f;
  CHECK_FAILS(ctx, clforge_batchnorm_fold(ctx, &d, w, b, p, p, p, p, o, ob, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "eps");
  d = good, d.w_type = CLFORGE_S8;
  CHECK_FAILS(ctx, clforge_batchnorm_fold(ctx, &d, w, b, p, p, p, p, o, ob, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "storage type");
  d = good, d.per_k = 0;
  CHECK_FAILS(ctx, clforge_batchnorm_fold(ctx, &d, w, b, p, p, p, p, o, ob, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "per_k");
  d = good, d.reserved[0] = &d;
  CHECK_FAILS(ctx, clforge_batchnorm_fold(ctx, &d, w, b, p, p, p, p, o, ob, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "reserved");
  d = good, d.bn_offset = SIZE_MAX - 3;
  CHECK_FAILS(ctx, clforge_batchnorm_fold(ctx, &d, w, b, p, p, p, p, o, ob, 0, NULL, NULL), CLFORGE_SIZE_OVERFLOW, "offset");
  d = good;
  CHECK_FAILS(ctx, clforge_batchnorm_fold(ctx, &d, w, b, small, p, p, p, o, ob, 0, NULL, NULL), CLFORGE_BUFFER_TOO_SMALL, "gamma");
  CHECK_FAILS(ctx, clforge_batchnorm_fold(ctx, &d, w, b, p, p, p, NULL, o, ob, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "var");
  CHECK_FAILS(ctx, clforge_batchnorm_fold(ctx, &d, w, b, p, p, p, p, o, o, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "overlaps");
  CHECK_FAILS(ctx, clforge_batchnorm_fold(ctx, &d, w, b, p, p, p, p, o, p, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "overlaps gamma");
  d.w_out_offset = 5; /* w_out over w, not w exactly */
  CHECK_FAILS(ctx, clforge_batchnorm_fold(ctx, &d, w, b, p, p, p, p, w, ob, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "without being it");
  float back[1024];
  tu_read(ctx, o, 0, 4096, back);
  CHECK(!memcmp(back, sent, 4096), "a refused call wrote w_out");
  tu_read(ctx, w, 0, 4096, back);
  CHECK(!memcmp(back, sent, 4096), "a refused call wrote w");
  d = good, d.k = 0;
  cl_event ev = NULL;
  CHECK_OK(ctx, clforge_batchnorm_fold(ctx, &d, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0, NULL, &ev));
  CHECK(ev != NULL, "no channels gives a marker event");
  if (ev) clReleaseEvent(ev);
  clforge_kernel_choice ch;
  CHECK_OK(ctx, clforge_batchnorm_fold_explain(ctx, &good, &ch));
  CHECK(!strcmp(ch.family, "batchnorm_fold") && ch.nparams == 1, "explain names the family: %s", ch.family);
  const cl_mem all[] = {w, b, p, o, ob, small};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i) keep_release(all[i]);
}

static void validation(clforge_context ctx) {
  CHECK_OK(ctx, clforge_context_set_validation(ctx, 1));
  const fcase c = {CLFORGE_F32, CLFORGE_F16, CLFORGE_F32, CLFORGE_F32, 32, 9, 1, 0};
  run(ctx, &c);
  cl_mem w = tu_buffer(ctx, 4 * 64), p = tu_buffer(ctx, 4 * 8), o = tu_buffer(ctx, 4 * 64), ob = tu_buffer(ctx, 4 * 8);
  float h[64];
  for (int i = 0; i < 64; ++i) h[i] = (float)(i % 9) / 4.0f + 0.25f;
  tu_write(ctx, w, 0, sizeof h, h), tu_write(ctx, p, 0, 32, h);
  const clforge_batchnorm_fold_desc d = {.k = 8, .per_k = 8};
  clforge__test_set_fault(ctx, "batchnorm_fold");
  CHECK_FAILS(ctx, clforge_batchnorm_fold(ctx, &d, w, NULL, p, p, p, p, o, ob, 0, NULL, NULL), CLFORGE_VALIDATION_FAILED,
              "batchnorm_fold");
  clforge__test_set_fault(ctx, NULL);
  CHECK_OK(ctx, clforge_context_set_validation(ctx, 0));
  const cl_mem all[] = {w, p, o, ob};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i) keep_release(all[i]);
}

int main(int argc, char **argv) {
  const int small = argc > 1 && !strcmp(argv[1], "--small");
  hand_values();
  meaning(CLFORGE_KCRS, 1), meaning(CLFORGE_KRSC, 1), meaning(CLFORGE_KCRS, 2);
  clforge_context ctx = tu_context();
  if (small) keep_start_sized(ctx, 64 << 10);
  const clforge_dtype F = CLFORGE_F32, H = CLFORGE_F16, B = CLFORGE_BF16;
  const fcase cs[] = {{F, F, F, F, 64, 27, 1, 0}, {H, H, H, H, 24, 9, 1, 1}, {F, B, F, F, 7, 100, 0, 0},
                      {B, F, H, B, 5, 1, 1, 0}};
  for (size_t i = 0; i < sizeof cs / sizeof cs[0]; ++i)
    if (!small || i % 2) run(ctx, &cs[i]);
  bad_input(ctx);
  if (!small) validation(ctx);
  if (small) keep_end(ctx);
  clforge_context_destroy(ctx);
  return tu_summary();
}
