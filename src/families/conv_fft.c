/* Descriptor of the conv_fft family (cl/conv_fft.cl): the kernels around
 * clFFT's transforms (padding, pointwise product, epilogue). */
#include <stdio.h>

#include "conv_classes.h"
#include "conv_fft.h"
#include "families.h"

static int fft_allowed(const int *v, const clforge_device_info *dev, char *why, size_t why_cap) {
  if ((size_t)v[CONV_FFT_WG] > dev->max_work_group_size) {
    CLFORGE__WHY(why, why_cap, "WG = %d exceeds the device's work-group of %zu", v[CONV_FFT_WG], dev->max_work_group_size);
    return 0;
  }
  if (v[CONV_FFT_KB] * v[CONV_FFT_NB] * v[CONV_FFT_VW] > 128) { /* complex accumulators: 2 registers each */
    CLFORGE__WHY(why, why_cap, "KB*NB*VW = %d exceeds 128", v[CONV_FFT_KB] * v[CONV_FFT_NB] * v[CONV_FFT_VW]);
    return 0;
  }
  return 1;
}

/* clang-format off */
const clforge__family clforge__family_conv_fft = {
    .name = "conv_fft",
    .sources = (const char *const[]){"conv_base", "conv_fft", NULL},
    .kernel = "clforge_conv_fft_mac",
    .nparams = CONV_FFT_NPARAMS,
    .params = {
        [CONV_FFT_KB] = {"KB", 4, {1, 2, 4, 8}},
        [CONV_FFT_NB] = {"NB", 3, {1, 2, 4}},
        [CONV_FFT_VW] = {"VW", 5, {1, 2, 4, 8, 16}},
        [CONV_FFT_WG] = {"WG", 5, {1, 4, 16, 64, 128}},
        [CONV_FFT_PHASE] = {"PHASE", 2, {0, 1}},
    },
    /* rows: KB NB VW  WG PHASE */
    .defaults = CLFORGE__DEFAULTS(
        /* generic */ (4, 1, 1, 64, 1), /* cpu */ (4, 4, 8, 4, 1), /* nvidia */ (4, 1, 1, 64, 1),
        /* amd */ (4, 1, 1, 64, 1), /* intel_gpu */ (4, 1, 1, 64, 1), /* mali */ (2, 1, 4, 64, 1),
        /* adreno */ (2, 1, 4, 64, 1)),
    /* CPU: blocked, vectorized work-items for the spectrum product; scalar
     * ones were the slowest measured (docs/performance.md, "Defaults the
     * convolution families measured"). */
    .allowed = fft_allowed,
    .classes = (const clforge__shape_class[]){
        CLFORGE_CONV_CLASS_ALEX_11X11S4, CLFORGE_CONV_CLASS_ALEX_11X11S4_N1,
        CLFORGE_CONV_CLASS_R50_7X7S2, CLFORGE_CONV_CLASS_R50_7X7S2_N1,
        CLFORGE_CONV_CLASS_END},
};
/* clang-format on */
