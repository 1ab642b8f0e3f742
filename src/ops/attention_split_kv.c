/* Placeholder: the split_kv algorithm's table row until its kernel lands. */
#include <stdio.h>

#include "attention_algo.h"

static int supports(clforge_context ctx, const clforge__attn *d, char *why, size_t cap) {
  (void)ctx, (void)d;
  snprintf(why, cap, "split_kv is not built yet");
  return 0;
}

const clforge__attn_algo_impl clforge__attention_split_kv = {
    .algo = CLFORGE_ATTENTION_ALGO_SPLIT_KV,
    .name = "split_kv",
    .supports = supports,
};
