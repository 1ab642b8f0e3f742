/* The GEMM families' shared definitions (variants, shape classes, the
 * HALF rule) and the tiled GEMM's parameter indices (src/families/gemm.c). */
#ifndef CLFORGE_SRC_FAMILIES_GEMM_H
#define CLFORGE_SRC_FAMILIES_GEMM_H

#include <stddef.h>

#include "family.h"

/* GEMM problem variants (row-major view), bits that built-in defaults may
 * depend on: which operands are transposed, whether A or B is stored as f16
 * (its widening costs more than bf16's), whether C is narrow (n < 64) and whether it is
 * at most 16 wide. */
enum { GEMM_VAR_TA = 1, GEMM_VAR_TB = 2, GEMM_VAR_F16 = 4, GEMM_VAR_NARROW = 8, GEMM_VAR_N16 = 16 };

/* The variant bits of a GEMM problem (row-major view). */
int clforge__gemm_variant(int trans_a, int trans_b, clforge_dtype a, clforge_dtype b, size_t n);

/* GEMM's shape classes: "small" (the direct kernel does it all), "skinny_m",
 * "skinny_n", "medium", "large" (see gemm.c for the bounds). */
const char *clforge__gemm_shape_class(size_t m, size_t n, size_t k);

/* The GEMM families' HALF value: an f16 sum (HALF 2) of at most 32
 * products (interval: its k-block, 0 for the direct kernel's fixed 32).
 * 1 when allowed, else 0 with why. (f16 arithmetic also needs
 * cl_khr_fp16: without it the op runs HALF 0, as for a strict call.) */
int clforge__gemm_half_allowed(int half, int interval, const clforge_device_info *dev, char *why, size_t why_cap);

/* Tiled GEMM: parameter indices into values[] */
enum { GEMM_MWG, GEMM_NWG, GEMM_MWI, GEMM_NWI, GEMM_KWG, GEMM_VW, GEMM_SA, GEMM_SB, GEMM_KU, GEMM_KSYNC, GEMM_HALF,
       GEMM_NPARAMS };

#endif
