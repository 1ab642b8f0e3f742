/* clforge_cross_entropy and its explain: argument, buffer and overlap
 * checks, the cross_entropy family's parameters, the launches of
 * cl/cross_entropy.cl (count, rows, reduction, chained by events), scratch
 * from the context, and validation mode. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/context.h"
#include "../desc/cross_entropy_desc.h"
#include "../core/error.h"
#include "../families/cross_entropy.h"
#include "../families/families.h"
#include "../core/program.h"
#include "../ref/compare.h"
#include "../core/validate.h"
#include "../core/workspace.h"
#include "buffer_check.h"
#include "softmax_common.h"
#include "launch_chain.h"
#include "op_call.h"

typedef struct {
  int v[CLFORGE_MAX_PARAMS];
  clforge_kernel_choice choice;
} plan;

/* The family's values for d: tuning key "logits,dlogits" / "rows" / the class. */
static clforge_status make_plan(clforge_context ctx, const clforge__ce *d, plan *p) {
  memset(p, 0, sizeof *p);
  char dtypes[32];
  clforge__ce_dtypes_key(d, dtypes, sizeof dtypes);
  clforge__problem_key key = {dtypes, "rows", clforge__ce_shape_class(d->rows, d->n), CLFORGE_CE_NDIMS,
                              {d->rows, d->n}, CLFORGE_COMPUTE_DEFAULT};
  clforge_status st = clforge__family_select(ctx, &clforge__family_cross_entropy, d->n <= 512 ? CE_VAR_SHORT : 0,
                                             &key, p->v, &p->choice);
  if (st == CLFORGE_SUCCESS)
    snprintf(p->choice.route, sizeof p->choice.route, "rows of %zu: class %s", d->n, key.shape_class);
  return st;
}

/* ----------------------------------------------------------------- checks */

typedef struct {
  cl_mem logits, targets, loss, dlogits, gscale;
} ce_buffers;

static clforge_status byte_range(clforge_context ctx, cl_mem buf, size_t offset, size_t extent, size_t es,
                                 clforge__byte_range *r) {
  return clforge__buffer_range(ctx, buf, offset * es, (extent - offset) * es, r);
}

/* dlogits is logits exactly (in place) or shares no byte with it. */
static clforge_status check_in_place(clforge_context ctx, const clforge__ce *d, cl_mem logits, cl_mem dlogits) {
  clforge__byte_range rz, rd;
  clforge_status st = byte_range(ctx, logits, d->logits.offset, d->logits.extent, clforge_dtype_size(d->logits.type), &rz);
  if (st == CLFORGE_SUCCESS)
    st = byte_range(ctx, dlogits, d->dlogits.offset, d->dlogits.extent, clforge_dtype_size(d->dlogits.type), &rd);
  if (st != CLFORGE_SUCCESS || rz.root != rd.root) return st;
  clforge__footprint fz = clforge__ce_footprint(d, &d->logits), fd = clforge__ce_footprint(d, &d->dlogits);
  fz.begin = rz.begin, fd.begin = rd.begin;
  if (!clforge__footprints_overlap(&fz, &fd)) return CLFORGE_SUCCESS;
  if (rz.begin == rd.begin && d->logits.type == d->dlogits.type && d->logits.stride == d->dlogits.stride)
    return CLFORGE_SUCCESS;
  return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT,
                       "cross_entropy: dlogits overlaps logits without being the same elements (in place needs the "
                       "same buffer bytes, dtype and row stride)");
}

static clforge_status check_buffers(clforge_context ctx, const clforge__ce *d, const ce_buffers *b) {
  const char *op = "cross_entropy";
  clforge_status st = clforge__check_buffer(ctx, op, "logits", b->logits, d->logits.offset,
                                            d->logits.extent - d->logits.offset, clforge_dtype_size(d->logits.type),
                                            CLFORGE_ACCESS_READ);
  if (st == CLFORGE_SUCCESS)
    st = clforge__check_buffer(ctx, op, "targets", b->targets, d->targets_offset, d->rows, 4, CLFORGE_ACCESS_READ);
  if (st == CLFORGE_SUCCESS && b->loss)
    st = clforge__check_buffer(ctx, op, "loss", b->loss, d->loss_offset, d->loss_extent - d->loss_offset, 4,
                               CLFORGE_ACCESS_WRITE);
  if (st == CLFORGE_SUCCESS && b->dlogits)
    st = clforge__check_buffer(ctx, op, "dlogits", b->dlogits, d->dlogits.offset, d->dlogits.extent - d->dlogits.offset,
                               clforge_dtype_size(d->dlogits.type), CLFORGE_ACCESS_WRITE);
  if (st == CLFORGE_SUCCESS && b->gscale)
    st = clforge__check_buffer(ctx, op, "grad_scale", b->gscale, d->gscale_offset, 1, 4, CLFORGE_ACCESS_READ);
  if (st != CLFORGE_SUCCESS) return st;
  /* The outputs share no byte with anything else (but dlogits in place). */
  clforge__byte_range r[5];
  const char *names[5] = {"logits", "targets", "grad_scale", "loss", "dlogits"};
  const cl_mem bufs[5] = {b->logits, b->targets, b->gscale, b->loss, b->dlogits};
  const size_t offs[5] = {d->logits.offset, d->targets_offset, d->gscale_offset, d->loss_offset, d->dlogits.offset};
  const size_t exts[5] = {d->logits.extent, d->targets_offset + d->rows, d->gscale_offset + 1, d->loss_extent,
                          d->dlogits.extent};
  const size_t es[5] = {clforge_dtype_size(d->logits.type), 4, 4, 4, clforge_dtype_size(d->dlogits.type)};
  for (int i = 0; i < 5 && st == CLFORGE_SUCCESS; ++i)
    if (bufs[i]) st = byte_range(ctx, bufs[i], offs[i], exts[i], es[i], &r[i]);
  for (int o = 3; o < 5 && st == CLFORGE_SUCCESS; ++o)
    for (int i = 0; i < o && bufs[o] && st == CLFORGE_SUCCESS; ++i) {
      if (!bufs[i] || (o == 4 && i == 0)) continue; /* dlogits over logits: below */
      if (clforge__ranges_alias(&r[o], &r[i]))
        st = clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "cross_entropy: %s overlaps %s (they share bytes of one buffer)",
                           names[o], names[i]);
    }
  if (st == CLFORGE_SUCCESS && b->dlogits) st = check_in_place(ctx, d, b->logits, b->dlogits);
  return st;
}

/* ----------------------------------------------------------------- launch */

static clforge_status get_kernels(clforge_context ctx, const clforge__ce *d, const plan *p, int dz, cl_kernel k[3]) {
  const clforge__family *f = &clforge__family_cross_entropy;
  /* RPI is the host's: every value builds as 1, one program for all */
  int v[CLFORGE_MAX_PARAMS];
  memcpy(v, p->v, sizeof v);
  v[CE_RPI] = 1;
  char more[160];
  snprintf(more, sizeof more, "-DZ_T=%d -DDZ_T=%d -DHAS_DZ=%d -DMEAN=%d", (int)d->logits.type, (int)d->dlogits.type,
           dz, dz && d->reduction == CLFORGE_REDUCTION_MEAN);
  clforge_status st = clforge__family_kernel(ctx, "cross_entropy", f, f->kernel, v, more,
                                             (size_t)v[CE_WG] * (size_t)v[CE_RPW], &k[0]);
  if (st == CLFORGE_SUCCESS)
    st = clforge__family_kernel(ctx, "cross_entropy", f, "clforge_ce_count", v, more, CLFORGE_CE_RWG, &k[1]);
  if (st == CLFORGE_SUCCESS)
    st = clforge__family_kernel(ctx, "cross_entropy", f, "clforge_ce_reduce", v, more, CLFORGE_CE_RWG, &k[2]);
  return st;
}

#define ARG(k, i, v) (err == CL_SUCCESS ? (err = clSetKernelArg(k, i, sizeof(v), &(v))) : err)

/* count (MEAN with dlogits) -> rows -> reduce (MEAN, SUM) on the chain. */
static clforge_status enqueue(clforge_context ctx, const clforge__ce *d, const plan *p, cl_kernel k[3],
                              const ce_buffers *b, cl_mem ws, clforge__chain *ch) {
  const int reduce = d->reduction != CLFORGE_REDUCTION_NONE && b->loss;
  const int count = d->reduction == CLFORGE_REDUCTION_MEAN && (b->dlogits || b->loss);
  const cl_ulong rows = d->rows, t_off = d->targets_offset, z_off = d->logits.offset, z_stride = d->logits.stride;
  const cl_ulong dz_off = d->dlogits.offset, dz_stride = d->dlogits.stride, gs_off = d->gscale_offset;
  const cl_ulong loss_off = d->reduction == CLFORGE_REDUCTION_NONE ? d->loss_offset : 1, out_off = d->loss_offset;
  const cl_uint n = (cl_uint)d->n;
  const cl_int use_ignore = d->use_ignore, ignore = d->ignore_index, mean = d->reduction == CLFORGE_REDUCTION_MEAN;
  const float g = d->grad_scale, smoothing = d->smoothing;
  const cl_mem loss_rows = d->reduction == CLFORGE_REDUCTION_NONE ? b->loss : (reduce ? ws : NULL);
  const cl_mem cnt = count ? ws : NULL;
  cl_int err = CL_SUCCESS;
  clforge_status st = CLFORGE_SUCCESS;
  const size_t one[1] = {CLFORGE_CE_RWG};
  if (count) {
    ARG(k[1], 0, b->targets), ARG(k[1], 1, t_off), ARG(k[1], 2, rows), ARG(k[1], 3, use_ignore);
    ARG(k[1], 4, ignore), ARG(k[1], 5, ws);
    st = err != CL_SUCCESS ? clforge__fail_cl(ctx, err, "clSetKernelArg (cross_entropy count)")
                           : clforge__chain_launch(ctx, ch, k[1], 1, one, one,
                                                   "clEnqueueNDRangeKernel (cross_entropy count)");
  }
  if (st == CLFORGE_SUCCESS) {
    cl_uint a = 0;
    ARG(k[0], a++, b->logits), ARG(k[0], a++, z_off), ARG(k[0], a++, z_stride), ARG(k[0], a++, b->targets);
    ARG(k[0], a++, t_off), ARG(k[0], a++, b->dlogits), ARG(k[0], a++, dz_off), ARG(k[0], a++, dz_stride);
    ARG(k[0], a++, loss_rows), ARG(k[0], a++, loss_off), ARG(k[0], a++, cnt), ARG(k[0], a++, b->gscale);
    ARG(k[0], a++, gs_off), ARG(k[0], a++, g), ARG(k[0], a++, rows), ARG(k[0], a++, n), ARG(k[0], a++, smoothing);
    size_t global[2], local[2];
    cl_uint rpi;
    clforge__softmax_grid(ctx, d->rows, p->v[CE_WG], p->v[CE_RPW], p->v[CE_RPI], global, local, &rpi);
    ARG(k[0], a++, use_ignore), ARG(k[0], a++, ignore), ARG(k[0], a++, rpi);
    st = err != CL_SUCCESS ? clforge__fail_cl(ctx, err, "clSetKernelArg (cross_entropy)")
                           : clforge__chain_launch(ctx, ch, k[0], 2, global, local,
                                                   "clEnqueueNDRangeKernel (cross_entropy)");
  }
  if (st == CLFORGE_SUCCESS && reduce) {
    ARG(k[2], 0, ws), ARG(k[2], 1, rows), ARG(k[2], 2, mean), ARG(k[2], 3, b->loss), ARG(k[2], 4, out_off);
    st = err != CL_SUCCESS ? clforge__fail_cl(ctx, err, "clSetKernelArg (cross_entropy reduce)")
                           : clforge__chain_launch(ctx, ch, k[2], 1, one, one,
                                                   "clEnqueueNDRangeKernel (cross_entropy reduce)");
  }
  return st;
}

#undef ARG

/* ------------------------------------------------------------- validation */

typedef struct {
  void *logits, *dlogits;
  int32_t *targets;
  float *loss, *gscale;
} host_copies;

static void free_copies(host_copies *h) {
  free(h->logits), free(h->dlogits), free(h->targets), free(h->loss), free(h->gscale);
}

static clforge_status read_copy(clforge_context ctx, cl_mem buf, size_t bytes, void **out) {
  *out = malloc(bytes ? bytes : 1);
  if (!*out) return clforge__fail(ctx, CLFORGE_OUT_OF_HOST_MEMORY, "cross_entropy validation: no memory");
  return bytes ? clforge__read_buffer(ctx, buf, 0, bytes, *out) : CLFORGE_SUCCESS;
}

static clforge_status read_copies(clforge_context ctx, const clforge__ce *d, const ce_buffers *b, host_copies *h) {
  const size_t zs = clforge_dtype_size(d->logits.type), ds = clforge_dtype_size(d->dlogits.type);
  clforge_status st = read_copy(ctx, b->logits, d->logits.extent * zs, &h->logits);
  if (st == CLFORGE_SUCCESS) st = read_copy(ctx, b->targets, (d->targets_offset + d->rows) * 4, (void **)&h->targets);
  if (st == CLFORGE_SUCCESS && b->gscale) st = read_copy(ctx, b->gscale, (d->gscale_offset + 1) * 4, (void **)&h->gscale);
  if (st == CLFORGE_SUCCESS && b->loss) st = read_copy(ctx, b->loss, d->loss_extent * 4, (void **)&h->loss);
  if (st == CLFORGE_SUCCESS && b->dlogits) st = read_copy(ctx, b->dlogits, d->dlogits.extent * ds, &h->dlogits);
  return st;
}

/* One output against its reference copy (the whole buffer up to its
 * extent: elements the op does not write must be unchanged). */
static clforge_status compare(clforge_context ctx, cl_mem buf, clforge_dtype t, size_t n, const void *want) {
  void *got = malloc(n * clforge_dtype_size(t));
  if (!got) return clforge__fail(ctx, CLFORGE_OUT_OF_HOST_MEMORY, "cross_entropy validation: no memory");
  clforge_status st = clforge__read_buffer(ctx, buf, 0, n * clforge_dtype_size(t), got);
  if (st == CLFORGE_SUCCESS) st = clforge__validate(ctx, "cross_entropy", t, n, got, want, clforge__tolerance_for(t));
  free(got);
  return st;
}

static clforge_status validate(clforge_context ctx, const clforge_cross_entropy_desc *desc, const clforge__ce *d,
                               const ce_buffers *b, host_copies *h) {
  /* tests only: the hook spoils dlogits where there are, else the loss */
  clforge_status st = b->dlogits ? clforge__test_fault_apply(ctx, "cross_entropy", b->dlogits, d->dlogits.offset,
                                                             d->dlogits.type)
                                 : clforge__test_fault_apply(ctx, "cross_entropy", b->loss, d->loss_offset, CLFORGE_F32);
  if (st == CLFORGE_SUCCESS)
    st = clforge_ref_cross_entropy(desc, h->logits, h->targets, b->loss ? h->loss : NULL,
                                   b->dlogits ? h->dlogits : NULL, h->gscale);
  if (st == CLFORGE_SUCCESS && b->loss) st = compare(ctx, b->loss, CLFORGE_F32, d->loss_extent, h->loss);
  if (st == CLFORGE_SUCCESS && b->dlogits) st = compare(ctx, b->dlogits, d->dlogits.type, d->dlogits.extent, h->dlogits);
  return st;
}

/* ------------------------------------------------------------------- call */

/* No rows: MEAN's NaN or SUM's 0 in the loss (NONE has nothing to write). */
static clforge_status no_rows(clforge_context ctx, const clforge__ce *d, cl_mem loss, cl_uint nwait,
                              const cl_event *wait, cl_event *event) {
  cl_int err;
  if (loss && d->reduction != CLFORGE_REDUCTION_NONE) {
    const float v = d->reduction == CLFORGE_REDUCTION_MEAN ? NAN : 0.0f;
    err = clEnqueueFillBuffer(ctx->queue, loss, &v, sizeof v, d->loss_offset * 4, 4, nwait, wait, event);
    return err == CL_SUCCESS ? CLFORGE_SUCCESS : clforge__fail_cl(ctx, err, "clEnqueueFillBuffer (cross_entropy)");
  }
  return clforge__call_marker(ctx, "cross_entropy", nwait, wait, event);
}

clforge_status clforge_cross_entropy(clforge_context ctx, const clforge_cross_entropy_desc *desc, cl_mem logits,
                                     cl_mem targets, cl_mem loss, cl_mem dlogits, cl_mem grad_scale,
                                     cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                                     cl_event *event) {
  clforge_status st = clforge__call_begin(ctx, "cross_entropy", event);
  if (st != CLFORGE_SUCCESS) return st;
  clforge__ce d;
  st = clforge__ce_resolve(ctx, desc, &d);
  if (st == CLFORGE_SUCCESS) st = clforge__check_wait_list(ctx, "cross_entropy", num_events_in_wait_list, event_wait_list);
  if (st == CLFORGE_SUCCESS && !loss && !dlogits)
    st = clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "cross_entropy: loss and dlogits are both NULL (nothing to do)");
  if (st != CLFORGE_SUCCESS) return st;
  if (!d.rows) {
    if (loss && d.reduction != CLFORGE_REDUCTION_NONE)
      st = clforge__check_buffer(ctx, "cross_entropy", "loss", loss, d.loss_offset, 1, 4, CLFORGE_ACCESS_WRITE);
    return st == CLFORGE_SUCCESS ? no_rows(ctx, &d, loss, num_events_in_wait_list, event_wait_list, event) : st;
  }
  const ce_buffers b = {logits, targets, loss, dlogits, grad_scale};
  st = check_buffers(ctx, &d, &b);
  plan p;
  if (st == CLFORGE_SUCCESS) st = make_plan(ctx, &d, &p);
  cl_kernel k[3] = {NULL, NULL, NULL};
  if (st == CLFORGE_SUCCESS) st = get_kernels(ctx, &d, &p, dlogits != NULL, k);
  if (st != CLFORGE_SUCCESS) return st;
  /* scratch: the count and the rows' losses */
  cl_mem ws = NULL;
  cl_event busy = NULL;
  if (d.reduction != CLFORGE_REDUCTION_NONE) {
    const size_t need = (d.rows + 1) * sizeof(float);
    if (need > clforge__workspace_cap(ctx))
      return clforge__fail(ctx, CLFORGE_OUT_OF_DEVICE_MEMORY,
                           "cross_entropy: %zu rows need %zu bytes of scratch, above the bound of %zu", d.rows, need,
                           clforge__workspace_cap(ctx));
    st = clforge__workspace_get(ctx, need, &ws, &busy);
    if (st != CLFORGE_SUCCESS) return st;
  }
  host_copies h;
  memset(&h, 0, sizeof h);
  if (ctx->validate) { /* the inputs (and the outputs as they were) when the kernels run */
    st = clforge__call_await_inputs(ctx, "cross_entropy", num_events_in_wait_list, event_wait_list);
    if (st == CLFORGE_SUCCESS) st = read_copies(ctx, &d, &b, &h);
    if (st != CLFORGE_SUCCESS) {
      free_copies(&h);
      return st;
    }
  }
  clforge__chain ch; /* the caller's list and the workspace's last user */
  st = clforge__chain_begin(ctx, "cross_entropy", &ch, num_events_in_wait_list, event_wait_list, 1, &busy);
  if (st == CLFORGE_SUCCESS) st = enqueue(ctx, &d, &p, k, &b, ws, &ch);
  if (st == CLFORGE_SUCCESS && ws) clforge__workspace_used(ctx, ch.last);
  if (st == CLFORGE_SUCCESS && ctx->validate) {
    st = clforge__call_await_done(ctx, "cross_entropy", ch.last);
    if (st == CLFORGE_SUCCESS) st = validate(ctx, desc, &d, &b, &h);
  }
  free_copies(&h);
  return clforge__chain_end(&ch, st, event);
}

clforge_status clforge_cross_entropy_explain(clforge_context ctx, const clforge_cross_entropy_desc *desc,
                                             clforge_kernel_choice *choice) {
  clforge_status st = clforge__query_begin(ctx, "cross_entropy_explain", choice, "choice");
  if (st != CLFORGE_SUCCESS) return st;
  clforge__ce d;
  st = clforge__ce_resolve(ctx, desc, &d);
  plan p;
  if (st == CLFORGE_SUCCESS) st = make_plan(ctx, &d, &p);
  if (st == CLFORGE_SUCCESS) *choice = p.choice;
  return st;
}
