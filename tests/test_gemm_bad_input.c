/* clforge_gemm's argument checks: each bad descriptor or buffer gets a clear
 * status and message before anything is enqueued, and C is left untouched. */
#include <stdint.h>
#include <string.h>

#include "test_util.h"

enum { N = 64 };

int main(void) {
  clforge_context ctx = tu_context();
  cl_context c;
  clforge_context_cl_context(ctx, &c);
  cl_mem a = tu_buffer(ctx, N * N * 4), b = tu_buffer(ctx, N * N * 4), cm = tu_buffer(ctx, N * N * 4),
         bias = tu_buffer(ctx, N * 4);
  unsigned char sentinel[N * N * 4], after[N * N * 4];
  memset(sentinel, 0x5A, sizeof sentinel);
  tu_write(ctx, cm, 0, sizeof sentinel, sentinel);
  tu_write(ctx, a, 0, sizeof sentinel, sentinel);
  tu_write(ctx, b, 0, sizeof sentinel, sentinel);
  const clforge_gemm_desc good = {.m = N, .n = N, .k = N, .alpha = 1, .beta = 0};
  clforge_gemm_desc d;
  cl_command_queue q0;

#define BAD(mutate, want, needle)                                                           \
  do {                                                                                      \
    d = good;                                                                               \
    mutate;                                                                                 \
    CHECK_FAILS(ctx, clforge_gemm(ctx, &d, a, b, cm, bias, 0, NULL, NULL), want, needle);   \
  } while (0)

  CHECK_FAILS(NULL, clforge_gemm(NULL, &good, a, b, cm, NULL, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "context");
  CHECK_FAILS(ctx, clforge_gemm(ctx, NULL, a, b, cm, NULL, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "desc is NULL");
  /* enums and dtypes */
  BAD(d.layout = (clforge_layout)2, CLFORGE_INVALID_ARGUMENT, "layout 2");
  BAD(d.trans_a = (clforge_transpose)7, CLFORGE_INVALID_ARGUMENT, "trans_a 7");
  BAD(d.trans_b = (clforge_transpose)-1, CLFORGE_INVALID_ARGUMENT, "enum");
  BAD(d.bias_mode = (clforge_bias_mode)3, CLFORGE_INVALID_ARGUMENT, "bias_mode 3");
  BAD(d.activation = (clforge_activation)9, CLFORGE_INVALID_ARGUMENT, "activation 9");
  BAD(d.a_type = (clforge_dtype)4, CLFORGE_INVALID_ARGUMENT, "dtype");
  BAD(d.c_type = (clforge_dtype)-3, CLFORGE_INVALID_ARGUMENT, "dtype");
  BAD(d.bias_type = (clforge_dtype)8, CLFORGE_INVALID_ARGUMENT, "dtype");
  /* leading dimensions smaller than the stored rows/columns */
  BAD(d.lda = N - 1, CLFORGE_INVALID_ARGUMENT, "lda = 63 is too small");
  BAD(d.ldb = 1, CLFORGE_INVALID_ARGUMENT, "ldb = 1");
  BAD(d.ldc = N - 1, CLFORGE_INVALID_ARGUMENT, "ldc = 63");
  BAD((d.layout = CLFORGE_COL_MAJOR, d.m = 32, d.lda = 31), CLFORGE_INVALID_ARGUMENT, "column of a");
  BAD((d.trans_a = CLFORGE_TRANS, d.m = 32, d.k = 64, d.lda = 31), CLFORGE_INVALID_ARGUMENT, "lda = 31");
  /* buffers smaller than offset + extent */
  BAD(d.a_offset = 1, CLFORGE_BUFFER_TOO_SMALL, "a needs 16388 bytes (offset 1 + 4096 elements");
  BAD(d.b_offset = 7, CLFORGE_BUFFER_TOO_SMALL, "offset 7");
  BAD(d.k = N + 1, CLFORGE_BUFFER_TOO_SMALL, "needs");
  BAD(d.ldc = N + 1, CLFORGE_BUFFER_TOO_SMALL, "c needs");
  BAD((d.batch = 2, d.stride_c = N * N), CLFORGE_BUFFER_TOO_SMALL, "c needs");
  BAD((d.bias_mode = CLFORGE_BIAS_ROW, d.bias_offset = 1), CLFORGE_BUFFER_TOO_SMALL, "bias needs");
  BAD((d.c_type = CLFORGE_F16, d.ldc = 2 * N + 2), CLFORGE_BUFFER_TOO_SMALL, "c needs");
  /* sizes that overflow, or exceed what the kernels index */
  BAD(d.a_offset = SIZE_MAX - 5, CLFORGE_SIZE_OVERFLOW, "overflows");
  BAD((d.batch = SIZE_MAX / 2, d.stride_a = 4), CLFORGE_SIZE_OVERFLOW, "overflows");
  BAD((d.m = (size_t)1 << 62, d.k = 64), CLFORGE_SIZE_OVERFLOW, "overflows"); /* m*k, not the 2^31 limit */
  BAD(d.m = (size_t)1 << 33, CLFORGE_LIMIT_EXCEEDED, "2^31, clforge's limit on every device");
  BAD(d.k = (size_t)1 << 31, CLFORGE_LIMIT_EXCEEDED, "2^31");
  BAD(d.lda = (size_t)1 << 33, CLFORGE_LIMIT_EXCEEDED, "2^32");
  BAD(d.alpha_mode = (clforge_alpha_mode)2, CLFORGE_INVALID_ARGUMENT, "alpha_mode 2");
  BAD(d.aux_mode = (clforge_gemm_aux)3, CLFORGE_INVALID_ARGUMENT, "aux_mode 3");
  BAD(d.aux_type = (clforge_dtype)9, CLFORGE_INVALID_ARGUMENT, "aux 9");
  /* the aux modes need their buffer (clforge_gemm passes none) */
  BAD(d.aux_mode = CLFORGE_GEMM_AUX_STORE, CLFORGE_INVALID_ARGUMENT, "aux");
  BAD((d.aux_mode = CLFORGE_GEMM_AUX_BACKWARD, d.activation = CLFORGE_ACT_RELU), CLFORGE_INVALID_ARGUMENT, "aux");
  /* a gate the op does not know, and the calls a gated epilogue refuses */
  BAD(d.gate = (clforge_gemm_gate)2, CLFORGE_INVALID_ARGUMENT, "gate 2");
  BAD((d.gate = CLFORGE_GEMM_GATE_INTERLEAVED, d.layout = CLFORGE_COL_MAJOR), CLFORGE_UNSUPPORTED, "row-major");
  BAD((d.gate = CLFORGE_GEMM_GATE_INTERLEAVED, d.beta = 1), CLFORGE_UNSUPPORTED, "beta 0");
  BAD((d.gate = CLFORGE_GEMM_GATE_INTERLEAVED, d.m = (size_t)1 << 30, d.n = (size_t)1 << 30), CLFORGE_LIMIT_EXCEEDED,
      "twice n when gated");
  BAD((d.gate = CLFORGE_GEMM_GATE_INTERLEAVED, d.aux_mode = CLFORGE_GEMM_AUX_STORE), CLFORGE_UNSUPPORTED, "no aux");
  /* gated: C has n / 2 columns (ldc from n / 2 on), op(B) and a column bias 2n */
  BAD((d.gate = CLFORGE_GEMM_GATE_INTERLEAVED, d.n = N / 2, d.ldc = N / 2 - 1), CLFORGE_INVALID_ARGUMENT, "ldc");
  BAD((d.gate = CLFORGE_GEMM_GATE_INTERLEAVED, d.n = N / 2, d.bias_mode = CLFORGE_BIAS_COLUMN, d.bias_offset = 1),
      CLFORGE_BUFFER_TOO_SMALL, "bias");
  /* the gate's room past the enum */
  BAD(memset((unsigned char *)&d.gate_room_ + sizeof d.gate, 1, 1), CLFORGE_INVALID_ARGUMENT, "gate room");
  /* batch items of C that overlap */
  BAD((d.batch = 2, d.stride_c = 10), CLFORGE_INVALID_ARGUMENT, "overlap");
  BAD((d.batch = 2, d.stride_c = 0), CLFORGE_INVALID_ARGUMENT, "overlap");
  /* missing buffers */
  CHECK_FAILS(ctx, clforge_gemm(ctx, &good, NULL, b, cm, NULL, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "a is NULL");
  CHECK_FAILS(ctx, clforge_gemm(ctx, &good, a, NULL, cm, NULL, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "b is NULL");
  CHECK_FAILS(ctx, clforge_gemm(ctx, &good, a, b, NULL, NULL, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "c is NULL");
  d = good;
  d.bias_mode = CLFORGE_BIAS_COLUMN;
  CHECK_FAILS(ctx, clforge_gemm(ctx, &d, a, b, cm, NULL, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "bias is NULL");
  /* C aliasing an input, directly or through a sub-buffer */
  CHECK_FAILS(ctx, clforge_gemm(ctx, &good, a, b, a, NULL, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "c overlaps a");
  cl_buffer_region r = {0, 32 * 4}; /* C in a view of b's first bytes, which b's 4x4 uses */
  cl_mem sub = clCreateSubBuffer(b, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &r, NULL);
  d = good;
  d.m = d.n = 4, d.k = 4;
  CHECK_FAILS(ctx, clforge_gemm(ctx, &d, a, b, sub, NULL, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "c overlaps b");
  clReleaseMemObject(sub);
  /* access flags, another context, wait list */
  cl_mem ro = clCreateBuffer(c, CL_MEM_READ_ONLY, N * N * 4, NULL, NULL);
  CHECK_FAILS(ctx, clforge_gemm(ctx, &good, a, b, ro, NULL, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "READ_ONLY");
  clReleaseMemObject(ro);
  cl_device_id dev;
  clforge_context_device(ctx, &dev);
  cl_context other = clCreateContext(NULL, 1, &dev, NULL, NULL, NULL);
  cl_mem foreign = clCreateBuffer(other, CL_MEM_READ_WRITE, N * N * 4, NULL, NULL);
  CHECK_FAILS(ctx, clforge_gemm(ctx, &good, foreign, b, cm, NULL, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT,
              "another OpenCL context");
  clReleaseMemObject(foreign);
  clReleaseContext(other);
  cl_event ev = NULL;
  CHECK_FAILS(ctx, clforge_gemm(ctx, &good, a, b, cm, NULL, 1, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "disagree");
  CHECK_FAILS(ctx, clforge_gemm(ctx, &good, a, b, cm, NULL, 0, &ev, NULL), CLFORGE_INVALID_ARGUMENT, "disagree");
  /* a NULL event, or one of another context, is refused before anything runs */
  cl_event marker = NULL, two[2];
  clforge_context_queue(ctx, &q0);
  clEnqueueMarkerWithWaitList(q0, 0, NULL, &marker);
  two[0] = marker, two[1] = NULL;
  CHECK_FAILS(ctx, clforge_gemm(ctx, &good, a, b, cm, NULL, 2, two, NULL), CL_INVALID_EVENT_WAIT_LIST,
              "event_wait_list[1] is NULL");
  CHECK_FAILS(ctx, clforge_convert(ctx, 4, a, 0, CLFORGE_F32, cm, 0, CLFORGE_F32, 2, two, NULL),
              CL_INVALID_EVENT_WAIT_LIST, "event_wait_list[1] is NULL");
  cl_context other2 = clCreateContext(NULL, 1, &dev, NULL, NULL, NULL);
  cl_event user = clCreateUserEvent(other2, NULL);
  two[1] = user;
  CHECK_FAILS(ctx, clforge_gemm(ctx, &good, a, b, cm, NULL, 2, two, NULL), CL_INVALID_CONTEXT, "another OpenCL context");
  clSetUserEventStatus(user, CL_COMPLETE);
  clReleaseEvent(user);
  clReleaseContext(other2);
  clReleaseEvent(marker);
  setenv("CLFORGE_GEMM_PATH", "fastest", 1);
  CHECK_FAILS(ctx, clforge_gemm(ctx, &good, a, b, cm, NULL, 0, NULL, NULL), CLFORGE_INVALID_ENVIRONMENT, "CLFORGE_GEMM_PATH");
  unsetenv("CLFORGE_GEMM_PATH");

  /* Empty problems, batched, with strides computed from the shape (stride_c
   * = m * n = 0: every item at one place): they share no element, so they
   * pass, write nothing (C checked below) and give an event; the reference
   * writes nothing either. */
  for (int s = 0; s < 2; ++s) {
    d = good;
    d.m = s ? N : 0, d.n = s ? 0 : N, d.batch = 3, d.beta = 1.0f, d.bias_mode = CLFORGE_BIAS_ROW;
    d.stride_a = d.m * d.k, d.stride_b = d.k * d.n, d.stride_c = d.m * d.n;
    ev = NULL;
    CHECK_OK(ctx, clforge_gemm(ctx, &d, a, b, cm, bias, 0, NULL, &ev));
    CHECK(ev && clWaitForEvents(1, &ev) == CL_SUCCESS, "no completed event for the empty %zu x %zu batch", d.m, d.n);
    if (ev) clReleaseEvent(ev);
    float hc[4] = {7, 7, 7, 7};
    CHECK_OK(NULL, clforge_ref_gemm(&d, hc, hc, hc, hc));
    CHECK(hc[0] == 7 && hc[3] == 7, "the reference wrote C of an empty problem: %g %g", hc[0], hc[3]);
  }

  cl_command_queue q;
  clforge_context_queue(ctx, &q);
  clFinish(q);
  tu_read(ctx, cm, 0, sizeof after, after);
  CHECK(!memcmp(after, sentinel, sizeof after), "%s", "no bad or empty call wrote to C");

  /* Valid edge cases: m = 0 or n = 0 is a no-op needing no buffers; k = 0
   * needs no A or B. */
  d = good;
  d.m = 0;
  CHECK_OK(ctx, clforge_gemm(ctx, &d, NULL, NULL, NULL, NULL, 0, NULL, &ev));
  CHECK(ev && clWaitForEvents(1, &ev) == CL_SUCCESS, "%s", "an event for the no-op");
  if (ev) clReleaseEvent(ev);
  d = good;
  d.k = 0, d.beta = 2.0f;
  CHECK_OK(ctx, clforge_gemm(ctx, &d, NULL, NULL, cm, NULL, 0, NULL, NULL));

  /* alpha: +0.0 (left out) acts as 1, an explicit -0.0 as 0, in the
   * reference as on the device (C = beta C = 2 C below). */
  {
    float ha[4] = {1, 2, 3, 4}, hb[4] = {1, 0, 0, 1}, hc[4] = {10, 10, 10, 10}, got[4];
    clforge_gemm_desc z = {.m = 2, .n = 2, .k = 2, .alpha = -0.0f, .beta = 2.0f};
    CHECK_OK(NULL, clforge_ref_gemm(&z, ha, hb, hc, NULL));
    CHECK(hc[0] == 20 && hc[1] == 20 && hc[2] == 20 && hc[3] == 20, "alpha -0.0: %g %g %g %g", hc[0], hc[1], hc[2], hc[3]);
    z.alpha = 0.0f;
    float hc1[4] = {10, 10, 10, 10};
    CHECK_OK(NULL, clforge_ref_gemm(&z, ha, hb, hc1, NULL));
    CHECK(hc1[0] == 21 && hc1[1] == 22 && hc1[2] == 23 && hc1[3] == 24, "alpha left out: %g %g %g %g", hc1[0], hc1[1],
          hc1[2], hc1[3]);
    cl_mem da = tu_buffer(ctx, 16), db = tu_buffer(ctx, 16), dc = tu_buffer(ctx, 16);
    float ten[4] = {10, 10, 10, 10};
    tu_write(ctx, da, 0, 16, ha), tu_write(ctx, db, 0, 16, hb), tu_write(ctx, dc, 0, 16, ten);
    z.alpha = -0.0f;
    CHECK_OK(ctx, clforge_gemm(ctx, &z, da, db, dc, NULL, 0, NULL, NULL));
    tu_read(ctx, dc, 0, 16, got);
    CHECK(!memcmp(got, hc, 16), "device, alpha -0.0: %g %g %g %g", got[0], got[1], got[2], got[3]);
    tu_write(ctx, dc, 0, 16, ten);
    z.alpha = 0.0f;
    CHECK_OK(ctx, clforge_gemm(ctx, &z, da, db, dc, NULL, 0, NULL, NULL));
    tu_read(ctx, dc, 0, 16, got);
    CHECK(!memcmp(got, hc1, 16), "device, alpha left out: %g %g %g %g", got[0], got[1], got[2], got[3]);
    clReleaseMemObject(da), clReleaseMemObject(db), clReleaseMemObject(dc);
  }

  /* reference: the same checks */
  float x[4] = {0};
  d = good;
  d.lda = 3;
  CHECK_FAILS(NULL, clforge_ref_gemm(&d, x, x, x, NULL), CLFORGE_INVALID_ARGUMENT, "lda = 3");
  CHECK_FAILS(NULL, clforge_ref_gemm(NULL, x, x, x, NULL), CLFORGE_INVALID_ARGUMENT, "desc is NULL");
  d = good;
  CHECK_FAILS(NULL, clforge_ref_gemm(&d, NULL, x, x, NULL), CLFORGE_INVALID_ARGUMENT, "NULL");

  clReleaseMemObject(a);
  clReleaseMemObject(b);
  clReleaseMemObject(cm);
  clReleaseMemObject(bias);
  clforge_context_destroy(ctx);
  return tu_summary();
}
