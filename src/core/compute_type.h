/* Compute types inside the library: the context default from the
 * environment, and what a kernel family's HALF parameter may be under one. */
#ifndef CLFORGE_SRC_COMPUTE_TYPE_H
#define CLFORGE_SRC_COMPUTE_TYPE_H

#include "clforge/clforge.h"
#include "../ref/compare.h"

/* CLFORGE_COMPUTE_TYPE (unset or empty: 32F); an unknown name fails. */
clforge_status clforge__compute_type_env(clforge_compute_type *out);

/* A descriptor's compute_type checked and resolved: given, or ctx's
 * default for 0 (32F without a context: the reference). */
clforge_status clforge__resolve_compute_type(clforge_context ctx, const char *op, clforge_compute_type given,
                                             clforge_compute_type *out);

/* The largest HALF value (0 f32, 1 f16 products with f32 sums, 2 f16
 * partial sums) a call of compute type `type` (resolved, not DEFAULT) may run. */
int clforge__half_level_allowed(clforge_compute_type type);

/* ctx's default (for files that do not see the context's struct). */
clforge_compute_type clforge__context_compute_type(clforge_context ctx);

/* Validation's tolerance for a result stored as dtype by a call that may
 * have run `type`'s arithmetic: the storage's for 32F; looser for f16
 * products (3 * 2^-11 of each sum's magnitude) and f16 sums (35 * 2^-11). */
clforge__tolerance clforge__tolerance_for_compute(clforge_dtype dtype, clforge_compute_type type);

/* The gate of a family's HALF parameter v[param], whatever chose its value
 * (a tuning entry, an override): at most what a call of compute type
 * `type` (resolved) allows, 2 becoming 1 where only f16 products are, and 0
 * on a device without cl_khr_fp16 (a precision hint, not an error). c
 * records the value and the arithmetic that runs. */
void clforge__gate_half(clforge_context ctx, clforge_compute_type type, int *v, int param, clforge_kernel_choice *c);

/* The compute type a kernel with HALF = half runs. */
clforge_compute_type clforge__compute_type_of_half(int half);

#endif
