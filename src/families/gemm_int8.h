/* The int8 GEMM family's parameter indices (clforge_gemm_quantized,
 * src/families/gemm_int8.c). */
#ifndef CLFORGE_SRC_FAMILIES_GEMM_INT8_H
#define CLFORGE_SRC_FAMILIES_GEMM_INT8_H

enum { GEMMI_MWI, GEMMI_NWI, GEMMI_VW, GEMMI_MDIM, GEMMI_NDIM, GEMMI_KSYNC, GEMMI_STAGE, GEMMI_DOT, GEMMI_NPARAMS };

#endif
