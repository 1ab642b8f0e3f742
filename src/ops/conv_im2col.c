/* The im2col convolution algorithm: the column matrix of a pass written
 * into the workspace (cl/conv_im2col.cl), then clforge's GEMM multiplies it
 * with the filter, the epilogue fused in the GEMM's. Any shape.
 *
 * The column matrix holds x's values in x's storage type: a copy is exact,
 * and 16-bit storage halves its traffic. Its column order within a group is
 * the filter's own (KRSC: r, s, c; KCRS: c, r, s), so w is the GEMM's
 * other operand as it lies: no prepared weights. Its layout follows y:
 *   y NHWC: col[pixel][R*S*C]   y (pixels x kg) = col (ld R*S*C) * w_g^T   bias per column
 *   y NCHW: col[img][R*S*C][pixel]   y[n] (kg x pixels) = w_g * col[n]   bias per row
 * Groups take their R*S*cg columns (rows) of col and are one GEMM each,
 * or one GEMM batched over the groups for y NHWC without bias.
 *
 * Passes keep the workspace bounded: CHUNK images at a time (more when
 * images are small: up to 8 MiB of columns), fewer when they exceed the
 * context's workspace bound, and pixel ranges of one image when even one
 * image does. Each pass's im2col waits for the previous
 * pass's GEMMs (they share the workspace). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "../core/compute_type.h"
#include "../core/context.h"
#include "../core/error.h"
#include "../families/conv_im2col.h"
#include "../families/families.h"
#include "../core/program.h"
#include "../core/workspace.h"
#include "conv_algo.h"
#include "conv_im2col.h"
#include "gemm_launch.h"

static size_t min_size(size_t a, size_t b) { return a < b ? a : b; }

enum { PASS_BYTES = 8 << 20 };

int clforge__conv_col_plan(clforge_context ctx, const clforge__conv *d, const int *v, clforge__col_plan *p) {
  memset(p, 0, sizeof *p);
  p->rows = d->y_layout == CLFORGE_NHWC;
  p->pq = d->p * d->q, p->rscg = d->r * d->s * d->cg, p->rsc = p->rscg * d->groups;
  p->es = clforge_dtype_size(d->x.type);
  const size_t cap = clforge__workspace_cap(ctx), line = p->rsc * p->es;
  if (!p->pq || line > cap || p->pq > INT32_MAX) return 0;
  const size_t image = p->pq * line; /* no overflow: the resolved y and x fit size_t */
  size_t chunk = v ? (size_t)v[CI2C_CHUNK] : 1;
  /* Small images (deep layers: 7x7 or 14x14 outputs) take more than CHUNK
   * per pass while the pass's columns stay within PASS_BYTES (what one
   * large image's columns are, and a CPU's last-level cache holds): one
   * 7x7 image is a GEMM of 49 rows, too few for any tile. */
  if (image / p->pq == line && image < PASS_BYTES && PASS_BYTES / image > chunk) chunk = PASS_BYTES / image;
  if (image / p->pq == line && image <= cap) {
    /* the GEMM's m (y NHWC: images x pixels) stays below 2^31 */
    p->imgs = min_size(min_size(min_size(chunk, d->n), cap / image), INT32_MAX / p->pq);
    p->pix = p->pq;
  } else {
    p->imgs = 1;
    p->pix = min_size(cap / line, p->pq);
  }
  p->bytes = p->imgs * p->pix * line;
  return 1;
}

/* The GEMM of group grp in a pass (images n0.., pixels pix0.. of npix). */
static clforge_status pass_gemm(clforge_context ctx, const clforge__conv *d, const clforge__col_plan *p, const int *v,
                                size_t n0, size_t imgs, size_t pix0, size_t npix, size_t grp, int batch_groups,
                                clforge__gemm *out) {
  clforge_gemm_desc g = {0};
  const size_t kg = d->kg;
  g.layout = CLFORGE_ROW_MAJOR;
  g.alpha = d->alpha, g.alpha_mode = CLFORGE_ALPHA_AS_GIVEN, g.beta = d->beta;
  g.activation = (clforge_activation)d->act;
  g.c_type = d->y.type, g.bias_type = d->bias.type;
  g.bias_offset = d->bias.offset + grp * kg;
  g.k = p->rscg;
  if (p->rows) {
    g.m = imgs * npix, g.n = kg;
    g.a_type = d->x.type, g.lda = p->rsc, g.a_offset = grp * p->rscg;
    g.b_type = d->filt.type, g.trans_b = CLFORGE_TRANS, g.ldb = p->rscg, g.b_offset = d->filt.offset + grp * kg * p->rscg;
    g.c_offset = d->y.offset + n0 * d->y.stride[0] + pix0 * d->k + grp * kg, g.ldc = d->k;
    g.bias_mode = d->has_bias ? CLFORGE_BIAS_COLUMN : CLFORGE_BIAS_NONE;
    if (batch_groups)
      g.batch = d->groups, g.stride_a = p->rscg, g.stride_b = kg * p->rscg, g.stride_c = kg;
  } else {
    g.m = kg, g.n = npix;
    g.a_type = d->filt.type, g.lda = p->rscg, g.a_offset = d->filt.offset + grp * kg * p->rscg;
    g.b_type = d->x.type, g.ldb = npix, g.b_offset = grp * p->rscg * npix, g.stride_b = p->rsc * npix;
    g.c_offset = d->y.offset + n0 * d->y.stride[0] + grp * kg * p->pq + pix0, g.ldc = p->pq;
    g.stride_c = d->y.stride[0], g.batch = imgs;
    g.bias_mode = d->has_bias ? CLFORGE_BIAS_ROW : CLFORGE_BIAS_NONE;
  }
  g.compute_type = d->compute_type; /* the conv call's (a half variant where it allows) */
  clforge_status st = clforge__gemm_resolve(ctx, &g, out);
  if (st == CLFORGE_SUCCESS) out->route = v ? v[CI2C_PATH] : 0;
  return st;
}

int clforge__conv_im2col_supports(clforge_context ctx, const clforge__conv *d, char *why, size_t cap) {
  clforge__col_plan p;
  if (!clforge__conv_col_plan(ctx, d, NULL, &p)) {
    snprintf(why, cap, "im2col: a row of the column matrix (%zu x %zu x %zu elements) exceeds the workspace bound of %zu bytes",
             d->r, d->s, d->c, clforge__workspace_cap(ctx));
    return 0;
  }
  /* R*S*C and K are GEMM sizes (m, n or k: below 2^31, clforge_gemm's
   * limit, as the kernel's uint products r * s * cg need); the leading
   * dimensions' 2^32 does not bind first. */
  if (p.rsc > INT32_MAX || d->k > INT32_MAX) {
    snprintf(why, cap, "im2col: the GEMM (R*S*C %zu, K %zu) exceeds clforge GEMM's limits", p.rsc, d->k);
    return 0;
  }
  return 1;
}

static size_t workspace(clforge_context ctx, const clforge__conv *d, const int *v) {
  clforge__col_plan p;
  return clforge__conv_col_plan(ctx, d, v, &p) ? p.bytes : 0;
}

static clforge_status set_args(clforge_context ctx, cl_kernel k, const clforge__conv *d, cl_mem x, cl_mem ws,
                               const clforge__col_plan *p, size_t n0, size_t pix0, size_t npix) {
  const cl_ulong x_off = d->x.offset, sx[4] = {d->x.stride[0], d->x.stride[1], d->x.stride[2], d->x.stride[3]};
  const cl_uint u[] = {(cl_uint)d->h,        (cl_uint)d->w,        (cl_uint)d->q,     (cl_uint)d->cg,
                       (cl_uint)d->r,        (cl_uint)d->s,        (cl_uint)d->stride_h, (cl_uint)d->stride_w,
                       (cl_uint)d->dil_h,    (cl_uint)d->dil_w,    (cl_uint)d->pad_t, (cl_uint)d->pad_l,
                       (cl_uint)n0,          (cl_uint)pix0,        (cl_uint)(p->rows ? npix : p->rsc),
                       (cl_uint)(p->rows ? p->rsc : npix)};
  cl_uint i = 0;
  cl_int err = clSetKernelArg(k, i++, sizeof x, &x);
  err |= clSetKernelArg(k, i++, sizeof x_off, &x_off);
  for (int a = 0; a < 4; ++a) err |= clSetKernelArg(k, i++, sizeof sx[a], &sx[a]);
  err |= clSetKernelArg(k, i++, sizeof ws, &ws);
  for (size_t a = 0; a < sizeof u / sizeof u[0]; ++a) err |= clSetKernelArg(k, i++, sizeof u[a], &u[a]);
  return err == CL_SUCCESS ? CLFORGE_SUCCESS
                           : clforge__fail(ctx, CLFORGE_INTERNAL_ERROR, "conv2d: setting the im2col kernel's arguments failed");
}

clforge_status clforge__conv_col_kernel(clforge_context ctx, const clforge__conv *d, const int *v,
                                        const clforge__col_plan *p, cl_kernel *kern) {
  /* Built with what the kernel reads only: VW, x's type and the matrix's
   * layout (not the problem's other options: the epilogue is the GEMM's;
   * nor WG, CHUNK and PATH: a launch size and host-side choices), so one
   * program serves every epilogue, output type, pass size and GEMM route. */
  const clforge__family *f = &clforge__family_conv_im2col;
  const size_t wg = (size_t)v[CI2C_WG];
  char opts[160];
  snprintf(opts, sizeof opts, "-DVW=%d -DX_T=%d -DROWS=%d -DKRSC=%d", v[CI2C_VW], (int)d->x.type, p->rows,
           d->w_layout == CLFORGE_KRSC);
  if (p->pad) { /* int8 x: padding reads its zero point (a program per zero point in use) */
    const size_t used = strlen(opts);
    snprintf(opts + used, sizeof opts - used, " -DPAD=%d", p->pad);
  }
  clforge_status st = clforge__kernel_get(ctx, f->sources, opts, f->kernel, kern);
  size_t kmax = 0;
  if (st == CLFORGE_SUCCESS &&
      clGetKernelWorkGroupInfo(*kern, ctx->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof kmax, &kmax, NULL) == CL_SUCCESS &&
      kmax < wg)
    st = clforge__fail(ctx, CLFORGE_UNSUPPORTED,
                       "conv2d: the conv_im2col kernel built with %s runs at most %zu work-items per group here, not "
                       "%zu; choose a smaller WG with CLFORGE_PARAMS",
                       opts, kmax, wg);
  return st;
}

clforge_status clforge__conv_col_launch(clforge_context ctx, cl_kernel kern, const clforge__conv *d, const int *v,
                                        const clforge__col_plan *p, cl_mem x, cl_mem ws, size_t n0, size_t imgs,
                                        size_t pix0, size_t npix, cl_uint nwait, const cl_event *wait,
                                        cl_event *event) {
  const size_t vw = (size_t)v[CI2C_VW], wg = (size_t)v[CI2C_WG];
  clforge_status st = set_args(ctx, kern, d, x, ws, p, n0, pix0, npix);
  const size_t len = p->rows ? p->rsc : npix, items = (len + vw - 1) / vw;
  const size_t local[3] = {wg, 1, 1};
  const size_t global[3] = {(items + wg - 1) / wg * wg, p->rows ? npix : p->rsc, imgs};
  if (st == CLFORGE_SUCCESS)
    st = clforge__launch(ctx, kern, 3, global, local, nwait, wait, event, "clEnqueueNDRangeKernel (conv2d im2col)");
  return st;
}

static clforge_status enqueue(const clforge__conv_exec *e) {
  clforge_context ctx = e->ctx;
  const clforge__conv *d = e->d;
  clforge__col_plan p;
  if (!clforge__conv_col_plan(ctx, d, e->v, &p) || !e->ws || e->ws_bytes < p.bytes)
    return clforge__fail(ctx, CLFORGE_INTERNAL_ERROR, "conv2d: im2col got %zu bytes of workspace, needs %zu",
                         e->ws_bytes, p.bytes);
  cl_kernel kern;
  clforge_status st = clforge__conv_col_kernel(ctx, d, e->v, &p, &kern);
  if (st != CLFORGE_SUCCESS) return st;
  const int batch_groups = p.rows && d->groups > 1 && !d->has_bias;
  const size_t launches = batch_groups ? 1 : d->groups;
  const clforge__gemm_buffers bf = {p.rows ? e->ws : e->w, p.rows ? e->w : e->ws, e->y, d->has_bias ? e->bias : NULL,
                                    NULL};

  /* One chain: im2col of a pass, its GEMMs, the next pass's im2col... */
  cl_event prev = NULL;
  for (size_t n0 = 0; n0 < d->n && st == CLFORGE_SUCCESS; n0 += p.imgs) {
    const size_t imgs = min_size(p.imgs, d->n - n0);
    for (size_t pix0 = 0; pix0 < p.pq && st == CLFORGE_SUCCESS; pix0 += p.pix) {
      const size_t npix = min_size(p.pix, p.pq - pix0);
      cl_event ev = NULL;
      st = clforge__conv_col_launch(ctx, kern, d, e->v, &p, e->x, e->ws, n0, imgs, pix0, npix, prev ? 1 : e->nwait,
                                    prev ? &prev : e->wait, &ev);
      if (prev) clReleaseEvent(prev);
      prev = ev;
      for (size_t grp = 0; grp < launches && st == CLFORGE_SUCCESS; ++grp) {
        clforge__gemm g;
        st = pass_gemm(ctx, d, &p, e->v, n0, imgs, pix0, npix, grp, batch_groups, &g);
        ev = NULL;
        if (st == CLFORGE_SUCCESS) st = clforge__gemm_enqueue(ctx, &g, &bf, 1, &prev, &ev);
        clReleaseEvent(prev);
        prev = ev;
      }
    }
  }
  if (st == CLFORGE_SUCCESS) *e->event = prev;
  else if (prev) clReleaseEvent(prev);
  return st;
}

static int explain(clforge_context ctx, const clforge__conv *d, const int *v, clforge_kernel_choice *out, int cap) {
  clforge__col_plan p;
  clforge__gemm g;
  if (cap <= 0 || !clforge__conv_col_plan(ctx, d, v, &p)) return 0;
  const int batch_groups = p.rows && d->groups > 1 && !d->has_bias;
  if (pass_gemm(ctx, d, &p, v, 0, p.imgs, 0, p.pix, 0, batch_groups, &g) != CLFORGE_SUCCESS) {
    clforge__clear_error(ctx);
    return 0;
  }
  return clforge__gemm_explain_resolved(ctx, &g, out, cap);
}

const clforge__conv_algo_impl clforge__conv_im2col = {
    .algo = CLFORGE_CONV_ALGO_IM2COL,
    .name = "im2col",
    .family = &clforge__family_conv_im2col,
    .supports = clforge__conv_im2col_supports,
    .workspace = workspace,
    .enqueue = enqueue,
    .explain = explain,
};
