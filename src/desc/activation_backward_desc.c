#include "activation_backward_desc.h"

#include <stdint.h>
#include <string.h>

#include "../core/dtype.h"
#include "../core/error.h"
#include "../core/reserved.h"

clforge_status clforge__actb_resolve(clforge_context ctx, const char *op, const clforge_activation_backward_desc *desc,
                                     clforge__actb *a) {
  memset(a, 0, sizeof *a);
  if (!desc) return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: desc is NULL", op);
  if ((unsigned)desc->activation > CLFORGE_ACT_SILU)
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: unknown activation %d", op, (int)desc->activation);
  clforge_status st = clforge__check_reserved_ptrs(ctx, op, "clforge_activation_backward_desc.reserved",
                                                   desc->reserved, CLFORGE_COUNT_OF(desc->reserved));
  if (st != CLFORGE_SUCCESS) return st;
  a->z_type = desc->z_type ? desc->z_type : CLFORGE_F32;
  a->dy_type = desc->dy_type ? desc->dy_type : CLFORGE_F32;
  a->dx_type = desc->dx_type ? desc->dx_type : CLFORGE_F32;
  if (!clforge__float_dtype_size(a->z_type) || !clforge__float_dtype_size(a->dy_type) || !clforge__float_dtype_size(a->dx_type))
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: unknown storage type or not a float one (z %d, dy %d, dx %d)", op,
                         (int)desc->z_type, (int)desc->dy_type, (int)desc->dx_type);
  const size_t offs[3] = {desc->z_offset, desc->dy_offset, desc->dx_offset};
  for (int i = 0; i < 3; ++i)
    if (offs[i] > SIZE_MAX / 8 || desc->count > SIZE_MAX / 8 - offs[i])
      return clforge__fail(ctx, CLFORGE_SIZE_OVERFLOW, "%s: offset + count of %s overflows", op,
                           i == 0 ? "z" : i == 1 ? "dy" : "dx");
  a->count = desc->count, a->act = (int)desc->activation, a->beta = desc->beta;
  a->z_offset = desc->z_offset, a->dy_offset = desc->dy_offset, a->dx_offset = desc->dx_offset;
  return CLFORGE_SUCCESS;
}
