/* The context's scratch memory (packing panels): one device buffer,
 * allocated on first need, grown up to a bound, reused across calls and
 * freed with the context. Ops that need more than the bound block their
 * problem to fit. */
#ifndef CLFORGE_SRC_WORKSPACE_H
#define CLFORGE_SRC_WORKSPACE_H

#include <stddef.h>

#include "clforge/clforge.h"

/* The bound when no other is set: large enough for the packed panels of a
 * 4096^3 f32 GEMM (128 MiB), small against a device's memory. */
#define CLFORGE_WORKSPACE_DEFAULT_CAP ((size_t)256 << 20)
/* cl/gemm_packed.cl indexes its f32 panels with uint: the workspace must stay
 * below 2^32 floats. */
_Static_assert(CLFORGE_WORKSPACE_DEFAULT_CAP / 4 < ((size_t)1 << 32), "packed panels are indexed with uint");

typedef struct clforge__workspace {
  cl_mem buffer;     /* NULL until first needed */
  size_t bytes;      /* its size */
  size_t cap;        /* the bound; 0: the default, limited by the device (tests set smaller ones) */
  cl_event busy;     /* the last command that used the buffer, or NULL */
} clforge__workspace;

/* The bound in bytes on ctx's device. */
size_t clforge__workspace_cap(clforge_context ctx);

/* A buffer of at least `bytes` (<= the cap), and the event its previous
 * user finished with (NULL if none; not retained for the caller): the new
 * use must wait for it, as an out-of-order queue may otherwise overlap the
 * two. */
clforge_status clforge__workspace_get(clforge_context ctx, size_t bytes, cl_mem *buffer, cl_event *busy);

/* The same from another of the context's workspaces (w): convolution's
 * scratch is separate from GEMM's panels, because its algorithms call GEMM
 * while their own scratch is in use. The bound is the same. */
clforge_status clforge__workspace_get_from(clforge_context ctx, clforge__workspace *w, size_t bytes, cl_mem *buffer,
                                           cl_event *busy);
void clforge__workspace_used_by(clforge__workspace *w, cl_event last);

/* The last command of the new use (retained; replaces the previous one). */
void clforge__workspace_used(clforge_context ctx, cl_event last);

/* Free the buffer and the event (clforge_context_destroy). */
void clforge__workspace_release(clforge__workspace *w);

#endif
