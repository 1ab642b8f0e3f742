/* What the GEMM paths share (src/ops/gemm.c, src/ops/gemm_packed.c): the
 * buffers in the row-major view, building a kernel of a family for a
 * problem, and the operand arguments every GEMM kernel takes. */
#ifndef CLFORGE_SRC_OPS_GEMM_LAUNCH_H
#define CLFORGE_SRC_OPS_GEMM_LAUNCH_H

#include "../desc/gemm_desc.h"
#include "../families/family.h"

typedef struct {
  cl_mem a, b, c, bias; /* row-major view: a and b swapped for column-major */
  cl_mem aux;           /* clforge_gemm_ex's (NULL: none) */
} clforge__gemm_buffers;

/* A, B, C and bias in their buffers (sizes, access, the context) and C
 * sharing no element with what is read: the checks of clforge_gemm before
 * aux's, shared with the int8 GEMM. */
clforge_status clforge__gemm_check_buffers(clforge_context ctx, const clforge__gemm *g, const clforge__gemm_buffers *bf);

/* Kernel `name` of family f built with values and g's problem parameters
 * (storage types, transposes, epilogue); fails with a message naming the
 * parameters when the device cannot run a work-group of wgs (0: no check). */
clforge_status clforge__gemm_kernel(clforge_context ctx, const clforge__family *f, const char *name, const int *v,
                                    const clforge__gemm *g, size_t wgs, cl_kernel *k);

/* The arguments every GEMM kernel takes from index i on: k, alpha, beta,
 * then (buffer, offset, ld, stride) for A, B, C and (buffer, offset) for
 * bias and for aux. */
cl_int clforge__gemm_set_shared_args(cl_kernel kern, cl_uint i, const clforge__gemm *g,
                                     const clforge__gemm_buffers *bf);

/* The whole GEMM g on checked buffers, for ops that run GEMM inside
 * (convolution): plan, kernels and launches as clforge_gemm, without its
 * argument checks and validation. *event (may be NULL) is the last command. */
clforge_status clforge__gemm_enqueue(clforge_context ctx, const clforge__gemm *g, const clforge__gemm_buffers *bf,
                                     cl_uint nwait, const cl_event *wait, cl_event *event);
/* The kernel choices such a GEMM makes (for the op's explain); how many. */
int clforge__gemm_explain_resolved(clforge_context ctx, const clforge__gemm *g, clforge_kernel_choice *choices,
                                   int capacity);

/* The route an m x n x k call takes without a tuning file or override on
 * ctx's device (src/ops/gemm.c): 1 packed, 0 tiled; why (may be NULL) gets
 * the rule, "heuristic: ...". mwg, nwg: the tiled kernel's tile (0: not
 * known; then a ragged edge does not count). The tuner measures this route
 * first. */
int clforge__gemm_heuristic_packed(clforge_context ctx, size_t m, size_t n, size_t k, int trans_b, size_t mwg,
                                   size_t nwg, char *why, size_t cap);

/* The packed path (src/ops/gemm_packed.c): 1 when its panels can be laid
 * out within the context's workspace bound (else the call takes the tiled
 * path), and the enqueue of the whole call. */
int clforge__gemm_packed_fits(clforge_context ctx, const clforge__gemm *g, const int *v);
clforge_status clforge__gemm_packed_enqueue(clforge_context ctx, const clforge__gemm *g,
                                            const clforge__gemm_buffers *bf, const int *v, cl_uint nwait,
                                            const cl_event *wait, cl_event *event);

/* The q8_0-weight route (src/ops/gemm_q8_0.c): its parameters for g
 * (the family's entry of g's class, a gated call's NC even) with the
 * choice explain reports, and the enqueue of the whole call. */
const char *clforge__gemm_q8_0_class(size_t m);
clforge_status clforge__gemm_q8_0_select(clforge_context ctx, const clforge__gemm *g, int *v,
                                         clforge_kernel_choice *choice);
clforge_status clforge__gemm_q8_0_enqueue(clforge_context ctx, const clforge__gemm *g, const clforge__gemm_buffers *bf,
                                          const int *v, cl_uint nwait, const cl_event *wait, cl_event *event);

#endif
