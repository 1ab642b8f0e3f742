/* clforge_gemm_quantized's descriptor and quantization resolved and checked
 * once, for the device op and the reference alike, in the kernels'
 * row-major view (a column-major problem swaps A and B, rows and columns,
 * and so the scales and zero points too). */
#ifndef CLFORGE_SRC_GEMM_QUANT_DESC_H
#define CLFORGE_SRC_GEMM_QUANT_DESC_H

#include "gemm_desc.h"

enum { CLFORGE__QOUT_FLOAT = 0, CLFORGE__QOUT_INT8 = 1, CLFORGE__QOUT_S32 = 2 };

typedef struct clforge__gemm_q {
  clforge__gemm g;             /* the row-major view (g.a / g.b are the kernel's A and B) */
  int out;                     /* CLFORGE__QOUT_* by C's type */
  int32_t zpa, zpb;            /* the kernel's A's and B's zero points */
  int row_scale_from_b;        /* the kernel's per-row scales are the user's b_scale (swapped) */
  int row_per, col_per;        /* scales per row / per column of the kernel's C (else one) */
  size_t row_scale_offset, col_scale_offset;
  size_t row_scales, col_scales; /* how many each buffer must hold from its offset (0: none) */
  float inv_c;                 /* 1 / c_scale (one f32 division), int8 C */
  int32_t zpc;
  int qmin, qmax;              /* int8 C's range */
} clforge__gemm_q;

/* Resolve desc and quant (neither NULL-safe: both checked). Failures are
 * recorded on ctx (may be NULL) naming op. */
clforge_status clforge__gemm_q_resolve(clforge_context ctx, const char *op, const clforge_gemm_desc *desc,
                                       const clforge_gemm_quant *quant, clforge__gemm_q *q);

#endif
