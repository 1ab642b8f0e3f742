/* A GEMM descriptor resolved and checked once, for the device op and the
 * reference alike (so both mean exactly the same thing). Column-major
 * problems are turned into row-major ones here: C = op(A)op(B) in
 * column-major storage is C^T = op(B)^T op(A)^T in row-major storage, so
 * the kernels only know row-major. */
#ifndef CLFORGE_SRC_GEMM_DESC_H
#define CLFORGE_SRC_GEMM_DESC_H

#include "clforge/clforge.h"
#include "../core/footprint.h"

typedef struct clforge__gemm_operand {
  const char *name;      /* the user's name for it: "a", "b", "c", "bias" */
  clforge_dtype type;
  size_t offset, ld, stride;
  size_t rows, cols;     /* of the stored matrix, row-major view (q8_0 B: n rows of k / 32 * 34 bytes) */
  size_t extent;         /* elements the buffer must hold, offset included */
  size_t span;           /* elements one batch item spans: (rows-1)*ld + cols */
  int trans;             /* op() transposes it (A and B only) */
} clforge__gemm_operand;

typedef struct clforge__gemm {
  size_t m, n, k, batch;      /* row-major view: C is m x n */
  float alpha, beta;
  clforge__gemm_operand a, b, c, bias;
  int swapped;                /* column-major: a is the user's B and b the user's A */
  int bias_mode;              /* CLFORGE_BIAS_* in the row-major view */
  int act;
  int gate;                   /* CLFORGE_GEMM_GATE_*: INTERLEAVED makes n op(B)'s 2 n_out columns; c is m x n / 2 */
  int idx64;                  /* some operand spans >= 2^32 elements */
  int route;                  /* 0: the usual choice; 1 tiled, 2 direct, 3 packed (set by ops running GEMM
                                 inside, after clforge__gemm_resolve) */
  int a_direct;               /* packed path's micro-kernel: A read in place (f32, not transposed), not packed */
  int aux_mode;               /* CLFORGE_GEMM_AUX_*; aux: C's shape, ld and stride (not touched: rows 0) */
  clforge__gemm_operand aux;
  int kernel_bias;            /* the bias the GEMM kernels add: bias_mode, none in the backward (its bias is an output) */
  clforge_compute_type compute_type; /* resolved: the desc's, else the context's (32F without one) */
} clforge__gemm;

/* Bytes of one of o's elements: its storage type's, or 1 for q8_0 weights
 * (their rows, ld, offset and stride count bytes of 34-byte blocks). */
static inline size_t clforge__gemm_operand_es(const clforge__gemm_operand *o) {
  return o->type == CLFORGE_Q8_0 ? 1 : clforge_dtype_size(o->type);
}

/* The elements operand o touches over `batch` items, in bytes from the
 * start of its buffer (0 rows when it is not touched). */
clforge__footprint clforge__gemm_footprint(const clforge__gemm_operand *o, size_t batch);

/* Resolve defaults, normalize to row-major and check everything that can be
 * checked without buffers. Failures are recorded on ctx (may be NULL). */
clforge_status clforge__gemm_resolve(clforge_context ctx, const clforge_gemm_desc *desc, clforge__gemm *g);
/* The same, with int8 = 1: the int8 GEMM's types (clforge_gemm_quantized)
 * instead of the float ones. */
clforge_status clforge__gemm_resolve_types(clforge_context ctx, const clforge_gemm_desc *desc, int int8,
                                           clforge__gemm *g);

#endif
