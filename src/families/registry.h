/* The registry: every kernel family, every op the tuner knows and every
 * algorithm of conv and attention, each declared once, here. The rest is
 * generated from these lists: the families' externs and the runtime's lists
 * (families.h, families.c), the tuner's table of which op tunes a family
 * (src/tuning/tunables.c), the algorithms' names (src/ops/conv_common.c,
 * src/ops/attention_common.c), and the public name query
 * (clforge_registry_name) that the command's help and the Python package
 * read. tests/test_registry.c checks each consumer against these lists.
 *
 * The lists are X-macros: a consumer defines the row macros it needs and
 * passes them in. A new family is one row here (TUNED with its op, or
 * PLAIN); a new tuned op one row of CLFORGE__TUNE_OPS and its
 * clforge__tune_<op>; a new algorithm one row of its op's list, beside
 * its public enum value. */
#ifndef CLFORGE_SRC_FAMILIES_REGISTRY_H
#define CLFORGE_SRC_FAMILIES_REGISTRY_H

/* Every family: TUNED(name, op) for one the tuner searches (op: the
 * tuner's op that runs it, one of CLFORGE__TUNE_OPS), PLAIN(name) for one
 * it does not. name is the descriptor's (clforge__family_<name>, whose
 * .name is "<name>"). The tuned families' order is the tuner's: within a
 * shape class, ties between families go to the one listed first. */
#define CLFORGE__FAMILIES(TUNED, PLAIN)          \
  PLAIN(convert)                                 \
  TUNED(gemm, gemm)                              \
  TUNED(gemm_direct, gemm)                       \
  TUNED(gemm_packed, gemm)                       \
  TUNED(conv_direct, conv)                       \
  TUNED(conv_depthwise, conv)                    \
  TUNED(conv_winograd_2x2, conv)                 \
  TUNED(conv_winograd_4x4, conv)                 \
  TUNED(conv_fft, conv)                          \
  TUNED(conv_gemm_1x1, conv)                     \
  TUNED(conv_im2col, conv)                       \
  TUNED(conv_implicit_gemm, conv)                \
  PLAIN(conv_bwd_data_direct)                    \
  PLAIN(conv_bwd_filter_direct)                  \
  TUNED(softmax, softmax)                        \
  TUNED(softmax_backward, softmax_backward)      \
  TUNED(cross_entropy, cross_entropy)            \
  TUNED(optimizer, optimizer)                    \
  TUNED(attention_fused, attention)              \
  TUNED(attention_split_kv, attention)           \
  PLAIN(attention_combine)                       \
  TUNED(attention_backward, attention_backward)  \
  TUNED(gemm_int8, gemm_quantized)               \
  TUNED(gemm_q8_0, gemm_q8_0)                    \
  PLAIN(conv_depthwise_int8)                     \
  PLAIN(activation_backward)                     \
  PLAIN(quantize)                                \
  PLAIN(norm)                                    \
  PLAIN(pool)                                    \
  PLAIN(elementwise)                             \
  PLAIN(rope)                                    \
  PLAIN(embedding)                               \
  PLAIN(kv_append)                               \
  PLAIN(batchnorm_fold)

/* The ops the tuner knows (clforge_tune_options.ops, `clforge tune --op`):
 * X(op), each defined as clforge__tune_<op> in src/ops/<op>_tune.c (or its
 * forward op's) with .op "<op>". In the order the help lists them. */
#define CLFORGE__TUNE_OPS(X) \
  X(gemm)                    \
  X(conv)                    \
  X(softmax)                 \
  X(softmax_backward)        \
  X(cross_entropy)           \
  X(optimizer)               \
  X(attention)               \
  X(attention_backward)      \
  X(gemm_quantized)          \
  X(gemm_q8_0)

/* Convolution's algorithms, X(ENUM, name): CLFORGE_CONV_ALGO_<ENUM> of the
 * public header, in its order (the value is the position), named "<name>"
 * (clforge_conv_algo_name). Each but auto runs the family conv_<name>. */
#define CLFORGE__CONV_ALGOS(X)      \
  X(AUTO, auto)                     \
  X(DIRECT, direct)                 \
  X(IMPLICIT_GEMM, implicit_gemm)   \
  X(GEMM_1X1, gemm_1x1)             \
  X(IM2COL, im2col)                 \
  X(WINOGRAD_2X2, winograd_2x2)     \
  X(WINOGRAD_4X4, winograd_4x4)     \
  X(FFT, fft)                       \
  X(DEPTHWISE, depthwise)

/* Attention's algorithms, as convolution's (CLFORGE_ATTENTION_ALGO_<ENUM>,
 * clforge_attention_algo_name). Each but auto runs attention_<name>. */
#define CLFORGE__ATTENTION_ALGOS(X) \
  X(AUTO, auto)                     \
  X(FUSED, fused)                   \
  X(SPLIT_KV, split_kv)

#include <stddef.h>

#include "clforge/clforge.h"

/* The index-th name of `list`, NULL when there is none (no error recorded:
 * for name functions that answer "?"). */
const char *clforge__registry_name(clforge_registry list, int index);

/* The names of `list` joined for a message or a help text: "a, b or c"
 * with sep ", " and last " or ", "a|b|c" with both "|". Truncated to cap
 * (always terminated when cap > 0). Returns buf. */
char *clforge__registry_text(clforge_registry list, const char *sep, const char *last, char *buf, size_t cap);

#endif
