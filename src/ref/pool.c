/* Reference twin of clforge_pool: PyTorch's definitions (max_pool2d,
 * avg_pool2d) window by window, sums in double. */
#include <math.h>

#include "../core/error.h"
#include "../desc/pool_desc.h"
#include "element.h"

/* Element (n, c, y, x) of a tensor of planes hh x ww in d's layout. */
static size_t at(const clforge__pool *d, size_t n, size_t c, size_t y, size_t x, size_t hh, size_t ww) {
  return d->nhwc ? ((n * hh + y) * ww + x) * d->c + c : ((n * d->c + c) * hh + y) * ww + x;
}

static double window(const clforge__pool *d, const void *x, size_t n, size_t c, size_t p, size_t q) {
  const long long h0 = (long long)(p * d->sh) - (long long)d->ph, w0 = (long long)(q * d->sw) - (long long)d->pw;
  if (d->kind == CLFORGE_POOL_MAX) {
    double m = -INFINITY;
    for (size_t i = 0; i < d->kh; ++i)
      for (size_t j = 0; j < d->kw; ++j) {
        const long long y = h0 + (long long)(i * d->dh), xx = w0 + (long long)(j * d->dw);
        if (y < 0 || xx < 0 || y >= (long long)d->h || xx >= (long long)d->w) continue;
        const double v = clforge__ref_load(x, d->x_type, d->x_offset + at(d, n, c, (size_t)y, (size_t)xx, d->h, d->w));
        if (v > m || isnan(v)) m = v;
        if (isnan(m)) return m;
      }
    return m;
  }
  /* avg: the window clipped to the padded input, then to the input */
  long long h1 = h0 + (long long)d->kh, w1 = w0 + (long long)d->kw;
  if (h1 > (long long)(d->h + d->ph)) h1 = (long long)(d->h + d->ph);
  if (w1 > (long long)(d->w + d->pw)) w1 = (long long)(d->w + d->pw);
  const long long padded = (h1 - h0) * (w1 - w0);
  const long long ya = h0 < 0 ? 0 : h0, xa = w0 < 0 ? 0 : w0;
  const long long yb = h1 > (long long)d->h ? (long long)d->h : h1, xb = w1 > (long long)d->w ? (long long)d->w : w1;
  if (ya >= yb || xa >= xb) return 0.0;
  double s = 0.0;
  for (long long y = ya; y < yb; ++y)
    for (long long xx = xa; xx < xb; ++xx)
      s += clforge__ref_load(x, d->x_type, d->x_offset + at(d, n, c, (size_t)y, (size_t)xx, d->h, d->w));
  const double div = d->divisor ? (double)d->divisor : d->exclude_pad ? (double)((yb - ya) * (xb - xa)) : (double)padded;
  return s / div;
}

clforge_status clforge_ref_pool(const clforge_pool_desc *desc, const void *x, void *y) {
  clforge__clear_error(NULL);
  clforge__pool d;
  clforge_status st = clforge__pool_resolve(NULL, "pool reference", desc, &d);
  if (st != CLFORGE_SUCCESS || !d.n || !d.c) return st;
  if (!x || !y) return clforge__fail(NULL, CLFORGE_INVALID_ARGUMENT, "pool reference: x or y is NULL");
  for (size_t n = 0; n < d.n; ++n)
    for (size_t c = 0; c < d.c; ++c)
      for (size_t p = 0; p < d.p; ++p)
        for (size_t q = 0; q < d.q; ++q)
          clforge__ref_store(y, d.y_type, d.y_offset + at(&d, n, c, p, q, d.p, d.q), (float)window(&d, x, n, c, p, q));
  return CLFORGE_SUCCESS;
}
