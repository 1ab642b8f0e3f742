/* Parameter indices of the conv_implicit_gemm family (src/families/conv_implicit_gemm.c). */
#ifndef CLFORGE_SRC_KERNELS_CONV_IMPLICIT_GEMM_H
#define CLFORGE_SRC_KERNELS_CONV_IMPLICIT_GEMM_H

/* MR..KU: the staged kernel (any layout); DMR, DNR, DVW: the contiguous-channel
 * kernel (NHWC x with KRSC filters), see cl/conv_implicit_gemm.cl. */
enum { CIG_MR, CIG_NR, CIG_VW, CIG_MC, CIG_NC, CIG_KC, CIG_KU, CIG_DMR, CIG_DNR, CIG_DVW, CIG_NPARAMS };

#endif
