/* Descriptor of the direct GEMM family (cl/gemm_base.cl + cl/gemm_operands.cl + cl/gemm_common.cl + cl/gemm_direct.cl). */
#include <stdio.h>

#include "families.h"

static int direct_allowed(const int *v, const clforge_device_info *dev, char *why, size_t why_cap) {
  if (!clforge__gemm_half_allowed(v[GEMMD_HALF], 0, dev, why, why_cap)) return 0;
  if (v[GEMMD_MWI] * v[GEMMD_NWI] * v[GEMMD_KU] > 32) { /* compile time, as for the tiled family */
    CLFORGE__WHY(why, why_cap, "MWID*NWID*KUD = %d exceeds 32", v[GEMMD_MWI] * v[GEMMD_NWI] * v[GEMMD_KU]);
    return 0;
  }
  size_t wgs = (size_t)v[GEMMD_MDIM] * (size_t)v[GEMMD_NDIM];
  return clforge__family_wg_fits(wgs, dev, why, why_cap);
}

/* clang-format off */
const clforge__family clforge__family_gemm_direct = {
    .name = "gemm_direct",
    .sources = (const char *const[]){"gemm_base", "gemm_operands", "gemm_common", "gemm_direct", NULL},
    .kernel = "clforge_gemm_direct",
    .nparams = GEMMD_NPARAMS,
    .params = {
        [GEMMD_MWI] = {"MWID", 4, {1, 2, 4, 8}},
        [GEMMD_NWI] = {"NWID", 4, {1, 2, 4, 8}},
        [GEMMD_MDIM] = {"MDIMD", 5, {1, 2, 4, 8, 16}},
        [GEMMD_NDIM] = {"NDIMD", 7, {1, 2, 4, 8, 16, 32, 64}},
        [GEMMD_KU] = {"KUD", 3, {1, 2, 4}},
        [GEMMD_VW] = {"VW", 5, {1, 2, 4, 8, 16}},
        /* as the tiled family's; 2 adds the f16 sums into f32 every 32 k */
        [GEMMD_HALF] = {"HALF", 3, {0, 1, 2}},
    },
    /* rows: MWID NWID MDIMD NDIMD KUD VW (HALF: 0) */
    .defaults = CLFORGE__DEFAULTS(
        /* generic */ (2, 2, 8, 8, 1, 1), /* cpu */ (4, 2, 2, 4, 1, 16), /* nvidia */ (2, 2, 8, 32, 2, 1),
        /* amd */ (2, 2, 8, 32, 2, 1), /* intel_gpu */ (2, 2, 8, 16, 2, 2), /* mali */ (2, 2, 4, 16, 1, 4),
        /* adreno */ (2, 2, 8, 16, 1, 4)),
    /* CPUs: a narrow C (n < 64) wants one 16-wide vector per work-item and
     * more rows, not columns the work-group would mostly clamp. */
    .overrides = (const clforge__default_override[]){
        {CLFORGE_DEVICE_CLASS_CPU, GEMM_VAR_NARROW, GEMM_VAR_NARROW, GEMMD_NWI, 1},
        {CLFORGE_DEVICE_CLASS_CPU, GEMM_VAR_NARROW, GEMM_VAR_NARROW, GEMMD_MWI, 8},
        {CLFORGE_DEVICE_CLASS_CPU, GEMM_VAR_NARROW, GEMM_VAR_NARROW, GEMMD_MDIM, 8},
        {CLFORGE_DEVICE_CLASS_CPU, GEMM_VAR_NARROW, GEMM_VAR_NARROW, GEMMD_NDIM, 1},
        {CLFORGE_DEVICE_CLASS_GENERIC, 0, 0, -1, 0}},
    .precision_params = 1u << GEMMD_HALF,
    .allowed = direct_allowed,
    /* The direct kernel runs small problems whole, and the other classes'
     * edges (those find this entry as the nearest tuned shape). */
    .classes = (const clforge__shape_class[]){
        {"small", {64, 64, 64}, 2.0}, /* the whole of every small call */
        {NULL, {0}, 0}},
};
/* clang-format on */
