/* gemm_params_side_by_side N CONFIG...: time clforge_gemm (f32, N x N x N)
 * with several parameter overrides in one process, interleaved (15 rounds
 * of 3 runs each, per config), so that the drift of a shared machine hits
 * them all alike. CONFIG is "default" (no override: tuning file or built-in
 * default) or a clforge_context_set_params string, e.g.
 * "gemm:MWG=64,NWG=64,MWI=8,NWI=32,KWG=256,VW=16,SA=0,SB=0,KU=1,KSYNC=1".
 * Prints the median and quartiles of GFLOP/s per config (kernel time from
 * profiling events). Used for docs/performance.md's tuning section. */
#include <clforge/clforge.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { ROUNDS = 15, RUNS = 3, MAX_CONFIGS = 8 };

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static int use(clforge_context ctx, const char *cfg) {
  clforge_status st = clforge_context_set_params(ctx, strcmp(cfg, "default") ? cfg : NULL);
  if (st != CLFORGE_SUCCESS) fprintf(stderr, "%s: %s\n", cfg, clforge_last_error(ctx));
  return st == CLFORGE_SUCCESS ? 0 : -1;
}

int main(int argc, char **argv) {
  long nl = argc > 2 ? strtol(argv[1], NULL, 10) : 0;
  int ncfg = argc - 2;
  if (nl < 1 || nl > 8192 || ncfg > MAX_CONFIGS) {
    fprintf(stderr, "usage: gemm_params_side_by_side N(1..8192) CONFIG... (at most %d)\n", MAX_CONFIGS);
    return 2;
  }
  size_t n = (size_t)nl;
  clforge_context ctx;
  if (clforge_context_create(NULL, &ctx) != CLFORGE_SUCCESS) {
    fprintf(stderr, "%s\n", clforge_last_error(NULL));
    return 1;
  }
  cl_context c;
  cl_command_queue q;
  clforge_context_cl_context(ctx, &c);
  clforge_context_queue(ctx, &q);
  float *h = malloc(n * n * sizeof *h);
  double(*t)[ROUNDS * RUNS] = malloc(sizeof *t * (size_t)ncfg);
  if (!h || !t) return 1;
  for (size_t i = 0; i < n * n; ++i) h[i] = (float)(i % 17) / 17.0f;
  cl_int e1, e2, e3;
  cl_mem a = clCreateBuffer(c, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * n * 4, h, &e1);
  cl_mem b = clCreateBuffer(c, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * n * 4, h, &e2);
  cl_mem cc = clCreateBuffer(c, CL_MEM_READ_WRITE, n * n * 4, NULL, &e3);
  if (e1 != CL_SUCCESS || e2 != CL_SUCCESS || e3 != CL_SUCCESS) {
    fprintf(stderr, "clCreateBuffer failed\n");
    return 1;
  }
  clforge_gemm_desc d = {.m = n, .n = n, .k = n, .alpha = 1, .beta = 0};
  for (int i = 0; i < ncfg; ++i) { /* builds, warms up */
    if (use(ctx, argv[2 + i])) return 1;
    for (int w = 0; w < 2; ++w)
      if (clforge_gemm(ctx, &d, a, b, cc, NULL, 0, NULL, NULL) != CLFORGE_SUCCESS) {
        fprintf(stderr, "%s: %s\n", argv[2 + i], clforge_last_error(ctx));
        return 1;
      }
    clFinish(q);
  }
  for (int r = 0; r < ROUNDS; ++r)
    for (int i = 0; i < ncfg; ++i) {
      if (use(ctx, argv[2 + i])) return 1;
      for (int k = 0; k < RUNS; ++k) {
        /* Markers around the call: every kernel it launches counts. */
        cl_event before, after;
        cl_ulong s0 = 0, s1 = 0;
        clEnqueueMarkerWithWaitList(q, 0, NULL, &before);
        clforge_status st = clforge_gemm(ctx, &d, a, b, cc, NULL, 0, NULL, NULL);
        clEnqueueMarkerWithWaitList(q, 0, NULL, &after);
        clWaitForEvents(1, &after);
        clGetEventProfilingInfo(before, CL_PROFILING_COMMAND_END, sizeof s0, &s0, NULL);
        clGetEventProfilingInfo(after, CL_PROFILING_COMMAND_END, sizeof s1, &s1, NULL);
        clReleaseEvent(before);
        clReleaseEvent(after);
        if (st != CLFORGE_SUCCESS || s1 <= s0) {
          fprintf(stderr, "%s: run failed or no profiling information\n", argv[2 + i]);
          return 1;
        }
        t[i][r * RUNS + k] = (double)(s1 - s0) * 1e-9;
      }
    }
  const double flop = 2.0 * (double)n * (double)n * (double)n;
  for (int i = 0; i < ncfg; ++i) {
    qsort(t[i], ROUNDS * RUNS, sizeof(double), cmp);
    printf("%zu %-76s median %6.1f GFLOP/s  (quartiles %.1f .. %.1f)\n", n, argv[2 + i],
           flop / t[i][ROUNDS * RUNS / 2] / 1e9, flop / t[i][ROUNDS * RUNS * 3 / 4] / 1e9,
           flop / t[i][ROUNDS * RUNS / 4] / 1e9);
  }
  clReleaseMemObject(a);
  clReleaseMemObject(b);
  clReleaseMemObject(cc);
  free(h);
  free(t);
  clforge_context_destroy(ctx);
  return 0;
}
