/* clforge_conv2d's argument checks: each bad descriptor, buffer, wait list
 * or workspace gets a clear status and message before anything is
 * enqueued, and y is left untouched. The queries check the same. */
#include <stdint.h>

#include "test_util.h"

enum { YB = 4096 }; /* bytes of every buffer */

/* d has reserved field `field`[i] set: the op refuses it by name (also when
 * the problem is empty) and so does the reference, which writes nothing. */
static void refused_reserved(clforge_context ctx, clforge_conv2d_desc d, cl_mem x, cl_mem w, cl_mem bias, cl_mem y,
                             const char *field, int i) {
  char needle[80];
  snprintf(needle, sizeof needle, "conv2d: clforge_conv2d_desc.%s[%d] must be %s", field, i,
           strcmp(field, "reserved") ? "0" : "NULL");
  CHECK_FAILS(ctx, clforge_conv2d(ctx, &d, x, w, bias, y, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, needle);
  float h[4] = {7, 7, 7, 7};
  d.n = 0;
  CHECK_FAILS(ctx, clforge_conv2d(ctx, &d, x, w, bias, y, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, needle);
  d.n = 1, d.c = 1, d.h = d.w = 1, d.k = 1, d.r = d.s = 1;
  CHECK_FAILS(NULL, clforge_ref_conv2d(&d, h, h, NULL, h), CLFORGE_INVALID_ARGUMENT, needle);
  CHECK(h[0] == 7 && h[3] == 7, "the reference wrote y: %g %g", h[0], h[3]);
}

/* Prepared weights may take another algorithm than the plain call (their
 * filter transform is paid once): a workspace sized for the descriptor can
 * be too small for them, and the refusal names the query that sizes it;
 * sized with clforge_conv2d_weights_workspace_size, the call runs and
 * matches the reference. */
static void weights_workspace(clforge_context ctx) {
  clforge_conv2d_desc d = {.n = 3, .c = 17, .h = 11, .w = 7, .k = 33, .r = 3, .s = 3};
  d.pad_top = d.pad_bottom = d.pad_left = d.pad_right = 1;
  d.x_layout = CLFORGE_NHWC, d.y_layout = CLFORGE_NCHW;
  const size_t nx = 3 * 17 * 11 * 7, nw = 33 * 17 * 9, ny = 3 * 33 * 11 * 7;
  float *hx = malloc(nx * 4), *hw = malloc(nw * 4), *hy = malloc(ny * 4), *want = malloc(ny * 4);
  unsigned seed = 33;
  tu_fill(hx, CLFORGE_F32, nx, &seed);
  tu_fill(hw, CLFORGE_F32, nw, &seed);
  cl_mem x = tu_buffer(ctx, nx * 4), w = tu_buffer(ctx, nw * 4), y = tu_buffer(ctx, ny * 4);
  tu_write(ctx, x, 0, nx * 4, hx);
  tu_write(ctx, w, 0, nw * 4, hw);
  clforge_conv2d_weights pw = NULL;
  size_t plain = 0, with = 0;
  CHECK_OK(ctx, clforge_conv2d_weights_create(ctx, &d, w, 0, NULL, &pw));
  CHECK_OK(ctx, clforge_conv2d_workspace_size(ctx, &d, &plain));
  CHECK_OK(ctx, clforge_conv2d_weights_workspace_size(ctx, pw, &with));
  CHECK_FAILS(ctx, clforge_conv2d_weights_workspace_size(ctx, NULL, &with), CLFORGE_INVALID_ARGUMENT, "weights is NULL");
  CHECK_FAILS(ctx, clforge_conv2d_weights_workspace_size(ctx, pw, NULL), CLFORGE_INVALID_ARGUMENT, "bytes is NULL");
  clforge_conv_algo a = CLFORGE_CONV_ALGO_AUTO;
  clforge_conv2d_weights_algo(pw, &a);
  if (with > plain) {
    cl_mem ws = tu_buffer(ctx, plain ? plain : 1);
    CHECK_FAILS(ctx, clforge_conv2d_ex(ctx, &d, x, NULL, pw, NULL, y, ws, plain ? plain : 1, 0, NULL, NULL),
                CLFORGE_BUFFER_TOO_SMALL, "size it with clforge_conv2d_weights_workspace_size");
    clReleaseMemObject(ws);
  } else {
    printf("skipped: weights' algorithm %s needs no more than the plain call's (%zu <= %zu bytes)\n",
           clforge_conv_algo_name(a), with, plain);
  }
  cl_mem ws = with ? tu_buffer(ctx, with) : NULL;
  CHECK_OK(ctx, clforge_conv2d_ex(ctx, &d, x, NULL, pw, NULL, y, ws, with, 0, NULL, NULL));
  tu_read(ctx, y, 0, ny * 4, hy);
  CHECK_OK(NULL, clforge_ref_conv2d(&d, hx, hw, NULL, want));
  double err = 0, ref = 0;
  for (size_t i = 0; i < ny; ++i) err += (hy[i] - want[i]) * (double)(hy[i] - want[i]), ref += want[i] * (double)want[i];
  CHECK(err <= 1e-8 * ref, "%s with prepared weights and their workspace: relative squared error %g",
        clforge_conv_algo_name(a), ref > 0 ? err / ref : err);
  if (ws) clReleaseMemObject(ws);
  clforge_conv2d_weights_release(pw);
  clReleaseMemObject(x);
  clReleaseMemObject(w);
  clReleaseMemObject(y);
  free(hx), free(hw), free(hy), free(want);
}

int main(void) {
  clforge_context ctx = tu_context();
  weights_workspace(ctx);
  cl_mem x = tu_buffer(ctx, YB), w = tu_buffer(ctx, YB), y = tu_buffer(ctx, YB), bias = tu_buffer(ctx, YB);
  cl_mem small = tu_buffer(ctx, 16);
  cl_context c;
  clforge_context_cl_context(ctx, &c);
  cl_int err;
  cl_mem ro = clCreateBuffer(c, CL_MEM_READ_ONLY, YB, NULL, &err);
  cl_buffer_region reg = {1024, 1024};
  cl_mem ysub = clCreateSubBuffer(y, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &reg, &err);
  unsigned char sentinel[YB], after[YB];
  memset(sentinel, 0x5A, sizeof sentinel);
  tu_write(ctx, y, 0, YB, sentinel);
  /* 1 x 4 x 6 x 6 input, 5 filters 3x3: y is 1 x 5 x 4 x 4 */
  const clforge_conv2d_desc good = {.n = 1, .c = 4, .h = 6, .w = 6, .k = 5, .r = 3, .s = 3};
  clforge_conv2d_desc d;

#define BAD(mutate, want, needle)                                                            \
  do {                                                                                       \
    d = good;                                                                                \
    mutate;                                                                                  \
    CHECK_FAILS(ctx, clforge_conv2d(ctx, &d, x, w, bias, y, 0, NULL, NULL), want, needle);   \
  } while (0)

  CHECK_FAILS(NULL, clforge_conv2d(NULL, &good, x, w, NULL, y, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "context");
  CHECK_FAILS(ctx, clforge_conv2d(ctx, NULL, x, w, NULL, y, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "desc is NULL");
  /* enums, reserved fields */
  BAD(d.x_layout = (clforge_tensor_layout)2, CLFORGE_INVALID_ARGUMENT, "x layout 2");
  BAD(d.y_layout = (clforge_tensor_layout)-1, CLFORGE_INVALID_ARGUMENT, "y layout");
  BAD(d.w_layout = (clforge_filter_layout)5, CLFORGE_INVALID_ARGUMENT, "filter layout 5");
  BAD(d.activation = (clforge_activation)9, CLFORGE_INVALID_ARGUMENT, "activation 9");
  BAD(d.algo = CLFORGE_CONV_ALGO_COUNT, CLFORGE_INVALID_ARGUMENT, "algo 9");
  BAD(d.compute_type = (clforge_compute_type)4, CLFORGE_INVALID_ARGUMENT, "compute_type = 4");
  BAD(d.alpha_mode = (clforge_alpha_mode)3, CLFORGE_INVALID_ARGUMENT, "alpha_mode 3");
  BAD(d.kind = (clforge_conv_kind)3, CLFORGE_INVALID_ARGUMENT, "kind 3");
  BAD(d.kind = CLFORGE_CONV_BACKWARD_DATA, CLFORGE_INVALID_ARGUMENT, "clforge_conv2d_backward_data");
  BAD(d.kind = CLFORGE_CONV_BACKWARD_FILTER, CLFORGE_INVALID_ARGUMENT, "clforge_conv2d_backward_filter");
  BAD(d.spatial_dims = 3, CLFORGE_INVALID_ARGUMENT, "spatial_dims = 3");
  /* every reserved field, set alone */
  for (int i = 0; i < (int)(sizeof d.reserved_sizes / sizeof d.reserved_sizes[0]); ++i) {
    d = good;
    d.reserved_sizes[i] = 1;
    refused_reserved(ctx, d, x, w, bias, y, "reserved_sizes", i);
    if (i >= 2) continue;
    d = good;
    d.reserved[i] = &d;
    refused_reserved(ctx, d, x, w, bias, y, "reserved", i);
  }
  /* aux fields: only the aux calls take them */
  BAD(d.aux_mode = (clforge_gemm_aux)3, CLFORGE_INVALID_ARGUMENT, "aux_mode 3");
  BAD(d.aux_mode = CLFORGE_GEMM_AUX_STORE, CLFORGE_INVALID_ARGUMENT, "clforge_conv2d_aux");
  BAD(d.aux_type = CLFORGE_F16, CLFORGE_INVALID_ARGUMENT, "without an aux_mode");
  BAD(d.aux_offset = 99, CLFORGE_INVALID_ARGUMENT, "without an aux_mode");
  BAD(d.x_type = (clforge_dtype)4, CLFORGE_INVALID_ARGUMENT, "storage type");
  BAD(d.bias_type = (clforge_dtype)-2, CLFORGE_INVALID_ARGUMENT, "storage type");
  /* shapes */
  BAD(d.groups = 3, CLFORGE_INVALID_ARGUMENT, "groups = 3 must divide c = 4 and k = 5");
  BAD((d.groups = 2, d.k = 6, d.c = 5), CLFORGE_INVALID_ARGUMENT, "must divide");
  BAD(d.c = 0, CLFORGE_INVALID_ARGUMENT, "each must be >= 1");
  BAD(d.r = 0, CLFORGE_INVALID_ARGUMENT, "each must be >= 1");
  BAD(d.r = 7, CLFORGE_INVALID_ARGUMENT, "output size 0 x 4 is below 1 x 1");
  BAD((d.dilation_w = 4), CLFORGE_INVALID_ARGUMENT, "output size 4 x 0");
  /* sizes that overflow, or exceed what the kernels index */
  BAD(d.n = (size_t)1 << 33, CLFORGE_LIMIT_EXCEEDED, "limit of 2^31 - 1");
  BAD(d.pad_top = (size_t)1 << 32, CLFORGE_LIMIT_EXCEEDED, "limit");
  BAD((d.n = (size_t)1 << 30, d.c = (size_t)1 << 30, d.h = (size_t)1 << 30), CLFORGE_SIZE_OVERFLOW, "size of x overflows");
  BAD(d.x_offset = SIZE_MAX - 5, CLFORGE_SIZE_OVERFLOW, "offset + size of x overflows");
  BAD(d.y_offset = SIZE_MAX / 2, CLFORGE_SIZE_OVERFLOW, "of y overflows");
  /* buffers */
  BAD(d.x_offset = 1024 - 143, CLFORGE_BUFFER_TOO_SMALL, "x needs");
  BAD(d.w_offset = 1000, CLFORGE_BUFFER_TOO_SMALL, "w needs");
  BAD(d.bias_offset = 1020, CLFORGE_BUFFER_TOO_SMALL, "bias needs");
  BAD((d.y_type = CLFORGE_F16, d.y_offset = 2000), CLFORGE_BUFFER_TOO_SMALL, "y needs");
  CHECK_FAILS(ctx, clforge_conv2d(ctx, &good, x, w, NULL, small, 0, NULL, NULL), CLFORGE_BUFFER_TOO_SMALL, "y needs");
  CHECK_FAILS(ctx, clforge_conv2d(ctx, &good, NULL, w, NULL, y, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "x");
  CHECK_FAILS(ctx, clforge_conv2d(ctx, &good, x, NULL, NULL, y, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "w");
  CHECK_FAILS(ctx, clforge_conv2d(ctx, &good, x, w, NULL, NULL, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "y");
  CHECK_FAILS(ctx, clforge_conv2d(ctx, &good, x, w, NULL, ro, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "READ_ONLY");
  /* y aliasing an input: the same buffer, or a view of it */
  CHECK_FAILS(ctx, clforge_conv2d(ctx, &good, y, w, NULL, y, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "y overlaps x");
  CHECK_FAILS(ctx, clforge_conv2d(ctx, &good, x, y, NULL, y, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "y overlaps w");
  CHECK_FAILS(ctx, clforge_conv2d(ctx, &good, x, w, y, y, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "y overlaps bias");
  d = good;
  d.w_offset = 1024 / 4 + 8; /* w inside the sub-buffer's range of y */
  CHECK_FAILS(ctx, clforge_conv2d(ctx, &d, x, y, NULL, ysub, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "y overlaps w");
  /* side by side in one buffer is fine: w after y */
  d = good;
  d.w_offset = 512;
  clforge_status side = clforge_conv2d(ctx, &d, x, y, NULL, y, 0, NULL, NULL);
  CHECK(side == CLFORGE_SUCCESS || side == CLFORGE_UNSUPPORTED, "w beside y in one buffer: %s", clforge_last_error(ctx));
  tu_write(ctx, y, 0, YB, sentinel);
  /* wait lists */
  cl_event null_ev = NULL;
  CHECK_FAILS(ctx, clforge_conv2d(ctx, &good, x, w, NULL, y, 1, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "disagree");
  CHECK_FAILS(ctx, clforge_conv2d(ctx, &good, x, w, NULL, y, 1, &null_ev, NULL), CL_INVALID_EVENT_WAIT_LIST, "is NULL");
  /* a caller's workspace: size 0, too small for a forced algorithm that needs one */
  CHECK_FAILS(ctx, clforge_conv2d_ex(ctx, &good, x, w, NULL, NULL, y, small, 0, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT,
              "workspace_size 0");
  CHECK_FAILS(ctx, clforge_conv2d_ex(ctx, &good, x, w, NULL, NULL, y, small, 64, 0, NULL, NULL),
              CLFORGE_BUFFER_TOO_SMALL, "workspace");
  d = good;
  d.algo = CLFORGE_CONV_ALGO_IM2COL;
  size_t need = 0;
  if (clforge_conv2d_workspace_size(ctx, &d, &need) == CLFORGE_SUCCESS && need > 16) {
    CHECK_FAILS(ctx, clforge_conv2d_ex(ctx, &d, x, w, NULL, NULL, y, small, 16, 0, NULL, NULL),
                CLFORGE_BUFFER_TOO_SMALL, "needs a workspace of");
  } else {
    printf("skipped: im2col's workspace check (it reports %zu bytes: %s)\n", need, clforge_last_error(ctx));
  }
  CHECK_FAILS(ctx, clforge_conv2d_ex(ctx, &good, x, w, NULL, NULL, y, y, YB, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT,
              "workspace overlaps");
  /* forced algorithms that cannot do the shape */
  d = good;
  d.algo = CLFORGE_CONV_ALGO_GEMM_1X1;
  CHECK_FAILS(ctx, clforge_conv2d(ctx, &d, x, w, NULL, y, 0, NULL, NULL), CLFORGE_UNSUPPORTED, "gemm_1x1");
  d.algo = CLFORGE_CONV_ALGO_DEPTHWISE;
  CHECK_FAILS(ctx, clforge_conv2d(ctx, &d, x, w, NULL, y, 0, NULL, NULL), CLFORGE_UNSUPPORTED, "depthwise");
  d = good;
  d.stride_h = 2, d.algo = CLFORGE_CONV_ALGO_WINOGRAD_4X4;
  CHECK_FAILS(ctx, clforge_conv2d(ctx, &d, x, w, NULL, y, 0, NULL, NULL), CLFORGE_UNSUPPORTED, "winograd_4x4");
  /* the environment's choice */
  setenv("CLFORGE_CONV_ALGO", "fastest", 1);
  CHECK_FAILS(ctx, clforge_conv2d(ctx, &good, x, w, NULL, y, 0, NULL, NULL), CLFORGE_INVALID_ENVIRONMENT,
              "CLFORGE_CONV_ALGO=\"fastest\"");
  unsetenv("CLFORGE_CONV_ALGO");

  /* n = 0 or k = 0: nothing to compute. Empty tensors share no element, so
   * even y in x's (or w's) bytes passes; no buffers are needed; an event
   * comes back; y is untouched (checked below). The descriptor is still
   * checked. */
  for (int e = 0; e < 2; ++e) {
    d = good;
    if (e) d.k = 0;
    else d.n = 0;
    cl_event ev = NULL;
    CHECK_OK(ctx, clforge_conv2d(ctx, &d, e ? x : y, e ? y : w, NULL, y, 0, NULL, &ev));
    CHECK(ev && clWaitForEvents(1, &ev) == CL_SUCCESS, "no completed event for the empty call (%s = 0)", e ? "k" : "n");
    if (ev) clReleaseEvent(ev);
    CHECK_OK(ctx, clforge_conv2d(ctx, &d, NULL, NULL, NULL, NULL, 0, NULL, NULL));
    CHECK_OK(NULL, clforge_ref_conv2d(&d, NULL, NULL, NULL, NULL));
    d.y_layout = (clforge_tensor_layout)2;
    CHECK_FAILS(ctx, clforge_conv2d(ctx, &d, x, w, NULL, y, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "y layout 2");
  }

  tu_read(ctx, y, 0, YB, after);
  CHECK(memcmp(sentinel, after, YB) == 0, "y was modified by a failed or empty call");

  /* the queries */
  size_t p = 0, q = 0;
  CHECK_OK(NULL, clforge_conv2d_output_size(&good, &p, &q));
  CHECK(p == 4 && q == 4, "output size %zu x %zu, want 4 x 4", p, q);
  d = good;
  d.r = 7;
  CHECK_FAILS(NULL, clforge_conv2d_output_size(&d, &p, &q), CLFORGE_INVALID_ARGUMENT, "below 1 x 1");
  CHECK_FAILS(NULL, clforge_conv2d_output_size(&good, NULL, &q), CLFORGE_INVALID_ARGUMENT, "NULL");
  CHECK_FAILS(ctx, clforge_conv2d_explain(ctx, &good, NULL), CLFORGE_INVALID_ARGUMENT, "choice is NULL");
  CHECK_FAILS(ctx, clforge_conv2d_workspace_size(ctx, &good, NULL), CLFORGE_INVALID_ARGUMENT, "bytes is NULL");
  clforge_conv2d_weights pw = NULL;
  CHECK_FAILS(ctx, clforge_conv2d_weights_create(ctx, &good, NULL, 0, NULL, &pw), CLFORGE_INVALID_ARGUMENT, "w");
  CHECK(pw == NULL, "weights set after a failure");
  CHECK_FAILS(ctx, clforge_conv2d_weights_create(ctx, &good, small, 0, NULL, &pw), CLFORGE_BUFFER_TOO_SMALL, "w needs");
  CHECK_OK(NULL, clforge_conv2d_weights_release(NULL));
  clforge_conv_algo a;
  CHECK_FAILS(NULL, clforge_conv_algo_from_name("winograd", &a), CLFORGE_INVALID_ARGUMENT, "winograd_4x4");
  CHECK_OK(NULL, clforge_conv_algo_from_name("Winograd_4x4", &a));
  CHECK(a == CLFORGE_CONV_ALGO_WINOGRAD_4X4, "name lookup");
  for (int i = 0; i < CLFORGE_CONV_ALGO_COUNT; ++i) {
    CHECK_OK(NULL, clforge_conv_algo_from_name(clforge_conv_algo_name((clforge_conv_algo)i), &a));
    CHECK(a == (clforge_conv_algo)i, "name round trip %d", i);
  }
  CHECK(!strcmp(clforge_conv_algo_name((clforge_conv_algo)42), "?"), "unknown algorithm name");

  /* The backward calls: the kind, no activation, buffers, overlaps; the
   * output untouched by each refusal. */
  {
    clforge_conv2d_desc bd = good, bf = good;
    bd.kind = CLFORGE_CONV_BACKWARD_DATA, bf.kind = CLFORGE_CONV_BACKWARD_FILTER;
    tu_write(ctx, y, 0, YB, sentinel);
    CHECK_FAILS(ctx, clforge_conv2d_backward_data(ctx, &bf, x, w, y, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT,
                "CLFORGE_CONV_BACKWARD_DATA");
    CHECK_FAILS(ctx, clforge_conv2d_backward_filter(ctx, &bd, x, w, y, NULL, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT,
                "CLFORGE_CONV_BACKWARD_FILTER");
    CHECK_FAILS(NULL, clforge_conv2d_backward_data(NULL, &bd, x, w, y, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT,
                "context");
    d = bd, d.activation = CLFORGE_ACT_RELU;
    CHECK_FAILS(ctx, clforge_conv2d_backward_data(ctx, &d, x, w, y, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT,
                "no activation");
    CHECK_FAILS(ctx, clforge_conv2d_backward_data(ctx, &bd, x, w, small, 0, NULL, NULL), CLFORGE_BUFFER_TOO_SMALL,
                "dx");
    CHECK_FAILS(ctx, clforge_conv2d_backward_data(ctx, &bd, small, w, y, 0, NULL, NULL), CLFORGE_BUFFER_TOO_SMALL,
                "dy");
    CHECK_FAILS(ctx, clforge_conv2d_backward_data(ctx, &bd, y, w, y, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT,
                "dx overlaps dy");
    CHECK_FAILS(ctx, clforge_conv2d_backward_data(ctx, &bd, x, w, ro, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "dx");
    d = bd, d.algo = CLFORGE_CONV_ALGO_WINOGRAD_2X2, d.stride_h = 2;
    CHECK_FAILS(ctx, clforge_conv2d_backward_data(ctx, &d, x, w, y, 0, NULL, NULL), CLFORGE_UNSUPPORTED,
                "direct does every shape");
    CHECK_FAILS(ctx, clforge_conv2d_backward_filter(ctx, &bf, x, w, small, NULL, 0, NULL, NULL),
                CLFORGE_BUFFER_TOO_SMALL, "dw");
    CHECK_FAILS(ctx, clforge_conv2d_backward_filter(ctx, &bf, x, w, y, y, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT,
                "dw overlaps dbias");
    CHECK_FAILS(ctx, clforge_conv2d_backward_filter(ctx, &bf, y, w, y, NULL, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT,
                "dw overlaps x");
    d = bf, d.algo = CLFORGE_CONV_ALGO_WINOGRAD_4X4;
    CHECK_FAILS(ctx, clforge_conv2d_backward_filter(ctx, &d, x, w, y, NULL, 0, NULL, NULL), CLFORGE_UNSUPPORTED,
                "no backward-filter route");
    d = bf, d.algo = CLFORGE_CONV_ALGO_GEMM_1X1;
    CHECK_FAILS(ctx, clforge_conv2d_backward_filter(ctx, &d, x, w, y, NULL, 0, NULL, NULL), CLFORGE_UNSUPPORTED,
                "1x1");
    /* c = 0: dx is empty, a no-op as n = 0 (an event, nothing written);
     * backward filter would still write dbias from nothing: refused */
    for (int e = 0; e < 2; ++e) {
      d = bd, d.c = 0, d.groups = e ? 1 : 0;
      if (e) d.n = 0;
      cl_event ev = NULL;
      CHECK_OK(ctx, clforge_conv2d_backward_data(ctx, &d, x, w, y, 0, NULL, &ev));
      CHECK(ev && clWaitForEvents(1, &ev) == CL_SUCCESS, "no completed event for backward data with c = 0");
      if (ev) clReleaseEvent(ev);
      CHECK_OK(ctx, clforge_conv2d_backward_data(ctx, &d, NULL, NULL, NULL, 0, NULL, NULL));
    }
    d = bf, d.c = 0;
    CHECK_FAILS(ctx, clforge_conv2d_backward_filter(ctx, &d, x, w, y, NULL, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT,
                "c = 0");
    unsigned char back[YB];
    tu_read(ctx, y, 0, YB, back);
    CHECK(!memcmp(back, sentinel, YB), "a refused backward call wrote its output");
    float hv[64] = {0};
    CHECK_FAILS(NULL, clforge_ref_conv2d_backward_data(&bf, hv, hv, hv), CLFORGE_INVALID_ARGUMENT, "kind");
    CHECK_FAILS(NULL, clforge_ref_conv2d(&bd, hv, hv, NULL, hv), CLFORGE_INVALID_ARGUMENT, "backward");
  }

  clReleaseMemObject(ysub);
  clReleaseMemObject(ro);
  clReleaseMemObject(small);
  clReleaseMemObject(x);
  clReleaseMemObject(w);
  clReleaseMemObject(y);
  clReleaseMemObject(bias);
  clforge_context_destroy(ctx);
  return tu_summary();
}
