/* The Winograd convolution algorithms F(2x2, 3x3) and F(4x4, 3x3)
 * (cl/conv_winograd.cl): for 3x3 filters, stride 1, dilation 1, any
 * padding, groups, both layouts, every storage type.
 *
 * Pipeline, with T = (m+2)^2 transformed planes (16 or 36):
 *   filter  U[t][g][c][k] = (G g G^T)[t], f32: once into the prepared
 *           weights (weights_bytes, prepare_weights), or per call into the
 *           front of the workspace;
 *   input   V[t] = (B^T d B)[t] per m x m output tile and input channel, f32,
 *           into the workspace; the tiles (n, ty, tx flattened) are taken in
 *           passes of nt so the workspace stays below clforge__workspace_cap;
 *   GEMM    for each t and group: M = V U ([nt x C/G] x [C/G x K/G]), one
 *           batched clforge GEMM of T*G items (route: family parameter PATH);
 *   output  Y = A^T M A and the epilogue (alpha, bias, beta*y, activation,
 *           store in y's type and layout), fused.
 * V and M keep channels innermost ([tile][c], [tile][k]) for both layouts:
 * the GEMM runs untransposed, and the transforms run on vectors of channels
 * (family parameter VW).
 *
 * Transform points: 0, +-1, infinity for F(2,3) and 0, +-1, +-2, infinity
 * for F(4,3), the usual ones, with small integer B^T and A^T (cheap
 * transforms). Their amplification beta (below) is 256; +-1/2 instead of
 * +-2 gives the same 256 (the large entries only move between the
 * matrices); the mixed set 0, +-1, 1/2, -2 has beta = 97 and would tighten
 * the bound 2.6x at the price of fractional B^T entries (not done).
 *
 * Error bound (what tests/test_conv_winograd.c asserts). Let
 * S(n,k,p,q) = sum over c, r, s of |x||w|, the sum of absolute products of
 * the output, and u = 2^-24. Each output is
 *   y = sum_c A^T [ (G g_c G^T) .* (B^T d_c B) ] A,
 * computed in f32: every stage rounds, so (standard forward analysis) the
 * error is at most gamma_(n) times the same expression evaluated with the
 * absolute values of every matrix and datum, with n = C/G + 14 (C/G for the
 * GEMM's sums, 3 + 5 + 5 + 1 for the four transforms and the product). For
 * data of one magnitude (|x| = X, |w| = W), that absolute expression is
 * beta * S with
 *   beta = max over (p,q) of sum_(i,j) |A^T|_pi |A^T|_qj (|G|1)_i (|G|1)_j
 *          (|B^T|1)_i (|B^T|1)_j / 9
 * = 7.1 for F(2,3) and 256 for F(4,3) (the corner output; its row of A^T
 * holds the 8s). So |err| <= beta * (C/G + 14) * u * S: the worst case, with
 * every rounding error of one sign. Rounding errors of random sign add in
 * quadrature, so in practice the error is about beta * sqrt(C/G + 14) * u * S
 * and the tests assert
 *   |y - ref| <= (tau_m * sqrt(C/G + 14) * u + u_y) * S' (+ u_y |ref|)
 * with tau_2 = 2 * 7.1 and tau_4 = 2 * 256 (a factor 2 of margin over the
 * amplification), u_y the rounding of y's storage (0 for f32, 2^-11 f16,
 * 2^-8 bf16), S' = |alpha| S + |bias| + |beta y| (the epilogue), times 1.2
 * for the activations' slope (GELU's is at most 1.13). Measured on uniform
 * random data in [-1, 1]: the largest |err| / bound is 0.05 (F(2,3)) and
 * 0.26 (F(4,3)).
 * In clforge__validate's terms (f32 y, uniform data, ResNet-50's 3x3
 * layers C = K = 64..512): F(2,3) nrmse 2.6e-7..6.9e-7, max_abs_scaled
 * 3.2e-7..1.1e-6; F(4,3) nrmse 1.7e-6..3.6e-6, max_abs_scaled
 * 6.4e-6..1.4e-5, both growing about as sqrt(C). So the plain f32
 * tolerance (nrmse 1e-5, max_abs_scaled 1e-4) holds for both up to
 * C ~ 4000; F(4,3) keeps a margin of 2.8x (nrmse) at C = 512. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../core/context.h"
#include "../core/error.h"
#include "../desc/gemm_desc.h"
#include "../families/conv_winograd.h"
#include "../families/families.h"
#include "../core/program.h"
#include "../core/workspace.h"
#include "conv_algo.h"
#include "gemm_launch.h"

/* ------------------------------------------------------------------ shape */

typedef struct wino_shape {
  size_t m, t;          /* output tile side, planes (m+2)^2 */
  size_t th, tw, tiles; /* tiles per image side, and in all */
  size_t u_floats;      /* the transformed filter */
  size_t per_tile;      /* floats of V and M per tile */
  size_t nt;            /* tiles per pass */
} wino_shape;

/* The passes for a workspace of `bytes` (the cap when asking how much). */
static void shape_of(const clforge__conv *d, const int *v, size_t m, size_t bytes, wino_shape *s) {
  memset(s, 0, sizeof *s);
  s->m = m, s->t = (m + 2) * (m + 2);
  s->th = (d->p + m - 1) / m, s->tw = (d->q + m - 1) / m;
  s->tiles = d->n * s->th * s->tw;
  s->u_floats = s->t * d->cg * d->k;
  s->per_tile = s->t * (d->c + d->k);
  const size_t floats = bytes / sizeof(float);
  size_t nt = floats > s->u_floats ? (floats - s->u_floats) / s->per_tile : 0;
  /* Workspace indices are uint in the kernels. */
  const size_t idx_max = (size_t)UINT32_MAX - s->u_floats;
  if (nt > idx_max / s->per_tile) nt = idx_max / s->per_tile;
  if (nt > s->tiles) nt = s->tiles;
  if (v && v[WINO_PASS] && nt > (size_t)v[WINO_PASS]) nt = (size_t)v[WINO_PASS];
  s->nt = nt;
}

static size_t ws_bytes_of(const wino_shape *s) { return (s->u_floats + (s->nt ? s->nt : 1) * s->per_tile) * sizeof(float); }

/* ------------------------------------------------------------ table hooks */

static int supports_m(clforge_context ctx, const clforge__conv *d, size_t m, char *why, size_t cap) {
  const char *name = m == 4 ? "winograd_4x4" : "winograd_2x2";
  if (d->r != 3 || d->s != 3 || d->stride_h != 1 || d->stride_w != 1 || d->dil_h != 1 || d->dil_w != 1) {
    snprintf(why, cap, "%s needs a 3x3 filter, stride 1, dilation 1 (this one is %zux%zu, stride %zux%zu, dilation %zux%zu)",
             name, d->r, d->s, d->stride_h, d->stride_w, d->dil_h, d->dil_w);
    return 0;
  }
  wino_shape s;
  shape_of(d, NULL, m, clforge__workspace_cap(ctx), &s);
  if (s.u_floats > (size_t)UINT32_MAX / 2 || s.th * s.tw * d->n > (size_t)UINT32_MAX || d->h > INT32_MAX / 2 ||
      d->w > INT32_MAX / 2 || d->k > UINT32_MAX || d->c > UINT32_MAX) {
    snprintf(why, cap, "%s: the problem is too large for its 32-bit tile indices", name);
    return 0;
  }
  return 1;
}

static int supports_2(clforge_context ctx, const clforge__conv *d, char *why, size_t cap) {
  return supports_m(ctx, d, 2, why, cap);
}
static int supports_4(clforge_context ctx, const clforge__conv *d, char *why, size_t cap) {
  return supports_m(ctx, d, 4, why, cap);
}

static size_t workspace_m(clforge_context ctx, const clforge__conv *d, const int *v, size_t m) {
  wino_shape s;
  shape_of(d, v, m, clforge__workspace_cap(ctx), &s);
  return ws_bytes_of(&s);
}
static size_t workspace_2(clforge_context ctx, const clforge__conv *d, const int *v) {
  return workspace_m(ctx, d, v, 2);
}
static size_t workspace_4(clforge_context ctx, const clforge__conv *d, const int *v) {
  return workspace_m(ctx, d, v, 4);
}

static size_t weights_2(const clforge__conv *d, const int *v) {
  (void)v;
  return 16 * d->cg * d->k * sizeof(float);
}
static size_t weights_4(const clforge__conv *d, const int *v) {
  (void)v;
  return 36 * d->cg * d->k * sizeof(float);
}

/* ---------------------------------------------------------------- kernels */

enum { FILTER_WG = 8 }; /* the filter transform's work-group (it runs once per call or per weights) */

static const clforge__family *family_of(size_t m) {
  return m == 4 ? &clforge__family_conv_winograd_4x4 : &clforge__family_conv_winograd_2x2;
}

typedef struct wino_kernels {
  cl_kernel filter, input, output;
} wino_kernels;

/* Built with what the kernels read: VW, the tile size and the problem's
 * types and epilogue; not WG (a launch size), PATH or PASS (host-side
 * choices), so every route, pass size and work-group size shares one
 * program. */
static clforge_status build(clforge_context ctx, const clforge__conv *d, const int *v, const wino_shape *s,
                            wino_kernels *k) {
  char opts[256];
  snprintf(opts, sizeof opts, "-DVW=%d -DWM=%zu", v[WINO_VW], s->m);
  clforge__conv_problem_options(d, opts, sizeof opts);
  const clforge__family *f = family_of(s->m);
  const size_t wg = (size_t)v[WINO_WG];
  clforge_status st = clforge__family_kernel(ctx, "conv2d", f, "clforge_conv_winograd_filter", NULL, opts, FILTER_WG,
                                             &k->filter);
  if (st == CLFORGE_SUCCESS)
    st = clforge__family_kernel(ctx, "conv2d", f, "clforge_conv_winograd_input", NULL, opts, wg, &k->input);
  if (st == CLFORGE_SUCCESS)
    st = clforge__family_kernel(ctx, "conv2d", f, "clforge_conv_winograd_output", NULL, opts, wg, &k->output);
  return st;
}

/* Sets arguments in order, keeping the first failure. */
typedef struct argset {
  cl_kernel k;
  cl_uint i;
  cl_int err;
} argset;

static void arg_raw(argset *a, size_t size, const void *p) {
  if (a->err == CL_SUCCESS) a->err = clSetKernelArg(a->k, a->i, size, p);
  a->i++;
}
static void arg_mem(argset *a, cl_mem m) { arg_raw(a, sizeof m, &m); }
static void arg_u32(argset *a, size_t v) {
  cl_uint u = (cl_uint)v;
  arg_raw(a, sizeof u, &u);
}
static void arg_i32(argset *a, size_t v) {
  cl_int u = (cl_int)v;
  arg_raw(a, sizeof u, &u);
}
static void arg_f32(argset *a, float v) { arg_raw(a, sizeof v, &v); }
/* Tensor indices and strides are idx_t in the kernels: uint, or ulong with IDX64. */
static void arg_idx(argset *a, const clforge__conv *d, size_t v) {
  if (d->idx64) {
    cl_ulong u = (cl_ulong)v;
    arg_raw(a, sizeof u, &u);
  } else {
    arg_u32(a, v);
  }
}

static size_t round_up(size_t a, size_t b) { return (a + b - 1) / b * b; }

/* A launch of g0 x g1 work-items after *prev (or, first, after the call's
 * wait list), replacing *prev with the launch's event. One dimension of
 * flat ids (the kernels split them into their two coordinates, g0 the
 * faster), in groups of wg whatever the shape: a group holds wg items of
 * work (on PoCL a group is one task) and the driver compiles one
 * work-group shape per kernel, not one per problem. The kernels return for
 * the ids past g0 * g1. */
static clforge_status launch(const clforge__conv_exec *e, cl_kernel k, size_t g0, size_t g1, size_t wg,
                             cl_event *prev, const char *what) {
  size_t local[1] = {wg};
  size_t global[1] = {round_up(g0 * g1, wg)};
  cl_event ev = NULL;
  clforge_status st = clforge__launch(e->ctx, k, 1, global, local, *prev ? 1 : e->nwait, *prev ? prev : e->wait, &ev, what);
  if (st != CLFORGE_SUCCESS) return st;
  if (*prev) clReleaseEvent(*prev);
  *prev = ev;
  return CLFORGE_SUCCESS;
}

static clforge_status args_failed(const clforge__conv_exec *e, const argset *a, const char *what) {
  return clforge__fail_cl(e->ctx, a->err, what);
}

static clforge_status enqueue_filter(const clforge__conv_exec *e, cl_kernel k, cl_mem u, cl_event *prev) {
  const clforge__conv *d = e->d;
  const clforge__conv_tensor *w = &d->filt;
  argset a = {k, 0, CL_SUCCESS};
  arg_mem(&a, e->w);
  arg_idx(&a, d, w->offset);
  for (int i = 0; i < 4; ++i) arg_idx(&a, d, w->stride[i]);
  arg_mem(&a, u);
  arg_u32(&a, 0);
  arg_u32(&a, d->k);
  arg_u32(&a, d->cg);
  arg_u32(&a, d->kg);
  arg_u32(&a, d->groups);
  if (a.err != CL_SUCCESS) return args_failed(e, &a, "clSetKernelArg (winograd filter)");
  return launch(e, k, d->k, d->cg, FILTER_WG, prev, "clEnqueueNDRangeKernel (winograd filter)");
}

/* The batched GEMM of one pass of `nt` tiles (m rows of the T*G items). */
static clforge_status gemm_of(clforge_context ctx, const clforge__conv *d, const int *v, const wino_shape *s,
                              size_t nt, size_t v_off, size_t m_off, clforge__gemm *g) {
  const size_t cg = d->cg, kg = d->kg, cap = s->nt;
  clforge_gemm_desc gd;
  memset(&gd, 0, sizeof gd);
  gd.layout = CLFORGE_ROW_MAJOR;
  gd.alpha = 1.0f, gd.beta = 0.0f;
  gd.batch = s->t * d->groups;
  gd.k = cg;
  gd.a_type = gd.b_type = gd.c_type = CLFORGE_F32;
  /* M[tile][k] = V[tile][c] U[c][k] */
  gd.m = nt, gd.n = kg;
  gd.trans_a = CLFORGE_NO_TRANS, gd.lda = cg, gd.a_offset = v_off, gd.stride_a = cap * cg;
  gd.trans_b = CLFORGE_NO_TRANS, gd.ldb = kg, gd.b_offset = 0, gd.stride_b = cg * kg;
  gd.ldc = kg;
  gd.c_offset = m_off, gd.stride_c = cap * kg;
  gd.alpha_mode = CLFORGE_ALPHA_AS_GIVEN;
  gd.compute_type = CLFORGE_COMPUTE_32F; /* Winograd's transform GEMMs run f32 */
  clforge_status st = clforge__gemm_resolve(ctx, &gd, g);
  if (st == CLFORGE_SUCCESS) g->route = v[WINO_PATH];
  return st;
}

static int explain_m(clforge_context ctx, const clforge__conv *d, const int *v, clforge_kernel_choice *out, int cap,
                     size_t m) {
  wino_shape s;
  shape_of(d, v, m, clforge__workspace_cap(ctx), &s);
  clforge__gemm g;
  if (!s.nt || gemm_of(ctx, d, v, &s, s.nt, s.u_floats, s.u_floats + s.nt * s.t * d->c, &g) != CLFORGE_SUCCESS) {
    clforge__clear_error(ctx);
    return 0;
  }
  return clforge__gemm_explain_resolved(ctx, &g, out, cap);
}
static int explain_2(clforge_context ctx, const clforge__conv *d, const int *v, clforge_kernel_choice *out, int cap) {
  return explain_m(ctx, d, v, out, cap, 2);
}
static int explain_4(clforge_context ctx, const clforge__conv *d, const int *v, clforge_kernel_choice *out, int cap) {
  return explain_m(ctx, d, v, out, cap, 4);
}

/* -------------------------------------------------------------- the call */

static clforge_status prepare_m(const clforge__conv_exec *e, cl_mem out, size_t m) {
  wino_shape s;
  shape_of(e->d, e->v, m, 0, &s);
  wino_kernels k;
  clforge_status st = build(e->ctx, e->d, e->v, &s, &k);
  cl_event prev = NULL;
  if (st == CLFORGE_SUCCESS) st = enqueue_filter(e, k.filter, out, &prev);
  if (st == CLFORGE_SUCCESS) *e->event = prev;
  else if (prev) clReleaseEvent(prev);
  return st;
}
static clforge_status prepare_2(const clforge__conv_exec *e, cl_mem out) { return prepare_m(e, out, 2); }
static clforge_status prepare_4(const clforge__conv_exec *e, cl_mem out) { return prepare_m(e, out, 4); }

/* One pass's input transform of tiles t0 .. t0 + nt into V, then its GEMM
 * M = U V, each after *prev (which moves on to the last). */
static clforge_status input_pass(const clforge__conv_exec *e, const wino_kernels *k, const wino_shape *s, size_t t0,
                                 size_t nt, cl_event *prev) {
  const clforge__conv *d = e->d;
  const size_t wg = (size_t)e->v[WINO_WG], vw = (size_t)e->v[WINO_VW];
  const size_t v_off = s->u_floats, m_off = s->u_floats + s->nt * s->t * d->c;
  argset a = {k->input, 0, CL_SUCCESS};
  arg_mem(&a, e->x);
  arg_idx(&a, d, d->x.offset);
  for (int i = 0; i < 4; ++i) arg_idx(&a, d, d->x.stride[i]);
  arg_u32(&a, d->h);
  arg_u32(&a, d->w);
  arg_i32(&a, d->pad_t);
  arg_i32(&a, d->pad_l);
  arg_u32(&a, s->th);
  arg_u32(&a, s->tw);
  arg_u32(&a, t0);
  arg_u32(&a, nt);
  arg_u32(&a, s->nt);
  arg_u32(&a, d->c);
  arg_u32(&a, d->cg);
  arg_mem(&a, e->ws);
  arg_u32(&a, v_off);
  if (a.err != CL_SUCCESS) return args_failed(e, &a, "clSetKernelArg (winograd input)");
  /* The kernel indexes V with the pass's capacity s.nt, so the last
   * pass's tiles sit where the GEMM's leading dimensions expect them. */
  clforge_status st = launch(e, k->input, (d->c + vw - 1) / vw, nt, wg, prev, "clEnqueueNDRangeKernel (winograd input)");
  if (st != CLFORGE_SUCCESS) return st;
  clforge__gemm g;
  st = gemm_of(e->ctx, d, e->v, s, nt, v_off, m_off, &g);
  if (st != CLFORGE_SUCCESS) return st;
  clforge__gemm_buffers bf = {e->ws, e->pw ? e->pw : e->ws, e->ws, NULL, NULL};
  cl_event ev = NULL;
  st = clforge__gemm_enqueue(e->ctx, &g, &bf, 1, prev, &ev);
  if (st != CLFORGE_SUCCESS) return st;
  clReleaseEvent(*prev);
  *prev = ev;
  return CLFORGE_SUCCESS;
}

/* One pass's output transform of M into y, with bias, alpha and beta (M
 * not read when use_m is 0). */
static clforge_status output_pass(const clforge__conv_exec *e, const wino_kernels *k, const wino_shape *s, size_t t0,
                                  size_t nt, int use_m, cl_event *prev) {
  const clforge__conv *d = e->d;
  const size_t wg = (size_t)e->v[WINO_WG], vw = (size_t)e->v[WINO_VW];
  const size_t m_off = s->u_floats + s->nt * s->t * d->c;
  const cl_mem mbuf = e->ws ? e->ws : e->y; /* alpha 0 without workspace: M is not read */
  argset a = {k->output, 0, CL_SUCCESS};
  arg_mem(&a, mbuf);
  arg_u32(&a, m_off);
  arg_u32(&a, t0);
  arg_u32(&a, nt);
  arg_u32(&a, s->nt);
  arg_u32(&a, d->k);
  arg_u32(&a, d->kg);
  arg_u32(&a, s->th);
  arg_u32(&a, s->tw);
  arg_u32(&a, d->p);
  arg_u32(&a, d->q);
  arg_mem(&a, e->y);
  arg_idx(&a, d, d->y.offset);
  for (int i = 0; i < 4; ++i) arg_idx(&a, d, d->y.stride[i]);
  arg_mem(&a, e->bias ? e->bias : e->y);
  arg_idx(&a, d, d->has_bias ? d->bias.offset : 0);
  arg_idx(&a, d, d->has_bias ? d->bias.stride[0] : 0);
  arg_f32(&a, d->alpha);
  arg_f32(&a, d->beta);
  arg_i32(&a, (size_t)use_m);
  if (a.err != CL_SUCCESS) return args_failed(e, &a, "clSetKernelArg (winograd output)");
  return launch(e, k->output, (d->k + vw - 1) / vw, nt, wg, prev, "clEnqueueNDRangeKernel (winograd output)");
}

static clforge_status enqueue_m(const clforge__conv_exec *e, size_t m) {
  const clforge__conv *d = e->d;
  wino_shape s;
  shape_of(d, e->v, m, e->ws_bytes, &s);
  const int use_m = d->alpha != 0.0f; /* alpha 0: x and w do not count, only the epilogue runs */
  if (use_m && (!s.nt || !e->ws))
    return clforge__fail(e->ctx, CLFORGE_INTERNAL_ERROR, "conv2d: %s: a workspace of %zu bytes holds no tile pass",
                         m == 4 ? "winograd_4x4" : "winograd_2x2", e->ws_bytes);
  if (!use_m) s.nt = s.tiles; /* one pass of the epilogue alone */
  wino_kernels k;
  clforge_status st = build(e->ctx, d, e->v, &s, &k);
  if (st != CLFORGE_SUCCESS) return st;
  cl_event prev = NULL;
  if (use_m && !e->pw) st = enqueue_filter(e, k.filter, e->ws, &prev);
  for (size_t t0 = 0; st == CLFORGE_SUCCESS && t0 < s.tiles; t0 += s.nt) {
    const size_t nt = s.tiles - t0 < s.nt ? s.tiles - t0 : s.nt;
    if (use_m) st = input_pass(e, &k, &s, t0, nt, &prev);
    if (st == CLFORGE_SUCCESS) st = output_pass(e, &k, &s, t0, nt, use_m, &prev);
  }
  if (st == CLFORGE_SUCCESS) *e->event = prev;
  else if (prev) clReleaseEvent(prev);
  return st;
}
static clforge_status enqueue_2(const clforge__conv_exec *e) { return enqueue_m(e, 2); }
static clforge_status enqueue_4(const clforge__conv_exec *e) { return enqueue_m(e, 4); }

const clforge__conv_algo_impl clforge__conv_winograd_2x2 = {
    .algo = CLFORGE_CONV_ALGO_WINOGRAD_2X2,
    .name = "winograd_2x2",
    .family = &clforge__family_conv_winograd_2x2,
    .supports = supports_2,
    .workspace = workspace_2,
    .weights_bytes = weights_2,
    .prepare_weights = prepare_2,
    .enqueue = enqueue_2,
    .explain = explain_2,
};

const clforge__conv_algo_impl clforge__conv_winograd_4x4 = {
    .algo = CLFORGE_CONV_ALGO_WINOGRAD_4X4,
    .name = "winograd_4x4",
    .family = &clforge__family_conv_winograd_4x4,
    .supports = supports_4,
    .workspace = workspace_4,
    .weights_bytes = weights_4,
    .prepare_weights = prepare_4,
    .enqueue = enqueue_4,
    .explain = explain_4,
};
