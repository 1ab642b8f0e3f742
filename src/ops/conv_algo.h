/* What every convolution algorithm provides to the op (src/ops/conv.c):
 * one table row per algorithm, defined in src/ops/conv_<algo>.c. The op
 * checks arguments and buffers, chooses the algorithm and its family's
 * parameters, provides the workspace and the wait list, and validates;
 * an algorithm only says what it can do and enqueues it. */
#ifndef CLFORGE_SRC_OPS_CONV_ALGO_H
#define CLFORGE_SRC_OPS_CONV_ALGO_H

#include "../desc/conv_desc.h"
#include "../families/conv_classes.h"
#include "../families/family.h"
#include "../ref/compare.h"

/* One call as an algorithm sees it. Every buffer is already checked. */
typedef struct clforge__conv_exec {
  clforge_context ctx;
  const clforge__conv *d;
  const int *v;                /* the family's parameter values (NULL when it has no family) */
  cl_mem x, w, bias, y;        /* w: the user's filter (NULL when prepared weights are given) */
  cl_mem pw;                   /* prepared weights (the algorithm's own layout), or NULL */
  cl_mem ws;                   /* workspace of at least workspace() bytes (NULL when 0) */
  size_t ws_bytes;
  cl_uint nwait;               /* run after these (the caller's list and the workspace's last user) */
  const cl_event *wait;
  cl_event *event;             /* never NULL: the call's last command (the op releases it) */
} clforge__conv_exec;

typedef struct clforge__conv_algo_impl {
  clforge_conv_algo algo;
  const char *name;                  /* clforge_conv_algo_name */
  const clforge__family *family;     /* its tuned parameters (the first of its kernels) */
  /* 1 when it can compute d on ctx's device, else 0 with the reason in why
   * (e.g. "winograd_4x4 needs a 3x3 filter, stride 1, dilation 1"). */
  int (*supports)(clforge_context ctx, const clforge__conv *d, char *why, size_t cap);
  /* Scratch bytes for d with values v (0, or NULL: none). The algorithm may tile its
   * work (e.g. over the batch) to stay within clforge__workspace_cap. */
  size_t (*workspace)(clforge_context ctx, const clforge__conv *d, const int *v);
  /* Prepared weights: their bytes (0, or NULL: the algorithm reads w as given, and
   * the prepared object just keeps a reference to w) and the transform of
   * e->w into `out`, enqueued after e's wait list (*e->event its end). */
  size_t (*weights_bytes)(const clforge__conv *d, const int *v);
  clforge_status (*prepare_weights)(const clforge__conv_exec *e, cl_mem out);
  /* Enqueue the call: everything after e's wait list, *e->event its last
   * command. Build every kernel before the first launch, so that a build
   * failure leaves y untouched. */
  clforge_status (*enqueue)(const clforge__conv_exec *e);
  /* Optional: the kernels it runs besides its own family (e.g. the GEMM's),
   * for explain; returns how many it filled. */
  int (*explain)(clforge_context ctx, const clforge__conv *d, const int *v, clforge_kernel_choice *out, int cap);
} clforge__conv_algo_impl;

/* The table, indexed by clforge_conv_algo (entry 0, AUTO, is NULL). */
extern const clforge__conv_algo_impl clforge__conv_direct, clforge__conv_implicit_gemm, clforge__conv_gemm_1x1,
    clforge__conv_im2col, clforge__conv_winograd_2x2, clforge__conv_winograd_4x4, clforge__conv_fft,
    clforge__conv_depthwise;
const clforge__conv_algo_impl *clforge__conv_algo_impl_of(clforge_conv_algo algo);

/* Free a prepared filter's parts (float or int8 weights): after the
 * context's queue drains (calls that use it may still run). */
void clforge__conv_weights_free(clforge_context ctx, cl_event ready, cl_mem buf, void *host_w);

/* The tolerance a result of `algo` stored as `dtype` is checked with
 * (validation mode, the tuner, the tests): clforge__tolerance_for, widened
 * for the transforms that lose f32 precision (Winograd F(4x4,3x3), FFT;
 * the bounds are derived in src/ops/conv_winograd.c and conv_fft.c). The
 * second form finds the algorithm of a family (NULL: the plain tolerance). */
clforge__tolerance clforge__conv_algo_tolerance(clforge_conv_algo algo, clforge_dtype dtype);
clforge__tolerance clforge__conv_tolerance(const clforge__family *f, clforge_dtype dtype);

/* 1 when a tuned shape (a class's, or a tuning entry's) may stand for a
 * call's: input channels, output channels and image size each within a
 * factor CLFORGE__CONV_NEAR_FACTOR (the batch size is not a bound: a batch
 * scales the work, it does not change which algorithm wins). A layer of 1
 * input channel is not ResNet's 64-channel 3x3 layer: the winner there
 * (Winograd) loses to the heuristic's direct kernel on it. Both shapes are CLFORGE_CONV_NDIMS dims. */
#define CLFORGE__CONV_NEAR_FACTOR 8.0
int clforge__conv_shape_near(const size_t *call, const size_t *tuned);

/* The problem key of d for family lookups (dtypes, layout, shape class,
 * shape); the strings live in `keybuf`. */
typedef struct clforge__conv_key {
  char dtypes[32], layout[16], shape_class[32];
  clforge__problem_key key;
} clforge__conv_key;
void clforge__conv_make_key(const clforge__conv *d, clforge__conv_key *k);

/* Where the heuristic table (src/ops/conv.c) puts algo for d: 0 for its
 * choice, then the other algorithms that can do d in the table's row order
 * (a row's condition aside: the next row is the closest rival); FFT, which
 * no row names, last. The tuner measures a class's first two before
 * anything else. */
int clforge__conv_heuristic_rank(clforge_context ctx, const clforge__conv *d, clforge_conv_algo algo);

/* The variant bits (CLFORGE__CONV_VARIANT_*, conv_classes.h) of d. */
int clforge__conv_variant(const clforge__conv *d);

/* -D options every conv kernel gets from d: X_T W_T Y_T BIAS_T (storage
 * codes), BIAS (0/1), ACT, IDX64, and the geometry is passed as arguments
 * (not compiled in). Appends to buf. */
void clforge__conv_problem_options(const clforge__conv *d, char *buf, size_t cap);

/* The arguments (offset, then the element strides of the axes in `axes`, a
 * bit per axis: 0xF all four) of tensor t, from argument *a on; a buffer
 * argument goes before them. Returns the OR of clSetKernelArg's results. */
cl_int clforge__conv_tensor_args(cl_kernel k, cl_uint *a, const clforge__conv_tensor *t, unsigned axes);

/* Sets the arguments of a kernel laid out as cl/conv_direct.cl and
 * cl/conv_depthwise.cl (x, its readable length and strides; the filter
 * buffer w with the strides of wt in w_axes; y; bias and its offset; the
 * nu sizes u; alpha, beta) and enqueues it over the 3-D global/local
 * after e's wait list; `what` names it in messages ("conv2d direct"). */
clforge_status clforge__conv_set_args_launch(const clforge__conv_exec *e, cl_kernel k, cl_mem w,
                                             const clforge__conv_tensor *wt, unsigned w_axes, const cl_uint *u,
                                             size_t nu, const size_t global[3], const size_t local[3],
                                             const char *what);

/* A kernel of family f built with values v and d's problem options (plus
 * `extra` -D options, may be NULL); fails with a message naming the
 * parameters when the device cannot run a work-group of wgs (0: no check). */
clforge_status clforge__conv_kernel(clforge_context ctx, const clforge__family *f, const char *name, const int *v,
                                    const clforge__conv *d, const char *extra, size_t wgs, cl_kernel *k);

/* Buffer checks of the conv ops (op names the call in messages): t's
 * elements in buf with `access` (CLFORGE_ACCESS_*); no output (t[0..nout))
 * shares a byte with any other tensor of t[0..nall), nor any tensor with
 * the workspace ws (may be NULL); a copy of t's buffer up to its extent
 * (validation mode; *out NULL for an empty tensor or no buffer). */
clforge_status clforge__conv_check_tensor(clforge_context ctx, const char *op, const clforge__conv_tensor *t, cl_mem buf,
                                          int access);
clforge_status clforge__conv_check_overlaps(clforge_context ctx, const char *op, const clforge__conv_tensor *const *t,
                                            const cl_mem *b, int nout, int nall, cl_mem ws, size_t ws_bytes);
clforge_status clforge__conv_read_tensor(clforge_context ctx, const char *op, const clforge__conv_tensor *t, cl_mem buf,
                                         void **out);

/* The forward's choice for a resolved forward problem (ops/conv.c): what
 * clforge_conv2d_explain reports, and backward data's forward route. */
clforge_status clforge__conv_forward_explain(clforge_context ctx, const clforge__conv *d, clforge_conv_choice *choice);

#endif
