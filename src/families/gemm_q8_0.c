/* Descriptor of the q8_0-weight GEMM family (cl/gemm_base.cl +
 * cl/gemm_operands.cl + cl/gemm_common.cl + cl/gemm_q8_0.cl). */
#include <stdio.h>

#include "families.h"

static int q8_0_allowed(const int *v, const clforge_device_info *dev, char *why, size_t why_cap) {
  /* vector accumulators and a block's partial sums, MR x NC + MR of VK lanes */
  const int lanes = (v[GEMMQ_MR] * v[GEMMQ_NC] + v[GEMMQ_MR]) * v[GEMMQ_VK];
  if (lanes > 512) {
    CLFORGE__WHY(why, why_cap, "(MR*NC + MR)*VK = %d accumulator lanes exceed 512", lanes);
    return 0;
  }
  const unsigned long long local = 4ull * (unsigned)v[GEMMQ_KS] * (unsigned)v[GEMMQ_NG] * (unsigned)v[GEMMQ_MR] *
                                   (unsigned)v[GEMMQ_NC];
  if (v[GEMMQ_KS] > 1 && local > dev->local_mem_bytes) {
    CLFORGE__WHY(why, why_cap, "%llu bytes of local memory exceed the device's %llu", local,
                 (unsigned long long)dev->local_mem_bytes);
    return 0;
  }
  return clforge__family_wg_fits((size_t)v[GEMMQ_KS] * (size_t)v[GEMMQ_NG], dev, why, why_cap);
}

/* clang-format off */
const clforge__family clforge__family_gemm_q8_0 = {
    .name = "gemm_q8_0",
    .sources = (const char *const[]){"gemm_base", "gemm_operands", "gemm_common", "gemm_q8_0", NULL},
    .kernel = "clforge_gemm_q8_0",
    .nparams = GEMMQ_NPARAMS,
    .params = {
        [GEMMQ_MR] = {"MR", 5, {1, 2, 4, 8, 16}},
        [GEMMQ_NC] = {"NC", 3, {1, 2, 4}},
        [GEMMQ_KS] = {"KS", 6, {1, 2, 4, 8, 16, 32}},
        [GEMMQ_NG] = {"NG", 6, {1, 4, 8, 16, 32, 64}},
        [GEMMQ_VK] = {"VK", 3, {4, 8, 16}},
    },
    /* CPUs: a work-item streams two rows of W for four rows of A, whole
     * rows (KS 1), 16 items a group, 16-wide (AVX-512); GPUs: 32 items
     * split a row's blocks (a warp's worth), 4-wide, one row of W each.
     *                                   MR NC KS NG VK */
    .defaults = CLFORGE__DEFAULTS(
        /* generic */ (4, 2, 8, 8, 8), /* cpu */ (4, 2, 1, 16, 16), /* nvidia */ (4, 2, 32, 4, 4),
        /* amd */ (4, 2, 32, 4, 4), /* intel_gpu */ (4, 2, 16, 8, 8), /* mali */ (4, 2, 8, 8, 4),
        /* adreno */ (4, 2, 8, 8, 4)),
    .allowed = q8_0_allowed,
    /* decode (m = the batch, up to 16) over a Llama MLP's projection, and
     * a prefill chunk */
    .classes = (const clforge__shape_class[]){
        {"decode", {4, 2048, 2048}, 1.0},
        {"prefill", {128, 2048, 2048}, 0.5},
        {NULL, {0}, 0}},
};
/* clang-format on */
