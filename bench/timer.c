/* Benchmark timing: profiling-event brackets with a host-clock fallback. */
#include "timer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

double clforge_bench_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

const char *clforge_bench_timer_name(clforge_bench_timer_kind kind) {
  return kind == CLFORGE_BENCH_TIMER_EVENTS ? "events" : "wall";
}

void clforge_bench_timing_free(clforge_bench_timing *t) {
  if (!t) return;
  free(t->seconds);
  t->seconds = NULL;
  t->runs = 0;
}

/* END(after) - END(before) in seconds, or a negative value (and *why) when
 * the driver cannot say. */
static double event_span(cl_event before, cl_event after, const char **why) {
  cl_ulong end0 = 0, end1 = 0;
  cl_int e0 = clGetEventProfilingInfo(before, CL_PROFILING_COMMAND_END, sizeof end0, &end0, NULL);
  cl_int e1 = clGetEventProfilingInfo(after, CL_PROFILING_COMMAND_END, sizeof end1, &end1, NULL);
  if (e0 != CL_SUCCESS || e1 != CL_SUCCESS) {
    *why = "clGetEventProfilingInfo failed (is profiling enabled on the queue?)";
    return -1.0;
  }
  if (end1 <= end0) {
    *why = "the profiling timestamps do not advance across the operation";
    return -1.0;
  }
  return (double)(end1 - end0) * 1e-9;
}

int clforge_bench_time_queue(cl_command_queue queue, clforge_bench_enqueue_fn fn, void *user, int warmup, int runs,
                             clforge_bench_timing *out, const char **failed_in) {
  const char *dummy;
  if (!failed_in) failed_in = &dummy;
  *failed_in = "";
  memset(out, 0, sizeof *out);
  if (runs < 1) runs = 1;
  double *ev = malloc((size_t)runs * sizeof *ev);
  double *wall = malloc((size_t)runs * sizeof *wall);
  if (!ev || !wall) {
    free(ev);
    free(wall);
    *failed_in = "malloc";
    return CL_OUT_OF_HOST_MEMORY;
  }
  int events_ok = 1;
  const char *why = "";
  int rc = 0;
  cl_int err = clFinish(queue); /* start from an idle queue */
  if (err != CL_SUCCESS) {
    *failed_in = "clFinish";
    rc = err;
  }
  for (int i = -warmup; i < runs && rc == 0; ++i) {
    if (i < 0) { /* warm-up: compiles kernels, fills caches; not timed */
      rc = fn(user, queue);
      if (rc != 0) {
        *failed_in = "the operation";
        break;
      }
      err = clFinish(queue);
      if (err != CL_SUCCESS) {
        *failed_in = "clFinish";
        rc = err;
      }
      continue;
    }
    cl_event before = NULL, after = NULL;
    double t0 = clforge_bench_now();
    err = clEnqueueMarkerWithWaitList(queue, 0, NULL, &before);
    if (err != CL_SUCCESS) {
      *failed_in = "clEnqueueMarkerWithWaitList";
      rc = err;
      break;
    }
    rc = fn(user, queue);
    if (rc != 0) *failed_in = "the operation";
    if (rc == 0) {
      err = clEnqueueMarkerWithWaitList(queue, 0, NULL, &after);
      if (err != CL_SUCCESS) {
        *failed_in = "clEnqueueMarkerWithWaitList";
        rc = err;
      }
    }
    err = clFinish(queue);
    double t1 = clforge_bench_now();
    if (rc == 0 && err != CL_SUCCESS) {
      *failed_in = "clFinish";
      rc = err;
    }
    if (rc == 0) {
      wall[i] = t1 - t0;
      if (events_ok) {
        ev[i] = event_span(before, after, &why);
        if (ev[i] < 0) events_ok = 0;
      }
    }
    clReleaseEvent(before);
    if (after) clReleaseEvent(after);
  }
  if (rc != 0) {
    free(ev);
    free(wall);
    return rc;
  }
  if (events_ok) {
    free(wall);
    out->seconds = ev;
    out->timer = CLFORGE_BENCH_TIMER_EVENTS;
  } else {
    free(ev);
    out->seconds = wall;
    out->timer = CLFORGE_BENCH_TIMER_WALL;
    snprintf(out->why_wall, sizeof out->why_wall, "%s", why);
  }
  out->runs = runs;
  return 0;
}

int clforge_bench_time_host(clforge_bench_host_fn fn, void *user, int warmup, int runs, clforge_bench_timing *out) {
  memset(out, 0, sizeof *out);
  if (runs < 1) runs = 1;
  out->seconds = malloc((size_t)runs * sizeof *out->seconds);
  if (!out->seconds) return -1;
  for (int i = -warmup; i < runs; ++i) {
    double t0 = clforge_bench_now();
    fn(user);
    double t1 = clforge_bench_now();
    if (i >= 0) out->seconds[i] = t1 - t0;
  }
  out->runs = runs;
  out->timer = CLFORGE_BENCH_TIMER_WALL;
  return 0;
}
