/* Descriptor of the conv_implicit_gemm family (cl/conv_implicit_gemm.cl):
 * a register-blocked GEMM micro-kernel whose A tiles are gathered from x
 * on the fly and whose filter blocks are staged transposed in local memory. */
#include <stdio.h>

#include "conv_classes.h"
#include "conv_implicit_gemm.h"
#include "families.h"
#include "gemm_packed.h"

#define SAME_INDEX(name) ((int)CIG_##name == (int)GEMMP_##name)
_Static_assert(SAME_INDEX(MR) && SAME_INDEX(NR) && SAME_INDEX(VW) && SAME_INDEX(MC) && SAME_INDEX(NC) && SAME_INDEX(KC) &&
                   SAME_INDEX(KU),
               "the packed GEMM's block check reads the same indices");
#undef SAME_INDEX

static int cig_allowed(const int *v, const clforge_device_info *dev, char *why, size_t why_cap) {
  const int nc = v[CIG_NC], kc = v[CIG_KC];
  if (!clforge__packed_block_allowed(v, dev, why, why_cap)) return 0;
  /* The contiguous-channel kernel: DMR*DNR accumulators, DMR x vectors and a filter vector in 32 registers. */
  if (v[CIG_DMR] * v[CIG_DNR] + v[CIG_DMR] + 1 > 32) {
    CLFORGE__WHY(why, why_cap, "DMR*DNR + DMR + 1 = %d vectors exceed 32", v[CIG_DMR] * v[CIG_DNR] + v[CIG_DMR] + 1);
    return 0;
  }
  if (kc % v[CIG_KU]) {
    CLFORGE__WHY(why, why_cap, "KC %% KU must be 0 (KC=%d KU=%d)", kc, v[CIG_KU]);
    return 0;
  }
  unsigned long long local = 4ull * (unsigned long long)kc * (unsigned long long)nc;
  if (local > dev->local_mem_bytes) {
    CLFORGE__WHY(why, why_cap, "%llu bytes of local memory (KC*NC floats) exceed the device's %llu", local,
             (unsigned long long)dev->local_mem_bytes);
    return 0;
  }
  return 1;
}

/* clang-format off */
const clforge__family clforge__family_conv_implicit_gemm = {
    .name = "conv_implicit_gemm",
    .sources = (const char *const[]){"conv_base", "conv_implicit_gemm", NULL},
    .kernel = "clforge_conv_implicit_gemm",
    .nparams = CIG_NPARAMS,
    .params = {
        [CIG_MR] = {"MR", 8, {1, 2, 4, 6, 8, 12, 14, 16}},
        [CIG_NR] = {"NR", 6, {4, 8, 16, 32, 48, 64}},
        [CIG_VW] = {"VW", 5, {1, 2, 4, 8, 16}},
        [CIG_MC] = {"MC", 14, {4, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512}},
        [CIG_NC] = {"NC", 7, {8, 16, 32, 64, 96, 128, 256}},
        [CIG_KC] = {"KC", 7, {4, 8, 16, 32, 64, 128, 256}},
        [CIG_KU] = {"KU", 3, {1, 2, 4}},
        [CIG_DMR] = {"DMR", 7, {1, 2, 3, 4, 5, 6, 8}},
        [CIG_DNR] = {"DNR", 7, {1, 2, 3, 4, 5, 6, 8}},
        [CIG_DVW] = {"DVW", 3, {4, 8, 16}},
    },
    /* rows: MR  NR  VW  MC   NC  KC  KU DMR DNR DVW */
    .defaults = CLFORGE__DEFAULTS(
        /* generic */ (4, 16, 4, 64, 64, 16, 1, 2, 4, 4), /* cpu */ (12, 32, 16, 24, 32, 64, 2, 3, 6, 16),
        /* nvidia */ (4, 16, 4, 64, 64, 16, 1, 2, 4, 4), /* amd */ (4, 16, 4, 64, 64, 16, 1, 2, 4, 4),
        /* intel_gpu */ (4, 16, 4, 64, 64, 16, 1, 2, 4, 4), /* mali */ (4, 8, 4, 32, 32, 16, 1, 2, 4, 4),
        /* adreno */ (4, 8, 4, 32, 32, 16, 1, 2, 4, 4)),
    .allowed = cig_allowed,
    .classes = (const clforge__shape_class[]){
        CLFORGE_CONV_CLASS_R50_3X3_56, CLFORGE_CONV_CLASS_R50_3X3_56_N1,
        CLFORGE_CONV_CLASS_R50_3X3_28, CLFORGE_CONV_CLASS_R50_3X3_28_N1,
        CLFORGE_CONV_CLASS_R50_1X1_56, CLFORGE_CONV_CLASS_R50_1X1_56_N1,
        CLFORGE_CONV_CLASS_R50_7X7S2, CLFORGE_CONV_CLASS_R50_7X7S2_N1,
        CLFORGE_CONV_CLASS_MBV2_1X1_112, CLFORGE_CONV_CLASS_MBV2_1X1_112_N1,
        CLFORGE_CONV_CLASS_ALEX_11X11S4, CLFORGE_CONV_CLASS_ALEX_11X11S4_N1,
        CLFORGE_CONV_CLASS_END},
};
/* clang-format on */
