/* clforge_cross_entropy's argument checks: each bad descriptor, buffer,
 * overlap or wait list gets a clear status and message before anything is
 * enqueued, and loss and dlogits are left untouched. */
#include <math.h>
#include <stdint.h>

#include "test_util.h"

enum { B = 4096 }; /* bytes of every buffer */

int main(void) {
  clforge_context ctx = tu_context();
  cl_mem z = tu_buffer(ctx, B), t = tu_buffer(ctx, B), loss = tu_buffer(ctx, B), dz = tu_buffer(ctx, B);
  cl_mem gs = tu_buffer(ctx, B), small = tu_buffer(ctx, 8);
  cl_context c;
  clforge_context_cl_context(ctx, &c);
  cl_int err;
  cl_mem ro = clCreateBuffer(c, CL_MEM_READ_ONLY, B, NULL, &err);
  cl_mem wo = clCreateBuffer(c, CL_MEM_WRITE_ONLY, B, NULL, &err);
  unsigned char sentinel[B], after[B];
  memset(sentinel, 0x5A, sizeof sentinel);
  tu_write(ctx, loss, 0, B, sentinel);
  tu_write(ctx, dz, 0, B, sentinel);
  /* 6 rows of 10 f32 logits */
  const clforge_cross_entropy_desc good = {.rows = 6, .n = 10};
  clforge_cross_entropy_desc d;
#define BAD(mutate, want, needle)                                                                      \
  do {                                                                                                 \
    d = good;                                                                                          \
    mutate;                                                                                            \
    CHECK_FAILS(ctx, clforge_cross_entropy(ctx, &d, z, t, loss, dz, NULL, 0, NULL, NULL), want, needle); \
  } while (0)

  CHECK_FAILS(NULL, clforge_cross_entropy(NULL, &good, z, t, loss, dz, NULL, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT,
              "context");
  CHECK_FAILS(ctx, clforge_cross_entropy(ctx, NULL, z, t, loss, dz, NULL, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT,
              "desc is NULL");
  BAD(d.reduction = (clforge_reduction)3, CLFORGE_INVALID_ARGUMENT, "reduction 3");
  BAD(d.logits_type = (clforge_dtype)5, CLFORGE_INVALID_ARGUMENT, "logits_type 5");
  BAD(d.dlogits_type = (clforge_dtype)-1, CLFORGE_INVALID_ARGUMENT, "dlogits_type -1");
  BAD(d.label_smoothing = 1.5f, CLFORGE_INVALID_ARGUMENT, "label_smoothing 1.5");
  BAD(d.label_smoothing = NAN, CLFORGE_INVALID_ARGUMENT, "label_smoothing");
  BAD(d.grad_scale = INFINITY, CLFORGE_INVALID_ARGUMENT, "grad_scale inf");
  BAD(d.use_ignore_index = 2, CLFORGE_INVALID_ARGUMENT, "use_ignore_index 2");
  BAD(d.n = 0, CLFORGE_INVALID_ARGUMENT, "n is 0");
  BAD(d.n = (size_t)INT32_MAX + 1, CLFORGE_LIMIT_EXCEEDED, "int32");
  for (int i = 0; i < 4; ++i) {
    d = good;
    d.reserved[i] = &d;
    char needle[80];
    snprintf(needle, sizeof needle, "clforge_cross_entropy_desc.reserved[%d] must be NULL", i);
    CHECK_FAILS(ctx, clforge_cross_entropy(ctx, &d, z, t, loss, dz, NULL, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT,
                needle);
  }
  BAD(d.logits_stride = 9, CLFORGE_INVALID_ARGUMENT, "logits_stride 9 is less than n = 10");
  BAD(d.dlogits_stride = 3, CLFORGE_INVALID_ARGUMENT, "dlogits_stride 3");
  BAD(d.rows = SIZE_MAX / 4, CLFORGE_SIZE_OVERFLOW, "extent of logits");
  BAD(d.targets_offset = SIZE_MAX - 2, CLFORGE_SIZE_OVERFLOW, "targets_offset");
  BAD(d.loss_offset = SIZE_MAX, CLFORGE_SIZE_OVERFLOW, "loss_offset");
  /* buffers */
  CHECK_FAILS(ctx, clforge_cross_entropy(ctx, &good, z, t, NULL, NULL, NULL, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT,
              "both NULL");
  CHECK_FAILS(ctx, clforge_cross_entropy(ctx, &good, NULL, t, loss, dz, NULL, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT,
              "logits is NULL");
  CHECK_FAILS(ctx, clforge_cross_entropy(ctx, &good, z, NULL, loss, dz, NULL, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT,
              "targets is NULL");
  CHECK_FAILS(ctx, clforge_cross_entropy(ctx, &good, z, small, loss, dz, NULL, 0, NULL, NULL), CLFORGE_BUFFER_TOO_SMALL,
              "targets needs");
  CHECK_FAILS(ctx, clforge_cross_entropy(ctx, &good, z, t, loss, small, NULL, 0, NULL, NULL), CLFORGE_BUFFER_TOO_SMALL,
              "dlogits needs");
  d = good;
  d.grad_scale_offset = 1024;
  CHECK_FAILS(ctx, clforge_cross_entropy(ctx, &d, z, t, loss, dz, gs, 0, NULL, NULL), CLFORGE_BUFFER_TOO_SMALL,
              "grad_scale needs");
  BAD((d.reduction = CLFORGE_REDUCTION_NONE, d.loss_offset = 1020), CLFORGE_BUFFER_TOO_SMALL, "loss needs");
  CHECK_FAILS(ctx, clforge_cross_entropy(ctx, &good, z, t, ro, dz, NULL, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT,
              "READ_ONLY");
  CHECK_FAILS(ctx, clforge_cross_entropy(ctx, &good, wo, t, loss, dz, NULL, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT,
              "WRITE_ONLY");
  /* overlaps: dlogits partly over logits, loss over targets, over dlogits */
  d = good;
  d.dlogits_offset = 5;
  CHECK_FAILS(ctx, clforge_cross_entropy(ctx, &d, dz, t, loss, dz, NULL, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT,
              "dlogits overlaps logits");
  d = good;
  d.dlogits_type = CLFORGE_BF16;
  CHECK_FAILS(ctx, clforge_cross_entropy(ctx, &d, dz, t, loss, dz, NULL, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT,
              "in place needs");
  CHECK_FAILS(ctx, clforge_cross_entropy(ctx, &good, z, loss, loss, dz, NULL, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT,
              "loss overlaps targets");
  CHECK_FAILS(ctx, clforge_cross_entropy(ctx, &good, z, t, dz, dz, NULL, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT,
              "dlogits overlaps loss");
  CHECK_FAILS(ctx, clforge_cross_entropy(ctx, &good, z, t, loss, dz, dz, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT,
              "dlogits overlaps grad_scale");
  CHECK_FAILS(ctx, clforge_cross_entropy(ctx, &good, z, t, loss, dz, NULL, 1, NULL, NULL), CLFORGE_INVALID_ARGUMENT,
              "disagree");
  /* explain and the reference check the same descriptor */
  clforge_kernel_choice kc;
  d = good;
  d.reduction = (clforge_reduction)7;
  CHECK_FAILS(ctx, clforge_cross_entropy_explain(ctx, &d, &kc), CLFORGE_INVALID_ARGUMENT, "reduction 7");
  CHECK_FAILS(ctx, clforge_cross_entropy_explain(ctx, &good, NULL), CLFORGE_INVALID_ARGUMENT, "choice is NULL");
  float hz[60] = {0}, hl = 7.0f;
  int32_t ht[6] = {0};
  CHECK_FAILS(NULL, clforge_ref_cross_entropy(&d, hz, ht, &hl, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "reduction 7");
  CHECK_FAILS(NULL, clforge_ref_cross_entropy(&good, hz, ht, NULL, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "both NULL");
  CHECK_FAILS(NULL, clforge_ref_cross_entropy(&good, hz, NULL, &hl, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "NULL");
  CHECK(hl == 7.0f, "the reference wrote the loss on a refused call");

  tu_read(ctx, dz, 0, B, after);
  CHECK(!memcmp(after, sentinel, B), "dlogits changed by a refused call");
  tu_read(ctx, loss, 0, B, after);
  CHECK(!memcmp(after, sentinel, B), "loss changed by a refused call");
#undef BAD
  cl_mem all[] = {z, t, loss, dz, gs, small, ro, wo};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i) clReleaseMemObject(all[i]);
  clforge_context_destroy(ctx);
  return tu_summary();
}
