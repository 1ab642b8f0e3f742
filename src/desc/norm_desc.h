/* clforge_norm's descriptor resolved and checked once, for the device ops
 * and the references alike. */
#ifndef CLFORGE_SRC_NORM_DESC_H
#define CLFORGE_SRC_NORM_DESC_H

#include "clforge/clforge.h"

/* One row-major tensor of rows x n (row stride `stride`). */
typedef struct clforge__norm_tensor {
  const char *name;
  clforge_dtype type;
  size_t offset, stride;
  size_t extent; /* elements its buffer must hold */
} clforge__norm_tensor;

typedef struct clforge__norm {
  int kind;
  size_t rows, n;
  float eps;
  clforge__norm_tensor x, y, dy, dx;
  clforge_dtype param_type;
  size_t weight_offset, bias_offset, dweight_offset, dbias_offset, stats_offset;
} clforge__norm;

/* Defaults, enums, reserved fields, sizes (n >= 1 when rows > 0), strides
 * >= n, overflow; failures recorded on ctx (may be NULL) naming op. */
clforge_status clforge__norm_resolve(clforge_context ctx, const char *op, const clforge_norm_desc *desc,
                                     clforge__norm *d);

#endif
