/* Descriptors of the split-KV (flash-decoding) attention families
 * (cl/attention_split_kv.cl): the split pass and the combine. */
#include <stdio.h>

#include "attention_split_kv.h"
#include "attention_classes.h"
#include "families.h"

static int split_allowed(const int *v, const clforge_device_info *dev, char *why, size_t why_cap) {
  /* Scores of a block per work-item, in floats (registers when unrolled). */
  const int s = v[ASKV_ROWS] * v[ASKV_KB];
  if (s > 256) {
    CLFORGE__WHY(why, why_cap, "ROWS*KB = %d scores exceed 256", s);
    return 0;
  }
  return clforge__family_wg_fits((size_t)v[ASKV_WG], dev, why, why_cap);
}

static int combine_allowed(const int *v, const clforge_device_info *dev, char *why, size_t why_cap) {
  return clforge__family_wg_fits((size_t)v[ACMB_CWG], dev, why, why_cap);
}

/* clang-format off */
const clforge__family clforge__family_attention_split_kv = {
    .name = "attention_split_kv",
    .sources = (const char *const[]){"attention_common", "attention_split_kv", NULL},
    .kernel = "clforge_attention_split_kv",
    .nparams = ASKV_NPARAMS,
    .params = {
        [ASKV_SPLITS] = {"SPLITS", 16, {0, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 256}},
        [ASKV_KB] = {"KB", 7, {1, 2, 4, 8, 16, 32, 64}},
        [ASKV_ROWS] = {"ROWS", 5, {1, 2, 4, 8, 16}},
        [ASKV_WG] = {"WG", 8, {1, 2, 4, 8, 16, 32, 64, 128}},
        [ASKV_VW] = {"VW", 5, {1, 2, 4, 8, 16}},
        [ASKV_HCVT] = {"HCVT", 2, {0, 1}},
    },
    /* CPUs: a work-item per work-group with explicit 16-wide vectors (PoCL
     * runs it as straight vector code), f16 widened by vload_half (PoCL
     * emits vcvtph2ps, faster than the integer conversion); GPUs: guesses,
     * many work-items, the integer
     * conversion (vload_half has been seen wrong on some drivers). */
    /* rows: SPLITS KB ROWS WG VW HCVT */
    .defaults = CLFORGE__DEFAULTS(
        /* generic */ (0, 16, 4, 32, 4, 0), /* cpu */ (0, 16, 4, 1, 16, 1), /* nvidia */ (0, 16, 4, 64, 4, 0),
        /* amd */ (0, 16, 4, 64, 4, 0), /* intel_gpu */ (0, 16, 4, 32, 4, 0), /* mali */ (0, 16, 4, 32, 4, 0),
        /* adreno */ (0, 16, 4, 32, 4, 0)),
    .overrides = (const clforge__default_override[]){{CLFORGE_DEVICE_CLASS_GENERIC, 0, 0, -1, 0}},
    .allowed = split_allowed,
    .classes = (const clforge__shape_class[]){CLFORGE_ATTN_CLASS_DECODE_SK1024, CLFORGE_ATTN_CLASS_DECODE_SK8192,
                                              CLFORGE_ATTN_CLASS_DECODE_SQ8_SK4096, CLFORGE_ATTN_CLASS_END},
};

const clforge__family clforge__family_attention_combine = {
    .name = "attention_combine",
    .sources = (const char *const[]){"attention_common", "attention_split_kv", NULL},
    .kernel = "clforge_attention_combine",
    .nparams = ACMB_NPARAMS,
    .params = {
        [ACMB_CWG] = {"CWG", 7, {1, 2, 4, 8, 16, 32, 64}},
        [ACMB_CVW] = {"CVW", 5, {1, 2, 4, 8, 16}},
    },
    /* rows: CWG CVW */
    .defaults = CLFORGE__DEFAULTS(
        /* generic */ (32, 1), /* cpu */ (16, 1), /* nvidia */ (32, 1), /* amd */ (64, 1), /* intel_gpu */ (32, 1),
        /* mali */ (32, 1), /* adreno */ (32, 1)),
    .overrides = (const clforge__default_override[]){{CLFORGE_DEVICE_CLASS_GENERIC, 0, 0, -1, 0}},
    .allowed = combine_allowed,
};
/* clang-format on */
