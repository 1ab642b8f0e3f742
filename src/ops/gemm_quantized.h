/* The int8 GEMM for ops built on it (clforge_conv2d_quantized). */
#ifndef CLFORGE_SRC_OPS_GEMM_QUANTIZED_H
#define CLFORGE_SRC_OPS_GEMM_QUANTIZED_H

#include "clforge/clforge.h"

/* What clforge_gemm_quantized checks before it enqueues, its kernel built
 * too (so a later call with these arguments fails only on an enqueue):
 * what an op calling it after other work checks first, to leave its output
 * untouched on an error. Messages name op. */
clforge_status clforge__gemm_quantized_check(clforge_context ctx, const char *op, const clforge_gemm_desc *desc,
                                             const clforge_gemm_quant *quant, cl_mem a, cl_mem b, cl_mem c,
                                             cl_mem bias);

#endif
