/* clforge__chain: see launch_chain.h. */
#include "launch_chain.h"

#include <stdlib.h>

#include "../core/error.h"
#include "../core/program.h"
#include "op_call.h"

clforge_status clforge__chain_begin(clforge_context ctx, const char *op, clforge__chain *ch, cl_uint nwait,
                                    const cl_event *wait, int nextra, const cl_event *extra) {
  ch->first = NULL, ch->nfirst = 0, ch->last = NULL;
  if (nwait + (cl_uint)nextra == 0) return CLFORGE_SUCCESS;
  ch->first = malloc((nwait + (size_t)nextra) * sizeof *ch->first);
  if (!ch->first) return clforge__fail(ctx, CLFORGE_OUT_OF_HOST_MEMORY, "%s: no memory for its wait list", op);
  for (cl_uint i = 0; i < nwait; ++i) ch->first[ch->nfirst++] = wait[i];
  for (int i = 0; i < nextra; ++i)
    if (extra[i]) ch->first[ch->nfirst++] = extra[i];
  return CLFORGE_SUCCESS;
}

cl_uint clforge__chain_nwait(const clforge__chain *ch) { return ch->last ? 1 : ch->nfirst; }

const cl_event *clforge__chain_wait(const clforge__chain *ch) {
  return ch->last ? &ch->last : ch->nfirst ? ch->first : NULL;
}

void clforge__chain_add(clforge__chain *ch, cl_event ev) {
  if (!ev) return;
  if (ch->last) clReleaseEvent(ch->last);
  ch->last = ev;
}

clforge_status clforge__chain_launch(clforge_context ctx, clforge__chain *ch, cl_kernel k, cl_uint dims,
                                     const size_t *global, const size_t *local, const char *what) {
  cl_event ev = NULL;
  clforge_status st =
      clforge__launch(ctx, k, dims, global, local, clforge__chain_nwait(ch), clforge__chain_wait(ch), &ev, what);
  if (st == CLFORGE_SUCCESS) clforge__chain_add(ch, ev);
  return st;
}

clforge_status clforge__chain_end(clforge__chain *ch, clforge_status st, cl_event *event) {
  free(ch->first);
  ch->first = NULL, ch->nfirst = 0;
  const cl_event last = ch->last;
  ch->last = NULL;
  return clforge__call_end(st, last, event);
}
