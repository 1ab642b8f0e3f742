/* What the ops' tuner hooks (src/ops/<op>_tune.c) share: poisoning an output
 * before each candidate's run, releasing a problem's buffers, and the row
 * ops' (softmax, softmax_backward, cross_entropy) applicability, variant
 * and rate. */
#ifndef CLFORGE_SRC_OPS_TUNE_COMMON_H
#define CLFORGE_SRC_OPS_TUNE_COMMON_H

#include <stddef.h>

#include "../families/family.h"

/* Fills `bytes` of buf with 0xff, NaN in every storage type, so that a
 * candidate that leaves an element unwritten fails its check. Enqueued
 * only: the run that follows is ordered after it on ctx's queue. */
void clforge__tune_poison(clforge_context ctx, cl_mem buf, size_t bytes);

/* The end of a setup(): on success *state = p; on failure p torn down
 * (teardown takes a partly built problem) and *state left NULL. st. */
clforge_status clforge__tune_setup_done(clforge_status st, void *p, void (*teardown)(void *), void **state);

/* Releases the buffers of m[0..n) that are not NULL. */
void clforge__tune_release(const cl_mem *m, size_t n);

/* An applicable() for ops that run every set on every shape of their
 * families' classes (the families list only classes their algorithm runs;
 * bounds are checked in the kernels). */
int clforge__tune_any_applicable(const clforge__family *f, const int *v, const size_t *shape);

/* A row op's set v of family f on rows of shape[1] elements: not more
 * work-items per row than vectors in it (some would idle). Reads WG and
 * VW at softmax's indices for its family, softmax_backward's (which
 * cross_entropy shares) for the others. */
int clforge__tune_row_applicable(const clforge__family *f, const int *v, const size_t *shape);

/* A row op's tuning key: dtypes "a,b" (e.g. "f32,bf16": softmax's x and y,
 * cross_entropy's logits and dlogits) into *a and *b, layout "rows"; 0, or
 * -1 when either is malformed. */
int clforge__tune_row_key(const char *dtypes, const char *layout, clforge_dtype *a, clforge_dtype *b);

/* Rows of at most 512 elements are the short-row variant. */
int clforge__tune_row_variant(const char *dtypes, const char *layout, const size_t *shape);

/* Bytes moved by a rows x n forward at f32 storage (read and written), so
 * the rate the tuner records reads as GB/s. */
double clforge__tune_row_bytes(const size_t *shape);

#endif
