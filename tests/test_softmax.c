/* clforge_softmax against clforge_ref_softmax: row lengths that are not
 * multiples of any vector width (1 .. 10000), rows that are all -inf, hold
 * a NaN or +inf, some -inf entries, large logits; masks (per row, broadcast
 * with stride 0, with -inf entries) in every storage type; scale; softmax
 * and log-softmax; in place; every (x, y) storage pair; strided rows with
 * guard elements between rows and around y (unchanged); every ONLINE / VW
 * combination and a sample of the whole parameter space forced through
 * clforge_context_set_params; the no-op calls and explain.
 * --small: tiny cases only (Oclgrind). */
#include <math.h>

#include "../src/core/context.h"
#include "../src/families/families.h"
#include "../src/families/softmax.h"
#include "../src/ref/compare.h"
#include "../src/desc/softmax_desc.h"
#include "../src/tuning/tune_op.h"
#include "param_cover.h"
#include "test_util.h"

enum { GUARD = 29 }; /* elements before y's offset and after its extent */

/* How a case's rows are filled. */
enum { FILL_RANDOM, FILL_SPECIAL, FILL_LARGE };

typedef struct {
  clforge_softmax_kind kind;
  size_t rows, n;
  clforge_dtype xt, yt, mt; /* 0 = f32 */
  int mask;                 /* 0 none, 1 per row, 2 broadcast (stride 0) */
  int in_place;
  int fill;
  float scale;
  size_t xgap, ygap, mgap;  /* stride = n + gap (0: tight, stride given as 0) */
  size_t xo, yo, mo;
} scase;

static unsigned seed = 777;
static float frand(void) { return (float)(tu_rand(&seed) % 20001) / 10000.0f - 1.0f; }
static const char *dtn(clforge_dtype t) { return clforge_dtype_name(t ? t : CLFORGE_F32); }
static const clforge_dtype dts[3] = {CLFORGE_F32, CLFORGE_F16, CLFORGE_BF16};

static void describe(const scase *c, char *buf, size_t cap) {
  snprintf(buf, cap, "%s %zux%zu x %s y %s mask %d/%s scale %g fill %d in_place %d gaps %zu,%zu,%zu off %zu,%zu,%zu",
           c->kind ? "log_softmax" : "softmax", c->rows, c->n, dtn(c->xt), dtn(c->yt), c->mask, dtn(c->mt),
           (double)c->scale, c->fill, c->in_place, c->xgap, c->ygap, c->mgap, c->xo, c->yo, c->mo);
}

static clforge_softmax_desc make_desc(const scase *c) {
  clforge_softmax_desc d = {.kind = c->kind, .rows = c->rows, .n = c->n, .x_type = c->xt, .y_type = c->yt,
                            .mask_type = c->mt, .x_offset = c->xo, .y_offset = c->yo + GUARD,
                            .mask_offset = c->mo, .x_stride = c->xgap ? c->n + c->xgap : 0,
                            .y_stride = c->ygap ? c->n + c->ygap : 0,
                            .mask_stride = c->mask == 2 ? 0 : c->mgap ? c->n + c->mgap : c->n, .scale = c->scale};
  if (c->in_place) d.x_offset = d.y_offset, d.x_stride = d.y_stride, d.x_type = d.y_type;
  return d;
}

/* Logit j of row r for the case's fill. Special rows rotate: all -inf, a
 * NaN, some -inf entries, a +inf, plain. */
static float logit(const scase *c, size_t r, size_t j) {
  if (c->fill == FILL_LARGE) return (r % 2 ? -1e4f : 1e4f) + 5.0f * frand();
  const float v = 4.0f * frand();
  if (c->fill != FILL_SPECIAL) return v;
  switch (r % 6) {
    case 0: return -INFINITY;
    case 1: return j == (r * 7) % c->n ? NAN : v;
    case 2: return j % 3 == 1 ? -INFINITY : v;
    case 3: return j == c->n / 2 ? INFINITY : v;
    default: return v;
  }
}

/* Run c; 1 when y's rows match the reference and nothing else in y's
 * buffer changed. */
static int run_case(clforge_context ctx, const scase *c) {
  char label[320];
  describe(c, label, sizeof label);
  clforge_softmax_desc desc = make_desc(c);
  clforge__softmax d;
  if (clforge__softmax_resolve(NULL, &desc, c->mask != 0, &d) != CLFORGE_SUCCESS) {
    CHECK(0, "%s: does not resolve: %s", label, clforge_last_error(NULL));
    return 0;
  }
  const size_t xs = clforge_dtype_size(d.x.type), ys = clforge_dtype_size(d.y.type), ms = clforge_dtype_size(d.mask.type);
  /* y's buffer: sentinels around and between the rows. x's: NaN outside
   * its rows (a kernel that reads there is seen). In place, y's buffer is x's. */
  const size_t ytotal = d.y.extent + GUARD, xtotal = c->in_place ? ytotal : d.x.extent;
  float *yf = malloc(ytotal * sizeof *yf), *xf = malloc(xtotal * sizeof *xf);
  for (size_t i = 0; i < ytotal; ++i) yf[i] = 777.0f;
  for (size_t i = 0; i < xtotal; ++i) xf[i] = c->in_place ? 777.0f : NAN;
  for (size_t r = 0; r < d.rows; ++r)
    for (size_t j = 0; j < d.n; ++j) xf[d.x.offset + r * d.x.stride + j] = logit(c, r, j);
  float *mf = NULL;
  size_t mtotal = 0;
  if (c->mask) {
    mtotal = d.mask.extent;
    mf = malloc(mtotal * sizeof *mf);
    for (size_t i = 0; i < mtotal; ++i) mf[i] = NAN;
    const size_t mrows = c->mask == 2 ? 1 : d.rows;
    for (size_t r = 0; r < mrows; ++r)
      for (size_t j = 0; j < d.n; ++j)
        mf[d.mask.offset + r * d.mask.stride + j] = (j * 5 + r) % 11 == 3 ? -INFINITY : 2.0f * frand();
  }
  void *hx = malloc(xtotal * xs), *hy = malloc(ytotal * ys), *hm = c->mask ? malloc(mtotal * ms) : NULL;
  clforge_ref_convert(xtotal, xf, CLFORGE_F32, hx, d.x.type);
  clforge_ref_convert(ytotal, yf, CLFORGE_F32, hy, d.y.type);
  if (c->mask) clforge_ref_convert(mtotal, mf, CLFORGE_F32, hm, d.mask.type);

  cl_mem bx = tu_buffer(ctx, xtotal * xs), by = c->in_place ? bx : tu_buffer(ctx, ytotal * ys);
  cl_mem bm = c->mask ? tu_buffer(ctx, mtotal * ms) : NULL;
  tu_write(ctx, bx, 0, xtotal * xs, hx);
  if (!c->in_place) tu_write(ctx, by, 0, ytotal * ys, hy);
  if (bm) tu_write(ctx, bm, 0, mtotal * ms, hm);

  int ok = 0;
  clforge_status st = clforge_softmax(ctx, &desc, bx, bm, by, 0, NULL, NULL);
  if (st != CLFORGE_SUCCESS) {
    CHECK(0, "%s: %s: %s", label, clforge_status_name(st), clforge_last_error(ctx));
  } else {
    void *ref = c->in_place ? hx : hy, *got = malloc(ytotal * ys);
    tu_read(ctx, by, 0, ytotal * ys, got);
    CHECK_OK(NULL, clforge_ref_softmax(&desc, hx, hm, ref));
    /* elements outside the rows: unchanged, bit for bit */
    size_t bad_guard = 0;
    for (size_t i = 0; i < ytotal; ++i) {
      const int in_row = i >= d.y.offset && i < d.y.extent && (i - d.y.offset) % d.y.stride < d.n;
      if (!in_row && memcmp((char *)got + i * ys, (char *)ref + i * ys, ys)) ++bad_guard;
    }
    CHECK(!bad_guard, "%s: %zu elements outside y's rows changed", label, bad_guard);
    /* the rows, against the reference */
    float *g = malloc(d.rows * d.n * sizeof *g), *w = malloc(d.rows * d.n * sizeof *w);
    for (size_t r = 0; r < d.rows; ++r) {
      clforge_ref_convert(d.n, (char *)got + (d.y.offset + r * d.y.stride) * ys, d.y.type, g + r * d.n, CLFORGE_F32);
      clforge_ref_convert(d.n, (char *)ref + (d.y.offset + r * d.y.stride) * ys, d.y.type, w + r * d.n, CLFORGE_F32);
    }
    clforge__error_stats es;
    clforge__compare_f32(d.rows * d.n, g, w, &es);
    const clforge__tolerance tol = clforge__tolerance_for(d.y.type);
    const int within = clforge__within_tolerance(&es, tol);
    if (!within) {
      const size_t wi = clforge__worst_index(&es, tol);
      CHECK(0, "%s: y[row %zu, %zu] = %g, want %g (nrmse %g, max_abs %g of %g, %zu special)", label, wi / d.n,
            wi % d.n, (double)g[wi], (double)w[wi], es.nrmse, es.max_abs, es.max_want, es.special_mismatches);
    } else {
      CHECK(1, "ok");
    }
    ok = within && !bad_guard;
    free(g), free(w), free(got);
  }
  clReleaseMemObject(bx);
  if (!c->in_place) clReleaseMemObject(by);
  if (bm) clReleaseMemObject(bm);
  free(xf), free(yf), free(mf), free(hx), free(hy), free(hm);
  return ok;
}

/* A kernel build's problem values: storage types, the mask's (0: none)
 * and the kind. Cases of one key share a program (with one parameter set):
 * shapes, strides, offsets, scale, fills, a broadcast mask and in place
 * are launch arguments. The keys hold every (x, y) pair, every mask type
 * and both kinds; f32 -> f32 and f16 -> f16 softmax without a mask are
 * also the tuner's problems. */
typedef struct {
  clforge_dtype xt, yt, mt;
  clforge_softmax_kind kind;
} skey;
#define SM CLFORGE_SOFTMAX
#define LSM CLFORGE_LOG_SOFTMAX
static const skey keys[] = {
    {CLFORGE_F32, CLFORGE_F32, 0, SM},            {CLFORGE_F16, CLFORGE_F16, 0, SM},
    {CLFORGE_BF16, CLFORGE_BF16, CLFORGE_F32, LSM}, {CLFORGE_F32, CLFORGE_F16, CLFORGE_BF16, SM},
    {CLFORGE_F32, CLFORGE_BF16, CLFORGE_F16, LSM}, {CLFORGE_F16, CLFORGE_F32, CLFORGE_F16, SM},
    {CLFORGE_F16, CLFORGE_BF16, 0, LSM},           {CLFORGE_BF16, CLFORGE_F32, CLFORGE_BF16, LSM},
    {CLFORGE_BF16, CLFORGE_F16, CLFORGE_F32, SM},  {CLFORGE_F32, CLFORGE_F32, CLFORGE_F32, LSM},
    {CLFORGE_F16, CLFORGE_F16, CLFORGE_BF16, LSM}};
#undef SM
#undef LSM
enum { NKEYS = sizeof keys / sizeof keys[0] };

/* The first key with these values (-1: any; mask: 0 none, 1 some). */
static const skey *key_with(int xt, int yt, int mask, int kind) {
  for (size_t i = 0; i < NKEYS; ++i)
    if ((xt < 0 || keys[i].xt == (clforge_dtype)xt) && (yt < 0 || keys[i].yt == (clforge_dtype)yt) &&
        (mask < 0 || (keys[i].mt != 0) == mask) && (kind < 0 || keys[i].kind == (clforge_softmax_kind)kind))
      return &keys[i];
  return &keys[0]; /* not reached: the table has every combination asked for */
}

/* The configurations of key k the sweeps rotate through: mask per row or
 * broadcast, scale, fill, strides, offsets, in place (where x and y share
 * a type). */
static scase configure(size_t rows, size_t n, size_t i, const skey *k) {
  scase c = {.rows = rows, .n = n};
  c.kind = k->kind;
  c.xt = k->xt, c.yt = k->yt, c.mt = k->mt ? k->mt : dts[(i / 2) % 3];
  c.mask = k->mt ? 1 + (int)(i % 2) : 0;
  c.fill = i % 4 == 1 ? FILL_SPECIAL : FILL_RANDOM;
  c.scale = i % 5 == 2 ? 0.125f : i % 5 == 4 ? -1.5f : 0.0f;
  c.xgap = i % 4 == 3 ? 5 : 0, c.ygap = i % 3 == 1 ? 3 : 0, c.mgap = i % 2 ? 2 : 0;
  c.xo = i % 3, c.yo = i % 4 == 2 ? 7 : 0, c.mo = i % 5;
  c.in_place = k->xt == k->yt && i % 7 == 3;
  return c;
}

/* The parameter sets: every ONLINE x VW combination, the other values
 * chosen (fixed seed) so that every value of every parameter runs; the
 * two with VW = 16 and otherwise the CPU defaults (ONLINE = 0 is the
 * default itself). */
static size_t param_sets(const clforge_device_info *dev, param_set *sets, size_t cap) {
  int req[10][SOFTMAX_NPARAMS];
  for (int j = 0; j < 10; ++j) {
    for (int p = 0; p < SOFTMAX_NPARAMS; ++p) req[j][p] = -1;
    req[j][SOFTMAX_ONLINE] = j / 5, req[j][SOFTMAX_VW] = 1 << (j % 5);
    if (j % 5 == 4) { /* VW = 16: the CPU defaults */
      const int *def = clforge__family_softmax.defaults[CLFORGE_DEVICE_CLASS_CPU];
      for (int p = 0; p < SOFTMAX_NPARAMS; ++p)
        if (p != SOFTMAX_ONLINE && p != SOFTMAX_RPI) req[j][p] = def[p];
      if (j / 5) req[j][SOFTMAX_STASH] = 0; /* the canonical form: no stash in one pass */
    }
  }
  return cover_sample(&clforge__family_softmax, dev, 2029, &req[0][0], 10, 10, sets, cap);
}

int main(int argc, char **argv) {
  const int small = argc > 1 && !strcmp(argv[1], "--small");
  clforge_context ctx = tu_context();

  /* lengths that are multiples of no vector width, each in a rotating
   * configuration of the keys in turn */
  const size_t lens[] = {1, 2, 3, 7, 15, 16, 17, 63, 100, 129, 1000, 1023, 4097, 10000};
  const size_t small_lens[] = {1, 3, 17, 100};
  const size_t nl = small ? sizeof small_lens / sizeof small_lens[0] : sizeof lens / sizeof lens[0];
  size_t rot = 0;
  for (size_t i = 0; i < nl; ++i)
    for (int k = 0; k < (small ? 2 : 4); ++k, ++rot) {
      const size_t n = small ? small_lens[i] : lens[i];
      scase c = configure(n >= 4097 ? 3 : 7, n, rot, &keys[rot % NKEYS]);
      run_case(ctx, &c);
    }

  /* special rows in each kind without a mask, with one per row and with a
   * broadcast one (f32 where a key has it) */
  for (int kind = 0; kind < 2; ++kind)
    for (int mask = 0; mask < 3; ++mask) {
      const skey *k = key_with(kind && !mask ? CLFORGE_F16 : CLFORGE_F32, -1, mask != 0, kind);
      scase c = configure(12, small ? 19 : 133, 0, k);
      c.fill = FILL_SPECIAL, c.mask = mask, c.scale = mask == 1 ? 0.5f : 0.0f;
      run_case(ctx, &c);
    }
  /* large logits, both kinds, every x type */
  for (int a = 0; a < 3; ++a)
    for (int kind = 0; kind < 2; ++kind) {
      scase c = configure(4, small ? 33 : 777, 0, key_with(dts[a], -1, -1, kind));
      c.fill = FILL_LARGE, c.scale = 0.0f;
      run_case(ctx, &c);
    }
  /* every (x, y) storage pair, strided, with a mask where the key has one */
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b) {
      scase c = configure(6, small ? 23 : 301, 0, key_with(dts[a], dts[b], -1, -1));
      c.mask = c.mask ? 1 + (a + b) % 2 : 0;
      c.scale = 0.7f, c.xgap = 4, c.ygap = 9, c.mgap = 1, c.xo = 3, c.yo = 2, c.mo = 1;
      run_case(ctx, &c);
    }
  /* in place in every storage type, tight and strided, with a broadcast mask */
  for (int a = 0; a < 3; ++a) {
    scase c = configure(8, small ? 41 : 515, 0, key_with(dts[a], dts[a], 1, -1));
    c.mask = 2, c.in_place = 1, c.scale = 0.25f, c.ygap = a ? 6 : 0, c.yo = 4;
    c.xo = 0, c.xgap = 0;
    run_case(ctx, &c);
  }

  /* the parameter sets: every ONLINE x VW combination, every value of every
   * parameter (param_sets), each on a key of its own, lengths around the
   * width and shapes with many rows (several per item) */
  clforge_device_info dev;
  CHECK_OK(ctx, clforge_context_device_info(ctx, &dev));
  param_set sets[16];
  const size_t nsets = param_sets(&dev, sets, 16);
  CHECK(nsets >= 10 && cover_complete(&clforge__family_softmax, &dev, sets, nsets),
        "softmax: %zu parameter sets, not every value", nsets);
  for (size_t j = 0; j < nsets; ++j) {
    char spec[160] = "";
    cover_spec(&clforge__family_softmax, &sets[j], spec, sizeof spec);
    CHECK_OK(ctx, clforge_context_set_params(ctx, spec));
    const skey *k = &keys[j % NKEYS];
    const size_t vw = (size_t)sets[j].v[SOFTMAX_VW];
    const size_t shapes[7][2] = {{5, vw > 1 ? vw - 1 : 1}, {5, vw * 3 + 1}, {5, small ? 50 : 2049}, {5, 37},
                                 {3, 1000}, {150, 17}, {70, 300}};
    for (size_t i = 0; i < (small ? 4 : 7); ++i) {
      scase c = configure(shapes[i][0], shapes[i][1], j * 7 + i, k);
      if (small) c.rows = c.rows > 70 ? 70 : c.rows, c.n = c.n > 100 ? 100 : c.n;
      if (i == 2) c.fill = FILL_SPECIAL;
      if (!run_case(ctx, &c)) fprintf(stderr, "  with params %s\n", spec);
    }
    clforge_context_set_params(ctx, NULL);
  }
  printf("softmax: %zu parameter sets run\n", nsets);

  /* many rows: several rows per work-item (the last item's partly past the
   * end), both statistics forms (one pass: the set with VW = 16 and the
   * defaults, on its key), special rows, in place, masks */
  for (int k = 0; k < (small ? 2 : 8); ++k) {
    char spec[64];
    snprintf(spec, sizeof spec, "softmax:ONLINE=%d,RPI=%d", k % 2, k % 4 < 2 ? 8 : 32);
    CHECK_OK(ctx, clforge_context_set_params(ctx, spec));
    scase c = configure(small ? 67 : 333 + (size_t)k, small ? 19 : 129 + 16 * (size_t)k, (size_t)k * 5 + 1,
                        k % 2 ? &keys[9 % NKEYS] : &keys[(k / 2) % NKEYS]);
    c.fill = k % 3 ? FILL_SPECIAL : FILL_RANDOM;
    if (!run_case(ctx, &c)) fprintf(stderr, "  with params %s\n", spec);
    clforge_context_set_params(ctx, NULL);
  }

  /* rows or n of 0: a no-op (no buffers needed), with a marker event when asked */
  {
    clforge_softmax_desc desc = {.rows = 0, .n = 5};
    cl_event ev = NULL;
    CHECK_OK(ctx, clforge_softmax(ctx, &desc, NULL, NULL, NULL, 0, NULL, &ev));
    CHECK(ev != NULL, "no event for an empty call");
    if (ev) {
      CHECK(clWaitForEvents(1, &ev) == CL_SUCCESS, "marker does not complete");
      clReleaseEvent(ev);
    }
    desc.rows = 3, desc.n = 0;
    CHECK_OK(ctx, clforge_softmax(ctx, &desc, NULL, NULL, NULL, 0, NULL, NULL));
  }
  /* an event for a real call, and explain names the family and the class */
  {
    clforge_softmax_desc desc = {.rows = 2, .n = 2048};
    cl_mem b = tu_buffer(ctx, 2 * 2048 * 4);
    float *h = calloc(2 * 2048, sizeof *h);
    tu_write(ctx, b, 0, 2 * 2048 * 4, h);
    cl_event ev = NULL;
    CHECK_OK(ctx, clforge_softmax(ctx, &desc, b, NULL, b, 0, NULL, &ev));
    CHECK(ev != NULL, "no event");
    if (ev) clWaitForEvents(1, &ev), clReleaseEvent(ev);
    tu_read(ctx, b, 0, 2 * 2048 * 4, h);
    CHECK(fabsf(h[0] - 1.0f / 2048) < 1e-9f && fabsf(h[4095] - 1.0f / 2048) < 1e-9f, "uniform row: %g", (double)h[0]);
    clforge_kernel_choice kc;
    CHECK_OK(ctx, clforge_softmax_explain(ctx, &desc, &kc));
    CHECK(!strcmp(kc.family, "softmax") && kc.nparams == SOFTMAX_NPARAMS, "explain: family %s, %d params", kc.family,
          kc.nparams);
    CHECK(!strcmp(kc.dtypes, "f32,f32") && !strcmp(kc.layout, "rows") && !strcmp(kc.shape_class, "attn_2048"),
          "explain: keys %s / %s / %s", kc.dtypes, kc.layout, kc.shape_class);
    CHECK_OK(ctx, clforge_context_set_params(ctx, "softmax:VW=2,ONLINE=1"));
    CHECK_OK(ctx, clforge_softmax_explain(ctx, &desc, &kc));
    CHECK(kc.source == CLFORGE_PARAMS_FROM_API && kc.values[SOFTMAX_VW] == 2 && kc.values[SOFTMAX_ONLINE] == 1,
          "explain after set_params: source %d VW %d", (int)kc.source, kc.values[SOFTMAX_VW]);
    clforge_context_set_params(ctx, NULL);
    clReleaseMemObject(b);
    free(h);
  }

  /* validation mode: correct results pass (special rows, strided y with
   * gaps, in place), a corrupted one is caught */
  {
    CHECK_OK(ctx, clforge_context_set_validation(ctx, 1));
    scase c = configure(9, small ? 21 : 333, 13, key_with(CLFORGE_BF16, CLFORGE_BF16, 1, -1));
    c.fill = FILL_SPECIAL, c.ygap = 4;
    run_case(ctx, &c);
    c.in_place = 1, c.mask = 2;
    run_case(ctx, &c);
    /* f16 x, bf16 y, log-softmax (a key's program): the narrow output too */
    clforge_softmax_desc desc = {.rows = 3, .n = 50, .x_type = CLFORGE_F16, .y_type = CLFORGE_BF16,
                                 .kind = CLFORGE_LOG_SOFTMAX};
    cl_mem bx = tu_buffer(ctx, 300), by = tu_buffer(ctx, 300);
    float h[150];
    uint16_t h16[150];
    for (int i = 0; i < 150; ++i) h[i] = (float)(i % 17) / 4.0f;
    clforge_ref_convert(150, h, CLFORGE_F32, h16, CLFORGE_F16);
    tu_write(ctx, bx, 0, sizeof h16, h16);
    tu_write(ctx, by, 0, sizeof h16, h16);
    CHECK_OK(ctx, clforge_softmax(ctx, &desc, bx, NULL, by, 0, NULL, NULL));
    clforge__test_set_fault(ctx, "softmax");
    cl_event ev = NULL;
    CHECK_FAILS(ctx, clforge_softmax(ctx, &desc, bx, NULL, by, 0, NULL, &ev), CLFORGE_VALIDATION_FAILED, "softmax");
    CHECK(ev == NULL, "an event after a failed validation");
    clforge__test_set_fault(ctx, NULL);
    CHECK_OK(ctx, clforge_context_set_validation(ctx, 0));
    clReleaseMemObject(bx), clReleaseMemObject(by);
  }

  /* the tuner's op on a small shape of each key: set up, run, check, and
   * a corrupted output is refused. Not under Oclgrind (--small): it reads
   * the two-pass kernel's exps, stored in y and loaded back by the same
   * work-item, as uninitialized in buffers the host never wrote or filled
   * (a false report: the results check out). */
  if (!small) {
    const clforge__tune_op *op = &clforge__tune_softmax;
    const size_t shape[2] = {70, 513};
    for (const char *const *dt = op->dtypes; *dt; ++dt) {
      void *state = NULL;
      CHECK_OK(ctx, op->setup(ctx, *dt, "rows", shape, &state));
      if (!state) continue;
      char why[256] = "";
      op->prepare(state);
      CHECK_OK(ctx, op->run(state));
      CHECK_OK(ctx, op->check(state, 0, why, sizeof why));
      CHECK(op->check(state, 1, why, sizeof why) == CLFORGE_VALIDATION_FAILED, "tune softmax %s: corruption passes", *dt);
      op->teardown(state);
    }
    void *state = NULL;
    CHECK_FAILS(ctx, op->setup(ctx, "f32,f32,f32", "rows", shape, &state), CLFORGE_INVALID_ARGUMENT, "dtypes");
    CHECK_FAILS(ctx, op->setup(ctx, "f32,f32", "nn", shape, &state), CLFORGE_INVALID_ARGUMENT, "layout");
    CHECK(op->flops(shape) == (double)shape[0] * shape[1] * 8.0, "bytes as the op's count");
  }

  clforge_context_destroy(ctx);
  return tu_summary();
}
