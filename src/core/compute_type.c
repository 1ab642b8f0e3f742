/* Compute types (the math mode): names, and the CLFORGE_COMPUTE_TYPE
 * default a new context takes. */
#include "compute_type.h"

#include <stdlib.h>
#include <string.h>

#include "context.h"
#include "error.h"

const char *clforge_compute_type_name(clforge_compute_type type) {
  switch (type) {
    case CLFORGE_COMPUTE_32F: return "32f";
    case CLFORGE_COMPUTE_32F_FAST_16F: return "32f_fast_16f";
    case CLFORGE_COMPUTE_16F: return "16f";
    case CLFORGE_COMPUTE_DEFAULT: break;
  }
  return NULL;
}

clforge_status clforge__compute_type_env(clforge_compute_type *out) {
  const char *v = getenv("CLFORGE_COMPUTE_TYPE");
  *out = CLFORGE_COMPUTE_32F;
  if (!v || !*v) return CLFORGE_SUCCESS;
  for (int t = CLFORGE_COMPUTE_32F; t <= CLFORGE_COMPUTE_16F; ++t)
    if (!strcmp(v, clforge_compute_type_name((clforge_compute_type)t))) {
      *out = (clforge_compute_type)t;
      return CLFORGE_SUCCESS;
    }
  return clforge__fail(NULL, CLFORGE_INVALID_ENVIRONMENT, "CLFORGE_COMPUTE_TYPE=\"%.64s\": use 32f, 32f_fast_16f or 16f",
                       v);
}

clforge_status clforge__resolve_compute_type(clforge_context ctx, const char *op, clforge_compute_type given,
                                             clforge_compute_type *out) {
  if ((unsigned)given > CLFORGE_COMPUTE_16F)
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT,
                         "%s: compute_type = %d (0 the context's, 1 32f, 2 32f_fast_16f, 3 16f)", op, (int)given);
  *out = given ? given : ctx ? ctx->compute_type : CLFORGE_COMPUTE_32F;
  return CLFORGE_SUCCESS;
}

int clforge__half_level_allowed(clforge_compute_type type) {
  return type == CLFORGE_COMPUTE_16F ? 2 : type == CLFORGE_COMPUTE_32F_FAST_16F ? 1 : 0;
}

clforge_compute_type clforge__compute_type_of_half(int half) {
  return half >= 2 ? CLFORGE_COMPUTE_16F : half == 1 ? CLFORGE_COMPUTE_32F_FAST_16F : CLFORGE_COMPUTE_32F;
}

void clforge__gate_half(clforge_context ctx, clforge_compute_type type, int *v, int param, clforge_kernel_choice *c) {
  const int limit = (ctx->info.caps & CLFORGE_CAP_FP16) ? clforge__half_level_allowed(type) : 0;
  if (v[param] > limit) v[param] = limit == 1 && v[param] == 2 ? 1 : 0;
  c->values[param] = v[param];
  c->compute_type = clforge__compute_type_of_half(v[param]);
}

clforge__tolerance clforge__tolerance_for_compute(clforge_dtype dtype, clforge_compute_type type) {
  clforge__tolerance t = clforge__tolerance_for(dtype);
  if (type == CLFORGE_COMPUTE_32F_FAST_16F) {
    if (t.nrmse < 5e-3) t.nrmse = 5e-3;
    if (t.max_abs_scaled < 2e-2) t.max_abs_scaled = 2e-2;
  } else if (type == CLFORGE_COMPUTE_16F) {
    if (t.nrmse < 2e-2) t.nrmse = 2e-2;
    if (t.max_abs_scaled < 1e-1) t.max_abs_scaled = 1e-1;
  }
  return t;
}
