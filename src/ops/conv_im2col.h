/* The im2col algorithm's passes (src/ops/conv_im2col.c), shared with the
 * backward filter's GEMM route: the column matrix of a pass of images (or
 * of one image's pixel range) written into a workspace. */
#ifndef CLFORGE_SRC_OPS_CONV_IM2COL_H
#define CLFORGE_SRC_OPS_CONV_IM2COL_H

#include "../desc/conv_desc.h"

typedef struct clforge__col_plan {
  int rows;            /* col[pixel][j] (y NHWC), else col[img][j][pixel] */
  size_t pq, rsc, rscg;
  size_t es;           /* bytes of a column element (x's storage) */
  size_t imgs, pix;    /* per pass: images, and pixels of each (pq unless imgs is 1) */
  size_t bytes;        /* the workspace of a pass */
  int pad;             /* what padding reads: 0, or x's zero point (int8 convolution) */
} clforge__col_plan;

/* The passes of d with conv_im2col values v (NULL: one image per pass); 0
 * when not even one row (or column) of the matrix fits the workspace bound. */
/* 1 when im2col + GEMM can do d (forward or backward filter: the same
 * columns), else 0 with the reason. */
int clforge__conv_im2col_supports(clforge_context ctx, const clforge__conv *d, char *why, size_t cap);
int clforge__conv_col_plan(clforge_context ctx, const clforge__conv *d, const int *v, clforge__col_plan *p);
/* The im2col kernel for d and p (built, checked to fit v's work-group). */
clforge_status clforge__conv_col_kernel(clforge_context ctx, const clforge__conv *d, const int *v,
                                        const clforge__col_plan *p, cl_kernel *kern);
/* One pass: images n0 .. n0 + imgs, pixels pix0 .. pix0 + npix of x into ws. */
clforge_status clforge__conv_col_launch(clforge_context ctx, cl_kernel kern, const clforge__conv *d, const int *v,
                                        const clforge__col_plan *p, cl_mem x, cl_mem ws, size_t n0, size_t imgs,
                                        size_t pix0, size_t npix, cl_uint nwait, const cl_event *wait,
                                        cl_event *event);

#endif
