#include "attention_desc.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "../core/compute_type.h"
#include "../core/dtype.h"
#include "../core/error.h"
#include "../core/reserved.h"

/* Strides as given, or (all zero) tight in the order of the axes. */
static void strides_of(clforge__attn_tensor *t, const size_t *given, int naxes) {
  int any = 0;
  for (int i = 0; i < naxes; ++i) any |= given[i] != 0;
  if (any) {
    for (int i = 0; i < naxes; ++i) t->stride[i] = given[i];
    return;
  }
  size_t st = 1;
  for (int i = naxes - 1; i >= 0; --i) {
    t->stride[i] = st;
    st *= t->dims[i];
  }
}

/* offset + sum (dims - 1) * stride + 1, with overflow checks; an empty
 * tensor needs nothing but its offset. */
static clforge_status extent(clforge_context ctx, clforge__attn_tensor *t) {
  size_t far = 0, term;
  int empty = 0;
  for (int i = 0; i < 4; ++i) {
    if (t->dims[i] == 0) empty = 1;
    if (t->dims[i] == 0) continue;
    if (!clforge__size_mul(t->dims[i] - 1, t->stride[i], &term) || far > SIZE_MAX / 16 - term)
      return clforge__fail(ctx, CLFORGE_SIZE_OVERFLOW, "attention: the extent of %s overflows size_t", t->name);
    far += term;
  }
  if (t->offset > SIZE_MAX / 16 || far > SIZE_MAX / 16 - t->offset)
    return clforge__fail(ctx, CLFORGE_SIZE_OVERFLOW, "attention: offset + extent of %s overflows", t->name);
  t->extent = empty ? t->offset : t->offset + far + 1;
  return CLFORGE_SUCCESS;
}

static clforge_status tensor(clforge_context ctx, clforge__attn_tensor *t, const char *name, clforge_dtype type,
                             size_t offset, size_t d0, size_t d1, size_t d2, size_t d3, const size_t *given,
                             int naxes) {
  t->name = name;
  t->type = type;
  t->offset = offset;
  t->dims[0] = d0, t->dims[1] = d1, t->dims[2] = d2, t->dims[3] = d3;
  strides_of(t, given, naxes);
  return extent(ctx, t);
}

static size_t ceil_div(size_t a, size_t b) { return a / b + (a % b != 0); }

/* The KV cache's storage: q8_0 rows and paging, both forward only. */
static clforge_status kv_cache(clforge_context ctx, const clforge_attention_desc *desc, clforge__attn *d) {
  if (d->kv_q8) {
    if (d->kind != CLFORGE_ATTENTION_FORWARD)
      return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "attention: a q8_0 K/V cache is for the forward only");
    if (d->d % 32 || d->dv % 32)
      return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT,
                           "attention: q8_0 K/V needs head_dim and head_dim_v multiples of 32 (blocks of 32), not %zu, %zu",
                           d->d, d->dv);
    if (desc->k_strides[3] > 1 || desc->v_strides[3] > 1)
      return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT,
                           "attention: q8_0 K/V rows are contiguous blocks: d strides must be 0 or 1, not %zu, %zu",
                           desc->k_strides[3], desc->v_strides[3]);
  }
  if (!desc->kv_block_size) {
    if (desc->kv_num_blocks || desc->block_table_stride || desc->block_table_offset)
      return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT,
                           "attention: kv_num_blocks, block_table_stride or block_table_offset set without kv_block_size "
                           "(0 = a contiguous KV cache)");
    return CLFORGE_SUCCESS;
  }
  if (d->kind != CLFORGE_ATTENTION_FORWARD)
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "attention: a paged KV cache is for the forward only");
  d->page = desc->kv_block_size, d->pages = desc->kv_num_blocks;
  if (d->page > INT32_MAX || d->pages > INT32_MAX)
    return clforge__fail(ctx, CLFORGE_LIMIT_EXCEEDED,
                         "attention: kv_block_size = %zu and kv_num_blocks = %zu must each be below 2^31", d->page,
                         d->pages);
  const size_t need = ceil_div(d->sk, d->page);
  d->bt_stride = desc->block_table_stride ? desc->block_table_stride : need;
  d->bt_offset = desc->block_table_offset;
  if (d->bt_stride < need)
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT,
                         "attention: block_table_stride = %zu holds fewer blocks than Sk = %zu needs (%zu blocks of %zu "
                         "keys)",
                         d->bt_stride, d->sk, need, d->page);
  /* (Sk = 0 reads no table: a stride of 0 then) */
  if (d->bt_stride > INT32_MAX || d->bt_offset > SIZE_MAX / 8 - need ||
      (d->bt_stride && (d->b - 1) > (SIZE_MAX / 8 - d->bt_offset - need) / d->bt_stride))
    return clforge__fail(ctx, CLFORGE_SIZE_OVERFLOW, "attention: the block table's extent overflows");
  if (d->sk && !d->pages)
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "attention: a paged KV cache of Sk = %zu keys has kv_num_blocks = 0",
                         d->sk);
  return CLFORGE_SUCCESS;
}

size_t clforge__attn_unit(const clforge__attn_tensor *t) {
  return t->type == CLFORGE_Q8_0 ? 1 : clforge_dtype_size(t->type);
}

size_t clforge__attn_blocks_used(const clforge__attn *d, size_t kv_len) { return d->page ? ceil_div(kv_len, d->page) : 0; }

clforge_status clforge__attn_check_pages(clforge_context ctx, const clforge__attn *d, const int32_t *kv_lens,
                                         const int32_t *table) {
  if (!d->page) return CLFORGE_SUCCESS;
  for (size_t b = 0; b < d->b; ++b) {
    size_t len = d->sk;
    if (kv_lens) {
      const int32_t l = kv_lens[d->kv_lens_offset + b];
      if (l < 0 || (size_t)l > d->sk)
        return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT,
                             "attention: kv_lens[%zu] = %d is outside [0, Sk = %zu] (a paged cache's lengths must fit "
                             "its table)", b, (int)l, d->sk);
      len = (size_t)l;
    }
    const size_t used = clforge__attn_blocks_used(d, len);
    for (size_t p = 0; p < used; ++p) {
      const int32_t e = table[d->bt_offset + b * d->bt_stride + p];
      if (e < 0 || (size_t)e >= d->pages)
        return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT,
                             "attention: block_table[%zu][%zu] = %d is outside the pool [0, %zu)", b, p, (int)e,
                             d->pages);
    }
  }
  return CLFORGE_SUCCESS;
}

size_t clforge__attn_kv_row(const clforge__attn *d, const clforge__attn_tensor *t, const int32_t *table, size_t b,
                            size_t h, size_t j) {
  if (!d->page) return t->offset + b * t->stride[0] + h * t->stride[1] + j * t->stride[2];
  const size_t blk = (size_t)table[d->bt_offset + b * d->bt_stride + j / d->page];
  return t->offset + blk * t->stride[0] + h * t->stride[1] + (j % d->page) * t->stride[2];
}

/* The kind and every reserved field of the descriptor and the buffers. */
static clforge_status check_kind_reserved(clforge_context ctx, const clforge_attention_desc *desc,
                                          const clforge_attention_buffers *extra, clforge__attn *d) {
  if (desc->kind != CLFORGE_ATTENTION_FORWARD && desc->kind != CLFORGE_ATTENTION_BACKWARD)
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "attention: kind %d is not known (0 forward, 1 backward)",
                         (int)desc->kind);
  d->kind = desc->kind;
  clforge_status st = clforge__check_reserved_sizes(ctx, "attention", "clforge_attention_desc.reserved_sizes",
                                                    desc->reserved_sizes, CLFORGE_COUNT_OF(desc->reserved_sizes));
  if (st == CLFORGE_SUCCESS)
    st = clforge__check_reserved_ptrs(ctx, "attention", "clforge_attention_desc.reserved", desc->reserved,
                                      CLFORGE_COUNT_OF(desc->reserved));
  if (st == CLFORGE_SUCCESS && extra)
    st = clforge__check_reserved_ptrs(ctx, "attention", "clforge_attention_buffers.reserved", extra->reserved,
                                      CLFORGE_COUNT_OF(extra->reserved));
  return st;
}

/* Batch, heads (GQA groups) and head dims, 0 meaning the default. */
static clforge_status resolve_heads(clforge_context ctx, const clforge_attention_desc *desc, clforge__attn *d) {
  d->b = desc->batch ? desc->batch : 1;
  d->hq = desc->heads_q;
  d->hkv = desc->heads_kv ? desc->heads_kv : desc->heads_q;
  d->sq = desc->seq_q, d->sk = desc->seq_kv;
  d->d = desc->head_dim;
  d->dv = desc->head_dim_v ? desc->head_dim_v : desc->head_dim;
  if (d->hq == 0) return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "attention: heads_q is 0");
  if (d->hq % d->hkv)
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT,
                         "attention: heads_q = %zu is not a multiple of heads_kv = %zu (GQA needs Hq = g * Hkv)", d->hq,
                         d->hkv);
  d->group = d->hq / d->hkv;
  if (d->d < 1 || d->d > CLFORGE_ATTENTION_MAX_HEAD_DIM)
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "attention: head_dim = %zu (1..%d)", d->d,
                         CLFORGE_ATTENTION_MAX_HEAD_DIM);
  if (d->dv > CLFORGE_ATTENTION_MAX_HEAD_DIM)
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "attention: head_dim_v = %zu (1..%d; 0 = head_dim)", d->dv,
                         CLFORGE_ATTENTION_MAX_HEAD_DIM);
  return CLFORGE_SUCCESS;
}

/* Storage types (into t: q, kv, o, mask), masking, algorithm, compute
 * type, scale and softcap, and the kernels' limits on the counts. */
static clforge_status resolve_modes(clforge_context ctx, const clforge_attention_desc *desc, clforge__attn *d,
                                    clforge_dtype t[4]) {
  t[0] = desc->q_type, t[1] = desc->kv_type, t[2] = desc->o_type, t[3] = desc->mask_type;
  d->kv_q8 = t[1] == CLFORGE_Q8_0;
  if (!clforge__float_dtype_ok(&t[0]) || (!d->kv_q8 && !clforge__float_dtype_ok(&t[1])) || !clforge__float_dtype_ok(&t[2]) || !clforge__float_dtype_ok(&t[3]))
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "attention: unknown dtype or not a float one (q %d, kv %d, o %d, mask %d)",
                         (int)desc->q_type, (int)desc->kv_type, (int)desc->o_type, (int)desc->mask_type);
  if (desc->causal != CLFORGE_CAUSAL_NONE && desc->causal != CLFORGE_CAUSAL_TOP_LEFT &&
      desc->causal != CLFORGE_CAUSAL_BOTTOM_RIGHT)
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT,
                         "attention: causal = %d (0 none, 1 top-left, 2 bottom-right)", (int)desc->causal);
  d->causal = desc->causal;
  d->window = desc->window;
  if (d->window && d->causal == CLFORGE_CAUSAL_NONE)
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT,
                         "attention: window = %zu needs causal masking (the window ends at the causal diagonal)",
                         d->window);
  if (d->window > INT32_MAX) d->window = INT32_MAX; /* wider than any key range: the same result */
  if (desc->algo < CLFORGE_ATTENTION_ALGO_AUTO || desc->algo >= CLFORGE_ATTENTION_ALGO_COUNT)
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "attention: algo = %d (0 auto, 1 fused, 2 split_kv)",
                         (int)desc->algo);
  d->algo = desc->algo;
  clforge_status st = clforge__resolve_compute_type(ctx, "attention", desc->compute_type, &d->compute_type);
  if (st != CLFORGE_SUCCESS) return st;
  if (!isfinite(desc->scale) || !isfinite(desc->softcap) || desc->softcap < 0.0f)
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "attention: scale = %g, softcap = %g (finite; softcap >= 0)",
                         (double)desc->scale, (double)desc->softcap);
  d->scale = desc->scale != 0.0f ? desc->scale : (float)(1.0 / sqrt((double)d->d));
  d->softcap = desc->softcap;
  /* Every count the kernels take as uint, and every position as int. */
  if (d->b > INT32_MAX || d->hq > INT32_MAX || d->sq > INT32_MAX || d->sk > INT32_MAX)
    return clforge__fail(ctx, CLFORGE_LIMIT_EXCEEDED,
                         "attention: batch, heads, seq_q and seq_kv must each be below 2^31 (%zu, %zu, %zu, %zu)",
                         d->b, d->hq, d->sq, d->sk);
  return CLFORGE_SUCCESS;
}

/* The KV cache's paging, then each tensor's dims, strides and extent. */
static clforge_status lay_out_tensors(clforge_context ctx, const clforge_attention_desc *desc, const clforge_dtype t[4],
                                      clforge__attn *d) {
  clforge_status st;
  if ((st = kv_cache(ctx, desc, d)) != CLFORGE_SUCCESS) return st;
  /* K and V: (b, h, s, d), or a paged pool's (block, h, slot, d); q8_0
   * rows as their bytes (a d stride of 0 or 1 reads as 1). */
  const size_t kv_items = d->page ? d->pages : d->b, kv_rows = d->page ? d->page : d->sk;
  const size_t kd = d->kv_q8 ? d->d / 32 * 34 : d->d, vd = d->kv_q8 ? d->dv / 32 * 34 : d->dv;
  size_t ks[4], vs[4];
  memcpy(ks, desc->k_strides, sizeof ks);
  memcpy(vs, desc->v_strides, sizeof vs);
  if (d->kv_q8 && (ks[0] || ks[1] || ks[2])) ks[3] = 1;
  if (d->kv_q8 && (vs[0] || vs[1] || vs[2])) vs[3] = 1;
  if ((st = tensor(ctx, &d->q, "q", t[0], desc->q_offset, d->b, d->hq, d->sq, d->d, desc->q_strides, 4)) ||
      (st = tensor(ctx, &d->k, "k", t[1], desc->k_offset, kv_items, d->hkv, kv_rows, kd, ks, 4)) ||
      (st = tensor(ctx, &d->v, "v", t[1], desc->v_offset, kv_items, d->hkv, kv_rows, vd, vs, 4)) ||
      (st = tensor(ctx, &d->o, "o", t[2], desc->o_offset, d->b, d->hq, d->sq, d->dv, desc->o_strides, 4)) ||
      (st = tensor(ctx, &d->mask, "mask", t[3], desc->mask_offset, d->b, d->hq, d->sq, d->sk, desc->mask_strides, 4)) ||
      (st = tensor(ctx, &d->lse, "lse", CLFORGE_F32, desc->lse_offset, d->b, d->hq, d->sq, 1, desc->lse_strides, 3)))
    return st;
  d->lse.stride[3] = 0;
  return CLFORGE_SUCCESS;
}

/* Which of the optional buffers are given, their offsets, and 64-bit
 * indexing when a tensor the call reads reaches 2^32. */
static clforge_status resolve_extras(clforge_context ctx, const clforge_attention_desc *desc,
                                     const clforge_attention_buffers *extra, clforge__attn *d) {
  d->has_mask = extra && extra->mask;
  d->has_kv_lens = extra && extra->kv_lens;
  d->has_q_lens = extra && extra->q_lens;
  d->has_lse = extra && extra->lse;
  d->kv_lens_offset = desc->kv_lens_offset;
  d->q_lens_offset = desc->q_lens_offset;
  if (d->kv_lens_offset > SIZE_MAX / 8 - d->b || d->q_lens_offset > SIZE_MAX / 8 - d->b)
    return clforge__fail(ctx, CLFORGE_SIZE_OVERFLOW, "attention: kv_lens_offset or q_lens_offset overflows");

  d->has_table = extra && extra->block_table;
  if (d->has_table && !d->page)
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT,
                         "attention: a block_table is given but kv_block_size is 0 (the KV cache is contiguous)");

  const clforge__attn_tensor *all[] = {&d->q, &d->k, &d->v, &d->o, &d->mask, &d->lse};
  for (int i = 0; i < 6; ++i)
    if (all[i]->extent >= ((size_t)1 << 32) && (i != 4 || d->has_mask) && (i != 5 || d->has_lse)) d->idx64 = 1;
  return CLFORGE_SUCCESS;
}

clforge_status clforge__attn_resolve(clforge_context ctx, const clforge_attention_desc *desc,
                                     const clforge_attention_buffers *extra, clforge__attn *d) {
  memset(d, 0, sizeof *d);
  if (!desc) return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "attention: desc is NULL");
  clforge_dtype t[4] = {0};
  clforge_status st;
  if ((st = check_kind_reserved(ctx, desc, extra, d)) || (st = resolve_heads(ctx, desc, d)) || (st = resolve_modes(ctx, desc, d, t)) ||
      (st = lay_out_tensors(ctx, desc, t, d)) || (st = resolve_extras(ctx, desc, extra, d)))
    return st;
  d->flops = 2.0 * (double)d->b * (double)d->hq * (double)d->sq * (double)d->sk * (double)(d->d + d->dv);
  if (d->causal != CLFORGE_CAUSAL_NONE && d->sq == d->sk) d->flops *= 0.5;
  return CLFORGE_SUCCESS;
}

clforge__footprint clforge__attn_footprint(const clforge__attn_tensor *t) {
  const size_t es = clforge__attn_unit(t);
  /* The axes that matter, innermost (smallest stride) first, with the
   * contiguous run of the last axis as the width. */
  size_t dims[4], strides[4], width = es;
  int n = 0;
  for (int i = 0; i < 4; ++i) {
    if (t->dims[i] == 0) {
      clforge__footprint none = {t->offset * es, 0, 0, 0, 0, 0};
      return none;
    }
    if (t->dims[i] == 1) continue;
    if (i == 3 && t->stride[3] == 1) {
      width = t->dims[3] * es;
      continue;
    }
    dims[n] = t->dims[i], strides[n] = t->stride[i] * es, ++n;
  }
  for (int i = 1; i < n; ++i) /* sort by stride */
    for (int j = i; j > 0 && strides[j] < strides[j - 1]; --j) {
      size_t a = dims[j], b = strides[j];
      dims[j] = dims[j - 1], strides[j] = strides[j - 1], dims[j - 1] = a, strides[j - 1] = b;
    }
  /* Merge an axis into the next when it is the next's unit (b and h of
   * BHSD, s and h of BSHD), until two remain (rows, items). */
  for (int i = 0; i + 1 < n;) {
    if (strides[i + 1] == strides[i] * dims[i]) {
      dims[i] *= dims[i + 1];
      for (int j = i + 1; j + 1 < n; ++j) dims[j] = dims[j + 1], strides[j] = strides[j + 1];
      --n;
    } else {
      ++i;
    }
  }
  /* A row that is exactly the width continues it. */
  if (n > 0 && strides[0] == width) {
    width *= dims[0];
    for (int j = 0; j + 1 < n; ++j) dims[j] = dims[j + 1], strides[j] = strides[j + 1];
    --n;
  }
  const size_t begin = t->offset * es;
  if (n == 0) {
    clforge__footprint f = {begin, width, width, 1, width, 1};
    return f;
  }
  if (n == 1) {
    clforge__footprint f = {begin, width, strides[0], dims[0], strides[0] * dims[0], 1};
    return f;
  }
  if (n == 2 && strides[0] >= width) {
    clforge__footprint f = {begin, width, strides[0], dims[0], strides[1], dims[1]};
    return f;
  }
  /* Three strided axes that do not merge: the whole range as one row. It is
   * exact about disjoint tensors and conservative (overlap) about tensors
   * interleaved with each other; its own items are checked separately. */
  size_t span = width;
  for (int i = 0; i < n; ++i) span += (dims[i] - 1) * strides[i];
  clforge__footprint f = {begin, span, span, 1, span, 1};
  return f;
}

void clforge__attn_dtypes_key(const clforge__attn *d, char *buf, size_t cap) {
  snprintf(buf, cap, "%s,%s,%s", clforge_dtype_name(d->q.type), clforge_dtype_name(d->k.type),
           clforge_dtype_name(d->o.type));
}

int clforge__attn_key_visible(const clforge__attn *d, size_t i, size_t j, size_t kv_len, size_t q_len) {
  if (j >= kv_len) return 0;
  if (d->causal == CLFORGE_CAUSAL_NONE) return 1;
  /* diag = i (top-left) or i + kv_len - q_len (bottom-right), signed */
  const long long diag = d->causal == CLFORGE_CAUSAL_TOP_LEFT ? (long long)i
                                                              : (long long)i + (long long)kv_len - (long long)q_len;
  if ((long long)j > diag) return 0;
  if (d->window && (long long)j <= diag - (long long)d->window) return 0;
  return 1;
}

clforge_status clforge__attn_resolve_grads(clforge_context ctx, const clforge__attn *d,
                                           const clforge_attention_grads *grads, clforge__attn_grads *g) {
  memset(g, 0, sizeof *g);
  if (!grads) return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "attention_backward: grads is NULL");
  clforge_status st = clforge__check_reserved_ptrs(ctx, "attention_backward", "clforge_attention_grads.reserved",
                                                   grads->reserved, CLFORGE_COUNT_OF(grads->reserved));
  if (st != CLFORGE_SUCCESS) return st;
  clforge_dtype dot = grads->do_type, dqt = grads->dq_type, dkvt = grads->dkv_type;
  if (!clforge__float_dtype_ok(&dot) || !clforge__float_dtype_ok(&dqt) || !clforge__float_dtype_ok(&dkvt))
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "attention_backward: unknown dtype or not a float one (do %d, dq %d, dkv %d)",
                         (int)grads->do_type, (int)grads->dq_type, (int)grads->dkv_type);
  if ((st = tensor(ctx, &g->d_o, "do", dot, grads->do_offset, d->b, d->hq, d->sq, d->dv, grads->do_strides, 4)) ||
      (st = tensor(ctx, &g->dq, "dq", dqt, grads->dq_offset, d->b, d->hq, d->sq, d->d, grads->dq_strides, 4)) ||
      (st = tensor(ctx, &g->dk, "dk", dkvt, grads->dk_offset, d->b, d->hkv, d->sk, d->d, grads->dk_strides, 4)) ||
      (st = tensor(ctx, &g->dv, "dv", dkvt, grads->dv_offset, d->b, d->hkv, d->sk, d->dv, grads->dv_strides, 4)))
    return st;
  const clforge__attn_tensor *all[] = {&g->d_o, &g->dq, &g->dk, &g->dv};
  for (int i = 0; i < 4; ++i)
    if (all[i]->extent >= ((size_t)1 << 32)) g->idx64 = 1;
  return CLFORGE_SUCCESS;
}
