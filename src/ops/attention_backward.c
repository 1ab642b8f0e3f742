/* clforge_attention_backward: argument and buffer checks, the scratch for
 * D, the three kernels of cl/attention_backward.cl chained (D a row per
 * work-item, then dQ and dK/dV blocked, TR = VW * RW rows a work-item),
 * validation against clforge_ref_attention_backward. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/context.h"
#include "../core/error.h"
#include "../families/families.h"
#include "../core/program.h"
#include "../core/validate.h"
#include "../core/workspace.h"
#include "attention_algo.h"
#include "buffer_check.h"
#include "launch_chain.h"
#include "op_call.h"

#define OP "attention_backward"

static clforge_status select_params(clforge_context ctx, const clforge__attn *d, int *v, clforge_kernel_choice *c) {
  clforge__attn_key key;
  clforge__attn_make_key(d, &key);
  return clforge__family_select(ctx, &clforge__family_attention_backward, clforge__attn_variant(d), &key.key, v, c);
}

clforge_status clforge__attn_bwd_explain(clforge_context ctx, const clforge__attn *d, clforge_attention_choice *choice) {
  memset(choice, 0, sizeof *choice);
  int v[CLFORGE_MAX_PARAMS];
  clforge_status st = select_params(ctx, d, v, &choice->kernels[0]);
  if (st != CLFORGE_SUCCESS) return st;
  choice->algo = CLFORGE_ATTENTION_ALGO_AUTO;
  choice->splits = 1;
  choice->nkernels = 1;
  choice->workspace_bytes = d->b * d->hq * d->sq * sizeof(float);
  snprintf(choice->why, sizeof choice->why, "backward: dQ per %d query rows, dK and dV per %d key rows, %d a block",
           v[1] * v[2], v[1] * v[2], v[3]);
  return CLFORGE_SUCCESS;
}

/* Outputs (dq, dk, dv) apart from every input and each other, and none
 * with two elements on one byte. */
static clforge_status check_overlaps(clforge_context ctx, const clforge__attn *d, const clforge__attn_grads *g,
                                     const cl_mem *inb, const clforge__attn_tensor *const *in, int nin,
                                     const cl_mem *outb) {
  const clforge__attn_tensor *out[3] = {&g->dq, &g->dk, &g->dv};
  for (int i = 0; i < 3; ++i)
    if (clforge__attn_self_overlaps(out[i]))
      return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, OP ": %s's strides make two of its elements share memory",
                           out[i]->name);
  (void)d;
  for (int i = 0; i < 3; ++i) {
    if (out[i]->extent == out[i]->offset) continue;
    cl_mem ro, r;
    clforge__footprint fo, f;
    clforge_status st = clforge__attn_root_footprint(ctx, out[i], outb[i], &ro, &fo);
    for (int j = 0; j < nin + 3 && st == CLFORGE_SUCCESS; ++j) {
      const clforge__attn_tensor *t = j < nin ? in[j] : out[j - nin];
      const cl_mem b = j < nin ? inb[j] : outb[j - nin];
      if (!b || t == out[i] || t->extent == t->offset) continue;
      st = clforge__attn_root_footprint(ctx, t, b, &r, &f);
      if (st == CLFORGE_SUCCESS && r == ro && clforge__footprints_overlap(&fo, &f))
        return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, OP ": %s overlaps %s", out[i]->name, t->name);
    }
    if (st != CLFORGE_SUCCESS) return st;
  }
  return CLFORGE_SUCCESS;
}

static clforge_status read_tensor(clforge_context ctx, const clforge__attn_tensor *t, cl_mem buf, void **out) {
  *out = NULL;
  if (!buf || t->extent == t->offset) return CLFORGE_SUCCESS;
  const size_t bytes = t->extent * clforge_dtype_size(t->type);
  *out = malloc(bytes);
  if (!*out) return clforge__fail(ctx, CLFORGE_OUT_OF_HOST_MEMORY, OP " validation: no memory for %s", t->name);
  return clforge__read_buffer(ctx, buf, 0, bytes, *out);
}

static clforge_status read_lens(clforge_context ctx, cl_mem buf, size_t off, size_t n, int32_t **out) {
  *out = NULL;
  if (!buf) return CLFORGE_SUCCESS;
  *out = malloc((off + n) * sizeof **out + 1);
  if (!*out) return clforge__fail(ctx, CLFORGE_OUT_OF_HOST_MEMORY, OP " validation: no memory for lengths");
  return clforge__read_buffer(ctx, buf, 0, (off + n) * sizeof **out, *out);
}

/* A tensor's buffer and (offset, b, h, s, d strides) from argument *a on. */
static cl_int tensor_args(cl_kernel k, cl_uint *a, const clforge__attn_tensor *t, cl_mem buf) {
  cl_int err = clSetKernelArg(k, (*a)++, sizeof(cl_mem), &buf);
  return err | clforge__attn_tensor_args(k, a, t);
}

/* The call's buffers (absent ones NULL). */
typedef struct {
  cl_mem q, k, v, o, d_o, mask, lse, kvl, ql, dq, dk, dv;
} bwd_buffers;

/* validation's copies of the inputs as they are when the kernels run */
typedef struct {
  void *q, *k, *v, *mask, *d_o;
  int32_t *kvl, *ql;
} bwd_host;

/* Every buffer the problem reads or writes, and the outputs' overlaps. */
static clforge_status check_buffers(clforge_context ctx, const clforge__attn *d, const clforge__attn_grads *g,
                                    const bwd_buffers *b) {
  const int rd = CLFORGE_ACCESS_READ;
  clforge_status st = CLFORGE_SUCCESS;
  if (d->sq && d->sk) {
    st = clforge__attn_check_tensor(ctx, OP, &d->q, b->q, rd);
    if (st == CLFORGE_SUCCESS) st = clforge__attn_check_tensor(ctx, OP, &d->k, b->k, rd);
    if (st == CLFORGE_SUCCESS) st = clforge__attn_check_tensor(ctx, OP, &d->v, b->v, rd);
    if (st == CLFORGE_SUCCESS) st = clforge__attn_check_tensor(ctx, OP, &d->o, b->o, rd);
    if (st == CLFORGE_SUCCESS) st = clforge__attn_check_tensor(ctx, OP, &g->d_o, b->d_o, rd);
    if (st == CLFORGE_SUCCESS) st = clforge__attn_check_tensor(ctx, OP, &d->lse, b->lse, rd);
    if (st == CLFORGE_SUCCESS && d->has_mask) st = clforge__attn_check_tensor(ctx, OP, &d->mask, b->mask, rd);
  }
  if (st == CLFORGE_SUCCESS && d->has_kv_lens)
    st = clforge__check_buffer(ctx, OP, "kv_lens", b->kvl, d->kv_lens_offset, d->b, sizeof(cl_int), rd);
  if (st == CLFORGE_SUCCESS && d->has_q_lens)
    st = clforge__check_buffer(ctx, OP, "q_lens", b->ql, d->q_lens_offset, d->b, sizeof(cl_int), rd);
  if (st == CLFORGE_SUCCESS && d->sq) st = clforge__attn_check_tensor(ctx, OP, &g->dq, b->dq, CLFORGE_ACCESS_WRITE);
  if (st == CLFORGE_SUCCESS && d->sk) st = clforge__attn_check_tensor(ctx, OP, &g->dk, b->dk, CLFORGE_ACCESS_WRITE);
  if (st == CLFORGE_SUCCESS && d->sk) st = clforge__attn_check_tensor(ctx, OP, &g->dv, b->dv, CLFORGE_ACCESS_WRITE);
  const clforge__attn_tensor *in[7] = {&d->q, &d->k, &d->v, &d->o, &g->d_o, &d->lse, &d->mask};
  const cl_mem inb[7] = {b->q, b->k, b->v, b->o, b->d_o, b->lse, d->has_mask ? b->mask : NULL};
  const cl_mem outb[3] = {d->sq ? b->dq : NULL, d->sk ? b->dk : NULL, d->sk ? b->dv : NULL};
  if (st == CLFORGE_SUCCESS && d->sq && d->sk) st = check_overlaps(ctx, d, g, inb, in, 7, outb);
  return st;
}

/* The parameters and the three kernels: D, dQ, dK and dV. */
static clforge_status get_kernels(clforge_context ctx, const clforge__attn *d, const clforge__attn_grads *g, int *pv,
                                  cl_kernel kern[3]) {
  clforge_status st = select_params(ctx, d, pv, NULL);
  /* the streaming kernels: WG work-items; D's: one row a work-item, VW of them */
  const size_t wg = (size_t)pv[0], dwg = wg * (size_t)pv[1];
  char opts[64];
  snprintf(opts, sizeof opts, "-DDO_T=%d -DDQ_T=%d -DDKV_T=%d", (int)g->d_o.type, (int)g->dq.type, (int)g->dk.type);
  const clforge__family *f = &clforge__family_attention_backward;
  if (st == CLFORGE_SUCCESS) st = clforge__attn_kernel(ctx, f, "clforge_attn_bwd_delta", pv, d, opts, dwg, &kern[0]);
  if (st == CLFORGE_SUCCESS) st = clforge__attn_kernel(ctx, f, "clforge_attn_bwd_dq", pv, d, opts, wg, &kern[1]);
  if (st == CLFORGE_SUCCESS) st = clforge__attn_kernel(ctx, f, "clforge_attn_bwd_dkv", pv, d, opts, wg, &kern[2]);
  return st;
}

static clforge_status read_inputs(clforge_context ctx, const clforge__attn *d, const clforge__attn_grads *g,
                                  const bwd_buffers *b, bwd_host *h) {
  clforge_status st = read_tensor(ctx, &d->q, b->q, &h->q);
  if (st == CLFORGE_SUCCESS) st = read_tensor(ctx, &d->k, b->k, &h->k);
  if (st == CLFORGE_SUCCESS) st = read_tensor(ctx, &d->v, b->v, &h->v);
  if (st == CLFORGE_SUCCESS && d->has_mask) st = read_tensor(ctx, &d->mask, b->mask, &h->mask);
  if (st == CLFORGE_SUCCESS) st = read_tensor(ctx, &g->d_o, b->d_o, &h->d_o);
  if (st == CLFORGE_SUCCESS && d->has_kv_lens) st = read_lens(ctx, b->kvl, d->kv_lens_offset, d->b, &h->kvl);
  if (st == CLFORGE_SUCCESS && d->has_q_lens) st = read_lens(ctx, b->ql, d->q_lens_offset, d->b, &h->ql);
  return st;
}

static void free_host(bwd_host *h) { free(h->q), free(h->k), free(h->v), free(h->mask), free(h->d_o), free(h->kvl), free(h->ql); }

/* Kernel `kern`'s arguments (0: D, 1: dQ, 2: dK and dV). Absent buffers
 * stand in as q (never read: HAS_MASK 0, or no rows). */
static cl_int set_args(cl_kernel kx, int kern, const clforge__attn *d, const clforge__attn_grads *g,
                       const bwd_buffers *b, const int *pv, cl_mem ws, size_t ws_bytes) {
  const cl_mem qb = b->q ? b->q : (b->dq ? b->dq : b->dk), kb = b->k ? b->k : qb, vb = b->v ? b->v : qb;
  const cl_mem ob = b->o ? b->o : qb, gb = b->d_o ? b->d_o : qb, mb = d->has_mask ? b->mask : qb;
  const cl_mem lb = b->lse ? b->lse : qb;
  const clforge__attn_exec ex = {NULL, d, pv, NULL, qb, kb, vb, ob, mb, b->kvl, b->ql, b->lse, NULL, ws, ws_bytes,
                                 0, NULL, NULL};
  const cl_ulong lo_ = d->lse.offset, lsb = d->lse.stride[0], lsh = d->lse.stride[1], lss = d->lse.stride[2];
  cl_uint a = 0;
  cl_int err = CL_SUCCESS;
  if (kern == 0) {
    err |= tensor_args(kx, &a, &d->o, ob);
    err |= tensor_args(kx, &a, &g->d_o, gb);
    err |= clSetKernelArg(kx, a++, sizeof(cl_mem), &ws);
    return err | clforge__attn_common_args(kx, &a, &ex);
  }
  err |= tensor_args(kx, &a, &d->q, qb);
  err |= tensor_args(kx, &a, &d->k, kb);
  err |= tensor_args(kx, &a, &d->v, vb);
  err |= tensor_args(kx, &a, &d->mask, mb);
  err |= clSetKernelArg(kx, a++, sizeof(cl_mem), &lb);
  err |= clSetKernelArg(kx, a++, sizeof lo_, &lo_);
  err |= clSetKernelArg(kx, a++, sizeof lsb, &lsb);
  err |= clSetKernelArg(kx, a++, sizeof lsh, &lsh);
  err |= clSetKernelArg(kx, a++, sizeof lss, &lss);
  err |= tensor_args(kx, &a, &g->d_o, gb);
  err |= clSetKernelArg(kx, a++, sizeof(cl_mem), &ws);
  if (kern == 1) {
    err |= tensor_args(kx, &a, &g->dq, b->dq);
  } else {
    err |= tensor_args(kx, &a, &g->dk, b->dk);
    err |= tensor_args(kx, &a, &g->dv, b->dv);
  }
  return err | clforge__attn_common_args(kx, &a, &ex);
}

/* D, then dQ, then dK and dV: one chain. */
static clforge_status enqueue(clforge_context ctx, const clforge__attn *d, const clforge__attn_grads *g,
                              const bwd_buffers *b, const int *pv, cl_kernel kern[3], cl_mem ws, size_t ws_bytes,
                              clforge__chain *ch) {
  const size_t wg = (size_t)pv[0], tr = (size_t)pv[1] * (size_t)pv[2], dwg = wg * (size_t)pv[1];
  clforge_status st = CLFORGE_SUCCESS;
  for (int kx = 0; kx < 3 && st == CLFORGE_SUCCESS; ++kx) {
    const size_t rows = kx == 2 ? d->sk : d->sq;
    if (!rows || (kx == 0 && !d->sk)) continue; /* without keys no D: dQ is zeros, O and dO are not read */
    const cl_int err = set_args(kern[kx], kx, d, g, b, pv, ws, ws_bytes);
    if (err != CL_SUCCESS) return clforge__fail_cl(ctx, err, "clSetKernelArg (" OP ")");
    const size_t per = kx == 0 ? 1 : tr, lw = kx == 0 ? dwg : wg, items = (rows + per - 1) / per;
    const size_t local[3] = {lw, 1, 1};
    const size_t global[3] = {(items + lw - 1) / lw * lw, kx == 2 ? d->hkv : d->hq, d->b};
    st = clforge__chain_launch(ctx, ch, kern[kx], 3, global, local, "clEnqueueNDRangeKernel (" OP ")");
  }
  return st;
}

/* The device's dQ, dK and dV against clforge_ref_attention_backward. */
static clforge_status validate(clforge_context ctx, const clforge_attention_desc *desc,
                               const clforge_attention_grads *grads, const clforge__attn *d,
                               const clforge__attn_grads *g, const bwd_buffers *b, const bwd_host *h) {
  clforge_status st = CLFORGE_SUCCESS;
  if (d->sq) st = clforge__test_fault_apply(ctx, OP, b->dq, g->dq.offset, g->dq.type); /* tests only */
  void *got[3] = {NULL, NULL, NULL}, *want[3] = {NULL, NULL, NULL};
  const clforge__attn_tensor *ot[3] = {&g->dq, &g->dk, &g->dv};
  const cl_mem outb[3] = {d->sq ? b->dq : NULL, d->sk ? b->dk : NULL, d->sk ? b->dv : NULL};
  for (int i = 0; i < 3 && st == CLFORGE_SUCCESS; ++i) {
    st = read_tensor(ctx, ot[i], outb[i], &got[i]);
    if (st == CLFORGE_SUCCESS) st = read_tensor(ctx, ot[i], outb[i], &want[i]); /* outside the tensor: as the device's */
  }
  if (st == CLFORGE_SUCCESS)
    st = clforge_ref_attention_backward(desc, grads, h->q, h->k, h->v, h->mask, h->kvl, h->ql, h->d_o, want[0], want[1],
                                        want[2]);
  for (int i = 0; i < 3 && st == CLFORGE_SUCCESS; ++i) {
    if (!got[i]) continue;
    /* the forward's O (in o_type) enters D: its rounding bounds the result's too */
    clforge__tolerance t = clforge__tolerance_for(ot[i]->type), to = clforge__tolerance_for(d->o.type);
    if (to.nrmse > t.nrmse) t = to;
    st = clforge__validate(ctx, OP, ot[i]->type, ot[i]->extent, got[i], want[i], t);
  }
  for (int i = 0; i < 3; ++i) free(got[i]), free(want[i]);
  return st;
}

/* The descriptor, the gradients' and the forward's LSE. */
static clforge_status resolve(clforge_context ctx, const clforge_attention_desc *desc,
                              const clforge_attention_grads *grads, const clforge_attention_buffers *extra,
                              clforge__attn *d, clforge__attn_grads *g) {
  clforge_status st = clforge__attn_resolve(ctx, desc, extra, d);
  if (st == CLFORGE_SUCCESS && d->kind != CLFORGE_ATTENTION_BACKWARD)
    st = clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, OP ": desc.kind is %d; set CLFORGE_ATTENTION_BACKWARD (1)",
                       (int)d->kind);
  if (st == CLFORGE_SUCCESS) st = clforge__attn_resolve_grads(ctx, d, grads, g);
  if (st == CLFORGE_SUCCESS && !d->has_lse && d->sq && d->sk)
    st = clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, OP ": extra->lse (the forward's LSE) is required");
  if (st == CLFORGE_SUCCESS && g->idx64) d->idx64 = 1;
  return st;
}

clforge_status clforge_attention_backward(clforge_context ctx, const clforge_attention_desc *desc,
                                          const clforge_attention_grads *grads, cl_mem q, cl_mem k, cl_mem v, cl_mem o,
                                          cl_mem d_o, const clforge_attention_buffers *extra, cl_mem dq, cl_mem dk,
                                          cl_mem dv, cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                                          cl_event *event) {
  clforge_status st = clforge__call_begin(ctx, OP, event);
  if (st != CLFORGE_SUCCESS) return st;
  clforge__attn d;
  clforge__attn_grads g;
  st = resolve(ctx, desc, grads, extra, &d, &g);
  if (st == CLFORGE_SUCCESS) st = clforge__check_wait_list(ctx, OP, num_events_in_wait_list, event_wait_list);
  if (st != CLFORGE_SUCCESS) return st;
  const int work = (d.sq && d.sk) || (d.sq == 0 && d.sk) || (d.sk == 0 && d.sq); /* zeros to write, at least */
  if (!work) return clforge__call_marker(ctx, OP, num_events_in_wait_list, event_wait_list, event);
  const bwd_buffers b = {q,  k,  v,  o,  d_o, extra ? extra->mask : NULL, extra ? extra->lse : NULL,
                         extra ? extra->kv_lens : NULL, extra ? extra->q_lens : NULL, dq, dk, dv};
  int pv[CLFORGE_MAX_PARAMS];
  cl_kernel kern[3] = {NULL, NULL, NULL};
  st = check_buffers(ctx, &d, &g, &b);
  if (st == CLFORGE_SUCCESS) st = get_kernels(ctx, &d, &g, pv, kern);
  if (st != CLFORGE_SUCCESS) return st;
  cl_mem ws = NULL;
  cl_event busy = NULL;
  const size_t rows_q = d.b * d.hq * d.sq, dl_bytes = (rows_q != 0 ? rows_q : 1) * sizeof(float);
  st = clforge__workspace_get(ctx, dl_bytes, &ws, &busy);
  if (st != CLFORGE_SUCCESS) return st;

  bwd_host h = {NULL, NULL, NULL, NULL, NULL, NULL, NULL};
  if (ctx->validate) {
    clforge_status wst = clforge__call_await_inputs(ctx, OP, num_events_in_wait_list, event_wait_list);
    if (wst != CLFORGE_SUCCESS) return wst;
    st = read_inputs(ctx, &d, &g, &b, &h);
  }
  clforge__chain ch;
  if (st == CLFORGE_SUCCESS) st = clforge__chain_begin(ctx, OP, &ch, num_events_in_wait_list, event_wait_list, 1, &busy);
  else ch = (clforge__chain){NULL, 0, NULL};
  if (st == CLFORGE_SUCCESS) st = enqueue(ctx, &d, &g, &b, pv, kern, ws, dl_bytes, &ch);
  if (ch.last) clforge__workspace_used(ctx, ch.last);
  if (st == CLFORGE_SUCCESS && ctx->validate) {
    st = clforge__call_await_done(ctx, OP, ch.last);
    if (st == CLFORGE_SUCCESS) st = validate(ctx, desc, grads, &d, &g, &b, &h);
  }
  free_host(&h);
  return clforge__chain_end(&ch, st, event);
}
