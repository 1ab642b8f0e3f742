/* Descriptor of the tiled GEMM family (cl/gemm_base.cl + cl/gemm_operands.cl + cl/gemm_common.cl + cl/gemm.cl). */
#include <stdio.h>

#include "families.h"

/* One spelling per kernel, so that the tuner does not time duplicates:
 * KSYNC only acts without staging (staging synchronizes already), and with
 * neither KWG changes nothing. */
static void gemm_canonical(int *v) {
  if (v[GEMM_SA] || v[GEMM_SB]) v[GEMM_KSYNC] = 0;
  else if (!v[GEMM_KSYNC]) v[GEMM_KWG] = 8;
}

static int gemm_allowed(const int *v, const clforge_device_info *dev, char *why, size_t why_cap) {
  if (!clforge__gemm_half_allowed(v[GEMM_HALF], v[GEMM_HALF] == 2 ? v[GEMM_KWG] : 0, dev, why, why_cap)) return 0;
  const int mwg = v[GEMM_MWG], nwg = v[GEMM_NWG], mwi = v[GEMM_MWI], nwi = v[GEMM_NWI];
  if (mwg % mwi || nwg % nwi || nwi % v[GEMM_VW]) {
    CLFORGE__WHY(why, why_cap, "MWG %% MWI, NWG %% NWI and NWI %% VW must be 0 (MWG=%d MWI=%d NWG=%d NWI=%d VW=%d)", mwg,
             mwi, nwg, nwi, v[GEMM_VW]);
    return 0;
  }
  size_t wgs = (size_t)(mwg / mwi) * (size_t)(nwg / nwi);
  if (!clforge__family_wg_fits(wgs, dev, why, why_cap)) return 0;
  if (mwi * nwi > 256) { /* more accumulators than any device has registers for */
    CLFORGE__WHY(why, why_cap, "MWI*NWI = %d exceeds 256", mwi * nwi);
    return 0;
  }
  /* Vector FMAs in one unrolled step: beyond this compile times explode (minutes
   * on LLVM-based drivers) for no gain. */
  if (mwi * (nwi / v[GEMM_VW]) * v[GEMM_KU] > 128) {
    CLFORGE__WHY(why, why_cap, "MWI*(NWI/VW)*KU = %d exceeds 128", mwi * (nwi / v[GEMM_VW]) * v[GEMM_KU]);
    return 0;
  }
  unsigned long long local = 4ull * (unsigned long long)v[GEMM_KWG] *
                             (unsigned long long)(v[GEMM_SA] * mwg + v[GEMM_SB] * nwg);
  if (local > dev->local_mem_bytes) {
    CLFORGE__WHY(why, why_cap, "%llu bytes of local memory exceed the device's %llu", local,
             (unsigned long long)dev->local_mem_bytes);
    return 0;
  }
  return 1;
}

int clforge__gemm_half_allowed(int half, int interval, const clforge_device_info *dev, char *why, size_t why_cap) {
  (void)half, (void)dev; /* a device without cl_khr_fp16: the op lowers HALF to 0 (src/ops/gemm.c) */
  if (interval > 32) { /* the documented bound of 16F: at most 32 products in an f16 sum */
    CLFORGE__WHY(why, why_cap, "HALF=2 sums a k-block in f16: KWG=%d exceeds 32", interval);
    return 0;
  }
  return 1;
}

int clforge__gemm_variant(int trans_a, int trans_b, clforge_dtype a, clforge_dtype b, size_t n) {
  return (trans_a ? GEMM_VAR_TA : 0) | (trans_b ? GEMM_VAR_TB : 0) |
         (a == CLFORGE_F16 || b == CLFORGE_F16 ? GEMM_VAR_F16 : 0) | (n < 64 ? GEMM_VAR_NARROW : 0) |
         (n <= 16 ? GEMM_VAR_N16 : 0);
}

/* Below 128^3 multiply-adds the direct kernel does the whole problem (see
 * src/ops/gemm.c); a side under 256 at least 4x shorter than the other is
 * skinny; the rest is medium, large or huge by the geometric mean of m, n,
 * k (768 and 1536 apart): blocking for the cache differs between them. */
const char *clforge__gemm_shape_class(size_t m, size_t n, size_t k) {
  double mnk = (double)m * (double)n * (double)k;
  if (mnk < 128.0 * 128.0 * 128.0) return "small";
  if (m < 256 && n >= 4 * m) return "skinny_m";
  if (n < 256 && m >= 4 * n) return "skinny_n";
  return mnk < 768.0 * 768.0 * 768.0 ? "medium" : mnk < 1536.0 * 1536.0 * 1536.0 ? "large" : "huge";
}

/* clang-format off */
const clforge__family clforge__family_gemm = {
    .name = "gemm",
    .sources = (const char *const[]){"gemm_base", "gemm_operands", "gemm_common", "gemm", NULL},
    .kernel = "clforge_gemm_tiled",
    .nparams = GEMM_NPARAMS,
    .params = {
        [GEMM_MWG] = {"MWG", 4, {16, 32, 64, 128}},
        [GEMM_NWG] = {"NWG", 4, {16, 32, 64, 128}},
        [GEMM_MWI] = {"MWI", 4, {1, 2, 4, 8}},
        [GEMM_NWI] = {"NWI", 6, {1, 2, 4, 8, 16, 32}},
        [GEMM_KWG] = {"KWG", 6, {8, 16, 32, 64, 128, 256}},
        [GEMM_VW] = {"VW", 5, {1, 2, 4, 8, 16}},
        [GEMM_SA] = {"SA", 2, {0, 1}},
        [GEMM_SB] = {"SB", 2, {0, 1}},
        [GEMM_KU] = {"KU", 4, {1, 2, 4, 8}},
        [GEMM_KSYNC] = {"KSYNC", 2, {0, 1}},
        /* f32 (0); f16 products summed in f32 (1); f16 products summed in
         * f16 within each k-block, each block's sums added into f32 (2) */
        [GEMM_HALF] = {"HALF", 3, {0, 1, 2}},
    },
    /* rows: MWG NWG MWI NWI KWG VW SA SB KU KSYNC (HALF: 0) */
    .defaults = CLFORGE__DEFAULTS(
        /* generic */ (32, 32, 4, 4, 16, 4, 1, 1, 2, 0), /* cpu */ (128, 64, 8, 32, 128, 16, 0, 0, 1, 1),
        /* nvidia */ (64, 64, 4, 4, 16, 4, 1, 1, 4, 0), /* amd */ (64, 64, 4, 4, 16, 4, 1, 1, 4, 0),
        /* intel_gpu */ (64, 64, 4, 4, 16, 4, 1, 1, 2, 0), /* mali */ (32, 32, 4, 4, 16, 4, 0, 0, 2, 0),
        /* adreno */ (32, 32, 4, 4, 16, 4, 1, 1, 2, 0)),
    /* CPUs (PoCL): a transposed B is read along k, and staging it in local
     * memory (SB) turns its gathers into contiguous vector loads; f16
     * inputs want A read 4 k at a time, widened as one vector, and B
     * staged, so each element is widened once per work-group. */
    .overrides = (const clforge__default_override[]){
        {CLFORGE_DEVICE_CLASS_CPU, GEMM_VAR_TB, GEMM_VAR_TB, GEMM_SB, 1},
        {CLFORGE_DEVICE_CLASS_CPU, GEMM_VAR_F16, GEMM_VAR_F16, GEMM_KU, 4},
        {CLFORGE_DEVICE_CLASS_CPU, GEMM_VAR_F16, GEMM_VAR_F16, GEMM_SB, 1},
        {CLFORGE_DEVICE_CLASS_GENERIC, 0, 0, -1, 0}},
    .precision_params = 1u << GEMM_HALF,
    .allowed = gemm_allowed,
    .canonical = gemm_canonical,
    /* Tiles must divide the representative shapes (the tuner keeps to
     * candidates that do), so they are multiples of 128 where they can be.
     * The big classes decide the big GEMMs and cost the most to measure:
     * twice the share of the budget. */
    .classes = (const clforge__shape_class[]){
        {"large", {1024, 1024, 1024}, 2.0},
        {"huge", {2048, 2048, 2048}, 2.0},
        {"medium", {512, 512, 512}, 1.0},
        {"skinny_m", {64, 1024, 1024}, 1.0},
        {"skinny_n", {1024, 64, 1024}, 1.0},
        {NULL, {0}, 0}},
};
/* clang-format on */
