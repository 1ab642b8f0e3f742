/* clforge_gemm's route for q8_0 weights (b_type CLFORGE_Q8_0): the whole
 * call on the gemm_q8_0 family (cl/gemm_q8_0.cl), keyed by the decode and
 * prefill classes. */
#include <stdio.h>
#include <string.h>

#include "../core/context.h"
#include "../core/error.h"
#include "../core/program.h"
#include "../families/families.h"
#include "gemm_launch.h"

/* m up to this is decode (the batch of a step), above a prefill chunk. */
#define DECODE_MAX_M 16

const char *clforge__gemm_q8_0_class(size_t m) { return m <= DECODE_MAX_M ? "decode" : "prefill"; }

clforge_status clforge__gemm_q8_0_select(clforge_context ctx, const clforge__gemm *g, int *v,
                                         clforge_kernel_choice *choice) {
  char dtypes[32];
  snprintf(dtypes, sizeof dtypes, "%s,q8_0,%s", clforge_dtype_name(g->a.type), clforge_dtype_name(g->c.type));
  clforge__problem_key key = {.dtypes = dtypes, .layout = g->a.trans ? "tt" : "nt",
                              .shape_class = clforge__gemm_q8_0_class(g->m), .ndims = 3};
  key.shape[0] = g->m, key.shape[1] = g->n, key.shape[2] = g->k;
  clforge_status st = clforge__family_select(ctx, &clforge__family_gemm_q8_0, 0, &key, v, choice);
  if (st != CLFORGE_SUCCESS) return st;
  /* rows of A a work-item holds: no more than m rounded up to a power of
   * two (decode's m of 1 or 2 would otherwise repeat its rows' products);
   * not while the tuner measures the values it asked for */
  while (!ctx->tuning_active && v[GEMMQ_MR] > 1 && (size_t)v[GEMMQ_MR] / 2 >= g->m) v[GEMMQ_MR] /= 2;
  /* a gated pair's two columns in one work-item; fewer rows of A where
   * the wider tile breaks the family's limits (accumulators, local memory) */
  if (g->gate && v[GEMMQ_NC] % 2) v[GEMMQ_NC] = 2;
  char why[160] = "";
  while (!clforge__family_gemm_q8_0.allowed(v, &ctx->info, why, sizeof why) && v[GEMMQ_MR] > 1) v[GEMMQ_MR] /= 2;
  if (!clforge__family_gemm_q8_0.allowed(v, &ctx->info, why, sizeof why))
    return clforge__fail(ctx, CLFORGE_UNSUPPORTED, "gemm: the q8_0 parameters for a gated call: %s", why);
  choice->values[GEMMQ_MR] = v[GEMMQ_MR], choice->values[GEMMQ_NC] = v[GEMMQ_NC];
  choice->compute_type = CLFORGE_COMPUTE_32F; /* f32 arithmetic whatever the call allows */
  snprintf(choice->route, sizeof choice->route, "q8_0 weights: %s", key.shape_class);
  return CLFORGE_SUCCESS;
}

clforge_status clforge__gemm_q8_0_enqueue(clforge_context ctx, const clforge__gemm *g, const clforge__gemm_buffers *bf,
                                          const int *v, cl_uint nwait, const cl_event *wait, cl_event *event) {
  const size_t ks = (size_t)v[GEMMQ_KS], ng = (size_t)v[GEMMQ_NG], mr = (size_t)v[GEMMQ_MR], nc = (size_t)v[GEMMQ_NC];
  cl_kernel kern;
  clforge_status st = clforge__gemm_kernel(ctx, &clforge__family_gemm_q8_0, clforge__family_gemm_q8_0.kernel, v, g,
                                           ks * ng, &kern);
  if (st != CLFORGE_SUCCESS) return st;
  const cl_uint m = (cl_uint)g->m, n = (cl_uint)g->n;
  cl_int err = clSetKernelArg(kern, 0, sizeof m, &m);
  err |= clSetKernelArg(kern, 1, sizeof n, &n);
  if (err != CL_SUCCESS || clforge__gemm_set_shared_args(kern, 2, g, bf) != CL_SUCCESS)
    return clforge__fail(ctx, CLFORGE_INTERNAL_ERROR, "gemm: setting the q8_0 kernel's arguments failed");
  const size_t items_n = (g->n + nc - 1) / nc;
  const size_t local[3] = {ks, ng, 1};
  const size_t global[3] = {ks * ((g->m + mr - 1) / mr), ng * ((items_n + ng - 1) / ng), g->batch};
  return clforge__launch(ctx, kern, 3, global, local, nwait, wait, event, "clEnqueueNDRangeKernel (gemm q8_0)");
}
