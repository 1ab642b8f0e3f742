/* clforge_rope's descriptor resolved and checked once, for the device op
 * and the reference alike. */
#ifndef CLFORGE_SRC_ROPE_DESC_H
#define CLFORGE_SRC_ROPE_DESC_H

#include "clforge/clforge.h"

/* One tensor of tokens x heads x head_dim (elements of a head contiguous). */
typedef struct clforge__rope_tensor {
  clforge_dtype type;
  size_t offset, token_stride, head_stride;
  size_t extent; /* elements its buffer must hold, offset included */
} clforge__rope_tensor;

typedef struct clforge__rope {
  int neox;
  size_t tokens, heads, d, rot;
  double theta;
  clforge__rope_tensor x, y;
  size_t pos_offset;
} clforge__rope;

/* The f32 angle's error per unit of position, in radians: the angle's own
 * rounding (2^-24 of it) and theta^(-2i/R)'s few ulp through exp2, bounded
 * at 4e-7 (docs/ARCHITECTURE.md, "Rotary embedding"). */
#define CLFORGE__ROPE_ANGLE_ERROR 4e-7

/* Enums, reserved fields, rotary_dim even and <= head_dim, theta > 0 and
 * finite, strides that keep heads and tokens apart, extents without
 * overflow; failures recorded on ctx (may be NULL) naming op. */
clforge_status clforge__rope_resolve(clforge_context ctx, const char *op, const clforge_rope_desc *desc,
                                     clforge__rope *d);

#endif
