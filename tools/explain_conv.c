/* `clforge explain conv ...`: clforge_conv2d_explain for one layer. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "clforge/clforge.h"
#include "cli_util.h"
#include "explain.h"

/* "n=8,c=64,h=56,w=56,k=64,r=3,s=3,stride=2,pad=1,dil=1,groups=1" (any
 * subset; h sets w and r sets s unless they are given; stride, pad and dil
 * set both axes; pad_top etc. and stride_h etc. set one). */
static int parse_shape(const char *spec, clforge_conv2d_desc *d) {
  int w_given = 0, s_given = 0;
  for (const char *p = spec; *p;) {
    const char *eq = strchr(p, '='), *end = strchr(p, ',');
    if (!end) end = p + strlen(p);
    if (!eq || eq > end) return -1;
    char name[16] = "";
    if ((size_t)(eq - p) >= sizeof name) return -1;
    memcpy(name, p, (size_t)(eq - p));
    char *stop;
    errno = 0;
    unsigned long long v = strtoull(eq + 1, &stop, 10);
    if (stop != end || errno || eq[1] == '-') return -1;
    size_t z = (size_t)v;
    if (!strcmp(name, "n")) d->n = z;
    else if (!strcmp(name, "c")) d->c = z;
    else if (!strcmp(name, "h")) d->h = z, d->w = w_given ? d->w : z;
    else if (!strcmp(name, "w")) d->w = z, w_given = 1;
    else if (!strcmp(name, "k")) d->k = z;
    else if (!strcmp(name, "r")) d->r = z, d->s = s_given ? d->s : z;
    else if (!strcmp(name, "s")) d->s = z, s_given = 1;
    else if (!strcmp(name, "stride")) d->stride_h = d->stride_w = z;
    else if (!strcmp(name, "stride_h")) d->stride_h = z;
    else if (!strcmp(name, "stride_w")) d->stride_w = z;
    else if (!strcmp(name, "pad")) d->pad_top = d->pad_bottom = d->pad_left = d->pad_right = z;
    else if (!strcmp(name, "pad_top")) d->pad_top = z;
    else if (!strcmp(name, "pad_bottom")) d->pad_bottom = z;
    else if (!strcmp(name, "pad_left")) d->pad_left = z;
    else if (!strcmp(name, "pad_right")) d->pad_right = z;
    else if (!strcmp(name, "dil")) d->dilation_h = d->dilation_w = z;
    else if (!strcmp(name, "groups")) d->groups = z;
    else return -1;
    p = *end ? end + 1 : end;
  }
  return 0;
}

static const char *const source_names[] = {"?", "desc", "env", "tuned", "nearest", "heuristic", "tuner", "weights",
                                           "fallback"};

int clforge_cli_explain_conv(int argc, char **argv) {
  clforge_conv2d_desc d = {.n = 1};
  int have_shape = 0;
  for (int i = 2; i < argc; ++i) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : "";
    clforge_dtype t;
    if (!strcmp(a, "--shape") && !parse_shape(v, &d)) {
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
    printf("conv2d n=%zu c=%zu %zux%zu -> k=%zu %zux%zu, filter %zux%zu, %s %s, shape class %s:\n", d.n, d.c, d.h, d.w,
           d.k, c.p, c.q, d.r, d.s, c.nkernels ? c.kernels[0].dtypes : "", c.nkernels ? c.kernels[0].layout : "",
           c.nkernels ? c.kernels[0].shape_class : "?");
    printf("  algorithm: %s (from %s: %s)\n", clforge_conv_algo_name(c.algo),
           (unsigned)c.source < sizeof source_names / sizeof source_names[0] ? source_names[c.source] : "?", c.why);
    printf("  workspace: %zu bytes\n", c.workspace_bytes);
    for (int i = 0; i < c.nkernels && i < 4; ++i) {
      const clforge_kernel_choice *k = &c.kernels[i];
      printf("  %-18s parameters from %s", k->family, clforge_params_source_name(k->source));
      if (k->source == CLFORGE_PARAMS_FROM_TUNED || k->source == CLFORGE_PARAMS_FROM_NEAREST)
        printf(" (%.1f GFLOP/s measured)", k->tuned_gflops);
      printf("\n  %-18s", "");
      for (int p = 0; p < k->nparams; ++p) printf(" %s=%d", k->names[p], k->values[p]);
      printf("\n");
    }
  }
  clforge_context_destroy(ctx);
  return rc;
}
