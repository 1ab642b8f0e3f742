/* The fused attention's half variants (HALF) under the math mode: the
 * descriptor's compute_type (0: the context's), gated as GEMM's. On a
 * device without cl_khr_fp16 a forced HALF runs f32 bit for bit; then,
 * natively where the device has the extension and emulated elsewhere (PoCL
 * and Oclgrind 21.10 have no f16 arithmetic), a strict call given HALF=2
 * still runs f32's bits (explain says 32f), a call that allows f16 without
 * a half variant chosen runs f32, and HALF 1 / HALF 2 under 32F_FAST_16F /
 * 16F stay within the per-row bound of docs/inference-precision.md against
 * the reference while differing from f32 (the half kernel ran): f16 K/V
 * with D = 72 (two f16 flushes and a tail) and q8_0 K/V, bottom-right
 * causal over several key blocks; validation mode takes the compute type's
 * tolerance; a bad compute type is refused with O untouched. --small (the
 * suite's Oclgrind run): the f16 case at D = 40 (one flush and a tail). */
#include <math.h>
#include <stdint.h>

#include "../src/core/context.h"
#include "oclgrind_keep.h"
#include "test_util.h"

enum { ATTF_HALF_INDEX = 7 }; /* HALF: attention_fused's 8th parameter */

typedef struct {
  size_t sq, sk, d, dv;
  clforge_dtype kv;
} ct_case;

typedef struct {
  ct_case c;
  clforge_attention_desc desc;
  float *q, *kf, *vf; /* f32 values (K and V as stored: f16- or q8_0-exact) */
  unsigned char *k, *v;
  size_t kbytes, vbytes, qn, on;
  float *ref;
} ct_host;

static size_t row_bytes(clforge_dtype t, size_t d) { return t == CLFORGE_Q8_0 ? d / 32 * 34 : d * clforge_dtype_size(t); }

/* rows of f32 values x stored as t (q8_0 through the reference quantizer),
 * and x replaced by what the storage holds. */
static void store(float *x, size_t rows, size_t d, clforge_dtype t, unsigned char *out) {
  if (t == CLFORGE_Q8_0) {
    clforge_quant_desc qd = {0};
    qd.scheme = CLFORGE_QUANT_Q8_0, qd.rows = rows, qd.cols = d;
    CHECK_OK(NULL, clforge_ref_quantize(&qd, x, out, NULL, NULL));
    CHECK_OK(NULL, clforge_ref_dequantize(&qd, out, NULL, NULL, x));
  } else {
    clforge_ref_convert(rows * d, x, CLFORGE_F32, out, t);
    clforge_ref_convert(rows * d, out, t, x, CLFORGE_F32);
  }
}

static void build(ct_host *h, ct_case c, unsigned seed) {
  memset(h, 0, sizeof *h);
  h->c = c;
  clforge_attention_desc *d = &h->desc;
  d->heads_q = 2, d->heads_kv = 1, d->seq_q = c.sq, d->seq_kv = c.sk, d->head_dim = c.d, d->head_dim_v = c.dv;
  d->kv_type = c.kv, d->causal = CLFORGE_CAUSAL_BOTTOM_RIGHT, d->algo = CLFORGE_ATTENTION_ALGO_FUSED;
  h->qn = 2 * c.sq * c.d, h->on = 2 * c.sq * c.dv;
  h->q = malloc(h->qn * sizeof(float)), h->kf = malloc(c.sk * c.d * sizeof(float));
  h->vf = malloc(c.sk * c.dv * sizeof(float)), h->ref = malloc(h->on * sizeof(float));
  for (size_t i = 0; i < h->qn; ++i) h->q[i] = (float)(tu_rand(&seed) % 20001) / 10000.0f - 1.0f + 1e-5f;
  for (size_t i = 0; i < c.sk * c.d; ++i) h->kf[i] = (float)(tu_rand(&seed) % 20001) / 5000.0f - 2.0f + 1e-5f;
  for (size_t i = 0; i < c.sk * c.dv; ++i) h->vf[i] = (float)(tu_rand(&seed) % 20001) / 10000.0f - 1.0f + 1e-5f;
  h->kbytes = c.sk * row_bytes(c.kv, c.d), h->vbytes = c.sk * row_bytes(c.kv, c.dv);
  h->k = malloc(h->kbytes), h->v = malloc(h->vbytes);
  store(h->kf, c.sk, c.d, c.kv, h->k);
  store(h->vf, c.sk, c.dv, c.kv, h->v);
  CHECK_OK(NULL, clforge_ref_attention(d, h->q, h->k, h->v, NULL, NULL, NULL, h->ref, NULL));
}

static void release(ct_host *h) { free(h->q), free(h->kf), free(h->vf), free(h->k), free(h->v), free(h->ref); }

/* One call with `params` forced and the descriptor's compute type ct; o
 * gets O, choice what explain says. */
static void run(clforge_context ctx, const ct_host *h, const char *params, clforge_compute_type ct, float *o,
                clforge_attention_choice *choice) {
  clforge_attention_desc d = h->desc;
  d.compute_type = ct;
  CHECK_OK(ctx, clforge_context_set_params(ctx, params));
  CHECK_OK(ctx, clforge_attention_explain(ctx, &d, choice));
  cl_mem bq = tu_buffer(ctx, h->qn * sizeof(float)), bk = tu_buffer(ctx, h->kbytes), bv = tu_buffer(ctx, h->vbytes),
         bo = tu_buffer(ctx, h->on * sizeof(float));
  tu_write(ctx, bq, 0, h->qn * sizeof(float), h->q);
  tu_write(ctx, bk, 0, h->kbytes, h->k);
  tu_write(ctx, bv, 0, h->vbytes, h->v);
  CHECK_OK(ctx, clforge_attention(ctx, &d, bq, bk, bv, bo, NULL, 0, NULL, NULL));
  tu_read(ctx, bo, 0, h->on * sizeof(float), o);
  keep_release(bq), keep_release(bk), keep_release(bv), keep_release(bo);
  CHECK_OK(ctx, clforge_context_set_params(ctx, ""));
}

/* Largest |o - ref| over the row's bound (> 1 fails): with c the compute
 * type's relative error of a product sum, delta = c * scale * max_j
 * sum_d |q_d k_jd| over the visible keys j, n of them,
 * |dO| <= (e^(2 delta) - 1 + c + n 2^-25) max|v| (f32's rounding on top). */
static double bound_ratio(const ct_host *h, const float *o, double c) {
  const ct_case *k = &h->c;
  const double scale = 1.0 / sqrt((double)k->d);
  double worst = 0;
  for (size_t hh = 0; hh < 2; ++hh)
    for (size_t i = 0; i < k->sq; ++i) {
      const size_t n = i + k->sk - k->sq + 1; /* bottom-right causal */
      double mag = 0, vmax = 0;
      for (size_t j = 0; j < n; ++j) {
        double s = 0;
        for (size_t e = 0; e < k->d; ++e) s += fabs((double)h->q[(hh * k->sq + i) * k->d + e] * h->kf[j * k->d + e]);
        if (s > mag) mag = s;
        for (size_t e = 0; e < k->dv; ++e) vmax = fmax(vmax, fabs(h->vf[j * k->dv + e]));
      }
      const double delta = c * scale * mag;
      const double bound = (expm1(2 * delta) + c + (double)n * 0x1p-25 + 1e-5) * vmax;
      for (size_t e = 0; e < k->dv; ++e) {
        const size_t at = (hh * k->sq + i) * k->dv + e;
        const double r = fabs((double)o[at] - h->ref[at]) / bound;
        if (!(r <= worst)) worst = r; /* NaN sticks */
      }
    }
  return worst;
}

static void half_case(clforge_context ctx, ct_case c, unsigned seed, const clforge_device_info *info) {
  ct_host h;
  build(&h, c, seed);
  float *o32 = malloc(h.on * sizeof(float)), *o = malloc(h.on * sizeof(float));
  const char *name = clforge_dtype_name(c.kv);
  clforge_attention_choice ch;
  run(ctx, &h, "", CLFORGE_COMPUTE_32F, o32, &ch);
  CHECK(ch.kernels[0].compute_type == CLFORGE_COMPUTE_32F && ch.algo == CLFORGE_ATTENTION_ALGO_FUSED,
        "%s strict: explain says algo %d, arithmetic %d", name, (int)ch.algo, (int)ch.kernels[0].compute_type);
  CHECK(bound_ratio(&h, o32, 0x1p-22) <= 1, "%s f32: %g of a tight bound", name, bound_ratio(&h, o32, 0x1p-22));
  const char *force = "attention_fused:HALF=2";
  if (!(info->caps & CLFORGE_CAP_FP16)) {
    /* no f16 arithmetic: a forced HALF runs f32 even where allowed */
    run(ctx, &h, force, CLFORGE_COMPUTE_16F, o, &ch);
    CHECK(ch.kernels[0].compute_type == CLFORGE_COMPUTE_32F && ch.kernels[0].values[ATTF_HALF_INDEX] == 0 &&
              !memcmp(o, o32, h.on * sizeof(float)),
          "%s no cl_khr_fp16, HALF=2 under 16F: arithmetic %d, HALF %d, same bits %d", name,
          (int)ch.kernels[0].compute_type, ch.kernels[0].values[ATTF_HALF_INDEX], !memcmp(o, o32, h.on * sizeof(float)));
    ctx->info.caps |= CLFORGE_CAP_FP16; /* from here on emulated (cl/attention_fused.cl) */
  }
  /* strict with HALF=2 forced, and 16F allowed with nothing chosen: f32's bits */
  run(ctx, &h, force, CLFORGE_COMPUTE_32F, o, &ch);
  CHECK(ch.kernels[0].compute_type == CLFORGE_COMPUTE_32F && !memcmp(o, o32, h.on * sizeof(float)),
        "%s strict call with HALF=2 forced: arithmetic %d, same bits %d", name, (int)ch.kernels[0].compute_type,
        !memcmp(o, o32, h.on * sizeof(float)));
  run(ctx, &h, "", CLFORGE_COMPUTE_16F, o, &ch);
  CHECK(ch.kernels[0].compute_type == CLFORGE_COMPUTE_32F && !memcmp(o, o32, h.on * sizeof(float)),
        "%s 16F allowed, no half variant chosen: arithmetic %d", name, (int)ch.kernels[0].compute_type);
  /* 32F_FAST_16F from the context (desc 0), 16F from the descriptor */
  const clforge_compute_type cts[2] = {CLFORGE_COMPUTE_32F_FAST_16F, CLFORGE_COMPUTE_16F};
  const double cs[2] = {3 * 0x1p-11, 35 * 0x1p-11};
  for (int i = 0; i < 2; ++i) {
    CHECK_OK(ctx, clforge_context_set_compute_type(ctx, i ? CLFORGE_COMPUTE_32F : cts[i]));
    run(ctx, &h, force, i ? cts[i] : CLFORGE_COMPUTE_DEFAULT, o, &ch);
    const double r = bound_ratio(&h, o, cs[i]);
    CHECK(ch.kernels[0].compute_type == cts[i] && ch.kernels[0].values[ATTF_HALF_INDEX] == i + 1,
          "%s %s: explain says arithmetic %d, HALF %d", name, clforge_compute_type_name(cts[i]),
          (int)ch.kernels[0].compute_type, ch.kernels[0].values[ATTF_HALF_INDEX]);
    CHECK(r <= 1, "%s %s: error %g of the bound", name, clforge_compute_type_name(cts[i]), r);
    CHECK(memcmp(o, o32, h.on * sizeof(float)) != 0, "%s %s: f32's bits (no half arithmetic ran)", name,
          clforge_compute_type_name(cts[i]));
    printf("%s %s: error %.3g of the bound\n", name, clforge_compute_type_name(cts[i]), r);
    /* validation mode takes the compute type's tolerance */
    CHECK_OK(ctx, clforge_context_set_validation(ctx, 1));
    run(ctx, &h, force, i ? cts[i] : CLFORGE_COMPUTE_DEFAULT, o, &ch);
    CHECK_OK(ctx, clforge_context_set_validation(ctx, 0));
  }
  CHECK_OK(ctx, clforge_context_set_compute_type(ctx, CLFORGE_COMPUTE_32F));
  ctx->info.caps = info->caps;
  free(o32), free(o);
  release(&h);
}

/* A compute type outside the enum: refused, O untouched. */
static void bad_compute_type(clforge_context ctx) {
  ct_host h;
  build(&h, (ct_case){4, 8, 32, 32, CLFORGE_F16}, 3);
  clforge_attention_desc d = h.desc;
  d.compute_type = (clforge_compute_type)9;
  clforge_attention_choice ch;
  CHECK_FAILS(ctx, clforge_attention_explain(ctx, &d, &ch), CLFORGE_INVALID_ARGUMENT, "compute_type = 9");
  cl_mem bq = tu_buffer(ctx, h.qn * sizeof(float)), bk = tu_buffer(ctx, h.kbytes), bv = tu_buffer(ctx, h.vbytes),
         bo = tu_buffer(ctx, h.on * sizeof(float));
  float *o = malloc(h.on * sizeof(float)), *got = malloc(h.on * sizeof(float));
  for (size_t i = 0; i < h.on; ++i) o[i] = 7.0f;
  tu_write(ctx, bo, 0, h.on * sizeof(float), o);
  CHECK_FAILS(ctx, clforge_attention(ctx, &d, bq, bk, bv, bo, NULL, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT,
              "compute_type");
  tu_read(ctx, bo, 0, h.on * sizeof(float), got);
  CHECK(!memcmp(o, got, h.on * sizeof(float)), "%s", "a refused call wrote O");
  keep_release(bq), keep_release(bk), keep_release(bv), keep_release(bo);
  free(o), free(got);
  release(&h);
}

int main(int argc, char **argv) {
  const int small = argc > 1 && !strcmp(argv[1], "--small");
  unsetenv("CLFORGE_COMPUTE_TYPE");
  unsetenv("CLFORGE_ATTENTION_ALGO");
  clforge_context ctx = tu_context();
  keep_start_sized(ctx, (size_t)64 << 10); /* Oclgrind: no buffer index reused */
  clforge_device_info info;
  CHECK_OK(ctx, clforge_context_device_info(ctx, &info));
  if (small) {
    half_case(ctx, (ct_case){5, 24, 40, 24, CLFORGE_F16}, 11, &info);
  } else {
    half_case(ctx, (ct_case){24, 100, 72, 40, CLFORGE_F16}, 11, &info);
    half_case(ctx, (ct_case){9, 70, 64, 32, CLFORGE_Q8_0}, 12, &info);
  }
  bad_compute_type(ctx);
  clforge_context_destroy(ctx);
  return tu_summary();
}
