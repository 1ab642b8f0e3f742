/* Every kernel family clforge has (their externs, generated from the
 * registry, registry.h) and the GEMM families' shared helpers and
 * parameter indices. Adding a family: docs/ARCHITECTURE.md's checklist. */
#ifndef CLFORGE_SRC_KERNELS_FAMILIES_H
#define CLFORGE_SRC_KERNELS_FAMILIES_H

#include "family.h"
#include "registry.h"

#define CLFORGE__FAMILY_EXTERN_TUNED(name, op) extern const clforge__family clforge__family_##name;
#define CLFORGE__FAMILY_EXTERN_PLAIN(name) extern const clforge__family clforge__family_##name;
CLFORGE__FAMILIES(CLFORGE__FAMILY_EXTERN_TUNED, CLFORGE__FAMILY_EXTERN_PLAIN)
#undef CLFORGE__FAMILY_EXTERN_TUNED
#undef CLFORGE__FAMILY_EXTERN_PLAIN

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

/* Direct GEMM */
enum { GEMMD_MWI, GEMMD_NWI, GEMMD_MDIM, GEMMD_NDIM, GEMMD_KU, GEMMD_VW, GEMMD_HALF, GEMMD_NPARAMS };

/* int8 GEMM (clforge_gemm_quantized) */
enum { GEMMI_MWI, GEMMI_NWI, GEMMI_VW, GEMMI_MDIM, GEMMI_NDIM, GEMMI_KSYNC, GEMMI_STAGE, GEMMI_DOT, GEMMI_NPARAMS };
/* conv_depthwise_int8 (cl/conv_depthwise_int8.cl) */
enum { CDWI8_VW, CDWI8_WG, CDWI8_NPARAMS };

/* Packed GEMM (pack kernels + micro-kernel): MR x NR register block of VW
 * vectors, MC x NC work-group block, KC k-block, KU unroll, ORD work-item
 * order. */
enum { GEMMP_MR, GEMMP_NR, GEMMP_VW, GEMMP_MC, GEMMP_NC, GEMMP_KC, GEMMP_KU, GEMMP_ORD, GEMMP_NPARAMS };

/* Convolution has one family per algorithm (src/families/conv_<algo>.c),
 * with the parameter indices in src/families/conv_<algo>.h where the
 * algorithm has parameters. */

/* The families the tuner knows, NULL-terminated, in the registry's order
 * (the op that tunes each: src/tuning/tune_op.h, clforge__tunables). */
extern const clforge__family *const clforge__tunable_families[];
/* Every family, NULL-terminated, in the registry's order. */
extern const clforge__family *const clforge__all_families[];

#endif
