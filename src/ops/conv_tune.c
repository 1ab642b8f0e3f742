/* Convolution for the tuner: a shape class's layer with random inputs, the
 * reference at sampled outputs, one run with the candidate (the tuner
 * forces the family, so the op runs that family's algorithm), the check.
 * Every algorithm's family is tuned on the classes it lists; the op then
 * compares the families' measured rates to choose the algorithm (find). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/context.h"
#include "../core/error.h"
#include "../families/conv_classes.h"
#include "../families/families.h"
#include "../ref/compare.h"
#include "../ref/conv.h"
#include "../tuning/tune_op.h"
#include "tune_common.h"
#include "../core/validate.h"
#include "conv_algo.h"

/* Outputs checked against the reference per candidate: spread over the
 * whole of y (every image, channel residue and border), cheap next to a run. */
enum { CHECKED = 1024 };

typedef struct {
  clforge_context ctx;
  clforge_conv2d_desc desc;
  clforge__conv d;
  cl_mem x, w, y;
  size_t at[CHECKED];   /* element index in y of each checked output */
  float want[CHECKED];
} conv_problem;

/* "f32,f32,f32" -> the three types; "nchw,kcrs" / "nhwc,krsc" -> layouts. */
static int parse_key(const char *dtypes, const char *layout, clforge_conv2d_desc *d) {
  clforge_dtype t[3];
  if (clforge__tune_parse_dtypes(dtypes, t)) return -1;
  d->x_type = t[0], d->w_type = t[1], d->y_type = t[2];
  d->compute_type = CLFORGE_COMPUTE_32F; /* strict, whatever the context allows (the tuned families have no half variant) */
  if (!strcmp(layout, "nchw,kcrs")) d->x_layout = d->y_layout = CLFORGE_NCHW, d->w_layout = CLFORGE_KCRS;
  else if (!strcmp(layout, "nhwc,krsc")) d->x_layout = d->y_layout = CLFORGE_NHWC, d->w_layout = CLFORGE_KRSC;
  else return -1;
  return 0;
}

static void shape_desc(const size_t *s, clforge_conv2d_desc *d) {
  d->n = s[CONV_DIM_N], d->c = s[CONV_DIM_C], d->h = d->w = s[CONV_DIM_H], d->k = s[CONV_DIM_K];
  d->r = d->s = s[CONV_DIM_R], d->stride_h = d->stride_w = s[CONV_DIM_STRIDE];
  d->pad_top = d->pad_bottom = d->pad_left = d->pad_right = s[CONV_DIM_PAD];
  d->groups = s[CONV_DIM_GROUPS];
}

static void conv_teardown(void *state) {
  conv_problem *p = state;
  if (!p) return;
  const cl_mem m[] = {p->x, p->w, p->y};
  clforge__tune_release(m, sizeof m / sizeof m[0]);
  free(p);
}

static clforge_status conv_setup(clforge_context ctx, const char *dtypes, const char *layout, const size_t *shape,
                                 void **state) {
  *state = NULL;
  conv_problem *p = calloc(1, sizeof *p);
  if (!p) return clforge__fail(ctx, CLFORGE_OUT_OF_HOST_MEMORY, "tune conv: no memory");
  p->ctx = ctx;
  shape_desc(shape, &p->desc);
  if (parse_key(dtypes, layout, &p->desc)) {
    free(p);
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "tune conv: bad dtypes \"%s\" or layout \"%s\"", dtypes, layout);
  }
  clforge_status st = clforge__conv_resolve(ctx, &p->desc, 0, &p->d);
  if (st != CLFORGE_SUCCESS) {
    free(p);
    return st;
  }
  const clforge__conv *d = &p->d;
  void *hx = clforge__random_storage(d->x.count, d->x.type, 1), *hw = clforge__random_storage(d->filt.count, d->filt.type, 2);
  if (!hx || !hw) st = clforge__fail(ctx, CLFORGE_OUT_OF_HOST_MEMORY, "tune conv: no memory for inputs");
  /* Checked outputs: a stride through y coprime with its axes' sizes, so
   * the sample meets every image, many channels and the borders. */
  const size_t ny = d->y.count, step = ny / CHECKED ? ny / CHECKED : 1;
  for (size_t i = 0; st == CLFORGE_SUCCESS && i < CHECKED; ++i) {
    size_t e = (i * step + (i * 7919u) % step) % ny;
    if (i == CHECKED - 1) e = ny - 1;
    p->at[i] = e;
    /* element e of y in its layout -> (n, k, p, q) */
    size_t idx[4], rest = e;
    const int order_nchw[4] = {0, 1, 2, 3}, order_nhwc[4] = {0, 2, 3, 1};
    const int *ord = d->y_layout == CLFORGE_NHWC ? order_nhwc : order_nchw;
    for (int a = 3; a >= 0; --a) {
      idx[ord[a]] = rest % d->y.dims[ord[a]];
      rest /= d->y.dims[ord[a]];
    }
    float v = (float)clforge__ref_conv2d_at(d, hx, hw, NULL, NULL, idx[0], idx[1], idx[2], idx[3]);
    /* stored as y's type, then widened: what the device's result is compared with */
    unsigned char raw[4];
    clforge_ref_convert(1, &v, CLFORGE_F32, raw, d->y.type);
    clforge_ref_convert(1, raw, d->y.type, &p->want[i], CLFORGE_F32);
  }
  cl_int err = CL_SUCCESS;
  if (st == CLFORGE_SUCCESS) {
    p->x = clCreateBuffer(ctx->cl_ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                          d->x.count * clforge_dtype_size(d->x.type), hx, &err);
    if (err == CL_SUCCESS)
      p->w = clCreateBuffer(ctx->cl_ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                            d->filt.count * clforge_dtype_size(d->filt.type), hw, &err);
    if (err == CL_SUCCESS)
      p->y = clCreateBuffer(ctx->cl_ctx, CL_MEM_READ_WRITE, d->y.count * clforge_dtype_size(d->y.type), NULL, &err);
    if (err != CL_SUCCESS) st = clforge__fail_cl(ctx, err, "tune conv: clCreateBuffer");
  }
  free(hx);
  free(hw);
  return clforge__tune_setup_done(st, p, conv_teardown, state);
}

static clforge_status conv_run(void *state) {
  conv_problem *p = state;
  return clforge_conv2d(p->ctx, &p->desc, p->x, p->w, NULL, p->y, 0, NULL, NULL);
}

static void conv_prepare(void *state) {
  conv_problem *p = state;
  clforge__tune_poison(p->ctx, p->y, p->d.y.count * clforge_dtype_size(p->d.y.type));
}

static clforge_status conv_check(void *state, int corrupt, char *why, size_t why_cap) {
  conv_problem *p = state;
  const size_t ys = clforge_dtype_size(p->d.y.type), ny = p->d.y.count;
  unsigned char *got = malloc(ny * ys);
  float *sample = malloc(CHECKED * sizeof *sample);
  clforge_status st = got && sample ? clforge__read_buffer(p->ctx, p->y, 0, ny * ys, got)
                                    : clforge__fail(p->ctx, CLFORGE_OUT_OF_HOST_MEMORY, "tune conv: no memory to check");
  for (size_t i = 0; st == CLFORGE_SUCCESS && i < CHECKED; ++i)
    clforge_ref_convert(1, got + p->at[i] * ys, p->d.y.type, &sample[i], CLFORGE_F32);
  if (st == CLFORGE_SUCCESS && corrupt) sample[0] = 12345.0f; /* tests only */
  if (st == CLFORGE_SUCCESS)
    st = clforge__validate(p->ctx, "tune conv", CLFORGE_F32, CHECKED, sample, p->want,
                           clforge__conv_tolerance(p->ctx->tune_force.path, p->d.y.type));
  if (st != CLFORGE_SUCCESS) snprintf(why, why_cap, "%s", clforge_last_error(p->ctx));
  free(got);
  free(sample);
  return st;
}

static double conv_flops(const size_t *s) {
  clforge_conv2d_desc desc = {0};
  shape_desc(s, &desc);
  clforge__conv d;
  return clforge__conv_resolve(NULL, &desc, 0, &d) == CLFORGE_SUCCESS ? d.flops : 0.0;
}

static int conv_tune_variant(const char *dtypes, const char *layout, const size_t *shape) {
  clforge_conv2d_desc desc = {0};
  shape_desc(shape, &desc);
  if (parse_key(dtypes, layout, &desc)) return 0;
  clforge__conv d;
  return clforge__conv_resolve(NULL, &desc, 0, &d) == CLFORGE_SUCCESS ? clforge__conv_variant(&d) : 0;
}

/* The heuristic table's order for the class's layer (src/ops/conv.c). */
static int conv_rank(clforge_context ctx, const clforge__family *f, const char *dtypes, const char *layout,
                     const size_t *shape) {
  clforge_conv2d_desc desc = {0};
  shape_desc(shape, &desc);
  clforge__conv d;
  if (parse_key(dtypes, layout, &desc) || clforge__conv_resolve(NULL, &desc, 0, &d) != CLFORGE_SUCCESS) return 0;
  for (int a = 1; a < CLFORGE_CONV_ALGO_COUNT; ++a) {
    const clforge__conv_algo_impl *impl = clforge__conv_algo_impl_of((clforge_conv_algo)a);
    if (impl && impl->family == f) return clforge__conv_heuristic_rank(ctx, &d, (clforge_conv_algo)a);
  }
  return 0;
}

/* f32 only: f16 and bf16 calls choose their algorithm, and take its
 * parameters, from the f32 entries (src/ops/conv.c, tuned_choice); a budget
 * covers more layers this way. */
const clforge__tune_op clforge__tune_conv = {
    .op = "conv",
    .dtypes = (const char *const[]){"f32,f32,f32", NULL},
    .layouts = (const char *const[]){"nchw,kcrs", "nhwc,krsc", NULL},
    .peer = NULL,
    .ndims = CLFORGE_CONV_NDIMS,
    .setup = conv_setup,
    .applicable = clforge__tune_any_applicable,
    .run = conv_run,
    .prepare = conv_prepare,
    .check = conv_check,
    .flops = conv_flops,
    .rank = conv_rank,
    .variant = conv_tune_variant,
    .teardown = conv_teardown,
};
