/* The bias gradient pass (cl/gemm_bias_grad.cl): a matrix's rows or
 * columns summed, over a batch too, in a fixed order. The GEMM's backward
 * epilogue and clforge_conv2d_backward_data_aux's dbias share it. */
#ifndef CLFORGE_SRC_OPS_GEMM_BIAS_GRAD_H
#define CLFORGE_SRC_OPS_GEMM_BIAS_GRAD_H

#include <clforge/clforge.h>

/* bias (per_row: m values, else n; bias_type at bias_off, overwritten) =
 * C (c_type, row-major m x n at c_off with leading dimension ldc, batch
 * items stride_c apart) summed along each row (per_row) or column and over
 * the batch. Sizes below 2^32; idx64 when C's elements need 64-bit indices. */
clforge_status clforge__sum_to_bias(clforge_context ctx, cl_mem c, clforge_dtype c_type, size_t c_off, size_t ldc,
                                    size_t stride_c, size_t m, size_t n, size_t batch, int per_row, int idx64,
                                    cl_mem bias, clforge_dtype bias_type, size_t bias_off, cl_uint nwait,
                                    const cl_event *wait, cl_event *event);

#endif
