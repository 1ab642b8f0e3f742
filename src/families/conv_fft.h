/* The conv_fft family's parameter indices (src/families/conv_fft.c). */
#ifndef CLFORGE_SRC_KERNELS_CONV_FFT_H
#define CLFORGE_SRC_KERNELS_CONV_FFT_H

/* KB output channels x NB images x VW frequencies (a vector) per
 * work-item of the pointwise product, WG work-items per group along the frequencies, PHASE 1: a stride is split
 * into stride_h x stride_w phase planes (a stride-1 problem with that many
 * more channels and a filter that much smaller), 0: the stride-1
 * correlation is computed whole and subsampled by the last kernel. */
enum { CONV_FFT_KB, CONV_FFT_NB, CONV_FFT_VW, CONV_FFT_WG, CONV_FFT_PHASE, CONV_FFT_NPARAMS };

/* Tests only (src/ops/conv_fft.c): 1 runs the transforms with our plain
 * DFT kernels instead of clFFT's (Oclgrind cannot run clFFT's kernels). Set
 * before any convolution runs; not thread-safe. */
void clforge__conv_fft_test_dft(int on);

#endif
