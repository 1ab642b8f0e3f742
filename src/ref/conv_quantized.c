/* Reference twin of clforge_conv2d_quantized: each image's column matrix
 * built on the host (padding reads x's zero point; each group's R*S*C/g
 * part of a row in the filter's order), then clforge_ref_gemm_quantized
 * with the very GEMM the device runs for each group, so the integer sums
 * are exact and the epilogue is the int8 GEMM's, in its order. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../desc/conv_quant_desc.h"
#include "../core/error.h"

clforge_status clforge_ref_conv2d_quantized(const clforge_conv2d_desc *desc, const clforge_conv_quant *quant,
                                            const void *x, const void *w, const void *bias, void *y,
                                            const float *x_scale, const float *w_scale) {
  clforge__clear_error(NULL);
  clforge__conv_q q;
  clforge_status st = clforge__conv_q_resolve(NULL, "ref_conv2d_quantized", desc, quant, bias != NULL, &q);
  if (st != CLFORGE_SUCCESS) return st;
  const clforge__conv *d = &q.d;
  if (d->n == 0 || d->k == 0) return CLFORGE_SUCCESS;
  if (!x || !w || !y)
    return clforge__fail(NULL, CLFORGE_INVALID_ARGUMENT, "ref_conv2d_quantized: x, w or y is NULL");
  const size_t pq = d->p * d->q;
  unsigned char *col = malloc(pq * q.rsc_all);
  if (!col) return clforge__fail(NULL, CLFORGE_OUT_OF_HOST_MEMORY, "ref_conv2d_quantized: no memory for a column matrix");
  const unsigned char pad = (unsigned char)(quant->x_zero_point & 0xFF), *xb = x;
  for (size_t n = 0; n < d->n && st == CLFORGE_SUCCESS; ++n) {
    for (size_t pix = 0; pix < pq; ++pix) {
      const size_t op = pix / d->q, oq = pix % d->q;
      for (size_t c = 0; c < d->c; ++c)
        for (size_t r = 0; r < d->r; ++r)
          for (size_t s = 0; s < d->s; ++s) {
            const long long ih = (long long)(op * d->stride_h + r * d->dil_h) - (long long)d->pad_t;
            const long long iw = (long long)(oq * d->stride_w + s * d->dil_w) - (long long)d->pad_l;
            /* the group's part, in the filter's own order: KRSC (r, s, c), KCRS (c, r, s) */
            const size_t grp = c / d->cg, cl = c % d->cg;
            const size_t j = grp * q.rsc + (d->w_layout == CLFORGE_KRSC ? (r * d->s + s) * d->cg + cl
                                                                        : (cl * d->r + r) * d->s + s);
            col[pix * q.rsc_all + j] = ih >= 0 && ih < (long long)d->h && iw >= 0 && iw < (long long)d->w
                                       ? xb[d->x.offset + n * d->x.stride[0] + c * d->x.stride[1] +
                                            (size_t)ih * d->x.stride[2] + (size_t)iw * d->x.stride[3]]
                                       : pad;
          }
    }
    clforge__conv_q cq = q;
    cq.in_place = 0; /* A is the column matrix */
    for (size_t grp = 0; grp < d->groups && st == CLFORGE_SUCCESS; ++grp) {
      clforge_gemm_desc g;
      clforge_gemm_quant gq;
      clforge__conv_q_gemm(&cq, quant, n, 1, 0, pq, grp, 0, &g, &gq);
      st = clforge_ref_gemm_quantized(&g, &gq, col, w, y, bias, x_scale, w_scale);
    }
  }
  free(col);
  return st;
}
