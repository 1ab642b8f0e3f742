/* clforge_gemm_quantized against clforge_ref_gemm_quantized bit for bit
 * (s32, requantized s8/u8 and float outputs; GELU within its tolerance),
 * and the s32 accumulations against a plain int64 loop written here: zero
 * points, per-row and per-column scales, both layouts and transposes,
 * strided batches and offsets, k across the kernel's exact blocks with
 * extreme values, guard regions around C, bad input with C untouched, and
 * validation mode. --small: the short run under Oclgrind. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "../src/core/context.h"
#include "oclgrind_keep.h"
#include "test_util.h"

enum { GUARD = 64 };
static const unsigned char SENT = 0xA5;

typedef struct qg_case {
  clforge_dtype at, bt, ct;
  clforge_layout layout;
  int ta, tb;
  size_t m, n, k, batch, pad, off;
  int32_t zpa, zpb;
  clforge_quant_scheme as, bs;
  clforge_bias_mode bias;
  clforge_activation act;
  float alpha, beta, c_scale;
  int32_t zpc;
  int extreme; /* A and B mostly at their largest: sums past 2^24 */
} qg_case;

static int8_t rnd8(unsigned *seed, clforge_dtype t, int extreme) {
  const unsigned r = tu_rand(seed);
  /* extreme: the type's largest value, now and then another, so that the
   * sums of a long k pass 2^24 (where f32 would start to round) */
  if (extreme && r % 16) return (int8_t)(t == CLFORGE_S8 ? 127 : 255);
  return (int8_t)(r & 0xFF);
}

static int run_case(clforge_context ctx, const qg_case *t, unsigned seed) {
  const int colmaj = t->layout == CLFORGE_COL_MAJOR;
  /* stored shapes (rows x cols of each operand in its own layout) */
  const size_t ar = t->ta ? t->k : t->m, ac = t->ta ? t->m : t->k, br = t->tb ? t->n : t->k, bc = t->tb ? t->k : t->n;
  const size_t lda = (colmaj ? ar : ac) + t->pad, ldb = (colmaj ? br : bc) + t->pad, ldc = (colmaj ? t->m : t->n) + t->pad;
  const size_t sa = lda * (colmaj ? ac : ar), sb = ldb * (colmaj ? bc : br), sc = ldc * (colmaj ? t->n : t->m);
  const size_t na = t->off + sa * t->batch, nb = t->off + sb * t->batch, nc = t->off + sc * t->batch + GUARD;
  const size_t ces = clforge_dtype_size(t->ct);
  clforge_gemm_desc d = {.layout = t->layout, .trans_a = t->ta, .trans_b = t->tb, .m = t->m, .n = t->n, .k = t->k,
                         .alpha = t->alpha, .beta = t->beta, .a_type = t->at, .b_type = t->bt, .c_type = t->ct,
                         .lda = lda, .ldb = ldb, .ldc = ldc, .a_offset = t->off, .b_offset = t->off,
                         .c_offset = t->off, .batch = t->batch, .stride_a = sa, .stride_b = sb, .stride_c = sc,
                         .bias_mode = t->bias, .activation = t->act};
  const int ints = t->ct == CLFORGE_S32;
  int8_t *a = malloc(na), *b = malloc(nb);
  unsigned char *c0 = malloc(nc * ces), *want = malloc(nc * ces), *got = malloc(nc * ces);
  float as[256], bs[256], bias[256];
  for (size_t i = 0; i < na; ++i) a[i] = rnd8(&seed, t->at, t->extreme);
  for (size_t i = 0; i < nb; ++i) b[i] = rnd8(&seed, t->bt, t->extreme);
  for (int i = 0; i < 256; ++i) {
    as[i] = ldexpf(1.0f + (float)(tu_rand(&seed) % 1000) / 1000.0f, -9 - (int)(tu_rand(&seed) % 3));
    bs[i] = ldexpf(1.0f + (float)(tu_rand(&seed) % 1000) / 1000.0f, -7);
    bias[i] = (float)((int)(tu_rand(&seed) % 2001) - 1000) / 100.0f;
  }
  memset(c0, SENT, nc * ces);
  if (t->beta != 0.0f) /* C read: defined values of its type */
    for (size_t i = 0; i < nc; ++i) {
      const float v = (float)((int)(tu_rand(&seed) % 201) - 100) / 10.0f;
      clforge_ref_convert(1, &v, CLFORGE_F32, c0 + i * ces, t->ct);
    }
  memcpy(want, c0, nc * ces);
  const clforge_gemm_quant q = {.a_scheme = t->as, .b_scheme = t->bs, .a_zero_point = t->zpa, .b_zero_point = t->zpb,
                                .c_scale = t->c_scale, .c_zero_point = t->zpc, .a_scale_offset = 3,
                                .b_scale_offset = 5};
  char what[200];
  snprintf(what, sizeof what, "%s%s->%s %s%s%s m%zu n%zu k%zu b%zu zp %d/%d scales %d/%d bias %d act %d a%g b%g",
           clforge_dtype_name(t->at), clforge_dtype_name(t->bt), clforge_dtype_name(t->ct), colmaj ? "col " : "",
           t->ta ? "T" : "N", t->tb ? "T" : "N", t->m, t->n, t->k, t->batch, t->zpa, t->zpb, (int)t->as, (int)t->bs,
           (int)t->bias, (int)t->act, (double)t->alpha, (double)t->beta);
  clforge_status rs = clforge_ref_gemm_quantized(&d, &q, a, b, want, bias, ints ? NULL : as, ints ? NULL : bs);
  CHECK(rs == CLFORGE_SUCCESS, "%s: reference: %s", what, clforge_last_error(NULL));
  cl_mem ba = tu_buffer(ctx, na), bb = tu_buffer(ctx, nb), bcm = tu_buffer(ctx, nc * ces),
         bsa = tu_buffer(ctx, sizeof as), bsb = tu_buffer(ctx, sizeof bs), bbias = tu_buffer(ctx, sizeof bias);
  tu_write(ctx, ba, 0, na, a), tu_write(ctx, bb, 0, nb, b), tu_write(ctx, bcm, 0, nc * ces, c0);
  tu_write(ctx, bsa, 0, sizeof as, as), tu_write(ctx, bsb, 0, sizeof bs, bs), tu_write(ctx, bbias, 0, sizeof bias, bias);
  clforge_gemm_quant qd = q;
  if (!ints) qd.a_scale = bsa, qd.b_scale = bsb;
  cl_event ev = NULL;
  clforge_status st = clforge_gemm_quantized(ctx, &d, &qd, ba, bb, bcm, t->bias ? bbias : NULL, 0, NULL, &ev);
  CHECK(st == CLFORGE_SUCCESS && ev, "%s: %s", what, clforge_last_error(ctx));
  if (ev) {
    clWaitForEvents(1, &ev);
    clReleaseEvent(ev);
  }
  tu_read(ctx, bcm, 0, nc * ces, got);
  int fails = 0;
  size_t bad = 0, first = 0;
  const int gelu = t->act == CLFORGE_ACT_GELU_TANH || t->act == CLFORGE_ACT_GELU_ERF;
  for (size_t i = 0; i < nc * ces; ++i) {
    int diff = got[i] != want[i];
    if (diff && gelu && ces == 1) { /* one step, in C's signedness */
      const int s8 = t->ct == CLFORGE_S8;
      diff = abs((s8 ? (int)(int8_t)got[i] : (int)got[i]) - (s8 ? (int)(int8_t)want[i] : (int)want[i])) > 1;
    }
    if (diff && gelu && ces > 1) { /* float C under GELU: the float tolerance, element by element */
      float g, w;
      const size_t e = i / ces;
      clforge_ref_convert(1, got + e * ces, t->ct, &g, CLFORGE_F32);
      clforge_ref_convert(1, want + e * ces, t->ct, &w, CLFORGE_F32);
      diff = !(fabsf(g - w) <= 1e-5f + 4e-3f * fabsf(w));
    }
    if (diff && !bad++) first = i;
  }
  CHECK(!bad, "%s: %zu bytes differ from the reference (guards included), first %zu: 0x%02x vs 0x%02x", what, bad,
        first, got[first], want[first]);
  fails += bad != 0;
  if (ints && !colmaj && !t->ta && !t->tb) { /* independent of the reference: a plain int64 loop */
    size_t wrong = 0;
    for (size_t bi = 0; bi < t->batch; ++bi)
      for (size_t i = 0; i < t->m; ++i)
        for (size_t j = 0; j < t->n; ++j) {
          int64_t s = 0;
          for (size_t p = 0; p < t->k; ++p) {
            const int av = t->at == CLFORGE_S8 ? a[t->off + bi * sa + i * lda + p] : (uint8_t)a[t->off + bi * sa + i * lda + p];
            const int bv = t->bt == CLFORGE_S8 ? b[t->off + bi * sb + p * ldb + j] : (uint8_t)b[t->off + bi * sb + p * ldb + j];
            s += (int64_t)(av - t->zpa) * (bv - t->zpb);
          }
          int32_t g;
          memcpy(&g, got + (t->off + bi * sc + i * ldc + j) * 4, 4);
          wrong += g != (int32_t)s;
        }
    CHECK(!wrong, "%s: %zu s32 results differ from a plain int64 loop", what, wrong);
    fails += wrong != 0;
  }
  keep_release(ba), keep_release(bb), keep_release(bcm), keep_release(bsa), keep_release(bsb), keep_release(bbias);
  free(a), free(b), free(c0), free(want), free(got);
  return fails;
}

static void bad_inputs(clforge_context ctx) {
  cl_mem a = tu_buffer(ctx, 64 * 64), b = tu_buffer(ctx, 64 * 64), c = tu_buffer(ctx, 64 * 64 * 4),
         s = tu_buffer(ctx, 64 * 4), small = tu_buffer(ctx, 4);
  unsigned char sent[64 * 64 * 4];
  memset(sent, SENT, sizeof sent);
  tu_write(ctx, c, 0, sizeof sent, sent);
  tu_write(ctx, s, 0, 64 * 4, sent);
  const clforge_gemm_desc ok = {.m = 64, .n = 64, .k = 64, .a_type = CLFORGE_U8, .b_type = CLFORGE_S8,
                                .c_type = CLFORGE_F32};
  const clforge_gemm_quant qok = {.a_scale = s, .b_scale = s, .b_scheme = CLFORGE_QUANT_PER_COLUMN};
  clforge_gemm_desc d;
  clforge_gemm_quant q;
  int dummy;
#define BAD(change, want, needle)                                                                  \
  do {                                                                                             \
    d = ok, q = qok;                                                                               \
    change;                                                                                        \
    CHECK_FAILS(ctx, clforge_gemm_quantized(ctx, &d, &q, a, b, c, NULL, 0, NULL, NULL), want, needle); \
  } while (0)
  CHECK_FAILS(ctx, clforge_gemm_quantized(ctx, &ok, NULL, a, b, c, NULL, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT,
              "quant is NULL");
  BAD(d.a_type = CLFORGE_F32, CLFORGE_INVALID_ARGUMENT, "s8 or u8");
  BAD(d.c_type = CLFORGE_S32, CLFORGE_INVALID_ARGUMENT, "raw accumulations");
  BAD((d.c_type = CLFORGE_S32, q.a_scale = q.b_scale = NULL, d.bias_mode = CLFORGE_BIAS_ROW), CLFORGE_INVALID_ARGUMENT,
      "raw accumulations");
  BAD(q.a_zero_point = 256, CLFORGE_INVALID_ARGUMENT, "a_zero_point");
  BAD(q.b_zero_point = -129, CLFORGE_INVALID_ARGUMENT, "b_zero_point");
  BAD(d.c_type = CLFORGE_S8, CLFORGE_INVALID_ARGUMENT, "c_scale");
  BAD((d.c_type = CLFORGE_S8, q.c_scale = 1, d.beta = 1), CLFORGE_INVALID_ARGUMENT, "beta");
  BAD((d.c_type = CLFORGE_U8, q.c_scale = 1, q.c_zero_point = 300), CLFORGE_INVALID_ARGUMENT, "c_zero_point");
  BAD(q.a_scheme = CLFORGE_QUANT_PER_COLUMN, CLFORGE_INVALID_ARGUMENT, "a_scheme");
  BAD(q.b_scheme = CLFORGE_QUANT_PER_ROW, CLFORGE_INVALID_ARGUMENT, "b_scheme");
  BAD(q.a_scale = NULL, CLFORGE_INVALID_ARGUMENT, "a_scale and b_scale");
  BAD(q.b_scale = small, CLFORGE_BUFFER_TOO_SMALL, "b_scale");
  BAD(q.b_scale_offset = 1, CLFORGE_BUFFER_TOO_SMALL, "b_scale");
  BAD(d.aux_mode = CLFORGE_GEMM_AUX_STORE, CLFORGE_INVALID_ARGUMENT, "aux_mode");
  BAD(d.activation = CLFORGE_ACT_SILU, CLFORGE_UNSUPPORTED, "SiLU");
  BAD(d.gate = CLFORGE_GEMM_GATE_INTERLEAVED, CLFORGE_UNSUPPORTED, "gated epilogue");
  BAD(q.reserved[2] = &dummy, CLFORGE_INVALID_ARGUMENT, "reserved");
  BAD(d.m = 65, CLFORGE_BUFFER_TOO_SMALL, "a");
  BAD(q.a_scale = c, CLFORGE_INVALID_ARGUMENT, "overlaps");
  /* k past what s32 holds exactly: 255 * 255 a term with these zero points */
  BAD((d.k = 40000, q.b_zero_point = 127), CLFORGE_INVALID_ARGUMENT, "s32's range");
  unsigned char after[sizeof sent];
  tu_read(ctx, c, 0, sizeof after, after);
  CHECK(!memcmp(after, sent, sizeof after), "%s", "a refused call wrote C");
  /* float ops refuse the integer types */
  const clforge_gemm_desc f = {.m = 4, .n = 4, .k = 4, .a_type = CLFORGE_S8};
  CHECK_FAILS(ctx, clforge_gemm(ctx, &f, a, b, c, NULL, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "not a float");
  (void)dummy;
#undef BAD
  keep_release(a), keep_release(b), keep_release(c), keep_release(s), keep_release(small);
}

/* k = 0: no product term, not even alpha's (an infinite alpha times an
 * empty sum); C = beta C + bias, against the reference bit for bit. */
static void empty_k(clforge_context ctx) {
  float c0[15], bias[5] = {1, -2, 3.5f, 0.25f, -8}, got[15], want[15];
  for (int i = 0; i < 15; ++i) c0[i] = (float)i - 7.0f;
  memcpy(want, c0, sizeof want);
  float one = 1.0f;
  cl_mem a = tu_buffer(ctx, 4), b = tu_buffer(ctx, 4), c = tu_buffer(ctx, sizeof c0), s = tu_buffer(ctx, 4),
         bb = tu_buffer(ctx, sizeof bias);
  tu_write(ctx, c, 0, sizeof c0, c0), tu_write(ctx, s, 0, 4, &one), tu_write(ctx, bb, 0, sizeof bias, bias);
  const clforge_gemm_desc d = {.m = 3, .n = 5, .k = 0, .alpha = INFINITY, .alpha_mode = CLFORGE_ALPHA_AS_GIVEN,
                               .beta = 0.5f, .a_type = CLFORGE_U8, .b_type = CLFORGE_S8,
                               .bias_mode = CLFORGE_BIAS_COLUMN};
  const clforge_gemm_quant q = {.a_scale = s, .b_scale = s};
  CHECK_OK(ctx, clforge_context_set_validation(ctx, 1));
  CHECK_OK(ctx, clforge_gemm_quantized(ctx, &d, &q, a, b, c, bb, 0, NULL, NULL));
  CHECK_OK(ctx, clforge_context_set_validation(ctx, 0));
  tu_read(ctx, c, 0, sizeof got, got);
  CHECK_OK(NULL, clforge_ref_gemm_quantized(&d, &q, NULL, NULL, want, bias, &one, &one));
  CHECK(!memcmp(got, want, sizeof got) && got[0] == 0.5f * -7.0f + 1.0f, "k = 0: C[0] %g, reference %g",
        (double)got[0], (double)want[0]);
  keep_release(a), keep_release(b), keep_release(c), keep_release(s), keep_release(bb);
}

static void validation(clforge_context ctx) {
  enum { M = 9, N = 17, K = 40 };
  unsigned char ab[M * K + K * N];
  for (size_t i = 0; i < sizeof ab; ++i) ab[i] = (unsigned char)(i * 37 + 11);
  float sc[N];
  for (int i = 0; i < N; ++i) sc[i] = 0.01f * (float)(i + 1);
  cl_mem a = tu_buffer(ctx, M * K), b = tu_buffer(ctx, K * N), c = tu_buffer(ctx, M * N), s = tu_buffer(ctx, sizeof sc);
  tu_write(ctx, a, 0, M * K, ab), tu_write(ctx, b, 0, K * N, ab + M * K), tu_write(ctx, s, 0, sizeof sc, sc);
  const clforge_gemm_desc d = {.m = M, .n = N, .k = K, .a_type = CLFORGE_U8, .b_type = CLFORGE_S8, .c_type = CLFORGE_S8,
                               .activation = CLFORGE_ACT_RELU};
  const clforge_gemm_quant q = {.b_scheme = CLFORGE_QUANT_PER_COLUMN, .a_scale = s, .b_scale = s, .a_zero_point = 128,
                                .c_scale = 0.5f, .c_zero_point = -3};
  CHECK_OK(ctx, clforge_context_set_validation(ctx, 1));
  CHECK_OK(ctx, clforge_gemm_quantized(ctx, &d, &q, a, b, c, NULL, 0, NULL, NULL));
  clforge__test_set_fault(ctx, "gemm_quantized");
  CHECK_FAILS(ctx, clforge_gemm_quantized(ctx, &d, &q, a, b, c, NULL, 0, NULL, NULL), CLFORGE_VALIDATION_FAILED,
              "element 0");
  clforge__test_set_fault(ctx, NULL);
  CHECK_OK(ctx, clforge_context_set_validation(ctx, 0));
  keep_release(a), keep_release(b), keep_release(c), keep_release(s);
}

/* A device without cl_khr_integer_dot_product refuses a forced DOT=1 (it
 * would only run an emulation), C untouched. */
static void dot_refused(clforge_context ctx) {
  enum { M = 4, N = 4, K = 8 };
  unsigned char ab[M * K + K * N] = {0};
  int32_t before[M * N], after[M * N];
  for (int i = 0; i < M * N; ++i) before[i] = 1000 + i;
  cl_mem a = tu_buffer(ctx, M * K), b = tu_buffer(ctx, K * N), c = tu_buffer(ctx, sizeof before);
  tu_write(ctx, a, 0, M * K, ab), tu_write(ctx, b, 0, K * N, ab + M * K), tu_write(ctx, c, 0, sizeof before, before);
  const clforge_gemm_desc d = {.m = M, .n = N, .k = K, .a_type = CLFORGE_U8, .b_type = CLFORGE_S8,
                               .c_type = CLFORGE_S32};
  const clforge_gemm_quant q = {.a_zero_point = 128};
  CHECK_OK(ctx, clforge_context_set_params(ctx, "gemm_int8:DOT=1"));
  CHECK_FAILS(ctx, clforge_gemm_quantized(ctx, &d, &q, a, b, c, NULL, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT,
              "cl_khr_integer_dot_product");
  CHECK_OK(ctx, clforge_context_set_params(ctx, ""));
  tu_read(ctx, c, 0, sizeof after, after);
  CHECK(!memcmp(before, after, sizeof before), "%s", "a refused DOT=1 call wrote C");
  keep_release(a), keep_release(b), keep_release(c);
}

/* The tuner on the int8 GEMM (src/ops/gemm_quantized_tune.c): a wrong
 * candidate is discarded, the winner saved under the call's key, and a
 * fresh context's call of that shape class runs it, exactly. */
static void tuner(void) {
  char dir[] = "/tmp/clforge-tq-XXXXXX", file[64];
  if (!mkdtemp(dir)) {
    CHECK(0, "%s", "mkdtemp failed");
    return;
  }
  snprintf(file, sizeof file, "%s/tuning.json", dir);
  clforge_context ctx = tu_context();
  clforge_tune_options o = {0};
  o.ops = "gemm_quantized", o.shapes = "skinny_n", o.budget_s = 600, o.max_evals = 4, o.file = file;
  o.skip_peers = 1, o.space = "gemm_int8:VW=4|16,STAGE=0";
  clforge__test_set_fault(ctx, "tune"); /* the first candidate's C corrupted: it must not be saved */
  CHECK_OK(ctx, clforge_tune(ctx, &o));
  clforge__test_set_fault(ctx, NULL);
  clforge_context_destroy(ctx);
  FILE *f = fopen(file, "r");
  char text[8192] = "";
  size_t got = f ? fread(text, 1, sizeof text - 1, f) : 0;
  text[got] = '\0';
  if (f) fclose(f);
  CHECK(strstr(text, "\"gemm_int8\"") && strstr(text, "\"skinny_n\"") && strstr(text, "\"u8,s8,s32\""),
        "no gemm_int8 skinny_n u8,s8,s32 entry saved: %.300s", text);
  /* a call of that class with the file: its parameters, the exact result */
  setenv("CLFORGE_TUNING_FILE", file, 1);
  clforge_context c2 = tu_context();
  qg_case t = {CLFORGE_U8, CLFORGE_S8, CLFORGE_S32, 0, 0, 0, 300, 40, 500, 1, 0, 0, 128, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0};
  CHECK(run_case(c2, &t, 5) == 0, "%s", "a call with the tuned entry is wrong");
  clforge_context_destroy(c2);
  unsetenv("CLFORGE_TUNING_FILE");
  unlink(file);
  rmdir(dir);
}

int main(int argc, char **argv) {
  const int small = argc > 1 && !strcmp(argv[1], "--small");
  clforge_context ctx = tu_context();
  if (small) keep_start_sized(ctx, (size_t)64 << 10);
  bad_inputs(ctx);
  empty_k(ctx);
  validation(ctx);
  const clforge_dtype S8 = CLFORGE_S8, U8 = CLFORGE_U8;
  /* each line a program build (types, transposes, epilogue); shapes,
   * layouts, batches, zero points and scales vary freely within it */
  const qg_case cases[] = {
      {U8, S8, CLFORGE_S32, 0, 0, 0, 37, 45, 300, 2, 3, 5, 128, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0},
      {U8, S8, CLFORGE_S32, 0, 0, 0, 20, 33, 700, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1},
      {S8, S8, CLFORGE_S32, 0, 1, 1, 19, 21, 257, 2, 1, 0, -5, 7, 0, 0, 0, 0, 1, 0, 0, 0, 1},
      {U8, S8, CLFORGE_S32, CLFORGE_COL_MAJOR, 0, 1, 23, 17, 65, 1, 2, 1, 100, -2, 0, 0, 0, 0, 1, 0, 0, 0, 0},
      {U8, S8, CLFORGE_F32, 0, 0, 0, 33, 40, 130, 2, 1, 2, 128, 0, CLFORGE_QUANT_PER_ROW, CLFORGE_QUANT_PER_COLUMN,
       CLFORGE_BIAS_COLUMN, CLFORGE_ACT_RELU, 1.5f, 0.5f, 0, 0, 0},
      {U8, S8, CLFORGE_F32, CLFORGE_COL_MAJOR, 0, 0, 33, 40, 130, 1, 0, 0, 120, 3, CLFORGE_QUANT_PER_ROW,
       CLFORGE_QUANT_PER_COLUMN, CLFORGE_BIAS_COLUMN, CLFORGE_ACT_RELU, 1.0f, 0.5f, 0, 0, 0},
      {S8, U8, CLFORGE_F16, 0, 1, 0, 18, 50, 90, 1, 0, 0, 0, 128, 0, CLFORGE_QUANT_PER_COLUMN, CLFORGE_BIAS_ROW, 0,
       1.0f, 0, 0, 0, 0},
      {U8, S8, CLFORGE_BF16, 0, 0, 0, 16, 16, 64, 1, 0, 0, 7, 0, CLFORGE_QUANT_PER_ROW, 0, 0, CLFORGE_ACT_GELU_TANH,
       1.0f, 0, 0, 0, 0},
      {U8, S8, CLFORGE_S8, 0, 0, 0, 35, 47, 200, 2, 2, 3, 128, 0, CLFORGE_QUANT_PER_ROW, CLFORGE_QUANT_PER_COLUMN,
       CLFORGE_BIAS_COLUMN, CLFORGE_ACT_RELU, 1.0f, 0, 0.05f, -7, 0},
      {U8, S8, CLFORGE_U8, CLFORGE_COL_MAJOR, 1, 0, 21, 30, 300, 1, 0, 0, 128, 0, CLFORGE_QUANT_PER_ROW,
       CLFORGE_QUANT_PER_COLUMN, 0, 0, 1.0f, 0, 0.02f, 128, 1},
  };
  const size_t nsmall[][3] = {{9, 11, 40}, {5, 17, 260}, {7, 6, 33}};
  int fails = 0;
  unsigned seed = 99;
  /* The staged kernel (STAGE=1: A and B widened once per work-group) and
   * small work-items on the last three cases, so that both k loops and a
   * group tile the shapes do not divide are checked (small bodies: cheap
   * builds). */
  const size_t ncases = sizeof cases / sizeof cases[0];
  for (size_t i = 0; i < ncases; ++i) {
    if (i + 3 == ncases) setenv("CLFORGE_PARAMS", "gemm_int8:STAGE=1,MWI=2,NWI=1,VW=4,MDIM=4,NDIM=4", 1);
    qg_case t = cases[i];
    if (t.alpha == 0) t.alpha = 1.0f;
    if (small) { /* the same builds at Oclgrind's sizes */
      t.m = nsmall[i % 3][0], t.n = nsmall[i % 3][1], t.k = nsmall[i % 3][2], t.batch = 1 + (i % 2);
    }
    fails += run_case(ctx, &t, seed++);
  }
  unsetenv("CLFORGE_PARAMS");
  /* The packed integer dot products (DOT=1: raw bytes, the zero points from
   * row and column sums in uint at the end), emulated where the device has
   * no cl_khr_integer_dot_product (the bit turned on for the op's check;
   * the program was built without it): each signedness pair, packed loads
   * (A k-contiguous, B's columns k-contiguous) and byte gathers, k past
   * multiples of 4, zero points at the range ends, extreme values, and
   * requantized / float epilogues. */
  const unsigned caps = ctx->info.caps;
  ctx->info.caps |= CLFORGE_CAP_INTEGER_DOT;
  setenv("CLFORGE_PARAMS", "gemm_int8:DOT=1,STAGE=0,MWI=2,NWI=2,VW=4,MDIM=4,NDIM=4", 1);
  const qg_case dots[] = {
      {U8, S8, CLFORGE_S32, 0, 0, 1, 37, 45, 301, 2, 3, 5, 128, -128, 0, 0, 0, 0, 1, 0, 0, 0, 1},
      {S8, S8, CLFORGE_S32, 0, 1, 0, 19, 21, 65, 1, 1, 0, -5, 7, 0, 0, 0, 0, 1, 0, 0, 0, 0},
      {S8, U8, CLFORGE_F32, 0, 0, 1, 18, 50, 90, 1, 0, 0, 127, 255, CLFORGE_QUANT_PER_ROW, CLFORGE_QUANT_PER_COLUMN,
       CLFORGE_BIAS_COLUMN, CLFORGE_ACT_RELU, 1.5f, 0.5f, 0, 0, 0},
      {U8, U8, CLFORGE_U8, CLFORGE_COL_MAJOR, 0, 1, 21, 30, 203, 1, 0, 0, 0, 250, CLFORGE_QUANT_PER_ROW,
       CLFORGE_QUANT_PER_COLUMN, 0, 0, 1.0f, 0, 0.02f, 128, 1},
  };
  const size_t ndots = sizeof dots / sizeof dots[0];
  for (size_t i = 0; i < 2 * ndots; ++i) {
    /* then DOT=2 (plain byte products along k, op(B) packed k-contiguous
     * where it is not already) on the same cases */
    if (i == ndots) setenv("CLFORGE_PARAMS", "gemm_int8:DOT=2,STAGE=0,MWI=2,NWI=4,VW=1,MDIM=2,NDIM=4", 1);
    qg_case t = dots[i % ndots];
    if (small) t.m = nsmall[i % 3][0], t.n = nsmall[i % 3][1], t.k = nsmall[i % 3][2] + 1, t.batch = 1;
    fails += run_case(ctx, &t, seed++);
  }
  unsetenv("CLFORGE_PARAMS");
  ctx->info.caps = caps;
  if (!(caps & CLFORGE_CAP_INTEGER_DOT)) dot_refused(ctx);
  if (!small) tuner();
  printf("%zu cases (%zu with DOT=1, %zu with DOT=2), %d failing\n", ncases + 2 * ndots, ndots, ndots, fails);
  clforge_context_destroy(ctx);
  return tu_summary();
}
