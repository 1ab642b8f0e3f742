/* The activation's forward pass as a step of another op (clforge_conv2d_aux
 * applies it after the convolution): cl/activation_backward.cl's kernel
 * built with FWD. */
#ifndef CLFORGE_SRC_OPS_ACTIVATION_H
#define CLFORGE_SRC_OPS_ACTIVATION_H

#include <clforge/clforge.h>

/* buf[offset .. offset + count) = act(itself), in type; after the wait
 * list; *done (required) its event. Checks nothing the caller has not. */
clforge_status clforge__activation_forward(clforge_context ctx, clforge_activation act, size_t count, cl_mem buf,
                                           clforge_dtype type, size_t offset, cl_uint nwait, const cl_event *wait,
                                           cl_event *done);

#endif
