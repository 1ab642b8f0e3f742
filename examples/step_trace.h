/* One training step's timeline from its events' profiling times: each
 * kernel call (START to END) and each collective (from when its input was
 * ready, the end of the kernel it follows, to its end), written as Chrome's trace format
 * (chrome://tracing, ui.perfetto.dev: "X" events, microseconds), and
 * summed up: how much of the collectives ran while backward kernels did.
 * The events come from one device's queues, whose profiling times share a
 * clock. Needs train_common.h. */
#ifndef CLFORGE_EXAMPLES_STEP_TRACE_H
#define CLFORGE_EXAMPLES_STEP_TRACE_H

enum { TRACE_MAX = 96 };

typedef struct {
  int on;
  int n;
  struct {
    const char *name;
    int comm;  /* a collective */
    int after; /* the slot of the kernel whose output it reads (-1: none): it starts at that kernel's end */
    cl_event ev;
  } it[TRACE_MAX];
} step_trace;

/* Where a call of `name` puts its event: a slot while tracing, else NULL
 * (the call makes no event). */
static cl_event *trace_slot(step_trace *T, const char *name, int comm) {
  if (!T->on || T->n == TRACE_MAX) return NULL;
  T->it[T->n].name = name, T->it[T->n].comm = comm, T->it[T->n].after = -1, T->it[T->n].ev = NULL;
  return &T->it[T->n++].ev;
}

/* An event kept elsewhere too (retained here); a collective's follows the
 * kernel traced last. */
static void trace_add(step_trace *T, const char *name, cl_event ev, int comm) {
  const int last = T->n - 1;
  cl_event *slot = ev ? trace_slot(T, name, comm) : NULL;
  if (!slot) return;
  clRetainEvent(ev), *slot = ev;
  if (comm) T->it[T->n - 1].after = last;
}

static void trace_clear(step_trace *T) {
  for (int i = 0; i < T->n; ++i)
    if (T->it[i].ev) clReleaseEvent(T->it[i].ev);
  T->n = 0;
}

/* Write the trace (rank `pid`) to path and print the overlap: the time the
 * collectives spent alongside compute. 0, or 1 when it cannot be written. */
static int trace_write(step_trace *T, const char *path, int pid) {
  cl_ulong t0 = 0, b[TRACE_MAX] = {0}, e[TRACE_MAX] = {0};
  for (int i = 0; i < T->n; ++i) {
    if (!T->it[i].ev) continue;
    clWaitForEvents(1, &T->it[i].ev);
    clGetEventProfilingInfo(T->it[i].ev, T->it[i].comm ? CL_PROFILING_COMMAND_QUEUED : CL_PROFILING_COMMAND_START,
                            sizeof b[i], &b[i], NULL);
    clGetEventProfilingInfo(T->it[i].ev, CL_PROFILING_COMMAND_END, sizeof e[i], &e[i], NULL);
  }
  for (int i = 0; i < T->n; ++i) {
    const int a = T->it[i].after;
    if (a >= 0 && e[a] > b[i]) b[i] = e[a]; /* queued long before: it starts when its input is there */
    if (b[i] && (!t0 || b[i] < t0)) t0 = b[i];
  }
  FILE *f = fopen(path, "w");
  if (!f) {
    fprintf(stderr, TRAIN_NAME ": cannot write %s\n", path);
    return 1;
  }
  fprintf(f, "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n");
  double comm_us = 0, overlap_us = 0;
  for (int i = 0, first = 1; i < T->n; ++i) {
    if (!b[i] || e[i] < b[i]) continue;
    fprintf(f, "%s{\"name\":\"%s\",\"cat\":\"%s\",\"ph\":\"X\",\"ts\":%.3f,\"dur\":%.3f,\"pid\":%d,\"tid\":%d}",
            first ? "" : ",\n", T->it[i].name, T->it[i].comm ? "collective" : "kernel", 1e-3 * (double)(b[i] - t0),
            1e-3 * (double)(e[i] - b[i]), pid, T->it[i].comm ? 2 : 1);
    first = 0;
    if (!T->it[i].comm) continue;
    comm_us += 1e-3 * (double)(e[i] - b[i]);
    for (int k = 0; k < T->n; ++k) /* the kernels' time within this collective's span */
      if (!T->it[k].comm && b[k] && e[k] > b[i] && b[k] < e[i])
        overlap_us += 1e-3 * (double)((e[k] < e[i] ? e[k] : e[i]) - (b[k] > b[i] ? b[k] : b[i]));
  }
  fprintf(f, "\n]}\n");
  fclose(f);
  for (int i = 0; i < T->n; ++i)
    if (b[i] && e[i] >= b[i])
      printf("  %-26s %-10s %8.3f .. %8.3f ms\n", T->it[i].name, T->it[i].comm ? "collective" : "kernel",
             1e-6 * (double)(b[i] - t0), 1e-6 * (double)(e[i] - t0));
  printf("step timeline in %s (Chrome trace): collectives %.2f ms in all, kernels ran %.2f ms of it alongside\n", path,
         1e-3 * comm_us, 1e-3 * overlap_us);
  return 0;
}

#endif
