/* clforge_activation_backward's descriptor resolved and checked once, for
 * the device op and the reference alike. */
#ifndef CLFORGE_SRC_ACTIVATION_BACKWARD_DESC_H
#define CLFORGE_SRC_ACTIVATION_BACKWARD_DESC_H

#include "clforge/clforge.h"

typedef struct clforge__actb {
  size_t count;
  int act;
  clforge_dtype z_type, dy_type, dx_type;
  size_t z_offset, dy_offset, dx_offset;
  float beta;
} clforge__actb;

/* Defaults (0 types = f32), enums, reserved fields, offset + count overflow;
 * failures recorded on ctx (may be NULL) naming `op`. */
clforge_status clforge__actb_resolve(clforge_context ctx, const char *op, const clforge_activation_backward_desc *desc,
                                     clforge__actb *a);

#endif
