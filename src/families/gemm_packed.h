/* The packed GEMM family's parameter indices (src/families/gemm_packed.c):
 * pack kernels + micro-kernel, an MR x NR register block of VW vectors,
 * MC x NC work-group block, KC k-block, KU unroll, ORD work-item order. */
#ifndef CLFORGE_SRC_FAMILIES_GEMM_PACKED_H
#define CLFORGE_SRC_FAMILIES_GEMM_PACKED_H

#include <stddef.h>

#include "clforge/clforge.h"

enum { GEMMP_MR, GEMMP_NR, GEMMP_VW, GEMMP_MC, GEMMP_NC, GEMMP_KC, GEMMP_KU, GEMMP_ORD, GEMMP_NPARAMS };

/* The register-block constraints of a packed micro-kernel, shared with
 * conv_implicit_gemm (whose first parameters are the same MR NR VW MC NC KC
 * KU): the blocks divide, the work-group fits, the accumulators fit 28 of
 * a CPU's 32 vector registers (AVX-512; the rest hold the other operand's
 * vectors and a broadcast) and 512 floats of a GPU's, and one unrolled step
 * stays within 128 vector FMAs (compile time). An allowed() without the
 * family's own constraints. */
int clforge__packed_block_allowed(const int *v, const clforge_device_info *dev, char *why, size_t why_cap);

#endif
