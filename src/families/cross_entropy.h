/* The cross_entropy family's parameter indices and shape classes
 * (src/families/cross_entropy.c, cl/cross_entropy.cl). */
#ifndef CLFORGE_SRC_KERNELS_CROSS_ENTROPY_H
#define CLFORGE_SRC_KERNELS_CROSS_ENTROPY_H

#include <stddef.h>

#include "family.h"
#include "softmax.h"
#include "softmax_backward.h"

/* EXP: built-in exp (0) or clforge's (1); WG work-items per row; RPW rows
 * per work-group; RPI rows per work-item (at most: the host's, not built
 * in); VW vector width. */
/* softmax_backward's layout, so that the two share their checks and GPU
 * defaults (src/families/softmax_backward.h) */
enum { CE_EXP = SMB_EXP, CE_WG = SMB_WG, CE_RPW = SMB_RPW, CE_RPI = SMB_RPI, CE_VW = SMB_VW, CE_NPARAMS = SMB_NPARAMS };

/* Problem variants: short rows (n <= 512) want several rows per
 * work-group on GPUs, as softmax's do. */
enum { CE_VAR_SHORT = SOFTMAX_VAR_SHORT };

enum { CLFORGE_CE_NDIMS = 2, CLFORGE_CE_RWG = 64 /* cl/cross_entropy.cl's RWG */ };

/* The classes (rows, n): a language model's vocabulary, an image
 * classifier's classes, few classes; NULL-terminated. */
extern const clforge__shape_class clforge__ce_classes[];

/* The class of a call with rows of n (the nearest row length, log scale). */
const char *clforge__ce_shape_class(size_t rows, size_t n);

#endif
