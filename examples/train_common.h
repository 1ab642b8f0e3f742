/* What the training examples share: a fixed-seed random source, the
 * context and the buffers' byte count, device buffers made from f32 host
 * values in any storage type, a clock. Include once, after defining
 * TRAIN_NAME (the program's name in error messages). */
#ifndef CLFORGE_EXAMPLES_TRAIN_COMMON_H
#define CLFORGE_EXAMPLES_TRAIN_COMMON_H

#include <clforge/clforge.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint32_t rng = 12345;
static float urand(void) { /* [0, 1) */
  rng = rng * 1664525u + 1013904223u;
  return (float)(rng >> 8) / 16777216.0f;
}
static float nrand(void) {
  const float u = urand() + 1e-7f, v = urand();
  return sqrtf(-2.0f * logf(u)) * cosf(6.2831853f * v);
}

typedef struct {
  clforge_context ctx;
  cl_context cl;
  cl_command_queue q;
  size_t bytes; /* device memory of the buffers made here */
} env;

static int fail(env *e, const char *what) {
  fprintf(stderr, TRAIN_NAME ": %s: %s\n", what, clforge_last_error(e ? e->ctx : NULL));
  return 1;
}

/* A device buffer of n elements of t holding `host` (f32 values, converted), or zeros. */
static cl_mem make(env *e, size_t n, clforge_dtype t, const float *host) {
  const size_t es = clforge_dtype_size(t);
  void *raw = calloc(n ? n : 1, es);
  if (host) clforge_ref_convert(n, host, CLFORGE_F32, raw, t);
  cl_int err;
  cl_mem m = clCreateBuffer(e->cl, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, (n ? n : 1) * es, raw, &err);
  free(raw);
  e->bytes += n * es;
  return err == CL_SUCCESS ? m : NULL;
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void release(cl_mem *mems, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (mems[i]) clReleaseMemObject(mems[i]);
}

/* --dtype f32|bf16|f16|all, --steps N, --batch B, --check: the number of
 * dtypes to run (0: a bad argument), written into dts[0..3). */
static int parse_args(int argc, char **argv, int *steps, size_t *batch, int *check, clforge_dtype dts[3]) {
  int ndt = 1;
  dts[0] = CLFORGE_F32, dts[1] = CLFORGE_BF16, dts[2] = CLFORGE_F16;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--steps") && i + 1 < argc) *steps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--batch") && i + 1 < argc) *batch = (size_t)atoi(argv[++i]);
    else if (!strcmp(argv[i], "--check")) *check = 1;
    else if (!strcmp(argv[i], "--dtype") && i + 1 < argc) {
      ++i;
      if (!strcmp(argv[i], "all")) ndt = 3;
      else if (clforge_dtype_from_name(argv[i], &dts[0]) != CLFORGE_SUCCESS) ndt = 0;
    } else ndt = 0;
  }
  return *steps < 1 || *batch < 1 ? 0 : ndt;
}

/* What a run of training steps measured. */
typedef struct {
  double secs;  /* the timed steps' wall time */
  int timed;    /* steps timed: all after the first two (which build the kernels) */
  double tail;  /* the mean loss of the last tail_n steps */
  int tail_n;
} train_run;

/* `steps` calls of step(model, s) on the context's queue; every 50 steps
 * and at the end report(model, s, loss) (an evaluation: not timed, nor
 * the loss reads). Returns 0, or 1 when a step failed. */
static int train_steps(env *e, void *model, int steps, cl_mem loss_buf, clforge_status (*step)(void *, int),
                       void (*report)(void *, int, float), train_run *out) {
  double t0 = 0, outside = 0;
  int rc = 0;
  out->tail = 0, out->tail_n = 0, out->timed = 0;
  for (int s = 0; s < steps && !rc; ++s) {
    if (s == 2 || (s < 2 && s == steps - 1)) clFinish(e->q), t0 = now(), out->timed = steps - s;
    if (step(model, s) != CLFORGE_SUCCESS) rc = fail(e, "a training step");
    const int rep = s % 50 == 0 || s == steps - 1;
    if (!rc && (rep || s >= steps - 20)) {
      clFinish(e->q); /* the steps so far count; the read and the evaluation do not */
      const double r0 = now();
      float loss;
      clEnqueueReadBuffer(e->q, loss_buf, CL_TRUE, 0, 4, &loss, 0, NULL, NULL);
      if (s >= steps - 20) out->tail += loss, ++out->tail_n;
      if (rep) report(model, s, loss);
      if (t0 > 0) outside += now() - r0;
    }
  }
  clFinish(e->q);
  out->secs = now() - t0 - outside;
  out->tail /= out->tail_n ? out->tail_n : 1;
  return rc;
}

/* The context on the default device (CLFORGE_DEVICE), and its name. */
static int open_env(env *e, char *dev, size_t dev_size) {
  memset(e, 0, sizeof *e);
  if (clforge_context_create(NULL, &e->ctx) != CLFORGE_SUCCESS) return fail(NULL, "clforge_context_create");
  clforge_context_cl_context(e->ctx, &e->cl);
  clforge_context_queue(e->ctx, &e->q);
  clforge_device_info info;
  snprintf(dev, dev_size, "%s", clforge_context_device_info(e->ctx, &info) == CLFORGE_SUCCESS ? info.name : "?");
  return 0;
}

#endif
