/* clforge_attention's argument checks: each bad descriptor, buffer,
 * overlap or wait list gets a clear status and message before anything is
 * enqueued, and O and LSE are left untouched. The queries check the same. */
#include <math.h>
#include <stdint.h>

#include "test_util.h"

enum { BB = 8192 }; /* bytes of every buffer */

/* d or x has reserved field `field`[i] set (x: the buffers struct's): the
 * op refuses it by name (also when Sq = 0), and so does the reference (for
 * the descriptor's own fields; it takes no buffers struct), which writes
 * nothing. */
static void refused_reserved(clforge_context ctx, clforge_attention_desc d, const clforge_attention_buffers *x,
                             cl_mem q, cl_mem k, cl_mem v, cl_mem o, const char *field, int i) {
  char needle[96];
  snprintf(needle, sizeof needle, "attention: clforge_attention_%s.%s[%d] must be %s", x ? "buffers" : "desc", field, i,
           strcmp(field, "reserved") ? "0" : "NULL");
  CHECK_FAILS(ctx, clforge_attention(ctx, &d, q, k, v, o, x, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, needle);
  d.seq_q = 0;
  CHECK_FAILS(ctx, clforge_attention(ctx, &d, q, k, v, o, x, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, needle);
  if (x) return;
  float h[4] = {7, 7, 7, 7};
  d.batch = d.heads_q = d.heads_kv = d.seq_q = d.seq_kv = d.head_dim = 1;
  CHECK_FAILS(NULL, clforge_ref_attention(&d, h, h, h, NULL, NULL, NULL, h, NULL), CLFORGE_INVALID_ARGUMENT, needle);
  CHECK(h[0] == 7 && h[3] == 7, "the reference wrote o: %g %g", (double)h[0], (double)h[3]);
}

int main(void) {
  clforge_context ctx = tu_context();
  if (!ctx) return 1;
  cl_mem q = tu_buffer(ctx, BB), k = tu_buffer(ctx, BB), v = tu_buffer(ctx, BB), o = tu_buffer(ctx, BB);
  cl_mem mask = tu_buffer(ctx, BB), lse = tu_buffer(ctx, BB), lens = tu_buffer(ctx, BB), small = tu_buffer(ctx, 16);
  cl_context c;
  clforge_context_cl_context(ctx, &c);
  cl_int err;
  cl_mem ro = clCreateBuffer(c, CL_MEM_READ_ONLY, BB, NULL, &err);
  unsigned char sentinel[BB], after[BB];
  memset(sentinel, 0x5A, sizeof sentinel);
  tu_write(ctx, o, 0, BB, sentinel);
  tu_write(ctx, lse, 0, BB, sentinel);
  /* B = 2, Hq = 4 over Hkv = 2, Sq = 3, Sk = 5, D = 8: everything fits in BB */
  const clforge_attention_desc good = {.batch = 2, .heads_q = 4, .heads_kv = 2, .seq_q = 3, .seq_kv = 5, .head_dim = 8};
  clforge_attention_desc d;
  clforge_attention_buffers x;

#define BAD_X(mutate, want, needle)                                                                    \
  do {                                                                                                 \
    d = good;                                                                                          \
    memset(&x, 0, sizeof x);                                                                           \
    mutate;                                                                                            \
    CHECK_FAILS(ctx, clforge_attention(ctx, &d, q, k, v, o, &x, 0, NULL, NULL), want, needle);         \
  } while (0)
#define BAD(mutate, want, needle) BAD_X(mutate, want, needle)

  CHECK_FAILS(NULL, clforge_attention(NULL, &good, q, k, v, o, NULL, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "context");
  CHECK_FAILS(ctx, clforge_attention(ctx, NULL, q, k, v, o, NULL, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "desc is NULL");
  CHECK_FAILS(ctx, clforge_attention(ctx, &good, NULL, k, v, o, NULL, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "q");
  CHECK_FAILS(ctx, clforge_attention(ctx, &good, q, k, v, NULL, NULL, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "o");
  /* heads and dims */
  BAD(d.heads_kv = 3, CLFORGE_INVALID_ARGUMENT, "not a multiple of heads_kv = 3");
  BAD(d.heads_q = 0, CLFORGE_INVALID_ARGUMENT, "heads_q is 0");
  BAD(d.head_dim = 0, CLFORGE_INVALID_ARGUMENT, "head_dim = 0");
  BAD(d.head_dim = 257, CLFORGE_INVALID_ARGUMENT, "head_dim = 257");
  BAD(d.head_dim_v = 300, CLFORGE_INVALID_ARGUMENT, "head_dim_v = 300");
  /* enums and reserved fields */
  BAD(d.kind = (clforge_attention_kind)2, CLFORGE_INVALID_ARGUMENT, "kind 2");
  BAD(d.kind = CLFORGE_ATTENTION_BACKWARD, CLFORGE_INVALID_ARGUMENT, "clforge_attention_backward");
  BAD(d.causal = (clforge_causal)3, CLFORGE_INVALID_ARGUMENT, "causal = 3");
  BAD(d.algo = CLFORGE_ATTENTION_ALGO_COUNT, CLFORGE_INVALID_ARGUMENT, "algo = 3");
  BAD(d.compute_type = (clforge_compute_type)4, CLFORGE_INVALID_ARGUMENT, "compute_type = 4");
  BAD(d.q_type = (clforge_dtype)8, CLFORGE_INVALID_ARGUMENT, "unknown dtype");
  BAD(d.q_type = CLFORGE_Q8_0, CLFORGE_INVALID_ARGUMENT, "not a float one"); /* q8_0 is K/V's only */
  BAD(d.mask_type = (clforge_dtype)-1, CLFORGE_INVALID_ARGUMENT, "unknown dtype");
  /* every reserved field, set alone */
  for (int i = 0; i < 7; ++i) {
    if (i < (int)(sizeof d.reserved_sizes / sizeof d.reserved_sizes[0])) {
      d = good;
      d.reserved_sizes[i] = 1;
      refused_reserved(ctx, d, NULL, q, k, v, o, "reserved_sizes", i);
    }
    memset(&x, 0, sizeof x);
    x.reserved[i] = &x;
    refused_reserved(ctx, good, &x, q, k, v, o, "reserved", i);
    if (i >= 4) continue;
    d = good;
    d.reserved[i] = &d;
    refused_reserved(ctx, d, NULL, q, k, v, o, "reserved", i);
  }
  BAD(d.window = 4, CLFORGE_INVALID_ARGUMENT, "needs causal");
  BAD(d.softcap = -1.0f, CLFORGE_INVALID_ARGUMENT, "softcap");
  BAD(d.scale = NAN, CLFORGE_INVALID_ARGUMENT, "scale");
  BAD(d.seq_kv = (size_t)1 << 40, CLFORGE_LIMIT_EXCEEDED, "below 2^31");
  BAD((d.q_strides[0] = SIZE_MAX / 2, d.q_strides[3] = 1), CLFORGE_SIZE_OVERFLOW, "extent of q");
  /* buffers too small, wrong access */
  BAD(d.seq_kv = 500, CLFORGE_BUFFER_TOO_SMALL, "k");
  BAD(d.o_offset = BB / 4, CLFORGE_BUFFER_TOO_SMALL, "o");
  BAD(x.mask = small, CLFORGE_BUFFER_TOO_SMALL, "mask");
  BAD((x.kv_lens = lens, d.kv_lens_offset = BB / 4 - 1), CLFORGE_BUFFER_TOO_SMALL, "kv_lens");
  BAD((x.q_lens = small, d.q_lens_offset = 3), CLFORGE_BUFFER_TOO_SMALL, "q_lens");
  BAD((x.lse = lse, d.lse_offset = BB / 4 - 4), CLFORGE_BUFFER_TOO_SMALL, "lse");
  CHECK_FAILS(ctx, clforge_attention(ctx, &good, q, k, v, ro, NULL, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "o");
  /* overlaps: O with itself (a head stride of 0, rows on top of each other),
   * O with an input, LSE with O or itself */
  BAD((d.o_strides[0] = 96, d.o_strides[1] = 0, d.o_strides[2] = 8, d.o_strides[3] = 1), CLFORGE_INVALID_ARGUMENT,
      "make two of its elements share memory");
  BAD((d.o_strides[0] = 96, d.o_strides[1] = 24, d.o_strides[2] = 4, d.o_strides[3] = 1), CLFORGE_INVALID_ARGUMENT,
      "make two of its elements share memory");
  CHECK_FAILS(ctx, clforge_attention(ctx, &good, q, k, v, q, NULL, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT,
              "o overlaps q");
  d = good;
  d.o_offset = 8; /* partly over V at 0 in the same buffer */
  CHECK_FAILS(ctx, clforge_attention(ctx, &d, q, k, o, o, NULL, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT,
              "o overlaps v");
  BAD((x.lse = o, d.lse_offset = 10), CLFORGE_INVALID_ARGUMENT, "lse overlaps o");
  BAD((x.lse = lse, d.lse_strides[0] = 12, d.lse_strides[1] = 3, d.lse_strides[2] = 0), CLFORGE_INVALID_ARGUMENT,
      "lse's strides");
  BAD((x.mask = o), CLFORGE_INVALID_ARGUMENT, "o overlaps mask");
  /* side by side in one buffer is fine: O after V (checked by a successful
   * call only where a kernel exists; here the check must not refuse it) */
  /* wait lists */
  cl_event none = NULL;
  CHECK_FAILS(ctx, clforge_attention(ctx, &good, q, k, v, o, NULL, 1, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "wait");
  CHECK_FAILS(ctx, clforge_attention(ctx, &good, q, k, v, o, NULL, 1, &none, NULL), CL_INVALID_EVENT_WAIT_LIST, "is NULL");
  /* the queries */
  clforge_attention_choice ch;
  d = good;
  d.head_dim = 0;
  CHECK_FAILS(ctx, clforge_attention_explain(ctx, &d, &ch), CLFORGE_INVALID_ARGUMENT, "head_dim = 0");
  CHECK_FAILS(ctx, clforge_attention_explain(ctx, &good, NULL), CLFORGE_INVALID_ARGUMENT, "choice is NULL");
  size_t bytes;
  CHECK_FAILS(ctx, clforge_attention_workspace_size(ctx, &good, NULL), CLFORGE_INVALID_ARGUMENT, "bytes is NULL");
  CHECK_FAILS(ctx, clforge_attention_workspace_size(ctx, &d, &bytes), CLFORGE_INVALID_ARGUMENT, "head_dim = 0");
  /* the reference refuses the same descriptors */
  float h[64] = {0};
  d = good;
  d.heads_kv = 3;
  CHECK_FAILS(NULL, clforge_ref_attention(&d, h, h, h, NULL, NULL, NULL, h, NULL), CLFORGE_INVALID_ARGUMENT,
              "not a multiple");

  /* Sq = 0 (B 2, Hq 4, D 64) with tight strides computed from the shape,
   * O (0, 0, 64, 1) and LSE (0, 0, 1): empty tensors share no element, so
   * the call is a no-op, even with O and LSE over Q; no buffers are needed;
   * an event comes back; O and LSE are untouched (checked below). The
   * descriptor is still checked. */
  {
    clforge_attention_desc e = {.batch = 2, .heads_q = 4, .heads_kv = 2, .seq_q = 0, .seq_kv = 5, .head_dim = 64,
                                .q_strides = {0, 0, 64, 1}, .o_strides = {0, 0, 64, 1}, .lse_strides = {0, 0, 1}};
    memset(&x, 0, sizeof x);
    x.lse = lse;
    cl_event ev = NULL;
    CHECK_OK(ctx, clforge_attention(ctx, &e, q, k, v, o, &x, 0, NULL, &ev));
    CHECK(ev && clWaitForEvents(1, &ev) == CL_SUCCESS, "%s", "no completed event for Sq = 0");
    if (ev) clReleaseEvent(ev);
    x.lse = o;
    CHECK_OK(ctx, clforge_attention(ctx, &e, o, k, v, o, &x, 0, NULL, NULL));
    CHECK_OK(ctx, clforge_attention(ctx, &e, NULL, NULL, NULL, NULL, NULL, 0, NULL, NULL));
    CHECK_OK(NULL, clforge_ref_attention(&e, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
    e.causal = (clforge_causal)3;
    CHECK_FAILS(ctx, clforge_attention(ctx, &e, q, k, v, o, NULL, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "causal = 3");
  }

  tu_read(ctx, o, 0, BB, after);
  CHECK(memcmp(sentinel, after, BB) == 0, "o was modified by a failed or empty call");
  tu_read(ctx, lse, 0, BB, after);
  CHECK(memcmp(sentinel, after, BB) == 0, "lse was modified by a failed call");
  cl_mem all[] = {q, k, v, o, mask, lse, lens, small, ro};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i) clReleaseMemObject(all[i]);
  clforge_context_destroy(ctx);
  return tu_summary();
}
