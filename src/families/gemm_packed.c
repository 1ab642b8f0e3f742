/* Descriptor of the packed GEMM family: the micro-kernel (cl/gemm_base.cl +
 * cl/gemm_common.cl + cl/gemm_packed.cl, .sources) and the pack kernel
 * (cl/gemm_base.cl + cl/gemm_pack.cl, built by src/ops/gemm_packed.c with the
 * panel widths MR and NR: both sides' contract), from one set of parameters. */
#include <stdio.h>

#include "families.h"

int clforge__packed_block_allowed(const int *v, const clforge_device_info *dev, char *why, size_t why_cap) {
  const int mr = v[GEMMP_MR], nr = v[GEMMP_NR], vw = v[GEMMP_VW], mc = v[GEMMP_MC], nc = v[GEMMP_NC];
  if (nr % vw || mc % mr || nc % nr) {
    CLFORGE__WHY(why, why_cap, "NR %% VW, MC %% MR and NC %% NR must be 0 (MR=%d NR=%d VW=%d MC=%d NC=%d)", mr, nr, vw, mc,
             nc);
    return 0;
  }
  size_t wgs = (size_t)(mc / mr) * (size_t)(nc / nr);
  if (!clforge__family_wg_fits(wgs, dev, why, why_cap)) return 0;
  if (mr * (nr / vw) > 28) {
    CLFORGE__WHY(why, why_cap, "MR*(NR/VW) = %d accumulators exceed 28", mr * (nr / vw));
    return 0;
  }
  if (mr * nr > 512) {
    CLFORGE__WHY(why, why_cap, "MR*NR = %d exceeds 512", mr * nr);
    return 0;
  }
  if (mr * (nr / vw) * v[GEMMP_KU] > 128) {
    CLFORGE__WHY(why, why_cap, "MR*(NR/VW)*KU = %d exceeds 128", mr * (nr / vw) * v[GEMMP_KU]);
    return 0;
  }
  return 1;
}

static int packed_allowed(const int *v, const clforge_device_info *dev, char *why, size_t why_cap) {
  if (!clforge__packed_block_allowed(v, dev, why, why_cap)) return 0;
  if (v[GEMMP_KC] % v[GEMMP_KU]) {
    CLFORGE__WHY(why, why_cap, "KC %% KU must be 0 (KC=%d KU=%d)", v[GEMMP_KC], v[GEMMP_KU]);
    return 0;
  }
  return 1;
}

/* One spelling per kernel: the work-item order means nothing when the
 * work-group has one row or one column of work-items. */
static void packed_canonical(int *v) {
  if (v[GEMMP_MC] == v[GEMMP_MR] || v[GEMMP_NC] == v[GEMMP_NR]) v[GEMMP_ORD] = 0;
}

/* clang-format off */
const clforge__family clforge__family_gemm_packed = {
    .name = "gemm_packed",
    .sources = (const char *const[]){"gemm_base", "gemm_operands", "gemm_common", "gemm_packed", NULL},
    .kernel = "clforge_gemm_packed",
    .nparams = GEMMP_NPARAMS,
    .params = {
        [GEMMP_MR] = {"MR", 7, {2, 4, 6, 8, 12, 14, 16}},
        [GEMMP_NR] = {"NR", 5, {8, 16, 32, 48, 64}},
        [GEMMP_VW] = {"VW", 3, {4, 8, 16}},
        [GEMMP_MC] = {"MC", 13, {8, 12, 16, 24, 32, 48, 56, 64, 96, 112, 128, 192, 256}},
        [GEMMP_NC] = {"NC", 9, {16, 32, 64, 96, 128, 192, 256, 384, 512}},
        [GEMMP_KC] = {"KC", 7, {32, 64, 128, 192, 256, 384, 512}},
        [GEMMP_KU] = {"KU", 4, {1, 2, 4, 8}},
        [GEMMP_ORD] = {"ORD", 2, {0, 1}},
    },
    /* rows: MR NR  VW  MC   NC  KC  KU ORD */
    .defaults = CLFORGE__DEFAULTS(
        /* generic */ (4, 16, 4, 32, 64, 64, 1, 0), /* cpu */ (12, 32, 16, 24, 32, 384, 2, 0),
        /* nvidia */ (4, 16, 4, 64, 64, 64, 1, 0), /* amd */ (4, 16, 4, 64, 64, 64, 1, 0),
        /* intel_gpu */ (4, 16, 4, 32, 64, 64, 1, 0), /* mali */ (4, 16, 4, 32, 64, 64, 1, 0),
        /* adreno */ (4, 16, 4, 32, 64, 64, 1, 0)),
    /* n <= 16 (MobileNetV2's 1x1 layers to 16 channels): panels of 16
     * columns, one of them per work-group, instead of half of a 32-wide one
     * computed for nothing (MobileNetV2's 1x1 layers: docs/performance.md). */
    .overrides = (const clforge__default_override[]){
        {CLFORGE_DEVICE_CLASS_CPU, GEMM_VAR_N16, GEMM_VAR_N16, GEMMP_NR, 16},
        {CLFORGE_DEVICE_CLASS_CPU, GEMM_VAR_N16, GEMM_VAR_N16, GEMMP_NC, 16},
        {CLFORGE_DEVICE_CLASS_GENERIC, 0, 0, -1, 0}},
    .allowed = packed_allowed,
    .canonical = packed_canonical,
    /* The classes where packing can pay (the tiled family's big ones): the
     * tuner measures both families on them and calls take the faster. */
    .classes = (const clforge__shape_class[]){
        {"large", {1024, 1024, 1024}, 2.0},
        {"huge", {2048, 2048, 2048}, 2.0},
        {"medium", {512, 512, 512}, 1.0},
        {NULL, {0}, 0}},
};
/* clang-format on */
