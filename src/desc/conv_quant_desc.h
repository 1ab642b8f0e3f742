/* clforge_conv2d_quantized's descriptor and quantization resolved and
 * checked once, for the device op and the reference alike, and the int8
 * GEMM each of its passes is (the column matrix, or x in place for a 1x1
 * filter at stride 1 without padding, times the filter). */
#ifndef CLFORGE_SRC_CONV_QUANT_DESC_H
#define CLFORGE_SRC_CONV_QUANT_DESC_H

#include "conv_desc.h"

typedef struct clforge__conv_q {
  clforge__conv d;
  int in_place;   /* 1x1, stride 1, no padding: x itself is the GEMM's A (pixels x C) */
  size_t rsc;     /* the GEMM's k: R*S*(C/groups), a row of the filter and a group's part of a column-matrix row */
  size_t rsc_all; /* R*S*C: a row of the column matrix (the groups' parts one after another) */
} clforge__conv_q;

/* Resolve desc and quant (both checked, NULL included): the int8 types, a
 * forward NHWC convolution (any groups) with the automatic algorithm, and
 * the quantization as the int8 GEMM takes it. has_bias: a bias is given.
 * Failures are recorded on ctx (may be NULL) naming op. */
clforge_status clforge__conv_q_resolve(clforge_context ctx, const char *op, const clforge_conv2d_desc *desc,
                                       const clforge_conv_quant *quant, int has_bias, clforge__conv_q *q);

/* The int8 GEMM of group grp over images n0 .. n0 + imgs, pixels pix0 ..
 * pix0 + npix of each (npix is P*Q when imgs > 1): the group's K/groups
 * columns of y's rows of those pixels = A * w^T, A being the group's
 * channels of x in place (in_place) or its part of the column matrix at
 * offset 0 of its own buffer (rows of R*S*C); B the group's filter rows as
 * they lie (K/groups rows of R*S*C/groups, read transposed), or with wt
 * the filter transposed ([R*S*C/groups][K] at offset 0 of its own buffer:
 * the kernel's vector loads run along K); the group's bias and per-channel
 * scales. */
void clforge__conv_q_gemm(const clforge__conv_q *q, const clforge_conv_quant *quant, size_t n0, size_t imgs,
                          size_t pix0, size_t npix, size_t grp, int wt, clforge_gemm_desc *g, clforge_gemm_quant *gq);

#endif
