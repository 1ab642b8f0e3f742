/* `clforge tune`: options, a live progress line (a terminal) or plain log
 * lines (anything else), the before/after table, Ctrl-C that keeps what
 * was measured. The work is clforge_tune(). */
#include "tune.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "allreduce_mpi.h" /* bench/: --op allreduce */
#include "clforge/clforge.h"
#include "cli_util.h"

void clforge_cli_tune_help(FILE *f) {
  char ops[512];
  /* the ops are the library's list (clforge_registry_name), never a copy */
  clforge_cli_names(CLFORGE_REGISTRY_TUNE_OPS, ", ", ", ", ops, sizeof ops);
  strncat(ops, " or all", sizeof ops - strlen(ops) - 1);
  fprintf(f,
          "usage: clforge tune [options]\n"
          "\n"
          "Search each kernel family's parameters on the default device (CLFORGE_DEVICE)\n"
          "for every shape class, check each candidate against the CPU reference, time\n"
          "CLBlast on the same problems, and save the winners to the tuning file.\n"
          "Breadth first: before any search, class by class, the built-in default of the\n"
          "family a call runs without a tuning file and of its main rival are measured and\n"
          "saved, so that a short budget still compares them (calls use the file only\n"
          "where it measured what they run without it). The summary lists what the budget\n"
          "did not reach.\n"
          "\n"
          "Options:\n"
          "  %-20s", "--op OP");
  clforge_cli_wrap(f, ops, 22, 22);
  fprintf(f,
          "                      (default all)\n"
          "  --budget SECONDS    wall-clock budget for the whole run (default 120)\n"
          "  --shapes LIST       shape classes, comma-separated: GEMM's small, medium,\n"
          "                      large, huge, skinny_m, skinny_n; conv's r50_3x3_56,\n"
          "                      r50_3x3_28, r50_1x1_56, r50_7x7s2, mbv2_dw_112,\n"
          "                      mbv2_1x1_112, alex_11x11s4 (and each with _n1);\n"
          "                      softmax's (and its backward's) attn_2048, attn_512,\n"
          "                      vocab, short_128; cross_entropy's vocab_32000,\n"
          "                      classes_1000, classes_10; optimizer's tensor_4m,\n"
          "                      tensor_64k;\n"
          "                      attention's prefill_d64_s512, prefill_d64_s2048,\n"
          "                      prefill_d128_s512, prefill_d128_s2048_gqa,\n"
          "                      decode_sk1024, decode_sk8192, decode_sq8_sk4096\n"
          "                      (attention_backward's: the two of S 512)\n"
          "                      (default all)\n"
          "  --dtypes LIST       storage types: f32, f16, bf16 (default all)\n"
          "  --layouts LIST      GEMM: transposes in the row-major view: nn, nt, tn, tt;\n"
          "                      conv: nchw (with KCRS filters), nhwc (with KRSC);\n"
          "                      attention: bhsd; softmax, its backward and\n"
          "                      cross_entropy: rows; optimizer: adamw, sgd\n"
          "                      (default first: each op's first, nn, nchw, bhsd, rows,\n"
          "                      adamw, and the q8_0 GEMM's nt; 'all' tunes every case)\n"
          "  --compute-type T    32f (default): strict calls; 32f_fast_16f or 16f: the\n"
          "                      half variants (GEMM, fused attention) for calls of\n"
          "                      that compute type, on devices with cl_khr_fp16\n"
          "  --strategy S        auto, exhaustive, random or anneal (default auto:\n"
          "                      exhaustive for small spaces, else random + local search)\n"
          "  --space SPEC        restrict the candidates, e.g. \"gemm:MWG=64|128,VW=8|16\"\n"
          "                      (sweep part of a space; see docs/tuning.md)\n"
          "  --max-evals N       at most N candidates per problem (default: budget only)\n"
          "  --seed N            seed of the random strategies (default fixed)\n"
          "  --file PATH         tuning file to update (default: the user's, see\n"
          "                      'clforge info'; CLFORGE_TUNING_FILE overrides it)\n"
          "  --dry-run           measure and report, save nothing\n"
          "  --no-peers          do not time CLBlast\n"
          "  -q, --quiet         no progress, only the final table\n"
          "  -h, --help          show this help\n"
          "\n"
          "Ctrl-C stops after the current candidate and keeps what was measured.\n"
          "\n"
          "mpirun -np N clforge tune --op allreduce [--file PATH] [--dry-run] measures,\n"
          "on the job's ranks and links, the size from which MPI all-reduce by owners\n"
          "beats gathering, and rank 0 saves it (one entry per rank count).\n"
          "Exit status: 0 on success (also when stopped), 1 when tuning failed or no\n"
          "device was found, 2 on a usage error.\n");
}

static volatile sig_atomic_t stop_flag;

static void on_sigint(int sig) {
  (void)sig;
  stop_flag = 1;
  signal(SIGINT, SIG_DFL); /* a second Ctrl-C ends the process at once */
}

typedef struct {
  char problem[96], params[160], provider[16];
  char family[32], cls[32], dtypes[32], layout[16], op[16];
  double def, tuned, peer;
  int tried, failures, rank;
  int searched; /* 0: the budget did not reach its search (a NOT_REACHED event) */
} row;

typedef struct {
  int tty, quiet;
  row *rows;
  int nrows, cap;
  size_t tried;
  int problems;
  char (*baselined)[96]; /* the problems whose baseline saved an entry */
  int nbaselined;
} progress_state;

static void describe(const clforge_tune_event *e, char *buf, size_t cap) {
  snprintf(buf, cap, "%s %s %s %s %zux%zux%zu", e->family, e->shape_class, e->dtypes, e->layout, e->shape[0],
           e->shape[1], e->shape[2]);
}

/* A row of the final table for a searched problem or one the budget did
 * not reach. */
static void add_row(progress_state *ps, const clforge_tune_event *e, const char *what) {
  if (ps->nrows == ps->cap) {
    int cap = ps->cap ? ps->cap * 2 : 16;
    row *r = realloc(ps->rows, (size_t)cap * sizeof *r);
    if (!r) return;
    ps->rows = r;
    ps->cap = cap;
  }
  row *r = &ps->rows[ps->nrows++];
  snprintf(r->problem, sizeof r->problem, "%s", what);
  snprintf(r->params, sizeof r->params, "%s", e->params ? e->params : "-");
  snprintf(r->provider, sizeof r->provider, "%s", e->provider ? e->provider : "-");
  snprintf(r->op, sizeof r->op, "%s", e->op);
  snprintf(r->family, sizeof r->family, "%s", e->family);
  snprintf(r->cls, sizeof r->cls, "%s", e->shape_class);
  snprintf(r->dtypes, sizeof r->dtypes, "%s", e->dtypes);
  snprintf(r->layout, sizeof r->layout, "%s", e->layout);
  r->def = e->default_gflops, r->tuned = e->tuned_gflops, r->peer = e->clblast_gflops;
  r->tried = (int)e->tried, r->failures = e->failures, r->rank = e->rank;
  r->searched = e->kind == CLFORGE_TUNE_PROBLEM_DONE;
}

static void on_progress(const clforge_tune_event *e, void *user) {
  progress_state *ps = user;
  char what[96];
  describe(e, what, sizeof what);
  if (e->kind == CLFORGE_TUNE_PROBLEM_DONE || e->kind == CLFORGE_TUNE_NOT_REACHED) {
    add_row(ps, e, what);
    ps->problems = e->problems;
  }
  if (e->kind == CLFORGE_TUNE_BASELINE && e->default_gflops > 0 && ps->nbaselined < e->problems) {
    if (!ps->baselined) ps->baselined = calloc((size_t)e->problems, sizeof *ps->baselined);
    if (ps->baselined) snprintf(ps->baselined[ps->nbaselined++], sizeof ps->baselined[0], "%s", what);
  }
  if (ps->quiet || e->kind == CLFORGE_TUNE_NOT_REACHED) return; /* the summary lists those */
  const char *role = e->rank == 0 ? "the heuristic's" : "its rival";
  if (e->kind == CLFORGE_TUNE_BASELINE) {
    if (ps->tty)
      printf("\r\033[K[%d/%d] baseline %s (%s): default %.1f GFLOP/s, %.0fs left", e->problem + 1, e->problems, what,
             role, e->default_gflops, e->left_s);
    else if (e->default_gflops > 0)
      printf("tune baseline [%d/%d] %s (%s): default %.1f GFLOP/s, saved\n", e->problem + 1, e->problems, what, role,
             e->default_gflops);
    else
      printf("tune baseline [%d/%d] %s (%s): the default failed; nothing saved\n", e->problem + 1, e->problems, what,
             role);
    fflush(stdout);
    return;
  }
  if (ps->tty) {
    if (e->kind == CLFORGE_TUNE_CANDIDATE) {
      printf("\r\033[K[%d/%d] %s  %zu/%zu tried  best %.1f GFLOP/s  %.0fs elapsed, %.0fs left", e->problem + 1,
             e->problems, what, e->tried, e->total, e->best_gflops, e->elapsed_s, e->left_s);
      fflush(stdout);
    } else if (e->kind == CLFORGE_TUNE_PROBLEM_DONE && e->tuned_gflops <= 0) {
      printf("\r\033[K[%d/%d] %s: not tuned (no candidate measured in its share of the budget)\n", e->problem + 1,
             e->problems, what);
    } else if (e->kind == CLFORGE_TUNE_PROBLEM_DONE) {
      printf("\r\033[K[%d/%d] %s: %.1f GFLOP/s (default %.1f), %zu tried, %d discarded%s%s\n", e->problem + 1,
             e->problems, what, e->tuned_gflops, e->default_gflops, e->tried, e->failures, e->message ? "; " : "",
             e->message ? e->message : "");
    }
    return;
  }
  switch (e->kind) {
    case CLFORGE_TUNE_PROBLEM_START:
      printf("tune [%d/%d] %s: %zu candidates, %.0f s left\n", e->problem + 1, e->problems, what, e->total, e->left_s);
      break;
    case CLFORGE_TUNE_CANDIDATE:
      if (e->outcome == CLFORGE_TUNE_OK)
        printf("  %zu/%zu %s: %.1f GFLOP/s (build %.2f s)\n", e->tried, e->total, e->params, e->gflops, e->build_s);
      else
        printf("  %zu/%zu %s: %s: %s\n", e->tried, e->total, e->params,
               e->outcome == CLFORGE_TUNE_SLOW           ? "cut"
               : e->outcome == CLFORGE_TUNE_BUILD_FAILED ? "discarded, build failed"
               : e->outcome == CLFORGE_TUNE_RUN_FAILED   ? "discarded, run failed"
                                                         : "discarded, wrong result",
               e->message ? e->message : "");
      break;
    case CLFORGE_TUNE_PROBLEM_DONE:
      if (e->tuned_gflops <= 0)
        printf("tune [%d/%d] %s: not tuned (no candidate measured in its share of the budget); nothing saved\n",
               e->problem + 1, e->problems, what);
      else
        printf("tune [%d/%d] %s: best %.1f GFLOP/s, default %.1f, CLBlast %.1f; provider %s%s%s\n", e->problem + 1,
               e->problems, what, e->tuned_gflops, e->default_gflops, e->clblast_gflops, e->provider,
               e->message ? "; " : "", e->message ? e->message : "");
      break;
    default: /* BASELINE and NOT_REACHED are handled above */
      break;
  }
  fflush(stdout);
}

static int baselined(const progress_state *ps, const char *what) {
  for (int i = 0; i < ps->nbaselined; ++i)
    if (!strcmp(ps->baselined[i], what)) return 1;
  return 0;
}

static void print_table(const progress_state *ps) {
  printf("\n%-44s %9s %9s %9s %8s %-8s %s\n", "problem (GFLOP/s)", "default", "tuned", "CLBlast", "speed-up",
         "provider", "parameters");
  for (int i = 0; i < ps->nrows; ++i) {
    const row *r = &ps->rows[i];
    double best = r->tuned > r->peer ? r->tuned : r->peer;
    char def[16] = "-", peer[16] = "-", speed[16] = "-", tuned[16] = "-", params[200];
    if (r->def > 0) snprintf(def, sizeof def, "%.1f", r->def);
    if (r->peer > 0) snprintf(peer, sizeof peer, "%.1f", r->peer);
    if (r->tuned > 0) snprintf(tuned, sizeof tuned, "%.1f", r->tuned);
    if (r->def > 0 && r->tuned > 0) snprintf(speed, sizeof speed, "%.2fx", best / r->def);
    if (r->searched && r->tuned > 0) snprintf(params, sizeof params, "%s", r->params);
    else if (r->searched && baselined(ps, r->problem)) snprintf(params, sizeof params, "search saved nothing; baseline kept");
    else if (r->searched) snprintf(params, sizeof params, "not tuned: no candidate passed");
    else if (r->def > 0) snprintf(params, sizeof params, "search not reached; default saved: %s", r->params);
    else if (r->tuned > 0) snprintf(params, sizeof params, "search not reached; kept: %s", r->params);
    else snprintf(params, sizeof params, "not measured: budget");
    printf("%-44s %9s %9s %9s %8s %-8s %s\n", r->problem, def, tuned, peer, speed, r->searched ? r->provider : "-",
           params);
  }
}

/* What the budget did not reach, after the table: problems measured only
 * by the baseline, and those not measured at all (a class whose heuristic
 * family is among them gets the heuristic and built-in parameters). */
static void print_reach(const progress_state *ps, double budget) {
  int searched = 0, baselined = 0, kept = 0, none = 0;
  for (int i = 0; i < ps->nrows; ++i) {
    const row *r = &ps->rows[i];
    if (r->searched) ++searched;
    else if (r->def > 0) ++baselined;
    else if (r->tuned > 0) ++kept;
    else ++none;
  }
  printf("\nbudget %g s: %d of %d problems searched", budget, searched, ps->problems);
  if (searched == ps->problems) {
    printf("\n");
    return;
  }
  printf("; not reached: %d with only their default measured (the breadth-first pass), %d keeping an earlier "
         "tune's entry, %d not measured at all\n",
         baselined, kept, none);
  for (int pass = 0; pass < 2 && none; ++pass) {
    int n = 0;
    for (int i = 0; i < ps->nrows; ++i) {
      const row *r = &ps->rows[i];
      if (r->searched || r->def > 0 || r->tuned > 0 || (pass == 0) != (r->rank == 0)) continue;
      if (n++ == 0)
        printf(pass == 0 ? "  heuristic's family not measured (calls of these classes run the heuristic with "
                           "built-in parameters):\n"
                         : "  other families not measured:\n");
      printf("    %s %s %s %s%s\n", r->family, r->cls, r->dtypes, r->layout, r->rank == 1 ? " (the rival)" : "");
    }
  }
}

static int parse_number(const char *opt, const char *v, double lo, double hi, double *out) {
  char *end;
  errno = 0;
  double d = v ? strtod(v, &end) : 0;
  if (!v || end == v || *end || errno || !(d >= lo && d <= hi)) {
    fprintf(stderr, "clforge tune: %s needs a number in [%g, %g]\nRun 'clforge tune --help' for usage.\n", opt, lo, hi);
    return -1;
  }
  *out = d;
  return 0;
}

int clforge_cli_tune(int argc, char **argv) {
  clforge_tune_options o = {0};
  /* each op's first layout: GEMM without transposes, NCHW convolutions, BHSD attention, softmax rows, AdamW,
   * the q8_0 GEMM's W n x k */
  o.layouts = "first";
  int quiet = 0;
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    double d;
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      clforge_cli_tune_help(stdout);
      return 0;
    } else if (!strcmp(a, "--dry-run")) {
      o.dry_run = 1;
    } else if (!strcmp(a, "--no-peers")) {
      o.skip_peers = 1;
    } else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
      quiet = 1;
    } else if (!strcmp(a, "--op") || !strcmp(a, "--shapes") || !strcmp(a, "--dtypes") || !strcmp(a, "--layouts") ||
               !strcmp(a, "--file") || !strcmp(a, "--space") || !strcmp(a, "--strategy")) {
      if (!v) {
        fprintf(stderr, "clforge tune: %s needs a value\nRun 'clforge tune --help' for usage.\n", a);
        return EXIT_USAGE;
      }
      ++i;
      if (!strcmp(a, "--op")) o.ops = v;
      else if (!strcmp(a, "--shapes")) o.shapes = v;
      else if (!strcmp(a, "--dtypes")) o.dtypes = v;
      else if (!strcmp(a, "--layouts")) o.layouts = v;
      else if (!strcmp(a, "--file")) o.file = v;
      else if (!strcmp(a, "--space")) o.space = v;
      else if (!strcmp(v, "auto")) o.strategy = CLFORGE_TUNE_AUTO;
      else if (!strcmp(v, "exhaustive")) o.strategy = CLFORGE_TUNE_EXHAUSTIVE;
      else if (!strcmp(v, "random")) o.strategy = CLFORGE_TUNE_RANDOM;
      else if (!strcmp(v, "anneal")) o.strategy = CLFORGE_TUNE_ANNEAL;
      else {
        fprintf(stderr, "clforge tune: --strategy is auto, exhaustive, random or anneal, not '%s'\n", v);
        return EXIT_USAGE;
      }
    } else if (!strcmp(a, "--compute-type")) {
      o.compute_type = CLFORGE_COMPUTE_DEFAULT;
      for (int t = CLFORGE_COMPUTE_32F; v && t <= CLFORGE_COMPUTE_16F; ++t)
        if (!strcmp(v, clforge_compute_type_name((clforge_compute_type)t))) o.compute_type = (clforge_compute_type)t;
      if (o.compute_type == CLFORGE_COMPUTE_DEFAULT) {
        fprintf(stderr, "clforge tune: --compute-type is 32f, 32f_fast_16f or 16f, not '%s'\n", v ? v : "");
        return EXIT_USAGE;
      }
      ++i;
    } else if (!strcmp(a, "--budget")) {
      if (parse_number(a, v, 0.001, 1e7, &d)) return EXIT_USAGE;
      o.budget_s = d, ++i;
    } else if (!strcmp(a, "--max-evals")) {
      if (parse_number(a, v, 1, 1e9, &d)) return EXIT_USAGE;
      o.max_evals = (int)d, ++i;
    } else if (!strcmp(a, "--seed")) {
      if (parse_number(a, v, 0, 4294967295.0, &d)) return EXIT_USAGE;
      o.seed = (unsigned)d, ++i;
    } else {
      fprintf(stderr, "clforge tune: unknown %s '%s'\nRun 'clforge tune --help' for usage.\n",
              a[0] == '-' ? "option" : "argument", a);
      return EXIT_USAGE;
    }
  }
  if (o.ops && !strcmp(o.ops, "all")) o.ops = NULL;
  if (o.ops && !strcmp(o.ops, "allreduce")) { /* MPI's crossover: its own sweep, collective over the job */
    if (o.shapes || o.dtypes || strcmp(o.layouts, "first") || o.space || o.strategy || o.budget_s ||
        o.max_evals || o.seed || o.skip_peers || o.compute_type) {
      fprintf(stderr, "clforge tune --op allreduce: only --file, --dry-run and --quiet apply\n");
      return EXIT_USAGE;
    }
    return clforge_bench_tune_allreduce(o.file, o.dry_run, quiet);
  }

  clforge_context ctx;
  if (clforge_context_create(NULL, &ctx) != CLFORGE_SUCCESS) {
    fprintf(stderr, "clforge tune: no device to tune: %s\n", clforge_last_error(NULL));
    return 1;
  }
  clforge_device_info info;
  clforge_context_device_info(ctx, &info);
  char path[4096] = "";
  if (!o.file && clforge_path(CLFORGE_PATH_TUNING_FILE, path, sizeof path) == CLFORGE_SUCCESS) o.file = path;
  if (!quiet)
    printf("tuning \"%s\" (%s), budget %.0f s%s%s\n", info.name, info.driver_version, o.budget_s ? o.budget_s : 120.0,
           o.dry_run ? ", dry run" : ", saving to ", o.dry_run ? "" : o.file);
  progress_state ps = {.tty = isatty(STDOUT_FILENO), .quiet = quiet};
  o.progress = on_progress;
  o.user = &ps;
  o.stop = &stop_flag;
  signal(SIGINT, on_sigint);
  clforge_status st = clforge_tune(ctx, &o);
  signal(SIGINT, SIG_DFL);
  if (ps.tty && !quiet) printf("\r\033[K");
  if (stop_flag) printf("stopped by Ctrl-C; %s\n", o.dry_run ? "nothing saved (dry run)" : "what was measured is saved");
  print_table(&ps);
  print_reach(&ps, o.budget_s ? o.budget_s : 120.0);
  int rc = 0;
  if (st != CLFORGE_SUCCESS) {
    fprintf(stderr, "clforge tune: %s\n", clforge_last_error(ctx));
    rc = 1;
  } else if (!o.dry_run) {
    printf("\nsaved to %s\n", o.file);
  }
  free(ps.rows);
  free(ps.baselined);
  clforge_context_destroy(ctx);
  return rc;
}
