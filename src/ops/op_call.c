/* clforge__call_*: see op_call.h. */
#include "op_call.h"

#include "../core/context.h"
#include "../core/error.h"

clforge_status clforge__call_begin(clforge_context ctx, const char *op, cl_event *event) {
  if (!ctx) return clforge__fail(NULL, CLFORGE_INVALID_ARGUMENT, "%s: context is NULL", op);
  clforge__clear_error(ctx);
  if (event) *event = NULL;
  return CLFORGE_SUCCESS;
}

clforge_status clforge__call_marker(clforge_context ctx, const char *op, cl_uint nwait, const cl_event *wait,
                                    cl_event *event) {
  if (!event) return CLFORGE_SUCCESS;
  cl_int err = clEnqueueMarkerWithWaitList(ctx->queue, nwait, wait, event);
  return err == CL_SUCCESS ? CLFORGE_SUCCESS : clforge__fail(ctx, err, "clEnqueueMarkerWithWaitList (%s) failed", op);
}

clforge_status clforge__call_await_inputs(clforge_context ctx, const char *op, cl_uint nwait, const cl_event *wait) {
  cl_int err = nwait ? clWaitForEvents(nwait, wait) : CL_SUCCESS;
  return err == CL_SUCCESS ? CLFORGE_SUCCESS : clforge__fail(ctx, err, "%s validation: waiting for the wait list failed", op);
}

clforge_status clforge__call_await_done(clforge_context ctx, const char *op, cl_event done) {
  cl_int err = clWaitForEvents(1, &done);
  return err == CL_SUCCESS ? CLFORGE_SUCCESS : clforge__fail(ctx, err, "%s: waiting for the result to validate failed", op);
}

clforge_status clforge__call_end(clforge_status st, cl_event done, cl_event *event) {
  if (event && st == CLFORGE_SUCCESS) *event = done;
  else if (done) clReleaseEvent(done);
  return st;
}
