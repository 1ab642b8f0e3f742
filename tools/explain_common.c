/* What the explain subcommands (explain_conv.c, explain_attention.c,
 * explain_softmax.c) share: the kernel lines. explain.c dispatches to them;
 * they depend on this file only, so the calls run one way. */
#include "explain_common.h"

#include <stdio.h>

void clforge_cli_explain_print_kernel(const clforge_kernel_choice *k) {
  printf("  %-18s parameters from %s", k->family, clforge_params_source_name(k->source));
  if (k->source == CLFORGE_PARAMS_FROM_TUNED || k->source == CLFORGE_PARAMS_FROM_NEAREST)
    printf(" (%.1f GFLOP/s measured)", k->tuned_gflops);
  printf("\n  %-18s", "");
  for (int p = 0; p < k->nparams; ++p) printf(" %s=%d", k->names[p], k->values[p]);
  printf("\n");
  /* the families with half variants say which arithmetic runs (CLFORGE_COMPUTE_TYPE allows it) */
  if (k->compute_type) printf("  %-18s arithmetic: %s\n", "", clforge_compute_type_name(k->compute_type));
}
