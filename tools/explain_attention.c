/* `clforge explain attention ...`: clforge_attention_explain for one call. */
#include <stdlib.h>
#include <string.h>

#include "attention_bench.h"
#include "clforge/clforge.h"
#include "cli_util.h"
#include "explain_common.h"

/* 1 with *algo when v is an algorithm's name (clforge_attention_algo_name). */
static int algo_from_name(const char *v, clforge_attention_algo *algo) {
  for (int a = 0; a < CLFORGE_ATTENTION_ALGO_COUNT; ++a)
    if (!strcmp(v, clforge_attention_algo_name((clforge_attention_algo)a))) {
      *algo = (clforge_attention_algo)a;
      return 1;
    }
  return 0;
}

int clforge_cli_explain_attention(int argc, char **argv) {
  clforge_attention_desc d;
  memset(&d, 0, sizeof d);
  int have_shape = 0;
  clforge_dtype q = CLFORGE_F32, kv = CLFORGE_F32;
  for (int i = 2; i < argc; ++i) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : "";
    clforge_dtype t;
    char err[200];
    if (!strcmp(a, "--shape")) {
      if (clforge_bench_attention_parse_shape(v, &d, err, sizeof err)) {
        fprintf(stderr, "clforge explain: --shape %s: %s\nRun 'clforge explain --help' for usage.\n", v, err);
        return EXIT_USAGE;
      }
      have_shape = 1, ++i;
    } else if (!strcmp(a, "--dtype") && clforge_dtype_from_name(v, &t) == CLFORGE_SUCCESS) {
      q = kv = t;
      ++i;
    } else if (!strcmp(a, "--kv-dtype") && clforge_dtype_from_name(v, &t) == CLFORGE_SUCCESS) {
      kv = t;
      ++i;
    } else if (!strcmp(a, "--algo") && algo_from_name(v, &d.algo)) {
      ++i;
    } else {
      fprintf(stderr, "clforge explain: bad option or value at '%s'\nRun 'clforge explain --help' for usage.\n", a);
      return EXIT_USAGE;
    }
  }
  if (!have_shape) {
    fprintf(stderr, "clforge explain: attention needs --shape B,Hq,Hkv,Sq,Sk,D[,causal]\n"
                    "Run 'clforge explain --help' for usage.\n");
    return EXIT_USAGE;
  }
  const clforge_attention_algo algo = d.algo;
  d.q_type = d.o_type = q, d.kv_type = kv, d.algo = algo;
  clforge_context ctx;
  if (clforge_context_create(NULL, &ctx) != CLFORGE_SUCCESS) {
    fprintf(stderr, "clforge explain: %s\n", clforge_last_error(NULL));
    return 1;
  }
  clforge_attention_choice c;
  int rc = 0;
  if (clforge_attention_explain(ctx, &d, &c) != CLFORGE_SUCCESS) {
    fprintf(stderr, "clforge explain: %s\n", clforge_last_error(ctx));
    rc = 1;
  } else {
    printf("attention B=%zu Hq=%zu Hkv=%zu Sq=%zu Sk=%zu D=%zu%s, %s %s, shape class %s:\n", d.batch, d.heads_q,
           d.heads_kv, d.seq_q, d.seq_kv, d.head_dim, d.causal ? " causal (bottom-right)" : "",
           c.nkernels ? c.kernels[0].dtypes : "", c.nkernels ? c.kernels[0].layout : "",
           c.nkernels ? c.kernels[0].shape_class : "?");
    printf("  algorithm: %s (%s)\n", clforge_attention_algo_name(c.algo), c.why);
    printf("  splits: %d, workspace: %zu bytes\n", c.splits, c.workspace_bytes);
    for (int i = 0; i < c.nkernels && i < 2; ++i) clforge_cli_explain_print_kernel(&c.kernels[i]);
  }
  clforge_context_destroy(ctx);
  return rc;
}
