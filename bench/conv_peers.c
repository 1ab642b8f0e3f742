/* CLBlast convgemm and oneDNN's convolution behind small wrappers. */
#define _GNU_SOURCE /* RTLD_DEFAULT */
#include "conv_peers.h"

#include <dlfcn.h>
#include <clblast_c.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef CLFORGE_BENCH_HAVE_ONEDNN
#include <dnnl.h>
#include <dnnl_debug.h>
#endif

/* ---------------------------------------------------------------- CLBlast */

int clforge_bench_clblast_conv_supported(const clforge_bench_conv_shape *s, clforge_dtype dtype,
                                         clforge_tensor_layout layout, unsigned caps, const char **why) {
  if (layout != CLFORGE_NCHW) {
    *why = "CLBlast convgemm takes NCHW tensors only";
    return 0;
  }
  if (s->groups != 1) {
    *why = "CLBlast convgemm has no grouped convolution (groups > 1)";
    return 0;
  }
  switch (dtype) {
    case CLFORGE_F32:
      return 1;
    case CLFORGE_F16:
      if (caps & CLFORGE_CAP_FP16) return 1;
      *why = "CLBlastHconvgemm needs cl_khr_fp16, which this device lacks";
      return 0;
    case CLFORGE_BF16:
      *why = "CLBlast has no bf16 convolution";
      return 0;
    case CLFORGE_S8:
    case CLFORGE_U8:
    case CLFORGE_S32:
      *why = "CLBlast has no integer convolution";
      return 0;
    case CLFORGE_Q8_0:
      *why = "q8_0 is a KV-cache format, not a convolution type";
      return 0;
  }
  *why = "unknown dtype";
  return 0;
}

int clforge_bench_clblast_conv(cl_command_queue queue, const clforge_bench_conv_shape *s, clforge_dtype dtype,
                               cl_mem x, cl_mem w, cl_mem y) {
  /* Cross-correlation is what clforge (and every framework) computes;
   * CLBlast's "convolution" mode flips the filter. Its result is NCHW:
   * per image, K rows of P*Q output pixels. */
  const CLBlastKernelMode mode = CLBlastKernelModeCrossCorrelation;
  if (dtype == CLFORGE_F32)
    return CLBlastSconvgemm(mode, s->c, s->h, s->w, s->r, s->s, s->pad, s->pad, s->stride, s->stride, s->dilation,
                            s->dilation, s->k, s->n, x, 0, w, 0, y, 0, &queue, NULL);
  if (dtype == CLFORGE_F16)
    return CLBlastHconvgemm(mode, s->c, s->h, s->w, s->r, s->s, s->pad, s->pad, s->stride, s->stride, s->dilation,
                            s->dilation, s->k, s->n, x, 0, w, 0, y, 0, &queue, NULL);
  return CLBlastNotImplemented;
}

/* ----------------------------------------------------------------- oneDNN */

#ifndef CLFORGE_BENCH_HAVE_ONEDNN

int clforge_bench_onednn_available(const char **why) {
  *why = "n/a: oneDNN not built in (install libdnnl-dev and reconfigure)";
  return 0;
}

int clforge_bench_onednn_threads(void) { return 0; }

int clforge_bench_onednn_conv_create(const clforge_bench_conv_shape *s, clforge_conv_kind pass, const float *a,
                                     const float *b, clforge_bench_onednn_conv **out, char *why, size_t cap) {
  (void)s, (void)pass, (void)a, (void)b;
  *out = NULL;
  snprintf(why, cap, "n/a: oneDNN not built in");
  return -1;
}

int clforge_bench_onednn_conv_create_u8s8s32(const clforge_bench_conv_shape *s, const uint8_t *x, const int8_t *w,
                                             clforge_bench_onednn_conv **out, char *why, size_t cap) {
  (void)s, (void)x, (void)w;
  *out = NULL;
  snprintf(why, cap, "n/a: oneDNN not built in");
  return -1;
}

int clforge_bench_onednn_conv_run(clforge_bench_onednn_conv *c) {
  (void)c;
  return -1;
}

int clforge_bench_onednn_conv_result(clforge_bench_onednn_conv *c, void *y, char *why, size_t cap) {
  (void)c, (void)y;
  snprintf(why, cap, "n/a: oneDNN not built in");
  return -1;
}

const char *clforge_bench_onednn_conv_impl(const clforge_bench_onednn_conv *c) {
  (void)c;
  return "";
}

void clforge_bench_onednn_conv_destroy(clforge_bench_onednn_conv *c) { (void)c; }

int clforge_bench_onednn_gemm_u8s8s32(size_t m, size_t n, size_t k, const uint8_t *a, uint8_t a_zero_point,
                                      const int8_t *b, int32_t *c, char *why, size_t cap) {
  (void)m, (void)n, (void)k, (void)a, (void)a_zero_point, (void)b, (void)c;
  snprintf(why, cap, "n/a: oneDNN not built in");
  return -1;
}

#else

int clforge_bench_onednn_gemm_u8s8s32(size_t m, size_t n, size_t k, const uint8_t *a, uint8_t a_zero_point,
                                      const int8_t *b, int32_t *c, char *why, size_t cap) {
  const int32_t co = 0;
  dnnl_status_t st = dnnl_gemm_u8s8s32('N', 'N', 'F', (dnnl_dim_t)m, (dnnl_dim_t)n, (dnnl_dim_t)k, 1.0f, a,
                                       (dnnl_dim_t)k, a_zero_point, b, (dnnl_dim_t)n, 0, 0.0f, c, (dnnl_dim_t)n, &co);
  if (st != dnnl_success) {
    snprintf(why, cap, "oneDNN: dnnl_gemm_u8s8s32 failed (%s)", dnnl_status2str(st));
    return -1;
  }
  return 0;
}

struct clforge_bench_onednn_conv {
  dnnl_engine_t engine;
  dnnl_stream_t stream;
  dnnl_primitive_desc_t fwd_pd;    /* the forward (the backward passes' hint) */
  dnnl_primitive_desc_t pd;        /* the pass's */
  dnnl_primitive_t conv;
  dnnl_memory_t in0, in1, out;     /* in oneDNN's chosen formats */
  int arg0, arg1, arg_out;         /* their DNNL_ARG_* */
  dnnl_memory_desc_t user_out_md;  /* NCHW (y, dx) or OIHW/GOIHW (dw) f32 */
  size_t out_elems;
  char impl[64];
};

int clforge_bench_onednn_available(const char **why) {
  (void)why;
  return 1;
}

/* Looked up at run time: oneDNN brings its OpenMP runtime, the bench does
 * not link one itself. */
int clforge_bench_onednn_threads(void) {
  void *p = dlsym(RTLD_DEFAULT, "omp_get_max_threads");
  int (*fn)(void) = NULL;
  if (p) memcpy(&fn, &p, sizeof fn); /* object to function pointer without a pedantic cast */
  return fn ? fn() : 0;
}

/* A failed call: its name and oneDNN's status into why. */
static int failed(const char *what, dnnl_status_t st, char *why, size_t cap) {
  snprintf(why, cap, "oneDNN: %s failed (%s)", what, dnnl_status2str(st));
  return -1;
}

/* Copy `bytes` from host into a fresh plain (user-layout) memory, then
 * reorder it into `to` (already created in the primitive's format). */
static int reorder_in(clforge_bench_onednn_conv *c, const dnnl_memory_desc_t *user_md, const void *host, size_t bytes,
                      dnnl_memory_t to, char *why, size_t cap) {
  dnnl_memory_t user = NULL;
  dnnl_primitive_desc_t rpd = NULL;
  dnnl_primitive_t r = NULL;
  void *h = NULL;
  int rc = 0;
  dnnl_status_t st = dnnl_memory_create(&user, user_md, c->engine, DNNL_MEMORY_ALLOCATE);
  if (st != dnnl_success) rc = failed("dnnl_memory_create", st, why, cap);
  if (!rc && (st = dnnl_memory_get_data_handle(user, &h)) != dnnl_success)
    rc = failed("dnnl_memory_get_data_handle", st, why, cap);
  if (!rc) memcpy(h, host, bytes);
  const dnnl_memory_desc_t *to_md = NULL;
  if (!rc && (st = dnnl_memory_get_memory_desc(to, &to_md)) != dnnl_success)
    rc = failed("dnnl_memory_get_memory_desc", st, why, cap);
  if (!rc && (st = dnnl_reorder_primitive_desc_create(&rpd, user_md, c->engine, to_md, c->engine, NULL)) != dnnl_success)
    rc = failed("dnnl_reorder_primitive_desc_create", st, why, cap);
  if (!rc && (st = dnnl_primitive_create(&r, rpd)) != dnnl_success) rc = failed("dnnl_primitive_create (reorder)", st, why, cap);
  if (!rc) {
    dnnl_exec_arg_t args[2] = {{DNNL_ARG_FROM, user}, {DNNL_ARG_TO, to}};
    st = dnnl_primitive_execute(r, c->stream, 2, args);
    if (st == dnnl_success) st = dnnl_stream_wait(c->stream);
    if (st != dnnl_success) rc = failed("the reorder", st, why, cap);
  }
  if (r) dnnl_primitive_destroy(r);
  if (rpd) dnnl_primitive_desc_destroy(rpd);
  if (user) dnnl_memory_destroy(user);
  return rc;
}

/* The memory of the pass's operand `what` in the format the primitive chose. */
static int create_md_mem(clforge_bench_onednn_conv *c, dnnl_query_t what, dnnl_memory_t *m, char *why, size_t cap) {
  const dnnl_memory_desc_t *md = dnnl_primitive_desc_query_md(c->pd, what, 0);
  if (!md) {
    snprintf(why, cap, "oneDNN: the convolution's memory descriptors could not be queried");
    return -1;
  }
  dnnl_status_t st = dnnl_memory_create(m, md, c->engine, DNNL_MEMORY_ALLOCATE);
  return st == dnnl_success ? 0 : failed("dnnl_memory_create", st, why, cap);
}

/* The pass in f32, or (int8) the forward with u8 src, s8 weights and s32
 * dst (the inputs 1 byte an element). */
static int create(const clforge_bench_conv_shape *s, clforge_conv_kind pass, int int8, const void *a, const void *b,
                  clforge_bench_onednn_conv **out, char *why, size_t cap) {
  *out = NULL;
  const dnnl_data_type_t src_t = int8 ? dnnl_u8 : dnnl_f32, wei_t = int8 ? dnnl_s8 : dnnl_f32,
                         dst_t = int8 ? dnnl_s32 : dnnl_f32;
  const size_t in_es = int8 ? 1 : sizeof(float);
  clforge_bench_onednn_conv *c = calloc(1, sizeof *c);
  if (!c) {
    snprintf(why, cap, "out of host memory");
    return -1;
  }
  const int64_t n = (int64_t)s->n, ch = (int64_t)s->c, h = (int64_t)s->h, wd = (int64_t)s->w, k = (int64_t)s->k,
                r = (int64_t)s->r, sw = (int64_t)s->s, g = (int64_t)s->groups, p = (int64_t)s->p, q = (int64_t)s->q;
  dnnl_dims_t src_dims = {n, ch, h, wd}, dst_dims = {n, k, p, q};
  dnnl_dims_t wei_dims = {g, k / g, ch / g, r, sw}; /* grouped: goihw (the same memory as KCRS) */
  dnnl_dims_t plain_wei = {k, ch, r, sw};
  const int wei_nd = g > 1 ? 5 : 4;
  const int64_t *wd_dims = g > 1 ? wei_dims : plain_wei;
  const dnnl_format_tag_t wei_tag = g > 1 ? dnnl_goihw : dnnl_oihw;
  /* oneDNN counts dilation from 0 (0 = dense). */
  dnnl_dims_t strides = {(int64_t)s->stride, (int64_t)s->stride}, dil = {(int64_t)s->dilation - 1, (int64_t)s->dilation - 1};
  dnnl_dims_t pad = {(int64_t)s->pad, (int64_t)s->pad};
  dnnl_memory_desc_t src_any, wei_any, dst_any, user_src, user_wei, user_dst;
  memset(&user_src, 0, sizeof user_src), memset(&user_wei, 0, sizeof user_wei), memset(&user_dst, 0, sizeof user_dst);
  dnnl_convolution_desc_t cd, bd;
  dnnl_status_t st;
  int rc = 0;
  if ((st = dnnl_engine_create(&c->engine, dnnl_cpu, 0)) != dnnl_success) rc = failed("dnnl_engine_create", st, why, cap);
  if (!rc && (st = dnnl_stream_create(&c->stream, c->engine, dnnl_stream_default_flags)) != dnnl_success)
    rc = failed("dnnl_stream_create", st, why, cap);
  if (!rc && ((st = dnnl_memory_desc_init_by_tag(&src_any, 4, src_dims, src_t, dnnl_format_tag_any)) != dnnl_success ||
              (st = dnnl_memory_desc_init_by_tag(&wei_any, wei_nd, wd_dims, wei_t, dnnl_format_tag_any)) != dnnl_success ||
              (st = dnnl_memory_desc_init_by_tag(&dst_any, 4, dst_dims, dst_t, dnnl_format_tag_any)) != dnnl_success ||
              (st = dnnl_memory_desc_init_by_tag(&user_src, 4, src_dims, src_t, dnnl_nchw)) != dnnl_success ||
              (st = dnnl_memory_desc_init_by_tag(&user_wei, wei_nd, wd_dims, wei_t, wei_tag)) != dnnl_success ||
              (st = dnnl_memory_desc_init_by_tag(&user_dst, 4, dst_dims, dst_t, dnnl_nchw)) != dnnl_success))
    rc = failed("dnnl_memory_desc_init_by_tag", st, why, cap);
  /* convolution_auto: oneDNN picks direct or Winograd itself, as a user's
   * framework would let it. Training's forward is the backward passes' hint. */
  if (!rc && (st = dnnl_dilated_convolution_forward_desc_init(
                  &cd, pass == CLFORGE_CONV_FORWARD ? dnnl_forward_inference : dnnl_forward_training,
                  dnnl_convolution_auto, &src_any, &wei_any, NULL, &dst_any, strides, dil, pad, pad)) != dnnl_success)
    rc = failed("dnnl_dilated_convolution_forward_desc_init", st, why, cap);
  if (!rc && (st = dnnl_primitive_desc_create(&c->fwd_pd, &cd, NULL, c->engine, NULL)) != dnnl_success)
    rc = failed("dnnl_primitive_desc_create (convolution)", st, why, cap);
  if (!rc && pass == CLFORGE_CONV_BACKWARD_DATA) {
    if ((st = dnnl_dilated_convolution_backward_data_desc_init(&bd, dnnl_convolution_auto, &src_any, &wei_any,
                                                               &dst_any, strides, dil, pad, pad)) != dnnl_success)
      rc = failed("dnnl_dilated_convolution_backward_data_desc_init", st, why, cap);
    if (!rc && (st = dnnl_primitive_desc_create(&c->pd, &bd, NULL, c->engine, c->fwd_pd)) != dnnl_success)
      rc = failed("dnnl_primitive_desc_create (backward data)", st, why, cap);
  } else if (!rc && pass == CLFORGE_CONV_BACKWARD_FILTER) {
    if ((st = dnnl_dilated_convolution_backward_weights_desc_init(&bd, dnnl_convolution_auto, &src_any, &wei_any,
                                                                  NULL, &dst_any, strides, dil, pad, pad)) != dnnl_success)
      rc = failed("dnnl_dilated_convolution_backward_weights_desc_init", st, why, cap);
    if (!rc && (st = dnnl_primitive_desc_create(&c->pd, &bd, NULL, c->engine, c->fwd_pd)) != dnnl_success)
      rc = failed("dnnl_primitive_desc_create (backward weights)", st, why, cap);
  } else if (!rc) {
    c->pd = c->fwd_pd, c->fwd_pd = NULL;
  }
  /* The pass's operands: (in0, in1) -> out, and their host layouts. */
  const dnnl_query_t src_q = dnnl_query_src_md, wei_q = dnnl_query_weights_md, dst_q = dnnl_query_dst_md;
  const dnnl_query_t dsrc_q = dnnl_query_diff_src_md, dwei_q = dnnl_query_diff_weights_md,
                     ddst_q = dnnl_query_diff_dst_md;
  const dnnl_memory_desc_t *user_in0 = &user_src, *user_in1 = &user_wei;
  size_t in0_elems = s->n * s->c * s->h * s->w, in1_elems = s->k * (s->c / s->groups) * s->r * s->s;
  dnnl_query_t q0 = src_q, q1 = wei_q, qo = dst_q;
  c->arg0 = DNNL_ARG_SRC, c->arg1 = DNNL_ARG_WEIGHTS, c->arg_out = DNNL_ARG_DST;
  c->user_out_md = user_dst, c->out_elems = s->n * s->k * s->p * s->q;
  if (pass == CLFORGE_CONV_BACKWARD_DATA) {
    q0 = ddst_q, q1 = wei_q, qo = dsrc_q, user_in0 = &user_dst, in0_elems = c->out_elems;
    c->arg0 = DNNL_ARG_DIFF_DST, c->arg_out = DNNL_ARG_DIFF_SRC;
    c->user_out_md = user_src, c->out_elems = s->n * s->c * s->h * s->w;
  } else if (pass == CLFORGE_CONV_BACKWARD_FILTER) {
    q0 = src_q, q1 = ddst_q, qo = dwei_q, user_in1 = &user_dst, in1_elems = c->out_elems;
    c->arg1 = DNNL_ARG_DIFF_DST, c->arg_out = DNNL_ARG_DIFF_WEIGHTS;
    c->user_out_md = user_wei, c->out_elems = s->k * (s->c / s->groups) * s->r * s->s;
  }
  if (!rc) {
    const char *impl = NULL;
    if (dnnl_primitive_desc_query(c->pd, dnnl_query_impl_info_str, 0, &impl) == dnnl_success && impl)
      snprintf(c->impl, sizeof c->impl, "%s", impl);
    rc = create_md_mem(c, q0, &c->in0, why, cap);
    if (!rc) rc = create_md_mem(c, q1, &c->in1, why, cap);
    if (!rc) rc = create_md_mem(c, qo, &c->out, why, cap);
  }
  if (!rc && (st = dnnl_primitive_create(&c->conv, c->pd)) != dnnl_success)
    rc = failed("dnnl_primitive_create (convolution)", st, why, cap);
  if (!rc) rc = reorder_in(c, user_in0, a, in0_elems * in_es, c->in0, why, cap);
  if (!rc) rc = reorder_in(c, user_in1, b, in1_elems * in_es, c->in1, why, cap);
  if (rc) {
    clforge_bench_onednn_conv_destroy(c);
    return -1;
  }
  *out = c;
  return 0;
}

int clforge_bench_onednn_conv_run(clforge_bench_onednn_conv *c) {
  dnnl_exec_arg_t args[3] = {{c->arg0, c->in0}, {c->arg1, c->in1}, {c->arg_out, c->out}};
  dnnl_status_t st = dnnl_primitive_execute(c->conv, c->stream, 3, args);
  if (st == dnnl_success) st = dnnl_stream_wait(c->stream);
  return st == dnnl_success ? 0 : -1;
}

int clforge_bench_onednn_conv_result(clforge_bench_onednn_conv *c, void *y, char *why, size_t cap) {
  dnnl_memory_t user = NULL;
  dnnl_primitive_desc_t rpd = NULL;
  dnnl_primitive_t r = NULL;
  void *h = NULL;
  const dnnl_memory_desc_t *dmd = NULL;
  int rc = 0;
  dnnl_status_t st = dnnl_memory_create(&user, &c->user_out_md, c->engine, DNNL_MEMORY_ALLOCATE);
  if (st != dnnl_success) rc = failed("dnnl_memory_create", st, why, cap);
  if (!rc && (st = dnnl_memory_get_memory_desc(c->out, &dmd)) != dnnl_success)
    rc = failed("dnnl_memory_get_memory_desc", st, why, cap);
  if (!rc && (st = dnnl_reorder_primitive_desc_create(&rpd, dmd, c->engine, &c->user_out_md, c->engine, NULL)) != dnnl_success)
    rc = failed("dnnl_reorder_primitive_desc_create", st, why, cap);
  if (!rc && (st = dnnl_primitive_create(&r, rpd)) != dnnl_success) rc = failed("dnnl_primitive_create (reorder)", st, why, cap);
  if (!rc) {
    dnnl_exec_arg_t args[2] = {{DNNL_ARG_FROM, c->out}, {DNNL_ARG_TO, user}};
    st = dnnl_primitive_execute(r, c->stream, 2, args);
    if (st == dnnl_success) st = dnnl_stream_wait(c->stream);
    if (st != dnnl_success) rc = failed("the reorder of the result", st, why, cap);
  }
  if (!rc && (st = dnnl_memory_get_data_handle(user, &h)) != dnnl_success)
    rc = failed("dnnl_memory_get_data_handle", st, why, cap);
  if (!rc) memcpy(y, h, c->out_elems * sizeof(float));
  if (r) dnnl_primitive_destroy(r);
  if (rpd) dnnl_primitive_desc_destroy(rpd);
  if (user) dnnl_memory_destroy(user);
  return rc;
}

int clforge_bench_onednn_conv_create(const clforge_bench_conv_shape *s, clforge_conv_kind pass, const float *a,
                                     const float *b, clforge_bench_onednn_conv **out, char *why, size_t cap) {
  return create(s, pass, 0, a, b, out, why, cap);
}

int clforge_bench_onednn_conv_create_u8s8s32(const clforge_bench_conv_shape *s, const uint8_t *x, const int8_t *w,
                                             clforge_bench_onednn_conv **out, char *why, size_t cap) {
  *out = NULL;
  if (s->groups != 1) {
    snprintf(why, cap, "the int8 peer runs groups 1");
    return -1;
  }
  return create(s, CLFORGE_CONV_FORWARD, 1, x, w, out, why, cap);
}

const char *clforge_bench_onednn_conv_impl(const clforge_bench_onednn_conv *c) { return c ? c->impl : ""; }

void clforge_bench_onednn_conv_destroy(clforge_bench_onednn_conv *c) {
  if (!c) return;
  if (c->conv) dnnl_primitive_destroy(c->conv);
  if (c->pd) dnnl_primitive_desc_destroy(c->pd);
  if (c->fwd_pd) dnnl_primitive_desc_destroy(c->fwd_pd);
  if (c->in0) dnnl_memory_destroy(c->in0);
  if (c->in1) dnnl_memory_destroy(c->in1);
  if (c->out) dnnl_memory_destroy(c->out);
  if (c->stream) dnnl_stream_destroy(c->stream);
  if (c->engine) dnnl_engine_destroy(c->engine);
  free(c);
}

#endif /* CLFORGE_BENCH_HAVE_ONEDNN */
