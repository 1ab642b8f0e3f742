/* The commands of one call in order on the context's queue, each after the
 * one before: the first after the caller's wait list and the scratch
 * buffers' last users (their "busy" events), the last handed back as the
 * call's event. One mechanism for the ops made of several launches. */
#ifndef CLFORGE_SRC_OPS_LAUNCH_CHAIN_H
#define CLFORGE_SRC_OPS_LAUNCH_CHAIN_H

#include <clforge/clforge.h>

typedef struct clforge__chain {
  cl_event *first; /* the first command's wait list (owned) */
  cl_uint nfirst;
  cl_event last;   /* the last command enqueued (owned), NULL before the first */
} clforge__chain;

/* The first command waits on wait[0 .. nwait) and on the non-NULL of
 * extra[0 .. nextra) (events the caller keeps). Fails only for memory. */
clforge_status clforge__chain_begin(clforge_context ctx, const char *op, clforge__chain *ch, cl_uint nwait,
                                    const cl_event *wait, int nextra, const cl_event *extra);
/* What the next command waits on: the last one, or the first's list. */
cl_uint clforge__chain_nwait(const clforge__chain *ch);
const cl_event *clforge__chain_wait(const clforge__chain *ch);
/* ev (owned by the chain from now; NULL ignored) is the new last command. */
void clforge__chain_add(clforge__chain *ch, cl_event ev);
/* Enqueue k after the chain and make it the last command. */
clforge_status clforge__chain_launch(clforge_context ctx, clforge__chain *ch, cl_kernel k, cl_uint dims,
                                     const size_t *global, const size_t *local, const char *what);
/* Done: with st CLFORGE_SUCCESS and event non-NULL, *event = the last
 * command (the caller owns it), else it is released; returns st. */
clforge_status clforge__chain_end(clforge__chain *ch, clforge_status st, cl_event *event);

#endif
