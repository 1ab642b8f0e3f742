/* A deliberately broken kernel (one write past the end of its buffer), run
 * only under Oclgrind: it proves that tests/oclgrind_check.sh fails a test
 * when Oclgrind reports an error, since Oclgrind itself exits 0. */
#include "test_util.h"

int main(void) {
  clforge_context ctx = tu_context();
  cl_context c;
  cl_device_id d;
  cl_command_queue q;
  clforge_context_cl_context(ctx, &c);
  clforge_context_device(ctx, &d);
  clforge_context_queue(ctx, &q);
  const char *src = "kernel void oob(global float *out) { out[get_global_id(0) + 1] = 1.0f; }";
  cl_int err;
  cl_program p = clCreateProgramWithSource(c, 1, &src, NULL, &err);
  err = clBuildProgram(p, 1, &d, NULL, NULL, NULL);
  cl_kernel k = clCreateKernel(p, "oob", &err);
  cl_mem m = tu_buffer(ctx, 16 * sizeof(float));
  clSetKernelArg(k, 0, sizeof m, &m);
  size_t global = 16;
  err = clEnqueueNDRangeKernel(q, k, 1, NULL, &global, NULL, 0, NULL, NULL);
  clFinish(q);
  clReleaseMemObject(m);
  clReleaseKernel(k);
  clReleaseProgram(p);
  clforge_context_destroy(ctx);
  printf("ran the out-of-bounds kernel (err %d)\n", err);
  return 0;
}
