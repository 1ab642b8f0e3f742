/* The attention benchmark's peers and its bandwidth yardstick:
 *
 *   unfused composite   S = scale * Q K^T (strided-batched GEMM, one batch
 *                       item per batch and KV head), P = softmax(S + causal
 *                       mask) in place on S's rows (clforge_softmax), then
 *                       O = P V (strided-batched GEMM): the Sq x Sk score
 *                       matrix lives in device memory. Its GEMMs are
 *                       clforge_gemm's or CLBlast's; the softmax is always
 *                       clforge_softmax.
 *   plain read          bench/peak.cl's streaming read kernel over a buffer
 *                       of a given size (the K + V bytes of a decode call),
 *                       the "% of a plain read" of decode rows.
 *
 * Tensors are tight BHSD (Q [B, Hq, Sq, D], K [B, Hkv, Sk, D], V [B, Hkv,
 * Sk, Dv], O [B, Hq, Sq, Dv]). With GQA the `group` = Hq / Hkv query heads
 * of one KV head are adjacent in Q, O and S, so each GEMM batch item is one
 * (b, kv head): m = group * Sq rows against that head's K or V; no copies. */
#ifndef CLFORGE_BENCH_ATTENTION_PEERS_H
#define CLFORGE_BENCH_ATTENTION_PEERS_H

#include <clforge/clforge.h>
#include <stddef.h>

typedef struct clforge_bench_attn_problem {
  size_t b, hq, hkv, sq, sk, d, dv;
  int causal; /* bottom-right alignment (the same as top-left when Sq = Sk) */
  clforge_dtype q_type, kv_type, o_type;
  float scale;
} clforge_bench_attn_problem;

typedef enum { CLFORGE_BENCH_UNFUSED_CLFORGE = 0, CLFORGE_BENCH_UNFUSED_CLBLAST = 1 } clforge_bench_unfused_gemm;

typedef struct clforge_bench_unfused {
  clforge_context ctx;
  cl_command_queue queue;
  clforge_bench_attn_problem p;
  clforge_bench_unfused_gemm gemm;
  clforge_dtype s_type;      /* the scores' storage: Q's type */
  cl_mem s, mask;            /* S: B*Hq*Sq*Sk of s_type; mask: Sq*Sk f32 (causal only) */
  size_t extra_bytes;        /* S + mask: the device memory the composite needs beyond Q, K, V, O */
  clforge_gemm_desc qk, pv;  /* the two strided-batched GEMMs (clforge's form; CLBlast takes the same numbers) */
  clforge_softmax_desc sm;   /* one call over all rows, or one per (b, h) with the causal mask */
  const char *failed_in;     /* which step failed: "clforge_gemm", "clforge_softmax", "CLBlastSgemmStridedBatched" */
} clforge_bench_unfused;

/** Bytes of device memory the composite needs beyond Q, K, V and O. */
size_t clforge_bench_unfused_bytes(const clforge_bench_attn_problem *p);

/** Whether the composite with these GEMMs can run the problem's dtypes on a
 *  device with these CLFORGE_CAP_* bits; if not, *why says so. */
int clforge_bench_unfused_supported(clforge_bench_unfused_gemm gemm, const clforge_bench_attn_problem *p, unsigned caps,
                                    const char **why);

/** Allocate S (and the causal mask) and set the descriptors. `limit_bytes`
 *  (0: none) caps the extra memory as well as the device's own limits.
 *  Returns 0, or -1 with *why (e.g. "S needs 2.0 GiB, more than ..."). */
int clforge_bench_unfused_create(clforge_context ctx, clforge_bench_unfused_gemm gemm,
                                 const clforge_bench_attn_problem *p, size_t limit_bytes, clforge_bench_unfused *u,
                                 char *why, size_t cap);

/** Enqueue the whole composite on the context's queue (q, k, v, o tight
 *  BHSD). Returns 0, or the failing step's status (u->failed_in names it). */
int clforge_bench_unfused_enqueue(clforge_bench_unfused *u, cl_mem q, cl_mem k, cl_mem v, cl_mem o);

/** Enqueue the first GEMM alone (S = scale Q K^T with clforge_gemm): the
 *  Sq x Sk x D GEMM an attention's FLOP rate is compared with. */
int clforge_bench_unfused_enqueue_qk(clforge_bench_unfused *u, cl_mem q, cl_mem k);

void clforge_bench_unfused_destroy(clforge_bench_unfused *u);

/* ------------------------------------------------------------ plain read */

typedef struct clforge_bench_plain_read {
  cl_program program;
  cl_kernel kernel;
  cl_mem src, sums;
  size_t global, local; /* local 0: the driver's choice */
  size_t bytes;         /* read per run: the request rounded down to whole blocks of the kernel */
} clforge_bench_plain_read;

/** A streaming read of about `bytes` bytes (a buffer of its own, filled with
 *  1.0f) with bench/peak.cl's peak_read kernel, shaped as `clforge bench
 *  peak` shapes it. Returns 0, or -1 with *why. */
int clforge_bench_plain_read_create(clforge_context ctx, size_t bytes, clforge_bench_plain_read *r, char *why,
                                    size_t cap);

/** One run (a clforge_bench_enqueue_fn: user is the plain read). */
int clforge_bench_plain_read_enqueue(void *user, cl_command_queue queue);

void clforge_bench_plain_read_destroy(clforge_bench_plain_read *r);

#endif /* CLFORGE_BENCH_ATTENTION_PEERS_H */
