/* The direct GEMM family's parameter indices (src/families/gemm_direct.c). */
#ifndef CLFORGE_SRC_FAMILIES_GEMM_DIRECT_H
#define CLFORGE_SRC_FAMILIES_GEMM_DIRECT_H

enum { GEMMD_MWI, GEMMD_NWI, GEMMD_MDIM, GEMMD_NDIM, GEMMD_KU, GEMMD_VW, GEMMD_HALF, GEMMD_NPARAMS };

#endif
