/* Multiply two 4096 x 4096 float matrices on the default device and print
 * the speed: the first clforge program to copy.
 *
 *   gemm_4096 [n]        (n defaults to 4096)
 *
 * Timing follows the rules that make numbers trustworthy: a warm-up call
 * first (it compiles the kernels, or loads them from clforge's binary
 * cache), then several timed calls, each waited for before the clock stops. */
#include <clforge/clforge.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define CHECK_STATUS(ctx, call)                                            \
  do {                                                                     \
    clforge_status st_ = (call);                                           \
    if (st_ != CLFORGE_SUCCESS) {                                          \
      fprintf(stderr, "%s failed: %s\n", #call, clforge_last_error(ctx)); \
      return 1;                                                            \
    }                                                                      \
  } while (0)

static double seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
  size_t n = argc > 1 ? (size_t)strtoul(argv[1], NULL, 10) : 4096;
  if (n == 0) return 1;
  clforge_context ctx;
  CHECK_STATUS(NULL, clforge_context_create(NULL, &ctx)); /* CLFORGE_DEVICE picks another device */
  clforge_device_info info;
  CHECK_STATUS(ctx, clforge_context_device_info(ctx, &info));
  cl_context cl_ctx;
  cl_command_queue queue;
  CHECK_STATUS(ctx, clforge_context_cl_context(ctx, &cl_ctx));
  CHECK_STATUS(ctx, clforge_context_queue(ctx, &queue));

  size_t bytes = n * n * sizeof(float);
  float *host = malloc(bytes);
  if (!host) return 1;
  for (size_t i = 0; i < n * n; ++i) host[i] = (float)(i % 17) / 17.0f - 0.5f;
  cl_int err;
  cl_mem a = clCreateBuffer(cl_ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, host, &err);
  cl_mem b = clCreateBuffer(cl_ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, host, &err);
  cl_mem c = clCreateBuffer(cl_ctx, CL_MEM_READ_WRITE, bytes, NULL, &err);
  if (err != CL_SUCCESS) {
    fprintf(stderr, "cannot allocate 3 x %zu bytes on %s\n", bytes, info.name);
    return 1;
  }

  /* C = 1.0 * A * B + 0.0 * C, row-major, f32 (the zero fields are the defaults). */
  const clforge_gemm_desc desc = {.m = n, .n = n, .k = n, .alpha = 1.0f, .beta = 0.0f};

  CHECK_STATUS(ctx, clforge_gemm(ctx, &desc, a, b, c, NULL, 0, NULL, NULL)); /* warm-up */
  clFinish(queue);

  enum { RUNS = 5 };
  double best = 1e30, total = 0;
  for (int r = 0; r < RUNS; ++r) {
    cl_event done;
    double t0 = seconds();
    CHECK_STATUS(ctx, clforge_gemm(ctx, &desc, a, b, c, NULL, 0, NULL, &done));
    clWaitForEvents(1, &done); /* the work is finished only when its event is */
    double t = seconds() - t0;
    clReleaseEvent(done);
    total += t;
    if (t < best) best = t;
  }
  double flops = 2.0 * (double)n * (double)n * (double)n;
  printf("%zu x %zu x %zu f32 GEMM on %s: best %.2f ms (%.1f GFLOP/s), mean %.2f ms\n", n, n, n, info.name,
         best * 1e3, flops / best * 1e-9, total / RUNS * 1e3);

  /* Spot-check one element against a plain dot product on the host. */
  float c00;
  clEnqueueReadBuffer(queue, c, CL_TRUE, 0, sizeof c00, &c00, 0, NULL, NULL);
  double want = 0;
  for (size_t p = 0; p < n; ++p) want += (double)host[p] * (double)host[p * n];
  int ok = (c00 - want) * (c00 - want) <= 1e-6 * (want * want + 1.0);
  printf("C[0][0] = %.6g (host: %.6g) %s\n", (double)c00, want, ok ? "ok" : "MISMATCH");

  clReleaseMemObject(a);
  clReleaseMemObject(b);
  clReleaseMemObject(c);
  free(host);
  clforge_context_destroy(ctx);
  return ok ? 0 : 1;
}
