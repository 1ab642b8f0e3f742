/* Batched decode over a paged KV cache, vLLM's way: the K and V of every
 * sequence live in fixed-size blocks of one shared pool; each sequence owns
 * a row of a block table and a length. A step appends each running
 * sequence's new tokens (a chunk of its prompt, or the one token it
 * decodes) into its blocks, taking blocks from the free list as it grows,
 * then ONE clforge_attention call serves the whole batch: decode rows
 * (1 query) and chunked-prefill rows (up to CHUNK queries over the cached
 * prefix, causal bottom-right) side by side, through per-sequence query
 * and key lengths. A finished sequence returns its blocks and a waiting
 * one takes its slot (continuous batching).
 *
 *   batched_decode [--kv f32|f16|bf16|q8_0] [--seqs N] [--block N] [--check]
 *
 * There is no model here: a token's Q, K and V are a fixed function of
 * (sequence, position); a model would compute them from the layer's input.
 * K and V are written on the device: clforge_convert for f32/f16/bf16,
 * clforge_quantize into ggml's q8_0 blocks (one call per token covers its
 * heads: they are a block's stride apart). --check compares every step's
 * output with clforge_ref_attention_paged on the pool read back. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <clforge/clforge.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { HQ = 8, HKV = 2, D = 64, SLOTS = 4, CHUNK = 16, MAX_LEN = 256 };

#define CHECK_STATUS(ctx, call)                                            \
  do {                                                                     \
    clforge_status st_ = (call);                                           \
    if (st_ != CLFORGE_SUCCESS) {                                          \
      fprintf(stderr, "%s failed: %s\n", #call, clforge_last_error(ctx)); \
      return 1;                                                            \
    }                                                                      \
  } while (0)

typedef struct {
  int id;             /* which sequence (-1: the slot is free) */
  size_t len;         /* tokens in the cache */
  size_t prompt, end; /* prompt tokens; total tokens when it finishes */
} sequence;

/* A fixed value in [-1, 1) for (sequence, position, what, head, element). */
static float value(int id, size_t pos, int what, size_t h, size_t c) {
  unsigned x = (unsigned)id * 2654435761u ^ (unsigned)pos * 40503u ^ (unsigned)what * 97u ^ (unsigned)h * 7919u ^
               (unsigned)c * 31u;
  x ^= x >> 15, x *= 2246822519u, x ^= x >> 13;
  return (float)(x % 2000u) / 1000.0f - 1.0f;
}

static double seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
  clforge_dtype kv = CLFORGE_F16;
  int nseqs = 6, check = 0;
  size_t bs = 16;
  for (int a = 1; a < argc; ++a) {
    if (!strcmp(argv[a], "--kv") && a + 1 < argc) {
      if (clforge_dtype_from_name(argv[++a], &kv) != CLFORGE_SUCCESS ||
          (kv != CLFORGE_F32 && kv != CLFORGE_F16 && kv != CLFORGE_BF16 && kv != CLFORGE_Q8_0)) {
        fprintf(stderr, "--kv: f32, f16, bf16 or q8_0\n");
        return 2;
      }
    } else if (!strcmp(argv[a], "--seqs") && a + 1 < argc) {
      nseqs = atoi(argv[++a]);
    } else if (!strcmp(argv[a], "--block") && a + 1 < argc) {
      bs = (size_t)strtoul(argv[++a], NULL, 10);
    } else if (!strcmp(argv[a], "--check")) {
      check = 1;
    } else {
      fprintf(stderr, "usage: batched_decode [--kv f32|f16|bf16|q8_0] [--seqs N] [--block N] [--check]\n");
      return 2;
    }
  }
  if (nseqs < 1 || bs < 1 || bs > MAX_LEN) {
    fprintf(stderr, "--seqs and --block must be positive (block at most %d)\n", MAX_LEN);
    return 2;
  }
  const size_t row = kv == CLFORGE_Q8_0 ? D / 32 * 34 : D * clforge_dtype_size(kv); /* bytes per K/V row */
  const size_t per_seq = (MAX_LEN + bs - 1) / bs;        /* table entries per sequence */
  const size_t pool_blocks = SLOTS * per_seq * 3 / 4 + 1; /* fewer than SLOTS full sequences: blocks are reused */
  const size_t block_bytes = HKV * bs * row;              /* a pool block: [Hkv][bs] rows */

  clforge_context ctx;
  CHECK_STATUS(NULL, clforge_context_create(NULL, &ctx));
  cl_context cl_ctx;
  cl_command_queue queue;
  CHECK_STATUS(ctx, clforge_context_cl_context(ctx, &cl_ctx));
  CHECK_STATUS(ctx, clforge_context_queue(ctx, &queue));
  cl_int e[8];
  cl_mem pool_k = clCreateBuffer(cl_ctx, CL_MEM_READ_WRITE, pool_blocks * block_bytes, NULL, &e[0]);
  cl_mem pool_v = clCreateBuffer(cl_ctx, CL_MEM_READ_WRITE, pool_blocks * block_bytes, NULL, &e[1]);
  cl_mem table = clCreateBuffer(cl_ctx, CL_MEM_READ_ONLY, SLOTS * per_seq * sizeof(int32_t), NULL, &e[2]);
  cl_mem lens = clCreateBuffer(cl_ctx, CL_MEM_READ_ONLY, 2 * SLOTS * sizeof(int32_t), NULL, &e[3]);
  cl_mem q = clCreateBuffer(cl_ctx, CL_MEM_READ_ONLY, SLOTS * HQ * CHUNK * D * sizeof(float), NULL, &e[4]);
  cl_mem o = clCreateBuffer(cl_ctx, CL_MEM_READ_WRITE, SLOTS * HQ * CHUNK * D * sizeof(float), NULL, &e[5]);
  cl_mem new_k = clCreateBuffer(cl_ctx, CL_MEM_READ_ONLY, SLOTS * CHUNK * HKV * D * sizeof(float), NULL, &e[6]);
  cl_mem new_v = clCreateBuffer(cl_ctx, CL_MEM_READ_ONLY, SLOTS * CHUNK * HKV * D * sizeof(float), NULL, &e[7]);
  for (int i = 0; i < 8; ++i)
    if (e[i] != CL_SUCCESS) {
      fprintf(stderr, "clCreateBuffer failed (%d)\n", e[i]);
      return 1;
    }

  /* host state: the free list, the table, each slot's sequence */
  int32_t *free_list = malloc(pool_blocks * sizeof *free_list), *tab = malloc(SLOTS * per_seq * sizeof *tab);
  float *hq = calloc(SLOTS * HQ * CHUNK * D, sizeof *hq), *ho = malloc(SLOTS * HQ * CHUNK * D * sizeof *ho);
  float *hk = malloc(SLOTS * CHUNK * HKV * D * sizeof *hk), *hv = malloc(SLOTS * CHUNK * HKV * D * sizeof *hv);
  float *ref = malloc(SLOTS * HQ * CHUNK * D * sizeof *ref);
  unsigned char *host_k = malloc(pool_blocks * block_bytes), *host_v = malloc(pool_blocks * block_bytes);
  if (!free_list || !tab || !hq || !ho || !hk || !hv || !ref || !host_k || !host_v) return 1;
  size_t nfree = pool_blocks, peak_used = 0;
  for (size_t i = 0; i < pool_blocks; ++i) free_list[i] = (int32_t)(pool_blocks - 1 - i);
  for (size_t i = 0; i < SLOTS * per_seq; ++i) tab[i] = -1; /* never read: past every length */
  sequence seq[SLOTS];
  int next_id = 0, done = 0;
  for (int s = 0; s < SLOTS; ++s) seq[s].id = -1;

  size_t steps = 0, decoded = 0, prefilled = 0;
  double worst = 0, *step_s = NULL; /* each step's time (the first ones build kernels) */
  while (done < nseqs) {
    /* admit waiting sequences into free slots: prompts of 0 to ~150 tokens */
    for (int s = 0; s < SLOTS; ++s)
      if (seq[s].id < 0 && next_id < nseqs) {
        const size_t prompt = (size_t)(next_id * 37 % 150) + 1;
        seq[s] = (sequence){next_id, 0, prompt, prompt + 20 + (size_t)(next_id % 3) * 7};
        if (seq[s].end > MAX_LEN) seq[s].end = MAX_LEN;
        ++next_id;
      }
    /* this step's new tokens per slot: a prompt chunk or one decoded token */
    int32_t qlen[SLOTS], kvlen[SLOTS];
    size_t sq = 1;
    for (int s = 0; s < SLOTS; ++s) {
      qlen[s] = 0;
      if (seq[s].id < 0) continue;
      size_t n = seq[s].len < seq[s].prompt ? seq[s].prompt - seq[s].len : 1;
      if (n > CHUNK) n = CHUNK;
      qlen[s] = (int32_t)n;
      if (n > sq) sq = n;
    }
    /* append them: blocks from the free list as a sequence crosses into one */
    for (int s = 0; s < SLOTS; ++s) {
      sequence *x = &seq[s];
      kvlen[s] = 0;
      if (x->id < 0) continue;
      for (int t = 0; t < qlen[s]; ++t) {
        const size_t pos = x->len + (size_t)t;
        if (pos % bs == 0) {
          if (!nfree) {
            fprintf(stderr, "the pool is exhausted\n"); /* a scheduler would preempt a sequence here */
            return 1;
          }
          tab[(size_t)s * per_seq + pos / bs] = free_list[--nfree];
        }
        for (size_t h = 0; h < HKV; ++h)
          for (size_t c = 0; c < D; ++c) {
            hk[(((size_t)s * CHUNK + (size_t)t) * HKV + h) * D + c] = value(x->id, pos, 1, h, c);
            hv[(((size_t)s * CHUNK + (size_t)t) * HKV + h) * D + c] = value(x->id, pos, 2, h, c);
          }
        for (size_t h = 0; h < HQ; ++h)
          for (size_t c = 0; c < D; ++c)
            hq[(((size_t)s * HQ + h) * CHUNK + (size_t)t) * D + c] = value(x->id, pos, 0, h, c);
      }
      kvlen[s] = (int32_t)(x->len + (size_t)qlen[s]);
    }
    if (pool_blocks - nfree > peak_used) peak_used = pool_blocks - nfree;
    const double t0 = seconds();
    clEnqueueWriteBuffer(queue, new_k, CL_FALSE, 0, SLOTS * CHUNK * HKV * D * sizeof *hk, hk, 0, NULL, NULL);
    clEnqueueWriteBuffer(queue, new_v, CL_FALSE, 0, SLOTS * CHUNK * HKV * D * sizeof *hv, hv, 0, NULL, NULL);
    clEnqueueWriteBuffer(queue, q, CL_FALSE, 0, SLOTS * HQ * CHUNK * D * sizeof *hq, hq, 0, NULL, NULL);
    clEnqueueWriteBuffer(queue, table, CL_FALSE, 0, SLOTS * per_seq * sizeof *tab, tab, 0, NULL, NULL);
    clEnqueueWriteBuffer(queue, lens, CL_FALSE, 0, sizeof kvlen, kvlen, 0, NULL, NULL);
    clEnqueueWriteBuffer(queue, lens, CL_FALSE, sizeof kvlen, sizeof qlen, qlen, 0, NULL, NULL);
    /* K and V of each new token into its slot of its block, on the device */
    for (int s = 0; s < SLOTS; ++s)
      for (int t = 0; t < qlen[s]; ++t) {
        const size_t pos = seq[s].len + (size_t)t, blk = (size_t)tab[(size_t)s * per_seq + pos / bs];
        const size_t src = ((size_t)s * CHUNK + (size_t)t) * HKV * D; /* f32 elements */
        const size_t dst = blk * HKV * bs + pos % bs;                /* rows; heads bs rows apart */
        const cl_mem from[2] = {new_k, new_v}, to[2] = {pool_k, pool_v};
        for (int w = 0; w < 2; ++w) {
          if (kv == CLFORGE_Q8_0) {
            const clforge_quant_desc qd = {.scheme = CLFORGE_QUANT_Q8_0, .rows = HKV, .cols = D, .x_offset = src,
                                           .ldq = bs * row, .q_offset = dst * row};
            CHECK_STATUS(ctx, clforge_quantize(ctx, &qd, from[w], to[w], NULL, NULL, 0, NULL, NULL));
          } else {
            for (size_t h = 0; h < HKV; ++h)
              CHECK_STATUS(ctx, clforge_convert(ctx, D, from[w], src + h * D, CLFORGE_F32, to[w], (dst + h * bs) * D,
                                                kv, 0, NULL, NULL));
          }
        }
      }
    /* one attention call for the whole batch */
    const clforge_attention_desc desc = {
        .batch = SLOTS, .heads_q = HQ, .heads_kv = HKV, .seq_q = sq, .seq_kv = MAX_LEN, .head_dim = D,
        .kv_type = kv, .causal = CLFORGE_CAUSAL_BOTTOM_RIGHT,
        .q_strides = {HQ * CHUNK * D, CHUNK * D, D, 1}, .o_strides = {HQ * CHUNK * D, CHUNK * D, D, 1},
        .q_lens_offset = SLOTS, .kv_block_size = bs, .kv_num_blocks = pool_blocks, .block_table_stride = per_seq};
    const clforge_attention_buffers extra = {.kv_lens = lens, .q_lens = lens, .block_table = table};
    cl_event ev;
    CHECK_STATUS(ctx, clforge_attention(ctx, &desc, q, pool_k, pool_v, o, &extra, 0, NULL, &ev));
    clWaitForEvents(1, &ev);
    clReleaseEvent(ev);
    double *grown = realloc(step_s, (steps + 1) * sizeof *step_s);
    if (!grown) return 1;
    step_s = grown;
    step_s[steps++] = seconds() - t0;

    if (check) {
      clEnqueueReadBuffer(queue, o, CL_FALSE, 0, SLOTS * HQ * CHUNK * D * sizeof *ho, ho, 0, NULL, NULL);
      clEnqueueReadBuffer(queue, pool_k, CL_FALSE, 0, pool_blocks * block_bytes, host_k, 0, NULL, NULL);
      clEnqueueReadBuffer(queue, pool_v, CL_TRUE, 0, pool_blocks * block_bytes, host_v, 0, NULL, NULL);
      int32_t both[2 * SLOTS];
      memcpy(both, kvlen, sizeof kvlen), memcpy(both + SLOTS, qlen, sizeof qlen);
      CHECK_STATUS(NULL, clforge_ref_attention_paged(&desc, hq, host_k, host_v, NULL, both, both, tab, ref, NULL));
      for (int s = 0; s < SLOTS; ++s)
        for (size_t h = 0; h < HQ; ++h)
          for (int t = 0; t < qlen[s]; ++t)
            for (size_t c = 0; c < D; ++c) {
              const size_t at = (((size_t)s * HQ + h) * CHUNK + (size_t)t) * D + c;
              const double d = fabs((double)ho[at] - (double)ref[at]);
              if (!(d <= worst)) worst = d;
            }
    }
    /* advance; finished sequences give their blocks back */
    for (int s = 0; s < SLOTS; ++s) {
      sequence *x = &seq[s];
      if (x->id < 0) continue;
      if (x->len >= x->prompt) ++decoded;
      else prefilled += (size_t)qlen[s];
      x->len += (size_t)qlen[s];
      if (x->len >= x->end) {
        for (size_t p = 0; p < (x->len + bs - 1) / bs; ++p) {
          free_list[nfree++] = tab[(size_t)s * per_seq + p];
          tab[(size_t)s * per_seq + p] = -1;
        }
        x->id = -1;
        ++done;
      }
    }
  }
  for (size_t i = 1; i < steps; ++i) /* sort for the median */
    for (size_t j = i; j > 0 && step_s[j] < step_s[j - 1]; --j) {
      const double t = step_s[j];
      step_s[j] = step_s[j - 1], step_s[j - 1] = t;
    }
  printf("%d sequences, %zu steps of up to %d in a batch: %zu prompt tokens in chunks of up to %d, %zu decoded; "
         "KV %s in a pool of %zu blocks of %zu keys (%zu bytes each, at most %zu in use); a step (appends and "
         "attention) %.3f ms median, %.3f ms the slowest (kernel builds)\n",
         nseqs, steps, SLOTS, prefilled, CHUNK, decoded, clforge_dtype_name(kv), pool_blocks, bs, block_bytes,
         peak_used, step_s[steps / 2] * 1e3, step_s[steps - 1] * 1e3);
  int ok = 1;
  if (check) {
    ok = worst <= 1e-4;
    printf("every step against clforge_ref_attention_paged: max |O - reference| = %.3g %s\n", worst,
           ok ? "ok" : "MISMATCH");
  }
  const cl_mem all[] = {pool_k, pool_v, table, lens, q, o, new_k, new_v};
  for (int i = 0; i < 8; ++i) clReleaseMemObject(all[i]);
  free(step_s), free(free_list), free(tab), free(hq), free(ho), free(hk), free(hv), free(ref), free(host_k), free(host_v);
  clforge_context_destroy(ctx);
  return ok ? 0 : 1;
}
