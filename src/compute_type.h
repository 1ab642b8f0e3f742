/* Compute types inside the library: the context default from the
 * environment, and what a kernel family's HALF parameter may be under one. */
#ifndef CLFORGE_SRC_COMPUTE_TYPE_H
#define CLFORGE_SRC_COMPUTE_TYPE_H

#include "clforge/clforge.h"

/* CLFORGE_COMPUTE_TYPE (unset or empty: 32F); an unknown name fails. */
clforge_status clforge__compute_type_env(clforge_compute_type *out);

/* The largest HALF value (0 f32, 1 f16 products with f32 sums, 2 f16
 * partial sums) a call of compute type `type` (resolved, not DEFAULT) may run. */
int clforge__half_level_allowed(clforge_compute_type type);

/* ctx's default (for files that do not see the context's struct). */
clforge_compute_type clforge__context_compute_type(clforge_context ctx);

/* The compute type a kernel with HALF = half runs. */
clforge_compute_type clforge__compute_type_of_half(int half);

#endif
