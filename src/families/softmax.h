/* The softmax family's parameter indices and problem variants
 * (src/families/softmax.c, cl/softmax.cl). */
#ifndef CLFORGE_SRC_KERNELS_SOFTMAX_H
#define CLFORGE_SRC_KERNELS_SOFTMAX_H

/* ONLINE: one-pass running max and sum (1) or max then sum (0); STASH:
 * (two-pass softmax, f32 y) exp values kept in y between the passes; EXP:
 * built-in exp (0) or clforge's polynomial (1); WG work-items per row; RPW
 * rows per work-group (items along dimension 1); RPI rows per item, one
 * after the other (the next row's first pass fused into this row's last:
 * at most, fewer when there are few rows); VW vector width. */
enum { SOFTMAX_ONLINE, SOFTMAX_STASH, SOFTMAX_EXP, SOFTMAX_WG, SOFTMAX_RPW, SOFTMAX_RPI, SOFTMAX_VW, SOFTMAX_NPARAMS };

/* Variant bits the built-in defaults depend on: short rows (n <= 512)
 * want several rows per work-group and few items per row. */
enum { SOFTMAX_VAR_SHORT = 1 };

#endif
