/* Reference twin of clforge_conv2d: plain loops over the resolved
 * descriptor's strides, double accumulation, one rounding to y's type. */
#include <stdint.h>

#include "../desc/conv_desc.h"
#include "../core/error.h"
#include "conv.h"
#include "element.h"

double clforge__ref_conv2d_at(const clforge__conv *dp, const void *x, const void *w, const void *bias, const void *y,
                              size_t n, size_t k, size_t p, size_t q) {
  const clforge__conv d = *dp;
  const size_t *xs = d.x.stride, *ws = d.filt.stride, *ys = d.y.stride;
  const size_t g = k / d.kg, c0 = g * d.cg;
  double acc = 0;
  for (size_t r = 0; r < d.r; ++r) {
    /* input row of filter row r, in padded coordinates */
    const size_t hp = p * d.stride_h + r * d.dil_h;
    if (hp < d.pad_t || hp - d.pad_t >= d.h) continue;
    const size_t ih = hp - d.pad_t;
    for (size_t s = 0; s < d.s; ++s) {
      const size_t wp = q * d.stride_w + s * d.dil_w;
      if (wp < d.pad_l || wp - d.pad_l >= d.w) continue;
      const size_t iw = wp - d.pad_l;
      for (size_t c = 0; c < d.cg; ++c) {
        const size_t xi = d.x.offset + n * xs[0] + (c0 + c) * xs[1] + ih * xs[2] + iw * xs[3];
        const size_t wi = d.filt.offset + k * ws[0] + c * ws[1] + r * ws[2] + s * ws[3];
        acc += (double)clforge__ref_load(x, d.x.type, xi) * clforge__ref_load(w, d.filt.type, wi);
      }
    }
  }
  const size_t yi = d.y.offset + n * ys[0] + k * ys[1] + p * ys[2] + q * ys[3];
  /* alpha == 0: x and w do not count, not even Inf/NaN (as GEMM) */
  double v = d.alpha != 0.0f ? (double)d.alpha * acc : 0.0;
  if (bias && d.has_bias) v += clforge__ref_load(bias, d.bias.type, d.bias.offset + k);
  if (d.beta != 0.0f) v += (double)d.beta * clforge__ref_load(y, d.y.type, yi);
  return clforge__ref_activate(d.act, v);
}

clforge_status clforge_ref_conv2d(const clforge_conv2d_desc *desc, const void *x, const void *w, const void *bias,
                                  void *y) {
  clforge__clear_error(NULL);
  clforge__conv d;
  clforge_status st = clforge__conv_resolve(NULL, desc, bias != NULL, &d);
  if (st != CLFORGE_SUCCESS) return st;
  if (d.kind != CLFORGE_CONV_FORWARD)
    return clforge__fail(NULL, CLFORGE_INVALID_ARGUMENT,
                         "conv2d reference: desc.kind is %d (a backward kind: use clforge_ref_conv2d_backward_*)",
                         (int)d.kind);
  if (d.n == 0 || d.k == 0) return CLFORGE_SUCCESS;
  if (!x || !w || !y) return clforge__fail(NULL, CLFORGE_INVALID_ARGUMENT, "conv2d reference: x, w or y is NULL");
  for (size_t n = 0; n < d.n; ++n)
    for (size_t k = 0; k < d.k; ++k)
      for (size_t p = 0; p < d.p; ++p)
        for (size_t q = 0; q < d.q; ++q) {
          const size_t yi = d.y.offset + n * d.y.stride[0] + k * d.y.stride[1] + p * d.y.stride[2] + q * d.y.stride[3];
          clforge__ref_store(y, d.y.type, yi, (float)clforge__ref_conv2d_at(&d, x, w, bias, y, n, k, p, q));
        }
  return CLFORGE_SUCCESS;
}
