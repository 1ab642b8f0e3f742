/* Reference twin of clforge_activation_backward: the derivatives in double,
 * from their closed forms. */
#include <math.h>

#include "../desc/activation_backward_desc.h"
#include "../core/error.h"
#include "element.h"

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
    double v = a.act == CLFORGE_ACT_NONE ? g : clforge__ref_dactivate(a.act, clforge__ref_load(z, a.z_type, a.z_offset + i)) * g;
    if (a.beta != 0.0f) v += (double)a.beta * clforge__ref_load(dx, a.dx_type, a.dx_offset + i);
    clforge__ref_store(dx, a.dx_type, a.dx_offset + i, (float)v);
  }
  return CLFORGE_SUCCESS;
}
