/* The call sequence every op's public entry follows, in this order; the op
 * keeps only what is its own (resolving its descriptor, its buffer checks,
 * its plan, its enqueue, comparing its result):
 *   1. clforge__call_begin: the context (NULL refused), the last error
 *      cleared, *event NULL until the call succeeds;
 *   2. its descriptor, then clforge__check_wait_list (buffer_check.h);
 *   3. an empty problem: clforge__call_marker (the only marker in ops/);
 *   4. checks and plan, all before anything is enqueued;
 *   5. validation mode: clforge__call_await_inputs before reading inputs back;
 *   6. the enqueue, its wait list built by launch_chain.h;
 *   7. validation mode: clforge__call_await_done, then the comparison;
 *   8. clforge__call_end: the last command handed back, or released. */
#ifndef CLFORGE_SRC_OPS_OP_CALL_H
#define CLFORGE_SRC_OPS_OP_CALL_H

#include <clforge/clforge.h>

/* Step 1: CLFORGE_INVALID_ARGUMENT "<op>: context is NULL" without a context. */
clforge_status clforge__call_begin(clforge_context ctx, const char *op, cl_event *event);
/* Step 3: nothing to compute; the caller's event (if asked for) completes
 * after the wait list. */
clforge_status clforge__call_marker(clforge_context ctx, const char *op, cl_uint nwait, const cl_event *wait,
                                    cl_event *event);
/* Step 5: the inputs as they will be when the kernels run. */
clforge_status clforge__call_await_inputs(clforge_context ctx, const char *op, cl_uint nwait, const cl_event *wait);
/* Step 7: the result, for validation mode to read. */
clforge_status clforge__call_await_done(clforge_context ctx, const char *op, cl_event done);
/* Step 8: with st CLFORGE_SUCCESS and event non-NULL, *event = done (the
 * caller owns it), else done (NULL ignored) is released; returns st. */
clforge_status clforge__call_end(clforge_status st, cl_event done, cl_event *event);

#endif
