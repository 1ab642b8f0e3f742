/* The softmax_backward family's parameter indices
 * (src/families/softmax_backward.c, cl/softmax_backward.cl). Its problem
 * variants are the forward's (SOFTMAX_VAR_SHORT, src/families/softmax.h). */
#ifndef CLFORGE_SRC_KERNELS_SOFTMAX_BACKWARD_H
#define CLFORGE_SRC_KERNELS_SOFTMAX_BACKWARD_H

/* EXP: built-in exp (0) or clforge's (1), for log-softmax's exp(y); WG
 * work-items per row; RPW rows per work-group; RPI rows per item, one after
 * the other (at most); VW vector width. */
enum { SMB_EXP, SMB_WG, SMB_RPW, SMB_RPI, SMB_VW, SMB_NPARAMS };

#include <stddef.h>

#include "family.h"

/* What the families laid out as this one (softmax_backward, cross_entropy)
 * share: the check of a WG x RPW work-group with `floats` of local memory
 * per work-item when WG > 1, and the GPUs' defaults for short rows. */
int clforge__row_allowed(const int *v, const clforge_device_info *dev, size_t floats, char *why, size_t why_cap);
extern const clforge__default_override clforge__row_short_overrides[];

/* Their .params for EXP WG RPW RPI VW, P the enum's prefix (softmax's
 * forward has the same five after its own), and their .defaults: the
 * forward's layout of work (its measurements: src/families/softmax.c), on
 * CPUs one work-item per row, 16-wide, clforge's exp, many rows per item
 * (short rows gain most over one row per item: `clforge bench train`); on
 * GPUs a work-group per row. */
#define CLFORGE__ROW_PARAMS(P)                                                                           \
  [P##_EXP] = {"EXP", 2, {0, 1}}, [P##_WG] = {"WG", 9, {1, 2, 4, 8, 16, 32, 64, 128, 256}},              \
  [P##_RPW] = {"RPW", 6, {1, 2, 4, 8, 16, 32}}, [P##_RPI] = {"RPI", 7, {1, 2, 4, 8, 16, 32, 64}},        \
  [P##_VW] = {"VW", 5, {1, 2, 4, 8, 16}}
/* rows: EXP WG RPW RPI VW */
#define CLFORGE__ROW_DEFAULTS                                                                            \
  CLFORGE__DEFAULTS(/* generic */ (0, 64, 1, 1, 4), /* cpu */ (1, 1, 4, 64, 16), /* nvidia */ (0, 128, 1, 1, 4), \
                    /* amd */ (0, 256, 1, 1, 4), /* intel_gpu */ (0, 128, 1, 1, 4), /* mali */ (0, 64, 1, 1, 4), \
                    /* adreno */ (0, 128, 1, 1, 4))

#endif
