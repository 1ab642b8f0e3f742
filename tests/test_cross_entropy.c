/* clforge_cross_entropy against clforge_ref_cross_entropy, and the
 * reference against closed forms (two classes; PyTorch's label smoothing
 * written out) and central differences of its own loss. Device cases: row
 * lengths 1 .. 32000 off every vector width, every storage type of logits
 * and dlogits, MEAN / SUM / NONE, label smoothing, ignored rows (negative
 * targets and an ignore index), a target past n (NaN row), every row
 * ignored (MEAN's NaN), a gradient scale from a device buffer and from the
 * descriptor, loss only and in place, strided rows with guards around and
 * between dlogits' rows (unchanged), the same bits on a second run, no
 * rows, a sample of the parameter space covering every value, validation
 * mode, explain and the tuner's op. --small: tiny cases only (Oclgrind). */
#include <math.h>

#include "../src/core/context.h"
#include "../src/desc/cross_entropy_desc.h"
#include "../src/families/cross_entropy.h"
#include "../src/families/families.h"
#include "../src/ref/compare.h"
#include "../src/tuning/tune_op.h"
#include "oclgrind_keep.h"
#include "param_cover.h"
#include "test_util.h"

enum { GUARD = 11 };

static unsigned seed = 99;
static double frand(void) { return (double)(tu_rand(&seed) % 20001) / 10000.0 - 1.0; }

/* ------------------------------------------------- the reference itself */

static void closed_forms(void) {
  /* two classes: loss = log(1 + exp(z_o - z_t)), dlogits = p - onehot */
  for (int i = 0; i < 10; ++i) {
    const float z[2] = {(float)(4 * frand()), (float)(4 * frand())};
    const int32_t t = i % 2;
    float loss, dz[2];
    clforge_cross_entropy_desc d = {.rows = 1, .n = 2};
    CHECK_OK(NULL, clforge_ref_cross_entropy(&d, z, &t, &loss, dz, NULL));
    const double want = log1p(exp((double)z[1 - t] - z[t])), p0 = 1 / (1 + exp((double)z[1] - z[0]));
    CHECK(fabs(loss - want) < 1e-6 * (1 + want), "two classes: loss %g, want %g", (double)loss, want);
    CHECK(fabs(dz[0] - (p0 - (t == 0))) < 1e-6 && fabs(dz[0] + dz[1]) < 1e-6, "two classes: dlogits %g %g",
          (double)dz[0], (double)dz[1]);
  }
  /* label smoothing as PyTorch writes it: (1 - e) * nll + e * mean_j(-log p_j) */
  enum { R = 4, N = 7 };
  float z[R * N], loss[R];
  int32_t t[R] = {3, -100, 6, 0};
  for (int i = 0; i < R * N; ++i) z[i] = (float)(3 * frand());
  clforge_cross_entropy_desc d = {.rows = R, .n = N, .label_smoothing = 0.2f, .reduction = CLFORGE_REDUCTION_NONE};
  CHECK_OK(NULL, clforge_ref_cross_entropy(&d, z, t, loss, NULL, NULL));
  for (int r = 0; r < R; ++r) {
    double m = -INFINITY, s = 0, mean_nlp = 0;
    for (int j = 0; j < N; ++j) m = fmax(m, z[r * N + j]);
    for (int j = 0; j < N; ++j) s += exp(z[r * N + j] - m);
    const double lse = m + log(s);
    for (int j = 0; j < N; ++j) mean_nlp += (lse - z[r * N + j]) / N;
    const double want = t[r] < 0 ? 0 : 0.8 * (lse - z[r * N + t[r]]) + 0.2 * mean_nlp;
    CHECK(fabs(loss[r] - want) < 1e-6 * (1 + want), "smoothing row %d: %g, want %g", r, (double)loss[r], want);
  }
  /* MEAN is SUM / (rows that count), in the loss and in dlogits */
  float dsum[R * N], dmean[R * N], lsum, lmean;
  d.reduction = CLFORGE_REDUCTION_SUM;
  CHECK_OK(NULL, clforge_ref_cross_entropy(&d, z, t, &lsum, dsum, NULL));
  d.reduction = CLFORGE_REDUCTION_MEAN;
  CHECK_OK(NULL, clforge_ref_cross_entropy(&d, z, t, &lmean, dmean, NULL));
  int ok = fabs(lmean - lsum / 3) < 1e-6 * (1 + fabs(lsum));
  for (int i = 0; i < R * N; ++i) ok &= fabs(dmean[i] - dsum[i] / 3) < 1e-7;
  CHECK(ok, "MEAN against SUM / 3: %g vs %g", (double)lmean, (double)lsum / 3);
}

/* dlogits (SUM, scale 1) against central differences of the loss, with
 * smoothing, an ignored row and the ignore index. */
static void finite_differences(void) {
  enum { R = 3, N = 6 };
  float z[R * N], dz[R * N];
  const int32_t t[R] = {2, 7, 5};
  for (int i = 0; i < R * N; ++i) z[i] = (float)(2 * frand());
  for (int s = 0; s < 2; ++s) {
    clforge_cross_entropy_desc d = {.rows = R, .n = N, .reduction = CLFORGE_REDUCTION_SUM,
                                    .label_smoothing = s ? 0.3f : 0.0f, .use_ignore_index = 1, .ignore_index = 7};
    CHECK_OK(NULL, clforge_ref_cross_entropy(&d, z, t, NULL, dz, NULL));
    double worst = 0;
    const float h = 1e-2f;
    for (int i = 0; i < R * N; ++i) {
      float l[2];
      for (int side = 0; side < 2; ++side) {
        const float keep = z[i];
        z[i] = keep + (side ? -h : h);
        CHECK_OK(NULL, clforge_ref_cross_entropy(&d, z, t, &l[side], NULL, NULL));
        z[i] = keep;
      }
      const double fd = ((double)l[0] - l[1]) / (2.0 * h), err = fabs(fd - dz[i]) / (1e-2 + fabs(fd));
      if (err > worst) worst = err;
    }
    CHECK(worst < 3e-3, "smoothing %d: dlogits against central differences: worst relative error %g", s, worst);
  }
}

/* --------------------------------------------------------- device cases */

typedef struct {
  clforge_dtype zt, dt;
  clforge_reduction red;
  int dz; /* dlogits written */
} ckey;
/* The first two are the tuner's problems; each key is a program per
 * parameter set. */
static const ckey keys[] = {{CLFORGE_F32, CLFORGE_F32, CLFORGE_REDUCTION_MEAN, 1},
                            {CLFORGE_BF16, CLFORGE_BF16, CLFORGE_REDUCTION_MEAN, 1},
                            {CLFORGE_F16, CLFORGE_F32, CLFORGE_REDUCTION_SUM, 1},
                            {CLFORGE_F32, CLFORGE_BF16, CLFORGE_REDUCTION_NONE, 1},
                            {CLFORGE_F32, CLFORGE_F16, CLFORGE_REDUCTION_MEAN, 0}};
enum { NKEYS = sizeof keys / sizeof keys[0] };

typedef struct {
  ckey k;
  size_t rows, n;
  float smoothing, gscale;
  int gbuf;        /* the scale from a device buffer */
  int ignore;      /* use_ignore_index, with ignore_index 1 */
  int bad;         /* a target past n in row 1 */
  int all_ignored; /* every target negative */
  int in_place;
  size_t zgap, dgap, zo, dzo, to, lo;
} ccase;

static void describe(const ccase *c, char *buf, size_t cap) {
  snprintf(buf, cap, "%zux%zu logits %s dlogits %s%s red %d smooth %g g %g%s ignore %d bad %d all_ignored %d "
           "in_place %d gaps %zu,%zu off %zu,%zu,%zu,%zu",
           c->rows, c->n, clforge_dtype_name(c->k.zt), clforge_dtype_name(c->k.dt), c->k.dz ? "" : " (not written)",
           (int)c->k.red, (double)c->smoothing, (double)c->gscale, c->gbuf ? " (buffer)" : "", c->ignore, c->bad,
           c->all_ignored, c->in_place, c->zgap, c->dgap, c->zo, c->dzo, c->to, c->lo);
}

static clforge_cross_entropy_desc make_desc(const ccase *c) {
  clforge_cross_entropy_desc d = {.rows = c->rows, .n = c->n, .logits_type = c->k.zt, .dlogits_type = c->k.dt,
                                  .logits_offset = c->zo, .logits_stride = c->zgap ? c->n + c->zgap : 0,
                                  .dlogits_offset = c->dzo + GUARD, .dlogits_stride = c->dgap ? c->n + c->dgap : 0,
                                  .targets_offset = c->to, .loss_offset = c->lo,
                                  /* the scale of a clforge_train_state at byte 16: state_offset / 4 */
                                  .grad_scale_offset = c->gbuf ? 16 / 4 : 0,
                                  .reduction = c->k.red, .label_smoothing = c->smoothing,
                                  .grad_scale = c->gbuf ? 0.0f : c->gscale, .use_ignore_index = c->ignore,
                                  .ignore_index = 1};
  if (c->in_place)
    d.logits_offset = d.dlogits_offset, d.logits_stride = d.dlogits_stride, d.logits_type = d.dlogits_type;
  return d;
}

static int compare_out(const char *label, const char *what, clforge_dtype t, size_t n, const void *got,
                       const void *want, size_t first, size_t count, size_t stride, size_t width) {
  const size_t es = clforge_dtype_size(t);
  size_t bad_guard = 0;
  for (size_t i = 0; i < n; ++i) {
    const int in = i >= first && (i - first) / stride < count && (i - first) % stride < width;
    if (!in && memcmp((const char *)got + i * es, (const char *)want + i * es, es)) ++bad_guard;
  }
  CHECK(!bad_guard, "%s: %zu elements of %s's buffer outside its values changed", label, bad_guard, what);
  float *g = malloc(n * sizeof *g), *w = malloc(n * sizeof *w);
  clforge_ref_convert(n, got, t, g, CLFORGE_F32);
  clforge_ref_convert(n, want, t, w, CLFORGE_F32);
  clforge__error_stats es_;
  clforge__compare_f32(n, g, w, &es_);
  const clforge__tolerance tol = clforge__tolerance_for(t);
  const int within = clforge__within_tolerance(&es_, tol);
  if (!within) {
    const size_t wi = clforge__worst_index(&es_, tol);
    CHECK(0, "%s: %s[%zu] = %g, want %g (nrmse %g, max_abs %g of %g, %zu special)", label, what, wi, (double)g[wi],
          (double)w[wi], es_.nrmse, es_.max_abs, es_.max_want, es_.special_mismatches);
  } else {
    CHECK(1, "ok");
  }
  free(g), free(w);
  return within && !bad_guard;
}

/* Run c (twice, when its loss is reduced: the same bits); 1 when loss and
 * dlogits match the reference and nothing else in their buffers changed. */
static int run_case(clforge_context ctx, const ccase *c) {
  char label[400];
  describe(c, label, sizeof label);
  clforge_cross_entropy_desc desc = make_desc(c);
  clforge__ce d;
  if (clforge__ce_resolve(NULL, &desc, &d) != CLFORGE_SUCCESS) {
    CHECK(0, "%s: does not resolve: %s", label, clforge_last_error(NULL));
    return 0;
  }
  const size_t zs = clforge_dtype_size(d.logits.type), ds = clforge_dtype_size(d.dlogits.type);
  const size_t dtotal = d.dlogits.extent + GUARD, ztotal = c->in_place ? dtotal : d.logits.extent;
  const size_t ltotal = d.loss_extent + 2, ttotal = d.targets_offset + d.rows;
  float *zf = malloc(ztotal * sizeof *zf), *df = malloc(dtotal * sizeof *df);
  for (size_t i = 0; i < ztotal; ++i) zf[i] = c->in_place ? 555.0f : NAN;
  for (size_t i = 0; i < dtotal; ++i) df[i] = 555.0f;
  for (size_t r = 0; r < d.rows; ++r)
    for (size_t j = 0; j < d.n; ++j) zf[d.logits.offset + r * d.logits.stride + j] = (float)(6 * frand());
  int32_t *t = malloc(ttotal * sizeof *t);
  for (size_t i = 0; i < ttotal; ++i) t[i] = 12345;
  for (size_t r = 0; r < d.rows; ++r) {
    int32_t v = (int32_t)(tu_rand(&seed) % d.n);
    if (r % 7 == 3) v = -100;
    if (c->ignore && r % 5 == 2) v = 1;
    if (c->bad && r == 1) v = (int32_t)d.n + 3;
    if (c->all_ignored) v = -1 - (int32_t)r;
    t[d.targets_offset + r] = v;
  }
  float lossf[64];
  clforge_train_state gs[2] = {{NAN, 0, 0, 0}, {c->gscale, 0, 0, 7}}; /* the optimizer's state, second of two */
  for (size_t i = 0; i < ltotal && i < 64; ++i) lossf[i] = 777.0f;
  void *hz = malloc(ztotal * zs), *hd = malloc(dtotal * ds);
  clforge_ref_convert(ztotal, zf, CLFORGE_F32, hz, d.logits.type);
  clforge_ref_convert(dtotal, df, CLFORGE_F32, hd, d.dlogits.type);
  if (c->in_place) memcpy(hd, hz, dtotal * ds);
  float *big_loss = ltotal > 64 ? malloc(ltotal * sizeof *big_loss) : lossf;
  if (big_loss != lossf)
    for (size_t i = 0; i < ltotal; ++i) big_loss[i] = 777.0f;

  cl_mem bz = tu_buffer(ctx, ztotal * zs), bt = tu_buffer(ctx, ttotal * 4), bl = tu_buffer(ctx, ltotal * 4);
  cl_mem bd = c->in_place ? bz : c->k.dz ? tu_buffer(ctx, dtotal * ds) : NULL;
  cl_mem bg = c->gbuf ? tu_buffer(ctx, sizeof gs) : NULL;
  tu_write(ctx, bz, 0, ztotal * zs, c->in_place ? hd : hz);
  tu_write(ctx, bt, 0, ttotal * 4, t);
  tu_write(ctx, bl, 0, ltotal * 4, big_loss);
  if (bd && !c->in_place) tu_write(ctx, bd, 0, dtotal * ds, hd);
  if (bg) tu_write(ctx, bg, 0, sizeof gs, gs);

  int ok = 0;
  clforge_status st = clforge_cross_entropy(ctx, &desc, bz, bt, bl, bd, bg, 0, NULL, NULL);
  if (st != CLFORGE_SUCCESS) {
    CHECK(0, "%s: %s: %s", label, clforge_status_name(st), clforge_last_error(ctx));
  } else {
    float *wl = malloc(ltotal * sizeof *wl), *gl = malloc(ltotal * sizeof *gl);
    void *wd = malloc(dtotal * ds), *gd = malloc(dtotal * ds);
    memcpy(wl, big_loss, ltotal * sizeof *wl);
    memcpy(wd, hd, dtotal * ds);
    CHECK_OK(NULL, clforge_ref_cross_entropy(&desc, c->in_place ? hd : hz, t, wl, bd ? wd : NULL,
                                             bg ? &gs[0].scale : NULL));
    tu_read(ctx, bl, 0, ltotal * 4, gl);
    const size_t nl = d.loss_extent - d.loss_offset;
    ok = compare_out(label, "loss", CLFORGE_F32, ltotal, gl, wl, d.loss_offset, 1, nl, nl);
    if (bd) {
      tu_read(ctx, bd, 0, dtotal * ds, gd);
      ok &= compare_out(label, "dlogits", d.dlogits.type, dtotal, gd, wd, d.dlogits.offset, d.rows, d.dlogits.stride,
                        d.n);
    }
    if (ok && c->k.red != CLFORGE_REDUCTION_NONE && !c->in_place) { /* a second run: the same bits */
      float again = 0;
      CHECK_OK(ctx, clforge_cross_entropy(ctx, &desc, bz, bt, bl, bd, bg, 0, NULL, NULL));
      tu_read(ctx, bl, d.loss_offset * 4, 4, &again);
      CHECK(!memcmp(&again, &gl[d.loss_offset], 4) || (isnan(again) && isnan(gl[d.loss_offset])),
            "%s: a second run's loss %.9g differs from the first's %.9g", label, (double)again,
            (double)gl[d.loss_offset]);
    }
    free(wl), free(gl), free(wd), free(gd);
  }
  clReleaseMemObject(bz), clReleaseMemObject(bt), clReleaseMemObject(bl);
  if (bd && bd != bz) clReleaseMemObject(bd);
  if (bg) clReleaseMemObject(bg);
  if (big_loss != lossf) free(big_loss);
  free(zf), free(df), free(t), free(hz), free(hd);
  return ok;
}

static ccase configure(size_t rows, size_t n, size_t i, const ckey *k) {
  ccase c = {.k = *k, .rows = rows, .n = n};
  c.smoothing = i % 3 == 1 ? 0.1f : 0.0f;
  c.gscale = i % 4 == 2 ? 1024.0f : i % 4 == 3 ? 0.5f : 0.0f;
  c.gbuf = i % 5 == 1;
  if (c.gbuf && c.gscale == 0.0f) c.gscale = 65536.0f;
  c.ignore = i % 2;
  c.zgap = i % 3 == 2 ? 3 : 0, c.dgap = i % 4 == 1 ? 5 : 0;
  c.zo = i % 4, c.dzo = i % 3, c.to = i % 5, c.lo = i % 2;
  c.in_place = k->dz && k->zt == k->dt && i % 7 == 4;
  return c;
}

/* every value of every parameter, the CPU defaults first */
static size_t param_sets(const clforge_device_info *dev, param_set *sets, size_t cap) {
  int req[CE_NPARAMS];
  const int *def = clforge__family_cross_entropy.defaults[CLFORGE_DEVICE_CLASS_CPU];
  for (int p = 0; p < CE_NPARAMS; ++p) req[p] = def[p];
  return cover_sample(&clforge__family_cross_entropy, dev, 31, req, 1, 1, sets, cap);
}

int main(int argc, char **argv) {
  const int small = argc > 1 && !strcmp(argv[1], "--small");
  closed_forms();
  finite_differences();
  clforge_context ctx = tu_context();
  /* Oclgrind: the scratch sized once (a reallocated one reads as
   * uninitialized there, tests/oclgrind_keep.h) */
  if (small) keep_start_sized(ctx, (size_t)64 << 10);

  /* row lengths off every width, each key in turn */
  const size_t lens[] = {1, 3, 10, 17, 100, 1000, 4097, 32000};
  const size_t small_lens[] = {1, 5, 37};
  const size_t nl = small ? sizeof small_lens / sizeof small_lens[0] : sizeof lens / sizeof lens[0];
  size_t rot = 0;
  for (size_t i = 0; i < nl; ++i)
    for (int k = 0; k < (small ? 2 : NKEYS); ++k, ++rot) {
      const size_t n = small ? small_lens[i] : lens[i];
      ccase c = configure(n >= 4097 ? 3 : small ? 9 : 40, n, rot, &keys[(rot + i) % NKEYS]);
      run_case(ctx, &c);
    }
  /* a target past n (NaN row), every row ignored (MEAN: NaN, zero
   * gradient), both on each reduction */
  for (int k = 0; k < 4; ++k) {
    ccase c = configure(9, small ? 13 : 130, 0, &keys[k]);
    c.bad = 1;
    run_case(ctx, &c);
    c.bad = 0, c.all_ignored = 1;
    run_case(ctx, &c);
  }

  /* the parameter sets, on the f32 MEAN and the f16 -> f32 SUM keys */
  clforge_device_info dev;
  CHECK_OK(ctx, clforge_context_device_info(ctx, &dev));
  param_set sets[16];
  const size_t nsets = param_sets(&dev, sets, 16);
  CHECK(nsets >= 9 && cover_complete(&clforge__family_cross_entropy, &dev, sets, nsets),
        "cross_entropy: %zu parameter sets, not every value", nsets);
  for (size_t j = 0; j < nsets; ++j) {
    char spec[160] = "";
    cover_spec(&clforge__family_cross_entropy, &sets[j], spec, sizeof spec);
    CHECK_OK(ctx, clforge_context_set_params(ctx, spec));
    const size_t vw = (size_t)sets[j].v[CE_VW];
    const size_t shapes[3][2] = {{5, vw > 1 ? vw - 1 : 1}, {7, vw * 3 + 1}, {small ? 20 : 70, small ? 40 : 1000}};
    for (size_t i = 0; i < (small ? 2 : 3); ++i) {
      ccase c = configure(shapes[i][0], shapes[i][1], j * 3 + i, &keys[j % 2 ? 2 : 0]);
      if (!run_case(ctx, &c)) fprintf(stderr, "  with params %s\n", spec);
    }
    clforge_context_set_params(ctx, NULL);
  }
  printf("cross_entropy: %zu parameter sets run\n", nsets);
  /* many rows: several per work-item (the last item's partly past the
   * end), one item and several per row, in place */
  for (int k = 0; k < 2; ++k) {
    CHECK_OK(ctx, clforge_context_set_params(ctx, k ? "cross_entropy:WG=4,RPW=2,RPI=8" : "cross_entropy:RPI=32"));
    ccase c = configure(small ? 67 : 999 - 300 * (size_t)k, small ? 13 : 13 + 27 * (size_t)k, 4 + (size_t)k, &keys[k]);
    c.in_place = k == 1 && keys[k].zt == keys[k].dt;
    if (!run_case(ctx, &c)) fprintf(stderr, "  with many rows, case %d\n", k);
    clforge_context_set_params(ctx, NULL);
  }

  /* no rows: MEAN writes NaN, SUM 0, NONE nothing; no logits needed */
  {
    cl_mem bl = tu_buffer(ctx, 8);
    const float init[2] = {5.0f, 5.0f};
    for (int red = 0; red < 3; ++red) {
      tu_write(ctx, bl, 0, 8, init);
      clforge_cross_entropy_desc desc = {.rows = 0, .n = 10, .reduction = (clforge_reduction)red, .loss_offset = 1};
      cl_event ev = NULL;
      CHECK_OK(ctx, clforge_cross_entropy(ctx, &desc, NULL, NULL, bl, NULL, NULL, 0, NULL, &ev));
      CHECK(ev != NULL && clWaitForEvents(1, &ev) == CL_SUCCESS, "no rows: no event");
      if (ev) clReleaseEvent(ev);
      float got[2];
      tu_read(ctx, bl, 0, 8, got);
      const int want_ok = red == 0 ? isnan(got[1]) : red == 1 ? got[1] == 0.0f : got[1] == 5.0f;
      CHECK(want_ok && got[0] == 5.0f, "no rows, reduction %d: loss %g (before it %g)", red, (double)got[1],
            (double)got[0]);
    }
    clReleaseMemObject(bl);
  }

  /* explain */
  {
    clforge_cross_entropy_desc desc = {.rows = 64, .n = 32000, .logits_type = CLFORGE_BF16,
                                       .dlogits_type = CLFORGE_BF16};
    clforge_kernel_choice kc;
    CHECK_OK(ctx, clforge_cross_entropy_explain(ctx, &desc, &kc));
    CHECK(!strcmp(kc.family, "cross_entropy") && !strcmp(kc.dtypes, "bf16,bf16") &&
              !strcmp(kc.shape_class, "vocab_32000") && kc.nparams == CE_NPARAMS,
          "explain: %s %s %s %d", kc.family, kc.dtypes, kc.shape_class, kc.nparams);
  }

  /* validation mode: correct results pass, a corrupted one is caught */
  {
    CHECK_OK(ctx, clforge_context_set_validation(ctx, 1));
    ccase c = configure(6, small ? 21 : 300, 1, &keys[0]);
    c.dgap = 2;
    run_case(ctx, &c);
    c = configure(6, small ? 21 : 300, 2, &keys[4]); /* loss only */
    run_case(ctx, &c);
    clforge_cross_entropy_desc desc = {.rows = 3, .n = 40};
    cl_mem bz = tu_buffer(ctx, 3 * 40 * 4), bt = tu_buffer(ctx, 12), bl = tu_buffer(ctx, 4), bd = tu_buffer(ctx, 480);
    float hz[120];
    for (int i = 0; i < 120; ++i) hz[i] = (float)(i % 9) / 3.0f;
    const int32_t ht[3] = {1, 39, 0};
    tu_write(ctx, bz, 0, sizeof hz, hz), tu_write(ctx, bt, 0, sizeof ht, ht);
    CHECK_OK(ctx, clforge_cross_entropy(ctx, &desc, bz, bt, bl, bd, NULL, 0, NULL, NULL));
    clforge__test_set_fault(ctx, "cross_entropy");
    cl_event ev = NULL;
    CHECK_FAILS(ctx, clforge_cross_entropy(ctx, &desc, bz, bt, bl, bd, NULL, 0, NULL, &ev), CLFORGE_VALIDATION_FAILED,
                "cross_entropy");
    CHECK(ev == NULL, "an event after a failed validation");
    clforge__test_set_fault(ctx, NULL);
    CHECK_OK(ctx, clforge_context_set_validation(ctx, 0));
    clReleaseMemObject(bz), clReleaseMemObject(bt), clReleaseMemObject(bl), clReleaseMemObject(bd);
  }

  /* the tuner's op */
  if (!small) {
    const clforge__tune_op *op = &clforge__tune_cross_entropy;
    const size_t shape[2] = {33, 700};
    for (const char *const *dt = op->dtypes; *dt; ++dt) {
      void *state = NULL;
      CHECK_OK(ctx, op->setup(ctx, *dt, "rows", shape, &state));
      if (!state) continue;
      char why[256] = "";
      op->prepare(state);
      CHECK_OK(ctx, op->run(state));
      CHECK_OK(ctx, op->check(state, 0, why, sizeof why));
      CHECK(op->check(state, 1, why, sizeof why) == CLFORGE_VALIDATION_FAILED, "tune %s: corruption passes", *dt);
      op->teardown(state);
    }
    void *state = NULL;
    CHECK_FAILS(ctx, op->setup(ctx, "f32", "rows", shape, &state), CLFORGE_INVALID_ARGUMENT, "dtypes");
  }

  if (small) keep_end(ctx);
  clforge_context_destroy(ctx);
  return tu_summary();
}
