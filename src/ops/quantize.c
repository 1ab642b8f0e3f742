/* clforge_quantize and clforge_dequantize: argument and buffer checks, the
 * quantize family's kernels (the scales' reductions first when they are
 * computed), validation against the reference bit for bit. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/context.h"
#include "../core/error.h"
#include "../families/families.h"
#include "../core/program.h"
#include "../desc/quant_desc.h"
#include "../core/validate.h"
#include "../core/workspace.h"
#include "buffer_check.h"
#include "launch_chain.h"
#include "op_call.h"

/* The buffers of one call, in the order checked and read. */
enum { BX, BQ, BSCALE, BZP, NBUF };
static const char *const buf_name[NBUF] = {"x", "q", "scale", "zero_point"};

/* Elements and element size of buffer i's range. */
static void buf_extent(const clforge__quant *d, int i, size_t *offset, size_t *count, size_t *es) {
  switch (i) {
    case BX: *offset = d->x_offset, *count = d->x_count, *es = clforge_dtype_size(d->x_type); break;
    case BQ: *offset = d->q_offset, *count = d->q_bytes, *es = 1; break;
    case BSCALE: *offset = d->scale_offset, *count = d->nscales, *es = 4; break;
    default: *offset = d->zp_offset, *count = d->nscales, *es = 4; break;
  }
}

/* Which buffers the call needs, and that each holds its range with the
 * access it needs; no two of them overlap (the one written would change
 * what another reads). */
static clforge_status check_buffers(clforge_context ctx, const char *op, const clforge__quant *d, const cl_mem *b,
                                    int quantize) {
  if (d->scheme == CLFORGE_QUANT_Q8_0) {
    if (b[BSCALE] || b[BZP])
      return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT,
                           "%s: q8_0 keeps its scales in its blocks (scale and zero_point must be NULL)", op);
  } else {
    if (!b[BSCALE]) return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: scale is NULL", op);
    if (quantize && d->compute && !b[BZP] && d->q_type == CLFORGE_U8)
      return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT,
                           "%s: u8 with computed scales writes zero points (zero_point is NULL)", op);
  }
  const int written = quantize ? (1 << BQ) | (d->compute ? (1 << BSCALE) | (1 << BZP) : 0) : (1 << BX);
  clforge__byte_range r[NBUF];
  for (int i = 0; i < NBUF; ++i) {
    if (!b[i] && i >= BSCALE) continue; /* optional (checked above) */
    size_t off, count, es;
    buf_extent(d, i, &off, &count, &es);
    const int access = (written >> i) & 1 ? CLFORGE_ACCESS_WRITE : CLFORGE_ACCESS_READ;
    clforge_status st = clforge__check_buffer(ctx, op, buf_name[i], b[i], off, count, es, access);
    if (st == CLFORGE_SUCCESS) st = clforge__buffer_range(ctx, b[i], off * es, count * es, &r[i]);
    if (st != CLFORGE_SUCCESS) return st;
    for (int j = 0; j < i; ++j)
      if (b[j] && clforge__ranges_alias(&r[i], &r[j]))
        return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: %s and %s overlap", op, buf_name[j], buf_name[i]);
  }
  return CLFORGE_SUCCESS;
}

static clforge_status get_kernel(clforge_context ctx, const char *op, const clforge__quant *d, const char *name,
                                 const int *v, cl_kernel *k) {
  char more[128];
  snprintf(more, sizeof more, "-DX_T=%d -DQ_T=%d%s", (int)d->x_type, (int)d->q_type,
           ctx->programs.fp32_div_rn ? " -cl-fp32-correctly-rounded-divide-sqrt" : "");
  return clforge__family_kernel(ctx, op, &clforge__family_quantize, name, v, more, (size_t)v[0], k);
}

static size_t round_up(size_t n, size_t m) { return (n + m - 1) / m * m; }

/* Kernel arguments in order: each (size, pointer) pair. */
static clforge_status set_args(clforge_context ctx, const char *op, cl_kernel k, int n, const size_t *sizes,
                               const void *const *vals) {
  cl_int err = CL_SUCCESS;
  for (int i = 0; i < n && err == CL_SUCCESS; ++i) err = clSetKernelArg(k, (cl_uint)i, sizes[i], vals[i]);
  return err == CL_SUCCESS ? CLFORGE_SUCCESS : clforge__fail_cl(ctx, err, op);
}

/* The scales' reductions: each row's (or column's) range into the
 * workspace, then the channels' scales and zero points from them. */
static clforge_status enqueue_params(clforge_context ctx, const clforge__quant *d, const int *v, cl_mem x, cl_mem ws,
                                     cl_mem scale, cl_mem zp, clforge__chain *ch) {
  const char *op = "quantize";
  const size_t wg = (size_t)v[0];
  const int by_cols = d->scheme == CLFORGE_QUANT_PER_COLUMN;
  cl_kernel kr, kp;
  clforge_status st = get_kernel(ctx, op, d, by_cols ? "clforge_quant_range_cols" : "clforge_quant_range_rows", v, &kr);
  if (st == CLFORGE_SUCCESS) st = get_kernel(ctx, op, d, "clforge_quant_params", v, &kp);
  if (st != CLFORGE_SUCCESS) return st;
  const cl_ulong xo = d->x_offset, ldx = d->ldx, rows = d->rows, cols = d->cols;
  if (by_cols) {
    const size_t sz[] = {sizeof(cl_mem), 8, 8, 8, 8, sizeof(cl_mem)};
    const void *val[] = {&x, &xo, &ldx, &rows, &cols, &ws};
    const size_t global = round_up(d->cols, wg);
    st = set_args(ctx, op, kr, 6, sz, val);
    if (st == CLFORGE_SUCCESS) st = clforge__chain_launch(ctx, ch, kr, 1, &global, &wg, "clEnqueueNDRangeKernel (quantize ranges)");
  } else {
    const size_t sz[] = {sizeof(cl_mem), 8, 8, 8, sizeof(cl_mem)};
    const void *val[] = {&x, &xo, &ldx, &cols, &ws};
    const size_t global = d->rows * wg;
    st = set_args(ctx, op, kr, 5, sz, val);
    if (st == CLFORGE_SUCCESS) st = clforge__chain_launch(ctx, ch, kr, 1, &global, &wg, "clEnqueueNDRangeKernel (quantize ranges)");
  }
  if (st != CLFORGE_SUCCESS) return st;
  const cl_ulong parts = d->scheme == CLFORGE_QUANT_PER_TENSOR ? d->rows : 1, nchan = d->nscales;
  const cl_ulong so = d->scale_offset, zo = d->zp_offset;
  const cl_int has_zp = zp != NULL;
  const cl_mem zb = zp ? zp : scale; /* never written without has_zp */
  const size_t sz[] = {sizeof(cl_mem), 8, 8, sizeof(cl_mem), 8, sizeof(cl_mem), 8, sizeof(cl_int)};
  const void *val[] = {&ws, &parts, &nchan, &scale, &so, &zb, &zo, &has_zp};
  const size_t global = round_up(d->nscales, wg);
  st = set_args(ctx, op, kp, 8, sz, val);
  return st == CLFORGE_SUCCESS ? clforge__chain_launch(ctx, ch, kp, 1, &global, &wg, "clEnqueueNDRangeKernel (quantize scales)") : st;
}

/* The elementwise pass: quantize or dequantize, plain or q8_0. */
static clforge_status enqueue_main(clforge_context ctx, const char *op, const clforge__quant *d, const int *v,
                                   int quantize, cl_mem x, cl_mem q, cl_mem scale, cl_mem zp, clforge__chain *ch) {
  const size_t wg = (size_t)v[0];
  const int q8 = d->scheme == CLFORGE_QUANT_Q8_0;
  const char *name = q8 ? (quantize ? "clforge_q8_0_quantize" : "clforge_q8_0_dequantize")
                        : (quantize ? "clforge_quantize" : "clforge_dequantize");
  cl_kernel k;
  clforge_status st = get_kernel(ctx, op, d, name, v, &k);
  if (st != CLFORGE_SUCCESS) return st;
  const cl_ulong xo = d->x_offset, ldx = d->ldx, qo = d->q_offset, ldq = d->ldq, cols = d->cols;
  const cl_ulong nblocks = d->cols / CLFORGE__Q8_0_BLOCK, so = d->scale_offset, zo = d->zp_offset;
  const cl_int has_zp = zp != NULL, srow = d->srow, scol = d->scol;
  const cl_mem sb = scale ? scale : q, zb = zp ? zp : sb; /* stand-ins never read */
  /* quantize: (x, xo, ldx, q, qo, ldq, ...); dequantize: (q, qo, ldq, x, xo, ldx, ...) */
  const void *first[6] = {&x, &xo, &ldx, &q, &qo, &ldq};
  const void *dfirst[6] = {&q, &qo, &ldq, &x, &xo, &ldx};
  const void *val[14];
  size_t sz[14];
  for (int i = 0; i < 6; ++i) val[i] = quantize ? first[i] : dfirst[i], sz[i] = i % 3 == 0 ? sizeof(cl_mem) : 8;
  int n = 7;
  val[6] = q8 && quantize ? (const void *)&nblocks : (const void *)&cols, sz[6] = 8;
  if (!q8) {
    const void *rest[] = {&sb, &so, &zb, &zo, &has_zp, &srow, &scol};
    const size_t rsz[] = {sizeof(cl_mem), 8, sizeof(cl_mem), 8, sizeof(cl_int), sizeof(cl_int), sizeof(cl_int)};
    for (int i = 0; i < 7; ++i) val[n + i] = rest[i], sz[n + i] = rsz[i];
    n += 7;
  }
  st = set_args(ctx, op, k, n, sz, val);
  const size_t global[2] = {round_up(q8 && quantize ? (size_t)nblocks : d->cols, wg), d->rows}, local[2] = {wg, 1};
  char what[64];
  snprintf(what, sizeof what, "clEnqueueNDRangeKernel (%s)", op);
  return st == CLFORGE_SUCCESS ? clforge__chain_launch(ctx, ch, k, 2, global, local, what) : st;
}

/* A host copy of buffer i's range, placed at its offset (the reference
 * indexes from the buffer's start). */
static clforge_status read_copy(clforge_context ctx, const clforge__quant *d, int i, cl_mem b, void **out) {
  size_t off, count, es;
  buf_extent(d, i, &off, &count, &es);
  *out = calloc(off + count + 1, es);
  if (!*out) return clforge__fail(ctx, CLFORGE_OUT_OF_HOST_MEMORY, "validation: no memory for %s", buf_name[i]);
  return clforge__read_buffer(ctx, b, off * es, count * es, (char *)*out + off * es);
}

/* Bytes [off, off + n) of got and want equal, or a validation failure
 * naming the first difference. */
static clforge_status same_bytes(clforge_context ctx, const char *op, const char *what, const void *got,
                                 const void *want, size_t off, size_t n) {
  const unsigned char *g = got, *w = want;
  for (size_t i = off; i < off + n; ++i)
    if (g[i] != w[i])
      return clforge__fail(ctx, CLFORGE_VALIDATION_FAILED,
                           "%s: validation failed: %s byte %zu is 0x%02x, the reference's 0x%02x", op, what, i - off,
                           g[i], w[i]);
  return CLFORGE_SUCCESS;
}

/* Validation: the reference on the inputs as they were (h[]), compared
 * with what the device wrote. */
static clforge_status validate(clforge_context ctx, const char *op, const clforge_quant_desc *desc,
                               const clforge__quant *d, int quantize, const cl_mem *b, void **h) {
  if (clforge__test_fault_armed(ctx, op)) { /* tests only: make the device result wrong */
    const int i = quantize ? BQ : BX;
    size_t off, count, es;
    buf_extent(d, i, &off, &count, &es);
    unsigned char byte;
    clforge_status r = clforge__read_buffer(ctx, b[i], off * es, 1, &byte);
    byte ^= 0x01;
    cl_int err = r == CLFORGE_SUCCESS ? clEnqueueWriteBuffer(ctx->queue, b[i], CL_TRUE, off * es, 1, &byte, 0, NULL, NULL)
                                      : CL_SUCCESS;
    if (r != CLFORGE_SUCCESS) return r;
    if (err != CL_SUCCESS) return clforge__fail_cl(ctx, err, "test fault injection");
  }
  void *got[NBUF] = {NULL};
  const int outs[3] = {quantize ? BQ : BX, quantize && d->compute ? BSCALE : -1, quantize && d->compute ? BZP : -1};
  clforge_status st = CLFORGE_SUCCESS;
  for (int j = 0; j < 3 && st == CLFORGE_SUCCESS; ++j)
    if (outs[j] >= 0 && b[outs[j]]) st = read_copy(ctx, d, outs[j], b[outs[j]], &got[outs[j]]);
  /* the reference writes into the inputs' copies of the outputs, which
   * start as the device's (gaps between rows compare equal) */
  for (int j = 0; j < 3 && st == CLFORGE_SUCCESS; ++j) {
    const int i = outs[j];
    if (i < 0 || !b[i]) continue;
    size_t off, count, es;
    buf_extent(d, i, &off, &count, &es);
    memcpy(h[i], got[i], (off + count) * es);
  }
  if (st == CLFORGE_SUCCESS)
    st = quantize ? clforge_ref_quantize(desc, h[BX], h[BQ], (float *)h[BSCALE], (int32_t *)h[BZP])
                  : clforge_ref_dequantize(desc, h[BQ], (const float *)h[BSCALE], (const int32_t *)h[BZP], h[BX]);
  if (st != CLFORGE_SUCCESS && clforge_last_error(ctx)[0] == '\0')
    st = clforge__fail(ctx, st, "%s validation: the reference failed: %s", op, clforge_last_error(NULL));
  for (int j = 0; j < 3 && st == CLFORGE_SUCCESS; ++j) {
    const int i = outs[j];
    if (i < 0 || !b[i]) continue;
    size_t off, count, es;
    buf_extent(d, i, &off, &count, &es);
    if (i == BX) /* floats: NaN payloads aside, exact (one rounding each) */
      st = clforge__validate(ctx, op, d->x_type, count, (char *)got[i] + off * es, (char *)h[i] + off * es,
                             clforge__tolerance_exact());
    else
      st = same_bytes(ctx, op, buf_name[i], got[i], h[i], off * es, count * es);
  }
  for (int i = 0; i < NBUF; ++i) free(got[i]);
  return st;
}

static clforge_status run(clforge_context ctx, const char *op, const clforge_quant_desc *desc, int quantize, cl_mem x,
                          cl_mem q, cl_mem scale, cl_mem zp, cl_uint nwait, const cl_event *wait, cl_event *event) {
  clforge_status st = clforge__call_begin(ctx, op, event);
  if (st != CLFORGE_SUCCESS) return st;
  clforge__quant d;
  st = clforge__quant_resolve(ctx, op, desc, quantize, &d);
  if (st == CLFORGE_SUCCESS) st = clforge__check_wait_list(ctx, op, nwait, wait);
  if (st != CLFORGE_SUCCESS) return st;
  if (d.rows == 0 || d.cols == 0) return clforge__call_marker(ctx, op, nwait, wait, event);
  const cl_mem b[NBUF] = {x, q, scale, zp};
  st = check_buffers(ctx, op, &d, b, quantize);
  int v[CLFORGE_MAX_PARAMS];
  if (st == CLFORGE_SUCCESS) st = clforge__family_select(ctx, &clforge__family_quantize, 0, NULL, v, NULL);
  cl_kernel k; /* every kernel of the call built before anything is enqueued */
  if (st == CLFORGE_SUCCESS) st = get_kernel(ctx, op, &d, "clforge_quantize", v, &k);
  if (st != CLFORGE_SUCCESS) return st;
  const int params = quantize && d.compute;
  cl_mem ws = NULL;
  cl_event busy = NULL;
  if (params) {
    const size_t nranges = d.scheme == CLFORGE_QUANT_PER_COLUMN ? d.cols : d.rows;
    if (nranges > SIZE_MAX / 8) return clforge__fail(ctx, CLFORGE_SIZE_OVERFLOW, "%s: %zu ranges overflow", op, nranges);
    st = clforge__workspace_get(ctx, nranges * 8, &ws, &busy);
    if (st != CLFORGE_SUCCESS) return st;
  }
  void *h[NBUF] = {NULL};
  if (ctx->validate) { /* inputs as they are when the kernels will run */
    st = clforge__call_await_inputs(ctx, op, nwait, wait);
    if (st != CLFORGE_SUCCESS) return st;
    for (int i = 0; i < NBUF && st == CLFORGE_SUCCESS; ++i)
      if (b[i]) st = read_copy(ctx, &d, i, b[i], &h[i]);
  }
  clforge__chain ch = {NULL, 0, NULL};
  if (st == CLFORGE_SUCCESS) st = clforge__chain_begin(ctx, op, &ch, nwait, wait, 1, &busy);
  if (st == CLFORGE_SUCCESS && params) st = enqueue_params(ctx, &d, v, x, ws, scale, zp, &ch);
  if (ws && ch.last) clforge__workspace_used(ctx, ch.last);
  if (st == CLFORGE_SUCCESS) st = enqueue_main(ctx, op, &d, v, quantize, x, q, scale, zp, &ch);
  if (st == CLFORGE_SUCCESS && ctx->validate) {
    st = clforge__call_await_done(ctx, op, ch.last);
    if (st == CLFORGE_SUCCESS) st = validate(ctx, op, desc, &d, quantize, b, h);
  }
  for (int i = 0; i < NBUF; ++i) free(h[i]);
  return clforge__chain_end(&ch, st, event);
}

clforge_status clforge_quantize(clforge_context ctx, const clforge_quant_desc *desc, cl_mem x, cl_mem q, cl_mem scale,
                                cl_mem zero_point, cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                                cl_event *event) {
  return run(ctx, "quantize", desc, 1, x, q, scale, zero_point, num_events_in_wait_list, event_wait_list, event);
}

clforge_status clforge_dequantize(clforge_context ctx, const clforge_quant_desc *desc, cl_mem q, cl_mem scale,
                                  cl_mem zero_point, cl_mem x, cl_uint num_events_in_wait_list,
                                  const cl_event *event_wait_list, cl_event *event) {
  return run(ctx, "dequantize", desc, 0, x, q, scale, zero_point, num_events_in_wait_list, event_wait_list, event);
}
