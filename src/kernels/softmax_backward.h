/* The softmax_backward family's parameter indices
 * (src/kernels/softmax_backward.c, cl/softmax_backward.cl). Its problem
 * variants are the forward's (SOFTMAX_VAR_SHORT, src/kernels/softmax.h). */
#ifndef CLFORGE_SRC_KERNELS_SOFTMAX_BACKWARD_H
#define CLFORGE_SRC_KERNELS_SOFTMAX_BACKWARD_H

/* EXP: built-in exp (0) or clforge's (1), for log-softmax's exp(y); WG
 * work-items per row; RPW rows per work-group; RPI rows per item, one after
 * the other (at most); VW vector width. */
enum { SMB_EXP, SMB_WG, SMB_RPW, SMB_RPI, SMB_VW, SMB_NPARAMS };

#endif
