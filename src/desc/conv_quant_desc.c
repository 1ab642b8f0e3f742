#include "conv_quant_desc.h"

#include <math.h>
#include <string.h>

#include "../core/dtype.h"
#include "../core/error.h"
#include "gemm_quant_desc.h"
#include "../core/reserved.h"

clforge_status clforge__conv_q_resolve(clforge_context ctx, const char *op, const clforge_conv2d_desc *desc,
                                       const clforge_conv_quant *quant, int has_bias, clforge__conv_q *q) {
  memset(q, 0, sizeof *q);
  if (!quant) return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: quant is NULL", op);
  clforge_status st = clforge__check_reserved_ptrs(ctx, op, "clforge_conv_quant.reserved", quant->reserved,
                                                   CLFORGE_COUNT_OF(quant->reserved));
  if (st == CLFORGE_SUCCESS) st = clforge__conv_resolve_int8(ctx, desc, has_bias, &q->d);
  if (st != CLFORGE_SUCCESS) return st;
  const clforge__conv *d = &q->d;
  if (d->kind != CLFORGE_CONV_FORWARD)
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: the forward only (kind %d)", op, (int)d->kind);
  if (d->x_layout != CLFORGE_NHWC || d->y_layout != CLFORGE_NHWC)
    return clforge__fail(ctx, CLFORGE_UNSUPPORTED, "%s: x and y must be NHWC (x_layout = y_layout = CLFORGE_NHWC)",
                         op);
  if (d->algo != CLFORGE_CONV_ALGO_AUTO)
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT,
                         "%s: algo = %d: the int8 convolution chooses its route itself (leave algo 0)", op,
                         (int)d->algo);
  if (quant->w_scheme != CLFORGE_QUANT_PER_TENSOR && quant->w_scheme != CLFORGE_QUANT_PER_ROW)
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT,
                         "%s: w_scheme = %d (PER_TENSOR 0, or PER_ROW 1: one scale per output channel)", op,
                         (int)quant->w_scheme);
  /* the quantization in the convolution's words (the GEMM's checks below
   * would name A, B and C) */
  const clforge_dtype types[3] = {d->x.type, d->filt.type, d->y.type};
  const int32_t zps[3] = {quant->x_zero_point, quant->w_zero_point, quant->y_zero_point};
  static const char *const zname[3] = {"x_zero_point", "w_zero_point", "y_zero_point"};
  for (int i = 0; i < 3; ++i) {
    if (i == 2 && !clforge__dtype_is_int8(types[2])) break;
    const int32_t lo = types[i] == CLFORGE_S8 ? -128 : 0, hi = types[i] == CLFORGE_S8 ? 127 : 255;
    if (zps[i] < lo || zps[i] > hi)
      return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: %s %d is outside %s's range [%d, %d]", op, zname[i],
                           (int)zps[i], clforge_dtype_name(types[i]), (int)lo, (int)hi);
  }
  if (clforge__dtype_is_int8(d->y.type) && (!(quant->y_scale > 0.0f) || isinf(quant->y_scale)))
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: y_scale %g must be positive and finite for an %s y", op,
                         (double)quant->y_scale, clforge_dtype_name(d->y.type));
  if (d->y.type == CLFORGE_S32 && (d->alpha != 1.0f || d->beta != 0.0f || d->has_bias || d->act))
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT,
                         "%s: an s32 y holds the raw sums: no alpha, beta, bias or activation", op);
  q->rsc = d->r * d->s * d->cg, q->rsc_all = d->r * d->s * d->c;
  if (q->rsc_all > INT32_MAX || d->k > INT32_MAX)
    return clforge__fail(ctx, CLFORGE_LIMIT_EXCEEDED, "%s: R*S*C = %zu or K = %zu is above 2^31 - 1", op, q->rsc_all,
                         d->k);
  q->in_place = d->r == 1 && d->s == 1 && d->stride_h == 1 && d->stride_w == 1 && !d->pad_t && !d->pad_b &&
                !d->pad_l && !d->pad_r;
  /* The quantization as the GEMM of the first pass sees it (zero points'
   * ranges, scales, k's bound for exact sums): its messages, with op's name. */
  clforge_gemm_desc g;
  clforge_gemm_quant gq;
  clforge__conv_q_gemm(q, quant, 0, 1, 0, 1, 0, 0, &g, &gq);
  clforge__gemm_q gqr;
  return clforge__gemm_q_resolve(ctx, op, &g, &gq, &gqr);
}

void clforge__conv_q_gemm(const clforge__conv_q *q, const clforge_conv_quant *quant, size_t n0, size_t imgs,
                          size_t pix0, size_t npix, size_t grp, int wt, clforge_gemm_desc *g, clforge_gemm_quant *gq) {
  const clforge__conv *d = &q->d;
  const size_t kg = d->kg;
  memset(g, 0, sizeof *g);
  memset(gq, 0, sizeof *gq);
  g->layout = CLFORGE_ROW_MAJOR;
  g->m = imgs * npix, g->n = kg, g->k = q->rsc;
  g->alpha = d->alpha, g->alpha_mode = CLFORGE_ALPHA_AS_GIVEN, g->beta = d->beta;
  g->activation = (clforge_activation)d->act;
  g->a_type = d->x.type, g->b_type = d->filt.type, g->c_type = d->y.type, g->bias_type = d->bias.type;
  if (q->in_place) /* x NHWC: pixel rows of C channels, the group's C/groups */
    g->a_offset = d->x.offset + n0 * d->x.stride[0] + pix0 * d->c + grp * d->cg, g->lda = d->c;
  else
    g->a_offset = grp * q->rsc, g->lda = q->rsc_all;
  /* w: K rows of R*S*C/groups in the filter's own order, which the column matrix follows */
  if (wt)
    g->ldb = d->k, g->b_offset = grp * kg;
  else
    g->trans_b = CLFORGE_TRANS, g->ldb = q->rsc, g->b_offset = d->filt.offset + grp * kg * q->rsc;
  g->c_offset = d->y.offset + n0 * d->y.stride[0] + pix0 * d->k + grp * kg, g->ldc = d->k;
  g->bias_mode = d->has_bias ? CLFORGE_BIAS_COLUMN : CLFORGE_BIAS_NONE, g->bias_offset = d->bias.offset + grp * kg;
  gq->a_scheme = CLFORGE_QUANT_PER_TENSOR;
  gq->b_scheme = quant->w_scheme == CLFORGE_QUANT_PER_ROW ? CLFORGE_QUANT_PER_COLUMN : CLFORGE_QUANT_PER_TENSOR;
  gq->a_scale = quant->x_scale, gq->b_scale = quant->w_scale;
  gq->a_scale_offset = quant->x_scale_offset;
  gq->b_scale_offset = quant->w_scale_offset + (quant->w_scheme == CLFORGE_QUANT_PER_ROW ? grp * kg : 0);
  gq->a_zero_point = quant->x_zero_point, gq->b_zero_point = quant->w_zero_point;
  gq->c_scale = quant->y_scale, gq->c_zero_point = quant->y_zero_point;
}
