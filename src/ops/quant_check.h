/* What the int8 ops' validation mode shares (clforge_gemm_quantized,
 * clforge_conv2d_quantized): host copies of device data, the tests' fault
 * hook, and the output compared with the reference bit for bit. */
#ifndef CLFORGE_SRC_OPS_QUANT_CHECK_H
#define CLFORGE_SRC_OPS_QUANT_CHECK_H

#include "clforge/clforge.h"

/* count elements of es bytes of buf from element offset into a fresh zeroed
 * host array indexed from 0 (so the reference's offsets apply); buf NULL or
 * count 0: the zeros alone. */
clforge_status clforge__quant_read_copy(clforge_context ctx, const char *op, cl_mem buf, size_t offset, size_t count,
                                        size_t es, void **out);

/* Tests only: when the fault hook is armed for op, flip a bit of out's byte
 * at byte_offset (the output's first element). */
clforge_status clforge__quant_fault(clforge_context ctx, const char *op, cl_mem out, size_t byte_offset);

/* n elements of `type` (the output `what`, "C" or "y") against the
 * reference's, byte for byte; with GELU (tanh/erf may differ in the last
 * bit) float outputs within their tolerance, requantized ones within one
 * step. CLFORGE_VALIDATION_FAILED names the first element that differs. */
clforge_status clforge__quant_compare(clforge_context ctx, const char *op, const char *what, clforge_dtype type,
                                      int gelu, size_t n, const unsigned char *got, const unsigned char *want);

#endif
