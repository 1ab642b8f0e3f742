/* Reference twin of clforge_activation_backward: the derivatives in double,
 * from their closed forms. */
#include <math.h>

#include "../activation_backward_desc.h"
#include "../error.h"
#include "element.h"

static double derivative(int act, double z) {
  switch (act) {
    case CLFORGE_ACT_RELU: return z > 0 ? 1.0 : 0.0;
    case CLFORGE_ACT_GELU_TANH: {
      const double c = 0.7978845608028654, t = tanh(c * (z + 0.044715 * z * z * z));
      return 0.5 * (1 + t) + 0.5 * z * (1 - t * t) * c * (1 + 3 * 0.044715 * z * z);
    }
    case CLFORGE_ACT_GELU_ERF: return 0.5 * (1 + erf(z * 0.7071067811865476)) + z * exp(-0.5 * z * z) * 0.3989422804014327;
    default: return 1.0;
  }
}

clforge_status clforge_ref_activation_backward(const clforge_activation_backward_desc *desc, const void *z,
                                               const void *dy, void *dx) {
  clforge__clear_error(NULL);
  clforge__actb a;
  clforge_status st = clforge__actb_resolve(NULL, "activation_backward reference", desc, &a);
  if (st != CLFORGE_SUCCESS || a.count == 0) return st;
  if ((!z && a.act != CLFORGE_ACT_NONE) || !dy || !dx)
    return clforge__fail(NULL, CLFORGE_INVALID_ARGUMENT, "activation_backward reference: z, dy or dx is NULL");
  for (size_t i = 0; i < a.count; ++i) {
    const double g = clforge__ref_load(dy, a.dy_type, a.dy_offset + i);
    /* act'(z) * dy, with dy 0 contributing 0 even where act' is not finite */
    double v = a.act == CLFORGE_ACT_NONE ? g : derivative(a.act, clforge__ref_load(z, a.z_type, a.z_offset + i)) * g;
    if (a.beta != 0.0f) v += (double)a.beta * clforge__ref_load(dx, a.dx_type, a.dx_offset + i);
    clforge__ref_store(dx, a.dx_type, a.dx_offset + i, (float)v);
  }
  return CLFORGE_SUCCESS;
}
