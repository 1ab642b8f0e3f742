/* Convert a device buffer of floats to bf16 and f16 with clforge, and check
 * the result against clforge's CPU reference.
 *
 * Build against an installed clforge with examples/CMakeLists.txt, or:
 *   cc convert_buffer.c $(pkg-config --cflags --libs clforge)
 * Pick the device with CLFORGE_DEVICE ("0:0" or part of its name). */
#include <clforge/clforge.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK_STATUS(ctx, call)                                                        \
  do {                                                                                 \
    clforge_status st_ = (call);                                                       \
    if (st_ != CLFORGE_SUCCESS) {                                                      \
      fprintf(stderr, "%s failed: %s\n", #call, clforge_last_error(ctx));             \
      return 1;                                                                        \
    }                                                                                  \
  } while (0)

int main(void) {
  enum { N = 1 << 20 };
  clforge_context ctx;
  CHECK_STATUS(NULL, clforge_context_create(NULL, &ctx));
  clforge_device_info info;
  CHECK_STATUS(ctx, clforge_context_device_info(ctx, &info));
  printf("clforge %s on %s (%s)\n", clforge_version(), info.name, info.platform_name);

  /* The application owns its buffers; clforge takes cl_mem plus offsets. */
  cl_context cl_ctx;
  cl_command_queue queue;
  CHECK_STATUS(ctx, clforge_context_cl_context(ctx, &cl_ctx));
  CHECK_STATUS(ctx, clforge_context_queue(ctx, &queue));
  float *host = malloc(N * sizeof *host);
  unsigned short *half_out = malloc(N * 2), *half_ref = malloc(N * 2);
  if (!host || !half_out || !half_ref) return 1;
  for (int i = 0; i < N; ++i) host[i] = (float)(i % 1000) * 0.001f - 0.5f;
  cl_int err;
  cl_mem in = clCreateBuffer(cl_ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, N * sizeof *host, host, &err);
  cl_mem out = clCreateBuffer(cl_ctx, CL_MEM_READ_WRITE, N * 2, NULL, &err);
  if (err != CL_SUCCESS) return 1;

  const clforge_dtype targets[] = {CLFORGE_BF16, CLFORGE_F16};
  int failures = 0;
  for (int t = 0; t < 2; ++t) {
    cl_event done;
    CHECK_STATUS(ctx, clforge_convert(ctx, N, in, 0, CLFORGE_F32, out, 0, targets[t], 0, NULL, &done));
    /* Standard OpenCL from here: wait on the event, read the result. */
    clEnqueueReadBuffer(queue, out, CL_TRUE, 0, N * 2, half_out, 1, &done, NULL);
    clReleaseEvent(done);
    CHECK_STATUS(NULL, clforge_ref_convert(N, host, CLFORGE_F32, half_ref, targets[t]));
    int same = memcmp(half_out, half_ref, N * 2) == 0;
    printf("f32 -> %-4s %d elements: %s\n", clforge_dtype_name(targets[t]), N, same ? "matches the reference" : "MISMATCH");
    failures += !same;
  }
  clReleaseMemObject(in);
  clReleaseMemObject(out);
  free(host);
  free(half_out);
  free(half_ref);
  clforge_context_destroy(ctx);
  return failures ? 1 : 0;
}
