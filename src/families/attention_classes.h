/* Attention shape classes, from real models: what the tuner measures the
 * attention families on. A shape is 7 dims: B, Hq, Hkv, Sq, Sk, D (= Dv),
 * causal (0 none, 2 bottom-right). Prefill classes are the fused family's,
 * decode classes split_kv's; a call belongs to the class of its kind
 * (prefill or decode) whose shape is nearest (clforge__attn_make_key). */
#ifndef CLFORGE_SRC_KERNELS_ATTENTION_CLASSES_H
#define CLFORGE_SRC_KERNELS_ATTENTION_CLASSES_H

#include "family.h"

enum { CLFORGE_ATTN_NDIMS = 7 };

/* Variant bits attention families' defaults may depend on (a call's:
 * clforge__attn_variant, src/ops/attention_algo.h). */
enum {
  CLFORGE__ATTN_VARIANT_HALF = 1,   /* Q or K/V in f16/bf16 storage */
  CLFORGE__ATTN_VARIANT_CAUSAL = 2, /* a causal call */
  CLFORGE__ATTN_VARIANT_DECODE = 4  /* Sq <= 16 */
};
enum { ATTN_DIM_B, ATTN_DIM_HQ, ATTN_DIM_HKV, ATTN_DIM_SQ, ATTN_DIM_SK, ATTN_DIM_D, ATTN_DIM_CAUSAL };

/* The largest Sq the decode classes stand for (and the automatic choice's
 * bound for split_kv, src/ops/attention.c). */
enum { CLFORGE_ATTN_DECODE_MAX_SQ = 16 };

/* clang-format off */
/* ViT-B/16 / BERT-base-like encoder at 512 tokens: 8 heads of 64 */
#define CLFORGE_ATTN_CLASS_PREFILL_D64_S512   {"prefill_d64_s512",   {1,  8, 8,  512,  512,  64, 0}, 1.0}
/* long-context encoder, D = 64 */
#define CLFORGE_ATTN_CLASS_PREFILL_D64_S2048  {"prefill_d64_s2048",  {1,  8, 8, 2048, 2048,  64, 0}, 1.0}
/* Llama-style heads of 128, short prompt */
#define CLFORGE_ATTN_CLASS_PREFILL_D128_S512  {"prefill_d128_s512",  {1,  8, 8,  512,  512, 128, 0}, 1.0}
/* Llama-3-8B prefill: 32 query heads over 8 KV heads, causal */
#define CLFORGE_ATTN_CLASS_PREFILL_D128_S2048_GQA {"prefill_d128_s2048_gqa", {1, 32, 8, 2048, 2048, 128, 2}, 1.0}
/* Llama-3-8B decode, one token against a 1k / 8k KV cache */
#define CLFORGE_ATTN_CLASS_DECODE_SK1024      {"decode_sk1024",      {1, 32, 8,    1, 1024, 128, 2}, 0.5}
#define CLFORGE_ATTN_CLASS_DECODE_SK8192      {"decode_sk8192",      {1, 32, 8,    1, 8192, 128, 2}, 0.5}
/* speculative decoding / small-batch decode: 8 queries against 4k */
#define CLFORGE_ATTN_CLASS_DECODE_SQ8_SK4096  {"decode_sq8_sk4096",  {1, 32, 8,    8, 4096, 128, 2}, 0.5}
#define CLFORGE_ATTN_CLASS_END                {NULL, {0}, 0}
/* clang-format on */

/* Every class, prefill first (the classifier's and the benchmark's table). */
extern const clforge__shape_class clforge__attn_all_classes[];

/* 1 for a decode class (Sq <= CLFORGE_ATTN_DECODE_MAX_SQ). */
int clforge__attn_class_is_decode(const clforge__shape_class *c);

#endif
