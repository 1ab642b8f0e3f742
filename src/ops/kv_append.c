/* clforge_kv_cache_append: argument and buffer checks, the slots read back
 * and refused (outside the pool, two tokens on one slot) before anything
 * runs, one launch (cl/kv_append.cl), validation. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/context.h"
#include "../core/error.h"
#include "../core/program.h"
#include "../core/validate.h"
#include "../desc/kv_append_desc.h"
#include "../families/families.h"
#include "buffer_check.h"
#include "op_call.h"

#define OP "kv_cache_append"

clforge_status clforge_kv_cache_append_explain(clforge_context ctx, const clforge_kv_append_desc *desc,
                                               clforge_kernel_choice *choice) {
  clforge_status st = clforge__query_begin(ctx, OP "_explain", choice, "choice");
  clforge__kva d;
  if (st == CLFORGE_SUCCESS) st = clforge__kva_resolve(ctx, OP "_explain", desc, &d);
  return clforge__explain_plain(ctx, &clforge__family_kv_append, st, choice);
}

static size_t cache_unit(const clforge__kva *d) { return d->cache_type == CLFORGE_Q8_0 ? 1 : clforge_dtype_size(d->cache_type); }

/* The inputs' and caches' sizes; the caches apart from each other and from every input. */
static clforge_status check_buffers(clforge_context ctx, const clforge__kva *d, const cl_mem *b) {
  const size_t ss = clforge_dtype_size(d->src_type), cu = cache_unit(d);
  const char *names[5] = {"k", "v", "slots", "k_cache", "v_cache"};
  const size_t off[5] = {d->k.src_offset, d->v.src_offset, d->slots_offset, d->k.cache_offset, d->v.cache_offset};
  const size_t cnt[5] = {d->k.src_extent - d->k.src_offset, d->v.src_extent - d->v.src_offset, d->tokens,
                         d->k.cache_extent - d->k.cache_offset, d->v.cache_extent - d->v.cache_offset};
  const size_t es[5] = {ss, ss, 4, cu, cu};
  clforge__byte_range r[5];
  clforge_status st = CLFORGE_SUCCESS;
  for (int i = 0; i < 5 && st == CLFORGE_SUCCESS; ++i) {
    const int access = i == 2 ? CLFORGE_ACCESS_READ | CLFORGE_ACCESS_HOST_READ : i < 3 ? CLFORGE_ACCESS_READ : CLFORGE_ACCESS_WRITE;
    st = clforge__check_buffer(ctx, OP, names[i], b[i], off[i], cnt[i], es[i], access);
    if (st == CLFORGE_SUCCESS) st = clforge__buffer_range(ctx, b[i], off[i] * es[i], cnt[i] * es[i], &r[i]);
  }
  for (int i = 3; i < 5 && st == CLFORGE_SUCCESS; ++i)
    for (int j = 0; j < i && st == CLFORGE_SUCCESS; ++j)
      if (clforge__ranges_alias(&r[i], &r[j]))
        st = clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, OP ": %s overlaps %s", names[i], names[j]);
  return st;
}

static clforge_status launch(clforge_context ctx, const clforge__kva *d, int wg, const cl_mem *b, cl_uint nwait,
                             const cl_event *wait, cl_event *done) {
  const int q8 = d->cache_type == CLFORGE_Q8_0;
  char more[96];
  snprintf(more, sizeof more, "-DS_T=%d -DC_T=%d -DSLOT_HEAD=%d%s", (int)d->src_type, (int)d->cache_type, d->slot_head,
           q8 && ctx->programs.fp32_div_rn ? " -cl-fp32-correctly-rounded-divide-sqrt" : ""); /* q8_0's divisions, as clforge_quantize's */
  int v[CLFORGE_MAX_PARAMS] = {wg};
  cl_kernel k;
  clforge_status st = clforge__family_kernel(ctx, OP, &clforge__family_kv_append, clforge__family_kv_append.kernel, v,
                                             more, (size_t)wg, &k);
  if (st != CLFORGE_SUCCESS) return st;
  const cl_ulong ko = d->k.src_offset, kt = d->k.src_ts, kh = d->k.src_hs, vo = d->v.src_offset, vt = d->v.src_ts;
  const cl_ulong vh = d->v.src_hs, so = d->slots_offset, kco = d->k.cache_offset, kr = d->k.row;
  const cl_ulong vco = d->v.cache_offset, vr = d->v.row;
  const cl_uint tokens = (cl_uint)d->tokens, heads = (cl_uint)d->heads, bs = (cl_uint)d->bs;
  const cl_uint uk = (cl_uint)(q8 ? d->k.d / 32 : d->k.d), uv = (cl_uint)(q8 ? d->v.d / 32 : d->v.d);
  const void *vals[] = {&b[0], &ko,     &kt,  &kh,  &b[1],   &vo,     &vt, &vh, &b[2], &so,    &b[3],
                        &kco,  &kr,     &b[4], &vco, &vr,    &tokens, &heads, &bs, &uk,  &uv};
  const size_t sizes[] = {sizeof(cl_mem), 8, 8, 8, sizeof(cl_mem), 8, 8, 8, sizeof(cl_mem), 8, sizeof(cl_mem),
                          8, 8, sizeof(cl_mem), 8, 8, 4, 4, 4, 4, 4};
  cl_int err = CL_SUCCESS;
  for (cl_uint i = 0; i < 21; ++i) err |= clSetKernelArg(k, i, sizes[i], vals[i]);
  if (err != CL_SUCCESS) return clforge__fail_cl(ctx, err, "clSetKernelArg (" OP ")");
  const size_t local = (size_t)wg, n = d->tokens * d->heads * (size_t)(uk + uv), global = (n + local - 1) / local * local;
  return clforge__launch(ctx, k, 1, &global, &local, nwait, wait, done, "clEnqueueNDRangeKernel (" OP ")");
}

/* Validation mode: each token's written rows against the reference's, on
 * the new rows as the kernel read them (read before the launch). */
static clforge_status validate(clforge_context ctx, const clforge__kva *d, const int32_t *slots, const void *hk,
                               const void *hv, const cl_mem *b, cl_event done);

clforge_status clforge_kv_cache_append(clforge_context ctx, const clforge_kv_append_desc *desc, cl_mem k, cl_mem v,
                                       cl_mem slots, cl_mem k_cache, cl_mem v_cache, cl_uint num_events_in_wait_list,
                                       const cl_event *event_wait_list, cl_event *event) {
  clforge_status st = clforge__call_begin(ctx, OP, event);
  if (st != CLFORGE_SUCCESS) return st;
  clforge__kva d;
  st = clforge__kva_resolve(ctx, OP, desc, &d);
  if (st == CLFORGE_SUCCESS) st = clforge__check_wait_list(ctx, OP, num_events_in_wait_list, event_wait_list);
  if (st != CLFORGE_SUCCESS) return st;
  if (!d.tokens) return clforge__call_marker(ctx, OP, num_events_in_wait_list, event_wait_list, event);
  const cl_mem b[5] = {k, v, slots, k_cache, v_cache};
  st = check_buffers(ctx, &d, b);
  int par[CLFORGE_MAX_PARAMS];
  if (st == CLFORGE_SUCCESS) st = clforge__family_select(ctx, &clforge__family_kv_append, 0, NULL, par, NULL);
  /* the slots as the kernel will read them: refused outside the pool or shared */
  void *hs = NULL, *hk = NULL, *hv = NULL;
  if (st == CLFORGE_SUCCESS) st = clforge__call_await_inputs(ctx, OP, num_events_in_wait_list, event_wait_list);
  if (st == CLFORGE_SUCCESS) st = clforge__call_read_elements(ctx, OP, slots, CLFORGE_S32, d.slots_offset, d.tokens, &hs);
  if (st == CLFORGE_SUCCESS) st = clforge__kva_check_slots(ctx, OP, &d, hs);
  if (st == CLFORGE_SUCCESS && ctx->validate)
    st = clforge__call_read_elements(ctx, OP, k, d.src_type, d.k.src_offset, d.k.src_extent - d.k.src_offset, &hk);
  if (st == CLFORGE_SUCCESS && ctx->validate)
    st = clforge__call_read_elements(ctx, OP, v, d.src_type, d.v.src_offset, d.v.src_extent - d.v.src_offset, &hv);
  cl_event done = NULL;
  if (st == CLFORGE_SUCCESS) st = launch(ctx, &d, par[0], b, num_events_in_wait_list, event_wait_list, &done);
  if (st == CLFORGE_SUCCESS && ctx->validate) st = validate(ctx, &d, hs, hk, hv, b, done);
  free(hs), free(hk), free(hv);
  return clforge__call_end(st, done, event);
}

/* One side's rows of every appended token: got (read back) against want
 * (the reference's, from the host copy src of the new rows). */
static clforge_status check_side(clforge_context ctx, const clforge__kva *d, const clforge__kva_side *s,
                                 const int32_t *slots, const void *src, cl_mem cache, const char *name) {
  const size_t cu = cache_unit(d), rb = s->row * cu;
  unsigned char *got = malloc(rb + 1), *want = malloc(rb + 1);
  clforge_status st = got && want ? CLFORGE_SUCCESS : clforge__fail(ctx, CLFORGE_OUT_OF_HOST_MEMORY, OP " validation: no memory");
  const clforge_kv_append_desc one = {.tokens = 1, .heads_kv = 1, .head_dim = s->d, .block_size = 1, .num_blocks = 1,
                                      .src_type = d->src_type, .cache_type = d->cache_type}; /* a pool of one row */
  const int32_t zero = 0;
  for (size_t t = 0; st == CLFORGE_SUCCESS && t < d->tokens; ++t) {
    if (slots[t] < 0) continue;
    const size_t slot = (size_t)slots[t];
    for (size_t h = 0; h < d->heads && st == CLFORGE_SUCCESS; ++h) {
      const size_t row = s->cache_offset + clforge__kva_row(d, slot, h) * s->row;
      st = clforge__read_buffer(ctx, cache, row * cu, rb, got);
      /* the reference of this one row: a pool of one slot, the row at the source's place */
      const char *in = (const char *)src + (t * s->src_ts + h * s->src_hs) * clforge_dtype_size(d->src_type);
      if (st == CLFORGE_SUCCESS) st = clforge_ref_kv_cache_append(&one, in, in, &zero, want, want);
      if (st == CLFORGE_SUCCESS && memcmp(got, want, rb))
        st = clforge__fail(ctx, CLFORGE_VALIDATION_FAILED, OP ": validation failed: %s of token %zu, head %zu (slot %zu) "
                           "differs from the reference", name, t, h, slot);
    }
  }
  free(got), free(want);
  return st;
}

static clforge_status validate(clforge_context ctx, const clforge__kva *d, const int32_t *slots, const void *hk,
                               const void *hv, const cl_mem *b, cl_event done) {
  clforge_status st = clforge__call_await_done(ctx, OP, done);
  for (size_t t = 0; st == CLFORGE_SUCCESS && t < d->tokens; ++t) /* tests only: spoil the first row written */
    if (slots[t] >= 0) {
      const size_t row = d->k.cache_offset + clforge__kva_row(d, (size_t)slots[t], 0) * d->k.row;
      st = clforge__test_fault_apply(ctx, OP, b[3], row, d->cache_type == CLFORGE_Q8_0 ? CLFORGE_U8 : d->cache_type);
      break;
    }
  if (st == CLFORGE_SUCCESS) st = check_side(ctx, d, &d->k, slots, hk, b[3], "K");
  if (st == CLFORGE_SUCCESS) st = check_side(ctx, d, &d->v, slots, hv, b[4], "V");
  return st;
}
