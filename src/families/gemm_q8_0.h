/* The q8_0-weight GEMM family's parameter indices (src/families/gemm_q8_0.c). */
#ifndef CLFORGE_SRC_FAMILIES_GEMM_Q8_0_H
#define CLFORGE_SRC_FAMILIES_GEMM_Q8_0_H

enum { GEMMQ_MR, GEMMQ_NC, GEMMQ_KS, GEMMQ_NG, GEMMQ_VK, GEMMQ_NPARAMS };

#endif
