/* The benchmarks' shared command line. */
#include "cli.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

int clforge_bench_usage_error(const clforge_bench_cli *cli, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "clforge bench %s: ", cli->op);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fprintf(stderr, "\nRun 'clforge bench %s --help' for usage.\n", cli->op);
  return CLFORGE_BENCH_EXIT_USAGE;
}

int clforge_bench_option(int argc, char **argv, int *a, const char *name, const char **value) {
  const char *arg = argv[*a];
  size_t len = strlen(name);
  if (strncmp(arg, name, len) != 0) return 0;
  if (arg[len] == '=') *value = arg + len + 1;
  else if (arg[len] == '\0') *value = *a + 1 < argc ? argv[++*a] : NULL;
  else return 0;
  return 1;
}

int clforge_bench_parse_number(const char *s, size_t len, unsigned long long lo, unsigned long long hi,
                               unsigned long long *out) {
  if (len == 0 || len > 20) return -1;
  unsigned long long v = 0;
  for (size_t i = 0; i < len; ++i) {
    if (s[i] < '0' || s[i] > '9') return -1;
    unsigned d = (unsigned)(s[i] - '0');
    if (v > (ULLONG_MAX - d) / 10) return -1;
    v = v * 10 + d;
  }
  if (v < lo || v > hi) return -1;
  *out = v;
  return 0;
}

int clforge_bench_parse_seconds(const char *v, double max, double *out) {
  char *end = NULL;
  errno = 0;
  double t = v ? strtod(v, &end) : -1;
  if (!v || !*v || errno || !end || *end || !(t >= 0 && t <= max)) return -1;
  *out = t;
  return 0;
}

int clforge_bench_next_token(const char **s, const char *seps, char *buf, size_t cap) {
  if (!*s) return 0;
  size_t len = strcspn(*s, seps);
  if (len == 0 || len >= cap) return -1;
  memcpy(buf, *s, len);
  buf[len] = '\0';
  *s = (*s)[len] ? *s + len + 1 : NULL;
  return 1;
}

int clforge_bench_parse_numbers(const char *v, unsigned long long lo, unsigned long long hi, unsigned long long *out,
                                int max) {
  char tok[32];
  int n = 0, t;
  const char *s = v;
  while ((t = clforge_bench_next_token(&s, ",", tok, sizeof tok)) == 1)
    if (n >= max || clforge_bench_parse_number(tok, strlen(tok), lo, hi, &out[n++])) return -1;
  return t < 0 || n == 0 ? -1 : n;
}

int clforge_bench_parse_dtypes(const char *v, clforge_dtype *out, int *n, int max) {
  char tok[16];
  const char *s = v;
  int t;
  *n = 0;
  while ((t = clforge_bench_next_token(&s, ",", tok, sizeof tok)) == 1) {
    clforge_dtype d;
    if (clforge_dtype_from_name(tok, &d) != CLFORGE_SUCCESS) return -1;
    int dup = 0;
    for (int i = 0; i < *n; ++i) dup |= out[i] == d;
    if (!dup && *n < max) out[(*n)++] = d;
  }
  return t < 0 || *n == 0 ? -1 : 0;
}

int clforge_bench_cli_dtypes(const clforge_bench_cli *cli, const char *flag, const char *v, clforge_dtype *out, int *n,
                             int max) {
  if (!v) return clforge_bench_usage_error(cli, "%s needs a value, e.g. %s f32,bf16", flag, flag);
  int bad = clforge_bench_parse_dtypes(v, out, n, max);
  for (int i = 0; i < *n && !bad; ++i) bad = out[i] != CLFORGE_F32 && out[i] != CLFORGE_F16 && out[i] != CLFORGE_BF16;
  if (bad)
    return clforge_bench_usage_error(cli, "%s \"%s\": expected f32, f16 or bf16, separated by commas", flag, v);
  return 1;
}

/* A shared option at argv[*a]: 1 when it was one (rc set to an exit status
 * on a usage error or after --help, else left), 0 when not. */
static int shared_option(clforge_bench_cli *cli, int argc, char **argv, int *a, int *rc) {
  const char *arg = argv[*a], *v = NULL;
  unsigned long long num;
  if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
    cli->help(stdout);
    *rc = 0;
  } else if (!strcmp(arg, "--json")) {
    cli->json = 1;
  } else if ((cli->options & CLFORGE_BENCH_OPT_PEAK) && !strcmp(arg, "--no-peak")) {
    cli->peak = 0;
  } else if ((cli->options & CLFORGE_BENCH_OPT_PEERS) && !strcmp(arg, "--no-peers")) {
    cli->peers = 0;
  } else if ((cli->options & CLFORGE_BENCH_OPT_QUICK) && !strcmp(arg, "--quick")) {
    cli->quick = 1;
  } else if ((cli->options & CLFORGE_BENCH_OPT_RUNS) &&
             (clforge_bench_option(argc, argv, a, "--runs", &v) || clforge_bench_option(argc, argv, a, "--reps", &v))) {
    const char *flag = strncmp(arg, "--runs", 6) ? "--reps" : "--runs";
    if (!v || clforge_bench_parse_number(v, strlen(v), CLFORGE_BENCH_MIN_RUNS, CLFORGE_BENCH_MAX_RUNS, &num))
      *rc = clforge_bench_usage_error(cli, "%s needs a whole number from %d to %d", flag, CLFORGE_BENCH_MIN_RUNS,
                                      CLFORGE_BENCH_MAX_RUNS);
    else cli->runs = (int)num, cli->runs_given = 1;
  } else if ((cli->options & CLFORGE_BENCH_OPT_RUNS) && clforge_bench_option(argc, argv, a, "--warmup", &v)) {
    if (!v || clforge_bench_parse_number(v, strlen(v), 1, CLFORGE_BENCH_MAX_WARMUP, &num))
      *rc = clforge_bench_usage_error(cli, "--warmup needs a whole number from 1 to %d", CLFORGE_BENCH_MAX_WARMUP);
    else cli->warmup = (int)num;
  } else {
    return 0;
  }
  return 1;
}

clforge_bench_cli clforge_bench_cli_for(const char *op, void (*help)(FILE *out), unsigned options, int runs,
                                        int warmup) {
  return (clforge_bench_cli){.op = op, .help = help, .options = options, .runs = runs, .warmup = warmup};
}

int clforge_bench_cli_parse(clforge_bench_cli *cli, int argc, char **argv, clforge_bench_own_option own, void *user) {
  cli->peak = cli->peers = 1;
  for (int a = 1; a < argc; ++a) {
    int rc = -1;
    if (shared_option(cli, argc, argv, &a, &rc)) {
      if (rc >= 0) return rc;
      continue;
    }
    const int taken = own ? own(cli, argc, argv, &a, user) : 0;
    if (taken == CLFORGE_BENCH_EXIT_USAGE) return taken;
    if (!taken)
      return clforge_bench_usage_error(cli, "unknown %s '%s'", argv[a][0] == '-' ? "option" : "argument", argv[a]);
  }
  return -1;
}
