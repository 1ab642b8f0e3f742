/* What the attention op and its algorithms share: names, the algorithm
 * table, the tuning key of a call, and the kernels' options and arguments
 * (src/ops/attention_algo.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../core/context.h"
#include "../core/error.h"
#include "../families/attention_classes.h"
#include "../families/registry.h"
#include "../core/program.h"
#include "attention_algo.h"
#include "buffer_check.h"

/* The names are the registry's (src/families/registry.h). */
const char *clforge_attention_algo_name(clforge_attention_algo algo) {
  const char *name = clforge__registry_name(CLFORGE_REGISTRY_ATTENTION_ALGOS, (int)algo);
  return name ? name : "?";
}

const clforge__attn_algo_impl *clforge__attn_algo_impl_of(clforge_attention_algo algo) {
  switch (algo) {
    case CLFORGE_ATTENTION_ALGO_FUSED: return &clforge__attention_fused;
    case CLFORGE_ATTENTION_ALGO_SPLIT_KV: return &clforge__attention_split_kv;
    default: return NULL;
  }
}

/* A call's shape in the classes' dims. */
static void call_shape(const clforge__attn *d, size_t s[CLFORGE_ATTN_NDIMS]) {
  s[ATTN_DIM_B] = d->b, s[ATTN_DIM_HQ] = d->hq, s[ATTN_DIM_HKV] = d->hkv, s[ATTN_DIM_SQ] = d->sq;
  s[ATTN_DIM_SK] = d->sk, s[ATTN_DIM_D] = d->d > d->dv ? d->d : d->dv, s[ATTN_DIM_CAUSAL] = (size_t)d->causal;
}

static double log_dist(const size_t *a, const size_t *b) {
  double t = 0;
  for (int i = 0; i < ATTN_DIM_CAUSAL; ++i) {
    const double x = log((double)(a[i] ? a[i] : 1)) - log((double)(b[i] ? b[i] : 1));
    t += x * x;
  }
  /* causal or not changes which key blocks run: worth a factor of ~2 in one dim */
  if ((a[ATTN_DIM_CAUSAL] != 0) != (b[ATTN_DIM_CAUSAL] != 0)) t += 0.5;
  return t;
}

void clforge__attn_make_key(const clforge__attn *d, clforge__attn_key *k) {
  memset(k, 0, sizeof *k);
  clforge__attn_dtypes_key(d, k->dtypes, sizeof k->dtypes);
  /* Tight rows of Q and K (BHSD) against any other strides (BSHD, packed). */
  const size_t krow = d->kv_q8 ? d->d / 32 * 34 : d->d; /* (q8_0 strides count bytes) */
  const int tight = d->q.stride[3] == 1 && d->q.stride[2] == d->d && d->k.stride[3] == 1 && d->k.stride[2] == krow;
  snprintf(k->layout, sizeof k->layout, "%s", tight ? "bhsd" : "strided");
  size_t s[CLFORGE_ATTN_NDIMS];
  call_shape(d, s);
  const int decode = d->sq <= CLFORGE_ATTN_DECODE_MAX_SQ;
  const char *best = "attention";
  double bd = INFINITY;
  for (const clforge__shape_class *c = clforge__attn_all_classes; c->name; ++c) {
    if (clforge__attn_class_is_decode(c) != decode) continue;
    const double t = log_dist(c->shape, s);
    if (t < bd) bd = t, best = c->name;
  }
  snprintf(k->shape_class, sizeof k->shape_class, "%s", best);
  k->key.dtypes = k->dtypes, k->key.layout = k->layout, k->key.shape_class = k->shape_class;
  k->key.ndims = CLFORGE_ATTN_NDIMS;
  memcpy(k->key.shape, s, sizeof s);
  k->key.compute_type = d->compute_type;
}

int clforge__attn_variant(const clforge__attn *d) {
  int v = 0;
  if (d->q.type != CLFORGE_F32 || d->k.type != CLFORGE_F32) v |= CLFORGE__ATTN_VARIANT_HALF;
  if (d->causal != CLFORGE_CAUSAL_NONE) v |= CLFORGE__ATTN_VARIANT_CAUSAL;
  if (d->sq <= CLFORGE_ATTN_DECODE_MAX_SQ) v |= CLFORGE__ATTN_VARIANT_DECODE;
  return v;
}

void clforge__attn_problem_options(const clforge__attn *d, char *buf, size_t cap) {
  size_t used = strlen(buf);
  if (used >= cap) return;
  /* Without a mask its type is never read: one program whatever it says. */
  const clforge_dtype mt = d->has_mask ? d->mask.type : CLFORGE_F32;
  snprintf(buf + used, cap - used,
           " -DQ_T=%d -DKV_T=%d -DO_T=%d -DMASK_T=%d -DHEAD_D=%zu -DHEAD_DV=%zu -DHAS_MASK=%d -DSOFTCAP=%d -DCAUSAL=%d"
           " -DIDX64=%d -DPAGED=%d",
           (int)d->q.type, (int)d->k.type, (int)d->o.type, (int)mt, d->d, d->dv, d->has_mask, d->softcap > 0.0f,
           (int)d->causal, d->idx64, d->page != 0);
}

clforge_status clforge__attn_kernel(clforge_context ctx, const clforge__family *f, const char *name, const int *v,
                                    const clforge__attn *d, const char *extra, size_t wgs, cl_kernel *k) {
  char more[1024] = "";
  clforge__attn_problem_options(d, more, sizeof more);
  if (extra) {
    const size_t used = strlen(more);
    snprintf(more + used, sizeof more - used, " %s", extra);
  }
  return clforge__family_kernel(ctx, "attention", f, name, v, more, wgs, k);
}

cl_int clforge__attn_tensor_args(cl_kernel k, cl_uint *a, const clforge__attn_tensor *t) {
  const cl_ulong off = t->offset;
  cl_int err = clSetKernelArg(k, (*a)++, sizeof off, &off);
  for (int i = 0; i < 4; ++i) {
    const cl_ulong st = t->stride[i];
    err |= clSetKernelArg(k, (*a)++, sizeof st, &st);
  }
  return err;
}

cl_int clforge__attn_common_args(cl_kernel k, cl_uint *a, const clforge__attn_exec *e) {
  const clforge__attn *d = e->d;
  /* An absent buffer is never read (its bit of `has` is 0): q stands in for it. */
  const cl_mem kvl = e->kv_lens ? e->kv_lens : e->q, ql = e->q_lens ? e->q_lens : e->q;
  const cl_ulong kvo = d->kv_lens_offset, qo = d->q_lens_offset;
  cl_int err = clSetKernelArg(k, (*a)++, sizeof(cl_mem), &kvl);
  err |= clSetKernelArg(k, (*a)++, sizeof kvo, &kvo);
  err |= clSetKernelArg(k, (*a)++, sizeof(cl_mem), &ql);
  err |= clSetKernelArg(k, (*a)++, sizeof qo, &qo);
  /* A contiguous call's table is never read (PAGED 0): q stands in. */
  const cl_mem bt = e->block_table ? e->block_table : e->q;
  const cl_ulong bto = d->bt_offset;
  const cl_uint bts = (cl_uint)d->bt_stride, page = d->page ? (cl_uint)d->page : 1u;
  err |= clSetKernelArg(k, (*a)++, sizeof(cl_mem), &bt);
  err |= clSetKernelArg(k, (*a)++, sizeof bto, &bto);
  err |= clSetKernelArg(k, (*a)++, sizeof bts, &bts);
  err |= clSetKernelArg(k, (*a)++, sizeof page, &page);
  const cl_uint has = (d->has_kv_lens ? CLFORGE__ATTN_HAS_KV_LENS : 0u) |
                      (d->has_q_lens ? CLFORGE__ATTN_HAS_Q_LENS : 0u) | (d->has_lse ? CLFORGE__ATTN_HAS_LSE : 0u);
  const cl_uint u[] = {(cl_uint)d->b,  (cl_uint)d->hq, (cl_uint)d->hkv,    (cl_uint)d->group,
                       (cl_uint)d->sq, (cl_uint)d->sk, (cl_uint)d->window, has};
  for (size_t i = 0; i < sizeof u / sizeof u[0]; ++i) err |= clSetKernelArg(k, (*a)++, sizeof u[i], &u[i]);
  const cl_float scale = d->scale, cap = d->softcap;
  err |= clSetKernelArg(k, (*a)++, sizeof scale, &scale);
  err |= clSetKernelArg(k, (*a)++, sizeof cap, &cap);
  return err;
}

clforge_status clforge__attn_check_tensor(clforge_context ctx, const char *op, const clforge__attn_tensor *t, cl_mem buf,
                                          int access) {
  const size_t es = clforge__attn_unit(t);
  if (t->extent == t->offset) /* empty: only a real buffer is asked for */
    return clforge__check_buffer(ctx, op, t->name, buf, 0, 0, es, access);
  return clforge__check_buffer(ctx, op, t->name, buf, t->offset, t->extent - t->offset, es, access);
}

/* 1 when two elements of an output tensor share a byte: its axes, sorted
 * by stride, must each step past everything the inner ones span. Exact for
 * every nested layout (BHSD, BSHD, views of packed buffers); conservative
 * for layouts whose axes interleave. An empty tensor has no two elements,
 * whatever its strides (tight strides of Sq = 0 are 0 on b and h). */
int clforge__attn_self_overlaps(const clforge__attn_tensor *t) {
  const size_t es = clforge__attn_unit(t);
  size_t dims[4], strides[4];
  int n = 0;
  for (int i = 0; i < 4; ++i) {
    if (t->dims[i] == 0) return 0;
    if (t->dims[i] > 1) dims[n] = t->dims[i], strides[n] = t->stride[i] * es, ++n;
  }
  for (int i = 1; i < n; ++i)
    for (int j = i; j > 0 && strides[j] < strides[j - 1]; --j) {
      size_t a = dims[j], b = strides[j];
      dims[j] = dims[j - 1], strides[j] = strides[j - 1], dims[j - 1] = a, strides[j - 1] = b;
    }
  size_t span = es;
  for (int i = 0; i < n; ++i) {
    if (strides[i] < span) return 1;
    span = (dims[i] - 1) * strides[i] + span;
  }
  return 0;
}

clforge_status clforge__attn_root_footprint(clforge_context ctx, const clforge__attn_tensor *t, cl_mem buf,
                                           cl_mem *root, clforge__footprint *f) {
  *f = clforge__attn_footprint(t);
  clforge__byte_range r;
  clforge_status st = clforge__buffer_range(ctx, buf, f->begin, 0, &r);
  *root = r.root;
  f->begin = r.begin;
  return st;
}

