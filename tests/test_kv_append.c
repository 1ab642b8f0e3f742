/* clforge_kv_cache_append: the reference against a hand-placed row and
 * padding; q8_0 rows within half a step of their source; the device bit for
 * bit against the reference (conversions and q8_0 are exact twins) for
 * every cache type, a strided source (a packed QKV projection), Dv != D,
 * padding slots, appends over several calls; the cache it fills read by
 * clforge_attention (paged) against the reference on contiguous K and V:
 * the layouts agree; slots outside the pool and shared slots refused
 * before anything runs; validation mode; bad input changing nothing.
 * --small: fewer, smaller cases (Oclgrind). */
#include <math.h>
#include <string.h>

#include "../src/core/context.h"
#include "../src/ref/element.h"
#include "oclgrind_keep.h"
#include "test_util.h"

static void hand_values(void) {
  /* 2 blocks of 2 slots, 1 head, D 2: token 0 to slot 3 (block 1, position 1), token 1 skipped */
  const float k[4] = {1, 2, 3, 4}, v[4] = {5, 6, 7, 8};
  const int32_t slots[2] = {3, -1};
  float kc[8], vc[8];
  for (int i = 0; i < 8; ++i) kc[i] = vc[i] = -9;
  clforge_kv_append_desc d = {.tokens = 2, .heads_kv = 1, .head_dim = 2, .block_size = 2, .num_blocks = 2};
  CHECK_OK(NULL, clforge_ref_kv_cache_append(&d, k, v, slots, kc, vc));
  CHECK(kc[6] == 1 && kc[7] == 2 && vc[6] == 5 && vc[7] == 6 && kc[0] == -9 && kc[5] == -9, "slot 3: %g %g, %g %g", kc[6],
        kc[7], vc[6], vc[7]);
  const int32_t twice[2] = {1, 1}, outside[2] = {0, 4};
  CHECK_FAILS(NULL, clforge_ref_kv_cache_append(&d, k, v, twice, kc, vc), CLFORGE_INVALID_ARGUMENT, "two tokens");
  CHECK_FAILS(NULL, clforge_ref_kv_cache_append(&d, k, v, outside, kc, vc), CLFORGE_INVALID_ARGUMENT, "token 1's slot 4");
  /* q8_0: each value within half a step (the block's max / 127, and the f16 scale's rounding) */
  float x[64];
  unsigned seed = 3;
  for (int i = 0; i < 64; ++i) x[i] = (float)(tu_rand(&seed) % 2001) / 500.0f - 2.0f;
  unsigned char q[2 * 34];
  const int32_t s0[1] = {0};
  d = (clforge_kv_append_desc){.tokens = 1, .heads_kv = 1, .head_dim = 64, .block_size = 1, .num_blocks = 1,
                               .cache_type = CLFORGE_Q8_0};
  CHECK_OK(NULL, clforge_ref_kv_cache_append(&d, x, x, s0, q, q));
  double worst = 0;
  for (int b = 0; b < 2; ++b) {
    float amax = 0;
    for (int i = 0; i < 32; ++i) amax = fmaxf(amax, fabsf(x[b * 32 + i]));
    const float scale = clforge_ref_f16_to_f32((uint16_t)(q[b * 34] | q[b * 34 + 1] << 8));
    for (int i = 0; i < 32; ++i) {
      const double e = fabs((double)scale * (int8_t)q[b * 34 + 2 + i] - x[b * 32 + i]) / (amax / 127.0 * 0.5 * 1.01 + 1e-6);
      worst = e > worst ? e : worst;
    }
  }
  CHECK(worst <= 1.0, "q8_0 rows: %.3g of half a step", worst);
}

typedef struct {
  clforge_dtype st, ct;
  size_t tokens, heads, d, dv, bs, nblocks;
  int packed; /* 1: K and V inside one [T, (2 H + 2 H), D] buffer; 2: heads outer, [H, T, D] */
  int slot_head; /* FlashAttention's layout */
} acase;

/* One append on the device and on the host, caches compared bit for bit. */
static void run(clforge_context ctx, const acase *c) {
  const int q8 = c->ct == CLFORGE_Q8_0;
  const size_t dv = c->dv ? c->dv : c->d, ss = clforge_dtype_size(c->st), cu = q8 ? 1 : clforge_dtype_size(c->ct);
  const size_t rk = q8 ? c->d / 32 * 34 : c->d, rv = q8 ? dv / 32 * 34 : dv;
  const size_t slots_n = c->nblocks * c->bs, kcn = 3 + slots_n * c->heads * rk, vcn = slots_n * c->heads * rv;
  clforge_kv_append_desc d = {.tokens = c->tokens, .heads_kv = c->heads, .head_dim = c->d, .head_dim_v = c->dv,
                              .block_size = c->bs, .num_blocks = c->nblocks, .src_type = c->st, .cache_type = c->ct,
                              .k_cache_offset = 3, .slots_offset = 1,
                              .cache_layout = c->slot_head ? CLFORGE_KV_BLOCK_SLOT_HEAD : CLFORGE_KV_BLOCK_HEAD_SLOT};
  size_t kn, vn;
  if (c->packed == 1) { /* a row per token: [Q (2 H heads) | K (H) | V (H)], D == Dv */
    const size_t row = 4 * c->heads * c->d;
    d.k_offset = 2 * c->heads * c->d, d.v_offset = 3 * c->heads * c->d, d.k_token_stride = d.v_token_stride = row;
    kn = vn = c->tokens * row;
  } else {
    kn = c->tokens * c->heads * c->d, vn = c->tokens * c->heads * dv;
  }
  if (c->packed == 2) { /* heads outer: [H, T, D] sources */
    d.k_offset = d.v_offset = 0, d.k_token_stride = c->d, d.k_head_stride = c->tokens * c->d;
    d.v_token_stride = dv, d.v_head_stride = c->tokens * dv;
    kn = c->tokens * c->heads * c->d, vn = c->tokens * c->heads * dv;
  }
  unsigned seed = 11 + (unsigned)(c->tokens * 7 + c->d);
  void *hk = malloc(kn * ss), *hv = malloc(vn * ss);
  tu_fill(hk, c->st, kn, &seed), tu_fill(hv, c->st, vn, &seed);
  if (c->packed == 1) memcpy(hv, hk, kn * ss);
  int32_t *slots = malloc(slots_n * sizeof *slots); /* a shuffle of the pool's slots: distinct, anywhere */
  for (size_t i = 0; i < slots_n; ++i) slots[i] = (int32_t)i;
  for (size_t i = slots_n; i > 1; --i) {
    const size_t j = tu_rand(&seed) % i;
    const int32_t t = slots[i - 1];
    slots[i - 1] = slots[j], slots[j] = t;
  }
  if (c->tokens > 3) slots[2] = -1; /* padding */
  if (c->tokens > 5) slots[4] = slots[5] = -1; /* several: never a shared slot */
  unsigned char *kc = malloc(kcn * cu), *vc = malloc(vcn * cu), *gk = malloc(kcn * cu), *gv = malloc(vcn * cu);
  memset(kc, 0x5A, kcn * cu), memset(vc, 0xA5, vcn * cu);
  cl_mem dk = tu_buffer(ctx, kn * ss), dvb = c->packed == 1 ? dk : tu_buffer(ctx, vn * ss), ds = tu_buffer(ctx, (c->tokens + 1) * 4);
  cl_mem dkc = tu_buffer(ctx, kcn * cu), dvc = tu_buffer(ctx, vcn * cu);
  tu_write(ctx, dk, 0, kn * ss, hk), tu_write(ctx, ds, 0, (c->tokens + 1) * 4, slots);
  if (c->packed != 1) tu_write(ctx, dvb, 0, vn * ss, hv);
  tu_write(ctx, dkc, 0, kcn * cu, kc), tu_write(ctx, dvc, 0, vcn * cu, vc);
  CHECK_OK(NULL, clforge_ref_kv_cache_append(&d, hk, hv, slots, kc, vc));
  CHECK_OK(ctx, clforge_kv_cache_append(ctx, &d, dk, dvb, ds, dkc, dvc, 0, NULL, NULL));
  tu_read(ctx, dkc, 0, kcn * cu, gk), tu_read(ctx, dvc, 0, vcn * cu, gv);
  CHECK(!memcmp(gk, kc, kcn * cu) && !memcmp(gv, vc, vcn * cu),
        "%s -> %s, %zu tokens, %zu heads, D %zu/%zu, packed %d: the caches are not the reference's bit for bit",
        clforge_dtype_name(c->st), clforge_dtype_name(c->ct), c->tokens, c->heads, c->d, dv, c->packed);
  free(hk), free(hv), free(slots), free(kc), free(vc), free(gk), free(gv);
  keep_release(dk), keep_release(ds), keep_release(dkc), keep_release(dvc);
  if (c->packed != 1) keep_release(dvb);
}

/* Three sequences appended (a prefill chunk, then a decode step) into a
 * pool of f16 blocks through a shuffled table; clforge_attention reads it
 * paged, the reference the same K and V contiguous. */
static void attention_reads_it(clforge_context ctx) {
  enum { B = 3, HQ = 8, HKV = 2, D = 64, BS = 16, SK = 40, NB = 9, STRIDE = 3 };
  const int32_t lens[B] = {40, 5, 33}, qlens[B] = {1, 1, 1};
  const int32_t table[B * STRIDE] = {4, 0, 7, 2, -1, -1, 8, 1, 5}; /* pool blocks of each sequence */
  unsigned seed = 5;
  static float xk[B][HKV][SK][D], xv[B][HKV][SK][D], q[B * HQ * D], o[B * HQ * D], ref[B * HQ * D];
  tu_fill(xk, CLFORGE_F32, sizeof xk / 4, &seed), tu_fill(xv, CLFORGE_F32, sizeof xv / 4, &seed);
  tu_fill(q, CLFORGE_F32, sizeof q / 4, &seed);
  /* the cache keeps f16: the reference reads the same rounded values */
  static uint16_t k16[B][HKV][SK][D], v16[B][HKV][SK][D];
  clforge_ref_convert(sizeof xk / 4, xk, CLFORGE_F32, k16, CLFORGE_F16);
  clforge_ref_convert(sizeof xv / 4, xv, CLFORGE_F32, v16, CLFORGE_F16);
  const size_t pool = (size_t)NB * HKV * BS * D * 2;
  cl_mem kc = tu_buffer(ctx, pool), vc = tu_buffer(ctx, pool), src = tu_buffer(ctx, (size_t)SK * HKV * D * 4 * 2);
  cl_mem sl = tu_buffer(ctx, SK * 4);
  unsigned char *zero = calloc(1, pool);
  tu_write(ctx, kc, 0, pool, zero), tu_write(ctx, vc, 0, pool, zero);
  free(zero);
  for (int b = 0; b < B; ++b) { /* tokens [0, len - 1) in one call, the last one in another */
    for (int step = 0; step < 2; ++step) {
      const int t0 = step ? lens[b] - 1 : 0, n = step ? 1 : lens[b] - 1;
      if (n <= 0) continue;
      static float ks[SK][HKV][D], vs[SK][HKV][D];
      int32_t slots[SK];
      for (int t = 0; t < n; ++t) {
        const int j = t0 + t;
        slots[t] = table[b * STRIDE + j / BS] * BS + j % BS;
        for (int h = 0; h < HKV; ++h) memcpy(ks[t][h], xk[b][h][j], sizeof ks[t][h]), memcpy(vs[t][h], xv[b][h][j], sizeof vs[t][h]);
      }
      tu_write(ctx, src, 0, (size_t)n * HKV * D * 4, ks), tu_write(ctx, src, (size_t)SK * HKV * D * 4, (size_t)n * HKV * D * 4, vs);
      tu_write(ctx, sl, 0, (size_t)n * 4, slots);
      const clforge_kv_append_desc d = {.tokens = (size_t)n, .heads_kv = HKV, .head_dim = D, .block_size = BS,
                                        .num_blocks = NB, .cache_type = CLFORGE_F16, .v_offset = (size_t)SK * HKV * D};
      CHECK_OK(ctx, clforge_kv_cache_append(ctx, &d, src, src, sl, kc, vc, 0, NULL, NULL));
    }
  }
  clforge_attention_desc a = {.batch = B, .heads_q = HQ, .heads_kv = HKV, .seq_q = 1, .seq_kv = SK, .head_dim = D,
                              .q_type = CLFORGE_F32, .kv_type = CLFORGE_F16, .o_type = CLFORGE_F32,
                              .causal = CLFORGE_CAUSAL_BOTTOM_RIGHT, .algo = CLFORGE_ATTENTION_ALGO_SPLIT_KV};
  clforge_attention_desc pd = a;
  pd.kv_block_size = BS, pd.kv_num_blocks = NB, pd.block_table_stride = STRIDE;
  cl_mem dq = tu_buffer(ctx, sizeof q), dout = tu_buffer(ctx, sizeof o), dl = tu_buffer(ctx, sizeof lens);
  cl_mem dql = tu_buffer(ctx, sizeof qlens), dt = tu_buffer(ctx, sizeof table);
  tu_write(ctx, dq, 0, sizeof q, q), tu_write(ctx, dl, 0, sizeof lens, lens), tu_write(ctx, dql, 0, sizeof qlens, qlens);
  tu_write(ctx, dt, 0, sizeof table, table);
  clforge_attention_buffers x = {.kv_lens = dl, .q_lens = dql, .block_table = dt};
  CHECK_OK(ctx, clforge_attention(ctx, &pd, dq, kc, vc, dout, &x, 0, NULL, NULL));
  tu_read(ctx, dout, 0, sizeof o, o);
  CHECK_OK(NULL, clforge_ref_attention(&a, q, k16, v16, NULL, lens, qlens, ref, NULL));
  double worst = 0;
  for (size_t i = 0; i < sizeof o / 4; ++i) worst = fmax(worst, fabs((double)o[i] - ref[i]));
  CHECK(worst <= 1e-4, "attention over the appended pool: max |O - contiguous reference| = %g", worst);
  const cl_mem all[] = {kc, vc, src, sl, dq, dout, dl, dql, dt};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i) keep_release(all[i]);
}

static void bad_input(clforge_context ctx) {
  cl_mem k = tu_buffer(ctx, 4096), c = tu_buffer(ctx, 4096), c2 = tu_buffer(ctx, 4096), s = tu_buffer(ctx, 64);
  cl_mem small = tu_buffer(ctx, 16);
  float sent[1024];
  for (int i = 0; i < 1024; ++i) sent[i] = 7.0f;
  tu_write(ctx, c, 0, 4096, sent), tu_write(ctx, c2, 0, 4096, sent), tu_write(ctx, k, 0, 4096, sent);
  const int32_t sl[16] = {0, 1, 2, 3, 3, 99, -2};
  tu_write(ctx, s, 0, sizeof sl, sl);
  const clforge_kv_append_desc good = {.tokens = 3, .heads_kv = 2, .head_dim = 16, .block_size = 4, .num_blocks = 4};
  clforge_kv_append_desc d = good; /* cache: 4 * 2 * 4 * 16 = 512 floats */
  CHECK_FAILS(NULL, clforge_kv_cache_append(NULL, &d, k, k, s, c, c2, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "context");
  CHECK_FAILS(ctx, clforge_kv_cache_append(ctx, NULL, k, k, s, c, c2, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "desc");
  d.slots_offset = 2; /* 2, 3, 3 */
  CHECK_FAILS(ctx, clforge_kv_cache_append(ctx, &d, k, k, s, c, c2, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "two tokens");
  d.slots_offset = 4; /* 3, 99, -2 */
  CHECK_FAILS(ctx, clforge_kv_cache_append(ctx, &d, k, k, s, c, c2, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "token 1's slot 99");
  d.slots_offset = 6, d.tokens = 1; /* -2 */
  CHECK_FAILS(ctx, clforge_kv_cache_append(ctx, &d, k, k, s, c, c2, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "token 0's slot -2");
  d = good;
  cl_context cc;
  clforge_context_cl_context(ctx, &cc);
  cl_int err;
  cl_mem hidden = clCreateBuffer(cc, CL_MEM_READ_ONLY | CL_MEM_HOST_WRITE_ONLY, 64, NULL, &err);
  CHECK_FAILS(ctx, clforge_kv_cache_append(ctx, &d, k, k, hidden, c, c2, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT,
              "without host reads");
  clReleaseMemObject(hidden);
  d = good, d.cache_type = CLFORGE_Q8_0;
  CHECK_FAILS(ctx, clforge_kv_cache_append(ctx, &d, k, k, s, c, c2, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "multiple of 32");
  d = good, d.src_type = CLFORGE_Q8_0;
  CHECK_FAILS(ctx, clforge_kv_cache_append(ctx, &d, k, k, s, c, c2, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "src_type");
  d = good, d.block_size = 0;
  CHECK_FAILS(ctx, clforge_kv_cache_append(ctx, &d, k, k, s, c, c2, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "block_size");
  d = good, d.k_head_stride = 8;
  CHECK_FAILS(ctx, clforge_kv_cache_append(ctx, &d, k, k, s, c, c2, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "overlap its rows");
  d = good, d.cache_layout = (clforge_kv_cache_layout)2;
  CHECK_FAILS(ctx, clforge_kv_cache_append(ctx, &d, k, k, s, c, c2, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "cache_layout");
  d = good, d.reserved[1] = &d;
  CHECK_FAILS(ctx, clforge_kv_cache_append(ctx, &d, k, k, s, c, c2, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "reserved");
  d = good, d.v_cache_offset = SIZE_MAX - 4;
  CHECK_FAILS(ctx, clforge_kv_cache_append(ctx, &d, k, k, s, c, c2, 0, NULL, NULL), CLFORGE_SIZE_OVERFLOW, "overflow");
  d = good, d.num_blocks = 40;
  CHECK_FAILS(ctx, clforge_kv_cache_append(ctx, &d, k, k, s, c, c2, 0, NULL, NULL), CLFORGE_BUFFER_TOO_SMALL, "k_cache");
  d = good, d.slots_offset = 2; /* 5 int32 past a 16-byte buffer */
  CHECK_FAILS(ctx, clforge_kv_cache_append(ctx, &d, k, k, small, c, c2, 0, NULL, NULL), CLFORGE_BUFFER_TOO_SMALL, "slots");
  d = good;
  CHECK_FAILS(ctx, clforge_kv_cache_append(ctx, &d, k, k, s, c, c, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "overlaps");
  CHECK_FAILS(ctx, clforge_kv_cache_append(ctx, &d, c2, k, s, c, c2, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "overlaps");
  float back[1024];
  tu_read(ctx, c, 0, 4096, back);
  CHECK(!memcmp(back, sent, 4096), "a refused call wrote a cache");
  tu_read(ctx, c2, 0, 4096, back);
  CHECK(!memcmp(back, sent, 4096), "a refused call wrote a cache");
  d = good, d.tokens = 0;
  cl_event ev = NULL;
  CHECK_OK(ctx, clforge_kv_cache_append(ctx, &d, NULL, NULL, NULL, NULL, NULL, 0, NULL, &ev));
  CHECK(ev != NULL, "no tokens gives a marker event");
  if (ev) clReleaseEvent(ev);
  clforge_kernel_choice ch;
  CHECK_OK(ctx, clforge_kv_cache_append_explain(ctx, &good, &ch));
  CHECK(!strcmp(ch.family, "kv_append") && ch.nparams == 1, "explain names the family: %s", ch.family);
  const cl_mem all[] = {k, c, c2, s, small};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i) keep_release(all[i]);
}

static void validation(clforge_context ctx) {
  CHECK_OK(ctx, clforge_context_set_validation(ctx, 1));
  const acase c = {CLFORGE_BF16, CLFORGE_Q8_0, 5, 2, 64, 32, 4, 3, 0, 0};
  run(ctx, &c);
  const acase f = {CLFORGE_F32, CLFORGE_F16, 4, 3, 16, 0, 2, 4, 0, 1};
  run(ctx, &f);
  { /* a q8_0 row spoiled: its bits flipped */
    cl_mem k = tu_buffer(ctx, 4 * 64), s = tu_buffer(ctx, 8), kc = tu_buffer(ctx, 4 * 34), vc = tu_buffer(ctx, 4 * 34);
    float h[64];
    const int32_t sl[2] = {1, 3};
    for (int i = 0; i < 64; ++i) h[i] = (float)(i % 7) - 3.0f;
    tu_write(ctx, k, 0, sizeof h, h), tu_write(ctx, s, 0, sizeof sl, sl);
    const clforge_kv_append_desc q = {.tokens = 2, .heads_kv = 1, .head_dim = 32, .block_size = 2, .num_blocks = 2,
                                      .cache_type = CLFORGE_Q8_0};
    clforge__test_set_fault(ctx, "kv_cache_append");
    CHECK_FAILS(ctx, clforge_kv_cache_append(ctx, &q, k, k, s, kc, vc, 0, NULL, NULL), CLFORGE_VALIDATION_FAILED,
                "differs from the reference");
    clforge__test_set_fault(ctx, NULL);
    const cl_mem all[] = {k, s, kc, vc};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i) keep_release(all[i]);
  }
  cl_mem k = tu_buffer(ctx, 4 * 64), s = tu_buffer(ctx, 8), kc = tu_buffer(ctx, 4 * 256), vc = tu_buffer(ctx, 4 * 256);
  float h[64];
  const int32_t sl[2] = {5, 2};
  for (int i = 0; i < 64; ++i) h[i] = (float)(i % 9) / 4.0f - 1.0f;
  tu_write(ctx, k, 0, sizeof h, h), tu_write(ctx, s, 0, sizeof sl, sl);
  const clforge_kv_append_desc d = {.tokens = 2, .heads_kv = 1, .head_dim = 32, .block_size = 4, .num_blocks = 2};
  clforge__test_set_fault(ctx, "kv_cache_append");
  CHECK_FAILS(ctx, clforge_kv_cache_append(ctx, &d, k, k, s, kc, vc, 0, NULL, NULL), CLFORGE_VALIDATION_FAILED,
              "kv_cache_append");
  clforge__test_set_fault(ctx, NULL);
  CHECK_OK(ctx, clforge_context_set_validation(ctx, 0));
  const cl_mem all[] = {k, s, kc, vc};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i) keep_release(all[i]);
}

int main(int argc, char **argv) {
  const int small = argc > 1 && !strcmp(argv[1], "--small");
  hand_values();
  clforge_context ctx = tu_context();
  if (small) keep_start_sized(ctx, 64 << 10);
  const clforge_dtype F = CLFORGE_F32, H = CLFORGE_F16, B = CLFORGE_BF16, Q = CLFORGE_Q8_0;
  const acase cs[] = {
      {F, H, 9, 2, 64, 0, 16, 3, 0, 0}, {B, Q, 6, 2, 64, 32, 4, 5, 0, 1}, {H, F, 7, 3, 24, 40, 5, 4, 0, 1},
      {F, Q, 5, 2, 32, 0, 8, 2, 1, 0},  {F, B, 3, 1, 8, 0, 1, 7, 1, 1},    {F, H, 6, 3, 16, 8, 4, 3, 2, 0},
  };
  for (size_t i = 0; i < sizeof cs / sizeof cs[0]; ++i)
    if (!small || i % 2) run(ctx, &cs[i]);
  if (!small) attention_reads_it(ctx);
  bad_input(ctx);
  if (!small) validation(ctx);
  if (small) keep_end(ctx);
  clforge_context_destroy(ctx);
  return tu_summary();
}
