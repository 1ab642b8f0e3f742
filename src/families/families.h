/* Every kernel family clforge has; adding one means a cl/ file, a
 * descriptor here and an op in src/ops/. */
#ifndef CLFORGE_SRC_KERNELS_FAMILIES_H
#define CLFORGE_SRC_KERNELS_FAMILIES_H

#include "family.h"

extern const clforge__family clforge__family_convert;

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

/* How the tuner runs GEMM (src/ops/gemm_tune.c). */
extern const struct clforge__tune_op clforge__tune_gemm;
extern const struct clforge__tune_op clforge__tune_gemm_quantized; /* src/ops/gemm_quantized_tune.c */

/* Tiled GEMM: parameter indices into values[] */
enum { GEMM_MWG, GEMM_NWG, GEMM_MWI, GEMM_NWI, GEMM_KWG, GEMM_VW, GEMM_SA, GEMM_SB, GEMM_KU, GEMM_KSYNC, GEMM_HALF,
       GEMM_NPARAMS };
extern const clforge__family clforge__family_gemm;

/* Direct GEMM */
enum { GEMMD_MWI, GEMMD_NWI, GEMMD_MDIM, GEMMD_NDIM, GEMMD_KU, GEMMD_VW, GEMMD_HALF, GEMMD_NPARAMS };
extern const clforge__family clforge__family_gemm_direct;

/* int8 GEMM (clforge_gemm_quantized) */
enum { GEMMI_MWI, GEMMI_NWI, GEMMI_VW, GEMMI_MDIM, GEMMI_NDIM, GEMMI_KSYNC, GEMMI_STAGE, GEMMI_DOT, GEMMI_NPARAMS };
/* conv_depthwise_int8 (cl/conv_depthwise_int8.cl) */
enum { CDWI8_VW, CDWI8_WG, CDWI8_NPARAMS };
extern const clforge__family clforge__family_gemm_int8;

/* Packed GEMM (pack kernels + micro-kernel): MR x NR register block of VW
 * vectors, MC x NC work-group block, KC k-block, KU unroll, ORD work-item
 * order. */
enum { GEMMP_MR, GEMMP_NR, GEMMP_VW, GEMMP_MC, GEMMP_NC, GEMMP_KC, GEMMP_KU, GEMMP_ORD, GEMMP_NPARAMS };
extern const clforge__family clforge__family_gemm_packed;

/* Convolution: one family per algorithm (src/families/conv_<algo>.c, with
 * the parameter indices in src/families/conv_<algo>.h where the algorithm
 * has parameters), and how the tuner runs convolution (src/ops/conv_tune.c). */
extern const clforge__family clforge__family_conv_direct;
extern const clforge__family clforge__family_conv_implicit_gemm;
extern const clforge__family clforge__family_conv_gemm_1x1;
extern const clforge__family clforge__family_conv_im2col;
extern const clforge__family clforge__family_conv_winograd_2x2;
extern const clforge__family clforge__family_conv_winograd_4x4;
extern const clforge__family clforge__family_conv_fft;
extern const clforge__family clforge__family_conv_depthwise;
extern const clforge__family clforge__family_conv_depthwise_int8;
extern const struct clforge__tune_op clforge__tune_conv;
/* The backward passes' own kernels (src/families/conv_backward_*.c). */
extern const clforge__family clforge__family_conv_bwd_data_direct, clforge__family_conv_bwd_filter_direct;
extern const clforge__family clforge__family_attention_split_kv, clforge__family_attention_combine;
extern const struct clforge__tune_op clforge__tune_attention;
extern const struct clforge__tune_op clforge__tune_attention_backward; /* src/ops/attention_backward_tune.c */
extern const struct clforge__tune_op clforge__tune_softmax;
extern const clforge__family clforge__family_softmax; /* src/families/softmax.c */
extern const struct clforge__tune_op clforge__tune_softmax_backward;
extern const clforge__family clforge__family_softmax_backward; /* src/families/softmax_backward.c */
extern const struct clforge__tune_op clforge__tune_cross_entropy;
extern const clforge__family clforge__family_cross_entropy; /* src/families/cross_entropy.c */
extern const struct clforge__tune_op clforge__tune_optimizer;
extern const clforge__family clforge__family_optimizer; /* src/families/optimizer.c */
extern const clforge__family clforge__family_attention_fused;
extern const clforge__family clforge__family_activation_backward; /* src/families/activation_backward.c */
extern const clforge__family clforge__family_quantize; /* src/families/quantize.c */
extern const clforge__family clforge__family_norm; /* src/families/norm.c */
extern const clforge__family clforge__family_attention_backward; /* src/families/attention_backward.c */

/* The families the tuner knows, NULL-terminated. */
extern const clforge__family *const clforge__tunable_families[];
/* Every family, NULL-terminated. */
extern const clforge__family *const clforge__all_families[];

#endif
