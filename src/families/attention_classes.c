#include "attention_classes.h"

const clforge__shape_class clforge__attn_all_classes[] = {
    CLFORGE_ATTN_CLASS_PREFILL_D64_S512,  CLFORGE_ATTN_CLASS_PREFILL_D64_S2048,
    CLFORGE_ATTN_CLASS_PREFILL_D128_S512, CLFORGE_ATTN_CLASS_PREFILL_D128_S2048_GQA,
    CLFORGE_ATTN_CLASS_DECODE_SK1024,     CLFORGE_ATTN_CLASS_DECODE_SK8192,
    CLFORGE_ATTN_CLASS_DECODE_SQ8_SK4096, CLFORGE_ATTN_CLASS_END,
};

int clforge__attn_class_is_decode(const clforge__shape_class *c) {
  return c->shape[ATTN_DIM_SQ] <= CLFORGE_ATTN_DECODE_MAX_SQ;
}
