/* What the attention tuner ops share (src/ops/attention_tune.c, the
 * forward's; src/ops/attention_backward_tune.c): a class's shape and a
 * tuning key as a descriptor, the device copies of its inputs, and the
 * variant the family's defaults depend on. */
#ifndef CLFORGE_SRC_OPS_ATTENTION_TUNE_H
#define CLFORGE_SRC_OPS_ATTENTION_TUNE_H

#include <clforge/clforge.h>

/* "q,kv,o" dtypes and layout "bhsd" into d; -1 when they are not that. */
int clforge__attn_tune_parse_key(const char *dtypes, const char *layout, clforge_attention_desc *d);
/* A class's shape (B, Hq, Hkv, Sq, Sk, D = Dv, causal) into d. */
void clforge__attn_tune_shape(const size_t *s, clforge_attention_desc *d);
/* A read-only device copy of host (NULL, with *err set, once *err is set). */
cl_mem clforge__attn_tune_copy(clforge_context ctx, const void *host, size_t bytes, cl_int *err);
/* clforge__attn_variant of a key and shape (0 when they do not resolve). */
int clforge__attn_tune_variant(const char *dtypes, const char *layout, const size_t *shape);

#endif
