/* The packed GEMM family's parameter indices (src/families/gemm_packed.c):
 * pack kernels + micro-kernel, an MR x NR register block of VW vectors,
 * MC x NC work-group block, KC k-block, KU unroll, ORD work-item order. */
#ifndef CLFORGE_SRC_FAMILIES_GEMM_PACKED_H
#define CLFORGE_SRC_FAMILIES_GEMM_PACKED_H

enum { GEMMP_MR, GEMMP_NR, GEMMP_VW, GEMMP_MC, GEMMP_NC, GEMMP_KC, GEMMP_KU, GEMMP_ORD, GEMMP_NPARAMS };

#endif
