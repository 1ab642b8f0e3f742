/* clforge_conv2d_aux and clforge_conv2d_backward_data_aux against the
 * reference chain they stand for: z from clforge_ref_conv2d without the
 * activation, y = act(z) on the host, aux = z; dx from
 * clforge_ref_conv2d_backward_data times act'(aux) by
 * clforge_ref_activation_backward, dbias its channel sums in double. Both
 * layouts, 16-bit storage, beta, offsets, every activation, strides; the
 * derivative read from ReLU's output instead of z; bad input refused with
 * the outputs untouched. --small: fewer cases (Oclgrind). */
#include <math.h>
#include <string.h>

#include "../src/desc/conv_desc.h"
#include "../src/ref/compare.h"
#include "test_util.h"

static int small;
static unsigned seed = 777;

static float act_host(int act, float v) {
  switch (act) {
    case CLFORGE_ACT_RELU: return v > 0.0f ? v : 0.0f;
    case CLFORGE_ACT_GELU_TANH: return 0.5f * v * (1.0f + tanhf(0.7978845608028654f * (v + 0.044715f * v * v * v)));
    case CLFORGE_ACT_GELU_ERF: return 0.5f * v * (1.0f + erff(v * 0.7071067811865476f));
    default: return v;
  }
}

/* n elements of t at off in m (a buffer of off + n elements) as floats. */
static float *read_f32(clforge_context ctx, cl_mem m, clforge_dtype t, size_t off, size_t n) {
  const size_t es = clforge_dtype_size(t);
  unsigned char *raw = malloc((off + n) * es + 1);
  float *f = malloc(n * sizeof *f + 4);
  tu_read(ctx, m, 0, (off + n) * es, raw);
  clforge_ref_convert(n, raw + off * es, t, f, CLFORGE_F32);
  free(raw);
  return f;
}

static void compare(const float *got, const float *want, size_t n, clforge_dtype t, const char *what, const char *c) {
  clforge__error_stats s;
  clforge__compare_f32(n, got, want, &s);
  CHECK(clforge__within_tolerance(&s, clforge__tolerance_for(t)), "%s: %s nrmse %.3g max_abs %.3g (max %.3g)", c,
        what, s.nrmse, s.max_abs, s.max_want);
}

/* A device buffer holding n random elements of t (host copy in *h), off elements in. */
static cl_mem filled(clforge_context ctx, clforge_dtype t, size_t off, size_t n, void **h) {
  const size_t es = clforge_dtype_size(t);
  *h = malloc((off + n) * es + 1);
  tu_fill(*h, t, off + n, &seed);
  cl_mem m = tu_buffer(ctx, (off + n) * es);
  tu_write(ctx, m, 0, (off + n) * es, *h);
  return m;
}

static void forward_case(clforge_context ctx, clforge_conv2d_desc d, const char *what) {
  d.kind = CLFORGE_CONV_FORWARD, d.aux_mode = CLFORGE_GEMM_AUX_STORE;
  clforge__conv r;
  CHECK_OK(NULL, clforge__conv_resolve_aux(NULL, &d, 1, &r));
  void *hx, *hw, *hb, *hy, *ha;
  cl_mem x = filled(ctx, r.x.type, 0, r.x.extent, &hx), w = filled(ctx, r.filt.type, 0, r.filt.extent, &hw);
  cl_mem b = filled(ctx, r.bias.type, 0, r.bias.extent, &hb), y = filled(ctx, r.y.type, 0, r.y.extent, &hy);
  cl_mem aux = filled(ctx, r.aux.type, 0, r.aux.extent, &ha);
  /* the reference: z without the activation (beta reads y as it was), then act */
  clforge_conv2d_desc zd = d;
  zd.aux_mode = 0, zd.aux_type = 0, zd.aux_offset = 0, zd.activation = CLFORGE_ACT_NONE;
  CHECK_OK(NULL, clforge_ref_conv2d(&zd, hx, hw, hb, hy));
  const size_t n = r.y.count;
  float *z = malloc(n * sizeof *z), *ya = malloc(n * sizeof *ya), *za = malloc(n * sizeof *za);
  clforge_ref_convert(n, (char *)hy + r.y.offset * clforge_dtype_size(r.y.type), r.y.type, z, CLFORGE_F32);
  unsigned char *tmp = malloc(n * 4);
  for (size_t i = 0; i < n; ++i) ya[i] = act_host(d.activation, z[i]);
  clforge_ref_convert(n, ya, CLFORGE_F32, tmp, r.y.type), clforge_ref_convert(n, tmp, r.y.type, ya, CLFORGE_F32);
  clforge_ref_convert(n, z, CLFORGE_F32, tmp, r.aux.type), clforge_ref_convert(n, tmp, r.aux.type, za, CLFORGE_F32);
  CHECK_OK(ctx, clforge_conv2d_aux(ctx, &d, x, w, b, y, aux, 0, NULL, NULL));
  float *gy = read_f32(ctx, y, r.y.type, r.y.offset, n), *ga = read_f32(ctx, aux, r.aux.type, r.aux.offset, n);
  compare(gy, ya, n, r.y.type, "y", what);
  compare(ga, za, n, r.y.type, "aux", what); /* z as y's type holds it */
  free(gy), free(ga), free(z), free(ya), free(za), free(tmp);
  free(hx), free(hw), free(hb), free(hy), free(ha);
  cl_mem all[] = {x, w, b, y, aux};
  for (int i = 0; i < 5; ++i) clReleaseMemObject(all[i]);
}

/* relu_out: aux holds ReLU's output rather than z (the derivative is the same). */
static void backward_case(clforge_context ctx, clforge_conv2d_desc d, int relu_out, const char *what) {
  d.kind = CLFORGE_CONV_BACKWARD_DATA, d.aux_mode = CLFORGE_GEMM_AUX_BACKWARD;
  clforge__conv r;
  CHECK_OK(NULL, clforge__conv_resolve_aux(NULL, &d, 1, &r));
  void *hdy, *hw, *hdx, *ha, *hdb;
  cl_mem dy = filled(ctx, r.y.type, 0, r.y.extent, &hdy), w = filled(ctx, r.filt.type, 0, r.filt.extent, &hw);
  cl_mem dx = filled(ctx, r.x.type, 0, r.x.extent, &hdx), aux = filled(ctx, r.aux.type, 0, r.aux.extent, &ha);
  cl_mem db = filled(ctx, r.bias.type, 0, r.bias.extent, &hdb);
  const size_t n = r.x.count, es = clforge_dtype_size(r.aux.type);
  if (relu_out) { /* aux = relu(aux): zeros where z <= 0 */
    float *t = malloc(n * sizeof *t);
    clforge_ref_convert(n, (char *)ha + r.aux.offset * es, r.aux.type, t, CLFORGE_F32);
    for (size_t i = 0; i < n; ++i) t[i] = t[i] > 0.0f ? t[i] : 0.0f;
    clforge_ref_convert(n, t, CLFORGE_F32, (char *)ha + r.aux.offset * es, r.aux.type);
    tu_write(ctx, aux, 0, r.aux.extent * es, ha);
    free(t);
  }
  /* the reference: dx, then act'(aux) in place, then the channel sums */
  clforge_conv2d_desc pd = d;
  pd.aux_mode = 0, pd.aux_type = 0, pd.aux_offset = 0, pd.activation = CLFORGE_ACT_NONE;
  CHECK_OK(NULL, clforge_ref_conv2d_backward_data(&pd, hdy, hw, hdx));
  const clforge_activation_backward_desc ad = {.count = n, .activation = d.activation, .z_type = r.aux.type,
                                               .dy_type = r.x.type, .dx_type = r.x.type, .z_offset = r.aux.offset,
                                               .dy_offset = r.x.offset, .dx_offset = r.x.offset};
  CHECK_OK(NULL, clforge_ref_activation_backward(&ad, ha, hdx, hdx));
  float *want = malloc(n * sizeof *want), *wb = malloc(r.c * sizeof *wb);
  clforge_ref_convert(n, (char *)hdx + r.x.offset * clforge_dtype_size(r.x.type), r.x.type, want, CLFORGE_F32);
  for (size_t c = 0; c < r.c; ++c) {
    double s = 0;
    for (size_t b = 0; b < r.n; ++b)
      for (size_t i = 0; i < r.h * r.w; ++i)
        s += want[b * r.x.stride[0] + c * r.x.stride[1] + (i / r.w) * r.x.stride[2] + (i % r.w) * r.x.stride[3]];
    wb[c] = (float)s;
  }
  unsigned char *tmp = malloc(r.c * 4);
  clforge_ref_convert(r.c, wb, CLFORGE_F32, tmp, r.bias.type), clforge_ref_convert(r.c, tmp, r.bias.type, wb, CLFORGE_F32);
  CHECK_OK(ctx, clforge_conv2d_backward_data_aux(ctx, &d, dy, w, dx, aux, db, 0, NULL, NULL));
  float *gx = read_f32(ctx, dx, r.x.type, r.x.offset, n), *gb = read_f32(ctx, db, r.bias.type, r.bias.offset, r.c);
  compare(gx, want, n, r.x.type, "dx", what);
  compare(gb, wb, r.c, r.x.type, "dbias", what); /* sums of dx as its type holds it */
  free(gx), free(gb), free(want), free(wb), free(tmp);
  free(hdy), free(hw), free(hdx), free(ha), free(hdb);
  cl_mem all[] = {dy, w, dx, aux, db};
  for (int i = 0; i < 5; ++i) clReleaseMemObject(all[i]);
}

/* The chained calls honour a wait list and hand back their last event:
 * gated by a user event, then the same bits as an ungated call. */
static void events(clforge_context ctx, clforge_conv2d_desc d) {
  d.kind = CLFORGE_CONV_FORWARD, d.aux_mode = CLFORGE_GEMM_AUX_STORE;
  clforge__conv r;
  CHECK_OK(NULL, clforge__conv_resolve_aux(NULL, &d, 0, &r));
  void *hx, *hw, *hy, *ha;
  cl_mem x = filled(ctx, r.x.type, 0, r.x.extent, &hx), w = filled(ctx, r.filt.type, 0, r.filt.extent, &hw);
  cl_mem y = filled(ctx, r.y.type, 0, r.y.extent, &hy), aux = filled(ctx, r.aux.type, 0, r.aux.extent, &ha);
  cl_context cl;
  clforge_context_cl_context(ctx, &cl);
  cl_int err;
  cl_event gate = clCreateUserEvent(cl, &err), done = NULL;
  CHECK_OK(ctx, clforge_conv2d_aux(ctx, &d, x, w, NULL, y, aux, 1, &gate, &done));
  CHECK(done != NULL, "clforge_conv2d_aux returned no event");
  clSetUserEventStatus(gate, CL_COMPLETE);
  if (done) clWaitForEvents(1, &done), clReleaseEvent(done);
  const size_t ys = r.y.extent * clforge_dtype_size(r.y.type);
  unsigned char *first = malloc(ys), *again = malloc(ys);
  tu_read(ctx, y, 0, ys, first);
  CHECK_OK(ctx, clforge_conv2d_aux(ctx, &d, x, w, NULL, y, aux, 0, NULL, NULL));
  tu_read(ctx, y, 0, ys, again);
  CHECK(!memcmp(first, again, ys), "the gated aux forward differs from the ungated one");
  free(first), free(again), free(hx), free(hw), free(hy), free(ha);
  clReleaseEvent(gate);
  cl_mem all[] = {x, w, y, aux};
  for (int i = 0; i < 4; ++i) clReleaseMemObject(all[i]);
}

/* Refused with the outputs as they were. */
static void bad_input(clforge_context ctx) {
  const clforge_conv2d_desc base = {.n = 2, .c = 3, .h = 6, .w = 6, .k = 4, .r = 3, .s = 3, .pad_top = 1,
                                    .pad_bottom = 1, .pad_left = 1, .pad_right = 1, .activation = CLFORGE_ACT_RELU};
  cl_mem big = tu_buffer(ctx, 4096), out = tu_buffer(ctx, 4096), small_buf = tu_buffer(ctx, 64);
  float pattern[1024], back[1024];
  for (int i = 0; i < 1024; ++i) pattern[i] = (float)i;
  tu_write(ctx, out, 0, sizeof pattern, pattern);
  clforge_conv2d_desc d = base;
  d.aux_mode = CLFORGE_GEMM_AUX_STORE;
  CHECK_FAILS(ctx, clforge_conv2d(ctx, &d, big, big, NULL, out, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT,
              "clforge_conv2d_aux");
  CHECK_FAILS(ctx, clforge_conv2d_aux(ctx, &d, big, big, NULL, out, small_buf, 0, NULL, NULL), CLFORGE_BUFFER_TOO_SMALL,
              "aux");
  CHECK_FAILS(ctx, clforge_conv2d_aux(ctx, &d, big, big, NULL, out, NULL, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT,
              "aux");
  CHECK_FAILS(ctx, clforge_conv2d_aux(ctx, &d, big, big, NULL, out, out, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT,
              "overlaps");
  d.kind = CLFORGE_CONV_BACKWARD_DATA;
  CHECK_FAILS(ctx, clforge_conv2d_aux(ctx, &d, big, big, NULL, out, big, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT,
              "aux_mode 1 with kind 1");
  d.aux_mode = CLFORGE_GEMM_AUX_BACKWARD;
  CHECK_FAILS(ctx, clforge_conv2d_backward_data(ctx, &d, big, big, out, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT,
              "aux_mode");
  CHECK_FAILS(ctx, clforge_conv2d_backward_data_aux(ctx, &d, big, big, out, NULL, NULL, 0, NULL, NULL),
              CLFORGE_INVALID_ARGUMENT, "aux");
  /* dbias inside dx: overlap (dx = 2*3*36 floats from 0; dbias 3 floats at 10) */
  d.bias_offset = 10;
  CHECK_FAILS(ctx, clforge_conv2d_backward_data_aux(ctx, &d, big, big, out, big, out, 0, NULL, NULL),
              CLFORGE_INVALID_ARGUMENT, "overlaps");
  d.bias_offset = 20; /* 23 floats in a buffer of 16 */
  CHECK_FAILS(ctx, clforge_conv2d_backward_data_aux(ctx, &d, big, big, out, big, small_buf, 0, NULL, NULL),
              CLFORGE_BUFFER_TOO_SMALL, "dbias");
  tu_read(ctx, out, 0, sizeof back, back);
  CHECK(!memcmp(back, pattern, sizeof back), "a refused aux call changed its output");
  clReleaseMemObject(big), clReleaseMemObject(out), clReleaseMemObject(small_buf);
}

int main(int argc, char **argv) {
  small = argc > 1 && !strcmp(argv[1], "--small");
  clforge_context ctx = tu_context();
  const clforge_conv2d_desc c1 = {.n = 2, .c = 3, .h = 9, .w = 7, .k = 5, .r = 3, .s = 3, .pad_top = 1,
                                  .pad_bottom = 1, .pad_left = 1, .pad_right = 1, .activation = CLFORGE_ACT_RELU,
                                  .aux_offset = 5, .y_offset = 3, .bias_offset = 2};
  clforge_conv2d_desc c2 = {.n = 2, .c = 4, .h = 10, .w = 9, .k = 6, .r = 3, .s = 3, .stride_h = 2, .stride_w = 2,
                            .pad_top = 1, .pad_left = 1, .x_layout = CLFORGE_NHWC, .y_layout = CLFORGE_NHWC,
                            .w_layout = CLFORGE_KRSC, .x_type = CLFORGE_BF16, .w_type = CLFORGE_BF16,
                            .y_type = CLFORGE_BF16, .bias_type = CLFORGE_BF16, .aux_type = CLFORGE_F32,
                            .activation = CLFORGE_ACT_GELU_TANH, .beta = 0.5f};
  forward_case(ctx, c1, "forward NCHW f32, ReLU, offsets");
  forward_case(ctx, c2, "forward NHWC bf16, GELU tanh, stride 2, beta, f32 aux");
  backward_case(ctx, c1, 0, "backward data NCHW f32, ReLU from z, offsets");
  if (!small) {
    backward_case(ctx, c1, 1, "backward data NCHW f32, ReLU from its output");
    c2.activation = CLFORGE_ACT_GELU_ERF, c2.aux_type = CLFORGE_BF16;
    backward_case(ctx, c2, 0, "backward data NHWC bf16, GELU erf, stride 2, beta");
    c2.activation = CLFORGE_ACT_NONE;
    backward_case(ctx, c2, 0, "backward data NHWC bf16, no activation (dbias alone)");
  }
  events(ctx, c1);
  bad_input(ctx);
  clforge_context_destroy(ctx);
  return tu_summary();
}
