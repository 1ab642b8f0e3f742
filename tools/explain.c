/* `clforge explain gemm M N K ...`: clforge_gemm_explain for one call. */
#include "explain.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "clforge/clforge.h"
#include "cli_util.h"
#include "explain_common.h"

void clforge_cli_explain_help(FILE *f) {
  char conv[256], attn[128]; /* the library's lists (clforge_registry_name), never a copy */
  clforge_cli_names(CLFORGE_REGISTRY_CONV_ALGOS, "|", "|", conv, sizeof conv);
  clforge_cli_names(CLFORGE_REGISTRY_ATTENTION_ALGOS, "|", "|", attn, sizeof attn);
  fprintf(f,
          "usage: clforge explain gemm M N K [options]\n"
          "       clforge explain conv --shape n=N,c=C,h=H,w=W,k=K,r=R,s=S,stride=U,pad=P,dil=D,groups=G\n"
          "                            [--layout nchw|nhwc] [--dtype T] [--algo A]\n"
          "       clforge explain attention --shape B,Hq,Hkv,Sq,Sk,D[,causal] [--dtype T]\n"
          "                            [--kv-dtype T] [--algo %s]\n"
          "       clforge explain softmax ROWS N [--dtype T] [--log] [--pass fwd|bwd]\n"
          "\n"
          "Show which kernels and parameters clforge_gemm (or, for conv and attention,\n"
          "which algorithm clforge_conv2d / clforge_attention, and its kernels) uses\n"
          "for one call on the\n"
          "default device (CLFORGE_DEVICE), and where they come from: an override\n"
          "(CLFORGE_PARAMS), the tuning file (this shape class, or the nearest tuned\n"
          "shape), or a built-in default. Nothing is run.\n"
          "\n"
          "Options:\n"
          "  --dtype T        storage type of A, B and C: f32, f16 or bf16 (default f32)\n"
          "  --trans XY       transpose A (X) and/or B (Y): NN, NT, TN or TT (default NN)\n"
          "  --col-major      column-major operands (default row-major)\n"
          "  --batch N        batch count (default 1)\n"
          "conv: --shape takes n c h w k r s stride pad dil groups (c, h, k, r needed; w\n"
          "  defaults to h, s to r, n to 1), as clforge bench conv --shape does;\n"
          "  --algo %s\n"
          "  --pass fwd|bwd_data|bwd_filter: the backward passes' choice (desc.kind)\n"
          "attention: --shape as clforge bench attention --shapes takes it (tight BHSD,\n"
          "  causal aligned bottom-right); --dtype sets Q and O, --kv-dtype K and V\n"
          "softmax: rows of N, every tensor of --dtype; --pass bwd explains\n"
          "  clforge_softmax_backward (dx from y and dy)\n"
          "  -h, --help       show this help\n"
          "\n"
          "Exit status: 0 on success, 1 when no device was found or the call is\n"
          "invalid, 2 on a usage error.\n",
          attn, conv);
}

static int parse_size(const char *s, size_t *out) {
  char *end;
  errno = 0;
  unsigned long long v = s ? strtoull(s, &end, 10) : 0;
  if (!s || end == s || *end || errno || s[0] == '-') return -1;
  *out = (size_t)v;
  return 0;
}

int clforge_cli_explain(int argc, char **argv) {
  if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
    clforge_cli_explain_help(stdout);
    return 0;
  }
  if (argc > 1 && !strcmp(argv[1], "conv")) return clforge_cli_explain_conv(argc, argv);
  if (argc > 1 && !strcmp(argv[1], "attention")) return clforge_cli_explain_attention(argc, argv);
  if (argc > 1 && !strcmp(argv[1], "softmax")) return clforge_cli_explain_softmax(argc, argv);
  clforge_gemm_desc d = {.alpha = 1.0f, .beta = 0.0f};
  if (argc < 5 || strcmp(argv[1], "gemm") || parse_size(argv[2], &d.m) || parse_size(argv[3], &d.n) ||
      parse_size(argv[4], &d.k)) {
    fprintf(stderr, "clforge explain: expected 'gemm M N K'\nRun 'clforge explain --help' for usage.\n");
    return EXIT_USAGE;
  }
  for (int i = 5; i < argc; ++i) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : "";
    if (!strcmp(a, "--col-major")) {
      d.layout = CLFORGE_COL_MAJOR;
    } else if (!strcmp(a, "--dtype") && clforge_dtype_from_name(v, &d.a_type) == CLFORGE_SUCCESS) {
      d.b_type = d.c_type = d.a_type;
      ++i;
    } else if (!strcmp(a, "--trans") && strlen(v) == 2 && strchr("NnTt", v[0]) && strchr("NnTt", v[1])) {
      d.trans_a = (v[0] == 'T' || v[0] == 't') ? CLFORGE_TRANS : CLFORGE_NO_TRANS;
      d.trans_b = (v[1] == 'T' || v[1] == 't') ? CLFORGE_TRANS : CLFORGE_NO_TRANS;
      ++i;
    } else if (!strcmp(a, "--batch") && !parse_size(v, &d.batch)) {
      ++i;
    } else {
      fprintf(stderr, "clforge explain: bad option or value at '%s'\nRun 'clforge explain --help' for usage.\n", a);
      return EXIT_USAGE;
    }
  }
  clforge_context ctx;
  if (clforge_context_create(NULL, &ctx) != CLFORGE_SUCCESS) {
    fprintf(stderr, "clforge explain: %s\n", clforge_last_error(NULL));
    return 1;
  }
  clforge_kernel_choice ch[4];
  int n = 0;
  int rc = 0;
  if (clforge_gemm_explain(ctx, &d, ch, 4, &n) != CLFORGE_SUCCESS) {
    fprintf(stderr, "clforge explain: %s\n", clforge_last_error(ctx));
    rc = 1;
  } else if (n == 0) {
    printf("gemm %zux%zux%zu: empty, nothing is launched\n", d.m, d.n, d.k);
  } else {
    printf("gemm %zux%zux%zu %s %s (row-major view), shape class %s:\n", d.m, d.n, d.k, ch[0].dtypes, ch[0].layout,
           ch[0].shape_class);
    printf("  route: %s\n", ch[0].route);
    for (int i = 0; i < n && i < 4; ++i) {
      printf("  %-12s provider %-8s parameters from %s", ch[i].family, ch[i].provider,
             clforge_params_source_name(ch[i].source));
      if (ch[i].source == CLFORGE_PARAMS_FROM_TUNED || ch[i].source == CLFORGE_PARAMS_FROM_NEAREST)
        printf(" (tuned on %zux%zux%zu: %.1f GFLOP/s)", ch[i].tuned_shape[0], ch[i].tuned_shape[1],
               ch[i].tuned_shape[2], ch[i].tuned_gflops);
      printf("\n  %-12s", "");
      for (int p = 0; p < ch[i].nparams; ++p) printf(" %s=%d", ch[i].names[p], ch[i].values[p]);
      const char *ct = clforge_compute_type_name(ch[i].compute_type);
      printf("\n  %-12s  arithmetic: %s\n", "", ct ? ct : "32f");
    }
  }
  clforge_context_destroy(ctx);
  return rc;
}
