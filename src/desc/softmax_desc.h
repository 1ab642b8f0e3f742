/* A softmax descriptor resolved and checked once, for the device op, the
 * tuner and the reference alike (as conv_desc.h is for convolution). */
#ifndef CLFORGE_SRC_SOFTMAX_DESC_H
#define CLFORGE_SRC_SOFTMAX_DESC_H

#include "clforge/clforge.h"
#include "../core/footprint.h"

typedef struct clforge__softmax_tensor {
  const char *name;      /* "x", "y", "mask", "dy" (the backward's dx is x) */
  clforge_dtype type;
  size_t offset;         /* elements */
  size_t stride;         /* elements between rows (resolved: n for 0 in x and y; 0 broadcasts the mask) */
  size_t extent;         /* elements the buffer must hold, offset included (offset when empty) */
} clforge__softmax_tensor;

typedef struct clforge__softmax {
  const char *op;                    /* "softmax" or "softmax_backward", for messages */
  int backward;                      /* resolved for clforge_softmax_backward: dy set, dx is x */
  clforge_softmax_kind kind;
  size_t rows, n;
  float scale;                       /* resolved: 1 when the desc says 0 */
  clforge__softmax_tensor x, y, mask, dy;
  int has_mask;                      /* set from the mask buffer given */
  int idx64;                         /* a row's indices may reach 2^32 (64-bit indices in the kernels) */
} clforge__softmax;

/* Resolve defaults and check enums, reserved fields, the scale, strides
 * (>= n for x and y; 0 or >= n for the mask) and extents with overflow
 * checks. Failures are recorded on ctx (may be NULL). */
clforge_status clforge__softmax_resolve(clforge_context ctx, const clforge_softmax_desc *desc, int has_mask,
                                        clforge__softmax *d);

/* The same for clforge_softmax_backward: dy checked as x and y are (the
 * mask's fields as in the forward, though no mask is read). */
clforge_status clforge__softmax_resolve_backward(clforge_context ctx, const clforge_softmax_desc *desc,
                                                 clforge__softmax *d);

/* The bytes tensor t touches, as a footprint from the start of its buffer
 * (rows of n elements, stride apart; a broadcast mask is one row). */
clforge__footprint clforge__softmax_footprint(const clforge__softmax *d, const clforge__softmax_tensor *t);

/* The dtypes key of tuning entries: "x,y" ("f32,f16") forward, "y,dy,dx"
 * backward. */
void clforge__softmax_dtypes_key(const clforge__softmax *d, char *buf, size_t cap);

#endif
