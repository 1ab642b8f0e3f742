/* The fused attention algorithm (cl/attention_fused.cl): one launch, a
 * work-group per block of BQ queries of one (b, h) streaming K and V once
 * with an online softmax; no workspace, no Sq x Sk buffer. Global size
 * (ceil(Sq / BQ) * WGQ, Hq, B). */
#include <stdint.h>
#include <stdio.h>

#include "../core/context.h"
#include "../core/error.h"
#include "../families/attention_fused.h"
#include "../families/families.h"
#include "attention_algo.h"

static int supports(clforge_context ctx, const clforge__attn *d, char *why, size_t cap) {
  (void)ctx;
  /* Rows and keys are ints in the kernel (attn_key_range). */
  if (d->sq > INT32_MAX / 2 || d->sk > INT32_MAX / 2) {
    snprintf(why, cap, "Sq = %zu or Sk = %zu is past 2^30", d->sq, d->sk);
    return 0;
  }
  if (d->hq > UINT32_MAX || d->b > UINT32_MAX) {
    snprintf(why, cap, "B = %zu or Hq = %zu is past 2^32", d->b, d->hq);
    return 0;
  }
  return 1;
}

static int splits(clforge_context ctx, const clforge__attn *d, const int *v) {
  (void)ctx, (void)d, (void)v;
  return 1;
}

static clforge_status enqueue(const clforge__attn_exec *e) {
  clforge_context ctx = e->ctx;
  const clforge__attn *d = e->d;
  const int *v = e->v;
  const size_t wgq = (size_t)v[ATTF_WGQ], bq = wgq * (size_t)v[ATTF_VW] * (size_t)v[ATTF_QW];
  /* Unit d strides let the staging load rows as vectors; f32 rows with
   * them need no private copy at all (docs/performance.md). */
  const int ku = d->k.stride[3] == 1, vu = d->v.stride[3] == 1;
  /* paged rows and the half variant's f16 rows are staged */
  const int direct = ku && vu && d->k.type == CLFORGE_F32 && !v[ATTF_STAGE] && !d->page && !v[ATTF_HALF];
  char extra[64];
  /* CPUs widen f16 with vload_half (one instruction with F16C); other
   * drivers keep cl/common.cl's integer route (vload_half is a slow
   * routine on some) */
  const int hcvt = ctx->info.device_class == CLFORGE_DEVICE_CLASS_CPU;
  snprintf(extra, sizeof extra, "-DK_UNIT=%d -DV_UNIT=%d -DKV_DIRECT=%d -DHCVT=%d", ku, vu, direct, hcvt);
  cl_kernel k;
  clforge_status st =
      clforge__attn_kernel(ctx, &clforge__family_attention_fused, "clforge_attention_fused", v, d, extra, wgq, &k);
  if (st != CLFORGE_SUCCESS) return st;

  const size_t nqb = (d->sq + bq - 1) / bq;
  const size_t global[3] = {nqb * wgq, d->hq, d->b};
  const size_t local[3] = {wgq, 1, 1};
  /* Absent optional buffers: a dummy the kernel never touches (HAS_* 0). */
  const cl_mem mask = e->mask ? e->mask : e->q, lse = e->lse ? e->lse : e->o;
  cl_uint a = 0;
  cl_int err = clSetKernelArg(k, a++, sizeof(cl_mem), &e->q);
  err |= clforge__attn_tensor_args(k, &a, &d->q);
  err |= clSetKernelArg(k, a++, sizeof(cl_mem), &e->k);
  err |= clforge__attn_tensor_args(k, &a, &d->k);
  err |= clSetKernelArg(k, a++, sizeof(cl_mem), &e->v_);
  err |= clforge__attn_tensor_args(k, &a, &d->v);
  err |= clSetKernelArg(k, a++, sizeof(cl_mem), &e->o);
  err |= clforge__attn_tensor_args(k, &a, &d->o);
  err |= clSetKernelArg(k, a++, sizeof(cl_mem), &mask);
  err |= clforge__attn_tensor_args(k, &a, &d->mask);
  err |= clSetKernelArg(k, a++, sizeof(cl_mem), &lse);
  err |= clforge__attn_tensor_args(k, &a, &d->lse);
  err |= clforge__attn_common_args(k, &a, e);
  if (err != CL_SUCCESS) return clforge__fail_cl(ctx, err, "clSetKernelArg (attention fused)");
  return clforge__launch(ctx, k, 3, global, local, e->nwait, e->wait, e->event, "clEnqueueNDRangeKernel (attention fused)");
}

const clforge__attn_algo_impl clforge__attention_fused = {
    .algo = CLFORGE_ATTENTION_ALGO_FUSED,
    .name = "fused",
    .family = &clforge__family_attention_fused,
    .supports = supports,
    .splits = splits,
    .enqueue = enqueue,
};
