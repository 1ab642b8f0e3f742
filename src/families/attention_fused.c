/* Descriptor of the fused attention family (cl/attention_common.cl +
 * cl/attention_fused.cl): one pass over K and V per query block. */
#include <stdio.h>

#include "attention_fused.h"
#include "attention_classes.h"
#include "families.h"

/* Private and local sizes are checked at the largest head dimensions the
 * descriptor allows (D = Dv = 256), so a value set allowed here runs every
 * problem. */
enum { ATTF_MAX_DIMS = 256 + 256 };

static int fused_allowed(const int *v, const clforge_device_info *dev, char *why, size_t why_cap) {
  const int vw = v[ATTF_VW], qw = v[ATTF_QW], wgq = v[ATTF_WGQ], tk = v[ATTF_TK];
  const int tq = vw * qw;
  if (!clforge__family_wg_fits((size_t)wgq, dev, why, why_cap)) return 0;
  /* Registers: the score tile and the P*V accumulators, in vectors
   * (32 vector registers on AVX-512 CPUs). */
  if (tk * qw > 32 || v[ATTF_DCH] * qw > 32) {
    CLFORGE__WHY(why, why_cap, "TK*QW = %d or DCH*QW = %d vectors exceed 32", tk * qw, v[ATTF_DCH] * qw);
    return 0;
  }
  /* Code size: vector FMAs in one unrolled step of Q*K^T. */
  if (tk * qw * v[ATTF_KU] > 256) {
    CLFORGE__WHY(why, why_cap, "TK*QW*KU = %d exceeds 256", tk * qw * v[ATTF_KU]);
    return 0;
  }
  /* Private memory per work-item: Q^T and the O^T accumulators (TQ rows of
   * D and Dv floats), and the staging block without local memory. */
  const size_t priv = (size_t)ATTF_MAX_DIMS * 4u * ((size_t)tq + (v[ATTF_STAGE] ? 0u : (size_t)tk));
  if (priv > 256u * 1024u) {
    CLFORGE__WHY(why, why_cap, "%zu bytes of private memory per work-item exceed 256 KiB (TQ=%d, TK=%d)", priv, tq, tk);
    return 0;
  }
  if (v[ATTF_STAGE]) {
    const size_t loc = (size_t)ATTF_MAX_DIMS * 4u * (size_t)tk;
    if (loc > dev->local_mem_bytes) {
      CLFORGE__WHY(why, why_cap, "a staged key block of %zu bytes exceeds the device's %llu of local memory", loc,
               (unsigned long long)dev->local_mem_bytes);
      return 0;
    }
  }
  if ((size_t)wgq * (size_t)tq > 1024u) {
    CLFORGE__WHY(why, why_cap, "a query block of %d exceeds 1024", wgq * tq);
    return 0;
  }
  return 1;
}

/* clang-format off */
const clforge__family clforge__family_attention_fused = {
    .name = "attention_fused",
    .sources = (const char *const[]){"attention_common", "attention_fused", NULL},
    .kernel = "clforge_attention_fused",
    .nparams = ATTF_NPARAMS,
    .params = {
        [ATTF_VW] = {"VW", 5, {1, 2, 4, 8, 16}},
        [ATTF_QW] = {"QW", 3, {1, 2, 4}},
        [ATTF_WGQ] = {"WGQ", 8, {1, 2, 4, 8, 16, 32, 64, 128}},
        [ATTF_TK] = {"TK", 6, {1, 2, 4, 8, 16, 32}},
        [ATTF_DCH] = {"DCH", 5, {1, 2, 4, 8, 16}},
        [ATTF_KU] = {"KU", 4, {1, 2, 4, 8}},
        [ATTF_STAGE] = {"STAGE", 2, {0, 1}},
        /* 0 f32; 1 f16 products summed in f32; 2 f16 sums (cl/attention_fused.cl) */
        [ATTF_HALF] = {"HALF", 3, {0, 1, 2}},
    },
    /* CPUs: one work-item per work-group holding two vectors of 16 queries
     * against blocks of 8 keys, staged privately (no barriers): 16 score
     * accumulators, each K/V broadcast feeding two FMAs (on PoCL, one
     * vector of queries against longer key blocks was slower; DCH, KU, WGQ
     * and local staging made no difference). GPUs: a work-group of 64 queries,
     * one per work-item, sharing K/V blocks in local memory. HALF 0
     * everywhere: a precision choice (gated by the call's compute type).
     *                                    VW QW WGQ TK DCH KU STAGE HALF */
    .defaults = CLFORGE__DEFAULTS(
        /* generic */ (1, 1, 64, 16, 4, 4, 1, 0), /* cpu */ (16, 2, 1, 8, 4, 2, 0, 0),
        /* nvidia */ (1, 1, 64, 16, 4, 4, 1, 0), /* amd */ (1, 1, 64, 16, 4, 4, 1, 0),
        /* intel_gpu */ (1, 1, 64, 16, 4, 4, 1, 0), /* mali */ (1, 1, 32, 16, 4, 4, 1, 0),
        /* adreno */ (1, 1, 32, 16, 4, 4, 1, 0)),
    /* CPUs, f16/bf16 Q or K/V: the K/V rows are widened into the private
     * block, so more queries share each widening (4 x 16 against blocks of
     * 4 keys: faster for f16 K/V, the same for f32). */
    .overrides = (const clforge__default_override[]){
        {CLFORGE_DEVICE_CLASS_CPU, CLFORGE__ATTN_VARIANT_HALF, CLFORGE__ATTN_VARIANT_HALF, ATTF_QW, 4},
        {CLFORGE_DEVICE_CLASS_CPU, CLFORGE__ATTN_VARIANT_HALF, CLFORGE__ATTN_VARIANT_HALF, ATTF_TK, 4},
        {CLFORGE_DEVICE_CLASS_CPU, CLFORGE__ATTN_VARIANT_HALF, CLFORGE__ATTN_VARIANT_HALF, ATTF_KU, 4},
        {CLFORGE_DEVICE_CLASS_GENERIC, 0, 0, -1, 0}},
    .allowed = fused_allowed,
    .precision_params = 1u << ATTF_HALF,
    .classes = (const clforge__shape_class[]){CLFORGE_ATTN_CLASS_PREFILL_D64_S512, CLFORGE_ATTN_CLASS_PREFILL_D64_S2048,
                                              CLFORGE_ATTN_CLASS_PREFILL_D128_S512,
                                              CLFORGE_ATTN_CLASS_PREFILL_D128_S2048_GQA, CLFORGE_ATTN_CLASS_END},
};
/* clang-format on */
