/* clforge_gemm_quantized: the int8 GEMM's checks, the gemm_int8 family's
 * kernel over the whole C (bounds in the kernel), validation against the
 * reference bit for bit. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/context.h"
#include "../core/error.h"
#include "../desc/gemm_quant_desc.h"
#include "../families/families.h"
#include "../core/program.h"
#include "../core/validate.h"
#include "../core/workspace.h"
#include "buffer_check.h"
#include "gemm_launch.h"
#include "gemm_quantized.h"
#include "launch_chain.h"
#include "quant_check.h"
#include "op_call.h"

#define OP "gemm_quantized"

/* The scale buffers in the kernel's view: rows' and columns'. */
static void scale_buffers(const clforge__gemm_q *q, const clforge_gemm_quant *quant, cl_mem *rs, cl_mem *cs) {
  *rs = q->row_scale_from_b ? quant->b_scale : quant->a_scale;
  *cs = q->row_scale_from_b ? quant->a_scale : quant->b_scale;
}

/* The scales hold their counts, and C does not overlap them. */
static clforge_status check_scales(clforge_context ctx, const clforge__gemm_q *q, const clforge_gemm_quant *quant,
                                   cl_mem c) {
  if (q->out == CLFORGE__QOUT_S32) return CLFORGE_SUCCESS;
  if (!quant->a_scale || !quant->b_scale)
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, OP ": a_scale and b_scale are needed for an %s C",
                         clforge_dtype_name(q->g.c.type));
  cl_mem rs, cs;
  scale_buffers(q, quant, &rs, &cs);
  const cl_mem buf[2] = {rs, cs};
  const size_t off[2] = {q->row_scale_offset, q->col_scale_offset}, count[2] = {q->row_scales, q->col_scales};
  const char *name[2] = {q->row_scale_from_b ? "b_scale" : "a_scale", q->row_scale_from_b ? "a_scale" : "b_scale"};
  clforge__byte_range rc, r;
  const clforge__gemm_operand *co = &q->g.c;
  const size_t cs_bytes = clforge_dtype_size(co->type);
  clforge_status st = clforge__buffer_range(ctx, c, co->offset * cs_bytes, (co->extent - co->offset) * cs_bytes, &rc);
  for (int i = 0; i < 2 && st == CLFORGE_SUCCESS; ++i) {
    st = clforge__check_buffer(ctx, OP, name[i], buf[i], off[i], count[i], sizeof(float), CLFORGE_ACCESS_READ);
    if (st == CLFORGE_SUCCESS) st = clforge__buffer_range(ctx, buf[i], off[i] * 4, count[i] * 4, &r);
    if (st == CLFORGE_SUCCESS && clforge__ranges_alias(&rc, &r))
      return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, OP ": c overlaps %s", name[i]);
  }
  return st;
}

static clforge_status select_params(clforge_context ctx, const clforge__gemm_q *q, int *v, clforge_kernel_choice *c) {
  /* a tuning entry of the call's key (src/ops/gemm_quantized_tune.c), an override, or the defaults */
  clforge_kernel_choice own;
  if (!c) c = &own;
  char dtypes[32], layout[3] = {q->g.a.trans ? 't' : 'n', q->g.b.trans ? 't' : 'n', '\0'};
  snprintf(dtypes, sizeof dtypes, "%s,%s,%s", clforge_dtype_name(q->g.a.type), clforge_dtype_name(q->g.b.type),
           clforge_dtype_name(q->g.c.type));
  clforge__problem_key key = {dtypes, layout, clforge__gemm_shape_class(q->g.m, q->g.n, q->g.k), 3,
                              {q->g.m, q->g.n, q->g.k}, CLFORGE_COMPUTE_DEFAULT};
  clforge_status st = clforge__family_select(ctx, &clforge__family_gemm_int8, 0, &key, v, c);
  /* a forced set (or the tuner's candidate) is taken as it is; the defaults
   * and tuning entries (whose shape may be another, and which may hold the
   * defaults the tuner could not beat) narrow to C below */
  if (st != CLFORGE_SUCCESS || c->source == CLFORGE_PARAMS_FROM_API || c->source == CLFORGE_PARAMS_FROM_ENV ||
      c->source == CLFORGE_PARAMS_FROM_TUNER)
    return st;
  /* The packed integer dot products where the device has them, except on
   * CPUs: Intel's CPU runtime (the CPU driver with the extension) expands
   * them to vpmaddwd + vphaddd, while DOT=2's byte products along k become
   * vpdpbusd on VNNI: 4 rows x 4 columns a work-item, a 4 x 4 group (the
   * measurements: docs/inference-precision.md). The default's hint; a
   * tuning entry says what was measured. */
  if ((c->source == CLFORGE_PARAMS_FROM_DEVICE_DEFAULT || c->source == CLFORGE_PARAMS_FROM_GENERIC_DEFAULT) &&
      (ctx->info.caps & CLFORGE_CAP_INTEGER_DOT)) {
    if (ctx->info.device_class != CLFORGE_DEVICE_CLASS_CPU) v[GEMMI_DOT] = 1, v[GEMMI_STAGE] = 0;
    else {
      static const int cpu_dot[GEMMI_NPARAMS] = {[GEMMI_MWI] = 4, [GEMMI_NWI] = 4, [GEMMI_VW] = 1, [GEMMI_MDIM] = 4,
                                                 [GEMMI_NDIM] = 4, [GEMMI_DOT] = 2};
      for (int i = 0; i < GEMMI_NPARAMS; ++i) v[i] = cpu_dot[i];
    }
  }
  /* A group much wider (taller) than C: its work-items past the last column
   * repeat it on the scalar load path (a conv layer's K = 64 under the CPU
   * default's 256 columns), so the group narrows to C. */
  while (v[GEMMI_NDIM] > 1 && (size_t)(v[GEMMI_NDIM] / 2) * (size_t)v[GEMMI_NWI] * (size_t)v[GEMMI_VW] >= q->g.n)
    v[GEMMI_NDIM] /= 2;
  while (v[GEMMI_MDIM] > 1 && (size_t)(v[GEMMI_MDIM] / 2) * (size_t)v[GEMMI_MWI] >= q->g.m) v[GEMMI_MDIM] /= 2;
  for (int i = 0; i < c->nparams && i < CLFORGE_MAX_KERNEL_PARAMS; ++i) c->values[i] = v[i];
  return st;
}

/* DOT=2 reads op(B)'s columns along k: where B's rows run along n, op(B)
 * is first copied k-contiguous into the workspace (cl/gemm_int8_pack.cl),
 * and the kernel is built for that copy (gk: B transposed, ld = k). 0 where
 * B is read in place (also when the copy would pass the workspace bound). */
static int packs_b(clforge_context ctx, const clforge__gemm *g, const clforge__gemm_buffers *bf, const int *v,
                   clforge__gemm *gk) {
  *gk = *g;
  const size_t bytes = g->n * g->k * g->batch;
  /* an A or B in the workspace itself (the int8 convolution's transposed
   * filter) is read in place: the copy would overwrite it */
  if (v[GEMMI_DOT] != 2 || g->b.trans || !bytes || bytes > clforge__workspace_cap(ctx) ||
      bf->a == ctx->workspace.buffer || bf->b == ctx->workspace.buffer)
    return 0;
  gk->b.trans = 1, gk->b.offset = 0, gk->b.ld = g->k, gk->b.stride = g->n * g->k;
  gk->b.rows = g->n, gk->b.cols = g->k, gk->b.span = g->n * g->k, gk->b.extent = bytes;
  return 1;
}

static const char *const pack_sources[] = {"gemm_base", "gemm_int8_pack", NULL};

static clforge_status pack_kernel(clforge_context ctx, const clforge__gemm *g, cl_kernel *k) {
  char opts[32];
  snprintf(opts, sizeof opts, "-DIDX64=%d", g->idx64);
  return clforge__kernel_get(ctx, pack_sources, opts, "clforge_gemm_int8_pack_b", k);
}

/* op(B) copied k-contiguous into ws (packs_b), next in the chain. */
static clforge_status pack_b(clforge_context ctx, const clforge__gemm *g, cl_mem b, cl_mem ws, clforge__chain *ch) {
  cl_kernel k;
  clforge_status st = pack_kernel(ctx, g, &k);
  if (st != CLFORGE_SUCCESS) return st;
  const cl_uint kk = (cl_uint)g->k, cols = (cl_uint)g->n, ldb = (cl_uint)g->b.ld;
  const cl_ulong off = g->b.offset, stride = g->b.stride;
  cl_int err = clSetKernelArg(k, 0, sizeof kk, &kk);
  err |= clSetKernelArg(k, 1, sizeof cols, &cols);
  err |= clSetKernelArg(k, 2, sizeof b, &b);
  err |= clSetKernelArg(k, 3, sizeof off, &off);
  err |= clSetKernelArg(k, 4, sizeof ldb, &ldb);
  err |= clSetKernelArg(k, 5, sizeof stride, &stride);
  err |= clSetKernelArg(k, 6, sizeof ws, &ws);
  if (err != CL_SUCCESS) return clforge__fail_cl(ctx, err, "clSetKernelArg (" OP " pack_b)");
  const size_t global[3] = {(g->n + 15) / 16 * 16, (g->k + 15) / 16, g->batch}, local[3] = {16, 1, 1};
  return clforge__chain_launch(ctx, ch, k, 3, global, local, "clEnqueueNDRangeKernel (" OP " pack_b)");
}

/* k: the family's kernel built for q (before anything was enqueued). */
static clforge_status launch(clforge_context ctx, const clforge__gemm_q *q, const clforge_gemm_quant *quant,
                             const clforge__gemm_buffers *bf, const int *v, cl_kernel k, cl_uint nwait,
                             const cl_event *wait, cl_event *done) {
  clforge__gemm gk;
  clforge__gemm_buffers bk = *bf;
  const int pack = packs_b(ctx, &q->g, bf, v, &gk);
  cl_event busy = NULL;
  if (pack) {
    const clforge_status st = clforge__workspace_get(ctx, gk.b.extent, &bk.b, &busy);
    if (st != CLFORGE_SUCCESS) return st;
  }
  clforge__chain ch;
  clforge_status st = clforge__chain_begin(ctx, OP, &ch, nwait, wait, 1, &busy);
  if (st != CLFORGE_SUCCESS) return st;
  if (pack && (st = pack_b(ctx, &q->g, bf->b, bk.b, &ch)) != CLFORGE_SUCCESS) return clforge__chain_end(&ch, st, NULL);
  const size_t mdim = (size_t)v[GEMMI_MDIM], ndim = (size_t)v[GEMMI_NDIM];
  const cl_uint rows = (cl_uint)q->g.m, cols = (cl_uint)q->g.n;
  cl_mem rs, cs;
  scale_buffers(q, quant, &rs, &cs);
  if (!rs) rs = bf->c, cs = bf->c; /* s32 C: never read */
  const cl_ulong rso = q->row_scale_offset, cso = q->col_scale_offset;
  const cl_int rp = q->row_per, cp = q->col_per, zpa = q->zpa, zpb = q->zpb, zpc = q->zpc;
  const cl_float inv_c = q->inv_c;
  cl_int err = clSetKernelArg(k, 0, sizeof rows, &rows);
  err |= clSetKernelArg(k, 1, sizeof cols, &cols);
  err |= clforge__gemm_set_shared_args(k, 2, &gk, &bk);
  cl_uint i = 2 + 3 + 12 + 4;
  err |= clSetKernelArg(k, i++, sizeof(cl_mem), &rs);
  err |= clSetKernelArg(k, i++, sizeof rso, &rso);
  err |= clSetKernelArg(k, i++, sizeof rp, &rp);
  err |= clSetKernelArg(k, i++, sizeof(cl_mem), &cs);
  err |= clSetKernelArg(k, i++, sizeof cso, &cso);
  err |= clSetKernelArg(k, i++, sizeof cp, &cp);
  err |= clSetKernelArg(k, i++, sizeof zpa, &zpa);
  err |= clSetKernelArg(k, i++, sizeof zpb, &zpb);
  err |= clSetKernelArg(k, i++, sizeof inv_c, &inv_c);
  err |= clSetKernelArg(k, i++, sizeof zpc, &zpc);
  if (err != CL_SUCCESS) return clforge__chain_end(&ch, clforge__fail_cl(ctx, err, "clSetKernelArg (" OP ")"), NULL);
  const size_t per_m = mdim * (size_t)v[GEMMI_MWI], per_n = ndim * (size_t)v[GEMMI_NWI] * (size_t)v[GEMMI_VW];
  const size_t global[3] = {(q->g.n + per_n - 1) / per_n * ndim, (q->g.m + per_m - 1) / per_m * mdim, q->g.batch};
  const size_t local[3] = {ndim, mdim, 1};
  st = clforge__chain_launch(ctx, &ch, k, 3, global, local, "clEnqueueNDRangeKernel (" OP ")");
  /* the packed copy's workspace is busy until the GEMM has read it */
  if (st == CLFORGE_SUCCESS && pack) clforge__workspace_used(ctx, ch.last);
  return clforge__chain_end(&ch, st, done);
}

/* A host copy of operand o's elements (from 0, so the reference's offsets
 * apply). */
static clforge_status read_operand(clforge_context ctx, const clforge__gemm_operand *o, cl_mem buf, void **out) {
  if (o->extent == o->offset) {
    *out = NULL;
    return CLFORGE_SUCCESS;
  }
  return clforge__quant_read_copy(ctx, OP, buf, o->offset, o->extent - o->offset, clforge_dtype_size(o->type), out);
}

typedef struct {
  void *a, *b, *c, *bias, *as, *bs;
} copies;

static clforge_status read_inputs(clforge_context ctx, const clforge__gemm_q *q, const clforge_gemm_quant *quant,
                                  const clforge__gemm_buffers *bf, copies *h) {
  const clforge__gemm *g = &q->g;
  clforge_status st = read_operand(ctx, &g->a, bf->a, &h->a);
  if (st == CLFORGE_SUCCESS) st = read_operand(ctx, &g->b, bf->b, &h->b);
  if (st == CLFORGE_SUCCESS) st = read_operand(ctx, &g->c, bf->c, &h->c);
  if (st == CLFORGE_SUCCESS) st = read_operand(ctx, &g->bias, bf->bias, &h->bias);
  if (st == CLFORGE_SUCCESS && q->out != CLFORGE__QOUT_S32) { /* the user's a_scale and b_scale */
    const size_t na = q->row_scale_from_b ? q->col_scales : q->row_scales;
    const size_t nb = q->row_scale_from_b ? q->row_scales : q->col_scales;
    st = clforge__quant_read_copy(ctx, OP, quant->a_scale, quant->a_scale_offset, na, 4, &h->as);
    if (st == CLFORGE_SUCCESS) st = clforge__quant_read_copy(ctx, OP, quant->b_scale, quant->b_scale_offset, nb, 4, &h->bs);
  }
  return st;
}

static clforge_status validate(clforge_context ctx, const clforge_gemm_desc *desc, const clforge_gemm_quant *quant,
                               const clforge__gemm_q *q, const clforge__gemm_buffers *bf, copies *h) {
  const clforge__gemm_operand *c = &q->g.c;
  const size_t es = clforge_dtype_size(c->type), n = c->extent - c->offset;
  clforge_status st = clforge__quant_fault(ctx, OP, bf->c, c->offset * es); /* tests only */
  void *got = NULL;
  if (st == CLFORGE_SUCCESS) st = clforge__quant_read_copy(ctx, OP, bf->c, c->offset, n, es, &got);
  /* the user's A and B, as the reference takes them */
  const void *ua = q->g.swapped ? h->b : h->a, *ub = q->g.swapped ? h->a : h->b;
  if (st == CLFORGE_SUCCESS) st = clforge_ref_gemm_quantized(desc, quant, ua, ub, h->c, h->bias, h->as, h->bs);
  if (st != CLFORGE_SUCCESS && !clforge_last_error(ctx)[0])
    st = clforge__fail(ctx, st, OP " validation: the reference failed: %s", clforge_last_error(NULL));
  const int gelu = q->g.act == CLFORGE_ACT_GELU_TANH || q->g.act == CLFORGE_ACT_GELU_ERF;
  if (st == CLFORGE_SUCCESS)
    st = clforge__quant_compare(ctx, OP, "C", c->type, gelu, n, (const unsigned char *)got + c->offset * es,
                                (const unsigned char *)h->c + c->offset * es);
  free(got);
  return st;
}

/* Everything but the launch: buffers, scales, parameters, the kernel built. */
static clforge_status prepare(clforge_context ctx, const clforge__gemm_q *q, const clforge_gemm_quant *quant,
                              const clforge__gemm_buffers *bf, int *v, cl_kernel *k) {
  clforge_status st = clforge__gemm_check_buffers(ctx, &q->g, bf);
  if (st == CLFORGE_SUCCESS) st = check_scales(ctx, q, quant, bf->c);
  if (st == CLFORGE_SUCCESS) st = select_params(ctx, q, v, NULL);
  clforge__gemm gk;
  if (st == CLFORGE_SUCCESS && packs_b(ctx, &q->g, bf, v, &gk)) {
    cl_kernel pk;
    st = pack_kernel(ctx, &gk, &pk);
  }
  if (st == CLFORGE_SUCCESS)
    st = clforge__gemm_kernel(ctx, &clforge__family_gemm_int8, clforge__family_gemm_int8.kernel, v, &gk,
                              (size_t)v[GEMMI_MDIM] * (size_t)v[GEMMI_NDIM], k);
  return st;
}

clforge_status clforge__gemm_quantized_check(clforge_context ctx, const char *op, const clforge_gemm_desc *desc,
                                             const clforge_gemm_quant *quant, cl_mem a, cl_mem b, cl_mem c,
                                             cl_mem bias) {
  clforge__gemm_q q;
  clforge_status st = clforge__gemm_q_resolve(ctx, op, desc, quant, &q);
  if (st != CLFORGE_SUCCESS || q.g.m == 0 || q.g.n == 0) return st;
  const clforge__gemm_buffers bf = {q.g.swapped ? b : a, q.g.swapped ? a : b, c, bias, NULL};
  int v[CLFORGE_MAX_PARAMS];
  cl_kernel k;
  return prepare(ctx, &q, quant, &bf, v, &k);
}

clforge_status clforge_gemm_quantized(clforge_context ctx, const clforge_gemm_desc *desc,
                                      const clforge_gemm_quant *quant, cl_mem a, cl_mem b, cl_mem c, cl_mem bias,
                                      cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                                      cl_event *event) {
  clforge_status st = clforge__call_begin(ctx, OP, event);
  if (st != CLFORGE_SUCCESS) return st;
  clforge__gemm_q q;
  st = clforge__gemm_q_resolve(ctx, OP, desc, quant, &q);
  if (st == CLFORGE_SUCCESS) st = clforge__check_wait_list(ctx, OP, num_events_in_wait_list, event_wait_list);
  if (st != CLFORGE_SUCCESS) return st;
  const clforge__gemm *g = &q.g;
  if (g->m == 0 || g->n == 0) return clforge__call_marker(ctx, OP, num_events_in_wait_list, event_wait_list, event);
  const clforge__gemm_buffers bf = {g->swapped ? b : a, g->swapped ? a : b, c, bias, NULL};
  int v[CLFORGE_MAX_PARAMS];
  cl_kernel k; /* built before anything is enqueued */
  st = prepare(ctx, &q, quant, &bf, v, &k);
  if (st != CLFORGE_SUCCESS) return st;
  copies h = {NULL, NULL, NULL, NULL, NULL, NULL};
  if (ctx->validate) {
    clforge_status wst = clforge__call_await_inputs(ctx, OP, num_events_in_wait_list, event_wait_list);
    if (wst != CLFORGE_SUCCESS) return wst;
    st = read_inputs(ctx, &q, quant, &bf, &h);
  }
  cl_event done = NULL;
  if (st == CLFORGE_SUCCESS) st = launch(ctx, &q, quant, &bf, v, k, num_events_in_wait_list, event_wait_list, &done);
  if (st == CLFORGE_SUCCESS && ctx->validate) {
    st = clforge__call_await_done(ctx, OP, done);
    if (st == CLFORGE_SUCCESS) st = validate(ctx, desc, quant, &q, &bf, &h);
  }
  free(h.a), free(h.b), free(h.c), free(h.bias), free(h.as), free(h.bs);
  return clforge__call_end(st, done, event);
}
