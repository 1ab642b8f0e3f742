/* clforge_softmax_backward and its explain: argument, buffer and overlap
 * checks, the softmax_backward family's parameters (tuning file, defaults,
 * overrides), the launch of cl/softmax_backward.cl and validation mode. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/context.h"
#include "../core/error.h"
#include "../families/families.h"
#include "../families/softmax.h"
#include "../families/softmax_backward.h"
#include "../families/softmax_classes.h"
#include "../core/program.h"
#include "../ref/compare.h"
#include "../core/validate.h"
#include "softmax_common.h"
#include "op_call.h"

typedef clforge__softmax_plan plan;

/* The family's values for d (tuning key, class, defaults). */
static clforge_status make_plan(clforge_context ctx, const clforge__softmax *d, plan *p) {
  return clforge__softmax_plan_make(ctx, d, &clforge__family_softmax_backward, p);
}

/* dx is y or dy exactly (in place), or shares no byte with either. */
static clforge_status check_buffers(clforge_context ctx, const clforge__softmax *d, cl_mem y, cl_mem dy, cl_mem dx) {
  clforge_status st = clforge__softmax_check_tensor(ctx, d, &d->y, y, CLFORGE_ACCESS_READ);
  if (st == CLFORGE_SUCCESS) st = clforge__softmax_check_tensor(ctx, d, &d->dy, dy, CLFORGE_ACCESS_READ);
  if (st == CLFORGE_SUCCESS) st = clforge__softmax_check_tensor(ctx, d, &d->x, dx, CLFORGE_ACCESS_WRITE);
  if (st == CLFORGE_SUCCESS) st = clforge__softmax_check_alias(ctx, d, &d->x, dx, &d->y, y, 1);
  if (st == CLFORGE_SUCCESS) st = clforge__softmax_check_alias(ctx, d, &d->x, dx, &d->dy, dy, 1);
  return st;
}

static clforge_status get_kernel(clforge_context ctx, const clforge__softmax *d, const plan *p, cl_kernel *k) {
  const clforge__family *f = &clforge__family_softmax_backward;
  /* RPI is the host's (the kernel takes the count as its argument rpi);
   * EXP acts only in log-softmax's gradient: softmax's builds it as 0, so
   * that both values share one program. */
  const int log = d->kind == CLFORGE_LOG_SOFTMAX;
  int v[CLFORGE_MAX_PARAMS];
  memcpy(v, p->v, sizeof v);
  if (!log) v[SMB_EXP] = 0;
  char opts[512];
  const size_t used = clforge__softmax_params_options(f, v, SMB_RPI, opts, sizeof opts);
  snprintf(opts + used, sizeof opts - used, " -DY_T=%d -DDY_T=%d -DDX_T=%d -DLOG=%d -DIDX64=%d", (int)d->y.type,
           (int)d->dy.type, (int)d->x.type, log, d->idx64);
  clforge_status st = clforge__kernel_get(ctx, f->sources, opts, f->kernel, k);
  const size_t wgs = (size_t)p->v[SMB_WG] * (size_t)p->v[SMB_RPW];
  return st == CLFORGE_SUCCESS ? clforge__kernel_fits(ctx, *k, d->op, f->name, opts, wgs) : st;
}

/* host: y, dy, dx */
static clforge_status reference(const clforge_softmax_desc *desc, int n, void *const *host) {
  (void)n;
  return clforge_ref_softmax_backward(desc, host[0], host[1], host[2]);
}

clforge_status clforge_softmax_backward(clforge_context ctx, const clforge_softmax_desc *desc, cl_mem y, cl_mem dy,
                                        cl_mem dx, cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                                        cl_event *event) {
  clforge_status st = clforge__call_begin(ctx, "softmax_backward", event);
  if (st != CLFORGE_SUCCESS) return st;
  clforge__softmax d;
  st = clforge__softmax_resolve_backward(ctx, desc, &d);
  if (st == CLFORGE_SUCCESS)
    st = clforge__check_wait_list(ctx, "softmax_backward", num_events_in_wait_list, event_wait_list);
  if (st != CLFORGE_SUCCESS) return st;
  if (!d.rows || !d.n) return clforge__call_marker(ctx, d.op, num_events_in_wait_list, event_wait_list, event);
  st = check_buffers(ctx, &d, y, dy, dx);
  plan p;
  if (st == CLFORGE_SUCCESS) st = make_plan(ctx, &d, &p);
  cl_kernel k = NULL;
  if (st == CLFORGE_SUCCESS) st = get_kernel(ctx, &d, &p, &k); /* built before anything is enqueued */
  if (st != CLFORGE_SUCCESS) return st;

  clforge__softmax_launch_args a = {ctx, "softmax_backward", &d, k, {y, dy, dx}, {&d.y, &d.dy, &d.x},
                                    p.v[SMB_WG], p.v[SMB_RPW], p.v[SMB_RPI]};
  const clforge__softmax_run r = {&d, desc, 3, {&d.y, &d.dy, &d.x}, {y, dy, dx}, clforge__softmax_launch, reference, &a};
  return clforge__softmax_execute(ctx, &r, num_events_in_wait_list, event_wait_list, event);
}

clforge_status clforge_softmax_backward_explain(clforge_context ctx, const clforge_softmax_desc *desc,
                                                clforge_kernel_choice *choice) {
  clforge_status st = clforge__query_begin(ctx, "softmax_backward_explain", choice, "choice");
  if (st != CLFORGE_SUCCESS) return st;
  clforge__softmax d;
  st = clforge__softmax_resolve_backward(ctx, desc, &d);
  plan p;
  if (st == CLFORGE_SUCCESS) st = make_plan(ctx, &d, &p);
  if (st == CLFORGE_SUCCESS) *choice = p.choice;
  return st;
}
