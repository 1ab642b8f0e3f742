/* A context wrapped around the application's own queue: ops run on it, the
 * accessors return it, and destroying the context leaves it valid. */
#include "test_util.h"

static cl_uint refcount(cl_command_queue q) {
  cl_uint n = 0;
  clGetCommandQueueInfo(q, CL_QUEUE_REFERENCE_COUNT, sizeof n, &n, NULL);
  return n;
}

int main(void) {
  cl_platform_id p;
  cl_device_id d;
  cl_int err;
  if (clGetPlatformIDs(1, &p, NULL) != CL_SUCCESS || clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 1, &d, NULL) != CL_SUCCESS)
    return 1;
  cl_context app_ctx = clCreateContext(NULL, 1, &d, NULL, NULL, &err);
  cl_command_queue app_q = clCreateCommandQueue(app_ctx, d, 0, &err); /* no profiling: ops must not need it */
  CHECK(err == CL_SUCCESS, "%d", err);
  cl_uint before = refcount(app_q);

  for (int round = 0; round < 2; ++round) { /* twice: a second wrap of the same queue works too */
    clforge_context ctx = NULL;
    CHECK_OK(NULL, clforge_context_create_from_queue(app_q, &ctx));
    if (!ctx) return tu_summary();
    cl_command_queue q;
    cl_context c;
    cl_device_id dd;
    CHECK_OK(ctx, clforge_context_queue(ctx, &q));
    CHECK_OK(ctx, clforge_context_cl_context(ctx, &c));
    CHECK_OK(ctx, clforge_context_device(ctx, &dd));
    CHECK(q == app_q && c == app_ctx && dd == d, "%s", "accessors return the application's objects");

    /* An op on the application's buffers and queue, checked against the reference. */
    enum { N = 1031 };
    float in[N];
    uint16_t out[N], want[N];
    for (int i = 0; i < N; ++i) in[i] = (float)i * 0.37f - 100.0f;
    cl_mem a = clCreateBuffer(app_ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof in, in, &err);
    cl_mem b = clCreateBuffer(app_ctx, CL_MEM_WRITE_ONLY, sizeof out, NULL, &err);
    cl_event ev = NULL;
    CHECK_OK(ctx, clforge_convert(ctx, N, a, 0, CLFORGE_F32, b, 0, CLFORGE_BF16, 0, NULL, &ev));
    CHECK(ev != NULL, "%s", "an event is returned");
    /* The application waits on our event with its own API. */
    CHECK(clEnqueueReadBuffer(app_q, b, CL_TRUE, 0, sizeof out, out, 1, &ev, NULL) == CL_SUCCESS, "%s", "read");
    clReleaseEvent(ev);
    clforge_ref_convert(N, in, CLFORGE_F32, want, CLFORGE_BF16);
    CHECK(!memcmp(out, want, sizeof out), "%s", "result equals the reference");
    clforge_context_destroy(ctx);
    clReleaseMemObject(a);
    clReleaseMemObject(b);

    /* The application's queue is still its own and still works. */
    /* Never fewer references than the application holds (the count is only a
     * hint: drivers may hold transient ones of their own). */
    clFinish(app_q);
    CHECK(refcount(app_q) >= before, "refcount %u, was %u", refcount(app_q), before);
    float back[4] = {0}, four[4] = {1, 2, 3, 4};
    cl_mem m = clCreateBuffer(app_ctx, CL_MEM_COPY_HOST_PTR, sizeof four, four, &err);
    CHECK(clEnqueueReadBuffer(app_q, m, CL_TRUE, 0, sizeof back, back, 0, NULL, NULL) == CL_SUCCESS && back[3] == 4,
          "%s", "the queue works after destroy");
    CHECK(clFinish(app_q) == CL_SUCCESS, "%s", "finish");
    clReleaseMemObject(m);
  }
  CHECK(clReleaseCommandQueue(app_q) == CL_SUCCESS, "%s", "the application releases its queue");
  CHECK(clReleaseContext(app_ctx) == CL_SUCCESS, "%s", "and its context");

  clforge_context ctx = (clforge_context)&before;
  CHECK_FAILS(NULL, clforge_context_create_from_queue(NULL, &ctx), CLFORGE_INVALID_ARGUMENT, "queue is NULL");
  CHECK(ctx == NULL, "%s", "out reset");
  clforge_context_destroy(NULL); /* a no-op */
  return tu_summary();
}
