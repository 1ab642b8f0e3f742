/* `clforge explain softmax ROWS N ...`: clforge_softmax_explain, or
 * clforge_softmax_backward_explain with --pass bwd, for one call. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "clforge/clforge.h"
#include "cli_util.h"
#include "explain_common.h"

static int parse_count(const char *s, size_t *out) {
  char *end;
  errno = 0;
  unsigned long long v = s ? strtoull(s, &end, 10) : 0;
  if (!s || end == s || *end || errno || s[0] == '-') return -1;
  *out = (size_t)v;
  return 0;
}

int clforge_cli_explain_softmax(int argc, char **argv) {
  clforge_softmax_desc d;
  memset(&d, 0, sizeof d);
  int backward = 0;
  clforge_dtype t = CLFORGE_F32;
  if (argc < 4 || parse_count(argv[2], &d.rows) || parse_count(argv[3], &d.n)) {
    fprintf(stderr, "clforge explain: softmax needs ROWS N\nRun 'clforge explain --help' for usage.\n");
    return EXIT_USAGE;
  }
  for (int i = 4; i < argc; ++i) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : "";
    if (!strcmp(a, "--dtype") && clforge_dtype_from_name(v, &t) == CLFORGE_SUCCESS) {
      ++i;
    } else if (!strcmp(a, "--log")) {
      d.kind = CLFORGE_LOG_SOFTMAX;
    } else if (!strcmp(a, "--pass") && (!strcmp(v, "fwd") || !strcmp(v, "bwd"))) {
      backward = !strcmp(v, "bwd");
      ++i;
    } else {
      fprintf(stderr, "clforge explain: bad option or value at '%s'\nRun 'clforge explain --help' for usage.\n", a);
      return EXIT_USAGE;
    }
  }
  d.x_type = d.y_type = d.dy_type = t;
  clforge_context ctx;
  if (clforge_context_create(NULL, &ctx) != CLFORGE_SUCCESS) {
    fprintf(stderr, "clforge explain: %s\n", clforge_last_error(NULL));
    return 1;
  }
  clforge_kernel_choice k;
  int rc = 0;
  clforge_status st = backward ? clforge_softmax_backward_explain(ctx, &d, &k) : clforge_softmax_explain(ctx, &d, &k);
  if (st != CLFORGE_SUCCESS) {
    fprintf(stderr, "clforge explain: %s\n", clforge_last_error(ctx));
    rc = 1;
  } else {
    printf("%s%s, %zu rows, %s %s, %s:\n", d.kind ? "log_softmax" : "softmax", backward ? " backward" : "", d.rows,
           k.dtypes, k.layout, k.route);
    clforge_cli_explain_print_kernel(&k);
  }
  clforge_context_destroy(ctx);
  return rc;
}
