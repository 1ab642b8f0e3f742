/* clforge_tune: a candidate with a wrong result and one that fails to build
 * are discarded (test hook) and never saved; the winner is saved and used
 * by a fresh context; dry runs save nothing; a stop request keeps what was
 * measured; a re-tune measures the old entry and saves; the work is breadth
 * first (each class's heuristic family, then its rival, before any search),
 * a rival saved before the heuristic is paired against it
 * and what the run did not reach is reported; the strategies respect the
 * space and the evaluation cap; candidates fit the shape; bad options are
 * refused. */
#include <unistd.h>

#include "../src/core/context.h"
#include "../src/core/tuning_file.h"
#include "../src/families/families.h"
#include "test_util.h"

static char dir[256], file[300];

typedef struct {
  int starts, dones, candidates, baselines, not_reached;
  /* the run's events in order: kind, rank, family and class of each */
  struct {
    int kind, rank;
    double default_gflops;
    char family[32], cls[32];
  } seq[16];
  int nseq;
  int stop_at_start;            /* set *stop at the first search */
  int outcomes[64];
  char params[64][160];
  char message[64][1024];
  clforge_tune_event done;      /* the last PROBLEM_DONE (strings not kept) */
  char done_params[160];
  int stop_after;               /* set *stop after this many candidates (0 = never) */
  volatile sig_atomic_t stop;
} events;

static void on_event(const clforge_tune_event *e, void *user) {
  events *ev = user;
  if (e->kind != CLFORGE_TUNE_CANDIDATE && ev->nseq < 16) {
    ev->seq[ev->nseq].kind = (int)e->kind, ev->seq[ev->nseq].rank = e->rank;
    ev->seq[ev->nseq].default_gflops = e->default_gflops;
    snprintf(ev->seq[ev->nseq].family, sizeof ev->seq[0].family, "%s", e->family);
    snprintf(ev->seq[ev->nseq++].cls, sizeof ev->seq[0].cls, "%s", e->shape_class);
  }
  if (e->kind == CLFORGE_TUNE_BASELINE) ++ev->baselines;
  if (e->kind == CLFORGE_TUNE_NOT_REACHED) ++ev->not_reached;
  if (e->kind == CLFORGE_TUNE_PROBLEM_START && ev->stop_at_start) ev->stop = 1;
  if (e->kind == CLFORGE_TUNE_PROBLEM_START) ++ev->starts;
  if (e->kind == CLFORGE_TUNE_PROBLEM_DONE) {
    ++ev->dones;
    ev->done = *e;
    snprintf(ev->done_params, sizeof ev->done_params, "%s", e->params ? e->params : "");
  }
  if (e->kind == CLFORGE_TUNE_CANDIDATE && ev->candidates < 64) {
    int i = ev->candidates++;
    ev->outcomes[i] = (int)e->outcome;
    snprintf(ev->params[i], sizeof ev->params[i], "%s", e->params ? e->params : "");
    snprintf(ev->message[i], sizeof ev->message[i], "%s", e->message ? e->message : "");
    if (ev->stop_after && ev->candidates >= ev->stop_after) ev->stop = 1;
  }
}

static clforge_tune_options small_options(events *ev) {
  memset(ev, 0, sizeof *ev);
  clforge_tune_options o = {0};
  o.ops = "gemm";
  o.shapes = "small";
  o.dtypes = "f32";
  o.layouts = "nn";
  o.budget_s = 600; /* max_evals bounds the runs; a slow (sanitized) compiler must not cut them */
  o.max_evals = 6;
  o.file = file;
  o.skip_peers = 1;
  o.progress = on_event;
  o.user = ev;
  o.stop = &ev->stop;
  return o;
}

/* "NAME=V NAME=V" of an entry, as the tuner prints parameters. */
static void entry_params(const clforge__tuning_entry *e, char *buf, size_t cap) {
  size_t used = 0;
  buf[0] = '\0';
  for (int i = 0; i < e->nparams && used < cap; ++i)
    used += (size_t)snprintf(buf + used, cap - used, "%s%s=%d", i ? " " : "", e->names[i], e->values[i]);
}

static const clforge__tuning_entry *find_entry(const clforge__tuning_db *db, const char *family, const char *cls) {
  for (size_t i = 0; i < db->count; ++i)
    if (!strcmp(db->entries[i].family, family) && !strcmp(db->entries[i].shape_class, cls)) return &db->entries[i];
  return NULL;
}

static void test_discards_faulty_candidates(void) {
  unlink(file);
  clforge_context ctx = tu_context();
  events ev;
  clforge_tune_options o = small_options(&ev);
  clforge__test_set_fault(ctx, "tune"); /* first candidate: wrong result; second: build failure */
  CHECK_OK(ctx, clforge_tune(ctx, &o));
  CHECK(ev.starts == 1 && ev.dones == 1, "%d starts, %d dones", ev.starts, ev.dones);
  CHECK(ev.candidates >= 3, "only %d candidates", ev.candidates);
  CHECK(ev.outcomes[0] == CLFORGE_TUNE_WRONG, "first candidate: outcome %d", ev.outcomes[0]);
  CHECK(strstr(ev.message[0], "differ") || strstr(ev.message[0], "reference"), "wrong-result message: %s",
        ev.message[0]);
  CHECK(ev.outcomes[1] == CLFORGE_TUNE_BUILD_FAILED, "second candidate: outcome %d", ev.outcomes[1]);
  CHECK(strstr(ev.message[1], "forced build failure") != NULL, "build message lacks the compiler's error: %.200s",
        ev.message[1]);
  CHECK(ev.done.failures >= 2, "failures %d", ev.done.failures);
  CHECK(ev.done.tuned_gflops > 0 && ev.done.default_gflops > 0, "tuned %g default %g", ev.done.tuned_gflops,
        ev.done.default_gflops);
  clforge_context_destroy(ctx);

  clforge__tuning_db db = {NULL, 0, 0};
  char why[512] = "";
  CHECK(clforge__tuning_load_file(file, &db, why, sizeof why) == 0, "saved file does not load: %s", why);
  const clforge__tuning_entry *e = find_entry(&db, "gemm_direct", "small");
  CHECK(e != NULL, "no entry saved");
  if (e) {
    char saved[256];
    entry_params(e, saved, sizeof saved);
    CHECK(strcmp(saved, ev.params[0]) != 0, "the wrong-result candidate was saved: %s", saved);
    CHECK(strcmp(saved, ev.params[1]) != 0, "the unbuildable candidate was saved: %s", saved);
    CHECK(!strcmp(saved, ev.done_params), "saved %s, reported %s", saved, ev.done_params);
    CHECK(!strcmp(e->dtypes, "f32,f32,f32") && !strcmp(e->layout, "nn") && e->shape[0] == 64 && e->median_s > 0 &&
              e->gflops > 0 && e->date[0] && !strcmp(e->provider, "clforge"),
          "entry fields: %s %s %zu %g %g %s", e->dtypes, e->layout, e->shape[0], e->median_s, e->gflops, e->date);
    /* a fresh context uses it */
    setenv("CLFORGE_TUNING_FILE", file, 1);
    clforge_context c2 = tu_context();
    clforge_gemm_desc d = {.m = 50, .n = 60, .k = 70, .alpha = 1, .beta = 0};
    clforge_kernel_choice ch[2];
    int n = 0;
    CHECK_OK(c2, clforge_gemm_explain(c2, &d, ch, 2, &n));
    CHECK(n == 1 && ch[0].source == CLFORGE_PARAMS_FROM_TUNED && !strcmp(ch[0].family, "gemm_direct"),
          "fresh context: %d choices, source %s", n, clforge_params_source_name(ch[0].source));
    for (int p = 0; n == 1 && p < e->nparams; ++p)
      CHECK(ch[0].values[p] == e->values[p], "parameter %s: %d, file %d", e->names[p], ch[0].values[p], e->values[p]);
    clforge_context_destroy(c2);
    setenv("CLFORGE_TUNING_FILE", "off", 1); /* never the user's file */
  }
  clforge__tuning_free(&db);
}

static void test_dry_run_and_stop(void) {
  unlink(file);
  clforge_context ctx = tu_context();
  events ev;
  clforge_tune_options o = small_options(&ev);
  o.dry_run = 1;
  o.max_evals = 2;
  CHECK_OK(ctx, clforge_tune(ctx, &o));
  CHECK(ev.dones == 1 && access(file, F_OK) != 0, "dry run: %d dones, file %s", ev.dones,
        access(file, F_OK) ? "absent" : "written");

  o = small_options(&ev);
  o.max_evals = 50;
  ev.stop_after = 2;
  CHECK_OK(ctx, clforge_tune(ctx, &o));
  CHECK(ev.candidates == 2, "stop after 2: %d candidates", ev.candidates);
  clforge__tuning_db db = {NULL, 0, 0};
  char why[512] = "";
  CHECK(clforge__tuning_load_file(file, &db, why, sizeof why) == 0 && db.count == 1,
        "stopped run did not keep its result (%zu entries) %s", db.count, why);
  clforge__tuning_free(&db);
  clforge_context_destroy(ctx);
}

static void test_strategies(void) {
  clforge_context ctx = tu_context();
  events ev;
  clforge_tune_options o = small_options(&ev);
  o.dry_run = 1;
  o.strategy = CLFORGE_TUNE_EXHAUSTIVE;
  o.max_evals = 0;
  o.space = "gemm_direct:MWID=4|8,NWID=1,MDIMD=2,NDIMD=4,KUD=1,VW=8|16";
  CHECK_OK(ctx, clforge_tune(ctx, &o));
  CHECK(ev.candidates == 4 && ev.done.total == 4 && ev.done.tried == 4, "exhaustive: %d candidates of %zu",
        ev.candidates, ev.done.total);
  for (int i = 0; i < ev.candidates; ++i)
    CHECK(strstr(ev.params[i], "NWID=1 MDIMD=2 NDIMD=4 KUD=1") != NULL, "outside the space: %s", ev.params[i]);
  const clforge_tune_strategy others[2] = {CLFORGE_TUNE_RANDOM, CLFORGE_TUNE_ANNEAL};
  for (int s = 0; s < 2; ++s) {
    o = small_options(&ev);
    o.dry_run = 1;
    o.strategy = others[s];
    o.max_evals = 4;
    o.seed = 42;
    CHECK_OK(ctx, clforge_tune(ctx, &o));
    CHECK(ev.candidates == 4 && ev.done.tuned_gflops > 0, "strategy %d: %d candidates", (int)others[s],
          ev.candidates);
    for (int i = 0; i < ev.candidates; ++i)
      for (int j = 0; j < i; ++j) CHECK(strcmp(ev.params[i], ev.params[j]), "evaluated twice: %s", ev.params[i]);
  }
  /* tiled candidates for a skinny shape: tiles divide m = 64 */
  o = small_options(&ev);
  o.dry_run = 1;
  o.shapes = "skinny_m";
  o.max_evals = 3;
  CHECK_OK(ctx, clforge_tune(ctx, &o));
  CHECK(ev.dones == 1 && ev.candidates >= 1, "skinny_m: %d candidates", ev.candidates);
  for (int i = 0; i < ev.candidates; ++i) {
    int mwg = 0;
    const char *p = strstr(ev.params[i], "MWG=");
    if (p) mwg = atoi(p + 4);
    CHECK(mwg > 0 && 64 % mwg == 0, "skinny_m candidate with MWG=%d", mwg);
  }
  CHECK(ev.done.tuned_gflops >= ev.done.default_gflops,
        "skinny_m: the tuned result (%g) is slower than the default (%g)", ev.done.tuned_gflops,
        ev.done.default_gflops);
  clforge_context_destroy(ctx);
}

/* While tuning, the environment's and the application's overrides do not
 * apply (the baseline is the built-in default); the application's comes back. */
static void test_overrides_ignored(void) {
  clforge_context ctx = tu_context();
  clforge_gemm_desc d = {.m = 64, .n = 64, .k = 64, .alpha = 1, .beta = 0};
  clforge_kernel_choice ch[2];
  int n = 0;
  CHECK_OK(ctx, clforge_gemm_explain(ctx, &d, ch, 2, &n));
  char builtin[256] = "";
  size_t used = 0;
  for (int p = 0; p < ch[0].nparams; ++p)
    used += (size_t)snprintf(builtin + used, sizeof builtin - used, "%s%s=%d", p ? " " : "", ch[0].names[p],
                             ch[0].values[p]);
  setenv("CLFORGE_PARAMS", "gemm_direct:VW=1,MWID=1", 1);
  setenv("CLFORGE_GEMM_PATH", "tiled", 1);
  CHECK_OK(ctx, clforge_context_set_params(ctx, "gemm_direct:VW=4"));
  events ev;
  clforge_tune_options o = small_options(&ev);
  o.dry_run = 1;
  o.max_evals = 1;
  CHECK_OK(ctx, clforge_tune(ctx, &o));
  CHECK(ev.candidates == 1 && !strcmp(ev.params[0], builtin), "first candidate %s, built-in default %s",
        ev.params[0], builtin);
  unsetenv("CLFORGE_PARAMS");
  unsetenv("CLFORGE_GEMM_PATH");
  CHECK_OK(ctx, clforge_gemm_explain(ctx, &d, ch, 2, &n));
  CHECK(ch[0].source == CLFORGE_PARAMS_FROM_API && ch[0].values[5] == 4, "override after tuning: %s VW=%d",
        clforge_params_source_name(ch[0].source), ch[0].values[5]);
  clforge_context_destroy(ctx);
}

/* A re-tune that measures nothing (stopped at once) or never reaches the
 * existing entry keeps it. */
static void test_retune_keeps(void) {
  clforge_context ctx = tu_context();
  events ev;
  clforge_tune_options o = small_options(&ev);
  o.max_evals = 3;
  CHECK_OK(ctx, clforge_tune(ctx, &o));
  clforge__tuning_db before = {NULL, 0, 0}, after = {NULL, 0, 0};
  char why[512] = "";
  CHECK(clforge__tuning_load_file(file, &before, why, sizeof why) == 0 && before.count == 1, "first tune: %s", why);
  o = small_options(&ev);
  ev.stop = 1;
  CHECK_OK(ctx, clforge_tune(ctx, &o));
  CHECK(ev.candidates == 0, "a stopped run measured %d candidates", ev.candidates);
  CHECK(clforge__tuning_load_file(file, &after, why, sizeof why) == 0 && after.count == 1, "after: %s", why);
  if (before.count == 1 && after.count == 1)
    CHECK(!memcmp(before.entries[0].values, after.entries[0].values, sizeof before.entries[0].values) &&
              before.entries[0].median_s == after.entries[0].median_s,
          "a run that measured nothing replaced the entry");
  CHECK(ev.not_reached == 1 && ev.baselines == 0, "stopped re-tune: %d not reached, %d baselines (the file had one)",
        ev.not_reached, ev.baselines);
  /* a re-tune that runs measures the entry first and saves its winner */
  o = small_options(&ev);
  o.max_evals = 2;
  CHECK_OK(ctx, clforge_tune(ctx, &o));
  CHECK(ev.dones == 1 && ev.done.tuned_gflops > 0 && ev.baselines == 0,
        "re-tune: %d dones, tuned %g GFLOP/s (0: it saved nothing), %d baselines", ev.dones, ev.done.tuned_gflops,
        ev.baselines);
  clforge__tuning_free(&before);
  clforge__tuning_free(&after);
  clforge_context_destroy(ctx);
}

/* Breadth first: before any search, class by class, the heuristic's family
 * (rank 0: what a call runs without the file) and its rival get their
 * default measured and saved; a run stopped at its first search keeps them
 * and reports each problem it did not search. GEMM's large and medium
 * classes, f32 nn: the tiled and the packed family each. */
static void test_breadth_first(void) {
  unlink(file);
  clforge_context ctx = tu_context();
  /* what each class's calls run without a tuning file */
  char plain[2][32];
  const size_t sizes[2][3] = {{1024, 1024, 1024}, {512, 512, 512}};
  for (int i = 0; i < 2; ++i) {
    clforge_gemm_desc d = {.m = sizes[i][0], .n = sizes[i][1], .k = sizes[i][2], .alpha = 1, .beta = 0};
    clforge_kernel_choice ch[2];
    int n = 0;
    CHECK_OK(ctx, clforge_gemm_explain(ctx, &d, ch, 2, &n));
    snprintf(plain[i], sizeof plain[i], "%s", n ? ch[0].family : "");
  }
  events ev;
  clforge_tune_options o = small_options(&ev);
  o.shapes = "large,medium";
  o.max_evals = 1;
  ev.stop_at_start = 1;
  CHECK_OK(ctx, clforge_tune(ctx, &o));
  CHECK(ev.nseq == 9 && ev.baselines == 4 && ev.starts == 1 && ev.dones == 1 && ev.not_reached == 3,
        "%d events: %d baselines, %d starts, %d dones, %d not reached", ev.nseq, ev.baselines, ev.starts, ev.dones,
        ev.not_reached);
  for (int i = 0; i < 4 && i < ev.nseq; ++i) {
    CHECK(ev.seq[i].kind == CLFORGE_TUNE_BASELINE && ev.seq[i].rank == i % 2 && ev.seq[i].default_gflops > 0,
          "event %d: kind %d rank %d (%s %s), default %g", i, ev.seq[i].kind, ev.seq[i].rank, ev.seq[i].family,
          ev.seq[i].cls, ev.seq[i].default_gflops);
    /* the heavier class first (large: weight 2), in each the heuristic's family first */
    const int large = !strcmp(ev.seq[i].cls, "large");
    CHECK(large == (i < 2), "event %d: class %s", i, ev.seq[i].cls);
    if (i % 2 == 0)
      CHECK(!strcmp(ev.seq[i].family, plain[large ? 0 : 1]), "%s: baseline of %s first, a plain call runs %s",
            ev.seq[i].cls, ev.seq[i].family, plain[large ? 0 : 1]);
  }
  for (int i = 6; i < ev.nseq; ++i)
    CHECK(ev.seq[i].kind == CLFORGE_TUNE_NOT_REACHED && ev.seq[i].default_gflops > 0,
          "event %d: kind %d, default %g (its baseline's)", i, ev.seq[i].kind, ev.seq[i].default_gflops);
  clforge__tuning_db db = {NULL, 0, 0};
  char why[512] = "";
  CHECK(clforge__tuning_load_file(file, &db, why, sizeof why) == 0 && db.count == 4, "%zu entries saved %s", db.count,
        why);
  clforge__tuning_free(&db);
  clforge_context_destroy(ctx);
  unlink(file);
}

/* A rival's entry saved before the heuristic's (an earlier tune, or a
 * search of the rival that ran first) whose rate would move calls off the
 * heuristic's family meets the heuristic in interleaved pairs when the
 * heuristic's entry is saved. Here the rival's entry holds its smallest
 * tiles (many times slower) at an absurd rate: the pairs keep the
 * heuristic, the rival's entry is saved again at the heuristic's rate (no
 * longer above it by the lookup's margin), and
 * a fresh context runs the heuristic's family. GEMM medium, f32 nn. */
static void test_rival_saved_first(void) {
  unlink(file);
  clforge_context ctx = tu_context();
  clforge_gemm_desc d = {.m = 512, .n = 512, .k = 512, .alpha = 1, .beta = 0};
  clforge_kernel_choice ch[2];
  int n = 0;
  CHECK_OK(ctx, clforge_gemm_explain(ctx, &d, ch, 2, &n));
  if (n < 1) return;
  char plain[32];
  snprintf(plain, sizeof plain, "%s", ch[0].family);
  const int packed = !strcmp(plain, "gemm_packed");
  const clforge__family *rival = packed ? &clforge__family_gemm : &clforge__family_gemm_packed;
  /* MWG NWG MWI NWI KWG VW SA SB KU KSYNC HALF; MR NR VW MC NC KC KU ORD */
  static const int tiled_slow[] = {16, 16, 1, 1, 8, 1, 0, 0, 1, 0, 0}, packed_slow[] = {2, 8, 4, 8, 16, 32, 1, 0};
  clforge__tuning_entry e;
  memset(&e, 0, sizeof e);
  clforge__tuning_stamp(&e, &ctx->info);
  snprintf(e.family, sizeof e.family, "%s", rival->name);
  snprintf(e.dtypes, sizeof e.dtypes, "f32,f32,f32");
  snprintf(e.layout, sizeof e.layout, "nn");
  snprintf(e.shape_class, sizeof e.shape_class, "medium");
  snprintf(e.provider, sizeof e.provider, "clforge");
  e.ndims = 3;
  e.shape[0] = e.shape[1] = e.shape[2] = 512;
  e.nparams = rival->nparams;
  for (int p = 0; p < rival->nparams; ++p) {
    snprintf(e.names[p], sizeof e.names[p], "%s", rival->params[p].name);
    e.values[p] = packed ? tiled_slow[p] : packed_slow[p];
  }
  e.gflops = 1e6;
  e.median_s = 2.0 * 512 * 512 * 512 / 1e15;
  clforge__tuning_db one = {&e, 1, 1};
  char why[512] = "";
  CHECK(clforge__tuning_save(file, &one, why, sizeof why) == 0, "rival's entry not saved: %s", why);

  events ev;
  clforge_tune_options o = small_options(&ev);
  o.shapes = "medium";
  o.max_evals = 1;
  ev.stop_at_start = 1; /* the heuristic's baseline, then stop: the rival has an entry, so no baseline */
  CHECK_OK(ctx, clforge_tune(ctx, &o));
  CHECK(ev.baselines == 1 && ev.nseq >= 1 && !strcmp(ev.seq[0].family, plain), "%d baselines, first %s (plain %s)",
        ev.baselines, ev.nseq ? ev.seq[0].family : "none", plain);
  clforge__tuning_db db = {NULL, 0, 0};
  CHECK(clforge__tuning_load_file(file, &db, why, sizeof why) == 0, "file does not load: %s", why);
  const clforge__tuning_entry *h = find_entry(&db, plain, "medium"), *r = find_entry(&db, rival->name, "medium");
  /* (the heuristic's search, stopped at its start, may save its rate again) */
  CHECK(h && r && h->gflops > 0 && r->gflops <= h->gflops * CLFORGE__TUNED_MARGIN,
        "the unconfirmed rival %s keeps %g GFLOP/s against the heuristic's %s %g", rival->name, r ? r->gflops : -1,
        plain, h ? h->gflops : -1);
  clforge__tuning_free(&db);
  clforge_context_destroy(ctx);
  setenv("CLFORGE_TUNING_FILE", file, 1);
  clforge_context c2 = tu_context();
  n = 0;
  CHECK_OK(c2, clforge_gemm_explain(c2, &d, ch, 2, &n));
  CHECK(n >= 1 && !strcmp(ch[0].family, plain), "with the file, 512^3 runs %s; without, %s", n ? ch[0].family : "?",
        plain);
  clforge_context_destroy(c2);
  setenv("CLFORGE_TUNING_FILE", "off", 1); /* never the user's file */
  unlink(file);
}

/* A problem the device cannot run at all (every build fails, the default's
 * too) is given up after three candidates, and nothing is saved. */
static void test_unrunnable_problem(void) {
  unlink(file);
  clforge_context ctx = tu_context();
  events ev;
  clforge_tune_options o = small_options(&ev);
  o.max_evals = 50;
  clforge__test_set_fault(ctx, "build");
  CHECK_OK(ctx, clforge_tune(ctx, &o));
  clforge__test_set_fault(ctx, NULL);
  CHECK(ev.candidates == 3 && ev.dones == 1 && ev.done.tuned_gflops == 0, "%d candidates, tuned %g", ev.candidates,
        ev.done.tuned_gflops);
  for (int i = 0; i < ev.candidates; ++i)
    CHECK(ev.outcomes[i] == CLFORGE_TUNE_BUILD_FAILED, "candidate %d: outcome %d", i, ev.outcomes[i]);
  CHECK(access(file, F_OK) != 0, "an untuned problem was saved");
  clforge_context_destroy(ctx);
}

static void test_bad_options(void) {
  clforge_context ctx = tu_context();
  events ev;
  clforge_tune_options o = small_options(&ev);
  o.shapes = "gigantic";
  CHECK_FAILS(ctx, clforge_tune(ctx, &o), CLFORGE_INVALID_ARGUMENT, "gigantic");
  o = small_options(&ev);
  o.dtypes = "f64";
  CHECK_FAILS(ctx, clforge_tune(ctx, &o), CLFORGE_INVALID_ARGUMENT, "f64");
  o = small_options(&ev);
  o.budget_s = -1;
  CHECK_FAILS(ctx, clforge_tune(ctx, &o), CLFORGE_INVALID_ARGUMENT, "budget");
  o = small_options(&ev);
  o.strategy = (clforge_tune_strategy)9;
  CHECK_FAILS(ctx, clforge_tune(ctx, &o), CLFORGE_INVALID_ARGUMENT, "strategy");
  o = small_options(&ev);
  o.space = "gemm_direct:FOO=1";
  CHECK_FAILS(ctx, clforge_tune(ctx, &o), CLFORGE_INVALID_ARGUMENT, "FOO");
  o = small_options(&ev);
  o.space = "gemm_direct:VW=3";
  CHECK_FAILS(ctx, clforge_tune(ctx, &o), CLFORGE_INVALID_ARGUMENT, "3");
  /* a bad clause for a family later in the run fails before anything runs */
  unlink(file);
  o = small_options(&ev);
  o.shapes = "small,large";
  o.space = "gemm:MWG=64; gemm_direct:FOO=1";
  CHECK_FAILS(ctx, clforge_tune(ctx, &o), CLFORGE_INVALID_ARGUMENT, "FOO");
  o = small_options(&ev);
  o.space = "nosuch:X=1";
  CHECK_FAILS(ctx, clforge_tune(ctx, &o), CLFORGE_INVALID_ARGUMENT, "nosuch");
  o = small_options(&ev);
  o.space = "gemm_direct:VW=";
  CHECK_FAILS(ctx, clforge_tune(ctx, &o), CLFORGE_INVALID_ARGUMENT, "VW");
  o = small_options(&ev);
  o.reserved[5] = &o;
  CHECK_FAILS(ctx, clforge_tune(ctx, &o), CLFORGE_INVALID_ARGUMENT, "clforge_tune_options.reserved[5] must be NULL");
  o = small_options(&ev);
  o.file = "off";
  CHECK_FAILS(ctx, clforge_tune(ctx, &o), CLFORGE_INVALID_ARGUMENT, "off");
  CHECK(access(file, F_OK) != 0, "a refused run wrote the file");
  CHECK(ev.candidates == 0, "a refused run measured %d candidates", ev.candidates);
  CHECK(clforge_tune(NULL, &o) == CLFORGE_INVALID_ARGUMENT, "NULL context");
  clforge_context_destroy(ctx);
}

int main(void) {
  snprintf(dir, sizeof dir, "%s/clforge-tuner-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
  if (!mkdtemp(dir)) {
    perror("mkdtemp");
    return 1;
  }
  snprintf(file, sizeof file, "%s/tuning.json", dir);
  unsetenv("CLFORGE_PARAMS");
  setenv("CLFORGE_SYSTEM_TUNING_FILE", "off", 1);
  setenv("CLFORGE_TUNING_FILE", "off", 1);

  test_discards_faulty_candidates();
  test_dry_run_and_stop();
  test_strategies();
  test_overrides_ignored();
  test_retune_keeps();
  test_breadth_first();
  test_rival_saved_first();
  test_unrunnable_problem();
  test_bad_options();

  unlink(file);
  char lock[320];
  snprintf(lock, sizeof lock, "%s.lock", file);
  unlink(lock);
  rmdir(dir);
  return tu_summary();
}
