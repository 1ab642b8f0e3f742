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

#endif
