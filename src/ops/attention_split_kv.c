/* The split-KV (flash-decoding) attention algorithm
 * (cl/attention_split_kv.cl): every shape the descriptor allows, made for
 * small Sq. Two launches chained by an event: the split pass (a work-item
 * per chunk of one (batch item, kv head)'s keys, all its query heads and
 * queries at once) writes partials to the workspace; the combine merges
 * each row's partials into O and LSE. The workspace holds
 * B*Hq*Sq*P*(Dv+2) floats, P = SPLITS * WG chunks per (b, kv head): it
 * never grows with Sq*Sk. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "../core/context.h"
#include "../core/error.h"
#include "../families/attention_split_kv.h"
#include "../families/families.h"
#include "attention_algo.h"

static size_t ceil_div(size_t a, size_t b) { return (a + b - 1) / b; }

static int supports(clforge_context ctx, const clforge__attn *d, char *why, size_t cap) {
  (void)ctx, (void)d, (void)why, (void)cap;
  return 1;
}

/* Splits per (b, kv head) with values v: SPLITS, or when 0 enough
 * work-groups for ~3 per compute unit, never more chunks than key blocks. */
static size_t splits_of(clforge_context ctx, const clforge__attn *d, const int *v) {
  if (v[ASKV_SPLITS] > 0) return (size_t)v[ASKV_SPLITS];
  const size_t cus = ctx->info.compute_units ? ctx->info.compute_units : 1;
  const size_t heads = d->b * d->hkv, wg = (size_t)v[ASKV_WG];
  size_t s = ceil_div(3 * cus, heads);
  const size_t max_s = ceil_div(d->sk, (size_t)v[ASKV_KB]) / wg;
  if (s > max_s) s = max_s;
  return s ? s : 1;
}

static int splits(clforge_context ctx, const clforge__attn *d, const int *v) {
  const size_t s = splits_of(ctx, d, v) * (size_t)v[ASKV_WG];
  return s > INT32_MAX ? INT32_MAX : (int)s;
}

static size_t workspace(clforge_context ctx, const clforge__attn *d, const int *v) {
  const size_t p = splits_of(ctx, d, v) * (size_t)v[ASKV_WG];
  if (p == 1) return 0; /* one chunk per row: the split pass writes O and LSE itself */
  return d->b * d->hq * d->sq * p * (d->dv + 2) * sizeof(float);
}

/* The split pass's kernel (with p chunks per row) and, when p > 1, the
 * combine's; kc stays NULL when the split pass writes O and LSE itself. */
static clforge_status build_kernels(const clforge__attn_exec *e, size_t p, cl_kernel *ks, cl_kernel *kc) {
  clforge_context ctx = e->ctx;
  const clforge__attn *d = e->d;
  const int *v = e->v;
  char extra[128];
  /* Lanes move by clang's __builtin_shufflevector on CPUs (PoCL), through
   * private memory elsewhere: Oclgrind loses the initialized state of
   * shufflevector results, and a GPU driver's compiler may lack it. */
  const int shuf = strstr(ctx->info.platform_name, "Oclgrind") == NULL && (ctx->info.type & CL_DEVICE_TYPE_CPU);
  /* CPUs: prefetch 2 key blocks ahead into L1 (2x at Sk = 8192 f32 on
   * PoCL, 2 threads; 4 blocks or L2 hints were slower). */
  const int pf = shuf && d->k.stride[3] == 1 && d->v.stride[3] == 1 && (ctx->info.type & CL_DEVICE_TYPE_CPU) ? 2 : 0;
  snprintf(extra, sizeof extra, "-DKV_UNIT=%d -DASKV_SHUF=%d -DASKV_PF=%d", d->k.stride[3] == 1 && d->v.stride[3] == 1,
           shuf, pf);
  /* SPLITS only sets the launch's chunk count (the kernel reads P from its
   * global size): built with SPLITS=0 whatever the value, one program. */
  int vb[CLFORGE_MAX_PARAMS] = {0};
  memcpy(vb, v, ASKV_NPARAMS * sizeof *v);
  vb[ASKV_SPLITS] = 0;
  clforge_status st = clforge__attn_kernel(ctx, &clforge__family_attention_split_kv, "clforge_attention_split_kv", vb,
                                           d, extra, (size_t)v[ASKV_WG], ks);
  if (st != CLFORGE_SUCCESS || p == 1) return st;
  /* The combine compiles in only O's type and the index width (Dv is an
   * argument): the other problem options take fixed values, so that
   * calls differing in the rest share it. */
  clforge__attn dc = *d;
  dc.q.type = dc.k.type = dc.v.type = dc.mask.type = CLFORGE_F32;
  dc.d = dc.dv = 1, dc.has_mask = 0, dc.softcap = 0.0f, dc.causal = CLFORGE_CAUSAL_NONE, dc.page = 0;
  return clforge__attn_kernel(ctx, &clforge__family_attention_combine, "clforge_attention_combine", e->v2, &dc, NULL,
                              (size_t)e->v2[ACMB_CWG], kc);
}

/* Absent optional buffers: any buffer as a dummy (never read). */
static cl_mem mask_or_dummy(const clforge__attn_exec *e) { return e->mask ? e->mask : e->q; }
static cl_mem lse_or_dummy(const clforge__attn_exec *e) { return e->lse ? e->lse : e->o; }

static cl_int split_args(cl_kernel ks, const clforge__attn_exec *e, size_t chunk) {
  const clforge__attn *d = e->d;
  const cl_mem mask = mask_or_dummy(e), lse = lse_or_dummy(e);
  const cl_uint uchunk = (cl_uint)chunk;
  cl_uint a = 0;
  cl_int err = clSetKernelArg(ks, a++, sizeof(cl_mem), &e->q);
  err |= clforge__attn_tensor_args(ks, &a, &d->q);
  err |= clSetKernelArg(ks, a++, sizeof(cl_mem), &e->k);
  err |= clforge__attn_tensor_args(ks, &a, &d->k);
  err |= clSetKernelArg(ks, a++, sizeof(cl_mem), &e->v_);
  err |= clforge__attn_tensor_args(ks, &a, &d->v);
  err |= clSetKernelArg(ks, a++, sizeof(cl_mem), &mask);
  err |= clforge__attn_tensor_args(ks, &a, &d->mask);
  err |= clSetKernelArg(ks, a++, sizeof(cl_mem), &e->ws);
  err |= clSetKernelArg(ks, a++, sizeof uchunk, &uchunk);
  err |= clSetKernelArg(ks, a++, sizeof(cl_mem), &e->o);
  err |= clforge__attn_tensor_args(ks, &a, &d->o);
  err |= clSetKernelArg(ks, a++, sizeof(cl_mem), &lse);
  err |= clforge__attn_tensor_args(ks, &a, &d->lse);
  err |= clforge__attn_common_args(ks, &a, e);
  return err;
}

static cl_int combine_args(cl_kernel kc, const clforge__attn_exec *e, size_t p) {
  const clforge__attn *d = e->d;
  const cl_mem lse = lse_or_dummy(e);
  const cl_uint up = (cl_uint)p, udv = (cl_uint)d->dv;
  cl_uint a = 0;
  cl_int err = clSetKernelArg(kc, a++, sizeof(cl_mem), &e->ws);
  err |= clSetKernelArg(kc, a++, sizeof up, &up);
  err |= clSetKernelArg(kc, a++, sizeof udv, &udv);
  err |= clSetKernelArg(kc, a++, sizeof(cl_mem), &e->o);
  err |= clforge__attn_tensor_args(kc, &a, &d->o);
  err |= clSetKernelArg(kc, a++, sizeof(cl_mem), &lse);
  err |= clforge__attn_tensor_args(kc, &a, &d->lse);
  err |= clforge__attn_common_args(kc, &a, e);
  return err;
}

static clforge_status enqueue(const clforge__attn_exec *e) {
  clforge_context ctx = e->ctx;
  const clforge__attn *d = e->d;
  const int *v = e->v, *v2 = e->v2;
  if (!v2) return clforge__fail(ctx, CLFORGE_INTERNAL_ERROR, "attention split_kv: no combine parameters");
  const size_t wg = (size_t)v[ASKV_WG], kb = (size_t)v[ASKV_KB];
  const size_t p = splits_of(ctx, d, v) * wg;
  const size_t chunk = ceil_div(ceil_div(d->sk, kb), p) * kb;
  const size_t cwg = (size_t)v2[ACMB_CWG], cvw = (size_t)v2[ACMB_CVW];
  if (p > UINT32_MAX || d->b * d->hq > UINT32_MAX || chunk > UINT32_MAX || d->sk > INT32_MAX)
    return clforge__fail(ctx, CLFORGE_LIMIT_EXCEEDED, "attention split_kv: the launch exceeds 2^32 work-items");
  if (e->ws_bytes < workspace(ctx, d, v))
    return clforge__fail(ctx, CLFORGE_INTERNAL_ERROR, "attention split_kv: workspace too small");

  const int direct = p == 1; /* the split pass writes O and LSE itself (it sees P = 1): no combine */
  cl_kernel ks, kc = NULL;
  clforge_status st = build_kernels(e, p, &ks, &kc);
  if (st != CLFORGE_SUCCESS) return st;
  cl_int err = split_args(ks, e, chunk);
  if (err != CL_SUCCESS) return clforge__fail_cl(ctx, err, "clSetKernelArg (attention split_kv)");
  const size_t g1[2] = {p, d->b * d->hkv}, l1[2] = {wg, 1};
  if (direct)
    return clforge__launch(ctx, ks, 2, g1, l1, e->nwait, e->wait, e->event, "clEnqueueNDRangeKernel (attention split_kv)");
  err = combine_args(kc, e, p);
  if (err != CL_SUCCESS) return clforge__fail_cl(ctx, err, "clSetKernelArg (attention combine)");
  cl_event split_done;
  st = clforge__launch(ctx, ks, 2, g1, l1, e->nwait, e->wait, &split_done, "clEnqueueNDRangeKernel (attention split_kv)");
  if (st != CLFORGE_SUCCESS) return st;
  const size_t g2[3] = {ceil_div(ceil_div(d->dv, cvw), cwg) * cwg, d->sq, d->b * d->hq}, l2[3] = {cwg, 1, 1};
  st = clforge__launch(ctx, kc, 3, g2, l2, 1, &split_done, e->event, "clEnqueueNDRangeKernel (attention combine)");
  clReleaseEvent(split_done);
  return st;
}

const clforge__attn_algo_impl clforge__attention_split_kv = {
    .algo = CLFORGE_ATTENTION_ALGO_SPLIT_KV,
    .name = "split_kv",
    .family = &clforge__family_attention_split_kv,
    .family2 = &clforge__family_attention_combine,
    .supports = supports,
    .splits = splits,
    .workspace = workspace,
    .enqueue = enqueue,
};
