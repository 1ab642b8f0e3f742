/* What the GEMM paths share (gemm_launch.h): the kernels' build and their
 * common arguments, below both the op (gemm.c) and its packed path
 * (gemm_packed.c), so that each depends on this one way. */
#include "gemm_launch.h"

#include <stdio.h>
#include <string.h>

#include "../core/error.h"
#include "../core/program.h"
#include "../families/families.h"

clforge_status clforge__gemm_kernel(clforge_context ctx, const clforge__family *f, const char *name, const int *v,
                                    const clforge__gemm *g, size_t wgs, cl_kernel *k) {
  char opts[1024];
  if (clforge__family_options(f, v, opts, sizeof opts))
    return clforge__fail(ctx, CLFORGE_INTERNAL_ERROR, "gemm: build options too long");
  size_t used = strlen(opts);
  snprintf(opts + used, sizeof opts - used, " -DA_T=%d -DB_T=%d -DC_T=%d -DBIAS=%d -DBIAS_T=%d -DACT=%d -DTA=%d -DTB=%d -DIDX64=%d",
           (int)g->a.type, (int)g->b.type, (int)g->c.type, g->kernel_bias, (int)g->bias.type, g->act, g->a.trans,
           g->b.trans, g->idx64);
  if (g->aux_mode) { /* only when asked: the plain builds stay as they were */
    used = strlen(opts);
    snprintf(opts + used, sizeof opts - used, " -DAUX=%d -DAUX_T=%d", g->aux_mode, (int)g->aux.type);
  }
  if (g->gate) {
    used = strlen(opts);
    snprintf(opts + used, sizeof opts - used, " -DGATE=1");
  }
  if (f == &clforge__family_gemm_q8_0) { /* scalar epilogue (gemm_common.cl's vectors unused) */
    used = strlen(opts);
    snprintf(opts + used, sizeof opts - used, " -DVW=1");
  }
  if (g->a_direct) {
    used = strlen(opts);
    snprintf(opts + used, sizeof opts - used, " -DA_DIRECT=1");
  }
  clforge_status st = clforge__kernel_get(ctx, f->sources, opts, name, k);
  return st == CLFORGE_SUCCESS ? clforge__kernel_fits(ctx, *k, "gemm", f->name, opts, wgs) : st;
}

cl_int clforge__gemm_set_shared_args(cl_kernel kern, cl_uint i, const clforge__gemm *g, const clforge__gemm_buffers *bf) {
  const clforge__gemm_operand *o[3] = {&g->a, &g->b, &g->c};
  const cl_mem m[3] = {bf->a, bf->b, bf->c};
  cl_uint k = (cl_uint)g->k;
  /* alpha = 0 tells the kernels to drop the product term: with k = 0 there is
   * none (alpha * 0 would be NaN for an infinite alpha). */
  float alpha = g->k ? g->alpha : 0.0f;
  cl_int err = clSetKernelArg(kern, i++, sizeof k, &k);
  err |= clSetKernelArg(kern, i++, sizeof alpha, &alpha);
  err |= clSetKernelArg(kern, i++, sizeof g->beta, &g->beta);
  for (int j = 0; j < 3; ++j) {
    cl_ulong off = o[j]->offset, stride = o[j]->stride;
    cl_uint ld = (cl_uint)o[j]->ld;
    err |= clSetKernelArg(kern, i++, sizeof(cl_mem), &m[j]);
    err |= clSetKernelArg(kern, i++, sizeof off, &off);
    err |= clSetKernelArg(kern, i++, sizeof ld, &ld);
    err |= clSetKernelArg(kern, i++, sizeof stride, &stride);
  }
  cl_ulong boff = g->bias.offset, xoff = g->aux.offset;
  cl_mem bias = g->kernel_bias ? bf->bias : NULL, aux = g->aux_mode ? bf->aux : NULL;
  err |= clSetKernelArg(kern, i++, sizeof(cl_mem), &bias);
  err |= clSetKernelArg(kern, i++, sizeof boff, &boff);
  err |= clSetKernelArg(kern, i++, sizeof(cl_mem), &aux);
  err |= clSetKernelArg(kern, i++, sizeof xoff, &xoff);
  return err;
}
