/* CLBlast as a GEMM provider: where the tuner found CLBlast faster for a
 * shape class on this device, calls of that class run through it. */
#ifndef CLFORGE_SRC_PROVIDERS_CLBLAST_GEMM_H
#define CLFORGE_SRC_PROVIDERS_CLBLAST_GEMM_H

#include "../desc/gemm_desc.h"

/* 1 when CLBlast can compute g exactly as clforge_gemm defines it: f32
 * storage throughout, no bias, no activation (CLBlast has none of those). */
int clforge__clblast_gemm_eligible(const clforge__gemm *g);

/* Enqueue g (row-major view) on ctx's queue after the wait list; *event (may
 * be NULL) completes with the multiply. */
clforge_status clforge__clblast_gemm(clforge_context ctx, const clforge__gemm *g, cl_mem a, cl_mem b, cl_mem c,
                                     cl_uint nwait, const cl_event *wait, cl_event *event);

#endif
