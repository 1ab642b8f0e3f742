/* FFT convolution (desc.algo = FFT) against clforge_ref_conv2d: filter
 * sizes 1..11, odd sizes, asymmetric padding, strides 1..4 with and
 * without phase planes, groups, batches (and batch slices), both layouts
 * of x and y, every storage type, the epilogue, alpha/beta (alpha == 0,
 * beta == 0 with NaN in y), guard regions around y, prepared weights, a
 * caller's workspace, and the refusal of dilation.
 *
 * Tolerance: the transforms' round-off grows with log2 of the tile and
 * spreads over the whole plane (relative to the signal's energy, not to
 * each output), so the bounds are on the normalized RMS error and on the
 * largest error scaled by the largest output, each the dtype's
 * (clforge__tolerance_for) plus a log term:
 *   nrmse += 4e-7 * L,  max_abs / max|y| += 4e-6 * L,  L = log2(4 (H+pt+pb+1)(W+pl+pr+1))
 * (L bounds log2 of the tile FH*FW). Measured on f32: nrmse <= 4e-7 and
 * max_abs / max|y| <= 8e-7 at L <= 12 (FFT_TEST_VERBOSE=1 prints them).
 *
 * --small: a short run for Oclgrind, with our plain DFT kernels standing in
 * for clFFT's transforms (clFFT's kernels compile to LLVM's freeze, which
 * Oclgrind's uninitialized-value checker cannot run): every other kernel
 * and the whole orchestration are the library's. Each case gets a context
 * of its own there: after the context's workspace is reallocated for a
 * larger call, Oclgrind reports the DFT's reads of tiles just written
 * through sub-buffers of the new buffer as uninitialized (not seen with
 * one case per process, nor on PoCL, where every result checks out). */
#include <math.h>
#include <stdint.h>
#include <time.h>

#include "../src/core/context.h"
#include "../src/families/conv_fft.h"
#include "../src/ref/compare.h"
#include "oclgrind_keep.h"
#include "test_util.h"

typedef struct {
  size_t n, c, h, w, k, r, s, groups, sh, sw, pt, pb, pl, pr;
  clforge_tensor_layout xl, yl;
  clforge_filter_layout wl;
  clforge_dtype xt, wt, yt;
  int bias, act;
  float alpha, beta;
  int phase;    /* -1: default, else PHASE */
  int prepared; /* use clforge_conv2d_weights */
  int own_ws;   /* a caller's workspace */
  size_t cap;   /* workspace bound in bytes (0: default): forces batch slices */
} fft_case;

static float frand(unsigned *s) { return (float)(tu_rand(s) % 2001) / 1000.0f - 1.0f; }

static void fill(unsigned *seed, void *p, size_t n, clforge_dtype t) {
  float *f = malloc(n * sizeof *f);
  for (size_t i = 0; i < n; ++i) f[i] = frand(seed);
  clforge_ref_convert(n, f, CLFORGE_F32, p, t);
  free(f);
}

static void widen(const void *p, size_t n, clforge_dtype t, float *out) { clforge_ref_convert(n, p, t, out, CLFORGE_F32); }

static void run_case(clforge_context ctx, const fft_case *fc, int idx) {
  clforge_conv2d_desc d;
  memset(&d, 0, sizeof d);
  d.n = fc->n, d.c = fc->c, d.h = fc->h, d.w = fc->w, d.k = fc->k, d.r = fc->r, d.s = fc->s;
  d.groups = fc->groups, d.stride_h = fc->sh, d.stride_w = fc->sw;
  d.pad_top = fc->pt, d.pad_bottom = fc->pb, d.pad_left = fc->pl, d.pad_right = fc->pr;
  d.x_layout = fc->xl, d.y_layout = fc->yl, d.w_layout = fc->wl;
  d.x_type = fc->xt, d.w_type = fc->wt, d.y_type = fc->yt, d.bias_type = fc->xt;
  d.alpha = fc->alpha, d.alpha_mode = CLFORGE_ALPHA_AS_GIVEN, d.beta = fc->beta;
  d.activation = (clforge_activation)fc->act;
  d.algo = CLFORGE_CONV_ALGO_FFT;
  const size_t G = 37; /* guard elements before and after y; x and w at offsets too */
  d.x_offset = 3, d.w_offset = 5, d.y_offset = G, d.bias_offset = 2;
  size_t p = 0, q = 0;
  CHECK_OK(NULL, clforge_conv2d_output_size(&d, &p, &q));
  char params[64] = "";
  if (fc->phase >= 0) snprintf(params, sizeof params, "conv_fft:PHASE=%d", fc->phase);
  CHECK_OK(ctx, clforge_context_set_params(ctx, params));
  if (fc->cap) { /* a bound below the whole call's workspace: slices of images, chunks of filters */
    size_t whole = 0, part = 0;
    CHECK_OK(ctx, clforge_conv2d_workspace_size(ctx, &d, &whole));
    ctx->workspace.cap = fc->cap;
    CHECK_OK(ctx, clforge_conv2d_workspace_size(ctx, &d, &part));
    CHECK(part <= fc->cap && fc->cap < whole, "case %d: workspace %zu bytes, %zu under a bound of %zu", idx, whole,
          part, fc->cap);
  }

  const size_t gs = fc->groups ? fc->groups : 1;
  const size_t nx = d.x_offset + fc->n * fc->c * fc->h * fc->w, nw = d.w_offset + fc->k * (fc->c / gs) * fc->r * fc->s;
  const size_t ny = fc->n * fc->k * p * q, nyb = G + ny + G, nb = d.bias_offset + fc->k;
  const size_t xs = clforge_dtype_size(fc->xt), ws = clforge_dtype_size(fc->wt), ys = clforge_dtype_size(fc->yt);
  unsigned seed = 1234u + (unsigned)idx * 77u;
  void *hx = malloc(nx * xs), *hw = malloc(nw * ws), *hb = malloc(nb * xs), *hy = malloc(nyb * ys),
       *want = malloc(nyb * ys), *got = malloc(nyb * ys);
  fill(&seed, hx, nx, fc->xt);
  fill(&seed, hw, nw, fc->wt);
  fill(&seed, hb, nb, fc->xt);
  fill(&seed, hy, nyb, fc->yt);
  if (fc->beta == 0.0f) { /* not read: NaN there must not leak */
    float nan = NAN;
    for (size_t i = 0; i < ny; ++i) clforge_ref_convert(1, &nan, CLFORGE_F32, (char *)hy + (G + i) * ys, fc->yt);
  }
  memcpy(want, hy, nyb * ys);
  CHECK_OK(NULL, clforge_ref_conv2d(&d, hx, hw, fc->bias ? hb : NULL, want));

  cl_mem bx = tu_buffer(ctx, nx * xs), bw = tu_buffer(ctx, nw * ws), bb = tu_buffer(ctx, nb * xs),
         by = tu_buffer(ctx, nyb * ys);
  tu_write(ctx, bx, 0, nx * xs, hx);
  tu_write(ctx, bw, 0, nw * ws, hw);
  tu_write(ctx, bb, 0, nb * xs, hb);
  tu_write(ctx, by, 0, nyb * ys, hy);
  clforge_conv2d_weights pw = NULL;
  cl_mem wsb = NULL;
  size_t wsn = 0;
  clforge_status st;
  if (fc->prepared) CHECK_OK(ctx, clforge_conv2d_weights_create(ctx, &d, bw, 0, NULL, &pw));
  if (fc->own_ws) {
    CHECK_OK(ctx, clforge_conv2d_workspace_size(ctx, &d, &wsn));
    wsb = tu_buffer(ctx, wsn ? wsn : 1);
  }
  if (fc->prepared || fc->own_ws)
    st = clforge_conv2d_ex(ctx, &d, bx, fc->prepared ? NULL : bw, pw, fc->bias ? bb : NULL, by, wsb, wsn, 0, NULL,
                           NULL);
  else
    st = clforge_conv2d(ctx, &d, bx, bw, fc->bias ? bb : NULL, by, 0, NULL, NULL);
  CHECK(st == CLFORGE_SUCCESS, "case %d: %s: %s", idx, clforge_status_name(st), clforge_last_error(ctx));
  if (st == CLFORGE_SUCCESS && fc->prepared) { /* a second call with the same weights */
    tu_write(ctx, by, 0, nyb * ys, hy);
    st = clforge_conv2d_ex(ctx, &d, bx, NULL, pw, fc->bias ? bb : NULL, by, NULL, 0, 0, NULL, NULL);
    CHECK(st == CLFORGE_SUCCESS, "case %d (second call): %s", idx, clforge_last_error(ctx));
  }
  tu_read(ctx, by, 0, nyb * ys, got);
  CHECK(!memcmp(got, hy, G * ys) && !memcmp((char *)got + (G + ny) * ys, (char *)hy + (G + ny) * ys, G * ys),
        "case %d: the guard regions around y changed", idx);
  float *g32 = malloc(ny * sizeof *g32), *w32 = malloc(ny * sizeof *w32);
  widen((char *)got + G * ys, ny, fc->yt, g32);
  widen((char *)want + G * ys, ny, fc->yt, w32);
  clforge__error_stats es;
  clforge__compare_f32(ny, g32, w32, &es);
  const double lg = log2((double)(fc->h + fc->pt + fc->pb + 1) * (double)(fc->w + fc->pl + fc->pr + 1) * 4.0);
  clforge__tolerance tol = clforge__tolerance_for(fc->yt);
  tol.nrmse += 4e-7 * lg, tol.max_abs_scaled += 4e-6 * lg;
  CHECK(clforge__within_tolerance(&es, tol),
        "case %d (n%zu c%zu %zux%zu k%zu %zux%zu g%zu s%zux%zu pad %zu,%zu,%zu,%zu types %d%d%d phase %d): nrmse %.3g "
        "max_abs %.3g max %.3g specials %zu",
        idx, fc->n, fc->c, fc->h, fc->w, fc->k, fc->r, fc->s, gs, fc->sh, fc->sw, fc->pt, fc->pb, fc->pl, fc->pr,
        fc->xt, fc->wt, fc->yt, fc->phase, es.nrmse, es.max_abs, es.max_want, es.special_mismatches);
  if (getenv("FFT_TEST_VERBOSE"))
    printf("case %d: nrmse %.3g max_abs/max %.3g (log2 %.1f)\n", idx, es.nrmse,
           es.max_want > 0 ? es.max_abs / es.max_want : 0, lg);
  free(g32), free(w32);
  keep_release_weights(ctx, pw);
  keep_release(wsb);
  keep_release(bx), keep_release(bw), keep_release(bb), keep_release(by);
  free(hx), free(hw), free(hb), free(hy), free(want), free(got);
  if (fc->cap) ctx->workspace.cap = 0;
}

/* --bench: GFLOP/s (direct-convolution count 2 N K C/G R S P Q) of FFT
 * convolution (filters transformed per call, prepared weights, with and
 * without phase planes) next to clforge_gemm on the im2col-equivalent GEMM
 * (M = N P Q, N = K, K = C R S), all in one process. Not run by ctest. */
static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

typedef clforge_status (*bench_fn)(clforge_context ctx, void *user);

static double best_of(clforge_context ctx, bench_fn f, void *user, int reps) {
  cl_command_queue q;
  clforge_context_queue(ctx, &q);
  double best = 1e30;
  for (int i = 0; i < reps + 1; ++i) { /* the first warms up (plans, builds) */
    double t0 = now_s();
    clforge_status st = f(ctx, user);
    clFinish(q);
    double t = now_s() - t0;
    if (st != CLFORGE_SUCCESS) {
      printf("  failed: %s\n", clforge_last_error(ctx));
      return 0;
    }
    if (i && t < best) best = t;
  }
  return best;
}

typedef struct {
  clforge_conv2d_desc d;
  cl_mem x, w, y;
  clforge_conv2d_weights pw;
  clforge_gemm_desc g;
  cl_mem a, b, c;
} bench_job;

static clforge_status run_conv(clforge_context ctx, void *u) {
  bench_job *j = u;
  return clforge_conv2d_ex(ctx, &j->d, j->x, j->pw ? NULL : j->w, j->pw, NULL, j->y, NULL, 0, 0, NULL, NULL);
}
static clforge_status run_gemm(clforge_context ctx, void *u) {
  bench_job *j = u;
  return clforge_gemm(ctx, &j->g, j->a, j->b, j->c, NULL, 0, NULL, NULL);
}

static void bench_shape(clforge_context ctx, const char *name, size_t n, size_t c, size_t h, size_t k, size_t r,
                        size_t stride, size_t pad) {
  bench_job j;
  memset(&j, 0, sizeof j);
  clforge_conv2d_desc *d = &j.d;
  d->n = n, d->c = c, d->h = d->w = h, d->k = k, d->r = d->s = r, d->stride_h = d->stride_w = stride;
  d->pad_top = d->pad_bottom = d->pad_left = d->pad_right = pad;
  d->algo = CLFORGE_CONV_ALGO_FFT;
  size_t p, q;
  clforge_conv2d_output_size(d, &p, &q);
  const double flops = 2.0 * (double)(n * k * c * r * r * p * q);
  const size_t nx = n * c * h * h, nw = k * c * r * r, ny = n * k * p * q;
  float *hbuf = malloc((nx > nw ? nx : nw) * sizeof(float) * 2 + 16);
  unsigned seed = 7;
  for (size_t i = 0; i < (nx > nw ? nx : nw); ++i) hbuf[i] = frand(&seed);
  j.x = tu_buffer(ctx, nx * 4), j.w = tu_buffer(ctx, nw * 4), j.y = tu_buffer(ctx, ny * 4);
  tu_write(ctx, j.x, 0, nx * 4, hbuf);
  tu_write(ctx, j.w, 0, nw * 4, hbuf);
  printf("%s: N=%zu C=%zu %zux%zu K=%zu %zux%zu/%zu pad %zu -> %zux%zu, %.3f GFLOP\n", name, n, c, h, h, k, r, r,
         stride, pad, p, q, flops * 1e-9);
  for (int phase = 1; phase >= 0; --phase) {
    if (!phase && stride == 1) break;
    char params[32];
    snprintf(params, sizeof params, "conv_fft:PHASE=%d", phase);
    clforge_context_set_params(ctx, params);
    clforge_conv_choice ch;
    size_t wsb = 0;
    if (clforge_conv2d_explain(ctx, d, &ch) == CLFORGE_SUCCESS) wsb = ch.workspace_bytes;
    double t = best_of(ctx, run_conv, &j, 3);
    printf("  fft PHASE=%d, filters per call : %8.2f ms %7.1f GFLOP/s (workspace %.1f MiB)\n", phase, t * 1e3,
           t > 0 ? flops / t * 1e-9 : 0, (double)wsb / (1 << 20));
    if (clforge_conv2d_weights_create(ctx, d, j.w, 0, NULL, &j.pw) == CLFORGE_SUCCESS) {
      t = best_of(ctx, run_conv, &j, 3);
      printf("  fft PHASE=%d, prepared weights : %8.2f ms %7.1f GFLOP/s\n", phase, t * 1e3,
             t > 0 ? flops / t * 1e-9 : 0);
      clforge_conv2d_weights_release(j.pw);
      j.pw = NULL;
    }
  }
  clforge_context_set_params(ctx, NULL);
  /* The im2col-equivalent GEMM (the im2col itself not counted). */
  clforge_gemm_desc *g = &j.g;
  g->m = n * p * q, g->n = k, g->k = c * r * r;
  j.a = tu_buffer(ctx, g->m * g->k * 4), j.b = tu_buffer(ctx, g->k * g->n * 4), j.c = tu_buffer(ctx, g->m * g->n * 4);
  float *ha = calloc(g->m * g->k, sizeof(float));
  for (size_t i = 0; i < g->m * g->k; ++i) ha[i] = frand(&seed);
  tu_write(ctx, j.a, 0, g->m * g->k * 4, ha);
  tu_write(ctx, j.b, 0, g->k * g->n * 4, ha);
  double t = best_of(ctx, run_gemm, &j, 3);
  printf("  clforge_gemm %zux%zux%zu (im2col-equivalent): %8.2f ms %7.1f GFLOP/s\n", g->m, g->n, g->k, t * 1e3,
         t > 0 ? flops / t * 1e-9 : 0);
  free(ha), free(hbuf);
  clReleaseMemObject(j.a), clReleaseMemObject(j.b), clReleaseMemObject(j.c);
  clReleaseMemObject(j.x), clReleaseMemObject(j.w), clReleaseMemObject(j.y);
}

static int bench(void) {
  clforge_context ctx = tu_context();
  bench_shape(ctx, "AlexNet conv1", 8, 3, 224, 64, 11, 4, 2);
  bench_shape(ctx, "ResNet-50 stem", 8, 3, 224, 64, 7, 2, 3);
  bench_shape(ctx, "11x11 stride 1", 8, 32, 64, 32, 11, 1, 5);
  clforge_context_destroy(ctx);
  return 0;
}

/* The workspace bounds of the sliced cases (bytes): below their whole
 * workspace, so that the call runs in slices of images and chunks of
 * filters (run_case checks it). */
enum { CAP11 = 500000, CAP15 = 780000, CAP17 = 100000 }; /* 2 of 3 images and 4 of 8 filters; 2 and 8 of 16; 1 and 8 of 16 */

#define F32 CLFORGE_F32
#define F16 CLFORGE_F16
#define BF16 CLFORGE_BF16
#define NCHW CLFORGE_NCHW
#define NHWC CLFORGE_NHWC
#define KCRS CLFORGE_KCRS
#define KRSC CLFORGE_KRSC

/* A driver whose compiler rejects clFFT's generated kernels (Intel's
 * OpenCL CPU runtime) refuses the algorithm with the reason, before
 * anything is enqueued: explain and the call say CLFORGE_UNSUPPORTED and y
 * is untouched. Returns 1 where clFFT's kernels build; 0 after checking the
 * refusal, and the cases then run on the test DFT in clFFT's place, so that
 * the algorithm's own kernels still run on this driver. */
static int clfft_builds_here(clforge_context ctx) {
  clforge_conv2d_desc d;
  memset(&d, 0, sizeof d);
  d.n = 1, d.c = 1, d.h = 8, d.w = 8, d.k = 1, d.r = 3, d.s = 3, d.algo = CLFORGE_CONV_ALGO_FFT;
  clforge_conv_choice ch;
  const clforge_status st = clforge_conv2d_explain(ctx, &d, &ch);
  if (st == CLFORGE_SUCCESS) return 1;
  char why[1024];
  snprintf(why, sizeof why, "%s", clforge_last_error(ctx));
  CHECK(st == CLFORGE_UNSUPPORTED && strstr(why, "do not build with this driver"),
        "explain: fft refused with %s: %s", clforge_status_name(st), why);
  printf("skipped: clFFT's kernels on this driver (the cases run on the test DFT): %s\n", why);
  float host[64];
  for (int i = 0; i < 64; ++i) host[i] = (float)i;
  cl_mem x = tu_buffer(ctx, sizeof host), w = tu_buffer(ctx, sizeof host), y = tu_buffer(ctx, sizeof host);
  tu_write(ctx, x, 0, sizeof host, host), tu_write(ctx, w, 0, sizeof host, host), tu_write(ctx, y, 0, sizeof host, host);
  CHECK_FAILS(ctx, clforge_conv2d(ctx, &d, x, w, NULL, y, 0, NULL, NULL), CLFORGE_UNSUPPORTED,
              "do not build with this driver");
  float back[64];
  tu_read(ctx, y, 0, sizeof back, back);
  CHECK(!memcmp(back, host, sizeof host), "a refused fft call wrote y");
  clReleaseMemObject(x), clReleaseMemObject(w), clReleaseMemObject(y);
  return 0;
}

int main(int argc, char **argv) {
  if (argc > 1 && !strcmp(argv[1], "--bench")) return bench();
  const int small = argc > 1 && !strcmp(argv[1], "--small");
  if (small) clforge__conv_fft_test_dft(1);
  clforge_context ctx = tu_context();
  /* n c h w k r s g sh sw pt pb pl pr xl yl wl xt wt yt bias act alpha beta phase prepared own_ws cap */
  /* Image sizes are chosen so that every case's tiles are 12 x 12 (--small's
   * cases and a few more) or 35 x 35 (the rest; radices 5 and 7): clFFT
   * builds programs per transform length, so two lengths keep a cold run
   * short. Each case keeps its filter, strides, padding, groups, layouts,
   * types and epilogue (the phase pairs run a shape each). */
  const fft_case cases[] = {
      {1, 1, 11, 11, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, NCHW, NCHW, KCRS, F32, F32, F32, 0, 0, 1, 0, -1, 0, 0, 0},
      {2, 3, 9, 9, 4, 3, 3, 1, 1, 1, 1, 1, 1, 1, NCHW, NCHW, KCRS, F32, F32, F32, 1, 0, 1, 0, -1, 0, 0, 0},
      {1, 2, 62, 30, 3, 5, 3, 1, 2, 1, 2, 1, 0, 3, NHWC, NHWC, KRSC, F32, F32, F32, 1, 1, 1.5f, 0.5f, -1, 0, 0, 0},
      {3, 4, 27, 27, 4, 7, 7, 2, 2, 2, 3, 3, 3, 3, NCHW, NHWC, KCRS, F32, F32, F32, 1, 0, 1, 0, 0, 0, 0, 0},
      {3, 4, 16, 16, 4, 7, 7, 2, 2, 2, 3, 3, 3, 3, NCHW, NHWC, KCRS, F32, F32, F32, 1, 0, 1, 0, 1, 0, 0, 0},
      {2, 3, 127, 127, 5, 11, 11, 1, 4, 4, 2, 2, 2, 2, NCHW, NCHW, KCRS, F32, F32, F32, 1, 1, 1, 0, 1, 1, 0, 0},
      {2, 3, 31, 31, 5, 11, 11, 1, 4, 4, 2, 2, 2, 2, NCHW, NCHW, KCRS, F32, F32, F32, 1, 1, 1, 0, 0, 0, 0, 0},
      {2, 4, 95, 62, 6, 9, 5, 2, 3, 2, 4, 0, 1, 2, NHWC, NCHW, KRSC, F16, F16, F16, 1, 2, 1, 1, -1, 0, 0, 0},
      {1, 2, 9, 31, 2, 4, 6, 1, 1, 3, 0, 3, 2, 0, NCHW, NCHW, KCRS, BF16, BF16, BF16, 0, 3, 0.75f, 0, -1, 0, 0, 0},
      {2, 2, 9, 9, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, NCHW, NCHW, KCRS, F32, F32, F32, 1, 0, 0, 0.5f, -1, 0, 0, 0},
      {3, 3, 29, 29, 4, 5, 5, 1, 1, 1, 2, 2, 2, 2, NCHW, NCHW, KCRS, F16, F32, BF16, 1, 1, 1, 0, -1, 0, 1, 0},
      {3, 3, 27, 27, 8, 7, 7, 1, 1, 1, 3, 3, 3, 3, NCHW, NCHW, KCRS, F32, F32, F32, 0, 0, 1, 0, -1, 0, 0, CAP11},
      {2, 4, 23, 23, 4, 11, 11, 1, 1, 1, 5, 5, 5, 5, NHWC, NHWC, KRSC, F32, BF16, F32, 1, 0, 1, 0.25f, -1, 1, 1, 0},
      {1, 1, 12, 11, 2, 12, 11, 1, 1, 1, 0, 0, 0, 0, NCHW, NCHW, KCRS, F32, F32, F32, 0, 0, 1, 0, -1, 0, 0, 0},
      {2, 6, 31, 31, 6, 3, 3, 3, 1, 1, 1, 1, 1, 1, NCHW, NCHW, KCRS, F16, F16, F16, 1, 2, 1, 0, -1, 0, 0, 0},
      {3, 4, 23, 23, 16, 11, 11, 2, 1, 1, 5, 5, 5, 5, NCHW, NCHW, KCRS, F32, F32, F32, 1, 0, 1, 0, -1, 0, 0, CAP15},
      {3, 4, 23, 23, 16, 11, 11, 2, 1, 1, 5, 5, 5, 5, NCHW, NCHW, KCRS, F32, F32, F32, 1, 0, 1, 0, -1, 1, 0, CAP15},
      {3, 4, 2, 2, 16, 11, 11, 2, 1, 1, 5, 5, 5, 5, NHWC, NCHW, KRSC, F32, F32, F32, 1, 1, 1, 0.5f, -1, 1, 0, CAP17},
      {1, 2, 95, 95, 3, 8, 8, 1, 3, 3, 1, 2, 2, 1, NCHW, NHWC, KCRS, F32, F32, F32, 1, 0, 1, 0, -1, 0, 0, 0},
  };
  const int ncases = (int)(sizeof cases / sizeof cases[0]);
  if (!small && !clfft_builds_here(ctx)) clforge__conv_fft_test_dft(1);
  for (int i = 0; i < ncases; ++i) {
    if (small && i != 1 && i != 4 && i != 8 && i != 17) continue;
    if (getenv("FFT_TEST_CASES")) { /* debugging: e.g. FFT_TEST_CASES=,1,4, */
      char tag[16];
      snprintf(tag, sizeof tag, ",%d,", i);
      if (!strstr(getenv("FFT_TEST_CASES"), tag)) continue;
    }
    if (small) { /* a context per case (the workspace bounds stay in it) */
      clforge_context own = tu_context();
      /* Oclgrind's false reports (tests/oclgrind_keep.h): the test DFT's
       * passes go through the scratch at the end of the workspace. Sized
       * to the largest case's, 124 KB (the other workspace goes unused):
       * each launch's checks cost with the size of the buffers alive. */
      keep_start_sizes(own, (size_t)124 << 10, (size_t)1 << 10);
      run_case(own, &cases[i], i);
      keep_check_workspaces(own);
      clforge_context_destroy(own);
      keep_park(ctx, 16); /* onto the indices the context freed */
    } else {
      run_case(ctx, &cases[i], i);
    }
  }
  /* Every filter size 1..11 (square, stride 1, same padding where odd). */
  for (size_t r = 1; r <= 11 && !small; ++r) {
    const size_t hw = 36 - r; /* the padded image is 35 x 35: the main tiles */
    fft_case fc = {2, 2, hw, hw, 3, r, r, 1, 1, 1, r / 2, (r - 1) / 2, r / 2, (r - 1) / 2,
                   NCHW, NCHW, KCRS, F32, F32, F32, 1, 0, 1, 0, -1, 0, 0, 0};
    run_case(ctx, &fc, 100 + (int)r);
  }

  /* Refusals: dilation, with the reason. */
  clforge_conv2d_desc d;
  memset(&d, 0, sizeof d);
  d.n = 1, d.c = 1, d.h = 8, d.w = 8, d.k = 1, d.r = 3, d.s = 3, d.dilation_h = 2;
  d.algo = CLFORGE_CONV_ALGO_FFT;
  clforge_conv_choice ch;
  CHECK_FAILS(ctx, clforge_conv2d_explain(ctx, &d, &ch), CLFORGE_UNSUPPORTED, "dilation 1");
  cl_mem b1 = tu_buffer(ctx, 1024), b2 = tu_buffer(ctx, 1024), b3 = tu_buffer(ctx, 1024);
  CHECK_FAILS(ctx, clforge_conv2d(ctx, &d, b1, b2, NULL, b3, 0, NULL, NULL), CLFORGE_UNSUPPORTED, "dilation");
  clReleaseMemObject(b1), clReleaseMemObject(b2), clReleaseMemObject(b3);
  /* explain names the algorithm and a workspace. */
  d.dilation_h = 0;
  CHECK_OK(ctx, clforge_conv2d_explain(ctx, &d, &ch));
  CHECK(ch.algo == CLFORGE_CONV_ALGO_FFT && ch.workspace_bytes > 0, "explain: algo %d, %zu bytes", (int)ch.algo,
        ch.workspace_bytes);
  if (small) keep_end(ctx);
  clforge_context_destroy(ctx);
  return tu_summary();
}
