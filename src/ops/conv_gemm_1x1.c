/* The gemm_1x1 convolution algorithm: a 1x1 filter with stride 1 and no
 * padding is a matrix product on x as it lies, run by clforge's GEMM with
 * the convolution's epilogue in the GEMM's (y = act(alpha*conv + bias +
 * beta*y) is C = act(alpha*AB + beta*C + bias)). No copy, no workspace.
 * The filter is a K x C/G matrix in both KCRS and KRSC (R = S = 1). Per
 * group g (input channels g*cg.., output channels g*kg..):
 *   x NHWC, y NHWC: y (N*HW x kg) = x (N*HW x cg, ld C) * w^T   bias per column
 *   x NCHW, y NCHW: y[n] (kg x HW) = w (kg x cg) * x[n] (cg x HW), batch N   bias per row
 *   x NCHW, y NHWC: y[n] (HW x kg) = x[n]^T * w^T, batch N       bias per column
 *   x NHWC, y NCHW: y[n] (kg x HW) = w * x[n]^T (x[n]: HW x C), batch N   bias per row
 * Groups are one GEMM each (the GEMM's bias does not follow a batch
 * stride), except NHWC to NHWC without bias: one GEMM batched over the
 * groups (their columns of x, rows of w and columns of y are evenly
 * spaced). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "../core/compute_type.h"
#include "../core/error.h"
#include "../families/conv_gemm_1x1.h"
#include "../families/families.h"
#include "conv_algo.h"
#include "gemm_launch.h"

/* The GEMM of group 0 and how the others differ: `launches` GEMMs, the
 * i-th with every offset moved by i times its step. */
typedef struct {
  clforge_gemm_desc g;
  size_t launches;
  size_t a_step, b_step, c_step, bias_step;
  int x_is_a; /* A is x (else w) */
} gemm_plan;

static void make_plan(const clforge__conv *d, gemm_plan *p) {
  memset(p, 0, sizeof *p);
  clforge_gemm_desc *g = &p->g;
  const size_t hw = d->h * d->w, cg = d->cg, kg = d->kg, G = d->groups;
  const int xh = d->x_layout == CLFORGE_NHWC, yh = d->y_layout == CLFORGE_NHWC;
  g->layout = CLFORGE_ROW_MAJOR;
  g->alpha = d->alpha, g->alpha_mode = CLFORGE_ALPHA_AS_GIVEN, g->beta = d->beta;
  g->activation = (clforge_activation)d->act;
  g->compute_type = d->compute_type;
  g->c_type = d->y.type, g->bias_type = d->bias.type;
  g->c_offset = d->y.offset, g->bias_offset = d->bias.offset;
  p->launches = G, p->bias_step = kg;
  if (yh) { /* C = y as (pixels x K): A is x, B is w^T */
    p->x_is_a = 1;
    g->a_type = d->x.type, g->b_type = d->filt.type;
    g->a_offset = d->x.offset, g->b_offset = d->filt.offset;
    g->n = kg, g->k = cg;
    g->trans_b = CLFORGE_TRANS, g->ldb = cg;
    g->ldc = d->k;
    g->bias_mode = d->has_bias ? CLFORGE_BIAS_COLUMN : CLFORGE_BIAS_NONE;
    p->b_step = kg * cg, p->c_step = kg;
    if (xh) { /* every image's pixels in one matrix */
      g->m = d->n * hw, g->lda = d->c;
      p->a_step = cg;
      if (G > 1 && !d->has_bias) {
        g->batch = G, g->stride_a = cg, g->stride_b = kg * cg, g->stride_c = kg;
        p->launches = 1;
      }
    } else { /* x[n] is cg x HW: transposed */
      g->m = hw, g->trans_a = CLFORGE_TRANS, g->lda = hw;
      g->batch = d->n, g->stride_a = d->x.stride[0], g->stride_c = d->y.stride[0];
      p->a_step = cg * hw;
    }
  } else { /* C = y[n] as (kg x HW): A is w, B is x[n] */
    g->a_type = d->filt.type, g->b_type = d->x.type;
    g->a_offset = d->filt.offset, g->b_offset = d->x.offset;
    g->m = kg, g->n = hw, g->k = cg, g->lda = cg;
    g->ldc = hw;
    g->batch = d->n, g->stride_b = d->x.stride[0], g->stride_c = d->y.stride[0];
    g->bias_mode = d->has_bias ? CLFORGE_BIAS_ROW : CLFORGE_BIAS_NONE;
    p->a_step = kg * cg, p->c_step = kg * hw;
    if (xh) { /* x[n] is HW x C: transposed, the group's columns */
      g->trans_b = CLFORGE_TRANS, g->ldb = d->c;
      p->b_step = cg;
    } else {
      g->ldb = hw;
      p->b_step = cg * hw;
    }
  }
}

/* Group i's GEMM, resolved, on the route v asks for. */
static clforge_status resolve(clforge_context ctx, const gemm_plan *p, const int *v, size_t i, clforge__gemm *out) {
  clforge_gemm_desc g = p->g;
  g.a_offset += i * p->a_step, g.b_offset += i * p->b_step, g.c_offset += i * p->c_step;
  g.bias_offset += i * p->bias_step;
  clforge_status st = clforge__gemm_resolve(ctx, &g, out);
  if (st == CLFORGE_SUCCESS) out->route = v ? v[CG1_PATH] : 0;
  return st;
}

static int supports(clforge_context ctx, const clforge__conv *d, char *why, size_t cap) {
  (void)ctx;
  if (d->r != 1 || d->s != 1 || d->stride_h != 1 || d->stride_w != 1 || d->pad_t || d->pad_b || d->pad_l ||
      d->pad_r) {
    snprintf(why, cap, "gemm_1x1 needs a 1x1 filter, stride 1 and no padding (here %zux%zu, stride %zux%zu, pads %zu %zu %zu %zu)",
             d->r, d->s, d->stride_h, d->stride_w, d->pad_t, d->pad_b, d->pad_l, d->pad_r);
    return 0;
  }
  /* The GEMM's limits: m, n, k below 2^31 and leading dimensions below 2^32. */
  gemm_plan p;
  make_plan(d, &p);
  const clforge_gemm_desc *g = &p.g;
  if (g->m > INT32_MAX || g->n > INT32_MAX || g->k > INT32_MAX || g->lda > UINT32_MAX || g->ldb > UINT32_MAX ||
      g->ldc > UINT32_MAX || g->batch > UINT32_MAX) {
    snprintf(why, cap, "gemm_1x1: the GEMM (%zu x %zu x %zu, batch %zu) exceeds clforge GEMM's limits", g->m, g->n,
             g->k, g->batch);
    return 0;
  }
  return 1;
}

static clforge_status enqueue(const clforge__conv_exec *e) {
  gemm_plan p;
  make_plan(e->d, &p);
  const clforge__gemm_buffers bf = {p.x_is_a ? e->x : e->w, p.x_is_a ? e->w : e->x, e->y,
                                    e->d->has_bias ? e->bias : NULL, NULL};
  /* Chained: each GEMM after the previous one (an out-of-order queue would
   * otherwise run them together, and the packed route shares its panels). */
  cl_event prev = NULL;
  clforge_status st = CLFORGE_SUCCESS;
  for (size_t i = 0; i < p.launches && st == CLFORGE_SUCCESS; ++i) {
    clforge__gemm g;
    st = resolve(e->ctx, &p, e->v, i, &g);
    cl_event ev = NULL;
    if (st == CLFORGE_SUCCESS)
      st = prev ? clforge__gemm_enqueue(e->ctx, &g, &bf, 1, &prev, &ev)
                : clforge__gemm_enqueue(e->ctx, &g, &bf, e->nwait, e->wait, &ev);
    if (prev) clReleaseEvent(prev);
    prev = ev;
  }
  if (st == CLFORGE_SUCCESS) *e->event = prev;
  else if (prev) clReleaseEvent(prev);
  return st;
}

static int explain(clforge_context ctx, const clforge__conv *d, const int *v, clforge_kernel_choice *out, int cap) {
  gemm_plan p;
  clforge__gemm g;
  make_plan(d, &p);
  if (cap <= 0 || resolve(ctx, &p, v, 0, &g) != CLFORGE_SUCCESS) {
    clforge__clear_error(ctx);
    return 0;
  }
  return clforge__gemm_explain_resolved(ctx, &g, out, cap);
}

const clforge__conv_algo_impl clforge__conv_gemm_1x1 = {
    .algo = CLFORGE_CONV_ALGO_GEMM_1X1,
    .name = "gemm_1x1",
    .family = &clforge__family_conv_gemm_1x1,
    .supports = supports,
    .enqueue = enqueue,
    .explain = explain,
};
