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
 * rounding (2^-24 of it) and theta^(-2i/R)'s few ulp through exp2 (at most
 * about 3e-7 for theta >= 1), bounded at 4e-7 (docs/ARCHITECTURE.md,
 * "Rotary embedding"). */
#define CLFORGE__ROPE_ANGLE_ERROR 4e-7

/* The bound on |y - the exact rotation| of one output element: the pair's
 * size |a| + |b| times the angle's error at position pos (and sin/cos's few
 * ulp), plus one ulp of the stored output (both it and the reference
 * rounded) and f16's subnormal step. Validation mode and tests/test_rope.c. */
static inline double clforge__rope_bound(double pair, double pos, double want, clforge_dtype y_type) {
  const double ulp = y_type == CLFORGE_F16 ? 0x1p-10 : y_type == CLFORGE_BF16 ? 0x1p-7 : 0x1p-23;
  return pair * ((pos < 0 ? -pos : pos) * CLFORGE__ROPE_ANGLE_ERROR + 0x1p-21) + (want < 0 ? -want : want) * ulp +
         (y_type == CLFORGE_F16 ? 0x1p-24 : 0x1p-140);
}

/* Enums, reserved fields, rotary_dim even and <= head_dim, theta >= 1 and
 * finite, strides that keep heads and tokens apart (either outer), extents
 * without overflow; failures recorded on ctx (may be NULL) naming op. */
clforge_status clforge__rope_resolve(clforge_context ctx, const char *op, const clforge_rope_desc *desc,
                                     clforge__rope *d);

#endif
