/* Reference twin of clforge_rope: the definition in double. */
#include <math.h>

#include "../core/error.h"
#include "../desc/rope_desc.h"
#include "element.h"

clforge_status clforge_ref_rope(const clforge_rope_desc *desc, const void *x, const int32_t *positions, void *y) {
  clforge__clear_error(NULL);
  clforge__rope d;
  clforge_status st = clforge__rope_resolve(NULL, "rope reference", desc, &d);
  if (st != CLFORGE_SUCCESS || !d.tokens) return st;
  if (!x || !y || !positions) return clforge__fail(NULL, CLFORGE_INVALID_ARGUMENT, "rope reference: x, positions or y is NULL");
  const size_t half = d.rot / 2;
  for (size_t t = 0; t < d.tokens; ++t) {
    const double pos = positions[d.pos_offset + t];
    for (size_t h = 0; h < d.heads; ++h) {
      const size_t xb = d.x.offset + t * d.x.token_stride + h * d.x.head_stride;
      const size_t yb = d.y.offset + t * d.y.token_stride + h * d.y.head_stride;
      for (size_t i = 0; i < half; ++i) {
        const double ang = pos * pow(d.theta, -2.0 * (double)i / (double)d.rot), c = cos(ang), s = sin(ang);
        const size_t i0 = d.neox ? i : 2 * i, i1 = d.neox ? i + half : 2 * i + 1;
        const double a = clforge__ref_load(x, d.x.type, xb + i0), b = clforge__ref_load(x, d.x.type, xb + i1);
        clforge__ref_store(y, d.y.type, yb + i0, (float)(a * c - b * s));
        clforge__ref_store(y, d.y.type, yb + i1, (float)(b * c + a * s));
      }
      for (size_t i = d.rot; i < d.d; ++i) clforge__ref_store(y, d.y.type, yb + i, clforge__ref_load(x, d.x.type, xb + i));
    }
  }
  return CLFORGE_SUCCESS;
}
