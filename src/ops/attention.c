/* clforge_attention and its queries: argument, buffer and overlap checks,
 * the choice of algorithm (fused or split_kv, docs/tuning.md "Which
 * attention algorithm"), the families' parameters, scratch memory, the
 * enqueue through the algorithm's table row (src/ops/attention_<algo>.c)
 * and validation. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/compute_type.h"
#include "../core/context.h"
#include "../core/error.h"
#include "../families/attention_classes.h"
#include "../families/attention_fused.h"
#include "../families/families.h"
#include "../ref/attention.h"
#include "../ref/compare.h"
#include "../core/validate.h"
#include "../core/workspace.h"
#include "attention_algo.h"
#include "buffer_check.h"
#include "launch_chain.h"
#include "op_call.h"

typedef struct attn_plan {
  const clforge__attn_algo_impl *impl;
  int v[CLFORGE_MAX_PARAMS], v2[CLFORGE_MAX_PARAMS];
  clforge_attention_choice choice;
} attn_plan;

/* Below this many keys one pass over them is short: splitting them costs a
 * combine for little gain. */
enum { SPLIT_MIN_SK = 256 };

/* ----------------------------------------------------------- algorithm choice */

static int tuner_algo(clforge_context ctx, int *algo) {
  if (!ctx->tuning_active || !ctx->tune_force.path) return 0;
  for (int a = 1; a < CLFORGE_ATTENTION_ALGO_COUNT; ++a) {
    const clforge__attn_algo_impl *impl = clforge__attn_algo_impl_of((clforge_attention_algo)a);
    if (impl && (impl->family == ctx->tune_force.path || impl->family2 == ctx->tune_force.path)) {
      *algo = a;
      return 1;
    }
  }
  return 0;
}

/* The built-in rule (docs/tuning.md): few query rows per key/value head
 * and many keys leave most of the device idle with one work-group per
 * query block, so the key range is split (flash-decoding). */
static int heuristic(clforge_context ctx, const void *dv, char *why, size_t cap) {
  (void)ctx;
  const clforge__attn *d = dv;
  if (d->sq <= CLFORGE_ATTN_DECODE_MAX_SQ && d->sk >= SPLIT_MIN_SK) {
    snprintf(why, cap, "heuristic: Sq = %zu <= %d, Sk = %zu >= %d: split_kv", d->sq, CLFORGE_ATTN_DECODE_MAX_SQ, d->sk,
             SPLIT_MIN_SK);
    return CLFORGE_ATTENTION_ALGO_SPLIT_KV;
  }
  snprintf(why, cap, "heuristic: Sq = %zu, Sk = %zu: fused", d->sq, d->sk);
  return CLFORGE_ATTENTION_ALGO_FUSED;
}

static clforge_status select_params(clforge_context ctx, const clforge__attn *d, attn_plan *p) {
  clforge__attn_key key;
  clforge__attn_make_key(d, &key);
  const int variant = clforge__attn_variant(d);
  clforge_attention_choice *c = &p->choice;
  c->nkernels = 0;
  clforge_status st = clforge__family_select(ctx, p->impl->family, variant, &key.key, p->v, &c->kernels[c->nkernels++]);
  if (st == CLFORGE_SUCCESS && p->impl->family2)
    st = clforge__family_select(ctx, p->impl->family2, variant, &key.key, p->v2, &c->kernels[c->nkernels++]);
  for (int k = 0; k < c->nkernels; ++k) {
    snprintf(c->kernels[k].route, sizeof c->kernels[k].route, "%.47s", c->why);
    c->kernels[k].compute_type = CLFORGE_COMPUTE_32F;
  }
  /* The fused kernel's half variant runs only where the call allows it and
   * the device has f16 arithmetic, whatever chose it (src/core/compute_type.c). */
  if (st == CLFORGE_SUCCESS && p->impl->family == &clforge__family_attention_fused)
    clforge__gate_half(ctx, d->compute_type, p->v, ATTF_HALF, &c->kernels[0]);
  return st;
}

static const char *algo_name(int a) { return clforge_attention_algo_name((clforge_attention_algo)a); }

static int supported(clforge_context ctx, const void *d, int a, char *why, size_t cap) {
  const clforge__attn_algo_impl *impl = clforge__attn_algo_impl_of((clforge_attention_algo)a);
  if (!impl) snprintf(why, cap, "not available");
  return impl && impl->supports(ctx, d, why, cap);
}

/* No tuning-file step: the algorithms' own entries choose their parameters. */
static const clforge__algo_table attn_algos = {"attention", "CLFORGE_ATTENTION_ALGO", CLFORGE_ATTENTION_ALGO_COUNT,
                                               algo_name,   tuner_algo,               supported,
                                               NULL,        heuristic};

static clforge_status make_plan(clforge_context ctx, const clforge__attn *d, attn_plan *p) {
  memset(p, 0, sizeof *p);
  clforge_attention_choice *c = &p->choice;
  clforge__algo_pick pick;
  clforge_status pst = clforge__algo_choose(ctx, &attn_algos, d, (int)d->algo, NULL, &pick);
  if (pst != CLFORGE_SUCCESS) return pst;
  char *why = pick.why;
  const size_t whycap = sizeof pick.why;
  clforge_attention_algo algo = (clforge_attention_algo)pick.algo;
  const int forced = pick.from != CLFORGE__ALGO_FROM_HEURISTIC;
  p->impl = clforge__attn_algo_impl_of(algo);
  char reason[160] = "";
  if (!supported(ctx, d, algo, reason, sizeof reason)) {
    /* The heuristic's first choice cannot: the fused algorithm can do every shape. */
    snprintf(why, whycap, "%s cannot (%.80s): fused", clforge_attention_algo_name(algo), reason);
    algo = CLFORGE_ATTENTION_ALGO_FUSED;
    p->impl = clforge__attn_algo_impl_of(algo);
    if (!p->impl->supports(ctx, d, reason, sizeof reason))
      return clforge__fail(ctx, CLFORGE_UNSUPPORTED, "attention: no algorithm can run this call: %s", reason);
  }
  c->algo = algo;
  snprintf(c->why, sizeof c->why, "%.95s", why);
  clforge_status st = select_params(ctx, d, p);
  if (st != CLFORGE_SUCCESS) return st;
  c->splits = p->impl->splits ? p->impl->splits(ctx, d, p->v) : 1;
  c->workspace_bytes = p->impl->workspace ? p->impl->workspace(ctx, d, p->v) : 0;
  /* unsplit, split_kv's first kernel writes O itself: its combine does not run */
  if (c->splits == 1 && p->impl->family2) c->nkernels = 1;
  /* The automatic choice's scratch must fit the bound; the fused algorithm needs none. */
  if (!forced && c->workspace_bytes > clforge__workspace_cap(ctx) && algo != CLFORGE_ATTENTION_ALGO_FUSED) {
    snprintf(why, whycap, "%s needs %zu bytes of workspace: fused", clforge_attention_algo_name(algo),
             c->workspace_bytes);
    memset(p, 0, sizeof *p);
    p->impl = clforge__attn_algo_impl_of(CLFORGE_ATTENTION_ALGO_FUSED);
    c->algo = CLFORGE_ATTENTION_ALGO_FUSED;
    snprintf(c->why, sizeof c->why, "%.95s", why);
    st = select_params(ctx, d, p);
    c->splits = 1;
  }
  return st;
}

/* ----------------------------------------------------------------- checks */

/* int32 entries of the block table from its offset on: B rows of bt_stride
 * (the last one only as far as Sk needs). */
static size_t table_len(const clforge__attn *d) {
  return (d->b - 1) * d->bt_stride + clforge__attn_blocks_used(d, d->sk);
}

static clforge_status read_lens(clforge_context ctx, cl_mem buf, size_t offset, size_t b, int32_t **out);

/* O and LSE must not overlap themselves, each other, or anything read. */
static clforge_status check_aliasing(clforge_context ctx, const clforge__attn *d, cl_mem q, cl_mem k, cl_mem v,
                                     cl_mem o, const clforge_attention_buffers *x) {
  if (clforge__attn_self_overlaps(&d->o))
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT,
                         "attention: o's strides (%zu, %zu, %zu, %zu) make two of its elements share memory",
                         d->o.stride[0], d->o.stride[1], d->o.stride[2], d->o.stride[3]);
  if (d->has_lse && clforge__attn_self_overlaps(&d->lse))
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT,
                         "attention: lse's strides (%zu, %zu, %zu) make two of its elements share memory",
                         d->lse.stride[0], d->lse.stride[1], d->lse.stride[2]);
  /* kv_lens and q_lens as tensors of B int32 values */
  clforge__attn_tensor kvl = {"kv_lens", CLFORGE_F32, d->kv_lens_offset, {1, 0, 0, 0}, {d->b, 1, 1, 1}, 0};
  clforge__attn_tensor ql = {"q_lens", CLFORGE_F32, d->q_lens_offset, {1, 0, 0, 0}, {d->b, 1, 1, 1}, 0};
  /* the table as the range the call reads (its rows' gaps included) */
  clforge__attn_tensor bt = {"block_table", CLFORGE_F32, d->bt_offset, {1, 0, 0, 0}, {table_len(d), 1, 1, 1}, 0};
  const clforge__attn_tensor *in[] = {&d->q, &d->k, &d->v, &d->mask, &kvl, &ql, &bt};
  const cl_mem inb[] = {q, k, v, x ? x->mask : NULL, x ? x->kv_lens : NULL, x ? x->q_lens : NULL,
                        d->has_table ? x->block_table : NULL};
  const clforge__attn_tensor *out[] = {&d->o, &d->lse};
  const cl_mem outb[] = {o, x ? x->lse : NULL};
  for (int w = 0; w < 2; ++w) {
    if (!outb[w]) continue;
    cl_mem wroot, root;
    clforge__footprint wf, f;
    clforge_status st = clforge__attn_root_footprint(ctx, out[w], outb[w], &wroot, &wf);
    for (int i = 0; i < 7 && st == CLFORGE_SUCCESS; ++i) {
      if (!inb[i]) continue;
      st = clforge__attn_root_footprint(ctx, in[i], inb[i], &root, &f);
      if (st == CLFORGE_SUCCESS && root == wroot && clforge__footprints_overlap(&wf, &f))
        return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "attention: %s overlaps %s (they share bytes of one buffer)",
                             out[w]->name, in[i]->name);
    }
    if (st == CLFORGE_SUCCESS && w == 1) {
      st = clforge__attn_root_footprint(ctx, &d->o, o, &root, &f);
      if (st == CLFORGE_SUCCESS && root == wroot && clforge__footprints_overlap(&wf, &f))
        return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "attention: lse overlaps o (they share bytes of one buffer)");
    }
    if (st != CLFORGE_SUCCESS) return st;
  }
  return CLFORGE_SUCCESS;
}

static clforge_status check_buffers(clforge_context ctx, const clforge__attn *d, cl_mem q, cl_mem k, cl_mem v, cl_mem o,
                                    const clforge_attention_buffers *x) {
  clforge_status st = clforge__attn_check_tensor(ctx, "attention", &d->q, q, CLFORGE_ACCESS_READ);
  if (st == CLFORGE_SUCCESS) st = clforge__attn_check_tensor(ctx, "attention", &d->k, k, CLFORGE_ACCESS_READ);
  if (st == CLFORGE_SUCCESS) st = clforge__attn_check_tensor(ctx, "attention", &d->v, v, CLFORGE_ACCESS_READ);
  if (st == CLFORGE_SUCCESS) st = clforge__attn_check_tensor(ctx, "attention", &d->o, o, CLFORGE_ACCESS_WRITE);
  if (st == CLFORGE_SUCCESS && d->has_mask) st = clforge__attn_check_tensor(ctx, "attention", &d->mask, x->mask, CLFORGE_ACCESS_READ);
  if (st == CLFORGE_SUCCESS && d->has_lse) st = clforge__attn_check_tensor(ctx, "attention", &d->lse, x->lse, CLFORGE_ACCESS_WRITE);
  if (st == CLFORGE_SUCCESS && d->has_kv_lens)
    st = clforge__check_buffer(ctx, "attention", "kv_lens", x->kv_lens, d->kv_lens_offset, d->b, sizeof(cl_int),
                               CLFORGE_ACCESS_READ);
  if (st == CLFORGE_SUCCESS && d->has_q_lens)
    st = clforge__check_buffer(ctx, "attention", "q_lens", x->q_lens, d->q_lens_offset, d->b, sizeof(cl_int),
                               CLFORGE_ACCESS_READ);
  if (st == CLFORGE_SUCCESS && d->page) {
    if (!d->has_table)
      return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT,
                           "attention: kv_block_size = %zu (a paged KV cache) needs extra->block_table", d->page);
    st = clforge__check_buffer(ctx, "attention", "block_table", x->block_table, d->bt_offset, table_len(d),
                               sizeof(cl_int), CLFORGE_ACCESS_READ);
  }
  if (st == CLFORGE_SUCCESS) st = check_aliasing(ctx, d, q, k, v, o, x);
  return st;
}

/* A paged call's table and lengths, read back (after the wait list) and
 * checked before anything is enqueued: an entry outside the pool would
 * otherwise be a read outside K and V. The table stays for validation, as
 * read: from the offset on (*host is d with bt_offset 0, its problem). */
static clforge_status read_pages(clforge_context ctx, const clforge__attn *d, const clforge_attention_buffers *x,
                                 cl_uint nwait, const cl_event *wait, int32_t **table, clforge__attn *host) {
  *table = NULL;
  *host = *d;
  host->bt_offset = 0;
  if (!d->page) return CLFORGE_SUCCESS;
  cl_int err = nwait ? clWaitForEvents(nwait, wait) : CL_SUCCESS;
  if (err != CL_SUCCESS) return clforge__fail_cl(ctx, err, "attention: waiting for the wait list (the block table)");
  const size_t n = table_len(d);
  int32_t *lens = NULL;
  *table = malloc((n ? n : 1) * sizeof **table);
  clforge_status st = *table ? CLFORGE_SUCCESS
                             : clforge__fail(ctx, CLFORGE_OUT_OF_HOST_MEMORY, "attention: no memory for the block table");
  if (st == CLFORGE_SUCCESS && n)
    st = clforge__read_buffer(ctx, x->block_table, d->bt_offset * sizeof **table, n * sizeof **table, *table);
  if (st == CLFORGE_SUCCESS && d->has_kv_lens) st = read_lens(ctx, x->kv_lens, d->kv_lens_offset, d->b, &lens);
  if (st == CLFORGE_SUCCESS) st = clforge__attn_check_pages(ctx, host, lens, *table);
  free(lens);
  if (st != CLFORGE_SUCCESS) free(*table), *table = NULL;
  return st;
}

/* ------------------------------------------------------------- validation */

typedef struct {
  void *q, *k, *v, *mask;
  int32_t *kv_lens, *q_lens, *table;
} host_inputs;

static clforge_status read_tensor(clforge_context ctx, const clforge__attn_tensor *t, cl_mem buf, void **out) {
  *out = NULL;
  if (!buf || t->extent == t->offset) return CLFORGE_SUCCESS;
  const size_t bytes = t->extent * clforge__attn_unit(t);
  *out = malloc(bytes);
  if (!*out) return clforge__fail(ctx, CLFORGE_OUT_OF_HOST_MEMORY, "attention validation: no memory for %s", t->name);
  return clforge__read_buffer(ctx, buf, 0, bytes, *out);
}

static clforge_status read_lens(clforge_context ctx, cl_mem buf, size_t offset, size_t b, int32_t **out) {
  *out = NULL;
  if (!buf) return CLFORGE_SUCCESS;
  *out = malloc((offset + b) * sizeof **out);
  if (!*out) return clforge__fail(ctx, CLFORGE_OUT_OF_HOST_MEMORY, "attention validation: no memory for lengths");
  return clforge__read_buffer(ctx, buf, 0, (offset + b) * sizeof **out, *out);
}

static void free_inputs(host_inputs *h) {
  free(h->q), free(h->k), free(h->v), free(h->mask), free(h->kv_lens), free(h->q_lens), free(h->table);
}

static clforge_status read_inputs(clforge_context ctx, const clforge__attn *d, cl_mem q, cl_mem k, cl_mem v,
                                  const clforge_attention_buffers *x, host_inputs *h) {
  memset(h, 0, sizeof *h);
  clforge_status st = read_tensor(ctx, &d->q, q, &h->q);
  if (st == CLFORGE_SUCCESS) st = read_tensor(ctx, &d->k, k, &h->k);
  if (st == CLFORGE_SUCCESS) st = read_tensor(ctx, &d->v, v, &h->v);
  if (st == CLFORGE_SUCCESS && d->has_mask) st = read_tensor(ctx, &d->mask, x->mask, &h->mask);
  if (st == CLFORGE_SUCCESS && d->has_kv_lens) st = read_lens(ctx, x->kv_lens, d->kv_lens_offset, d->b, &h->kv_lens);
  if (st == CLFORGE_SUCCESS && d->has_q_lens) st = read_lens(ctx, x->q_lens, d->q_lens_offset, d->b, &h->q_lens);
  return st;
}

static size_t at(const clforge__attn_tensor *t, size_t a0, size_t a1, size_t a2, size_t a3) {
  return t->offset + a0 * t->stride[0] + a1 * t->stride[1] + a2 * t->stride[2] + a3 * t->stride[3];
}

/* Every written element of O (and LSE) against the reference's. */
static clforge_status validate_attention(clforge_context ctx, const clforge__attn *d, const host_inputs *h, cl_mem o,
                                         cl_mem lse, clforge_compute_type ran) {
  const size_t os = clforge_dtype_size(d->o.type);
  const size_t rows = d->b * d->hq * d->sq;
  unsigned char *ho = malloc(d->o.extent * os);
  float *hl = d->has_lse ? malloc(d->lse.extent * sizeof *hl) : NULL;
  float *got = malloc((rows * d->dv + rows) * sizeof *got), *want = malloc((rows * d->dv + rows) * sizeof *want);
  double *row = malloc(d->dv * sizeof *row), *scores = malloc((d->sk ? d->sk : 1) * sizeof *scores);
  clforge_status st = CLFORGE_SUCCESS;
  if (!ho || (d->has_lse && !hl) || !got || !want || !row || !scores)
    st = clforge__fail(ctx, CLFORGE_OUT_OF_HOST_MEMORY, "attention validation: no memory");
  if (st == CLFORGE_SUCCESS) st = clforge__test_fault_apply(ctx, "attention", o, d->o.offset, d->o.type); /* tests only */
  if (st == CLFORGE_SUCCESS) st = clforge__read_buffer(ctx, o, 0, d->o.extent * os, ho);
  if (st == CLFORGE_SUCCESS && hl) st = clforge__read_buffer(ctx, lse, 0, d->lse.extent * sizeof *hl, hl);
  size_t n = 0, nl = 0;
  float *gl = got + rows * d->dv, *wl = want + rows * d->dv;
  for (size_t b = 0; st == CLFORGE_SUCCESS && b < d->b; ++b) {
    const size_t kvl = clforge__ref_attention_len(h->kv_lens, d->kv_lens_offset, b, d->sk);
    const size_t ql = clforge__ref_attention_len(h->q_lens, d->q_lens_offset, b, d->sq);
    for (size_t hh = 0; hh < d->hq; ++hh)
      for (size_t i = 0; i < ql; ++i) {
        double l;
        clforge__ref_attention_row(d, h->q, h->k, h->v, h->mask, h->table, b, hh, i, kvl, ql, scores, row, &l);
        for (size_t c = 0; c < d->dv; ++c, ++n) {
          /* the reference rounded to O's type, as the device stores it */
          unsigned char raw[4];
          float r = (float)row[c];
          clforge_ref_convert(1, &r, CLFORGE_F32, raw, d->o.type);
          clforge_ref_convert(1, raw, d->o.type, &want[n], CLFORGE_F32);
          clforge_ref_convert(1, ho + at(&d->o, b, hh, i, c) * os, d->o.type, &got[n], CLFORGE_F32);
        }
        if (hl) gl[nl] = hl[at(&d->lse, b, hh, i, 0)], wl[nl] = (float)l, ++nl;
      }
  }
  /* a half variant's error is its compute type's (docs/inference-precision.md) */
  if (st == CLFORGE_SUCCESS)
    st = clforge__validate(ctx, "attention", CLFORGE_F32, n, got, want, clforge__tolerance_for_compute(d->o.type, ran));
  if (st == CLFORGE_SUCCESS && nl)
    st = clforge__validate(ctx, "attention (lse)", CLFORGE_F32, nl, gl, wl,
                           clforge__tolerance_for_compute(CLFORGE_F32, ran));
  free(ho), free(hl), free(got), free(want), free(row), free(scores);
  return st;
}

/* ------------------------------------------------------------------- call */

/* The plan and its scratch (within the context's bound). */
static clforge_status plan_with_workspace(clforge_context ctx, const clforge__attn *d, attn_plan *p, cl_mem *ws,
                                          cl_event *busy) {
  clforge_status st = make_plan(ctx, d, p);
  const size_t need = st == CLFORGE_SUCCESS ? p->choice.workspace_bytes : 0;
  if (need > clforge__workspace_cap(ctx))
    st = clforge__fail(ctx, CLFORGE_OUT_OF_DEVICE_MEMORY,
                       "attention: %s needs %zu bytes of workspace, above the bound of %zu",
                       clforge_attention_algo_name(p->choice.algo), need, clforge__workspace_cap(ctx));
  if (st == CLFORGE_SUCCESS && need) st = clforge__workspace_get(ctx, need, ws, busy);
  return st;
}

/* The algorithm's enqueue after the caller's list and the workspace's last user. */
static clforge_status enqueue(clforge_context ctx, const clforge__attn *d, const attn_plan *p, cl_mem q, cl_mem k,
                              cl_mem v, cl_mem o, const clforge_attention_buffers *extra, cl_mem ws, cl_event busy,
                              cl_uint nwait, const cl_event *wait, cl_event *done) {
  clforge__chain ch;
  clforge_status st = clforge__chain_begin(ctx, "attention", &ch, nwait, wait, 1, &busy);
  if (st != CLFORGE_SUCCESS) return st;
  const clforge__attn_exec e = {ctx,
                                d,
                                p->v,
                                p->impl->family2 ? p->v2 : NULL,
                                q,
                                k,
                                v,
                                o,
                                d->has_mask ? extra->mask : NULL,
                                d->has_kv_lens ? extra->kv_lens : NULL,
                                d->has_q_lens ? extra->q_lens : NULL,
                                d->has_lse ? extra->lse : NULL,
                                d->has_table ? extra->block_table : NULL,
                                ws,
                                ws ? p->choice.workspace_bytes : 0,
                                clforge__chain_nwait(&ch),
                                clforge__chain_wait(&ch),
                                done};
  st = clforge__chain_end(&ch, p->impl->enqueue(&e), NULL);
  if (st == CLFORGE_SUCCESS && ws) clforge__workspace_used(ctx, *done);
  return st;
}

clforge_status clforge_attention(clforge_context ctx, const clforge_attention_desc *desc, cl_mem q, cl_mem k, cl_mem v,
                                 cl_mem o, const clforge_attention_buffers *extra, cl_uint num_events_in_wait_list,
                                 const cl_event *event_wait_list, cl_event *event) {
  clforge_status st = clforge__call_begin(ctx, "attention", event);
  if (st != CLFORGE_SUCCESS) return st;
  clforge__attn d;
  st = clforge__attn_resolve(ctx, desc, extra, &d);
  if (st == CLFORGE_SUCCESS && d.kind != CLFORGE_ATTENTION_FORWARD)
    st = clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "attention: desc.kind is backward: call clforge_attention_backward");
  if (st == CLFORGE_SUCCESS) st = clforge__check_wait_list(ctx, "attention", num_events_in_wait_list, event_wait_list);
  if (st != CLFORGE_SUCCESS) return st;
  /* Sq = 0 reads and writes nothing: a no-op needing no buffers, as every
   * op's empty call (GEMM's m or n = 0, softmax's rows or n = 0). */
  if (d.sq == 0) return clforge__call_marker(ctx, "attention", num_events_in_wait_list, event_wait_list, event);
  st = check_buffers(ctx, &d, q, k, v, o, extra);
  if (st != CLFORGE_SUCCESS) return st;
  /* a paged call's table and lengths first: a refused call takes no workspace */
  host_inputs h;
  memset(&h, 0, sizeof h);
  clforge__attn hd; /* d for the host copy of the table (validation) */
  st = read_pages(ctx, &d, extra, num_events_in_wait_list, event_wait_list, &h.table, &hd);
  if (st != CLFORGE_SUCCESS) return st;

  attn_plan p;
  cl_mem ws = NULL;
  cl_event busy = NULL;
  st = plan_with_workspace(ctx, &d, &p, &ws, &busy);
  if (st == CLFORGE_SUCCESS && ctx->validate) { /* inputs as they are when the kernels will run */
    st = clforge__call_await_inputs(ctx, "attention", num_events_in_wait_list, event_wait_list);
    int32_t *table = h.table;
    if (st == CLFORGE_SUCCESS) st = read_inputs(ctx, &d, q, k, v, extra, &h);
    h.table = table;
  }
  cl_event done = NULL;
  if (st == CLFORGE_SUCCESS)
    st = enqueue(ctx, &d, &p, q, k, v, o, extra, ws, busy, num_events_in_wait_list, event_wait_list, &done);
  if (st == CLFORGE_SUCCESS && ctx->validate) {
    st = clforge__call_await_done(ctx, "attention", done);
    if (st == CLFORGE_SUCCESS) st = validate_attention(ctx, &hd, &h, o, d.has_lse ? extra->lse : NULL,
                                                          p.choice.kernels[0].compute_type);
  }
  free_inputs(&h);
  return clforge__call_end(st, done, event);
}

/* ----------------------------------------------------------- the queries */

clforge_status clforge_attention_explain(clforge_context ctx, const clforge_attention_desc *desc,
                                         clforge_attention_choice *choice) {
  clforge_status st = clforge__query_begin(ctx, "attention_explain", choice, "choice");
  if (st != CLFORGE_SUCCESS) return st;
  clforge__attn d;
  st = clforge__attn_resolve(ctx, desc, NULL, &d);
  if (st != CLFORGE_SUCCESS) return st;
  if (d.kind == CLFORGE_ATTENTION_BACKWARD) return clforge__attn_bwd_explain(ctx, &d, choice);
  attn_plan p;
  st = make_plan(ctx, &d, &p);
  if (st == CLFORGE_SUCCESS) *choice = p.choice;
  return st;
}

clforge_status clforge_attention_workspace_size(clforge_context ctx, const clforge_attention_desc *desc,
                                                size_t *bytes) {
  clforge_status st = clforge__query_begin(ctx, "attention_workspace_size", bytes, "bytes");
  if (st != CLFORGE_SUCCESS) return st;
  clforge_attention_choice c;
  st = clforge_attention_explain(ctx, desc, &c);
  if (st == CLFORGE_SUCCESS) *bytes = c.workspace_bytes;
  return st;
}
