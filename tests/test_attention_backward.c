/* clforge_attention_backward: the reference against central differences of
 * the forward reference (GQA, causal, window, lengths, mask, soft cap,
 * D != Dv); the device (fed the device forward's O and LSE) against the
 * reference on every feature and dtype mix, BSHD strides, empty sides;
 * the same bits twice; other parameter values than the defaults; validation
 * mode; bad input. --small: fewer cases. */
#include <math.h>
#include <string.h>

#include "../src/desc/attention_desc.h"
#include "../src/core/context.h"
#include "../src/families/attention_classes.h"
#include "../src/families/families.h"
#include "../src/tuning/tune_op.h"
#include "../src/ref/compare.h"
#include "test_util.h"

static unsigned seed = 31337;

/* The forward that feeds the backward its O and LSE runs scalar parameters:
 * its production builds are test_attention_fused's subject, and here they
 * only cost PoCL seconds per storage mix. */
#define FORWARD "attention_fused:VW=1,QW=1,WGQ=1,TK=1,DCH=1,KU=1,STAGE=0"

static void fill(void *p, clforge_dtype t, size_t n, float scale) {
  float *f = malloc((n ? n : 1) * sizeof *f);
  for (size_t i = 0; i < n; ++i) f[i] = scale * ((float)(tu_rand(&seed) % 4001) / 2000.0f - 1.0f);
  clforge_ref_convert(n, f, CLFORGE_F32, p, t);
  free(f);
}

static float get(const void *p, clforge_dtype t, size_t i) {
  float v;
  clforge_ref_convert(1, (const char *)p + i * clforge_dtype_size(t), t, &v, CLFORGE_F32);
  return v;
}

/* <dO, O(q, k, v)> from the forward reference, in double. */
static double loss(const clforge_attention_desc *fd, const float *q, const float *k, const float *v,
                   const float *mask, const int32_t *kvl, const int32_t *ql, const float *dout, float *o, size_t no) {
  memset(o, 0, no * sizeof *o);
  clforge_ref_attention(fd, q, k, v, mask, kvl, ql, o, NULL);
  double l = 0;
  for (size_t i = 0; i < no; ++i) l += (double)o[i] * dout[i];
  return l;
}

static void reference_checks(void) {
  enum { B = 2, HQ = 4, HKV = 2, SQ = 5, SK = 7, D = 6, DV = 5 };
  clforge_attention_desc fd = {.batch = B, .heads_q = HQ, .heads_kv = HKV, .seq_q = SQ, .seq_kv = SK, .head_dim = D,
                               .head_dim_v = DV, .causal = CLFORGE_CAUSAL_BOTTOM_RIGHT, .window = 4, .softcap = 3.0f,
                               .scale = 0.7f};
  float q[B * HQ * SQ * D], k[B * HKV * SK * D], v[B * HKV * SK * DV], mask[B * HQ * SQ * SK];
  float dout[B * HQ * SQ * DV], o[B * HQ * SQ * DV], dq[B * HQ * SQ * D], dk[B * HKV * SK * D], dv[B * HKV * SK * DV];
  fill(q, CLFORGE_F32, sizeof q / 4, 1.5f), fill(k, CLFORGE_F32, sizeof k / 4, 1.5f), fill(v, CLFORGE_F32, sizeof v / 4, 1.0f);
  fill(mask, CLFORGE_F32, sizeof mask / 4, 0.5f), fill(dout, CLFORGE_F32, sizeof dout / 4, 1.0f);
  const int32_t kvl[B] = {7, 6}, ql[B] = {5, 4};
  clforge_attention_desc bd = fd;
  bd.kind = CLFORGE_ATTENTION_BACKWARD;
  const clforge_attention_grads g = {0};
  CHECK_OK(NULL, clforge_ref_attention_backward(&bd, &g, q, k, v, mask, kvl, ql, dout, dq, dk, dv));
  double worst = 0;
  float *arrs[3] = {q, k, v}, *grads[3] = {dq, dk, dv};
  const size_t counts[3] = {sizeof q / 4, sizeof k / 4, sizeof v / 4};
  for (int w = 0; w < 3; ++w)
    for (size_t i = 0; i < counts[w]; i += 5) {
      float *x = arrs[w];
      const float keep = x[i], h = 1e-2f;
      x[i] = keep + h;
      const double lp = loss(&fd, q, k, v, mask, kvl, ql, dout, o, sizeof o / 4);
      x[i] = keep - h;
      const double lm = loss(&fd, q, k, v, mask, kvl, ql, dout, o, sizeof o / 4);
      x[i] = keep;
      const double fdv = (lp - lm) / (2.0 * h);
      worst = fmax(worst, fabs(fdv - grads[w][i]) / (1.0 + fabs(fdv)));
    }
  CHECK(worst < 2e-3, "the backward reference differs from central differences of the forward by %.3g", worst);
}

typedef struct {
  clforge_attention_desc d;
  clforge_attention_grads g;
  int mask, lens;
  const char *what;
} acase;

typedef struct {
  void *h;
  size_t n, es;
  cl_mem m;
} buf;

static void make(clforge_context ctx, buf *b, const clforge__attn_tensor *t, float scale) {
  b->n = t->extent ? t->extent : 1, b->es = clforge_dtype_size(t->type);
  b->h = malloc(b->n * b->es);
  fill(b->h, t->type, b->n, scale);
  b->m = tu_buffer(ctx, b->n * b->es);
  tu_write(ctx, b->m, 0, b->n * b->es, b->h);
}

static void release(buf *b) {
  free(b->h);
  if (b->m) clReleaseMemObject(b->m);
}

static void run(clforge_context ctx, const acase *c, int twice) {
  clforge_attention_desc fd = c->d;
  fd.kind = CLFORGE_ATTENTION_FORWARD;
  clforge_attention_desc bd = c->d;
  bd.kind = CLFORGE_ATTENTION_BACKWARD;
  clforge_attention_buffers ex = {0};
  clforge__attn d;
  clforge__attn_grads g;
  cl_mem dummy = tu_buffer(ctx, 64);
  ex.lse = dummy, ex.mask = c->mask ? dummy : NULL;
  if (clforge__attn_resolve(NULL, &fd, &ex, &d) != CLFORGE_SUCCESS ||
      clforge__attn_resolve_grads(NULL, &d, &c->g, &g) != CLFORGE_SUCCESS) {
    CHECK(0, "%s: resolve: %s", c->what, clforge_last_error(NULL));
    return;
  }
  buf q, k, v, o, lse, mask = {0}, dO, dq, dk, dv;
  make(ctx, &q, &d.q, 1.5f), make(ctx, &k, &d.k, 1.5f), make(ctx, &v, &d.v, 1.0f), make(ctx, &o, &d.o, 1.0f);
  make(ctx, &lse, &d.lse, 1.0f), make(ctx, &dO, &g.d_o, 1.0f);
  make(ctx, &dq, &g.dq, 1.0f), make(ctx, &dk, &g.dk, 1.0f), make(ctx, &dv, &g.dv, 1.0f);
  if (c->mask) make(ctx, &mask, &d.mask, 0.7f);
  int32_t kvl[4] = {0}, ql[4] = {0};
  cl_mem kvlb = NULL, qlb = NULL;
  if (c->lens) {
    for (size_t b = 0; b < d.b; ++b) kvl[b] = (int32_t)(d.sk - b * 3), ql[b] = (int32_t)(d.sq - b * 5);
    if (d.b > 1) kvl[1] = -2; /* clamped to 0: no key at all for item 1 */
    kvlb = tu_buffer(ctx, sizeof kvl), qlb = tu_buffer(ctx, sizeof ql);
    tu_write(ctx, kvlb, 0, sizeof kvl, kvl), tu_write(ctx, qlb, 0, sizeof ql, ql);
  }
  ex.lse = lse.m, ex.mask = c->mask ? mask.m : NULL, ex.kv_lens = kvlb, ex.q_lens = qlb;
  /* the forward on the device: O and LSE as a training step has them */
  CHECK_OK(ctx, clforge_attention(ctx, &fd, q.m, k.m, v.m, o.m, &ex, 0, NULL, NULL));
  CHECK_OK(ctx, clforge_attention_backward(ctx, &bd, &c->g, q.m, k.m, v.m, o.m, dO.m, &ex, dq.m, dk.m, dv.m, 0, NULL,
                                           NULL));
  /* the reference: from Q, K, V alone */
  buf *outs[3] = {&dq, &dk, &dv};
  void *want[3], *got[3];
  for (int i = 0; i < 3; ++i) {
    want[i] = malloc(outs[i]->n * outs[i]->es), got[i] = malloc(outs[i]->n * outs[i]->es);
    tu_read(ctx, outs[i]->m, 0, outs[i]->n * outs[i]->es, got[i]);
    memcpy(want[i], got[i], outs[i]->n * outs[i]->es); /* elements outside the tensors: the device's */
  }
  CHECK_OK(NULL, clforge_ref_attention_backward(&bd, &c->g, q.h, k.h, v.h, c->mask ? mask.h : NULL, c->lens ? kvl : NULL,
                                                c->lens ? ql : NULL, dO.h, want[0], want[1], want[2]));
  const char *names[3] = {"dq", "dk", "dv"};
  const clforge_dtype types[3] = {g.dq.type, g.dk.type, g.dv.type};
  for (int i = 0; i < 3; ++i) {
    float *a = malloc(outs[i]->n * 4), *w = malloc(outs[i]->n * 4);
    for (size_t j = 0; j < outs[i]->n; ++j) a[j] = get(got[i], types[i], j), w[j] = get(want[i], types[i], j);
    clforge__error_stats s;
    clforge__compare_f32(outs[i]->n, a, w, &s);
    clforge__tolerance t = clforge__tolerance_for(types[i]), to = clforge__tolerance_for(d.o.type);
    if (to.nrmse > t.nrmse) t = to;
    t.nrmse *= 4, t.max_abs_scaled *= 4; /* f32 exp and the forward's LSE against double */
    CHECK(clforge__within_tolerance(&s, t), "%s: %s nrmse %.3g max_abs %.3g (max %.3g)", c->what, names[i], s.nrmse,
          s.max_abs, s.max_want);
    free(a), free(w);
  }
  if (twice) { /* the same bits again: every output element has one writer, in a fixed order */
    CHECK_OK(ctx, clforge_attention_backward(ctx, &bd, &c->g, q.m, k.m, v.m, o.m, dO.m, &ex, dq.m, dk.m, dv.m, 0,
                                             NULL, NULL));
    for (int i = 0; i < 3; ++i) {
      void *again = malloc(outs[i]->n * outs[i]->es);
      tu_read(ctx, outs[i]->m, 0, outs[i]->n * outs[i]->es, again);
      CHECK(!memcmp(again, got[i], outs[i]->n * outs[i]->es), "%s: %s differs between two runs", c->what, names[i]);
      free(again);
    }
  }
  for (int i = 0; i < 3; ++i) free(want[i]), free(got[i]);
  release(&q), release(&k), release(&v), release(&o), release(&lse), release(&dO), release(&dq), release(&dk);
  release(&dv);
  if (c->mask) release(&mask);
  if (kvlb) clReleaseMemObject(kvlb), clReleaseMemObject(qlb);
  clReleaseMemObject(dummy);
}

/* An empty side needs no inputs: without keys dQ is zeros (Q, O, dO and
 * LSE may be NULL), without queries dK and dV are (K, V too). Under
 * Oclgrind this proves no kernel reads a stand-in buffer. */
static void empty_sides_without_inputs(clforge_context ctx) {
  /* Dv > D and outputs of their exact sizes: a kernel reading O or V rows
   * from a stand-in buffer would read past its end */
  enum { SQ = 5, SK = 6, D = 8, DV = 16 };
  const size_t bytes[3] = {SQ * D * 4, SK * D * 4, SK * DV * 4};
  cl_mem out[3];
  float junk[SK * DV], got[SK * DV];
  for (int i = 0; i < SK * DV; ++i) junk[i] = 3.0f;
  for (int i = 0; i < 3; ++i) out[i] = tu_buffer(ctx, bytes[i]), tu_write(ctx, out[i], 0, bytes[i], junk);
  const clforge_attention_grads g = {0};
  clforge_attention_desc d = {.kind = CLFORGE_ATTENTION_BACKWARD, .heads_q = 1, .seq_q = SQ, .seq_kv = 0,
                              .head_dim = D, .head_dim_v = DV};
  CHECK_OK(ctx, clforge_attention_backward(ctx, &d, &g, NULL, NULL, NULL, NULL, NULL, NULL, out[0], NULL, NULL, 0,
                                           NULL, NULL));
  d.seq_q = 0, d.seq_kv = SK;
  CHECK_OK(ctx, clforge_attention_backward(ctx, &d, &g, NULL, NULL, NULL, NULL, NULL, NULL, NULL, out[1], out[2], 0,
                                           NULL, NULL));
  static const char *const names[3] = {"no keys: dq", "no queries: dk", "no queries: dv"};
  for (int t = 0; t < 3; ++t) {
    tu_read(ctx, out[t], 0, bytes[t], got);
    int ok = 1;
    for (size_t i = 0; i < bytes[t] / 4; ++i) ok &= got[i] == 0.0f;
    CHECK(ok, "%s is not zeros", names[t]);
    clReleaseMemObject(out[t]);
  }
}

static void bad_input(clforge_context ctx) {
  cl_mem a = tu_buffer(ctx, 1 << 16), b = tu_buffer(ctx, 1 << 16), c = tu_buffer(ctx, 1 << 16);
  const clforge_attention_desc good = {.kind = CLFORGE_ATTENTION_BACKWARD, .heads_q = 2, .seq_q = 8, .seq_kv = 8,
                                       .head_dim = 8};
  const clforge_attention_grads g = {.dk_offset = 128, .dv_offset = 256};
  clforge_attention_buffers ex = {.lse = b};
  clforge_attention_desc d = good;
  CHECK_FAILS(NULL, clforge_attention_backward(NULL, &d, &g, a, a, a, a, a, &ex, c, c, c, 0, NULL, NULL),
              CLFORGE_INVALID_ARGUMENT, "context");
  d.kind = CLFORGE_ATTENTION_FORWARD;
  CHECK_FAILS(ctx, clforge_attention_backward(ctx, &d, &g, a, a, a, a, a, &ex, c, c, c, 0, NULL, NULL),
              CLFORGE_INVALID_ARGUMENT, "CLFORGE_ATTENTION_BACKWARD");
  CHECK_FAILS(ctx, clforge_attention(ctx, &good, a, a, a, c, &ex, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT,
              "clforge_attention_backward");
  d = good;
  CHECK_FAILS(ctx, clforge_attention_backward(ctx, &d, NULL, a, a, a, a, a, &ex, c, c, c, 0, NULL, NULL),
              CLFORGE_INVALID_ARGUMENT, "grads is NULL");
  CHECK_FAILS(ctx, clforge_attention_backward(ctx, &d, &g, a, a, a, a, a, NULL, c, c, c, 0, NULL, NULL),
              CLFORGE_INVALID_ARGUMENT, "lse");
  CHECK_FAILS(ctx, clforge_attention_backward(ctx, &d, &g, a, a, a, a, a, &ex, a, c, c, 0, NULL, NULL),
              CLFORGE_INVALID_ARGUMENT, "dq overlaps");
  clforge_attention_grads g2 = g;
  g2.dk_offset = 0;
  CHECK_FAILS(ctx, clforge_attention_backward(ctx, &d, &g2, a, a, a, a, a, &ex, c, c, c, 0, NULL, NULL),
              CLFORGE_INVALID_ARGUMENT, "overlaps");
  g2 = g, g2.reserved[0] = &g2;
  CHECK_FAILS(ctx, clforge_attention_backward(ctx, &d, &g2, a, a, a, a, a, &ex, c, c, c, 0, NULL, NULL),
              CLFORGE_INVALID_ARGUMENT, "reserved");
  g2 = g, g2.dq_type = (clforge_dtype)9;
  CHECK_FAILS(ctx, clforge_attention_backward(ctx, &d, &g2, a, a, a, a, a, &ex, c, c, c, 0, NULL, NULL),
              CLFORGE_INVALID_ARGUMENT, "dtype");
  cl_mem small = tu_buffer(ctx, 16);
  CHECK_FAILS(ctx, clforge_attention_backward(ctx, &d, &g, a, a, a, a, a, &ex, small, c, c, 0, NULL, NULL),
              CLFORGE_BUFFER_TOO_SMALL, "dq");
  clforge_attention_choice ch;
  CHECK_OK(ctx, clforge_attention_explain(ctx, &good, &ch));
  CHECK(!strcmp(ch.kernels[0].family, "attention_backward"), "explain names the backward family: %s", ch.kernels[0].family);
  clReleaseMemObject(a), clReleaseMemObject(b), clReleaseMemObject(c), clReleaseMemObject(small);
}

#define F32 CLFORGE_F32
#define F16 CLFORGE_F16
#define BF16 CLFORGE_BF16

int main(int argc, char **argv) {
  const int small = argc > 1 && !strcmp(argv[1], "--small");
  reference_checks();
  clforge_context ctx = tu_context();
  CHECK_OK(ctx, clforge_context_set_params(ctx, FORWARD));
  /* BSHD strides of B 2, S 19 (q) / 21 (kv), H 2 / 1, D 16 */
  const acase cases[] = {
      {{.batch = 2, .heads_q = 4, .heads_kv = 2, .seq_q = 23, .seq_kv = 31, .head_dim = 16, .head_dim_v = 24,
        .causal = CLFORGE_CAUSAL_BOTTOM_RIGHT, .window = 9, .softcap = 5.0f},
       {0}, 1, 1, "GQA, bottom-right causal, window, lengths, mask, soft cap, D != Dv"},
      {{.heads_q = 3, .heads_kv = 1, .seq_q = 17, .seq_kv = 13, .head_dim = 8}, {0}, 0, 0, "MQA, no mask"},
      {{.heads_q = 2, .seq_q = 29, .seq_kv = 29, .head_dim = 32, .causal = CLFORGE_CAUSAL_TOP_LEFT, .q_type = BF16,
        .kv_type = BF16, .o_type = F32},
       {.do_type = BF16, .dq_type = BF16, .dkv_type = BF16}, 0, 0, "top-left causal, bf16"},
      {{.batch = 2, .heads_q = 2, .heads_kv = 1, .seq_q = 19, .seq_kv = 21, .head_dim = 16, .q_type = F16,
        .kv_type = F16, .o_type = F16, .q_strides = {19 * 32, 16, 32, 1}, .k_strides = {21 * 16, 16, 16, 1},
        .v_strides = {21 * 16, 16, 16, 1}, .o_strides = {19 * 32, 16, 32, 1}},
       {.do_type = F16, .dq_type = F32, .dkv_type = F16, .do_strides = {19 * 32, 16, 32, 1},
        .dq_strides = {19 * 32, 16, 32, 1}, .dk_strides = {21 * 16, 16, 16, 1}, .dv_strides = {21 * 16, 16, 16, 1}},
       0, 0, "f16, BSHD strides, f32 dq"},
      {{.heads_q = 2, .seq_q = 0, .seq_kv = 9, .head_dim = 8}, {0}, 0, 0, "no queries: dk, dv zero"},
      {{.heads_q = 2, .seq_q = 7, .seq_kv = 0, .head_dim = 8}, {0}, 0, 0, "no keys: dq zero"},
  };
  const size_t ncases = sizeof cases / sizeof cases[0];
  for (size_t i = 0; i < ncases; ++i) /* --small: the empty sides both (what Oclgrind checks for stray reads) */
    if (!small || i % 2 == 0 || i + 1 == ncases) run(ctx, &cases[i], i == 0);
  /* Other parameter values than the device's defaults: the GPU classes'
   * (a row per work-item) and vectors of 4 rows, 4 to a work-item, 16 rows
   * a block (blocks past the stream's end, partial vectors), on the case
   * with every feature and on the strided f16 one. */
  const char *params[] = {FORWARD ";attention_backward:WG=64,VW=1,RW=1,TB=4",
                          FORWARD ";attention_backward:WG=8,VW=4,RW=4,TB=16"};
  for (int p = 0; p < 2; ++p) {
    CHECK_OK(ctx, clforge_context_set_params(ctx, params[p]));
    run(ctx, &cases[0], !small);
    if (!small) run(ctx, &cases[3], 0);
  }
  CHECK_OK(ctx, clforge_context_set_params(ctx, FORWARD));
  empty_sides_without_inputs(ctx);
  /* the tuner's op on a small shape (B, Hq, Hkv, Sq, Sk, D, causal): its
   * run against its reference passes, a corrupted result does not */
  if (!small) {
    const clforge__tune_op *op = &clforge__tune_attention_backward;
    const size_t shape[CLFORGE_ATTN_NDIMS] = {2, 4, 2, 37, 37, 16, 2};
    void *state = NULL;
    CHECK_OK(ctx, op->setup(ctx, "f32,f32,f32", "bhsd", shape, &state));
    if (state) {
      char why[256] = "";
      op->prepare(state);
      CHECK_OK(ctx, op->run(state));
      CHECK_OK(ctx, op->check(state, 0, why, sizeof why));
      CHECK(op->check(state, 1, why, sizeof why) == CLFORGE_VALIDATION_FAILED, "tune attention_backward: corruption passes");
      CHECK(op->flops(shape) > 0, "tune attention_backward: no flops");
      op->teardown(state);
    }
    CHECK_FAILS(ctx, op->setup(ctx, "f16,f16,f16", "bhsd", shape, &state), CLFORGE_INVALID_ARGUMENT, "dtypes");
  }
  bad_input(ctx);
  if (!small) {
    CHECK_OK(ctx, clforge_context_set_validation(ctx, 1));
    run(ctx, &cases[0], 0);
    run(ctx, &cases[2], 0);
    clforge__test_set_fault(ctx, "attention_backward");
    acase f = cases[1];
    clforge_attention_desc bd = f.d;
    bd.kind = CLFORGE_ATTENTION_BACKWARD;
    cl_mem a = tu_buffer(ctx, 1 << 14), lse = tu_buffer(ctx, 1 << 10), dq = tu_buffer(ctx, 1 << 14),
           dk = tu_buffer(ctx, 1 << 14), dv = tu_buffer(ctx, 1 << 14);
    float h[4096], l[256];
    for (int i = 0; i < 4096; ++i) h[i] = (float)(i % 13) / 10.0f - 0.6f;
    for (int i = 0; i < 256; ++i) l[i] = 2.0f;
    tu_write(ctx, a, 0, sizeof h, h), tu_write(ctx, lse, 0, sizeof l, l);
    tu_write(ctx, dq, 0, sizeof h, h), tu_write(ctx, dk, 0, sizeof h, h), tu_write(ctx, dv, 0, sizeof h, h);
    clforge_attention_buffers ex = {.lse = lse};
    CHECK_FAILS(ctx, clforge_attention_backward(ctx, &bd, &f.g, a, a, a, a, a, &ex, dq, dk, dv, 0, NULL, NULL),
                CLFORGE_VALIDATION_FAILED, "attention_backward");
    clforge__test_set_fault(ctx, NULL);
    CHECK_OK(ctx, clforge_context_set_validation(ctx, 0));
    clReleaseMemObject(a), clReleaseMemObject(lse), clReleaseMemObject(dq), clReleaseMemObject(dk);
    clReleaseMemObject(dv);
  }
  clforge_context_destroy(ctx);
  return tu_summary();
}
