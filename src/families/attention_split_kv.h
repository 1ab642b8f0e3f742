/* The split-KV attention families' parameter indices
 * (src/families/attention_split_kv.c, cl/attention_split_kv.cl). */
#ifndef CLFORGE_SRC_KERNELS_ATTENTION_SPLIT_KV_H
#define CLFORGE_SRC_KERNELS_ATTENTION_SPLIT_KV_H

/* The split pass: SPLITS key-range splits per (batch item, kv head) (0 =
 * enough to fill the device), KB keys per block, ROWS query rows per pass,
 * WG work-items per work-group (each its own contiguous chunk of the
 * split), VW vector width along D and Dv, HCVT 1: f16 K/V widened by
 * vload_half (a hardware conversion on x86 CPUs), 0: by integer operations. */
enum { ASKV_SPLITS, ASKV_KB, ASKV_ROWS, ASKV_WG, ASKV_VW, ASKV_HCVT, ASKV_NPARAMS };

/* The combine: CWG work-items per work-group along Dv, CVW elements each. */
enum { ACMB_CWG, ACMB_CVW, ACMB_NPARAMS };

#endif
