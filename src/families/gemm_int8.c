/* Descriptor of the int8 GEMM family (cl/gemm_base.cl + cl/gemm_operands.cl + cl/gemm_int8.cl). */
#include <stdio.h>

#include "families.h"

static int int8_allowed(const int *v, const clforge_device_info *dev, char *why, size_t why_cap) {
  if (v[GEMMI_MWI] * v[GEMMI_NWI] * v[GEMMI_VW] > 256) { /* f32 and s32 accumulators of each */
    CLFORGE__WHY(why, why_cap, "MWI*NWI*VW = %d exceeds 256", v[GEMMI_MWI] * v[GEMMI_NWI] * v[GEMMI_VW]);
    return 0;
  }
  /* STAGE: 32 k of the group's rows and columns as f32 in local memory */
  const unsigned long long local = 4ull * 32 *
      ((unsigned long long)v[GEMMI_MDIM] * (unsigned)v[GEMMI_MWI] +
       (unsigned long long)v[GEMMI_NDIM] * (unsigned)v[GEMMI_NWI] * (unsigned)v[GEMMI_VW]);
  if (v[GEMMI_STAGE] && local > dev->local_mem_bytes) {
    CLFORGE__WHY(why, why_cap, "%llu bytes of local memory exceed the device's %llu", local,
                 (unsigned long long)dev->local_mem_bytes);
    return 0;
  }
  /* DOT: packed 4 x 8-bit dot products (cl_khr_integer_dot_product);
   * elsewhere its emulation would only be slower (tests force the bit) */
  if (v[GEMMI_DOT] == 1 && !(dev->caps & CLFORGE_CAP_INTEGER_DOT)) {
    CLFORGE__WHY(why, why_cap, "DOT=1 needs cl_khr_integer_dot_product, which the device does not have");
    return 0;
  }
  /* DOT=2: plain byte products along k (any device; VNNI where the compiler
   * vectorizes the k loop: Intel's CPU runtime), one column a work-item */
  if (v[GEMMI_DOT] == 2 && v[GEMMI_VW] != 1) {
    CLFORGE__WHY(why, why_cap, "DOT=2 keeps one column a work-item: VW must be 1");
    return 0;
  }
  if (v[GEMMI_DOT] && v[GEMMI_STAGE]) {
    CLFORGE__WHY(why, why_cap, "DOT=1 reads A and B packed from global memory: STAGE must be 0");
    return 0;
  }
  const size_t wgs = (size_t)v[GEMMI_MDIM] * (size_t)v[GEMMI_NDIM];
  return clforge__family_wg_fits(wgs, dev, why, why_cap);
}

/* Staging synchronizes the group already: KSYNC adds nothing then. */
static void int8_canonical(int *v) {
  if (v[GEMMI_STAGE]) v[GEMMI_KSYNC] = 0;
}

/* clang-format off */
const clforge__family clforge__family_gemm_int8 = {
    .name = "gemm_int8",
    .sources = (const char *const[]){"gemm_base", "gemm_operands", "int8_epilogue", "gemm_int8", NULL},
    .kernel = "clforge_gemm_int8",
    .nparams = GEMMI_NPARAMS,
    .params = {
        [GEMMI_MWI] = {"MWI", 4, {1, 2, 4, 8}},
        [GEMMI_NWI] = {"NWI", 3, {1, 2, 4}},
        [GEMMI_VW] = {"VW", 5, {1, 2, 4, 8, 16}},
        [GEMMI_MDIM] = {"MDIM", 5, {1, 2, 4, 8, 16}},
        [GEMMI_NDIM] = {"NDIM", 6, {1, 2, 4, 8, 16, 32}},
        [GEMMI_KSYNC] = {"KSYNC", 2, {0, 1}},
        [GEMMI_STAGE] = {"STAGE", 2, {0, 1}},
        [GEMMI_DOT] = {"DOT", 3, {0, 1, 2}},
    },
    /* CPUs: 4 rows x 4 vectors of 16 (AVX-512) a work-item, a 4 x 4 group
     * through each k-block together (faster on PoCL than 4 x 2 vectors
     * without KSYNC); GPUs: a row per
     * work-item, 4-wide loads, 128-256 items. DOT (the integer dot
     * products) is 0 here: a device with cl_khr_integer_dot_product gets
     * DOT=1 as its default, a CPU with it DOT=2 (src/ops/gemm_quantized.c);
     * the tuner measures all three.
     *                                   MWI NWI VW MDIM NDIM KSYNC STAGE DOT */
    .defaults = CLFORGE__DEFAULTS(
        /* generic */ (2, 1, 4, 8, 8, 0), /* cpu */ (4, 4, 16, 4, 4, 1), /* nvidia */ (2, 1, 4, 8, 32, 0),
        /* amd */ (2, 1, 4, 8, 32, 0), /* intel_gpu */ (2, 1, 4, 8, 16, 0), /* mali */ (2, 1, 4, 4, 16, 0),
        /* adreno */ (2, 1, 4, 8, 16, 0)),
    .allowed = int8_allowed,
    .canonical = int8_canonical,
    /* the names of src/ops/gemm.c's classes (a call's key takes them); a
     * square GEMM and a convolution layer's (N*P*Q x K x R*S*C, K small),
     * at half a float class's share of the budget */
    .classes = (const clforge__shape_class[]){
        {"large", {1024, 1024, 1024}, 0.5},
        {"skinny_n", {1024, 64, 1024}, 0.5},
        {NULL, {0}, 0}},
};
/* clang-format on */
