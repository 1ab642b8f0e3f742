/* `clforge explain conv ...`: clforge_conv2d_explain for one layer. */
#include <stdlib.h>
#include <string.h>

#include "clforge/clforge.h"
#include "cli_util.h"
#include "explain_common.h"
#include "conv_bench.h"

int clforge_cli_explain_conv(int argc, char **argv) {
  clforge_conv2d_desc d = {.n = 1};
  int have_shape = 0;
  for (int i = 2; i < argc; ++i) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : "";
    clforge_dtype t;
    char err[200];
    if (!strcmp(a, "--shape")) {
      if (clforge_bench_conv_parse_shape(v, &d, err, sizeof err)) {
        fprintf(stderr, "clforge explain: --shape %s: %s\nRun 'clforge explain --help' for usage.\n", v, err);
        return EXIT_USAGE;
      }
      have_shape = 1, ++i;
    } else if (!strcmp(a, "--layout") && (!strcmp(v, "nchw") || !strcmp(v, "nhwc"))) {
      d.x_layout = d.y_layout = !strcmp(v, "nhwc") ? CLFORGE_NHWC : CLFORGE_NCHW;
      d.w_layout = !strcmp(v, "nhwc") ? CLFORGE_KRSC : CLFORGE_KCRS;
      ++i;
    } else if (!strcmp(a, "--dtype") && clforge_dtype_from_name(v, &t) == CLFORGE_SUCCESS) {
      d.x_type = d.w_type = d.y_type = t;
      ++i;
    } else if (!strcmp(a, "--algo") && clforge_conv_algo_from_name(v, &d.algo) == CLFORGE_SUCCESS) {
      ++i;
    } else if (!strcmp(a, "--pass") && (!strcmp(v, "fwd") || !strcmp(v, "bwd_data") || !strcmp(v, "bwd_filter"))) {
      d.kind = !strcmp(v, "bwd_data")     ? CLFORGE_CONV_BACKWARD_DATA
               : !strcmp(v, "bwd_filter") ? CLFORGE_CONV_BACKWARD_FILTER
                                          : CLFORGE_CONV_FORWARD;
      ++i;
    } else {
      fprintf(stderr, "clforge explain: bad option or value at '%s'\nRun 'clforge explain --help' for usage.\n", a);
      return EXIT_USAGE;
    }
  }
  if (!have_shape) {
    fprintf(stderr, "clforge explain: conv needs --shape n=..,c=..,h=..,k=..,r=..\nRun 'clforge explain --help' for usage.\n");
    return EXIT_USAGE;
  }
  clforge_context ctx;
  if (clforge_context_create(NULL, &ctx) != CLFORGE_SUCCESS) {
    fprintf(stderr, "clforge explain: %s\n", clforge_last_error(NULL));
    return 1;
  }
  clforge_conv_choice c;
  int rc = 0;
  if (clforge_conv2d_explain(ctx, &d, &c) != CLFORGE_SUCCESS) {
    fprintf(stderr, "clforge explain: %s\n", clforge_last_error(ctx));
    rc = 1;
  } else {
    printf("conv2d%s n=%zu c=%zu %zux%zu -> k=%zu %zux%zu, filter %zux%zu, %s %s, shape class %s:\n",
           d.kind == CLFORGE_CONV_BACKWARD_DATA     ? " backward data"
           : d.kind == CLFORGE_CONV_BACKWARD_FILTER ? " backward filter"
                                                    : "",
           d.n, d.c, d.h, d.w,
           d.k, c.p, c.q, d.r, d.s, c.nkernels ? c.kernels[0].dtypes : "", c.nkernels ? c.kernels[0].layout : "",
           c.nkernels ? c.kernels[0].shape_class : "?");
    printf("  algorithm: %s (from %s: %s)\n", clforge_conv_algo_name(c.algo),
           clforge_conv_algo_source_name(c.source), c.why);
    printf("  workspace: %zu bytes\n", c.workspace_bytes);
    for (int i = 0; i < c.nkernels && i < 4; ++i) clforge_cli_explain_print_kernel(&c.kernels[i]);
  }
  clforge_context_destroy(ctx);
  return rc;
}
