/* An attention descriptor resolved and checked once, for the device op,
 * its algorithms, the tuner and the reference alike (as conv_desc.h is for
 * convolution). Every tensor is an offset plus four element strides, so
 * BHSD, BSHD and packed QKV are indexed by one formula. */
#ifndef CLFORGE_SRC_ATTENTION_DESC_H
#define CLFORGE_SRC_ATTENTION_DESC_H

#include <stdint.h>

#include "clforge/clforge.h"
#include "../core/footprint.h"

enum { CLFORGE_ATTENTION_MAX_HEAD_DIM = 256 };

typedef struct clforge__attn_tensor {
  const char *name;      /* "q", "k", "v", "o", "mask", "lse" */
  clforge_dtype type;
  size_t offset;         /* elements */
  size_t stride[4];      /* (b, h, s, d); mask (b, h, sq, sk); lse (b, h, sq) with stride[3] = 0 */
  size_t dims[4];        /* lse: dims[3] = 1 */
  size_t extent;         /* elements the buffer must hold: offset + the furthest element + 1 */
} clforge__attn_tensor;

typedef struct clforge__attn {
  clforge_attention_kind kind;       /* forward, or backward (clforge_attention_backward) */
  size_t b, hq, hkv, group;          /* group = Hq / Hkv: query heads per key/value head */
  size_t sq, sk, d, dv;
  float scale;                       /* resolved: 1/sqrt(D) when the desc says 0 */
  float softcap;                     /* 0: none */
  clforge_causal causal;
  size_t window;                     /* 0: none */
  clforge_attention_algo algo;       /* as asked (AUTO: choose) */
  clforge_compute_type compute_type; /* resolved (the context's for 0) */
  clforge__attn_tensor q, k, v, o, mask, lse;
  /* Set from the buffers given (clforge__attn_resolve's extra). */
  int has_mask, has_kv_lens, has_q_lens, has_lse;
  size_t kv_lens_offset, q_lens_offset; /* int32 elements */
  /* A paged KV cache (page > 0): K and V index (pool block, head, slot, d)
   * and key j of item b is in block table[bt_offset + b * bt_stride +
   * j / page]. The table's buffer is given when has_table. */
  size_t page, pages, bt_stride, bt_offset;
  int has_table;
  int kv_q8;                         /* K and V are q8_0 rows: their offsets, strides and extents count bytes */
  int idx64;                         /* some tensor spans >= 2^32 elements */
  /* 2 B Hq Sq Sk (D + Dv): the two products without masking; halved for a
   * causal call with Sq == Sk (the FLOP count, docs/performance.md). */
  double flops;
} clforge__attn;

/* Resolve defaults, strides and extents with overflow checks; check enums,
 * head counts, dims (1..256), window needs causal, reserved fields zero.
 * extra (may be NULL) says which optional buffers are given. Failures are
 * recorded on ctx (may be NULL). Buffers themselves are checked by the op. */
clforge_status clforge__attn_resolve(clforge_context ctx, const clforge_attention_desc *desc,
                                     const clforge_attention_buffers *extra, clforge__attn *d);

/* The backward's gradient tensors: dO (O's shape), dQ (Q's), dK (K's), dV (V's). */
typedef struct clforge__attn_grads {
  clforge__attn_tensor d_o, dq, dk, dv;
  int idx64;
} clforge__attn_grads;

/* Resolve the gradients' types, strides and extents for the problem d. */
clforge_status clforge__attn_resolve_grads(clforge_context ctx, const clforge__attn *d,
                                           const clforge_attention_grads *grads, clforge__attn_grads *g);

/* Bytes per unit of t's offset, strides and extent: the element size, or
 * 1 for q8_0 (whose tensors are addressed in bytes). */
size_t clforge__attn_unit(const clforge__attn_tensor *t);

/* Blocks of the table a sequence of kv_len keys uses: ceil(kv_len / page). */
size_t clforge__attn_blocks_used(const clforge__attn *d, size_t kv_len);

/* A paged call's lengths and table, as host copies (kv_lens may be NULL:
 * every sequence Sk long): each length in [0, Sk], each entry a sequence
 * uses (its first ceil(len / page)) in [0, pages). Success when d is not
 * paged. */
clforge_status clforge__attn_check_pages(clforge_context ctx, const clforge__attn *d, const int32_t *kv_lens,
                                         const int32_t *table);

/* Offset (units of clforge__attn_unit) of key j's row of K or V (t) for
 * batch item b and kv head h: contiguous, or through the host copy of the
 * block table when d is paged. */
size_t clforge__attn_kv_row(const clforge__attn *d, const clforge__attn_tensor *t, const int32_t *table, size_t b,
                            size_t h, size_t j);

/* The bytes a tensor touches, as a footprint from the start of its buffer
 * (exact for overlap checks: items over (b, h), rows over s). */
clforge__footprint clforge__attn_footprint(const clforge__attn_tensor *t);

/* "f32,f16,f32": the dtypes key of tuning entries (Q, K/V, O). */
void clforge__attn_dtypes_key(const clforge__attn *d, char *buf, size_t cap);

/* 1 when key j is visible to query i of a (b, h) whose key and query
 * lengths are kv_len and q_len: the one statement of the masking rules
 * (the reference and the tests use it; cl/attention_common.cl mirrors it). */
int clforge__attn_key_visible(const clforge__attn *d, size_t i, size_t j, size_t kv_len, size_t q_len);

#endif
