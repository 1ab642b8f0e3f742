/* clforge_optimizer_step and its explain: argument, buffer and overlap
 * checks over every tensor, the optimizer family's parameters per tensor,
 * the chain of launches of cl/optimizer.cl (reset, checks, updates,
 * finish) and validation mode. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/context.h"
#include "../core/error.h"
#include "../families/families.h"
#include "../families/optimizer.h"
#include "../desc/optimizer_desc.h"
#include "../core/program.h"
#include "../ref/compare.h"
#include "../core/reserved.h"
#include "../core/validate.h"
#include "buffer_check.h"
#include "launch_chain.h"
#include "op_call.h"

enum { NBUF = 5 }; /* param, master, grad, m, v */
static const char *const buf_names[NBUF] = {"param", "master", "grad", "m", "v"};

static cl_mem buf_of(const clforge_optimizer_tensor *t, int b) {
  const cl_mem m[NBUF] = {t->param, t->master, t->grad, t->m, t->v};
  return m[b];
}

static size_t offset_of(const clforge_optimizer_tensor *t, int b) {
  const size_t o[NBUF] = {t->param_offset, t->master_offset, t->grad_offset, t->m_offset, t->v_offset};
  return o[b];
}

static size_t elem_size(const clforge__opt_tensor *r, int b) {
  return b == 0 ? clforge_dtype_size(r->param_type) : b == 2 ? clforge_dtype_size(r->grad_type) : 4;
}

/* Which buffers of a tensor the step uses (grad is read, the rest written). */
static int used(const clforge__opt_tensor *r, int b) {
  return b == 0 || b == 2 || (b == 1 && r->has_master) || (b == 3 && r->has_m) || (b == 4 && r->has_v);
}

typedef struct {
  int v[CLFORGE_MAX_PARAMS];
  clforge_kernel_choice choice;
} plan;

static clforge_status make_plan(clforge_context ctx, const clforge__opt *d, const clforge__opt_tensor *r, size_t count,
                                plan *p) {
  memset(p, 0, sizeof *p);
  char dtypes[32];
  snprintf(dtypes, sizeof dtypes, "%s,%s", clforge_dtype_name(r->param_type), clforge_dtype_name(r->grad_type));
  clforge__problem_key key = {dtypes, d->kind == CLFORGE_OPTIMIZER_ADAMW ? "adamw" : "sgd",
                              clforge__opt_shape_class(count), CLFORGE_OPT_NDIMS, {count}, CLFORGE_COMPUTE_DEFAULT};
  clforge_status st = clforge__family_select(ctx, &clforge__family_optimizer, 0, &key, p->v, &p->choice);
  if (st == CLFORGE_SUCCESS)
    snprintf(p->choice.route, sizeof p->choice.route, "%zu elements: class %s", count, key.shape_class);
  return st;
}

/* ----------------------------------------------------------------- checks */

typedef struct {
  clforge__byte_range r;
  size_t tensor;
  int buf, written;
} placed;

/* Every tensor resolved (r[i]) and its buffers checked; no written range
 * shares a byte with any other (a tensor's f32 param may be its master,
 * exactly), nor with the state. */
static clforge_status check_tensors(clforge_context ctx, const clforge__opt *d, size_t n,
                                    const clforge_optimizer_tensor *ts, cl_mem state, clforge__opt_tensor *r) {
  const char *op = "optimizer_step";
  placed *p = malloc((n * NBUF + 1) * sizeof *p);
  if (!p) return clforge__fail(ctx, CLFORGE_OUT_OF_HOST_MEMORY, "%s: no memory for the overlap check", op);
  size_t np = 0;
  clforge_status st = clforge__buffer_range(ctx, state, d->state_offset, sizeof(clforge_train_state), &p[np].r);
  p[np].tensor = n, p[np].buf = -1, p[np++].written = 1;
  for (size_t i = 0; i < n && st == CLFORGE_SUCCESS; ++i) {
    const clforge_optimizer_tensor *t = &ts[i];
    char what[32];
    snprintf(what, sizeof what, "tensors[%zu]", i);
    st = clforge__check_reserved_ptrs(ctx, op, "clforge_optimizer_tensor.reserved", t->reserved,
                                      CLFORGE_COUNT_OF(t->reserved));
    if (st == CLFORGE_SUCCESS)
      st = clforge__opt_tensor_resolve(ctx, d, what, t->count, t->param_type, t->grad_type, t->param != NULL,
                                       t->master != NULL, t->grad != NULL, t->m != NULL, t->v != NULL, &r[i]);
    for (int b = 0; b < NBUF && st == CLFORGE_SUCCESS; ++b) {
      if (!used(&r[i], b)) continue;
      char name[48];
      snprintf(name, sizeof name, "%s.%s", what, buf_names[b]);
      st = clforge__check_buffer(ctx, op, name, buf_of(t, b), offset_of(t, b), t->count, elem_size(&r[i], b),
                                 b == 2 ? CLFORGE_ACCESS_READ : CLFORGE_ACCESS_READ | CLFORGE_ACCESS_WRITE);
      if (st == CLFORGE_SUCCESS)
        st = clforge__buffer_range(ctx, buf_of(t, b), offset_of(t, b) * elem_size(&r[i], b),
                                   t->count * elem_size(&r[i], b), &p[np].r);
      p[np].tensor = i, p[np].buf = b, p[np++].written = b != 2;
    }
  }
  for (size_t a = 0; a < np && st == CLFORGE_SUCCESS; ++a)
    for (size_t b = a + 1; b < np && st == CLFORGE_SUCCESS; ++b) {
      if (!(p[a].written || p[b].written) || !clforge__ranges_alias(&p[a].r, &p[b].r)) continue;
      const int same = p[a].tensor == p[b].tensor && p[a].buf + p[b].buf == 1 && p[a].r.root == p[b].r.root &&
                       p[a].r.begin == p[b].r.begin && p[a].r.end == p[b].r.end; /* f32 param = master */
      if (same) continue;
      char wa[48], wb[48];
      if (p[a].buf < 0) snprintf(wa, sizeof wa, "the state");
      else snprintf(wa, sizeof wa, "tensors[%zu].%s", p[a].tensor, buf_names[p[a].buf]);
      snprintf(wb, sizeof wb, "tensors[%zu].%s", p[b].tensor, buf_names[p[b].buf]);
      st = clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: %s overlaps %s (they share bytes of one buffer)", op, wb,
                         wa);
    }
  free(p);
  return st;
}

/* ----------------------------------------------------------------- launch */

#define ARG(k, i, x) (err == CL_SUCCESS ? (err = clSetKernelArg(k, i, sizeof(x), &(x))) : err)

static clforge_status get_kernel(clforge_context ctx, const clforge__opt *d, const clforge__opt_tensor *r,
                                 const plan *p, const char *name, cl_kernel *k) {
  char more[200];
  snprintf(more, sizeof more, "-DP_T=%d -DG_T=%d -DMASTER=%d -DKIND=%d -DMOM=%d -DNESTEROV=%d -DWD=%d",
           (int)r->param_type, (int)r->grad_type, r->has_master, (int)d->kind,
           d->kind == CLFORGE_OPTIMIZER_SGD && d->momentum != 0.0f, d->nesterov, d->weight_decay != 0.0f);
  return clforge__family_kernel(ctx, "optimizer_step", &clforge__family_optimizer, name, p->v, more,
                                (size_t)p->v[OPT_WG], k);
}

static size_t groups_of(const plan *p, size_t count) {
  const size_t per = (size_t)p->v[OPT_WG] * (size_t)p->v[OPT_EPI];
  return count ? (count + per - 1) / per : 1;
}

static clforge_status enqueue(clforge_context ctx, const clforge__opt *d, size_t n, const clforge_optimizer_tensor *ts,
                              const clforge__opt_tensor *r, const plan *plans, cl_mem state, cl_uint nwait,
                              const cl_event *wait, cl_event *event) {
  const cl_ulong so = d->state_offset / 4;
  /* The state's one-item kernels, from the first tensor's program (no
   * build of their own). */
  plan pz;
  clforge__opt_tensor rz = {CLFORGE_F32, CLFORGE_F32, 0, 0, 0};
  const plan *p0 = plans;
  const clforge__opt_tensor *r0 = r;
  clforge_status st = n ? CLFORGE_SUCCESS : make_plan(ctx, d, &rz, 1, &pz);
  if (!n) p0 = &pz, r0 = &rz;
  cl_kernel reset = NULL, finish = NULL;
  if (st == CLFORGE_SUCCESS) st = get_kernel(ctx, d, r0, p0, "clforge_opt_reset", &reset);
  if (st == CLFORGE_SUCCESS) st = get_kernel(ctx, d, r0, p0, "clforge_opt_finish", &finish);
  if (st != CLFORGE_SUCCESS) return st;
  /* skipped = 0, by a kernel: Oclgrind's uninitialized-value check loses a
   * buffer's earlier contents after a host write into part of it */
  cl_int err = CL_SUCCESS;
  const size_t one = 1; /* the one-item kernels: the program's work-group size does not bind them */
  ARG(reset, 0, state), ARG(reset, 1, so);
  if (err != CL_SUCCESS) return clforge__fail_cl(ctx, err, "clSetKernelArg (optimizer reset)");
  clforge__chain c;
  st = clforge__chain_begin(ctx, "optimizer_step", &c, nwait, wait, 0, NULL);
  if (st == CLFORGE_SUCCESS) st = clforge__chain_launch(ctx, &c, reset, 1, &one, &one, "clEnqueueNDRangeKernel (optimizer reset)");
  if (st != CLFORGE_SUCCESS) return clforge__chain_end(&c, st, NULL);
  for (size_t i = 0; d->loss_scaling && i < n && st == CLFORGE_SUCCESS; ++i) {
    if (!ts[i].count) continue;
    cl_kernel k = NULL;
    st = get_kernel(ctx, d, &r[i], &plans[i], "clforge_opt_check", &k);
    const cl_ulong g_off = ts[i].grad_offset, count = ts[i].count;
    if (st != CLFORGE_SUCCESS) break;
    ARG(k, 0, ts[i].grad), ARG(k, 1, g_off), ARG(k, 2, count), ARG(k, 3, state), ARG(k, 4, so);
    if (st == CLFORGE_SUCCESS && err != CL_SUCCESS) st = clforge__fail_cl(ctx, err, "clSetKernelArg (optimizer check)");
    const size_t local = (size_t)plans[i].v[OPT_WG], global = groups_of(&plans[i], ts[i].count) * local;
    if (st == CLFORGE_SUCCESS)
      st = clforge__chain_launch(ctx, &c, k, 1, &global, &local, "clEnqueueNDRangeKernel (optimizer check)");
  }
  const float lr = d->lr, mom = d->momentum, damp = d->dampening, wd = d->weight_decay, b1 = d->beta1, b2 = d->beta2,
              eps = d->eps;
  for (size_t i = 0; i < n && st == CLFORGE_SUCCESS; ++i) {
    const clforge_optimizer_tensor *t = &ts[i];
    if (!t->count) continue;
    cl_kernel k = NULL;
    st = get_kernel(ctx, d, &r[i], &plans[i], "clforge_opt_update", &k);
    if (st != CLFORGE_SUCCESS) break;
    const cl_ulong p_off = t->param_offset, w_off = t->master_offset, g_off = t->grad_offset, m_off = t->m_offset;
    const cl_ulong v_off = t->v_offset, count = t->count;
    const cl_mem master = r[i].has_master ? t->master : NULL, m = r[i].has_m ? t->m : NULL, v = r[i].has_v ? t->v : NULL;
    cl_uint a = 0;
    ARG(k, a++, t->param), ARG(k, a++, p_off), ARG(k, a++, master), ARG(k, a++, w_off), ARG(k, a++, t->grad);
    ARG(k, a++, g_off), ARG(k, a++, m), ARG(k, a++, m_off), ARG(k, a++, v), ARG(k, a++, v_off), ARG(k, a++, count);
    ARG(k, a++, state), ARG(k, a++, so), ARG(k, a++, lr), ARG(k, a++, mom), ARG(k, a++, damp), ARG(k, a++, wd);
    ARG(k, a++, b1), ARG(k, a++, b2), ARG(k, a++, eps);
    if (st == CLFORGE_SUCCESS && err != CL_SUCCESS) st = clforge__fail_cl(ctx, err, "clSetKernelArg (optimizer update)");
    const size_t local = (size_t)plans[i].v[OPT_WG], global = groups_of(&plans[i], t->count) * local;
    if (st == CLFORGE_SUCCESS)
      st = clforge__chain_launch(ctx, &c, k, 1, &global, &local, "clEnqueueNDRangeKernel (optimizer update)");
  }
  if (st == CLFORGE_SUCCESS) {
    const cl_int scaling = d->loss_scaling, interval = d->growth_interval;
    const float growth = d->growth_factor, backoff = d->backoff_factor;
    ARG(finish, 0, state), ARG(finish, 1, so), ARG(finish, 2, scaling), ARG(finish, 3, growth);
    ARG(finish, 4, backoff), ARG(finish, 5, interval);
    st = err != CL_SUCCESS ? clforge__fail_cl(ctx, err, "clSetKernelArg (optimizer finish)")
                           : clforge__chain_launch(ctx, &c, finish, 1, &one, &one,
                                                   "clEnqueueNDRangeKernel (optimizer finish)");
  }
  return clforge__chain_end(&c, st, event);
}

#undef ARG

/* ------------------------------------------------------------- validation */

typedef struct {
  void *b[NBUF]; /* whole buffers up to each range's end */
} host_tensor;

static clforge_status read_all(clforge_context ctx, size_t n, const clforge_optimizer_tensor *ts,
                               const clforge__opt_tensor *r, host_tensor *h) {
  clforge_status st = CLFORGE_SUCCESS;
  for (size_t i = 0; i < n && st == CLFORGE_SUCCESS; ++i)
    for (int b = 0; b < NBUF && st == CLFORGE_SUCCESS; ++b) {
      if (!used(&r[i], b)) continue;
      const size_t bytes = (offset_of(&ts[i], b) + ts[i].count) * elem_size(&r[i], b);
      h[i].b[b] = malloc(bytes ? bytes : 1);
      st = h[i].b[b] ? clforge__read_buffer(ctx, buf_of(&ts[i], b), 0, bytes, h[i].b[b])
                     : clforge__fail(ctx, CLFORGE_OUT_OF_HOST_MEMORY, "optimizer_step validation: no memory");
    }
  return st;
}

static void free_all(size_t n, host_tensor *h) {
  for (size_t i = 0; h && i < n; ++i)
    for (int b = 0; b < NBUF; ++b) free(h[i].b[b]);
  free(h);
}

/* The reference on the copies taken before the launch, against every
 * written buffer and the state now. */
static clforge_status validate(clforge_context ctx, const clforge_optimizer_desc *desc, const clforge__opt *d, size_t n,
                               const clforge_optimizer_tensor *ts, const clforge__opt_tensor *r, host_tensor *h,
                               clforge_train_state *hs, cl_mem state) {
  clforge_status st = CLFORGE_SUCCESS;
  for (size_t i = 0; i < n && st == CLFORGE_SUCCESS; ++i) /* tests only: spoil a parameter */
    if (ts[i].count) {
      st = clforge__test_fault_apply(ctx, "optimizer_step", ts[i].param, ts[i].param_offset, r[i].param_type);
      break;
    }
  clforge_ref_optimizer_tensor *rt = calloc(n ? n : 1, sizeof *rt);
  if (!rt) return clforge__fail(ctx, CLFORGE_OUT_OF_HOST_MEMORY, "optimizer_step validation: no memory");
  for (size_t i = 0; i < n; ++i) {
    char *p[NBUF];
    for (int b = 0; b < NBUF; ++b)
      p[b] = h[i].b[b] ? (char *)h[i].b[b] + offset_of(&ts[i], b) * elem_size(&r[i], b) : NULL;
    rt[i] = (clforge_ref_optimizer_tensor){ts[i].count, p[0], (float *)p[1], p[2], (float *)p[3], (float *)p[4],
                                           r[i].param_type, r[i].grad_type};
  }
  if (st == CLFORGE_SUCCESS) st = clforge_ref_optimizer_step(desc, n, rt, hs);
  free(rt);
  for (size_t i = 0; i < n && st == CLFORGE_SUCCESS; ++i)
    for (int b = 0; b < NBUF && st == CLFORGE_SUCCESS; ++b) {
      if (!used(&r[i], b) || b == 2) continue;
      /* the tensor's own elements only: tensors may share a buffer */
      const clforge_dtype t = b == 0 ? r[i].param_type : CLFORGE_F32;
      const size_t es = elem_size(&r[i], b), bytes = ts[i].count * es, at = offset_of(&ts[i], b) * es;
      void *got = malloc(bytes ? bytes : 1);
      st = got ? clforge__read_buffer(ctx, buf_of(&ts[i], b), at, bytes, got)
               : clforge__fail(ctx, CLFORGE_OUT_OF_HOST_MEMORY, "optimizer_step validation: no memory");
      if (st == CLFORGE_SUCCESS)
        st = clforge__validate(ctx, "optimizer_step", t, ts[i].count, got, (char *)h[i].b[b] + at,
                               clforge__tolerance_for(t));
      free(got);
    }
  clforge_train_state now;
  if (st == CLFORGE_SUCCESS) st = clforge__read_buffer(ctx, state, d->state_offset, sizeof now, &now);
  if (st == CLFORGE_SUCCESS && memcmp(&now, hs, sizeof now))
    st = clforge__fail(ctx, CLFORGE_VALIDATION_FAILED,
                       "optimizer_step: the state is {scale %g, good %d, skipped %d, step %d}, the reference's "
                       "{%g, %d, %d, %d}",
                       (double)now.scale, now.good_steps, now.skipped, now.step, (double)hs->scale, hs->good_steps,
                       hs->skipped, hs->step);
  return st;
}

/* ------------------------------------------------------------------- call */

clforge_status clforge_optimizer_step(clforge_context ctx, const clforge_optimizer_desc *desc, size_t ntensors,
                                      const clforge_optimizer_tensor *tensors, cl_mem state,
                                      cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                                      cl_event *event) {
  const char *op = "optimizer_step";
  clforge_status st = clforge__call_begin(ctx, op, event);
  if (st != CLFORGE_SUCCESS) return st;
  clforge__opt d;
  st = clforge__opt_resolve(ctx, desc, &d);
  if (st == CLFORGE_SUCCESS) st = clforge__check_wait_list(ctx, op, num_events_in_wait_list, event_wait_list);
  if (st == CLFORGE_SUCCESS && ntensors && !tensors)
    st = clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "%s: tensors is NULL with ntensors %zu", op, ntensors);
  if (st == CLFORGE_SUCCESS && ntensors > SIZE_MAX / (NBUF * sizeof(placed)))
    st = clforge__fail(ctx, CLFORGE_SIZE_OVERFLOW, "%s: ntensors %zu is too large", op, ntensors);
  if (st == CLFORGE_SUCCESS)
    st = clforge__check_buffer(ctx, op, "state", state, d.state_offset, sizeof(clforge_train_state), 1,
                               CLFORGE_ACCESS_READ | CLFORGE_ACCESS_WRITE);
  if (st != CLFORGE_SUCCESS) return st;
  clforge__opt_tensor *r = calloc(ntensors ? ntensors : 1, sizeof *r);
  plan *plans = calloc(ntensors ? ntensors : 1, sizeof *plans);
  host_tensor *h = NULL;
  clforge_train_state hs;
  if (!r || !plans) st = clforge__fail(ctx, CLFORGE_OUT_OF_HOST_MEMORY, "%s: no memory for %zu tensors", op, ntensors);
  if (st == CLFORGE_SUCCESS) st = check_tensors(ctx, &d, ntensors, tensors, state, r);
  for (size_t i = 0; i < ntensors && st == CLFORGE_SUCCESS; ++i) {
    st = make_plan(ctx, &d, &r[i], tensors[i].count, &plans[i]);
    cl_kernel k; /* built before anything is enqueued */
    if (st == CLFORGE_SUCCESS) st = get_kernel(ctx, &d, &r[i], &plans[i], "clforge_opt_update", &k);
    if (st == CLFORGE_SUCCESS && d.loss_scaling) st = get_kernel(ctx, &d, &r[i], &plans[i], "clforge_opt_check", &k);
  }
  if (st == CLFORGE_SUCCESS && ctx->validate) { /* the inputs as they are when the kernels run */
    h = calloc(ntensors ? ntensors : 1, sizeof *h);
    st = clforge__call_await_inputs(ctx, "optimizer_step", num_events_in_wait_list, event_wait_list);
    if (st == CLFORGE_SUCCESS)
      st = h ? read_all(ctx, ntensors, tensors, r, h)
             : clforge__fail(ctx, CLFORGE_OUT_OF_HOST_MEMORY, "%s validation: no memory", op);
    if (st == CLFORGE_SUCCESS) st = clforge__read_buffer(ctx, state, d.state_offset, sizeof hs, &hs);
  }
  cl_event done = NULL;
  if (st == CLFORGE_SUCCESS)
    st = enqueue(ctx, &d, ntensors, tensors, r, plans, state, num_events_in_wait_list, event_wait_list, &done);
  if (st == CLFORGE_SUCCESS && ctx->validate) {
    st = clforge__call_await_done(ctx, "optimizer_step", done);
    if (st == CLFORGE_SUCCESS) st = validate(ctx, desc, &d, ntensors, tensors, r, h, &hs, state);
  }
  free_all(ntensors, h);
  free(r);
  free(plans);
  return clforge__call_end(st, done, event);
}

clforge_status clforge_optimizer_explain(clforge_context ctx, const clforge_optimizer_desc *desc,
                                         const clforge_optimizer_tensor *tensor, clforge_kernel_choice *choice) {
  clforge_status st = clforge__call_begin(ctx, "optimizer_explain", NULL);
  if (st != CLFORGE_SUCCESS) return st;
  if (!choice || !tensor)
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "optimizer_explain: choice or tensor is NULL");
  clforge__opt d;
  clforge__opt_tensor r;
  st = clforge__opt_resolve(ctx, desc, &d);
  /* only the types and the count matter: buffers are taken as given */
  if (st == CLFORGE_SUCCESS)
    st = clforge__opt_tensor_resolve(ctx, &d, "tensor", tensor->count, tensor->param_type, tensor->grad_type, 1,
                                     tensor->param_type != 0 && tensor->param_type != CLFORGE_F32, 1, 1, 1, &r);
  plan p;
  if (st == CLFORGE_SUCCESS) st = make_plan(ctx, &d, &r, tensor->count, &p);
  if (st == CLFORGE_SUCCESS) *choice = p.choice;
  return st;
}
