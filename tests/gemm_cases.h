/* The GEMM test harness shared by test_gemm.c and test_gemm_packed.c: a
 * case (shape, layout, transposes, dtypes, ld padding, offsets, batch,
 * epilogue), run through clforge_gemm with guard regions around C and
 * compared with clforge_ref_gemm (or by projection for large sizes); the
 * keys through which cases share kernel builds; groups of cases both run. */
#ifndef CLFORGE_TESTS_GEMM_CASES_H
#define CLFORGE_TESTS_GEMM_CASES_H

#include <math.h>
#include <stdint.h>

#include "../src/core/context.h"
#include "../src/families/families.h"
#include "../src/ref/compare.h"
#include "test_util.h"

enum { GUARD = 37 }; /* elements of sentinel before and after C's extent */

typedef struct {
  clforge_layout layout;
  int ta, tb;
  size_t m, n, k;
  clforge_dtype at, bt, ct;
  float alpha, beta;
  size_t pad_a, pad_b, pad_c;       /* leading dimension = tight + pad */
  size_t off_a, off_b, off_c;
  size_t batch;
  int broadcast;                    /* 1: stride_a = 0, 2: stride_b = 0 */
  clforge_bias_mode bias;
  clforge_dtype bias_t;
  clforge_activation act;
  int projection;                   /* check by projection (large sizes) */
  int alpha_left_out;               /* the descriptor leaves alpha out: it must act as 1 */
} gcase;

static unsigned seed = 12345;

/* Stored rows x cols of an operand in its own layout (independent of the
 * library's normalization). */
static void stored_shape(clforge_layout l, int trans, size_t r, size_t c, size_t *rows, size_t *cols) {
  size_t sr = trans ? c : r, sc = trans ? r : c; /* the matrix as stored, math view */
  *rows = l == CLFORGE_ROW_MAJOR ? sr : sc;     /* outer dimension in memory */
  *cols = l == CLFORGE_ROW_MAJOR ? sc : sr;     /* contiguous dimension */
}

static void fill(void *p, clforge_dtype t, size_t n, float scale) {
  float *f = malloc(n * sizeof *f);
  for (size_t i = 0; i < n; ++i) f[i] = scale * ((float)(tu_rand(&seed) % 2001) / 1000.0f - 1.0f);
  clforge_ref_convert(n, f, CLFORGE_F32, p, t);
  free(f);
}

static const char *describe(const gcase *c, char *buf, size_t cap) {
  snprintf(buf, cap, "%s %c%c m%zu n%zu k%zu %s*%s->%s a%g b%g pad(%zu,%zu,%zu) off(%zu,%zu,%zu) batch%zu bc%d bias%d/%s act%d",
           c->layout == CLFORGE_ROW_MAJOR ? "row" : "col", c->ta ? 'T' : 'N', c->tb ? 'T' : 'N', c->m, c->n, c->k,
           clforge_dtype_name(c->at), clforge_dtype_name(c->bt), clforge_dtype_name(c->ct), (double)c->alpha,
           (double)c->beta, c->pad_a, c->pad_b, c->pad_c, c->off_a, c->off_b, c->off_c, c->batch, c->broadcast, (int)c->bias,
           clforge_dtype_name(c->bias_t), (int)c->act);
  return buf;
}

static float get(const void *p, clforge_dtype t, size_t i) {
  float f;
  clforge_ref_convert(1, (const char *)p + i * clforge_dtype_size(t), t, &f, CLFORGE_F32);
  return f;
}

/* Projection check: C t against alpha A (B t) + beta C0 t + bias terms, in
 * double, per row of C (math view), relative to sum_j |C_ij t_j|. */
static int projection_ok(const gcase *c, const clforge_gemm_desc *d, const void *A, const void *B, const void *C0,
                         const void *C, const void *bias, char *why, size_t why_cap) {
  size_t m = c->m, n = c->n, k = c->k;
  double *t = malloc(n * sizeof *t), *bt = malloc(k * sizeof *bt);
  for (size_t j = 0; j < n; ++j) t[j] = (double)(tu_rand(&seed) % 1000) / 500.0 - 1.0;
  int col = c->layout == CLFORGE_COL_MAJOR;
#define IDX(ld, r, cc) (col ? (cc) * (ld) + (r) : (r) * (ld) + (cc))
  double worst = 0, tol = c->ct == CLFORGE_F32 ? 1e-4 : 2e-2;
  for (size_t bi = 0; bi < c->batch; ++bi) {
    size_t oa = d->a_offset + bi * d->stride_a, ob = d->b_offset + bi * d->stride_b, oc = d->c_offset + bi * d->stride_c;
    for (size_t p = 0; p < k; ++p) {
      double s = 0;
      for (size_t j = 0; j < n; ++j) s += (double)get(B, c->bt, ob + (c->tb ? IDX(d->ldb, j, p) : IDX(d->ldb, p, j))) * t[j];
      bt[p] = s;
    }
    double tsum = 0, biast = 0;
    for (size_t j = 0; j < n; ++j) tsum += t[j];
    if (c->bias == CLFORGE_BIAS_COLUMN)
      for (size_t j = 0; j < n; ++j) biast += (double)get(bias, c->bias_t, d->bias_offset + j) * t[j];
    for (size_t i = 0; i < m; ++i) {
      double want = 0, got = 0, scale = 0;
      for (size_t p = 0; p < k; ++p) want += (double)get(A, c->at, oa + (c->ta ? IDX(d->lda, p, i) : IDX(d->lda, i, p))) * bt[p];
      want *= c->alpha;
      for (size_t j = 0; j < n; ++j) {
        double cij = get(C, c->ct, oc + IDX(d->ldc, i, j));
        got += cij * t[j];
        scale += fabs(cij * t[j]);
        if (c->beta != 0) want += c->beta * (double)get(C0, c->ct, oc + IDX(d->ldc, i, j)) * t[j];
      }
      if (c->bias == CLFORGE_BIAS_ROW) want += (double)get(bias, c->bias_t, d->bias_offset + i) * tsum;
      if (c->bias == CLFORGE_BIAS_COLUMN) want += biast;
      double e = fabs(got - want) / (scale + 1e-30);
      if (!(e <= worst)) worst = e; /* NaN-safe */
    }
  }
#undef IDX
  free(t);
  free(bt);
  if (!(worst <= tol)) {
    snprintf(why, why_cap, "projection error %.3g > %.3g", worst, tol);
    return 0;
  }
  return 1;
}

static int run_case(clforge_context ctx, const gcase *c) {
  char name[512], why[512] = "";
  describe(c, name, sizeof name);
  size_t ar, ac, br, bc, cr, cc;
  stored_shape(c->layout, c->ta, c->m, c->k, &ar, &ac);
  stored_shape(c->layout, c->tb, c->k, c->n, &br, &bc);
  stored_shape(c->layout, 0, c->m, c->n, &cr, &cc);
  size_t batch = c->batch ? c->batch : 1;
  clforge_gemm_desc d = {.layout = c->layout, .trans_a = c->ta ? CLFORGE_TRANS : CLFORGE_NO_TRANS,
                         .trans_b = c->tb ? CLFORGE_TRANS : CLFORGE_NO_TRANS, .m = c->m, .n = c->n, .k = c->k,
                         .alpha = c->alpha, .beta = c->beta, .a_type = c->at, .b_type = c->bt, .c_type = c->ct,
                         .lda = ac + c->pad_a, .ldb = bc + c->pad_b, .ldc = cc + c->pad_c, .a_offset = c->off_a,
                         .b_offset = c->off_b, .c_offset = c->off_c + GUARD, .batch = c->batch,
                         .bias_mode = c->bias, .bias_type = c->bias_t, .bias_offset = 3, .activation = c->act,
                         .alpha_mode = CLFORGE_ALPHA_AS_GIVEN}; /* alpha from the table, 0 included */
  if (c->alpha_left_out) d.alpha = 0.0f, d.alpha_mode = CLFORGE_ALPHA_DEFAULT_ONE;
  size_t a_item = ar ? (ar - 1) * d.lda + ac : 0, b_item = br ? (br - 1) * d.ldb + bc : 0;
  size_t c_item = cr ? (cr - 1) * d.ldc + cc : 0;
  d.stride_a = c->broadcast == 1 ? 0 : a_item + 5;
  d.stride_b = c->broadcast == 2 ? 0 : b_item + 2;
  d.stride_c = c_item + 4;
  size_t na = d.a_offset + (batch - 1) * d.stride_a + a_item + 1, nb = d.b_offset + (batch - 1) * d.stride_b + b_item + 1;
  size_t nc = d.c_offset + (batch - 1) * d.stride_c + c_item + GUARD;
  size_t nbias = 3 + (c->bias == CLFORGE_BIAS_ROW ? c->m : c->n);
  size_t sa = clforge_dtype_size(c->at), sb = clforge_dtype_size(c->bt), sc = clforge_dtype_size(c->ct),
         sbias = clforge_dtype_size(c->bias_t ? c->bias_t : CLFORGE_F32);
  void *A = malloc(na * sa), *B = malloc(nb * sb), *C0 = malloc(nc * sc), *C = malloc(nc * sc), *W = malloc(nc * sc),
       *bias = malloc(nbias * sbias);
  fill(A, c->at, na, 1.0f);
  fill(B, c->bt, nb, 1.0f);
  fill(C0, c->ct, nc, 1.0f);
  fill(bias, c->bias_t ? c->bias_t : CLFORGE_F32, nbias, 0.5f);
  if (c->beta == 0.0f) { /* C is not read when beta = 0: NaN there must not leak */
    float nan = NAN;
    for (size_t i = d.c_offset; i < nc - GUARD; ++i) clforge_ref_convert(1, &nan, CLFORGE_F32, (char *)C0 + i * sc, c->ct);
  }
  memcpy(W, C0, nc * sc);
  cl_mem ma = tu_buffer(ctx, na * sa), mb = tu_buffer(ctx, nb * sb), mc = tu_buffer(ctx, nc * sc),
         mbias = tu_buffer(ctx, nbias * sbias);
  tu_write(ctx, ma, 0, na * sa, A);
  tu_write(ctx, mb, 0, nb * sb, B);
  tu_write(ctx, mc, 0, nc * sc, C0);
  tu_write(ctx, mbias, 0, nbias * sbias, bias);
  cl_event ev = NULL;
  clforge_status st = clforge_gemm(ctx, &d, ma, mb, mc, c->bias ? mbias : NULL, 0, NULL, &ev);
  int ok = st == CLFORGE_SUCCESS && ev != NULL;
  if (!ok) snprintf(why, sizeof why, "clforge_gemm: %s", clforge_last_error(ctx));
  if (ev) {
    clWaitForEvents(1, &ev);
    clReleaseEvent(ev);
  }
  tu_read(ctx, mc, 0, nc * sc, C);
  /* Guards: untouched bit for bit, before and after, and between batch items. */
  if (ok && (memcmp(C, C0, d.c_offset * sc) || memcmp((char *)C + (nc - GUARD) * sc, (char *)C0 + (nc - GUARD) * sc, GUARD * sc))) {
    ok = 0;
    snprintf(why, sizeof why, "guard region overwritten");
  }
  if (ok && c->projection) {
    ok = projection_ok(c, &d, A, B, C0, C, bias, why, sizeof why);
  } else if (ok) {
    clforge_gemm_desc r = d; /* the reference is told alpha outright */
    r.alpha = c->alpha, r.alpha_mode = CLFORGE_ALPHA_AS_GIVEN;
    st = clforge_ref_gemm(&r, A, B, W, c->bias ? bias : NULL);
    if (st != CLFORGE_SUCCESS) {
      ok = 0;
      snprintf(why, sizeof why, "reference: %s", clforge_last_error(NULL));
    } else {
      float *g = malloc(nc * 4), *w = malloc(nc * 4);
      clforge_ref_convert(nc, C, c->ct, g, CLFORGE_F32);
      clforge_ref_convert(nc, W, c->ct, w, CLFORGE_F32);
      clforge__error_stats s;
      clforge__compare_f32(nc, g, w, &s);
      clforge__tolerance tol = clforge__tolerance_for(c->ct);
      if (!clforge__within_tolerance(&s, tol)) {
        size_t i = clforge__worst_index(&s, tol);
        ok = 0;
        snprintf(why, sizeof why, "element %zu: got %g want %g; nrmse %.3g, max abs %.3g of %.3g, %zu special", i,
                 (double)g[i], (double)w[i], s.nrmse, s.max_abs, s.max_want, s.special_mismatches);
      }
      free(g);
      free(w);
    }
  }
  CHECK(ok, "%s: %s", name, why);
  clReleaseMemObject(ma);
  clReleaseMemObject(mb);
  clReleaseMemObject(mc);
  clReleaseMemObject(mbias);
  free(A);
  free(B);
  free(C0);
  free(C);
  free(W);
  free(bias);
  return ok;
}

static gcase base(size_t m, size_t n, size_t k) {
  gcase c = {CLFORGE_ROW_MAJOR, 0, 0, m, n, k, CLFORGE_F32, CLFORGE_F32, CLFORGE_F32, 1.0f, 0.0f, 0, 0, 0, 0, 0, 0, 1, 0,
             CLFORGE_BIAS_NONE, CLFORGE_F32, CLFORGE_ACT_NONE, 0, 0};
  return c;
}

static const clforge_dtype dts[3] = {CLFORGE_F32, CLFORGE_F16, CLFORGE_BF16};

/* A kernel build's problem values, in the row-major view the kernels see
 * (src/ops/gemm.c turns a column-major problem into its transpose: A and
 * B, their transposes, m and n, a row and a column bias trade places):
 * storage types, transposes, epilogue. Cases of one key share their
 * programs (with one parameter set; the direct kernel's defaults also
 * differ on either side of n = 64, "narrow"): shapes, layouts, leading
 * dimensions, offsets, batches, alpha and beta are launch arguments, free
 * to vary. */
typedef struct {
  clforge_dtype a, b, c;
  int ta, tb;
  clforge_bias_mode bias;
  clforge_dtype bias_t;
  clforge_activation act;
} gkey;

/* A case of key k on the row-major-view problem m x n x kk (so that its
 * "narrow" side is n's), stated row-major or column-major. */
static gcase keyed(const gkey *key, int col_major, size_t m, size_t n, size_t kk) {
  gcase c = base(col_major ? n : m, col_major ? m : n, kk);
  c.layout = col_major ? CLFORGE_COL_MAJOR : CLFORGE_ROW_MAJOR;
  c.at = col_major ? key->b : key->a, c.bt = col_major ? key->a : key->b, c.ct = key->c;
  c.ta = col_major ? key->tb : key->ta, c.tb = col_major ? key->ta : key->tb;
  c.bias = col_major && key->bias ? (clforge_bias_mode)(3 - key->bias) : key->bias;
  c.bias_t = key->bias_t, c.act = key->act;
  return c;
}

/* The 28 epilogues: no bias with each activation, then a row and a column
 * bias in each type with each activation. */
static void epilogue_of(int e, gkey *k) {
  k->bias = e < 4 ? CLFORGE_BIAS_NONE : (clforge_bias_mode)(1 + (e - 4) / 12);
  k->bias_t = e < 4 ? CLFORGE_F32 : dts[((e - 4) / 4) % 3];
  k->act = (clforge_activation)(e < 4 ? e : (e - 4) % 4);
}

/* Key i of the 28 the tests spread their cases over: dtype mix i (A, B, C;
 * i = 27 repeats f32 x f32 -> f32) with epilogue i (so activation i % 4),
 * transposes (i / 4) % 4 and, on the direct kernel's defaults, narrow when
 * i + i / 4 is odd; so the 27 mixes and the 28 epilogues each run, and each
 * (transposes, narrow) class has keys without a GELU (cheap to compile on
 * the defaults) and keys with one. Key 0 is the plain f32 problem. */
enum { MIX_KEYS = 28 };
static gkey mix_key(int i) {
  const int m = i % 27, t = (i / 4) % 4;
  gkey k = {dts[m / 9], dts[(m / 3) % 3], dts[m % 3], t & 1, t >> 1, CLFORGE_BIAS_NONE, CLFORGE_F32, CLFORGE_ACT_NONE};
  epilogue_of(i, &k);
  return k;
}
static inline int mix_narrow(int i) { return (i + i / 4) % 2; }

/* Groups of cases both GEMM tests run on keys and shapes they give. */

/* The key each (transposes, narrow) class of the row-major view runs on. */
typedef const gkey *(*key_pick)(int ta, int tb, int narrow, void *user);

/* Every layout x transpose of each shape (as the caller states it), with
 * offsets, padded leading dimensions, alpha and beta, on the key pick
 * gives for its row-major view. */
static void run_layouts(clforge_context ctx, const size_t (*shapes)[3], size_t nshapes, key_pick pick, void *user) {
  for (int l = 0; l < 2; ++l)
    for (int t = 0; t < 4; ++t)
      for (size_t s = 0; s < nshapes; ++s) {
        const int ta = l ? t >> 1 : t & 1, tb = l ? t & 1 : t >> 1; /* row-major view */
        const size_t m = l ? shapes[s][1] : shapes[s][0], n = l ? shapes[s][0] : shapes[s][1];
        gcase c = keyed(pick(ta, tb, n < 64, user), l, m, n, shapes[s][2]);
        c.pad_a = 3, c.pad_b = 1, c.pad_c = 2, c.off_a = 5, c.off_b = 1, c.off_c = 7;
        c.alpha = -1.5f, c.beta = 0.75f;
        run_case(ctx, &c);
      }
}

/* alpha/beta corners on an m x n x k product of key plain, and with k = 0
 * (C = act(beta C + bias)) on m0 x n0 of key epi (which has a bias). An
 * infinite alpha with k = 0, or alpha = 0 with Inf/NaN in A, must not reach
 * C. Shapes in the row-major view. */
static void run_alpha_beta_corners(clforge_context ctx, const gkey *plain, size_t m, size_t n, size_t k, const gkey *epi,
                                   size_t m0, size_t n0) {
  gcase c = keyed(plain, 0, 17, 19, 0);
  c.alpha = INFINITY, c.beta = 1.0f;
  run_case(ctx, &c);
  const float ab[][2] = {{0, 0}, {0, 1}, {1, 1}, {0, -2}, {3, 0}};
  for (size_t i = 0; i < sizeof ab / sizeof ab[0]; ++i) {
    c = keyed(plain, 0, m, n, k);
    c.alpha = ab[i][0], c.beta = ab[i][1];
    run_case(ctx, &c);
    c = keyed(epi, 0, m0, n0, 0);
    c.alpha = ab[i][0], c.beta = ab[i][1];
    run_case(ctx, &c);
  }
}

/* Batches: plain, broadcast A, broadcast B; 3 items of m x n x k (row-major
 * view) of key big, beta 1, and 5 small column-major items of key small
 * (row-major view 10 x 9 x 11). */
static void run_batches(clforge_context ctx, const gkey *big, size_t m, size_t n, size_t k, const gkey *small) {
  for (int bc = 0; bc < 3; ++bc) {
    gcase c = keyed(big, 0, m, n, k);
    c.batch = 3, c.broadcast = bc, c.beta = 1.0f;
    run_case(ctx, &c);
    c = keyed(small, 1, 10, 9, 11);
    c.batch = 5, c.broadcast = bc;
    run_case(ctx, &c);
  }
}

#endif
