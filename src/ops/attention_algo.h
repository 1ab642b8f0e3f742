/* What every attention algorithm provides to the op (src/ops/attention.c):
 * one table row per algorithm, defined in src/ops/attention_<algo>.c. The
 * op checks arguments and buffers, chooses the algorithm and its families'
 * parameters, provides the workspace and the wait list, and validates; an
 * algorithm only says what it can do and enqueues it. */
#ifndef CLFORGE_SRC_OPS_ATTENTION_ALGO_H
#define CLFORGE_SRC_OPS_ATTENTION_ALGO_H

#include "../desc/attention_desc.h"
#include "../families/attention_classes.h"
#include "../families/family.h"

/* One call as an algorithm sees it. Every buffer is already checked;
 * absent optional buffers are NULL (pass a dummy, e.g. q, to the kernel
 * with its HAS_* option 0). */
typedef struct clforge__attn_exec {
  clforge_context ctx;
  const clforge__attn *d;
  const int *v;                /* the main family's values */
  const int *v2;               /* the second family's (combine), or NULL */
  cl_mem q, k, v_, o, mask, kv_lens, q_lens, lse, block_table;
  cl_mem ws;                   /* workspace of at least workspace() bytes (NULL when 0) */
  size_t ws_bytes;
  cl_uint nwait;               /* run after these (the caller's list and the workspace's last user) */
  const cl_event *wait;
  cl_event *event;             /* never NULL: the call's last command (the op releases it) */
} clforge__attn_exec;

typedef struct clforge__attn_algo_impl {
  clforge_attention_algo algo;
  const char *name;                    /* clforge_attention_algo_name */
  const clforge__family *family;       /* its main kernel's tuned parameters */
  const clforge__family *family2;      /* a second kernel's (split_kv's combine), or NULL */
  /* 1 when it can compute d on ctx's device, else 0 with the reason. */
  int (*supports)(clforge_context ctx, const clforge__attn *d, char *why, size_t cap);
  /* Key-range splits it runs with values v (1 when it does not split). */
  int (*splits)(clforge_context ctx, const clforge__attn *d, const int *v);
  /* Scratch bytes for d with values v (0, or NULL: none). Never grows with Sq*Sk. */
  size_t (*workspace)(clforge_context ctx, const clforge__attn *d, const int *v);
  /* Enqueue the call: everything after e's wait list, *e->event its last
   * command. Build every kernel before the first launch, so that a build
   * failure leaves o untouched. */
  clforge_status (*enqueue)(const clforge__attn_exec *e);
} clforge__attn_algo_impl;

/* The table, indexed by clforge_attention_algo (entry 0, AUTO, is NULL). */
extern const clforge__attn_algo_impl clforge__attention_fused, clforge__attention_split_kv;
const clforge__attn_algo_impl *clforge__attn_algo_impl_of(clforge_attention_algo algo);

/* The problem key of d for family lookups; strings live in the struct. */
typedef struct clforge__attn_key {
  char dtypes[32], layout[16], shape_class[32];
  clforge__problem_key key;
} clforge__attn_key;
void clforge__attn_make_key(const clforge__attn *d, clforge__attn_key *k);

/* The variant bits (CLFORGE__ATTN_VARIANT_*, attention_classes.h) of d. */
int clforge__attn_variant(const clforge__attn *d);

/* -D options every attention kernel gets from d, appended to buf:
 *   Q_T KV_T O_T MASK_T  storage codes (cl/common.cl's CLFORGE_STORAGE_*;
 *                        MASK_T is f32's without a mask)
 *   HEAD_D HEAD_DV       D and Dv (compiled in: loops unroll, arrays size)
 *   HAS_MASK SOFTCAP     0/1 (in the inner loop)
 *   CAUSAL               0 none, 1 top-left, 2 bottom-right
 *   IDX64                0/1: element indices in 64 bits
 *   PAGED                0/1: K and V rows through the block table
 * Everything else (sizes, strides, scale, cap, window, and which of key
 * lengths, query lengths and LSE are given) is an argument. */
void clforge__attn_problem_options(const clforge__attn *d, char *buf, size_t cap);

/* Build (or fetch) kernel `name` of family f with values v and d's problem
 * options plus `extra`; check that a work-group of wgs items fits. */
clforge_status clforge__attn_kernel(clforge_context ctx, const clforge__family *f, const char *name, const int *v,
                                    const clforge__attn *d, const char *extra, size_t wgs, cl_kernel *k);

/* A tensor's arguments from argument *a on: its offset and four strides,
 * each a cl_ulong (the buffer goes before them). OR of clSetKernelArg's. */
cl_int clforge__attn_tensor_args(cl_kernel k, cl_uint *a, const clforge__attn_tensor *t);

/* The common trailing arguments every attention kernel takes after its
 * tensors (cl/attention_common.cl's ATTN_COMMON_ARGS), in this order:
 * kv_lens (buffer), kv_lens_offset (ulong), q_lens (buffer), q_lens_offset
 * (ulong), block_table (buffer), its row of batch item 0 (ulong), its
 * stride and the block size (uint), then uint b, hq, hkv, group, sq, sk,
 * window, has (the CLFORGE__ATTN_HAS_* bits), then float scale, softcap.
 * Returns the OR of
 * clSetKernelArg's. */
enum { CLFORGE__ATTN_HAS_KV_LENS = 1, CLFORGE__ATTN_HAS_Q_LENS = 2, CLFORGE__ATTN_HAS_LSE = 4 };
cl_int clforge__attn_common_args(cl_kernel k, cl_uint *a, const clforge__attn_exec *e);

/* The backward's choice for explain (src/ops/attention_backward.c). */
clforge_status clforge__attn_bwd_explain(clforge_context ctx, const clforge__attn *d, clforge_attention_choice *choice);

/* Buffer checks the attention ops share: t's elements in buf with access
 * (CLFORGE_ACCESS_*), op naming the call; 1 when two elements of an output
 * share a byte; t's footprint in its root buffer (for overlap checks). */
clforge_status clforge__attn_check_tensor(clforge_context ctx, const char *op, const clforge__attn_tensor *t, cl_mem buf,
                                          int access);
int clforge__attn_self_overlaps(const clforge__attn_tensor *t);
clforge_status clforge__attn_root_footprint(clforge_context ctx, const clforge__attn_tensor *t, cl_mem buf,
                                           cl_mem *root, clforge__footprint *f);

#endif
