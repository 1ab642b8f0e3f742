/* clforge_softmax and clforge_softmax_explain: argument, buffer and overlap
 * checks, the family's parameters (tuning file, defaults, overrides), the
 * launch of cl/softmax.cl and validation mode. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/context.h"
#include "../core/error.h"
#include "../families/families.h"
#include "../families/softmax.h"
#include "../families/softmax_classes.h"
#include "../core/program.h"
#include "../ref/compare.h"
#include "../desc/softmax_desc.h"
#include "../core/validate.h"
#include "softmax_common.h"
#include "op_call.h"

typedef clforge__softmax_plan softmax_plan;

/* The family's values for d (tuning key, class, defaults). */
static clforge_status make_plan(clforge_context ctx, const clforge__softmax *d, softmax_plan *p) {
  return clforge__softmax_plan_make(ctx, d, &clforge__family_softmax, p);
}

/* ----------------------------------------------------------------- checks */

/* y is x exactly (in place), or shares no byte with x; and none with the mask. */
static clforge_status check_buffers(clforge_context ctx, const clforge__softmax *d, cl_mem x, cl_mem mask, cl_mem y) {
  clforge_status st = clforge__softmax_check_tensor(ctx, d, &d->x, x, CLFORGE_ACCESS_READ);
  if (st == CLFORGE_SUCCESS) st = clforge__softmax_check_tensor(ctx, d, &d->y, y, CLFORGE_ACCESS_WRITE);
  if (st == CLFORGE_SUCCESS && mask) st = clforge__softmax_check_tensor(ctx, d, &d->mask, mask, CLFORGE_ACCESS_READ);
  if (st == CLFORGE_SUCCESS) st = clforge__softmax_check_alias(ctx, d, &d->y, y, &d->x, x, 1);
  if (st == CLFORGE_SUCCESS && mask) st = clforge__softmax_check_alias(ctx, d, &d->y, y, &d->mask, mask, 0);
  return st;
}

/* ----------------------------------------------------------------- launch */

static clforge_status get_kernel(clforge_context ctx, const clforge__softmax *d, const softmax_plan *p,
                                 cl_kernel *k) {
  const clforge__family *f = &clforge__family_softmax;
  /* Only what the kernel reads is built in, so that calls differing in the
   * rest share a program: RPI is the host's (the kernel takes the count as
   * its argument rpi), STASH acts only in two-pass softmax into f32 y, and
   * the mask's type only with a mask (cl/softmax.cl). */
  const int log = d->kind == CLFORGE_LOG_SOFTMAX;
  const int stash = p->v[SOFTMAX_STASH] && !p->v[SOFTMAX_ONLINE] && !log && d->y.type == CLFORGE_F32;
  int v[CLFORGE_MAX_PARAMS];
  memcpy(v, p->v, sizeof v);
  v[SOFTMAX_STASH] = stash;
  char opts[512];
  const size_t used = clforge__softmax_params_options(f, v, SOFTMAX_RPI, opts, sizeof opts);
  snprintf(opts + used, sizeof opts - used, " -DX_T=%d -DY_T=%d -DMASK_T=%d -DHAS_MASK=%d -DLOG=%d -DIDX64=%d",
           (int)d->x.type, (int)d->y.type, d->has_mask ? (int)d->mask.type : (int)CLFORGE_F32, d->has_mask, log,
           d->idx64);
  clforge_status st = clforge__kernel_get(ctx, f->sources, opts, f->kernel, k);
  const size_t wgs = (size_t)p->v[SOFTMAX_WG] * (size_t)p->v[SOFTMAX_RPW];
  return st == CLFORGE_SUCCESS ? clforge__kernel_fits(ctx, *k, "softmax", f->name, opts, wgs) : st;
}

/* ------------------------------------------------------------- the run */

/* host: x, (mask,) y */
static clforge_status reference(const clforge_softmax_desc *desc, int n, void *const *host) {
  return clforge_ref_softmax(desc, host[0], n == 3 ? host[1] : NULL, host[n - 1]);
}

/* ------------------------------------------------------------------- call */

clforge_status clforge_softmax(clforge_context ctx, const clforge_softmax_desc *desc, cl_mem x, cl_mem mask, cl_mem y,
                               cl_uint num_events_in_wait_list, const cl_event *event_wait_list, cl_event *event) {
  clforge_status st = clforge__call_begin(ctx, "softmax", event);
  if (st != CLFORGE_SUCCESS) return st;
  clforge__softmax d;
  st = clforge__softmax_resolve(ctx, desc, mask != NULL, &d);
  if (st == CLFORGE_SUCCESS) st = clforge__check_wait_list(ctx, "softmax", num_events_in_wait_list, event_wait_list);
  if (st != CLFORGE_SUCCESS) return st;
  if (!d.rows || !d.n) return clforge__call_marker(ctx, d.op, num_events_in_wait_list, event_wait_list, event);
  st = check_buffers(ctx, &d, x, mask, y);
  softmax_plan p;
  if (st == CLFORGE_SUCCESS) st = make_plan(ctx, &d, &p);
  cl_kernel k = NULL;
  if (st == CLFORGE_SUCCESS) st = get_kernel(ctx, &d, &p, &k); /* built before anything is enqueued */
  if (st != CLFORGE_SUCCESS) return st;

  clforge__softmax_launch_args a = {ctx, "softmax", &d, k, {x, d.has_mask ? mask : NULL, y}, {&d.x, &d.mask, &d.y},
                                    p.v[SOFTMAX_WG], p.v[SOFTMAX_RPW], p.v[SOFTMAX_RPI]};
  clforge__softmax_run r = {&d, desc, 2, {&d.x, &d.y, NULL}, {x, y, NULL}, clforge__softmax_launch, reference, &a};
  if (d.has_mask) r.ntensors = 3, r.t[1] = &d.mask, r.buf[1] = mask, r.t[2] = &d.y, r.buf[2] = y;
  return clforge__softmax_execute(ctx, &r, num_events_in_wait_list, event_wait_list, event);
}

clforge_status clforge_softmax_explain(clforge_context ctx, const clforge_softmax_desc *desc,
                                       clforge_kernel_choice *choice) {
  clforge_status st = clforge__query_begin(ctx, "softmax_explain", choice, "choice");
  if (st != CLFORGE_SUCCESS) return st;
  clforge__softmax d;
  st = clforge__softmax_resolve(ctx, desc, 0, &d);
  softmax_plan p;
  if (st == CLFORGE_SUCCESS) st = make_plan(ctx, &d, &p);
  if (st == CLFORGE_SUCCESS) *choice = p.choice;
  return st;
}
