/* Bad input to every public function: a clear status, a message that says
 * what was wrong, and nothing changed (the output buffer keeps its sentinel). */
#include <stdint.h>

#include "test_util.h"

int main(void) {
  clforge_context ctx = tu_context();
  enum { N = 100 };
  cl_mem src = tu_buffer(ctx, N * 4), dst = tu_buffer(ctx, N * 4);
  unsigned char sentinel[N * 4], after[N * 4];
  memset(sentinel, 0xA5, sizeof sentinel);
  tu_write(ctx, src, 0, sizeof sentinel, sentinel);
  tu_write(ctx, dst, 0, sizeof sentinel, sentinel);

  /* enums and lookups */
  CHECK(clforge_dtype_size((clforge_dtype)0) == 0 && clforge_dtype_size((clforge_dtype)99) == 0, "%s", "dtype size");
  CHECK(clforge_dtype_name((clforge_dtype)99) == NULL, "%s", "dtype name");
  CHECK(clforge_device_class_name((clforge_device_class)99) == NULL, "%s", "class name");
  CHECK(clforge_device_class_name(CLFORGE_DEVICE_CLASS_CPU) != NULL, "%s", "class name");

  /* device query */
  cl_device_id dev;
  cl_context c;
  clforge_device_info info;
  clforge_context_device(ctx, &dev);
  clforge_context_cl_context(ctx, &c);
  CHECK_FAILS(NULL, clforge_device_query(NULL, &info), CLFORGE_INVALID_ARGUMENT, "NULL");
  CHECK_FAILS(NULL, clforge_device_query(dev, NULL), CLFORGE_INVALID_ARGUMENT, "NULL");

  /* context accessors */
  cl_command_queue q;
  clforge_cache_stats stats;
  CHECK_FAILS(NULL, clforge_context_queue(NULL, &q), CLFORGE_INVALID_ARGUMENT, "context is NULL");
  CHECK_FAILS(ctx, clforge_context_queue(ctx, NULL), CLFORGE_INVALID_ARGUMENT, "queue is NULL");
  CHECK_FAILS(NULL, clforge_context_cl_context(NULL, &c), CLFORGE_INVALID_ARGUMENT, "context is NULL");
  CHECK_FAILS(ctx, clforge_context_cl_context(ctx, NULL), CLFORGE_INVALID_ARGUMENT, "NULL");
  CHECK_FAILS(NULL, clforge_context_device(NULL, &dev), CLFORGE_INVALID_ARGUMENT, "context is NULL");
  CHECK_FAILS(ctx, clforge_context_device(ctx, NULL), CLFORGE_INVALID_ARGUMENT, "NULL");
  CHECK_FAILS(NULL, clforge_context_device_info(NULL, &info), CLFORGE_INVALID_ARGUMENT, "context is NULL");
  CHECK_FAILS(ctx, clforge_context_device_info(ctx, NULL), CLFORGE_INVALID_ARGUMENT, "NULL");
  CHECK_FAILS(NULL, clforge_context_cache_stats(NULL, &stats), CLFORGE_INVALID_ARGUMENT, "context is NULL");
  CHECK_FAILS(ctx, clforge_context_cache_stats(ctx, NULL), CLFORGE_INVALID_ARGUMENT, "NULL");
  CHECK_FAILS(NULL, clforge_context_set_validation(NULL, 1), CLFORGE_INVALID_ARGUMENT, "context is NULL");
  CHECK_FAILS(ctx, clforge_context_set_validation(ctx, -1), CLFORGE_INVALID_ARGUMENT, "0 or 1");
  CHECK_FAILS(NULL, clforge_context_get_validation(NULL, &(int){0}), CLFORGE_INVALID_ARGUMENT, "context is NULL");
  CHECK_FAILS(ctx, clforge_context_get_validation(ctx, NULL), CLFORGE_INVALID_ARGUMENT, "enabled is NULL");
  CHECK_OK(ctx, clforge_context_queue(ctx, &q));
  CHECK(clforge_last_error(ctx)[0] == '\0', "%s", "a successful call clears the last error");

  /* paths */
  char small[4], big[4096];
  CHECK_FAILS(NULL, clforge_path(CLFORGE_PATH_BINARY_CACHE, NULL, 10), CLFORGE_INVALID_ARGUMENT, "NULL");
  CHECK_FAILS(NULL, clforge_path(CLFORGE_PATH_BINARY_CACHE, big, 0), CLFORGE_INVALID_ARGUMENT, "buf_size");
  CHECK_FAILS(NULL, clforge_path((clforge_path_kind)42, big, sizeof big), CLFORGE_INVALID_ARGUMENT, "42");
  memset(small, 'x', sizeof small);
  CHECK_FAILS(NULL, clforge_path(CLFORGE_PATH_SYSTEM_TUNING_FILE, small, sizeof small), CLFORGE_BUFFER_TOO_SMALL,
              "buffer holds 4");
  CHECK(small[0] == 'x' && small[3] == 'x', "%s", "nothing written when the path does not fit");
  CHECK_OK(NULL, clforge_path(CLFORGE_PATH_SYSTEM_TUNING_FILE, big, sizeof big));
  CHECK(strstr(big, "tuning.json") != NULL, "%s", big);

  /* convert */
  cl_event ev = NULL;
  CHECK_FAILS(NULL, clforge_convert(NULL, N, src, 0, CLFORGE_F32, dst, 0, CLFORGE_F16, 0, NULL, NULL),
              CLFORGE_INVALID_ARGUMENT, "context is NULL");
  CHECK_FAILS(ctx, clforge_convert(ctx, N, src, 0, (clforge_dtype)7, dst, 0, CLFORGE_F16, 0, NULL, NULL),
              CLFORGE_INVALID_ARGUMENT, "unknown dtype");
  CHECK_FAILS(ctx, clforge_convert(ctx, N, src, 0, CLFORGE_F32, dst, 0, (clforge_dtype)0, 0, NULL, NULL),
              CLFORGE_INVALID_ARGUMENT, "unknown dtype");
  CHECK_FAILS(ctx, clforge_convert(ctx, N, NULL, 0, CLFORGE_F32, dst, 0, CLFORGE_F16, 0, NULL, NULL),
              CLFORGE_INVALID_ARGUMENT, "src is NULL");
  CHECK_FAILS(ctx, clforge_convert(ctx, N, src, 0, CLFORGE_F32, NULL, 0, CLFORGE_F16, 0, NULL, NULL),
              CLFORGE_INVALID_ARGUMENT, "dst is NULL");
  CHECK_FAILS(ctx, clforge_convert(ctx, N + 1, src, 0, CLFORGE_F32, dst, 0, CLFORGE_F16, 0, NULL, NULL),
              CLFORGE_BUFFER_TOO_SMALL, "src needs 404 bytes");
  CHECK_FAILS(ctx, clforge_convert(ctx, N, src, 1, CLFORGE_F32, dst, 0, CLFORGE_F16, 0, NULL, NULL),
              CLFORGE_BUFFER_TOO_SMALL, "offset 1");
  CHECK_FAILS(ctx, clforge_convert(ctx, N, src, 0, CLFORGE_F16, dst, N + 1, CLFORGE_F32, 0, NULL, NULL),
              CLFORGE_BUFFER_TOO_SMALL, "dst needs");
  CHECK_FAILS(ctx, clforge_convert(ctx, N, src, SIZE_MAX - 10, CLFORGE_F32, dst, 0, CLFORGE_F16, 0, NULL, NULL),
              CLFORGE_SIZE_OVERFLOW, "overflows");
  CHECK_FAILS(ctx, clforge_convert(ctx, SIZE_MAX / 2, src, 0, CLFORGE_F32, dst, 0, CLFORGE_F16, 0, NULL, NULL),
              CLFORGE_SIZE_OVERFLOW, "overflows");
  CHECK_FAILS(ctx, clforge_convert(ctx, N, src, 0, CLFORGE_F32, dst, 0, CLFORGE_F16, 1, NULL, NULL),
              CLFORGE_INVALID_ARGUMENT, "disagree");
  CHECK_FAILS(ctx, clforge_convert(ctx, N, src, 0, CLFORGE_F32, dst, 0, CLFORGE_F16, 0, &ev, NULL),
              CLFORGE_INVALID_ARGUMENT, "disagree");
  CHECK_FAILS(ctx, clforge_convert(ctx, N / 2, src, 0, CLFORGE_F16, src, 10, CLFORGE_F16, 0, NULL, NULL),
              CLFORGE_INVALID_ARGUMENT, "overlap");
  CHECK_FAILS(ctx, clforge_convert(ctx, N / 2, src, 0, CLFORGE_F16, src, 0, CLFORGE_BF16, 0, NULL, NULL),
              CLFORGE_INVALID_ARGUMENT, "in-place");
  /* a buffer of another OpenCL context */
  cl_context other_ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, NULL);
  cl_mem foreign = clCreateBuffer(other_ctx, CL_MEM_READ_WRITE, N * 4, NULL, NULL);
  CHECK_FAILS(ctx, clforge_convert(ctx, N, foreign, 0, CLFORGE_F32, dst, 0, CLFORGE_F16, 0, NULL, NULL),
              CLFORGE_INVALID_ARGUMENT, "another OpenCL context");
  clReleaseMemObject(foreign);
  clReleaseContext(other_ctx);
  /* Aliasing seen through sub-buffers: two views of one buffer that overlap. */
  cl_buffer_region r1 = {0, 64 * 4}, r2 = {32 * 4, 64 * 4};
  cl_mem sub1 = clCreateSubBuffer(src, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &r1, NULL);
  cl_mem sub2 = clCreateSubBuffer(src, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &r2, NULL);
  CHECK_FAILS(ctx, clforge_convert(ctx, 64, sub1, 0, CLFORGE_F32, sub2, 0, CLFORGE_F16, 0, NULL, NULL),
              CLFORGE_INVALID_ARGUMENT, "overlap");
  CHECK_FAILS(ctx, clforge_convert(ctx, 32, sub2, 0, CLFORGE_F32, src, 40, CLFORGE_F32, 0, NULL, NULL),
              CLFORGE_INVALID_ARGUMENT, "overlap");
  CHECK_FAILS(ctx, clforge_convert(ctx, 32, sub2, 0, CLFORGE_F16, src, 64, CLFORGE_BF16, 0, NULL, NULL),
              CLFORGE_INVALID_ARGUMENT, "in-place");
  clReleaseMemObject(sub1);
  clReleaseMemObject(sub2);
  /* Access flags: writing a read-only buffer, reading a write-only one. */
  cl_mem ro = clCreateBuffer(c, CL_MEM_READ_ONLY, N * 4, NULL, NULL), wo = clCreateBuffer(c, CL_MEM_WRITE_ONLY, N * 4, NULL, NULL);
  CHECK_FAILS(ctx, clforge_convert(ctx, N, src, 0, CLFORGE_F32, ro, 0, CLFORGE_F16, 0, NULL, NULL),
              CLFORGE_INVALID_ARGUMENT, "CL_MEM_READ_ONLY");
  CHECK_FAILS(ctx, clforge_convert(ctx, N, wo, 0, CLFORGE_F32, dst, 0, CLFORGE_F16, 0, NULL, NULL),
              CLFORGE_INVALID_ARGUMENT, "CL_MEM_WRITE_ONLY");
  clReleaseMemObject(ro);
  clReleaseMemObject(wo);
  /* A bad CLFORGE_PARAMS override is reported, not ignored. */
  setenv("CLFORGE_PARAMS", "convert:VW=4294967300", 1);
  CHECK_FAILS(ctx, clforge_convert(ctx, N, src, 0, CLFORGE_F32, dst, 0, CLFORGE_F16, 0, NULL, NULL),
              CLFORGE_INVALID_ENVIRONMENT, "integer");
  setenv("CLFORGE_PARAMS", "convert:VW=3", 1);
  CHECK_FAILS(ctx, clforge_convert(ctx, N, src, 0, CLFORGE_F32, dst, 0, CLFORGE_F16, 0, NULL, NULL),
              CLFORGE_INVALID_ENVIRONMENT, "VW=3");
  setenv("CLFORGE_PARAMS", "convert:XX=4", 1);
  CHECK_FAILS(ctx, clforge_convert(ctx, N, src, 0, CLFORGE_F32, dst, 0, CLFORGE_F16, 0, NULL, NULL),
              CLFORGE_INVALID_ENVIRONMENT, "unknown parameter");
  setenv("CLFORGE_PARAMS", "convert:VW=x", 1);
  CHECK_FAILS(ctx, clforge_convert(ctx, N, src, 0, CLFORGE_F32, dst, 0, CLFORGE_F16, 0, NULL, NULL),
              CLFORGE_INVALID_ENVIRONMENT, "integer");
  unsetenv("CLFORGE_PARAMS");

  clFinish(q);
  tu_read(ctx, dst, 0, sizeof after, after);
  CHECK(!memcmp(after, sentinel, sizeof after), "%s", "no bad call wrote to dst");
  tu_read(ctx, src, 0, sizeof after, after);
  CHECK(!memcmp(after, sentinel, sizeof after), "%s", "no bad call wrote to src");

  /* Edge cases that are valid: n = 0 (NULL buffers allowed) returns a complete event. */
  CHECK_OK(ctx, clforge_convert(ctx, 0, NULL, 0, CLFORGE_F32, NULL, 0, CLFORGE_F16, 0, NULL, &ev));
  CHECK(ev != NULL && clWaitForEvents(1, &ev) == CL_SUCCESS, "%s", "n = 0 gives an event");
  if (ev) clReleaseEvent(ev);

  /* reference */
  float f[2] = {1, 2};
  uint16_t h[2];
  CHECK_FAILS(NULL, clforge_ref_convert(2, f, (clforge_dtype)9, h, CLFORGE_F16), CLFORGE_INVALID_ARGUMENT, "dtype");
  CHECK_FAILS(NULL, clforge_ref_convert(2, NULL, CLFORGE_F32, h, CLFORGE_F16), CLFORGE_INVALID_ARGUMENT, "NULL");
  CHECK_FAILS(NULL, clforge_ref_convert(2, f, CLFORGE_F32, NULL, CLFORGE_F16), CLFORGE_INVALID_ARGUMENT, "NULL");
  CHECK_FAILS(NULL, clforge_ref_convert(SIZE_MAX / 2, f, CLFORGE_F32, h, CLFORGE_F16), CLFORGE_SIZE_OVERFLOW,
              "overflow");
  CHECK_OK(NULL, clforge_ref_convert(0, NULL, CLFORGE_F32, NULL, CLFORGE_F16));
  uint16_t inplace[4] = {0x3C00, 0x4000, 0x4200, 0x4400};
  CHECK_FAILS(NULL, clforge_ref_convert(2, inplace, CLFORGE_F16, inplace, CLFORGE_F32), CLFORGE_INVALID_ARGUMENT, "overlap");
  CHECK(inplace[1] == 0x4000, "%s", "the failed in-place widening wrote nothing");
  CHECK_OK(NULL, clforge_ref_convert(4, inplace, CLFORGE_F16, inplace, CLFORGE_F16));

  /* destroy(NULL) is a no-op; last_error(NULL) is always a string */
  clforge_context_destroy(NULL);
  CHECK(clforge_last_error(NULL) != NULL, "%s", "last_error(NULL)");
  clReleaseMemObject(src);
  clReleaseMemObject(dst);
  clforge_context_destroy(ctx);
  return tu_summary();
}
