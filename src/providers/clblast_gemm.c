/* CLBlast as a GEMM provider (see clblast_gemm.h). */
#include "clblast_gemm.h"

#include <clblast_c.h>

#include "../core/context.h"
#include "../core/error.h"

int clforge__clblast_gemm_eligible(const clforge__gemm *g) {
  /* CLBlast rejects a zero dimension; clforge defines k = 0 as C = beta C. */
  return g->m && g->n && g->k && g->a.type == CLFORGE_F32 && g->b.type == CLFORGE_F32 && g->c.type == CLFORGE_F32 && !g->bias_mode &&
         g->act == CLFORGE_ACT_NONE && !g->idx64 && !g->aux_mode && !g->gate;
}

clforge_status clforge__clblast_gemm(clforge_context ctx, const clforge__gemm *g, cl_mem a, cl_mem b, cl_mem c,
                                     cl_uint nwait, const cl_event *wait, cl_event *event) {
  /* CLBlast takes no wait list: a barrier makes its kernels wait (in-order
   * and out-of-order queues alike). */
  if (nwait) {
    cl_int err = clEnqueueBarrierWithWaitList(ctx->queue, nwait, wait, NULL);
    if (err != CL_SUCCESS) return clforge__fail_cl(ctx, err, "clEnqueueBarrierWithWaitList (gemm via CLBlast)");
  }
  const CLBlastTranspose ta = g->a.trans ? CLBlastTransposeYes : CLBlastTransposeNo;
  const CLBlastTranspose tb = g->b.trans ? CLBlastTransposeYes : CLBlastTransposeNo;
  float alpha = g->k ? g->alpha : 0.0f;
  cl_command_queue q = ctx->queue;
  CLBlastStatusCode s;
  if (g->batch == 1)
    s = CLBlastSgemm(CLBlastLayoutRowMajor, ta, tb, g->m, g->n, g->k, alpha, a, g->a.offset, g->a.ld, b, g->b.offset,
                     g->b.ld, g->beta, c, g->c.offset, g->c.ld, &q, event);
  else
    s = CLBlastSgemmStridedBatched(CLBlastLayoutRowMajor, ta, tb, g->m, g->n, g->k, alpha, a, g->a.offset, g->a.ld,
                                   g->a.stride, b, g->b.offset, g->b.ld, g->b.stride, g->beta, c, g->c.offset,
                                   g->c.ld, g->c.stride, g->batch, &q, event);
  if (s != CLBlastSuccess)
    return clforge__fail(ctx, s == CLBlastOpenCLOutOfResources || s == CLBlastTempBufferAllocFailure
                                  ? CLFORGE_OUT_OF_DEVICE_MEMORY
                                  : CLFORGE_UNSUPPORTED,
                         "gemm via CLBlast failed with CLBlast status %d", (int)s);
  return CLFORGE_SUCCESS;
}
