/* Internal dtype helpers: which dtypes an op's float operands may take. */
#ifndef CLFORGE_SRC_DTYPE_H
#define CLFORGE_SRC_DTYPE_H

#include <stddef.h>

#include "clforge/clforge.h"

/* Bytes per element of a float storage type (f32, f16, bf16), 0 for any
 * other: the integer types (s8, u8, s32) are quantized data, which only the
 * ops that say so take (clforge_quantize, clforge_dequantize,
 * clforge_gemm_quantized). Every float
 * op's dtype check goes through this, so an integer type is refused there
 * rather than read as floats. */
size_t clforge__float_dtype_size(clforge_dtype dtype);

/* 1 for s8 and u8. */
int clforge__dtype_is_int8(clforge_dtype dtype);

#endif
