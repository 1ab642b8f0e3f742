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

/* A float operand's dtype as a descriptor gives it: 0 reads as f32
 * (written back into *t); 1 when it is then a float storage type. */
int clforge__float_dtype_ok(clforge_dtype *t);

/* *out = a * b, 1; or 0 when the product overflows size_t (element counts
 * and byte sizes of a descriptor's tensors). */
int clforge__size_mul(size_t a, size_t b, size_t *out);

/* 1 for s8 and u8. */
int clforge__dtype_is_int8(clforge_dtype dtype);

#endif
