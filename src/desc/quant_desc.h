/* clforge_quantize / clforge_dequantize's descriptor resolved and checked
 * once, for the device ops and the references alike. */
#ifndef CLFORGE_SRC_QUANT_DESC_H
#define CLFORGE_SRC_QUANT_DESC_H

#include "clforge/clforge.h"

enum { CLFORGE__Q8_0_BLOCK = 32, CLFORGE__Q8_0_BYTES = 34 };

typedef struct clforge__quant {
  int scheme, compute;          /* clforge_quant_scheme; 1 = SCALES_COMPUTE */
  size_t rows, cols;
  clforge_dtype x_type, q_type; /* defaults applied */
  size_t ldx, ldq;              /* elements / bytes, defaults applied */
  size_t x_offset, q_offset, scale_offset, zp_offset;
  size_t x_count;               /* elements of x from x_offset: (rows - 1) * ldx + cols */
  size_t q_bytes;               /* bytes of q from q_offset */
  size_t row_bytes;             /* bytes of one row of q: cols, or cols / 32 * 34 */
  size_t nscales;               /* 1, rows or cols; 0 for q8_0 */
  int srow, scol;               /* a value's scale index: row * srow + col * scol */
  int qmin, qmax;
} clforge__quant;

/* Defaults, enums, types, strides, reserved fields, overflow; quantize 0
 * refuses desc->scales (dequantize does not use it). rows or cols of 0
 * resolves (a no-op). Failures recorded on ctx (may be NULL) naming op. */
clforge_status clforge__quant_resolve(clforge_context ctx, const char *op, const clforge_quant_desc *desc,
                                      int quantize, clforge__quant *q);

#endif
