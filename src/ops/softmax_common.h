/* What clforge_softmax and clforge_softmax_backward share on the host:
 * buffer and aliasing checks of a resolved descriptor's tensors, the
 * no-op call, the run with validation mode, the launch grid and the build
 * options. */
#ifndef CLFORGE_SRC_OPS_SOFTMAX_COMMON_H
#define CLFORGE_SRC_OPS_SOFTMAX_COMMON_H

#include "../families/family.h"
#include "../desc/softmax_desc.h"
#include "buffer_check.h"

/* A call's kernel parameters and the choice explain reports. */
typedef struct clforge__softmax_plan {
  int v[CLFORGE_MAX_PARAMS];
  clforge_kernel_choice choice;
} clforge__softmax_plan;

/* Family f's values for d: tuning key (clforge__softmax_dtypes_key) /
 * "rows" / the class of d's row length. */
clforge_status clforge__softmax_plan_make(clforge_context ctx, const clforge__softmax *d, const clforge__family *f,
                                          clforge__softmax_plan *p);

/* t's elements in buf: not NULL, within CL_MEM_SIZE, the access asked. */
clforge_status clforge__softmax_check_tensor(clforge_context ctx, const clforge__softmax *d,
                                             const clforge__softmax_tensor *t, cl_mem buf, int access);

/* Output `out` (in buffer ob) is the input `in` (in ib) exactly, in place
 * (same buffer bytes, dtype and row stride), or shares no byte with it;
 * with in_place_ok 0 it must share none. */
clforge_status clforge__softmax_check_alias(clforge_context ctx, const clforge__softmax *d,
                                            const clforge__softmax_tensor *out, cl_mem ob,
                                            const clforge__softmax_tensor *in, cl_mem ib, int in_place_ok);


/* One checked call of either op: in validation mode its tensors (inputs,
 * the output last) are copied to the host once the wait list is done, the
 * kernel is launched, and the reference on the copies is compared with the
 * output; *event only on success. */
typedef struct clforge__softmax_run {
  const clforge__softmax *d;
  const clforge_softmax_desc *desc;
  int ntensors;                        /* 2 or 3 */
  const clforge__softmax_tensor *t[3]; /* the output last */
  cl_mem buf[3];
  clforge_status (*launch)(void *user, cl_uint nwait, const cl_event *wait, cl_event *event);
  /* The reference on host copies (host[i] holds t[i]'s buffer up to its
   * extent), into the output's copy. */
  clforge_status (*reference)(const clforge_softmax_desc *desc, int ntensors, void *const *host);
  void *user;
} clforge__softmax_run;

clforge_status clforge__softmax_execute(clforge_context ctx, const clforge__softmax_run *r, cl_uint nwait,
                                        const cl_event *wait, cl_event *event);

/* The NDRange for rows of WG x RPW work-groups: rows per item up to
 * rpi_max while 4 work-groups per compute unit remain (*rpi). */
void clforge__softmax_grid(clforge_context ctx, size_t rows, int wg, int rpw, int rpi_max, size_t global[2],
                           size_t local[2], cl_uint *rpi);

/* A row kernel of either op, ready to launch: its arguments are three
 * tensors (buf[i] with t[i]'s offset and row stride: the forward's x, mask,
 * y; the backward's y, dy, dx), then the rows, n (64-bit with d->idx64),
 * d->scale and the rows per item; its grid is clforge__softmax_grid's for
 * wg, rpw, rpi_max. op names it in messages. */
typedef struct clforge__softmax_launch_args {
  clforge_context ctx;
  const char *op;
  const clforge__softmax *d;
  cl_kernel k;
  cl_mem buf[3];
  const clforge__softmax_tensor *t[3];
  int wg, rpw, rpi_max;
} clforge__softmax_launch_args;

/* Launches it after the wait list (user: a clforge__softmax_launch_args;
 * clforge__softmax_run's launch). */
clforge_status clforge__softmax_launch(void *user, cl_uint nwait, const cl_event *wait, cl_event *event);

/* "-DNAME=V ..." of f's values but the one at index skip (the host's RPI)
 * into opts; the length written. */
size_t clforge__softmax_params_options(const clforge__family *f, const int *v, int skip, char *opts, size_t cap);

#endif
