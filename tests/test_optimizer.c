/* clforge_optimizer_step against a float64 reimplementation written here
 * (PyTorch's SGD and AdamW over several steps) and against
 * clforge_ref_optimizer_step; several tensors in one call (of different
 * types, sharing one buffer at different offsets, counts off every
 * work-group size, an empty one); dynamic loss scaling: an inf injected at
 * one step leaves every tensor unchanged bit for bit, halves the scale and
 * does not count the step, and the steps after it apply and grow the scale;
 * every value of every parameter; validation mode; explain; the tuner's op.
 * --small: tiny cases only (Oclgrind). */
#include <math.h>

#include "../src/core/context.h"
#include "../src/families/families.h"
#include "../src/families/optimizer.h"
#include "../src/ref/compare.h"
#include "../src/tuning/tune_op.h"
#include "param_cover.h"
#include "test_util.h"

static unsigned seed = 2024;
static double frand(void) { return (double)(tu_rand(&seed) % 20001) / 10000.0 - 1.0; }

/* A tensor on the device and its float64 twin. */
typedef struct {
  size_t count, off; /* elements; offset into each of its buffers */
  clforge_dtype pt, gt;
  int master;
  cl_mem param, mst, grad, m, v;
  double *w, *mm, *vv; /* float64: weights, moments */
  float *g;            /* this step's gradient (as f32, before storage rounding) */
} tensor;

static void *storage(const float *f, size_t n, clforge_dtype t) {
  void *out = malloc(n * clforge_dtype_size(t) + 1);
  clforge_ref_convert(n, f, CLFORGE_F32, out, t);
  return out;
}

/* n values into elements [off, off + n) of b, the whole buffer written:
 * Oclgrind's uninitialized-value check takes a partial host write as all
 * the buffer holds. */
static void put(clforge_context ctx, cl_mem b, size_t off, const float *f, size_t n, clforge_dtype t) {
  size_t bytes = 0;
  clGetMemObjectInfo(b, CL_MEM_SIZE, sizeof bytes, &bytes, NULL);
  unsigned char *all = malloc(bytes);
  tu_read(ctx, b, 0, bytes, all);
  void *s = storage(f, n, t);
  memcpy(all + off * clforge_dtype_size(t), s, n * clforge_dtype_size(t));
  tu_write(ctx, b, 0, bytes, all);
  free(s), free(all);
}

static void get(clforge_context ctx, cl_mem b, size_t off, float *f, size_t n, clforge_dtype t) {
  void *s = malloc(n * clforge_dtype_size(t) + 1);
  tu_read(ctx, b, off * clforge_dtype_size(t), n * clforge_dtype_size(t), s);
  clforge_ref_convert(n, s, t, f, CLFORGE_F32);
  free(s);
}

static void make(clforge_context ctx, tensor *t, size_t count, size_t off, clforge_dtype pt, clforge_dtype gt,
                 int master, cl_mem shared) {
  memset(t, 0, sizeof *t);
  t->count = count, t->off = off, t->pt = pt, t->gt = gt, t->master = master;
  const size_t total = off + count + 3;
  t->param = shared ? shared : tu_buffer(ctx, total * clforge_dtype_size(pt));
  if (shared) clRetainMemObject(shared);
  t->grad = tu_buffer(ctx, total * clforge_dtype_size(gt));
  t->m = tu_buffer(ctx, total * 4), t->v = tu_buffer(ctx, total * 4);
  if (master) t->mst = tu_buffer(ctx, total * 4);
  t->w = calloc(count + 1, sizeof *t->w), t->mm = calloc(count + 1, sizeof *t->mm);
  t->vv = calloc(count + 1, sizeof *t->vv), t->g = calloc(count + 1, sizeof *t->g);
  float *f = calloc(count + 1, sizeof *f), *zero = calloc(count + 1, sizeof *zero);
  for (size_t i = 0; i < count; ++i) {
    f[i] = (float)frand();
    t->w[i] = f[i]; /* what the device starts from: the master, or f32 params */
  }
  put(ctx, t->param, off, f, count, pt);
  if (master) put(ctx, t->mst, off, f, count, CLFORGE_F32);
  put(ctx, t->m, off, zero, count, CLFORGE_F32);
  put(ctx, t->v, off, zero, count, CLFORGE_F32);
  free(f), free(zero);
}

static void release(tensor *t) {
  cl_mem b[5] = {t->param, t->mst, t->grad, t->m, t->v};
  for (int i = 0; i < 5; ++i)
    if (b[i]) clReleaseMemObject(b[i]);
  free(t->w), free(t->mm), free(t->vv), free(t->g);
}

static clforge_optimizer_tensor as_arg(const tensor *t) {
  clforge_optimizer_tensor a = {.count = t->count, .param = t->param, .master = t->master ? t->mst : NULL,
                                .grad = t->grad, .m = t->m, .v = t->v, .param_offset = t->off,
                                .master_offset = t->off, .grad_offset = t->off, .m_offset = t->off,
                                .v_offset = t->off, .param_type = t->pt, .grad_type = t->gt};
  return a;
}

/* A new gradient (times the loss scale), uploaded; `poison` puts an inf in it. */
static void new_grad(clforge_context ctx, tensor *t, double scale, int poison) {
  float *f = malloc((t->count + 1) * sizeof *f);
  for (size_t i = 0; i < t->count; ++i) {
    f[i] = (float)(frand() * scale);
    clforge_ref_convert(1, &f[i], CLFORGE_F32, &f[i], CLFORGE_F32);
  }
  if (poison && t->count) f[t->count / 2] = INFINITY;
  /* the float64 twin sees the gradient as stored */
  void *s = storage(f, t->count, t->gt);
  clforge_ref_convert(t->count, s, t->gt, t->g, CLFORGE_F32);
  free(s);
  put(ctx, t->grad, t->off, f, t->count, t->gt);
  free(f);
}

/* PyTorch's step in float64 (step number k >= 1, gradients divided by scale). */
static void f64_step(const clforge_optimizer_desc *d, tensor *t, int k, double scale) {
  const double b1 = d->beta1 ? d->beta1 : 0.9, b2 = d->beta2 ? d->beta2 : 0.999, eps = d->eps ? d->eps : 1e-8;
  for (size_t i = 0; i < t->count; ++i) {
    double g = t->g[i] / scale, w = t->w[i];
    if (d->kind == CLFORGE_OPTIMIZER_SGD) {
      if (d->weight_decay) g += d->weight_decay * w;
      if (d->momentum) {
        t->mm[i] = k == 1 ? g : d->momentum * t->mm[i] + (1 - d->dampening) * g;
        g = d->nesterov ? g + d->momentum * t->mm[i] : t->mm[i];
      }
      w -= d->lr * g;
    } else {
      w *= 1 - d->lr * d->weight_decay;
      t->mm[i] = b1 * t->mm[i] + (1 - b1) * g;
      t->vv[i] = b2 * t->vv[i] + (1 - b2) * g * g;
      const double mh = t->mm[i] / (1 - pow(b1, k)), vh = t->vv[i] / (1 - pow(b2, k));
      w -= d->lr * mh / (sqrt(vh) + eps);
    }
    t->w[i] = w;
  }
}

/* The device's params (and master) against the float64 weights. */
static int matches_f64(clforge_context ctx, const tensor *t, const char *what) {
  float *got = malloc((t->count + 1) * sizeof *got), *want = malloc((t->count + 1) * sizeof *want);
  for (size_t i = 0; i < t->count; ++i) want[i] = (float)t->w[i];
  int ok = 1;
  for (int pass = 0; pass < 1 + t->master; ++pass) {
    const clforge_dtype ty = pass ? CLFORGE_F32 : t->pt;
    get(ctx, pass ? t->mst : t->param, t->off, got, t->count, ty);
    clforge__error_stats es;
    clforge__compare_f32(t->count, got, want, &es);
    /* several steps of f32 arithmetic against float64: a little more than one rounding */
    clforge__tolerance tol = clforge__tolerance_for(ty);
    tol.nrmse *= 4, tol.max_abs_scaled *= 4;
    const int within = clforge__within_tolerance(&es, tol);
    CHECK(within, "%s: %s against float64: nrmse %g, max_abs %g of %g", what, pass ? "master" : "param", es.nrmse,
          es.max_abs, es.max_want);
    ok &= within;
  }
  free(got), free(want);
  return ok;
}

static void write_state(clforge_context ctx, cl_mem b, size_t off, clforge_train_state s) {
  tu_write(ctx, b, off, sizeof s, &s);
}

static clforge_train_state read_state(clforge_context ctx, cl_mem b, size_t off) {
  clforge_train_state s;
  tu_read(ctx, b, off, sizeof s, &s);
  return s;
}

/* Several steps of desc over tensors of the given kinds, against float64. */
static void against_f64(clforge_context ctx, const clforge_optimizer_desc *desc, const char *what, int small) {
  enum { NT = 4 };
  tensor t[NT];
  const size_t n0 = small ? 37 : 1000, n1 = small ? 5 : 333;
  cl_mem shared = tu_buffer(ctx, (n0 + n1 + 16) * 4);
  make(ctx, &t[0], n0, 0, CLFORGE_F16, CLFORGE_F16, 1, NULL);
  make(ctx, &t[1], n1, 2, CLFORGE_F32, CLFORGE_F32, 0, shared);        /* f32 params: their own master */
  make(ctx, &t[2], small ? 3 : 17, n1 + 7, CLFORGE_F32, CLFORGE_BF16, 0, shared); /* the same buffer, after it */
  make(ctx, &t[3], 0, 0, CLFORGE_BF16, CLFORGE_F32, 1, NULL);          /* empty */
  clReleaseMemObject(shared);
  cl_mem st = tu_buffer(ctx, 64);
  /* the state at byte 16 of a buffer written whole (Oclgrind loses what a
   * partial host write leaves out) */
  const clforge_train_state whole[4] = {{0, 0, 0, 0}, {1.0f, 0, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, 0}};
  tu_write(ctx, st, 0, sizeof whole, whole);
  clforge_optimizer_desc d = *desc;
  d.state_offset = 16;
  clforge_optimizer_tensor a[NT];
  for (int k = 1; k <= 4; ++k) {
    for (int i = 0; i < NT; ++i) new_grad(ctx, &t[i], 1.0, 0), a[i] = as_arg(&t[i]), f64_step(&d, &t[i], k, 1.0);
    CHECK_OK(ctx, clforge_optimizer_step(ctx, &d, NT, a, st, 0, NULL, NULL));
  }
  for (int i = 0; i < NT; ++i) matches_f64(ctx, &t[i], what);
  const clforge_train_state s = read_state(ctx, st, 16);
  CHECK(s.step == 4 && s.skipped == 0 && s.scale == 1.0f && s.good_steps == 0, "%s: state after 4 steps %d %d %g %d",
        what, s.step, s.skipped, (double)s.scale, s.good_steps);
  for (int i = 0; i < NT; ++i) release(&t[i]);
  clReleaseMemObject(st);
}

/* Dynamic loss scaling: steps 1-2 apply (the scale grows after 2), step 3
 * carries an inf (nothing changes, the scale halves, the step is not
 * counted), step 4 applies as the third step. */
static void loss_scaling(clforge_context ctx, int small) {
  tensor t[2];
  make(ctx, &t[0], small ? 21 : 700, 0, CLFORGE_F16, CLFORGE_F16, 1, NULL);
  make(ctx, &t[1], small ? 9 : 65, 1, CLFORGE_BF16, CLFORGE_BF16, 1, NULL);
  clforge_optimizer_desc d = {.kind = CLFORGE_OPTIMIZER_ADAMW, .lr = 1e-2f, .weight_decay = 0.1f, .loss_scaling = 1,
                              .growth_interval = 2};
  cl_mem st = tu_buffer(ctx, 16);
  double scale = 1024.0;
  write_state(ctx, st, 0, (clforge_train_state){(float)scale, 0, 0, 0});
  clforge_optimizer_tensor a[2] = {as_arg(&t[0]), as_arg(&t[1])};
  int applied = 0;
  for (int k = 1; k <= 4; ++k) {
    const int poison = k == 3;
    for (int i = 0; i < 2; ++i) new_grad(ctx, &t[i], scale, poison && i == 1);
    /* the params before, to see that a skipped step changes nothing */
    const size_t bytes0 = (t[0].count) * 2;
    unsigned char *before = malloc(bytes0 + 1), *after = malloc(bytes0 + 1);
    tu_read(ctx, t[0].param, 0, bytes0, before);
    CHECK_OK(ctx, clforge_optimizer_step(ctx, &d, 2, a, st, 0, NULL, NULL));
    const clforge_train_state s = read_state(ctx, st, 0);
    tu_read(ctx, t[0].param, 0, bytes0, after);
    if (poison) {
      CHECK(s.skipped == 1 && s.step == applied && s.good_steps == 0 && s.scale == (float)(scale / 2),
            "step %d (inf): state %g %d %d %d, want scale %g, step %d, skipped", k, (double)s.scale, s.good_steps,
            s.skipped, s.step, scale / 2, applied);
      CHECK(!memcmp(before, after, bytes0), "step %d (inf): the params changed", k);
      scale /= 2;
    } else {
      ++applied;
      for (int i = 0; i < 2; ++i) f64_step(&d, &t[i], applied, scale);
      const int grow = applied == 2;
      CHECK(s.skipped == 0 && s.step == applied && s.scale == (float)(grow ? scale * 2 : scale),
            "step %d: state %g %d %d %d", k, (double)s.scale, s.good_steps, s.skipped, s.step);
      CHECK(memcmp(before, after, bytes0), "step %d: the params did not change", k);
      if (grow) scale *= 2;
    }
    free(before), free(after);
  }
  matches_f64(ctx, &t[0], "loss scaling f16");
  matches_f64(ctx, &t[1], "loss scaling bf16");
  for (int i = 0; i < 2; ++i) release(&t[i]);
  clReleaseMemObject(st);
}

int main(int argc, char **argv) {
  const int small = argc > 1 && !strcmp(argv[1], "--small");
  clforge_context ctx = tu_context();

  const clforge_optimizer_desc adamw = {.kind = CLFORGE_OPTIMIZER_ADAMW, .lr = 3e-3f, .weight_decay = 0.05f,
                                        .beta1 = 0.8f, .beta2 = 0.99f, .eps = 1e-6f};
  const clforge_optimizer_desc sgd = {.kind = CLFORGE_OPTIMIZER_SGD, .lr = 0.05f, .momentum = 0.9f,
                                      .weight_decay = 1e-3f, .nesterov = 1};
  const clforge_optimizer_desc sgd_damp = {.kind = CLFORGE_OPTIMIZER_SGD, .lr = 0.1f, .momentum = 0.5f,
                                           .dampening = 0.25f};
  const clforge_optimizer_desc plain = {.kind = CLFORGE_OPTIMIZER_SGD, .lr = 0.2f};
  against_f64(ctx, &adamw, "adamw", small);
  against_f64(ctx, &sgd, "sgd nesterov", small);
  if (!small) {
    against_f64(ctx, &sgd_damp, "sgd dampening", small);
    against_f64(ctx, &plain, "sgd", small);
  }
  loss_scaling(ctx, small);

  /* the parameter sets: every value of every parameter, AdamW on f16 */
  clforge_device_info dev;
  CHECK_OK(ctx, clforge_context_device_info(ctx, &dev));
  param_set sets[16];
  const size_t nsets = cover_sample(&clforge__family_optimizer, &dev, 5, NULL, 0, 1, sets, 16);
  CHECK(nsets >= 8 && cover_complete(&clforge__family_optimizer, &dev, sets, nsets), "optimizer: %zu parameter sets",
        nsets);
  for (size_t j = 0; j < (small ? 2 : nsets); ++j) {
    char spec[96] = "";
    cover_spec(&clforge__family_optimizer, &sets[j], spec, sizeof spec);
    CHECK_OK(ctx, clforge_context_set_params(ctx, spec));
    tensor t;
    const size_t per = (size_t)sets[j].v[OPT_WG] * (size_t)sets[j].v[OPT_EPI];
    make(ctx, &t, small ? per + 3 : 3 * per + 5, 1, CLFORGE_F16, CLFORGE_F16, 1, NULL);
    cl_mem st = tu_buffer(ctx, 16);
    write_state(ctx, st, 0, (clforge_train_state){1.0f, 0, 0, 0});
    clforge_optimizer_tensor a = as_arg(&t);
    for (int k = 1; k <= 2; ++k) {
      new_grad(ctx, &t, 1.0, 0);
      f64_step(&adamw, &t, k, 1.0);
      CHECK_OK(ctx, clforge_optimizer_step(ctx, &adamw, 1, &a, st, 0, NULL, NULL));
    }
    if (!matches_f64(ctx, &t, spec)) fprintf(stderr, "  with params %s\n", spec);
    release(&t);
    clReleaseMemObject(st);
    clforge_context_set_params(ctx, NULL);
  }

  /* against the reference, in validation mode (which runs it), and a
   * corrupted result caught */
  {
    CHECK_OK(ctx, clforge_context_set_validation(ctx, 1));
    tensor t[2];
    make(ctx, &t[0], 50, 3, CLFORGE_F16, CLFORGE_F16, 1, NULL);
    make(ctx, &t[1], 20, 0, CLFORGE_F32, CLFORGE_F32, 0, NULL);
    cl_mem st = tu_buffer(ctx, 16);
    write_state(ctx, st, 0, (clforge_train_state){8.0f, 1, 0, 5});
    clforge_optimizer_tensor a[2] = {as_arg(&t[0]), as_arg(&t[1])};
    const clforge_optimizer_desc ls = {.kind = CLFORGE_OPTIMIZER_ADAMW, .lr = 1e-3f, .loss_scaling = 1,
                                       .growth_interval = 2};
    for (int i = 0; i < 2; ++i) new_grad(ctx, &t[i], 8.0, 0);
    CHECK_OK(ctx, clforge_optimizer_step(ctx, &ls, 2, a, st, 0, NULL, NULL));
    new_grad(ctx, &t[0], 16.0, 1); /* the skip, validated too */
    CHECK_OK(ctx, clforge_optimizer_step(ctx, &ls, 2, a, st, 0, NULL, NULL));
    new_grad(ctx, &t[0], 8.0, 0);
    clforge__test_set_fault(ctx, "optimizer_step");
    cl_event ev = NULL;
    CHECK_FAILS(ctx, clforge_optimizer_step(ctx, &ls, 2, a, st, 0, NULL, &ev), CLFORGE_VALIDATION_FAILED,
                "optimizer_step");
    CHECK(ev == NULL, "an event after a failed validation");
    clforge__test_set_fault(ctx, NULL);
    CHECK_OK(ctx, clforge_context_set_validation(ctx, 0));
    for (int i = 0; i < 2; ++i) release(&t[i]);
    clReleaseMemObject(st);
  }

  /* explain */
  {
    clforge_optimizer_tensor one = {.count = 4u << 20, .param_type = CLFORGE_BF16, .grad_type = CLFORGE_BF16};
    clforge_kernel_choice kc;
    CHECK_OK(ctx, clforge_optimizer_explain(ctx, &adamw, &one, &kc));
    CHECK(!strcmp(kc.family, "optimizer") && !strcmp(kc.dtypes, "bf16,bf16") && !strcmp(kc.layout, "adamw") &&
              !strcmp(kc.shape_class, "tensor_4m"),
          "explain: %s %s %s %s", kc.family, kc.dtypes, kc.layout, kc.shape_class);
  }

  /* the tuner's op */
  if (!small) {
    const clforge__tune_op *op = &clforge__tune_optimizer;
    const size_t shape[1] = {5000};
    for (const char *const *l = op->layouts; *l; ++l)
      for (const char *const *dt = op->dtypes; *dt; ++dt) {
        if (strcmp(*dt, "bf16,bf16") && strcmp(*l, "adamw")) continue; /* SGD on one key */
        void *state = NULL;
        CHECK_OK(ctx, op->setup(ctx, *dt, *l, shape, &state));
        if (!state) continue;
        char why[256] = "";
        op->prepare(state);
        CHECK_OK(ctx, op->run(state));
        CHECK_OK(ctx, op->check(state, 0, why, sizeof why));
        CHECK(op->check(state, 1, why, sizeof why) == CLFORGE_VALIDATION_FAILED, "tune %s %s: corruption passes", *dt,
              *l);
        op->teardown(state);
      }
    void *state = NULL;
    CHECK_FAILS(ctx, op->setup(ctx, "f32,f32", "lamb", shape, &state), CLFORGE_INVALID_ARGUMENT, "layout");
  }

  clforge_context_destroy(ctx);
  return tu_summary();
}
