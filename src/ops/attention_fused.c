/* Placeholder: the fused algorithm's table row until its kernel lands. */
#include <stdio.h>

#include "attention_algo.h"

static int supports(clforge_context ctx, const clforge__attn *d, char *why, size_t cap) {
  (void)ctx, (void)d;
  snprintf(why, cap, "fused is not built yet");
  return 0;
}

const clforge__attn_algo_impl clforge__attention_fused = {
    .algo = CLFORGE_ATTENTION_ALGO_FUSED,
    .name = "fused",
    .supports = supports,
};
