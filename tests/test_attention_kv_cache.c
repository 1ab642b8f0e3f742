/* KV caches for decode: a paged cache (vLLM's block pool and table) and a
 * q8_0 cache. The same keys are written contiguously and scattered over a
 * shuffled pool (unused pool bytes all 0xFF: NaN in every KV type, so a row
 * read from the wrong place shows), and the paged call must equal the
 * contiguous one bit for bit, for each KV type (f32, f16, bf16, q8_0),
 * split-KV decode and fused chunked prefill (bottom-right causal, query
 * lengths; f16 and q8_0), sequences of different lengths (0 included), a table with a
 * stride and offset of its own and entries past each sequence that are not
 * valid. Both are checked against the reference (clforge_ref_attention_paged,
 * which dequantizes q8_0 exactly); q8_0 also against the f32 reference of
 * the unquantized K and V within the bound of docs/inference-precision.md.
 * Then bad inputs (table entries outside the pool, lengths past Sk, a
 * table too short, q8_0 dims and strides, the backward) are refused with
 * O untouched. --small: tiny shapes (Oclgrind). */
#include <math.h>

#include "oclgrind_keep.h"
#include "test_util.h"

static clforge_context ctx;
static int small;

typedef struct {
  size_t b, hq, hkv, sq, sk, d, bs;
  clforge_dtype q, kv;
  clforge_attention_algo algo;
  size_t dv;    /* 0: d */
  int no_lens;  /* every sequence Sk long, no kv_lens buffer */
  int validate; /* the paged call in validation mode */
  int twin;     /* also run unpaged and ask for O bit for bit (each twin is
                 * a program of its own: only where it teaches something) */
} kv_case;

/* Everything one case builds on the host. */
typedef struct {
  kv_case c;
  size_t dv;              /* V's head size */
  size_t row, rowv;       /* bytes of one stored K row, V row */
  size_t stride, nblocks; /* table stride (entries) and pool blocks */
  float *xk, *xv;         /* the f32 values, [B, Hkv, Sk, D] */
  unsigned char *q, *k, *v, *pk, *pv; /* storage: Q, contiguous K V, pooled K V */
  int32_t *lens, *qlens, *table;
  size_t qbytes;
} kv_host;

static size_t row_bytes(clforge_dtype t, size_t d) { return t == CLFORGE_Q8_0 ? d / 32 * 34 : d * clforge_dtype_size(t); }

/* rows x D f32 values as rows of type t (q8_0 through the reference quantizer). */
static void store_rows(const float *x, size_t rows, size_t d, clforge_dtype t, unsigned char *out) {
  if (t != CLFORGE_Q8_0) {
    clforge_ref_convert(rows * d, x, CLFORGE_F32, out, t);
    return;
  }
  clforge_quant_desc qd = {0};
  qd.scheme = CLFORGE_QUANT_Q8_0, qd.rows = rows, qd.cols = d;
  CHECK_OK(NULL, clforge_ref_quantize(&qd, x, out, NULL, NULL));
}

static void build(kv_host *h, kv_case c, unsigned seed) {
  memset(h, 0, sizeof *h);
  h->c = c;
  h->dv = c.dv ? c.dv : c.d;
  h->row = row_bytes(c.kv, c.d), h->rowv = row_bytes(c.kv, h->dv);
  const size_t nrow = c.b * c.hkv * c.sk;
  h->xk = malloc(nrow * c.d * sizeof(float)), h->xv = malloc(nrow * h->dv * sizeof(float));
  for (size_t i = 0; i < nrow * c.d; ++i) h->xk[i] = (float)(tu_rand(&seed) % 2001) / 1000.0f - 1.0f;
  for (size_t i = 0; i < nrow * h->dv; ++i) h->xv[i] = (float)(tu_rand(&seed) % 2001) / 1000.0f - 1.0f;
  h->k = malloc(nrow * h->row), h->v = malloc(nrow * h->rowv);
  store_rows(h->xk, nrow, c.d, c.kv, h->k);
  store_rows(h->xv, nrow, h->dv, c.kv, h->v);
  const size_t nq = c.b * c.hq * c.sq * c.d;
  h->qbytes = nq * clforge_dtype_size(c.q);
  h->q = malloc(h->qbytes);
  tu_fill(h->q, c.q, nq, &seed);
  /* lengths: the full Sk, off block boundaries, 0, 1 */
  h->lens = malloc(c.b * sizeof *h->lens), h->qlens = malloc(c.b * sizeof *h->qlens);
  const int32_t pick[] = {(int32_t)c.sk, (int32_t)c.sk - 7, 0, 1, (int32_t)c.sk / 2 + 3, (int32_t)c.bs};
  for (size_t b = 0; b < c.b; ++b) {
    h->lens[b] = c.no_lens ? (int32_t)c.sk : pick[b % 6] < 0 ? 0 : pick[b % 6];
    h->qlens[b] = (int32_t)(c.sq - b % c.sq);
  }
  /* the pool: every used block at a shuffled place, two spare blocks, the
   * table one entry wider than needed and 2 entries in */
  const size_t need = (c.sk + c.bs - 1) / c.bs;
  h->stride = need + 1;
  size_t used = 0;
  for (size_t b = 0; b < c.b; ++b) used += ((size_t)h->lens[b] + c.bs - 1) / c.bs;
  h->nblocks = used + 2;
  size_t *perm = malloc(h->nblocks * sizeof *perm);
  for (size_t i = 0; i < h->nblocks; ++i) perm[i] = i;
  for (size_t i = h->nblocks; i > 1; --i) {
    const size_t j = tu_rand(&seed) % i, t = perm[i - 1];
    perm[i - 1] = perm[j], perm[j] = t;
  }
  h->table = malloc((2 + c.b * h->stride) * sizeof *h->table);
  for (size_t i = 0; i < 2 + c.b * h->stride; ++i) h->table[i] = i % 2 ? -1 : INT32_MAX; /* never read */
  const size_t pool = h->nblocks * c.hkv * c.bs * h->row, poolv = h->nblocks * c.hkv * c.bs * h->rowv;
  h->pk = malloc(pool), h->pv = malloc(poolv);
  memset(h->pk, 0xFF, pool), memset(h->pv, 0xFF, poolv);
  size_t next = 0;
  for (size_t b = 0; b < c.b; ++b) {
    const size_t nb = ((size_t)h->lens[b] + c.bs - 1) / c.bs;
    for (size_t p = 0; p < nb; ++p) h->table[2 + b * h->stride + p] = (int32_t)perm[next++];
    for (size_t hh = 0; hh < c.hkv; ++hh)
      for (size_t j = 0; j < (size_t)h->lens[b]; ++j) {
        const size_t blk = (size_t)h->table[2 + b * h->stride + j / c.bs];
        const size_t src = (b * c.hkv + hh) * c.sk + j, dst = (blk * c.hkv + hh) * c.bs + j % c.bs; /* rows */
        memcpy(h->pk + dst * h->row, h->k + src * h->row, h->row);
        memcpy(h->pv + dst * h->rowv, h->v + src * h->rowv, h->rowv);
      }
  }
  free(perm);
}

static void release(kv_host *h) {
  free(h->xk), free(h->xv), free(h->q), free(h->k), free(h->v), free(h->pk), free(h->pv);
  free(h->lens), free(h->qlens), free(h->table);
}

static clforge_attention_desc desc_of(const kv_host *h, int paged) {
  const kv_case *c = &h->c;
  clforge_attention_desc d = {0};
  d.batch = c->b, d.heads_q = c->hq, d.heads_kv = c->hkv, d.seq_q = c->sq, d.seq_kv = c->sk, d.head_dim = c->d;
  d.head_dim_v = h->dv;
  d.q_type = c->q, d.kv_type = c->kv, d.o_type = CLFORGE_F32;
  d.causal = CLFORGE_CAUSAL_BOTTOM_RIGHT, d.algo = c->algo;
  if (paged) {
    d.kv_block_size = c->bs, d.kv_num_blocks = h->nblocks, d.block_table_stride = h->stride, d.block_table_offset = 2;
  }
  return d;
}

/* O of one call (paged or not) on the device, into out (B*Hq*Sq*D floats,
 * rows past q_len left at the fill pattern). */
static clforge_status run_call(const kv_host *h, int paged, float *out) {
  const kv_case *c = &h->c;
  const clforge_attention_desc d = desc_of(h, paged);
  const size_t rows = paged ? h->nblocks * c->hkv * c->bs : c->b * c->hkv * c->sk;
  const size_t kb = rows * h->row, vb = rows * h->rowv;
  const size_t ob = c->b * c->hq * c->sq * h->dv * sizeof(float), tb = (2 + c->b * h->stride) * sizeof(int32_t);
  cl_mem q = tu_buffer(ctx, h->qbytes), k = tu_buffer(ctx, kb), v = tu_buffer(ctx, vb), o = tu_buffer(ctx, ob);
  cl_mem lens = tu_buffer(ctx, c->b * sizeof(int32_t)), ql = tu_buffer(ctx, c->b * sizeof(int32_t));
  cl_mem bt = tu_buffer(ctx, tb);
  for (size_t i = 0; i < ob / sizeof(float); ++i) out[i] = 7.0f;
  tu_write(ctx, q, 0, h->qbytes, h->q);
  tu_write(ctx, k, 0, kb, paged ? h->pk : h->k);
  tu_write(ctx, v, 0, vb, paged ? h->pv : h->v);
  tu_write(ctx, o, 0, ob, out);
  tu_write(ctx, lens, 0, c->b * sizeof(int32_t), h->lens);
  tu_write(ctx, ql, 0, c->b * sizeof(int32_t), h->qlens);
  tu_write(ctx, bt, 0, tb, h->table);
  clforge_attention_buffers x = {0};
  x.kv_lens = c->no_lens ? NULL : lens, x.q_lens = ql;
  if (paged) x.block_table = bt;
  int was = 0;
  clforge_context_get_validation(ctx, &was);
  if (paged && c->validate) clforge_context_set_validation(ctx, 1); /* the reference through the table, on the device's copies */
  const clforge_status st = clforge_attention(ctx, &d, q, k, v, o, &x, 0, NULL, NULL);
  clforge_context_set_validation(ctx, was);
  if (st == CLFORGE_SUCCESS) tu_read(ctx, o, 0, ob, out);
  const cl_mem all[] = {q, k, v, o, lens, ql, bt};
  for (int i = 0; i < 7; ++i) keep_release(all[i]);
  return st;
}

static const char *name_of(const kv_case *c, char *buf, size_t cap) {
  snprintf(buf, cap, "%s kv=%s q=%s B=%zu Hq=%zu Hkv=%zu Sq=%zu Sk=%zu D=%zu Dv=%zu block=%zu%s%s",
           clforge_attention_algo_name(c->algo), clforge_dtype_name(c->kv), clforge_dtype_name(c->q), c->b, c->hq,
           c->hkv, c->sq, c->sk, c->d, c->dv ? c->dv : c->d, c->bs, c->no_lens ? " no kv_lens" : "",
           c->validate ? " validated" : "");
  return buf;
}

/* The q8_0 bound against the f32 reference of the unquantized K and V:
 * each stored value is within e = amax (1/254 + 2^-11) of its block's
 * amax (rounding to a step of d = amax/127, d rounded to f16), so a score
 * moves by at most delta = scale sum_c |q_c| eK(c), the weights by a
 * factor within e^(+-2 delta), and O by at most max eV + (e^(2 delta) - 1)
 * max |v|. Taken with the largest block amax of all (1 here). */
static double q8_bound(const kv_host *h, size_t b, size_t hh, size_t i) {
  const kv_case *c = &h->c;
  const double e = 1.0 / 254.0 + 1.0 / 2048.0, scale = 1.0 / sqrt((double)c->d);
  double sq = 0.0;
  for (size_t t = 0; t < c->d; ++t) {
    float qv;
    clforge_ref_convert(1, h->q + (((b * c->hq + hh) * c->sq + i) * c->d + t) * clforge_dtype_size(c->q), c->q, &qv,
                        CLFORGE_F32);
    sq += fabs((double)qv);
  }
  const double delta = scale * sq * e;
  return e + (exp(2.0 * delta) - 1.0) * (1.0 + e) + 1e-4;
}

static void run(kv_case c, unsigned seed) {
  char name[200];
  name_of(&c, name, sizeof name);
  kv_host h;
  build(&h, c, seed);
  const size_t n = c.b * c.hq * c.sq * h.dv;
  float *contig = malloc(n * sizeof *contig), *paged = malloc(n * sizeof *paged), *ref = malloc(n * sizeof *ref);
  CHECK_OK(ctx, run_call(&h, 1, paged));
  if (c.twin) {
    CHECK_OK(ctx, run_call(&h, 0, contig));
    size_t diff = 0;
    for (size_t i = 0; i < n; ++i) diff += memcmp(&contig[i], &paged[i], sizeof(float)) != 0;
    CHECK(diff == 0, "%s: paged differs from contiguous in %zu of %zu values", name, diff, n);
  }

  /* against the reference (which reads q8_0 as the kernels do) */
  clforge_attention_desc d = desc_of(&h, 1);
  for (size_t i = 0; i < n; ++i) ref[i] = 7.0f;
  CHECK_OK(NULL, clforge_ref_attention_paged(&d, h.q, h.pk, h.pv, NULL, c.no_lens ? NULL : h.lens, h.qlens, h.table, ref,
                                             NULL));
  double worst = 0.0;
  for (size_t i = 0; i < n; ++i) {
    const double e = fabs((double)paged[i] - (double)ref[i]);
    if (!(e <= worst)) worst = e; /* NaN sticks */
  }
  CHECK(worst <= 1e-4, "%s: max |O - ref| = %g", name, worst);

  if (c.kv == CLFORGE_Q8_0) {
    /* against the unquantized K and V (f32, contiguous) */
    clforge_attention_desc df = desc_of(&h, 0);
    df.kv_type = CLFORGE_F32;
    CHECK_OK(NULL, clforge_ref_attention(&df, h.q, h.xk, h.xv, NULL, c.no_lens ? NULL : h.lens, h.qlens, ref, NULL));
    double ratio = 0.0, seen = 0.0;
    for (size_t b = 0; b < c.b; ++b)
      for (size_t hh = 0; hh < c.hq; ++hh)
        for (size_t i = 0; i < (size_t)h.qlens[b]; ++i) {
          const double bound = q8_bound(&h, b, hh, i);
          for (size_t t = 0; t < h.dv; ++t) {
            const size_t at = ((b * c.hq + hh) * c.sq + i) * h.dv + t;
            const double e = fabs((double)paged[at] - (double)ref[at]);
            if (!(e <= ratio * bound)) ratio = e / bound;
            if (e > seen) seen = e;
          }
        }
    CHECK(ratio <= 1.0, "%s: |O - f32 ref| reaches %.3g of the q8_0 bound", name, ratio);
    printf("  %s: max |O - f32 reference| = %.3g (%.3g of the bound)\n", name, seen, ratio);
  }
  free(contig), free(paged), free(ref);
  release(&h);
}

/* ------------------------------------------------------------ bad inputs */

static void bad_inputs(void) {
  const kv_case c = {2, 2, 1, 1, 40, 32, 16, CLFORGE_F32, CLFORGE_F32, CLFORGE_ATTENTION_ALGO_SPLIT_KV, 0, 0, 0, 0};
  kv_host h;
  build(&h, c, 5);
  const size_t kvb = h.nblocks * c.hkv * c.bs * h.row, ob = c.b * c.hq * c.sq * c.d * sizeof(float);
  const size_t tb = (2 + c.b * h.stride) * sizeof(int32_t);
  cl_mem q = tu_buffer(ctx, h.qbytes), k = tu_buffer(ctx, kvb), v = tu_buffer(ctx, kvb), o = tu_buffer(ctx, ob);
  cl_mem lens = tu_buffer(ctx, c.b * sizeof(int32_t)), bt = tu_buffer(ctx, tb), small_bt = tu_buffer(ctx, 8);
  float *fill = malloc(ob), *after = malloc(ob);
  for (size_t i = 0; i < ob / sizeof(float); ++i) fill[i] = 3.25f;
  tu_write(ctx, q, 0, h.qbytes, h.q);
  tu_write(ctx, k, 0, kvb, h.pk);
  tu_write(ctx, v, 0, kvb, h.pv);
  tu_write(ctx, o, 0, ob, fill);
  tu_write(ctx, lens, 0, c.b * sizeof(int32_t), h.lens);
  tu_write(ctx, small_bt, 0, 8, h.table);
  const clforge_attention_desc good = desc_of(&h, 1);
  clforge_attention_desc d;
  clforge_attention_buffers x;
  int32_t *t = malloc(tb), l[2];
#define RESET() (d = good, memset(&x, 0, sizeof x), x.kv_lens = lens, x.block_table = bt, \
                 memcpy(t, h.table, tb), tu_write(ctx, bt, 0, tb, t), memcpy(l, h.lens, sizeof l), \
                 tu_write(ctx, lens, 0, sizeof l, l))
#define BAD(setup, want, needle)                                                               \
  do {                                                                                         \
    RESET();                                                                                   \
    setup;                                                                                     \
    CHECK_FAILS(ctx, clforge_attention(ctx, &d, q, k, v, o, &x, 0, NULL, NULL), want, needle); \
  } while (0)
  /* the good call runs (then O is filled again) */
  RESET();
  CHECK_OK(ctx, clforge_attention(ctx, &d, q, k, v, o, &x, 0, NULL, NULL));
  tu_write(ctx, o, 0, ob, fill);
  /* table entries a sequence uses: past the pool, negative */
  BAD((t[2] = (int32_t)h.nblocks, tu_write(ctx, bt, 0, tb, t)), CLFORGE_INVALID_ARGUMENT, "outside the pool");
  BAD((t[2 + h.stride + 0] = -1, tu_write(ctx, bt, 0, tb, t)), CLFORGE_INVALID_ARGUMENT, "block_table[1][0] = -1");
  /* lengths past the table (Sk) or negative */
  BAD((l[0] = (int32_t)c.sk + 1, tu_write(ctx, lens, 0, sizeof l, l)), CLFORGE_INVALID_ARGUMENT, "outside [0, Sk");
  BAD((l[1] = -2, tu_write(ctx, lens, 0, sizeof l, l)), CLFORGE_INVALID_ARGUMENT, "kv_lens[1] = -2");
  /* the table's shape */
  BAD(d.block_table_stride = 2, CLFORGE_INVALID_ARGUMENT, "holds fewer blocks than Sk");
  BAD(x.block_table = small_bt, CLFORGE_BUFFER_TOO_SMALL, "block_table");
  BAD(x.block_table = NULL, CLFORGE_INVALID_ARGUMENT, "needs extra->block_table");
  BAD(d.kv_num_blocks = 0, CLFORGE_INVALID_ARGUMENT, "kv_num_blocks = 0");
  BAD(d.kv_num_blocks = h.nblocks + 1, CLFORGE_BUFFER_TOO_SMALL, "k");
  BAD((d.kv_block_size = 0, d.kv_num_blocks = 0, d.block_table_stride = 0, d.block_table_offset = 0),
      CLFORGE_INVALID_ARGUMENT, "kv_block_size is 0");
  BAD((d.kv_block_size = 0), CLFORGE_INVALID_ARGUMENT, "without kv_block_size");
  BAD(d.kv_block_size = (size_t)1 << 40, CLFORGE_LIMIT_EXCEEDED, "below 2^31");
  /* q8_0's dims and strides */
  BAD((d.kv_type = CLFORGE_Q8_0, d.head_dim = 48), CLFORGE_INVALID_ARGUMENT, "multiples of 32");
  BAD((d.kv_type = CLFORGE_Q8_0, d.k_strides[3] = 2, d.k_strides[2] = 1), CLFORGE_INVALID_ARGUMENT,
      "d strides must be 0 or 1");
  /* forward only */
  BAD(d.kind = CLFORGE_ATTENTION_BACKWARD, CLFORGE_INVALID_ARGUMENT, "forward only");
  BAD((d.kind = CLFORGE_ATTENTION_BACKWARD, d.kv_block_size = 0, d.kv_num_blocks = 0, d.block_table_stride = 0,
       d.block_table_offset = 0, d.kv_type = CLFORGE_Q8_0, x.block_table = NULL),
      CLFORGE_INVALID_ARGUMENT, "forward only");
#undef BAD
  tu_read(ctx, o, 0, ob, after);
  CHECK(!memcmp(fill, after, ob), "%s", "a refused call changed O");
  /* Sk = 0 reads no table (and needs no entry): every row has no key, O is zeros */
  RESET();
  d.seq_kv = 0, d.block_table_stride = 0, x.kv_lens = NULL;
  CHECK_OK(ctx, clforge_attention(ctx, &d, q, k, v, o, &x, 0, NULL, NULL));
  tu_read(ctx, o, 0, ob, after);
  int zeros = 1;
  for (size_t i = 0; i < ob / sizeof(float); ++i) zeros &= ((float *)after)[i] == 0.0f;
  CHECK(zeros, "%s", "Sk = 0: O is not all zeros");
  CHECK_OK(NULL, clforge_ref_attention_paged(&d, h.q, h.pk, h.pv, NULL, NULL, NULL, NULL, after, NULL));
#undef RESET
  free(fill), free(after), free(t);
  const cl_mem all[] = {q, k, v, o, lens, bt, small_bt};
  for (int i = 0; i < 7; ++i) keep_release(all[i]);
  release(&h);
}

int main(int argc, char **argv) {
  small = argc > 1 && !strcmp(argv[1], "--small");
  ctx = tu_context();
  if (small) keep_start_sized(ctx, 64 << 10);
  bad_inputs();
  const clforge_dtype kvs[] = {CLFORGE_F32, CLFORGE_F16, CLFORGE_BF16, CLFORGE_Q8_0};
  const clforge_attention_algo split = CLFORGE_ATTENTION_ALGO_SPLIT_KV, fused = CLFORGE_ATTENTION_ALGO_FUSED;
  if (small) {
    /* decode and a chunk of prefill, q8_0 and f16 (Oclgrind: every read checked) */
    run((kv_case){3, 2, 1, 1, 37, 32, 8, CLFORGE_F16, CLFORGE_Q8_0, split, 0, 0, 0, 1}, 1);
    run((kv_case){2, 2, 2, 3, 21, 32, 4, CLFORGE_F32, CLFORGE_F16, fused, 0, 0, 0, 1}, 2);
    run((kv_case){2, 2, 1, 2, 19, 32, 16, CLFORGE_F32, CLFORGE_Q8_0, fused, 0, 0, 0, 1}, 3);
  } else {
    /* decode (split-KV, GQA 4:1, the whole-block path: D = 64, blocks of
     * 16 keys) in every KV type, Q f32 (the paged q8_0 program is
     * examples/batched_decode's; f16 Q with q8_0 below), then a chunked
     * prefill (fused, Sq = 5). Every case is checked against the reference
     * through the table; the unpaged twin (bit for bit) runs for f32 (its
     * program is test_attention_split_kv's), f16 and q8_0, whose cases
     * below share those programs. */
    for (int i = 0; i < 4; ++i)
      run((kv_case){6, 8, 2, 1, 300, 64, 16, CLFORGE_F32, kvs[i], split, 0, 0, 0, kvs[i] != CLFORGE_BF16}, 10u + (unsigned)i);
    /* (fused: the 16-bit and 8-bit caches; f32 and bf16 rows are staged as
     * f16's, and each program costs seconds to build; the twin for q8_0) */
    for (int i = 1; i < 4; i += 2)
      run((kv_case){4, 4, 2, 5, 150, 64, 32, CLFORGE_F32, kvs[i], fused, 0, 0, 0, kvs[i] == CLFORGE_Q8_0}, 20u + (unsigned)i);
    /* a block size that is not a power of two, and one key per block (the
     * decode loop's programs again) */
    run((kv_case){3, 4, 4, 1, 77, 64, 5, CLFORGE_F32, CLFORGE_F16, split, 0, 0, 0, 1}, 30);
    run((kv_case){2, 2, 1, 2, 9, 64, 1, CLFORGE_F16, CLFORGE_Q8_0, split, 0, 0, 0, 0}, 31);
    /* no kv_lens (every sequence Sk long), in validation mode; Dv != D in
     * q8_0 (validated too); the fused kernel's paged f32 cache (its
     * in-place path is off for paging) */
    run((kv_case){3, 8, 2, 1, 90, 64, 16, CLFORGE_F32, CLFORGE_F16, split, 0, 1, 1, 1}, 32);
    run((kv_case){3, 4, 2, 1, 100, 64, 16, CLFORGE_F16, CLFORGE_Q8_0, split, 32, 0, 1, 0}, 33);
    run((kv_case){2, 4, 2, 5, 70, 64, 16, CLFORGE_F32, CLFORGE_F32, fused, 0, 0, 0, 0}, 34);
  }
  if (small) keep_end(ctx);
  clforge_context_destroy(ctx);
  return tu_summary();
}
