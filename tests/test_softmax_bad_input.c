/* clforge_softmax's and clforge_softmax_backward's argument checks: each
 * bad descriptor, buffer, overlap or wait list gets a clear status and
 * message before anything is enqueued, and the output (y, dx) is left
 * untouched; the overlaps that are fine (in place, rows of x and y
 * interleaved in one buffer) run. */
#include <math.h>
#include <stdint.h>

#include "test_util.h"

enum { YB = 4096 }; /* bytes of every buffer */

/* d has reserved field `field`[i] set: the op refuses it by name (also when
 * there are no rows) and so does the reference, which writes nothing. */
static void refused_reserved(clforge_context ctx, clforge_softmax_desc d, cl_mem x, cl_mem mask, cl_mem y,
                             const char *field, int i) {
  char needle[80];
  snprintf(needle, sizeof needle, "softmax: clforge_softmax_desc.%s[%d] must be NULL", field, i);
  CHECK_FAILS(ctx, clforge_softmax(ctx, &d, x, mask, y, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, needle);
  d.rows = 0;
  CHECK_FAILS(ctx, clforge_softmax(ctx, &d, x, mask, y, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, needle);
  float h[4] = {7, 7, 7, 7};
  d.rows = 1, d.n = 4;
  CHECK_FAILS(NULL, clforge_ref_softmax(&d, h, NULL, h), CLFORGE_INVALID_ARGUMENT, needle);
  CHECK(h[0] == 7 && h[3] == 7, "the reference wrote y: %g %g", (double)h[0], (double)h[3]);
}

int main(void) {
  clforge_context ctx = tu_context();
  cl_mem x = tu_buffer(ctx, YB), y = tu_buffer(ctx, YB), mask = tu_buffer(ctx, YB), small = tu_buffer(ctx, 16);
  cl_context c;
  clforge_context_cl_context(ctx, &c);
  cl_int err;
  cl_mem ro = clCreateBuffer(c, CL_MEM_READ_ONLY, YB, NULL, &err);
  cl_mem wo = clCreateBuffer(c, CL_MEM_WRITE_ONLY, YB, NULL, &err);
  cl_buffer_region reg = {1024, 1024};
  cl_mem ysub = clCreateSubBuffer(y, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &reg, &err);
  CHECK(err == CL_SUCCESS, "sub-buffer: %d", (int)err);
  unsigned char sentinel[YB], after[YB];
  memset(sentinel, 0x5A, sizeof sentinel);
  tu_write(ctx, y, 0, YB, sentinel);
  /* 6 rows of 10 f32: 240 bytes */
  const clforge_softmax_desc good = {.rows = 6, .n = 10};
  clforge_softmax_desc d;

#define BAD(mutate, want, needle)                                                          \
  do {                                                                                     \
    d = good;                                                                              \
    mutate;                                                                                \
    CHECK_FAILS(ctx, clforge_softmax(ctx, &d, x, mask, y, 0, NULL, NULL), want, needle);   \
  } while (0)

  CHECK_FAILS(NULL, clforge_softmax(NULL, &good, x, NULL, y, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "context");
  CHECK_FAILS(ctx, clforge_softmax(ctx, NULL, x, NULL, y, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "desc is NULL");
  /* enums, reserved fields, the scale */
  BAD(d.kind = (clforge_softmax_kind)2, CLFORGE_INVALID_ARGUMENT, "kind 2");
  BAD(d.kind = (clforge_softmax_kind)-1, CLFORGE_INVALID_ARGUMENT, "kind -1");
  BAD(d.x_type = (clforge_dtype)4, CLFORGE_INVALID_ARGUMENT, "x_type 4");
  BAD(d.y_type = (clforge_dtype)-3, CLFORGE_INVALID_ARGUMENT, "y_type -3");
  BAD(d.mask_type = (clforge_dtype)9, CLFORGE_INVALID_ARGUMENT, "mask_type 9");
  /* every reserved field, set alone */
  for (int i = 0; i < (int)(sizeof good.reserved / sizeof good.reserved[0]); ++i) {
    d = good;
    d.reserved[i] = &d;
    refused_reserved(ctx, d, x, mask, y, "reserved", i);
  }
  BAD(d.scale = NAN, CLFORGE_INVALID_ARGUMENT, "scale");
  BAD(d.scale = INFINITY, CLFORGE_INVALID_ARGUMENT, "not finite");
  /* strides below n */
  BAD(d.x_stride = 9, CLFORGE_INVALID_ARGUMENT, "x_stride 9 is less than n = 10");
  BAD(d.y_stride = 1, CLFORGE_INVALID_ARGUMENT, "y_stride 1");
  BAD(d.mask_stride = 5, CLFORGE_INVALID_ARGUMENT, "mask_stride 5");
  /* sizes that overflow */
  BAD(d.rows = SIZE_MAX / 4, CLFORGE_SIZE_OVERFLOW, "extent of x");
  BAD((d.rows = 3, d.n = SIZE_MAX / 2), CLFORGE_SIZE_OVERFLOW, "overflows");
  BAD(d.y_offset = SIZE_MAX - 3, CLFORGE_SIZE_OVERFLOW, "y_offset");
  BAD((d.mask_stride = SIZE_MAX / 3), CLFORGE_SIZE_OVERFLOW, "extent of mask");
  /* buffers: NULL, too small, wrong access */
  CHECK_FAILS(ctx, clforge_softmax(ctx, &good, NULL, NULL, y, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "x is NULL");
  CHECK_FAILS(ctx, clforge_softmax(ctx, &good, x, NULL, NULL, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "y is NULL");
  BAD(d.x_offset = 1024 - 59, CLFORGE_BUFFER_TOO_SMALL, "x needs 4100 bytes");
  BAD((d.y_stride = 300), CLFORGE_BUFFER_TOO_SMALL, "y needs");
  BAD((d.y_type = CLFORGE_F16, d.y_offset = 2000), CLFORGE_BUFFER_TOO_SMALL, "y needs");
  BAD(d.mask_offset = 1020, CLFORGE_BUFFER_TOO_SMALL, "mask needs");
  CHECK_FAILS(ctx, clforge_softmax(ctx, &good, x, small, y, 0, NULL, NULL), CLFORGE_BUFFER_TOO_SMALL, "mask needs");
  CHECK_FAILS(ctx, clforge_softmax(ctx, &good, x, NULL, small, 0, NULL, NULL), CLFORGE_BUFFER_TOO_SMALL, "y needs");
  CHECK_FAILS(ctx, clforge_softmax(ctx, &good, x, NULL, ro, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "READ_ONLY");
  CHECK_FAILS(ctx, clforge_softmax(ctx, &good, wo, NULL, y, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "WRITE_ONLY");
  CHECK_FAILS(ctx, clforge_softmax(ctx, &good, x, wo, y, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "WRITE_ONLY");
  /* overlaps: y partly over x, the same start with another stride or
   * dtype, y over the mask, through a sub-buffer */
  d = good;
  d.x_offset = 3;
  CHECK_FAILS(ctx, clforge_softmax(ctx, &d, y, NULL, y, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "y overlaps x");
  d = good;
  d.x_stride = 12;
  CHECK_FAILS(ctx, clforge_softmax(ctx, &d, y, NULL, y, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "in place needs");
  d = good;
  d.x_type = CLFORGE_F16;
  CHECK_FAILS(ctx, clforge_softmax(ctx, &d, y, NULL, y, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "y overlaps x");
  d = good;
  d.mask_stride = 0, d.mask_offset = 55;
  CHECK_FAILS(ctx, clforge_softmax(ctx, &d, x, y, y, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "y overlaps the mask");
  d = good;
  d.x_offset = 1024 / 4 + 30; /* x in y's buffer where the sub-buffer y begins */
  CHECK_FAILS(ctx, clforge_softmax(ctx, &d, y, NULL, ysub, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "y overlaps x");
  d = good;
  d.x_offset = 1024 / 4; /* exactly the sub-buffer's elements: in place through a view */
  tu_write(ctx, y, 0, YB, sentinel);
  /* wait lists: count and pointer disagree, a NULL event, another context's event */
  cl_event null_ev = NULL;
  CHECK_FAILS(ctx, clforge_softmax(ctx, &good, x, NULL, y, 1, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "disagree");
  CHECK_FAILS(ctx, clforge_softmax(ctx, &good, x, NULL, y, 0, &null_ev, NULL), CLFORGE_INVALID_ARGUMENT, "disagree");
  CHECK_FAILS(ctx, clforge_softmax(ctx, &good, x, NULL, y, 1, &null_ev, NULL), CL_INVALID_EVENT_WAIT_LIST, "is NULL");
  clforge_context other = tu_context();
  cl_context oc;
  clforge_context_cl_context(other, &oc);
  cl_event foreign = clCreateUserEvent(oc, &err);
  CHECK(err == CL_SUCCESS, "user event: %d", (int)err);
  CHECK_FAILS(ctx, clforge_softmax(ctx, &good, x, NULL, y, 1, &foreign, NULL), CL_INVALID_CONTEXT,
              "another OpenCL context");
  /* a buffer of another context */
  cl_mem ox = clCreateBuffer(oc, CL_MEM_READ_WRITE, YB, NULL, &err);
  CHECK_FAILS(ctx, clforge_softmax(ctx, &good, ox, NULL, y, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT,
              "another OpenCL context");
  /* bad parameter overrides fail the call */
  CHECK_OK(ctx, clforge_context_set_params(ctx, "softmax:WG=256,RPW=32"));
  clforge_device_info dev;
  clforge_context_device_info(ctx, &dev);
  if (dev.max_work_group_size < 256 * 32)
    CHECK_FAILS(ctx, clforge_softmax(ctx, &good, x, NULL, y, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "work-group");
  clforge_context_set_params(ctx, NULL);
  CHECK_FAILS(ctx, clforge_context_set_params(ctx, "softmax:VW=3"), CLFORGE_INVALID_ARGUMENT, "VW=3");
  CHECK_FAILS(ctx, clforge_context_set_params(ctx, "softmax:TILE=3"), CLFORGE_INVALID_ARGUMENT, "TILE");

  /* rows = 0 or n = 0 with tight strides (0: n): nothing to do. Empty
   * tensors share no element, so y partly over x passes; no buffers are
   * needed; an event comes back; y is untouched (checked below). The
   * descriptor is still checked. */
  for (int e = 0; e < 2; ++e) {
    d = good;
    if (e) d.n = 0;
    else d.rows = 0;
    d.x_offset = 3;
    cl_event ev = NULL;
    CHECK_OK(ctx, clforge_softmax(ctx, &d, y, mask, y, 0, NULL, &ev));
    CHECK(ev && clWaitForEvents(1, &ev) == CL_SUCCESS, "no completed event for the empty call (%s = 0)",
          e ? "n" : "rows");
    if (ev) clReleaseEvent(ev);
    CHECK_OK(ctx, clforge_softmax(ctx, &d, NULL, NULL, NULL, 0, NULL, NULL));
    CHECK_OK(NULL, clforge_ref_softmax(&d, NULL, NULL, NULL));
    d.kind = (clforge_softmax_kind)2;
    CHECK_FAILS(ctx, clforge_softmax(ctx, &d, y, NULL, y, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "kind 2");
  }

  /* The backward pass: y read through y_*, dy through dy_*, dx written
   * through x_*. dx is the sentinel buffer y; its inputs are x and mask. */
#define BAD_BWD(mutate, want, needle)                                                                   \
  do {                                                                                                  \
    d = good;                                                                                           \
    mutate;                                                                                             \
    CHECK_FAILS(ctx, clforge_softmax_backward(ctx, &d, x, mask, y, 0, NULL, NULL), want, needle);       \
  } while (0)
  CHECK_FAILS(NULL, clforge_softmax_backward(NULL, &good, x, mask, y, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT,
              "context");
  CHECK_FAILS(ctx, clforge_softmax_backward(ctx, NULL, x, mask, y, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT,
              "softmax_backward: desc is NULL");
  BAD_BWD(d.kind = (clforge_softmax_kind)3, CLFORGE_INVALID_ARGUMENT, "softmax_backward: kind 3");
  BAD_BWD(d.dy_type = (clforge_dtype)4, CLFORGE_INVALID_ARGUMENT, "softmax_backward: unknown or non-float dy_type 4");
  BAD_BWD(d.dy_stride = 7, CLFORGE_INVALID_ARGUMENT, "dy_stride 7 is less than n = 10");
  BAD_BWD(d.dy_offset = SIZE_MAX - 3, CLFORGE_SIZE_OVERFLOW, "dy_offset");
  BAD_BWD(d.dy_stride = SIZE_MAX / 3, CLFORGE_SIZE_OVERFLOW, "extent of dy");
  BAD_BWD(d.reserved[1] = &d, CLFORGE_INVALID_ARGUMENT, "clforge_softmax_desc.reserved[1] must be NULL");
  BAD_BWD(d.scale = NAN, CLFORGE_INVALID_ARGUMENT, "scale");
  BAD_BWD(d.x_stride = 2, CLFORGE_INVALID_ARGUMENT, "x_stride 2");
  BAD_BWD(d.dy_offset = 1000, CLFORGE_BUFFER_TOO_SMALL, "dy needs");
  BAD_BWD(d.x_offset = 1000, CLFORGE_BUFFER_TOO_SMALL, "dx needs"); /* dx is written through x_* */
  CHECK_FAILS(ctx, clforge_softmax_backward(ctx, &good, NULL, mask, y, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT,
              "y is NULL");
  CHECK_FAILS(ctx, clforge_softmax_backward(ctx, &good, x, NULL, y, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT,
              "dy is NULL");
  CHECK_FAILS(ctx, clforge_softmax_backward(ctx, &good, x, mask, NULL, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT,
              "dx is NULL");
  CHECK_FAILS(ctx, clforge_softmax_backward(ctx, &good, x, small, y, 0, NULL, NULL), CLFORGE_BUFFER_TOO_SMALL,
              "dy needs");
  CHECK_FAILS(ctx, clforge_softmax_backward(ctx, &good, x, mask, ro, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT,
              "READ_ONLY");
  CHECK_FAILS(ctx, clforge_softmax_backward(ctx, &good, x, wo, y, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT,
              "WRITE_ONLY");
  CHECK_FAILS(ctx, clforge_softmax_backward(ctx, &good, x, mask, y, 1, NULL, NULL), CLFORGE_INVALID_ARGUMENT,
              "disagree");
  /* dx partly over dy or y, or at the same start with another stride or dtype */
  d = good;
  d.dy_offset = 5;
  CHECK_FAILS(ctx, clforge_softmax_backward(ctx, &d, x, y, y, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT,
              "dx overlaps dy without being the same elements");
  d = good;
  d.y_stride = 12;
  CHECK_FAILS(ctx, clforge_softmax_backward(ctx, &d, y, mask, y, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT,
              "in place needs");
  d = good;
  d.dy_type = CLFORGE_BF16;
  CHECK_FAILS(ctx, clforge_softmax_backward(ctx, &d, x, y, y, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT,
              "dx overlaps dy");
  d = good;
  d.y_offset = 1024 / 4 + 30;
  CHECK_FAILS(ctx, clforge_softmax_backward(ctx, &d, y, mask, ysub, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT,
              "dx overlaps y");
  /* empty: no buffers needed, an event */
  {
    d = good;
    d.rows = 0;
    cl_event ev = NULL;
    CHECK_OK(ctx, clforge_softmax_backward(ctx, &d, NULL, NULL, NULL, 0, NULL, &ev));
    CHECK(ev && clWaitForEvents(1, &ev) == CL_SUCCESS, "no completed event for the empty backward call");
    if (ev) clReleaseEvent(ev);
    d.dy_type = (clforge_dtype)8;
    CHECK_FAILS(ctx, clforge_softmax_backward(ctx, &d, NULL, NULL, NULL, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT,
                "dy_type 8");
  }
  /* the forward ignores dy's fields: one descriptor serves both passes */
  d = good;
  d.dy_type = (clforge_dtype)8, d.dy_stride = 1;
  CHECK_OK(ctx, clforge_softmax(ctx, &d, x, NULL, x, 0, NULL, NULL));
  CHECK_OK(ctx, clforge_softmax_explain(ctx, &d, &(clforge_kernel_choice){0}));
  /* explain's and the reference's own checks */
  CHECK_FAILS(ctx, clforge_softmax_backward_explain(ctx, &good, NULL), CLFORGE_INVALID_ARGUMENT, "choice is NULL");
  CHECK_FAILS(NULL, clforge_softmax_backward_explain(NULL, &good, &(clforge_kernel_choice){0}),
              CLFORGE_INVALID_ARGUMENT, "context");
  d = good;
  d.dy_stride = 3;
  CHECK_FAILS(ctx, clforge_softmax_backward_explain(ctx, &d, &(clforge_kernel_choice){0}), CLFORGE_INVALID_ARGUMENT,
              "dy_stride 3");
  {
    float h[60] = {0}, g[60];
    for (int i = 0; i < 60; ++i) g[i] = 7.0f;
    CHECK_FAILS(NULL, clforge_ref_softmax_backward(&d, h, h, g), CLFORGE_INVALID_ARGUMENT, "dy_stride 3");
    CHECK_FAILS(NULL, clforge_ref_softmax_backward(&good, h, NULL, g), CLFORGE_INVALID_ARGUMENT, "NULL");
    CHECK(g[0] == 7.0f && g[59] == 7.0f, "the reference wrote dx on a refused call");
  }
#undef BAD_BWD

  tu_read(ctx, y, 0, YB, after);
  CHECK(memcmp(sentinel, after, YB) == 0, "y (dx) was modified by a failed or empty call");

  /* what is fine: in place through a sub-buffer of x's buffer, and x and y
   * rows interleaved in one buffer (x rows at 0, 20, ..., y rows at 10, 30, ...) */
  {
    float h[YB / 4];
    for (int i = 0; i < YB / 4; ++i) h[i] = (float)(i % 10);
    tu_write(ctx, y, 0, YB, h);
    d = good;
    d.x_offset = 1024 / 4;
    CHECK_OK(ctx, clforge_softmax(ctx, &d, y, NULL, ysub, 0, NULL, NULL));
    d = good;
    d.x_stride = d.y_stride = 20, d.y_offset = 10;
    CHECK_OK(ctx, clforge_softmax(ctx, &d, y, NULL, y, 0, NULL, NULL));
    float g[YB / 4];
    tu_read(ctx, y, 0, YB, g);
    double sum_in_place = 0, sum_side = 0;
    for (int i = 0; i < 10; ++i) sum_in_place += g[256 + i], sum_side += g[10 + i];
    CHECK(fabs(sum_in_place - 1) < 1e-5 && fabs(sum_side - 1) < 1e-5, "rows sum to %g and %g", sum_in_place, sum_side);
    CHECK(g[0] == 0.0f && g[9] == 9.0f && g[20] == 0.0f, "x's rows changed: %g %g %g", (double)g[0], (double)g[9],
          (double)g[20]);
  }

  /* explain's own checks */
  clforge_kernel_choice kc;
  CHECK_FAILS(ctx, clforge_softmax_explain(ctx, &good, NULL), CLFORGE_INVALID_ARGUMENT, "choice is NULL");
  CHECK_FAILS(NULL, clforge_softmax_explain(NULL, &good, &kc), CLFORGE_INVALID_ARGUMENT, "context");
  d = good;
  d.kind = (clforge_softmax_kind)7;
  CHECK_FAILS(ctx, clforge_softmax_explain(ctx, &d, &kc), CLFORGE_INVALID_ARGUMENT, "kind 7");
  /* the reference's */
  d = good;
  d.y_stride = 3;
  float hx[60] = {0}, hy[60];
  CHECK_FAILS(NULL, clforge_ref_softmax(&d, hx, NULL, hy), CLFORGE_INVALID_ARGUMENT, "y_stride 3");
  CHECK_FAILS(NULL, clforge_ref_softmax(&good, NULL, NULL, hy), CLFORGE_INVALID_ARGUMENT, "NULL");

  clReleaseEvent(foreign);
  clReleaseMemObject(ox);
  clforge_context_destroy(other);
  clReleaseMemObject(ysub);
  clReleaseMemObject(ro);
  clReleaseMemObject(wo);
  clReleaseMemObject(small);
  clReleaseMemObject(x);
  clReleaseMemObject(y);
  clReleaseMemObject(mask);
  clforge_context_destroy(ctx);
  return tu_summary();
}
