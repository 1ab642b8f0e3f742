/* One row of the attention reference, for checks that sample rows (the
 * tuner, big tests, the benchmark) instead of computing all of O. */
#ifndef CLFORGE_SRC_REF_ATTENTION_H
#define CLFORGE_SRC_REF_ATTENTION_H

#include "../desc/attention_desc.h"

/* Query i of (b, h) with the given key and query lengths (already clamped):
 * out[0..Dv) in double (zeros for a row with no visible key) and *lse
 * (-inf then). mask may be NULL; d->has_mask is not consulted. table is
 * the host copy of a paged call's block table (NULL when contiguous).
 * scores is the caller's scratch of Sk doubles. */
void clforge__ref_attention_row(const clforge__attn *d, const void *q, const void *k, const void *v, const void *mask,
                                const int32_t *table, size_t b, size_t h, size_t i, size_t kv_len, size_t q_len,
                                double *scores, double *out, double *lse);

/* kv_lens / q_lens of batch item b clamped to [0, Sk] / [0, Sq] (NULL: Sk / Sq). */
size_t clforge__ref_attention_len(const int32_t *lens, size_t offset, size_t b, size_t full);

#endif
