/* One case of `clforge bench conv` (layer, N, dtype, layout): its data
 * made and uploaded, its output read back, and the checks of a result
 * against exact sums at sampled outputs or against the CPU reference. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conv_bench_parts.h"
#include "data.h"

void clforge_bench_conv_progress(const bench_env *env, const conv_case *c, const char *what) {
  clforge_bench_progress(&env->s, "%s n=%zu %s: %s", c->layer, c->s.n, clforge_dtype_name(c->dtype), what);
}

const char *clforge_bench_conv_layout_name(clforge_tensor_layout l) { return l == CLFORGE_NHWC ? "nhwc" : "nchw"; }


/* The direct convolution's flop count, whatever the algorithm does. */
double clforge_bench_conv_flops(const clforge_bench_conv_shape *s) {
  return 2.0 * (double)s->n * (double)s->k * (double)(s->c / s->groups) * (double)s->r * (double)s->s *
         (double)s->p * (double)s->q;
}

double clforge_bench_conv_bytes(const conv_case *c) {
  /* beta is 0 here: y is written, not read (beta != 0 would add y once more). */
  return ((double)c->x_elems + (double)c->w_elems + (double)c->y_elems * (c->desc.beta != 0.0f ? 2.0 : 1.0)) *
         (double)c->es;
}

/* ------------------------------------------------------------------ cases */

void clforge_bench_conv_free_case(conv_case *c) {
  if (c->x) clReleaseMemObject(c->x);
  if (c->w) clReleaseMemObject(c->w);
  if (c->y) clReleaseMemObject(c->y);
  clforge_bench_onednn_conv_destroy(c->onednn);
  free(c->x32);
  free(c->w32);
  free(c->y32);
  free(c->ref);
  memset(c, 0, sizeof *c);
}

/* NCHW -> NHWC of one N x C x H x W tensor (also KCRS -> KRSC). */
static void to_channels_last(const float *in, float *out, size_t n, size_t c, size_t hw) {
  for (size_t i = 0; i < n; ++i)
    for (size_t ch = 0; ch < c; ++ch)
      for (size_t p = 0; p < hw; ++p) out[(i * hw + p) * c + ch] = in[(i * c + ch) * hw + p];
}

static void to_channels_first(const float *in, float *out, size_t n, size_t c, size_t hw) {
  for (size_t i = 0; i < n; ++i)
    for (size_t ch = 0; ch < c; ++ch)
      for (size_t p = 0; p < hw; ++p) out[(i * c + ch) * hw + p] = in[(i * hw + p) * c + ch];
}

/* A device buffer holding `logical` (NCHW or KCRS f32) in the case's layout
 * and dtype. */
static int upload(conv_case *c, const float *logical, size_t elems, size_t outer, size_t ch, size_t hw, cl_mem *buf,
                  char *err, size_t cap) {
  float *ordered = malloc(elems * sizeof(float));
  void *raw = c->dtype == CLFORGE_F32 ? NULL : malloc(elems * c->es);
  int rc = -1;
  if (!ordered || (c->dtype != CLFORGE_F32 && !raw)) {
    snprintf(err, cap, "out of host memory for the %s data", c->layer);
  } else {
    if (c->layout == CLFORGE_NHWC) to_channels_last(logical, ordered, outer, ch, hw);
    else memcpy(ordered, logical, elems * sizeof(float));
    if (raw && clforge_ref_convert(elems, ordered, CLFORGE_F32, raw, c->dtype) != CLFORGE_SUCCESS) {
      snprintf(err, cap, "clforge_ref_convert failed: %s", clforge_last_error(NULL));
    } else {
      cl_int e;
      *buf = clCreateBuffer(c->env->s.cl_ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, elems * c->es,
                            raw ? raw : (void *)ordered, &e);
      if (e != CL_SUCCESS) {
        *buf = NULL;
        snprintf(err, cap, "clCreateBuffer failed (%s) for %zu bytes", clforge_status_name(e), elems * c->es);
      } else {
        rc = 0;
      }
    }
  }
  free(ordered);
  free(raw);
  return rc;
}

int clforge_bench_conv_setup_case(bench_env *env, conv_case *c, const conv_spec *sp, size_t n, clforge_dtype dtype,
                                  clforge_tensor_layout layout, char *err, size_t cap) {
  memset(c, 0, sizeof *c);
  c->env = env;
  c->layer = sp->name;
  c->s = sp->s;
  c->s.n = n;
  c->dtype = dtype;
  c->layout = layout;
  c->es = clforge_dtype_size(dtype);
  const clforge_bench_conv_shape *s = &c->s;
  const size_t cg = s->c / s->groups;
  c->x_elems = s->n * s->c * s->h * s->w;
  c->w_elems = s->k * cg * s->r * s->s;
  c->y_elems = s->n * s->k * s->p * s->q;
  c->desc = (clforge_conv2d_desc){.n = s->n,
                                  .c = s->c,
                                  .h = s->h,
                                  .w = s->w,
                                  .k = s->k,
                                  .r = s->r,
                                  .s = s->s,
                                  .groups = s->groups,
                                  .stride_h = s->stride,
                                  .stride_w = s->stride,
                                  .dilation_h = s->dilation,
                                  .dilation_w = s->dilation,
                                  .pad_top = s->pad,
                                  .pad_bottom = s->pad,
                                  .pad_left = s->pad,
                                  .pad_right = s->pad,
                                  .x_layout = layout,
                                  .y_layout = layout,
                                  .w_layout = layout == CLFORGE_NHWC ? CLFORGE_KRSC : CLFORGE_KCRS,
                                  .x_type = dtype,
                                  .w_type = dtype,
                                  .y_type = dtype,
                                  .alpha = 1.0f,
                                  .beta = 0.0f,
                                  .kind = env->o->pass};
  c->pass = env->o->pass;
  const size_t sizes[3] = {c->x_elems * c->es, c->w_elems * c->es, c->y_elems * c->es};
  const char *const names[3] = {"x", "w", "y"};
  if (clforge_bench_operands_fit(&env->s.info, sizes, names, err, cap)) return -1;
  c->x32 = malloc(c->x_elems * sizeof(float));
  c->w32 = malloc(c->w_elems * sizeof(float));
  if (!c->x32 || !c->w32) {
    snprintf(err, cap, "out of host memory for the %s data", c->layer);
    return -1;
  }
  clforge_bench_fill_random(c->x32, c->x_elems, 0x1234567u, 1.0f);
  clforge_bench_fill_random(c->w32, c->w_elems, 0x89abcdefu, 1.0f);
  if (clforge_bench_round_to_dtype(c->x32, c->x_elems, dtype) ||
      clforge_bench_round_to_dtype(c->w32, c->w_elems, dtype)) {
    snprintf(err, cap, "clforge_ref_convert failed: %s", clforge_last_error(NULL));
    return -1;
  }
  if (upload(c, c->x32, c->x_elems, s->n, s->c, s->h * s->w, &c->x, err, cap) ||
      upload(c, c->w32, c->w_elems, s->k, cg, s->r * s->s, &c->w, err, cap))
    return -1;
  if (c->pass != CLFORGE_CONV_FORWARD) { /* dy: an input */
    c->y32 = malloc(c->y_elems * sizeof(float));
    if (!c->y32) {
      snprintf(err, cap, "out of host memory for the %s data", c->layer);
      return -1;
    }
    clforge_bench_fill_random(c->y32, c->y_elems, 0x2468acefu, 1.0f);
    if (clforge_bench_round_to_dtype(c->y32, c->y_elems, dtype)) {
      snprintf(err, cap, "clforge_ref_convert failed: %s", clforge_last_error(NULL));
      return -1;
    }
    return upload(c, c->y32, c->y_elems, s->n, s->k, s->p * s->q, &c->y, err, cap);
  }
  cl_int e;
  c->y = clCreateBuffer(env->s.cl_ctx, CL_MEM_READ_WRITE, sizes[2], NULL, &e);
  if (e != CL_SUCCESS) {
    c->y = NULL;
    snprintf(err, cap, "clCreateBuffer failed (%s) for y (%zu bytes)", clforge_status_name(e), sizes[2]);
    return -1;
  }
  return 0;
}

/* The pass's output: y (forward), dx in x's buffer (backward data), dw in
 * w's (backward filter); its elements and logical (outer, channels, plane)
 * shape: NCHW for y and dx, KCRS for dw. */
static cl_mem out_buf(const conv_case *c) {
  return c->pass == CLFORGE_CONV_BACKWARD_DATA ? c->x : c->pass == CLFORGE_CONV_BACKWARD_FILTER ? c->w : c->y;
}
size_t clforge_bench_conv_out_elems(const conv_case *c) {
  return c->pass == CLFORGE_CONV_BACKWARD_DATA ? c->x_elems : c->pass == CLFORGE_CONV_BACKWARD_FILTER ? c->w_elems
                                                                                                    : c->y_elems;
}
static void out_dims(const conv_case *c, size_t d[4]) {
  const clforge_bench_conv_shape *s = &c->s;
  const size_t bd[4] = {s->n, s->c, s->h, s->w}, bf[4] = {s->k, s->c / s->groups, s->r, s->s},
               fw[4] = {s->n, s->k, s->p, s->q};
  memcpy(d, c->pass == CLFORGE_CONV_BACKWARD_DATA ? bd : c->pass == CLFORGE_CONV_BACKWARD_FILTER ? bf : fw,
         4 * sizeof *d);
}
const char *clforge_bench_conv_out_name(const conv_case *c) {
  return c->pass == CLFORGE_CONV_BACKWARD_DATA ? "dx" : c->pass == CLFORGE_CONV_BACKWARD_FILTER ? "dw" : "y";
}

/* All-ones bits in the output (NaN in f32, f16 and bf16): a run that writes
 * nothing, or too little, cannot pass on an earlier run's result. */
int clforge_bench_conv_poison_out(const conv_case *c) {
  const cl_uchar ff = 0xFF;
  cl_int e = clEnqueueFillBuffer(c->env->s.queue, out_buf(c), &ff, 1, 0, clforge_bench_conv_out_elems(c) * c->es, 0, NULL, NULL);
  if (e == CL_SUCCESS) e = clFinish(c->env->s.queue);
  return e;
}

/* Read the output back as NCHW (KCRS) f32. */
int clforge_bench_conv_read_out(const conv_case *c, float *out, char *err, size_t cap) {
  const size_t n = clforge_bench_conv_out_elems(c);
  size_t d[4];
  out_dims(c, d);
  void *raw = malloc(n * c->es);
  float *wide = c->layout == CLFORGE_NHWC ? malloc(n * sizeof(float)) : out;
  int rc = -1;
  if (!raw || !wide) {
    snprintf(err, cap, "out of host memory reading %s back", clforge_bench_conv_out_name(c));
  } else {
    cl_int e = clEnqueueReadBuffer(c->env->s.queue, out_buf(c), CL_TRUE, 0, n * c->es, raw, 0, NULL, NULL);
    if (e != CL_SUCCESS) snprintf(err, cap, "clEnqueueReadBuffer of %s failed (%s)", clforge_bench_conv_out_name(c), clforge_status_name(e));
    else if (clforge_ref_convert(n, raw, c->dtype, wide, CLFORGE_F32) != CLFORGE_SUCCESS)
      snprintf(err, cap, "clforge_ref_convert of %s failed: %s", clforge_bench_conv_out_name(c), clforge_last_error(NULL));
    else rc = 0;
    if (rc == 0 && wide != out) to_channels_first(wide, out, d[0], d[1], d[2] * d[3]);
  }
  free(raw);
  if (wide != out) free(wide);
  return rc;
}

/* The f32 accumulation's share of the spot check's tolerance, relative to
 * sum |x||w|: Winograd's and FFT's transforms add rounding of their own. */
double clforge_bench_conv_accumulation_tolerance(clforge_conv_algo a) {
  return a == CLFORGE_CONV_ALGO_WINOGRAD_4X4 || a == CLFORGE_CONV_ALGO_WINOGRAD_2X2 || a == CLFORGE_CONV_ALGO_FFT
             ? 1e-3
             : 1e-4;
}

/* The pass's exact output at logical index o (y: n k p q; dx: n c h w; dw:
 * k c r s) from the host copies, in double, and the sum of |terms|. */
static void exact_at(const conv_case *c, const size_t o[4], double *sum, double *abs_sum) {
  const clforge_bench_conv_shape *s = &c->s;
  const size_t cg = s->c / s->groups, kg = s->k / s->groups;
  *sum = *abs_sum = 0;
  if (c->pass == CLFORGE_CONV_BACKWARD_DATA) {
    const size_t n = o[0], ch = o[1], h = o[2], x = o[3], g = ch / cg, cl = ch % cg;
    for (size_t r = 0; r < s->r; ++r) {
      const long hp = (long)(h + s->pad) - (long)(r * s->dilation);
      if (hp < 0 || hp % (long)s->stride || (size_t)hp / s->stride >= s->p) continue;
      for (size_t u = 0; u < s->s; ++u) {
        const long wp = (long)(x + s->pad) - (long)(u * s->dilation);
        if (wp < 0 || wp % (long)s->stride || (size_t)wp / s->stride >= s->q) continue;
        const size_t p = (size_t)hp / s->stride, q = (size_t)wp / s->stride;
        for (size_t kl = 0; kl < kg; ++kl) {
          const size_t k = g * kg + kl;
          const double t = (double)c->y32[((n * s->k + k) * s->p + p) * s->q + q] *
                           c->w32[((k * cg + cl) * s->r + r) * s->s + u];
          *sum += t, *abs_sum += fabs(t);
        }
      }
    }
    return;
  }
  if (c->pass == CLFORGE_CONV_BACKWARD_FILTER) {
    const size_t k = o[0], cl = o[1], r = o[2], u = o[3], ch = k / kg * cg + cl;
    for (size_t n = 0; n < s->n; ++n)
      for (size_t p = 0; p < s->p; ++p) {
        const long ih = (long)(p * s->stride + r * s->dilation) - (long)s->pad;
        if (ih < 0 || ih >= (long)s->h) continue;
        for (size_t q = 0; q < s->q; ++q) {
          const long iw = (long)(q * s->stride + u * s->dilation) - (long)s->pad;
          if (iw < 0 || iw >= (long)s->w) continue;
          const double t = (double)c->y32[((n * s->k + k) * s->p + p) * s->q + q] *
                           c->x32[((n * s->c + ch) * s->h + (size_t)ih) * s->w + (size_t)iw];
          *sum += t, *abs_sum += fabs(t);
        }
      }
    return;
  }
  const size_t n = o[0], k = o[1], p = o[2], q = o[3], g = k / kg;
  for (size_t ch = 0; ch < cg; ++ch)
    for (size_t r = 0; r < s->r; ++r) {
      const long ih = (long)(p * s->stride + r * s->dilation) - (long)s->pad;
      if (ih < 0 || ih >= (long)s->h) continue;
      for (size_t u = 0; u < s->s; ++u) {
        const long iw = (long)(q * s->stride + u * s->dilation) - (long)s->pad;
        if (iw < 0 || iw >= (long)s->w) continue;
        const double t = (double)c->x32[((n * s->c + g * cg + ch) * s->h + (size_t)ih) * s->w + (size_t)iw] *
                         c->w32[((k * cg + ch) * s->r + r) * s->s + u];
        *sum += t, *abs_sum += fabs(t);
      }
    }
}

/* Compare sampled outputs (the four corners of the output's box, where
 * padding and edge tiles are, then pseudo-random ones) with double sums of
 * the same inputs. Tolerance: the output's rounding plus acc_tol of
 * sum |terms|; a wrong output is off by about its own size, far more. */
int clforge_bench_conv_spot_check(const conv_case *c, const float *got, double acc_tol, char *why, size_t cap) {
  size_t d[4];
  out_dims(c, d);
  uint32_t seed = 0xC0FFEEu;
  for (int t = 0; t < SPOT_SAMPLES; ++t) {
    size_t o[4];
    if (t < 4) {
      o[0] = (t & 1) ? d[0] - 1 : 0;
      o[1] = (t & 2) ? d[1] - 1 : 0;
      o[2] = (t == 1 || t == 2) ? d[2] - 1 : 0;
      o[3] = (t >= 2) ? d[3] - 1 : 0;
    } else {
      for (int i = 0; i < 4; ++i) {
        seed = seed * 1664525u + 1013904223u;
        o[i] = (size_t)((seed >> 8) % (uint32_t)d[i]);
      }
    }
    double sum, abs_sum;
    exact_at(c, o, &sum, &abs_sum);
    const double gv = got[((o[0] * d[1] + o[1]) * d[2] + o[2]) * d[3] + o[3]];
    const double tol = clforge_bench_unit_roundoff(c->dtype) * fabs(sum) + acc_tol * abs_sum + 1e-30;
    if (!(fabs(gv - sum) <= tol)) {
      snprintf(why, cap, "wrong result: %s[%zu][%zu][%zu][%zu] = %.9g, expected %.9g (tolerance %.3g)", clforge_bench_conv_out_name(c), o[0],
               o[1], o[2], o[3], gv, sum, tol);
      return -1;
    }
  }
  return 0;
}

/* Peer-vs-clforge tolerance, relative to max |y|: catches wrong results
 * (layout, flipped filters, garbage), not precision differences. f16:
 * CLBlast's Hconvgemm accumulates in f16. */
double clforge_bench_conv_peer_tolerance(clforge_dtype d) { return d == CLFORGE_F16 ? 5e-2 : d == CLFORGE_BF16 ? 1e-2 : 1e-3; }

/* The CPU reference's y (NCHW f32) of the case's host copies, made once;
 * NULL (clforge_last_error(NULL) says why) when it fails. */
const float *clforge_bench_conv_ensure_ref(conv_case *c) {
  if (c->ref) return c->ref;
  clforge_conv2d_desc rd = c->desc; /* the host copies: NCHW / KCRS f32 */
  rd.x_layout = rd.y_layout = CLFORGE_NCHW;
  rd.w_layout = CLFORGE_KCRS;
  rd.x_type = rd.w_type = rd.y_type = CLFORGE_F32;
  rd.algo = CLFORGE_CONV_ALGO_AUTO;
  c->ref = calloc(clforge_bench_conv_out_elems(c), sizeof(float));
  clforge_status st = CLFORGE_SUCCESS;
  if (c->ref && c->pass == CLFORGE_CONV_BACKWARD_DATA)
    st = clforge_ref_conv2d_backward_data(&rd, c->y32, c->w32, c->ref);
  else if (c->ref && c->pass == CLFORGE_CONV_BACKWARD_FILTER)
    st = clforge_ref_conv2d_backward_filter(&rd, c->x32, c->y32, c->ref, NULL);
  else if (c->ref)
    st = clforge_ref_conv2d(&rd, c->x32, c->w32, NULL, c->ref);
  if (c->ref && st != CLFORGE_SUCCESS) {
    free(c->ref);
    c->ref = NULL;
  }
  return c->ref;
}

/* Whole-result tolerance against the reference, relative to max |y|: y's
 * rounding twice over, plus the f32 accumulation's (the transforms' for
 * Winograd and FFT). A wrong output is off by a term or more: far above. */
double clforge_bench_conv_full_tolerance(clforge_dtype d, clforge_conv_algo a) {
  return 2 * clforge_bench_unit_roundoff(d) + 10 * clforge_bench_conv_accumulation_tolerance(a);
}
