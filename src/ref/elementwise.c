/* Reference twin of clforge_elementwise: each output from its two
 * broadcast inputs, in double. */
#include <math.h>

#include "../core/error.h"
#include "../desc/elementwise_desc.h"
#include "element.h"

static double apply(int op, double a, double b) {
  switch (op) {
    case CLFORGE_BINARY_ADD: return a + b;
    case CLFORGE_BINARY_SUB: return a - b;
    case CLFORGE_BINARY_MUL: return a * b;
    case CLFORGE_BINARY_DIV: return a / b;
    case CLFORGE_BINARY_MAX: return isnan(a) || isnan(b) ? NAN : a > b ? a : b;
    case CLFORGE_BINARY_MIN: return isnan(a) || isnan(b) ? NAN : a < b ? a : b;
    default: return a;
  }
}

clforge_status clforge_ref_elementwise(const clforge_elementwise_desc *desc, const void *a, const void *b, void *y) {
  clforge__clear_error(NULL);
  clforge__ew d;
  clforge_status st = clforge__ew_resolve(NULL, "elementwise reference", desc, &d);
  if (st != CLFORGE_SUCCESS || !d.count) return st;
  if (!a || !y || (d.op && !b)) return clforge__fail(NULL, CLFORGE_INVALID_ARGUMENT, "elementwise reference: a, b or y is NULL");
  for (size_t i = 0; i < d.count; ++i) {
    /* in place (y is a or b) is safe: element i is read before it is written, and read by no later i */
    const double va = clforge__ref_load(a, d.a_type, d.a_offset + clforge__ew_source(&d, 0, i));
    const double vb = d.op ? clforge__ref_load(b, d.b_type, d.b_offset + clforge__ew_source(&d, 1, i)) : 0.0;
    const double v = apply(d.op, va, vb); /* ReLU keeps NaN here, as torch.relu */
    clforge__ref_store(y, d.y_type, d.y_offset + i, (float)(isnan(v) ? v : clforge__ref_activate(d.act, v)));
  }
  return CLFORGE_SUCCESS;
}
