/* The softmax family's parameter indices and problem variants
 * (src/kernels/softmax.c, cl/softmax.cl). */
#ifndef CLFORGE_SRC_KERNELS_SOFTMAX_H
#define CLFORGE_SRC_KERNELS_SOFTMAX_H

/* ONLINE: one-pass running max and sum (1) or max then sum (0); WG
 * work-items per row; RPW rows per work-group; VW vector width. */
enum { SOFTMAX_ONLINE, SOFTMAX_WG, SOFTMAX_RPW, SOFTMAX_VW, SOFTMAX_NPARAMS };

/* Variant bits the built-in defaults depend on: short rows (n <= 512)
 * want several rows per work-group and few items per row. */
enum { SOFTMAX_VAR_SHORT = 1 };

#endif
