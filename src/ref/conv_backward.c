/* Reference twins of the convolution's backward passes: plain loops over the
 * resolved descriptor's strides, double accumulation, one rounding to the
 * output's type. Written from the definitions (each dx or dw element is the
 * sum of the forward products it enters), not from the device algorithms. */
#include <stdint.h>

#include "../desc/conv_desc.h"
#include "../core/error.h"
#include "element.h"

/* The output value out = alpha * acc + beta * old, alpha 0 ignoring acc
 * (Inf/NaN included) as the forward's epilogue does. */
static float finish(const clforge__conv *d, double acc, const void *buf, clforge_dtype type, size_t i) {
  double v = d->alpha != 0.0f ? (double)d->alpha * acc : 0.0;
  if (d->beta != 0.0f) v += (double)d->beta * clforge__ref_load(buf, type, i);
  return (float)v;
}

static clforge_status resolve(const clforge_conv2d_desc *desc, clforge_conv_kind kind, int has_bias,
                              clforge__conv *d, const char *what) {
  clforge__clear_error(NULL);
  clforge_status st = clforge__conv_resolve(NULL, desc, has_bias, d);
  if (st == CLFORGE_SUCCESS && d->kind != kind)
    st = clforge__fail(NULL, CLFORGE_INVALID_ARGUMENT, "%s reference: desc.kind is %d, not %d", what, (int)d->kind,
                       (int)kind);
  return st;
}

clforge_status clforge_ref_conv2d_backward_data(const clforge_conv2d_desc *desc, const void *dy, const void *w,
                                                void *dx) {
  clforge__conv d;
  clforge_status st = resolve(desc, CLFORGE_CONV_BACKWARD_DATA, 0, &d, "conv2d_backward_data");
  if (st != CLFORGE_SUCCESS) return st;
  if (d.n == 0 || d.c == 0) return CLFORGE_SUCCESS;
  if (d.k && (!dy || !w)) return clforge__fail(NULL, CLFORGE_INVALID_ARGUMENT, "conv2d_backward_data reference: dy or w is NULL");
  if (!dx) return clforge__fail(NULL, CLFORGE_INVALID_ARGUMENT, "conv2d_backward_data reference: dx is NULL");
  const size_t *xs = d.x.stride, *ws = d.filt.stride, *ys = d.y.stride;
  for (size_t n = 0; n < d.n; ++n)
    for (size_t c = 0; c < d.c; ++c) {
      const size_t g = c / d.cg, cl = c % d.cg;
      for (size_t h = 0; h < d.h; ++h)
        for (size_t x = 0; x < d.w; ++x) {
          double acc = 0;
          for (size_t r = 0; r < d.r; ++r) {
            /* dy row p took x row h through filter row r when p * stride + r * dil = h + pad */
            const size_t hp = h + d.pad_t;
            if (hp < r * d.dil_h || (hp - r * d.dil_h) % d.stride_h) continue;
            const size_t p = (hp - r * d.dil_h) / d.stride_h;
            if (p >= d.p) continue;
            for (size_t s = 0; s < d.s; ++s) {
              const size_t wp = x + d.pad_l;
              if (wp < s * d.dil_w || (wp - s * d.dil_w) % d.stride_w) continue;
              const size_t q = (wp - s * d.dil_w) / d.stride_w;
              if (q >= d.q) continue;
              for (size_t kl = 0; kl < d.kg; ++kl) {
                const size_t k = g * d.kg + kl;
                acc += (double)clforge__ref_load(dy, d.y.type, d.y.offset + n * ys[0] + k * ys[1] + p * ys[2] + q * ys[3]) *
                       clforge__ref_load(w, d.filt.type, d.filt.offset + k * ws[0] + cl * ws[1] + r * ws[2] + s * ws[3]);
              }
            }
          }
          const size_t i = d.x.offset + n * xs[0] + c * xs[1] + h * xs[2] + x * xs[3];
          clforge__ref_store(dx, d.x.type, i, finish(&d, acc, dx, d.x.type, i));
        }
    }
  return CLFORGE_SUCCESS;
}

clforge_status clforge_ref_conv2d_backward_filter(const clforge_conv2d_desc *desc, const void *x, const void *dy,
                                                  void *dw, void *dbias) {
  clforge__conv d;
  clforge_status st = resolve(desc, CLFORGE_CONV_BACKWARD_FILTER, dbias != NULL, &d, "conv2d_backward_filter");
  if (st != CLFORGE_SUCCESS) return st;
  if (d.k == 0) return CLFORGE_SUCCESS;
  if (!dw) return clforge__fail(NULL, CLFORGE_INVALID_ARGUMENT, "conv2d_backward_filter reference: dw is NULL");
  if (d.n && (!x || !dy))
    return clforge__fail(NULL, CLFORGE_INVALID_ARGUMENT, "conv2d_backward_filter reference: x or dy is NULL");
  const size_t *xs = d.x.stride, *ws = d.filt.stride, *ys = d.y.stride;
  for (size_t k = 0; k < d.k; ++k) {
    const size_t c0 = k / d.kg * d.cg;
    for (size_t c = 0; c < d.cg; ++c)
      for (size_t r = 0; r < d.r; ++r)
        for (size_t s = 0; s < d.s; ++s) {
          double acc = 0;
          for (size_t n = 0; n < d.n; ++n)
            for (size_t p = 0; p < d.p; ++p) {
              const size_t hp = p * d.stride_h + r * d.dil_h;
              if (hp < d.pad_t || hp - d.pad_t >= d.h) continue;
              for (size_t q = 0; q < d.q; ++q) {
                const size_t wp = q * d.stride_w + s * d.dil_w;
                if (wp < d.pad_l || wp - d.pad_l >= d.w) continue;
                acc += (double)clforge__ref_load(dy, d.y.type, d.y.offset + n * ys[0] + k * ys[1] + p * ys[2] + q * ys[3]) *
                       clforge__ref_load(x, d.x.type,
                                         d.x.offset + n * xs[0] + (c0 + c) * xs[1] + (hp - d.pad_t) * xs[2] +
                                             (wp - d.pad_l) * xs[3]);
              }
            }
          const size_t i = d.filt.offset + k * ws[0] + c * ws[1] + r * ws[2] + s * ws[3];
          clforge__ref_store(dw, d.filt.type, i, finish(&d, acc, dw, d.filt.type, i));
        }
    if (dbias) {
      double acc = 0;
      for (size_t n = 0; n < d.n; ++n)
        for (size_t p = 0; p < d.p; ++p)
          for (size_t q = 0; q < d.q; ++q)
            acc += clforge__ref_load(dy, d.y.type, d.y.offset + n * ys[0] + k * ys[1] + p * ys[2] + q * ys[3]);
      const size_t i = d.bias.offset + k;
      clforge__ref_store(dbias, d.bias.type, i, finish(&d, acc, dbias, d.bias.type, i));
    }
  }
  return CLFORGE_SUCCESS;
}
