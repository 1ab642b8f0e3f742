/* Recording failures: every public function reports through these so that the
 * status and the detailed message are set in one place. */
#ifndef CLFORGE_SRC_ERROR_H
#define CLFORGE_SRC_ERROR_H

#include "clforge/clforge.h"

#if defined(__GNUC__)
#define CLFORGE_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define CLFORGE_PRINTF(f, a)
#endif

/* Record `status` with a formatted detail message on ctx (or, with ctx NULL,
 * in this thread's context-less slot), log it, and return status. */
clforge_status clforge__fail(clforge_context ctx, clforge_status status, const char *fmt, ...)
    CLFORGE_PRINTF(3, 4);

/* Clear the last error at the start of a public call. */
void clforge__clear_error(clforge_context ctx);

/* Map an OpenCL status from a call named `what` onto a recorded failure. */
clforge_status clforge__fail_cl(clforge_context ctx, cl_int err, const char *what);

#endif
