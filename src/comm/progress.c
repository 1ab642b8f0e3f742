/* The group's progress thread: ops in order, chunk by chunk (comm.h). */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "../core/clock.h"
#include "comm.h"
#include "reduce_host.h"

/* An event's status: CL_COMPLETE, a negative error, or 1 while running. */
static cl_int status_of(cl_event e) {
  cl_int s = CL_COMPLETE;
  cl_int err = clGetEventInfo(e, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof s, &s, NULL);
  if (err != CL_SUCCESS) return err;
  return s < 0 ? s : s == CL_COMPLETE ? CL_COMPLETE : 1;
}

void clforge__poll_pause(clforge__poller *p, double spin_s) {
  const double now = clforge__now();
  if (p->start == 0) p->start = now;
  if (now - p->start < spin_s) {
    sched_yield();
    return;
  }
  p->nap_ns = p->nap_ns < 2000 ? 2000 : p->nap_ns;
  struct timespec ts = {0, p->nap_ns};
  nanosleep(&ts, NULL);
  if (p->nap_ns < 200000) p->nap_ns *= 2;
}

cl_int clforge__event_wait_until(cl_event e, double deadline) {
  clforge__poller pause = {0, 0};
  for (;;) {
    const cl_int s = status_of(e);
    if (s <= 0) return s;
    if (clforge__now() > deadline) return 1;
    clforge__poll_pause(&pause, 2e-3); /* a copy of a piece: well under 2 ms */
  }
}

int clforge__input_ready(clforge__comm_group *g, const clforge__coll_op *op, int r, size_t c, double deadline) {
  const clforge__rank_part *p = &op->part[r];
  cl_event waits[2] = {c == 0 ? p->arrival : NULL, p->d2h ? p->d2h[c] : NULL};
  for (int w = 0; w < 2; ++w) {
    if (!waits[w]) continue;
    const cl_int s = clforge__event_wait_until(waits[w], deadline);
    if (s == CL_COMPLETE) continue;
    pthread_mutex_lock(&g->mu);
    if (s > 0)
      clforge__group_fail(g, CLFORGE_COMM_TIMEOUT,
                          "%s #%llu: rank %d's input was not ready within %u ms of every rank's call (its wait "
                          "list, work enqueued on its context's queue before the call, or its copy to the host)",
                          op->name, (unsigned long long)op->seq, r, g->timeout_ms);
    else
      clforge__group_fail(g, s, "%s #%llu: rank %d's %s failed with OpenCL status %d", op->name,
                          (unsigned long long)op->seq, r, w ? "copy to the host" : "wait list", (int)s);
    pthread_mutex_unlock(&g->mu);
    return -1;
  }
  return 0;
}

static const char *kind_name(const clforge__coll_op *op) { return op->name; }

/* Every chunk: the ranks' copies in, the reduction, the gates opened.
 * Runs without the lock: a complete op is no caller's any more. 0, or the
 * failure recorded in the group. */
static int run_op(clforge__comm_group *g, clforge__coll_op *op) {
  const double deadline = clforge__now() + g->timeout_ms / 1000.0;
  const void *in[64], **ins = g->n <= 64 ? in : malloc(sizeof *ins * (size_t)g->n);
  if (!ins) {
    pthread_mutex_lock(&g->mu);
    clforge__group_fail(g, CLFORGE_OUT_OF_HOST_MEMORY, "%s #%llu: out of host memory", kind_name(op),
                        (unsigned long long)op->seq);
    pthread_mutex_unlock(&g->mu);
    clforge__op_fail_gates(g, op, 0);
    return -1;
  }
  int failed = 0;
  for (size_t c = 0; c < op->nchunks && !failed; ++c) {
    for (int r = 0; r < g->n && !failed; ++r) failed = clforge__input_ready(g, op, r, c, deadline) != 0;
    if (failed) {
      clforge__op_fail_gates(g, op, c);
      break;
    }
    if (op->kind == COMM_ALLREDUCE || op->kind == COMM_REDUCE_SCATTER) {
      const size_t b = op->bounds[c], m = op->bounds[c + 1] - b;
      for (int r = 0; r < g->n; ++r) ins[r] = (const char *)op->part[r].staging->ptr + b * op->esize;
      clforge__reduce_host(op->desc.dtype, op->desc.op, g->n, ins, (char *)op->result->ptr + b * op->esize, m);
    }
    for (int r = 0; r < g->n; ++r) {
      clforge__rank_part *p = &op->part[r];
      clSetUserEventStatus(p->gate[c], CL_COMPLETE);
      clReleaseEvent(p->gate[c]);
      p->gate[c] = NULL;
    }
  }
  if (ins != in) free(ins);
  return failed ? -1 : 0;
}

void clforge__group_retire(clforge__comm_group *g, int all) {
  for (clforge__coll_op **pp = &g->retiring; *pp;) {
    clforge__coll_op *op = *pp;
    int done = 1;
    for (int r = 0; r < g->n && done && !all; ++r)
      if (op->part[r].last && status_of(op->part[r].last) > 0) done = 0;
    if (!done) {
      pp = &op->next;
      continue;
    }
    *pp = op->next;
    clforge__op_free(g, op);
  }
}

void *clforge__comm_progress(void *arg) {
  clforge__comm_group *g = arg;
  pthread_mutex_lock(&g->mu);
  for (;;) {
    clforge__coll_op *op = g->pending;
    if (op && op->arrived == g->nlocal && !g->broken) {
      g->pending = op->next;
      pthread_mutex_unlock(&g->mu);
      if (g->mpi) clforge__mpi_run_op(g, op);
      else run_op(g, op);
      pthread_mutex_lock(&g->mu);
      op->next = g->retiring, g->retiring = op;
      continue;
    }
    if (op && !g->broken && clforge__now() - op->first_arrival > g->timeout_ms / 1000.0) {
      char missing[256] = "";
      size_t len = 0;
      for (int r = 0; r < g->n && len + 16 < sizeof missing; ++r)
        if (!op->part[r].here) len += (size_t)snprintf(missing + len, sizeof missing - len, "%s%d", len ? ", " : "", r);
      clforge__group_fail(g, CLFORGE_COMM_TIMEOUT,
                          "%s #%llu: rank(s) %s did not call it within %u ms of the first rank's call", op->name,
                          (unsigned long long)op->seq, missing, g->timeout_ms);
    }
    if (g->broken) /* nothing pending can run: its gates are failed already */
      while (g->pending) {
        clforge__coll_op *dead = g->pending;
        g->pending = dead->next;
        dead->next = g->retiring, g->retiring = dead;
      }
    clforge__group_retire(g, 0);
    if (g->stop && !g->pending) {
      /* every rank has finished its queues (clforge_comm_destroy) */
      clforge__group_retire(g, 1);
      break;
    }
    /* Poll while something is in flight; else sleep until a call arrives. */
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    const long step = g->retiring ? 1000000 : g->pending ? 5000000 : 50000000;
    ts.tv_nsec += step;
    if (ts.tv_nsec >= 1000000000L) ts.tv_sec += 1, ts.tv_nsec -= 1000000000L;
    pthread_cond_timedwait(&g->cv, &g->mu, &ts);
  }
  pthread_mutex_unlock(&g->mu);
  return NULL;
}
