/* Reference twin of clforge_attention: for each query row the exact
 * softmax over its visible keys (src/desc/attention_desc.c states which), in
 * double, one rounding to O's type. Plain loops; the scores of one row at
 * a time (Sk doubles), never Sq x Sk. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "../core/error.h"
#include "attention.h"
#include "element.h"

size_t clforge__ref_attention_len(const int32_t *lens, size_t offset, size_t b, size_t full) {
  if (!lens) return full;
  const int32_t v = lens[offset + b];
  return v < 0 ? 0 : (size_t)v > full ? full : (size_t)v;
}

static size_t at(const clforge__attn_tensor *t, size_t a0, size_t a1, size_t a2, size_t a3) {
  return t->offset + a0 * t->stride[0] + a1 * t->stride[1] + a2 * t->stride[2] + a3 * t->stride[3];
}

/* Element c of key j's row of K or V (t) as stored: a q8_0 value is its
 * block's f16 scale times its s8, exact in f32 as the kernels compute it. */
static double kv_at(const clforge__attn *d, const clforge__attn_tensor *t, const void *buf, const int32_t *table,
                    size_t b, size_t h, size_t j, size_t c) {
  const size_t row = clforge__attn_kv_row(d, t, table, b, h, j);
  if (t->type != CLFORGE_Q8_0) return (double)clforge__ref_load(buf, t->type, row + c * t->stride[3]);
  return (double)clforge__ref_q8_0_at(buf, row, c);
}

void clforge__ref_attention_row(const clforge__attn *d, const void *q, const void *k, const void *v, const void *mask,
                                const int32_t *table, size_t b, size_t h, size_t i, size_t kv_len, size_t q_len,
                                double *s, double *out, double *lse) {
  const size_t hk = h / d->group;
  double m = -INFINITY;
  for (size_t c = 0; c < d->dv; ++c) out[c] = 0.0;
  *lse = -INFINITY;
  double qr[CLFORGE_ATTENTION_MAX_HEAD_DIM]; /* the query row, widened once */
  for (size_t c = 0; c < d->d; ++c) qr[c] = (double)clforge__ref_load(q, d->q.type, at(&d->q, b, h, i, c));
  for (size_t j = 0; j < d->sk; ++j) {
    s[j] = -INFINITY;
    if (!clforge__attn_key_visible(d, i, j, kv_len, q_len)) continue;
    double dot = 0.0;
    for (size_t c = 0; c < d->d; ++c) dot += qr[c] * kv_at(d, &d->k, k, table, b, hk, j, c);
    double x = (double)d->scale * dot;
    if (d->softcap > 0.0f) x = (double)d->softcap * tanh(x / (double)d->softcap);
    if (mask) x += (double)clforge__ref_load(mask, d->mask.type, at(&d->mask, b, h, i, j));
    s[j] = x;
    if (x > m) m = x; /* NaN does not raise the max: it reaches the sums below */
  }
  if (m == -INFINITY) return; /* nothing visible, or every score -inf */
  double l = 0.0;
  for (size_t j = 0; j < d->sk; ++j) {
    if (s[j] == -INFINITY) continue;
    const double p = exp(s[j] - m);
    l += p;
    for (size_t c = 0; c < d->dv; ++c) out[c] += p * kv_at(d, &d->v, v, table, b, hk, j, c);
  }
  for (size_t c = 0; c < d->dv; ++c) out[c] /= l;
  *lse = m + log(l);
}

clforge_status clforge_ref_attention(const clforge_attention_desc *desc, const void *q, const void *k, const void *v,
                                     const void *mask, const int32_t *kv_lens, const int32_t *q_lens, void *o,
                                     float *lse) {
  return clforge_ref_attention_paged(desc, q, k, v, mask, kv_lens, q_lens, NULL, o, lse);
}

clforge_status clforge_ref_attention_paged(const clforge_attention_desc *desc, const void *q, const void *k,
                                           const void *v, const void *mask, const int32_t *kv_lens,
                                           const int32_t *q_lens, const int32_t *block_table, void *o, float *lse) {
  clforge_attention_buffers given = {0};
  given.block_table = block_table ? (cl_mem)(uintptr_t)1 : NULL;
  /* Any non-NULL handle marks the optional inputs as present for resolve. */
  given.mask = mask ? (cl_mem)(uintptr_t)1 : NULL;
  given.kv_lens = kv_lens ? (cl_mem)(uintptr_t)1 : NULL;
  given.q_lens = q_lens ? (cl_mem)(uintptr_t)1 : NULL;
  given.lse = lse ? (cl_mem)(uintptr_t)1 : NULL;
  clforge__attn d;
  clforge_status st = clforge__attn_resolve(NULL, desc, &given, &d);
  if (st == CLFORGE_SUCCESS && d.kind != CLFORGE_ATTENTION_FORWARD)
    st = clforge__fail(NULL, CLFORGE_INVALID_ARGUMENT, "ref_attention: desc.kind is backward (clforge_ref_attention_backward)");
  if (st != CLFORGE_SUCCESS) return st;
  if ((!q || !k || !v) && d.sq && d.sk) return clforge__fail(NULL, CLFORGE_INVALID_ARGUMENT, "ref_attention: q, k or v is NULL");
  if (!o && d.sq) return clforge__fail(NULL, CLFORGE_INVALID_ARGUMENT, "ref_attention: o is NULL");
  if (d.page && !block_table && clforge__attn_blocks_used(&d, d.sk))
    return clforge__fail(NULL, CLFORGE_INVALID_ARGUMENT, "ref_attention: a paged desc needs its block_table");
  /* the device op's checks of the lengths and the table entries */
  st = clforge__attn_check_pages(NULL, &d, kv_lens, block_table);
  if (st != CLFORGE_SUCCESS) return st;
  double *row = malloc(d.dv * sizeof *row), *scores = malloc((d.sk ? d.sk : 1) * sizeof *scores);
  if (!row || !scores) {
    free(row);
    free(scores);
    return clforge__fail(NULL, CLFORGE_OUT_OF_HOST_MEMORY, "ref_attention: no memory for a row");
  }
  for (size_t b = 0; b < d.b; ++b) {
    const size_t kvl = clforge__ref_attention_len(kv_lens, d.kv_lens_offset, b, d.sk);
    const size_t ql = clforge__ref_attention_len(q_lens, d.q_lens_offset, b, d.sq);
    for (size_t h = 0; h < d.hq; ++h)
      for (size_t i = 0; i < ql; ++i) {
        double l;
        clforge__ref_attention_row(&d, q, k, v, mask, block_table, b, h, i, kvl, ql, scores, row, &l);
        for (size_t c = 0; c < d.dv; ++c) clforge__ref_store(o, d.o.type, at(&d.o, b, h, i, c), (float)row[c]);
        if (lse) lse[at(&d.lse, b, h, i, 0)] = (float)l;
      }
  }
  free(row);
  free(scores);
  return CLFORGE_SUCCESS;
}
