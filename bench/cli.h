/* The benchmarks' command line: the options the `clforge bench <op>`s share
 * (--json, --no-peak, --no-peers, --runs/--reps, --warmup, --quick, -h),
 * the parsing the ops' own options share (numbers, lists, dtypes, seconds),
 * and usage errors that name the op. */
#ifndef CLFORGE_BENCH_CLI_H
#define CLFORGE_BENCH_CLI_H

#include <clforge/clforge.h>
#include <stddef.h>
#include <stdio.h>

enum { CLFORGE_BENCH_EXIT_USAGE = 2, CLFORGE_BENCH_MIN_RUNS = 3, CLFORGE_BENCH_MAX_RUNS = 100000,
       CLFORGE_BENCH_MAX_WARMUP = 1000 };

/* Which of the shared options an op takes beyond --json and --help. */
enum { CLFORGE_BENCH_OPT_RUNS = 1,  /* --runs (or --reps) and --warmup */
       CLFORGE_BENCH_OPT_PEAK = 2,  /* --no-peak */
       CLFORGE_BENCH_OPT_PEERS = 4, /* --no-peers */
       CLFORGE_BENCH_OPT_QUICK = 8, /* --quick */
       CLFORGE_BENCH_OPT_TIMED = CLFORGE_BENCH_OPT_RUNS | CLFORGE_BENCH_OPT_PEAK /* every op's benchmark */ };

typedef struct clforge_bench_cli {
  /* Set by the op before parsing. */
  const char *op;            /* "gemm": messages start "clforge bench gemm: " */
  void (*help)(FILE *out);   /* its --help */
  unsigned options;          /* CLFORGE_BENCH_OPT_* */
  int runs, warmup;          /* the defaults; replaced by --runs, --warmup */
  /* Set by parsing. */
  int json, peak, peers, quick; /* peak and peers start at 1 */
  int runs_given;               /* --runs or --reps was given */
} clforge_bench_cli;

/** The op's name, help, the shared options it takes and its default runs. */
clforge_bench_cli clforge_bench_cli_for(const char *op, void (*help)(FILE *out), unsigned options, int runs,
                                        int warmup);

/** An op's own option at argv[*a] (advance *a past a value it takes).
 *  Returns 1 when it took it, 0 when it is not the op's, or
 *  CLFORGE_BENCH_EXIT_USAGE after printing a usage error. */
typedef int (*clforge_bench_own_option)(clforge_bench_cli *cli, int argc, char **argv, int *a, void *user);

/** Parse argv (argv[0] is the op): the shared options here, the rest through
 *  `own` (NULL: none). Returns -1 to go on, 0 after --help, or
 *  CLFORGE_BENCH_EXIT_USAGE after a usage error (printed). */
int clforge_bench_cli_parse(clforge_bench_cli *cli, int argc, char **argv, clforge_bench_own_option own, void *user);

/** "clforge bench <op>: <message>" and how to get help, on stderr. Returns
 *  CLFORGE_BENCH_EXIT_USAGE. */
int clforge_bench_usage_error(const clforge_bench_cli *cli, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/** "--name value" or "--name=value": 1 and *value when argv[*a] is that
 *  option (*value NULL when the value is missing; *a moves past it), 0
 *  otherwise. */
int clforge_bench_option(int argc, char **argv, int *a, const char *name, const char **value);

/** A decimal number of `len` characters, digits only, in [lo, hi]: 0 and
 *  *out, or -1. */
int clforge_bench_parse_number(const char *s, size_t len, unsigned long long lo, unsigned long long hi,
                               unsigned long long *out);

/** Seconds from 0 to max ("0.5"): 0 and *out, or -1 (v NULL included). */
int clforge_bench_parse_seconds(const char *v, double max, double *out);

/** The next token of *s up to one of `seps` into buf: 1 with *s advanced (NULL
 *  after the last), 0 at the end, -1 for an empty or too long token. */
int clforge_bench_next_token(const char **s, const char *seps, char *buf, size_t cap);

/** "1,8,64": up to `max` numbers in [lo, hi] separated by commas; the
 *  count, or -1 (v NULL, an empty item, too many). */
int clforge_bench_parse_numbers(const char *v, unsigned long long lo, unsigned long long hi, unsigned long long *out,
                                int max);

/** "f32,bf16": up to `max` distinct dtypes in the given order. 0, or -1 for
 *  an empty list or an unknown name (v NULL included). */
int clforge_bench_parse_dtypes(const char *v, clforge_dtype *out, int *n, int max);

/** An op's dtype list option (`flag`, "--dtype" or "--kv-dtype") with value
 *  v: 1 with out and *n set, or CLFORGE_BENCH_EXIT_USAGE after a usage
 *  error. */
int clforge_bench_cli_dtypes(const clforge_bench_cli *cli, const char *flag, const char *v, clforge_dtype *out, int *n,
                             int max);

#endif /* CLFORGE_BENCH_CLI_H */
