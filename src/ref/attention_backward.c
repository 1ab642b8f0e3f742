/* Reference twin of clforge_attention_backward: per query row the exact
 * softmax, O and D = dO . O recomputed in double (the forward reference's
 * row), then dS = P (dO V^T - D) times the soft cap's derivative, and the
 * three products accumulated in double; one rounding per output. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../core/error.h"
#include "attention.h"
#include "element.h"

static size_t at(const clforge__attn_tensor *t, size_t a0, size_t a1, size_t a2, size_t a3) {
  return t->offset + a0 * t->stride[0] + a1 * t->stride[1] + a2 * t->stride[2] + a3 * t->stride[3];
}

clforge_status clforge_ref_attention_backward(const clforge_attention_desc *desc, const clforge_attention_grads *grads,
                                              const void *q, const void *k, const void *v, const void *mask,
                                              const int32_t *kv_lens, const int32_t *q_lens, const void *d_o, void *dq,
                                              void *dk, void *dv) {
  clforge__clear_error(NULL);
  clforge_attention_buffers given = {0};
  given.mask = mask ? (cl_mem)(uintptr_t)1 : NULL;
  given.kv_lens = kv_lens ? (cl_mem)(uintptr_t)1 : NULL;
  given.q_lens = q_lens ? (cl_mem)(uintptr_t)1 : NULL;
  clforge__attn d;
  clforge__attn_grads g;
  clforge_status st = clforge__attn_resolve(NULL, desc, &given, &d);
  if (st == CLFORGE_SUCCESS && d.kind != CLFORGE_ATTENTION_BACKWARD)
    st = clforge__fail(NULL, CLFORGE_INVALID_ARGUMENT, "ref_attention_backward: desc.kind is not backward");
  if (st == CLFORGE_SUCCESS) st = clforge__attn_resolve_grads(NULL, &d, grads, &g);
  if (st != CLFORGE_SUCCESS) return st;
  if ((d.sq && !dq) || (d.sk && (!dk || !dv)) || (d.sq && d.sk && (!q || !k || !v || !d_o)))
    return clforge__fail(NULL, CLFORGE_INVALID_ARGUMENT, "ref_attention_backward: a tensor is NULL");
  const size_t nk = d.b * d.hkv * d.sk;
  double *acc_k = calloc(nk * d.d + 1, sizeof *acc_k), *acc_v = calloc(nk * d.dv + 1, sizeof *acc_v);
  double *s = malloc((d.sk + 1) * sizeof *s), *o = malloc(d.dv * sizeof *o), *gq = malloc(d.d * sizeof *gq);
  double *go = malloc(d.dv * sizeof *go), *qr = malloc(d.d * sizeof *qr);
  if (!acc_k || !acc_v || !s || !o || !gq || !go || !qr) {
    free(acc_k), free(acc_v), free(s), free(o), free(gq), free(go), free(qr);
    return clforge__fail(NULL, CLFORGE_OUT_OF_HOST_MEMORY, "ref_attention_backward: no memory");
  }
  for (size_t b = 0; b < d.b; ++b) {
    const size_t kvl = clforge__ref_attention_len(kv_lens, d.kv_lens_offset, b, d.sk);
    const size_t ql = clforge__ref_attention_len(q_lens, d.q_lens_offset, b, d.sq);
    for (size_t h = 0; h < d.hq; ++h) {
      const size_t hk = h / d.group;
      for (size_t i = 0; i < d.sq; ++i) {
        for (size_t c = 0; c < d.d; ++c) gq[c] = 0.0;
        double lse = -INFINITY;
        if (i < ql) clforge__ref_attention_row(&d, q, k, v, mask, NULL, b, h, i, kvl, ql, s, o, &lse);
        if (lse > -INFINITY) {
          double delta = 0.0;
          for (size_t c = 0; c < d.dv; ++c) {
            go[c] = clforge__ref_load(d_o, g.d_o.type, at(&g.d_o, b, h, i, c));
            delta += go[c] * o[c];
          }
          for (size_t c = 0; c < d.d; ++c) qr[c] = clforge__ref_load(q, d.q.type, at(&d.q, b, h, i, c));
          for (size_t j = 0; j < d.sk; ++j) {
            if (s[j] == -INFINITY) continue;
            const double p = exp(s[j] - lse);
            double dp = 0.0;
            for (size_t c = 0; c < d.dv; ++c) dp += go[c] * clforge__ref_load(v, d.v.type, at(&d.v, b, hk, j, c));
            double ds = p * (dp - delta);
            if (d.softcap > 0.0f) { /* s = cap tanh(u / cap) + mask: ds/du = 1 - tanh^2 */
              const double capped = s[j] - (mask ? clforge__ref_load(mask, d.mask.type, at(&d.mask, b, h, i, j)) : 0.0);
              const double t = capped / (double)d.softcap;
              ds *= 1.0 - t * t;
            }
            const size_t kj = (b * d.hkv + hk) * d.sk + j;
            for (size_t c = 0; c < d.d; ++c) {
              gq[c] += ds * clforge__ref_load(k, d.k.type, at(&d.k, b, hk, j, c));
              acc_k[kj * d.d + c] += ds * qr[c];
            }
            for (size_t c = 0; c < d.dv; ++c) acc_v[kj * d.dv + c] += p * go[c];
          }
        }
        for (size_t c = 0; c < d.d; ++c)
          clforge__ref_store(dq, g.dq.type, at(&g.dq, b, h, i, c), (float)((double)d.scale * gq[c]));
      }
    }
  }
  for (size_t b = 0; b < d.b; ++b)
    for (size_t hk = 0; hk < d.hkv; ++hk)
      for (size_t j = 0; j < d.sk; ++j) {
        const size_t kj = (b * d.hkv + hk) * d.sk + j;
        for (size_t c = 0; c < d.d; ++c)
          clforge__ref_store(dk, g.dk.type, at(&g.dk, b, hk, j, c), (float)((double)d.scale * acc_k[kj * d.d + c]));
        for (size_t c = 0; c < d.dv; ++c)
          clforge__ref_store(dv, g.dv.type, at(&g.dv, b, hk, j, c), (float)acc_v[kj * d.dv + c]);
      }
  free(acc_k), free(acc_v), free(s), free(o), free(gq), free(go), free(qr);
  return CLFORGE_SUCCESS;
}
