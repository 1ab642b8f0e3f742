/* The tuner's paired confirmation (src/tuning/confirm.c) on synthetic
 * timings: a busy machine's noise (jitter, slow phases that last a while,
 * single runs 2-3x slow) must not make an equal candidate look like a
 * winner, while a real 1.3x one is kept and a slower one never. Fixed
 * seeds, no clock: the same verdicts on every run. */
#include <math.h>
#include <stdint.h>

#include "../src/tuning/confirm.h"
#include "test_util.h"

enum { SEEDS = 400, PAIRS = 16 };

/* The noisy machine: candidate time = built-in time / ratio. */
typedef struct {
  unsigned rng;
  double ratio;
  int slow_phase;  /* another job holds the cores: both runs of a pair may feel it */
  int calls;       /* bursts so far */
  int order[2 * CLFORGE__CONFIRM_MAX_PAIRS], norder;
  int stop_after;  /* pairs before must_stop says so (0: never) */
  int fail_call;   /* this burst (1-based) fails (0: none) */
  int enough_at;   /* pairs the time share allows */
} machine;

static double uniform(machine *m) { return (tu_rand(&m->rng) % 1000000 + 0.5) / 1e6; }

static double gaussian(machine *m) { return sqrt(-2 * log(uniform(m))) * cos(6.283185307179586 * uniform(m)); }

static double noisy(machine *m, double t) {
  if (uniform(m) < 0.08) m->slow_phase = !m->slow_phase; /* phases of about a dozen runs */
  t *= exp(0.08 * gaussian(m));                         /* jitter: 8 % */
  if (m->slow_phase) t *= 1.3 + 0.5 * uniform(m);
  if (uniform(m) < 0.1) t *= 2 + uniform(m);            /* a burst 2-3x slow */
  return t;
}

static double burst(int which, void *user) {
  machine *m = user;
  int call = ++m->calls;
  if (m->norder < 2 * CLFORGE__CONFIRM_MAX_PAIRS) m->order[m->norder++] = which;
  if (m->fail_call && call == m->fail_call) return -1;
  return noisy(m, which == 0 ? 1e-2 : 1e-2 / m->ratio);
}

static int must_stop(void *user) {
  const machine *m = user;
  return m->stop_after && m->calls / 2 >= m->stop_after;
}

static int enough(int pairs, void *user) { return pairs >= ((const machine *)user)->enough_at; }

static clforge__confirm_result run(machine *m, uint64_t seed) {
  clforge__confirm_source src = {burst, must_stop, enough, m};
  clforge__confirm_result r;
  clforge__confirm_run(&src, seed, &r);
  return r;
}

/* How often, over SEEDS seeds, a candidate of this true ratio is kept;
 * old_rule counts the rule it replaces: one measurement of each at
 * different moments, kept when 10 % faster. */
static double acceptance(double ratio, double *old_rule) {
  int kept = 0, old = 0;
  for (unsigned s = 1; s <= SEEDS; ++s) {
    machine m = {.rng = 2654435761u * s, .ratio = ratio, .enough_at = PAIRS};
    kept += run(&m, s).accepted;
    double a = noisy(&m, 1e-2);
    for (int i = 0; i < 20; ++i) noisy(&m, 1e-2); /* minutes later, other phases */
    old += a / noisy(&m, 1e-2 / ratio) > 1.10;
  }
  if (old_rule) *old_rule = (double)old / SEEDS;
  return (double)kept / SEEDS;
}

static void statistics(void) {
  double v[] = {3, 1, 2, 4};
  CHECK(clforge__median(v, 4) == 2.5 && clforge__median(v, 3) == 2, "median of 1 2 3 4 (and 1 2 3)");
  CHECK(clforge__median(v, 0) == 0, "median of nothing");
  double r[CLFORGE__CONFIRM_MIN_PAIRS];
  for (int i = 0; i < CLFORGE__CONFIRM_MIN_PAIRS; ++i) r[i] = 1.2;
  clforge__confirm_result res;
  clforge__confirm_decide(r, CLFORGE__CONFIRM_MIN_PAIRS, 1, &res);
  CHECK(res.accepted && res.median == 1.2 && res.lower == 1.2, "constant 1.2: median %g lower %g", res.median, res.lower);
  clforge__confirm_decide(r, CLFORGE__CONFIRM_MIN_PAIRS - 1, 1, &res);
  CHECK(!res.accepted && res.pairs == CLFORGE__CONFIRM_MIN_PAIRS - 1 && res.median == 1.2,
        "too few pairs confirm nothing (%d pairs, accepted %d)", res.pairs, res.accepted);
  for (int i = 0; i < CLFORGE__CONFIRM_MIN_PAIRS; ++i) r[i] = CLFORGE__CONFIRM_MIN_GAIN;
  clforge__confirm_decide(r, CLFORGE__CONFIRM_MIN_PAIRS, 1, &res);
  CHECK(!res.accepted, "a gain of exactly the threshold is not above it");
  /* One pair at 3x among 1.0s is a burst, not a speed-up. */
  double one_off[12] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 3};
  clforge__confirm_decide(one_off, 12, 7, &res);
  CHECK(!res.accepted && res.median == 1, "one 3x pair: median %g lower %g", res.median, res.lower);
  /* The bootstrap is seeded: the same data and seed give the same bound. */
  double spread[12] = {0.9, 1.3, 1.1, 1.25, 0.95, 1.4, 1.05, 1.2, 1.15, 1.0, 1.3, 1.1};
  clforge__confirm_result a, b;
  clforge__confirm_decide(spread, 12, 42, &a);
  clforge__confirm_decide(spread, 12, 42, &b);
  CHECK(a.lower == b.lower && a.lower <= a.median && a.lower >= 0.9, "seeded bound %g %g (median %g)", a.lower,
        b.lower, a.median);
}

static void pairing(void) {
  machine m = {.rng = 99, .ratio = 1.5, .enough_at = 10};
  clforge__confirm_result r = run(&m, 3);
  CHECK(r.pairs == 10 && m.calls == 20, "enough after 10 pairs: %d pairs", r.pairs);
  int alternates = 1;
  for (int i = 0; i < m.norder; ++i) alternates &= m.order[i] == ((i / 2) % 2 ? !(i % 2) : i % 2);
  CHECK(alternates, "the order is A B, B A, A B, ... (built-in first in even pairs)");
  /* enough() is not asked before MIN_PAIRS */
  m = (machine){.rng = 99, .ratio = 1.5, .enough_at = 1};
  CHECK(run(&m, 3).pairs == CLFORGE__CONFIRM_MIN_PAIRS, "at least MIN_PAIRS pairs");
  m = (machine){.rng = 99, .ratio = 1.5, .enough_at = 1000};
  CHECK(run(&m, 3).pairs == CLFORGE__CONFIRM_MAX_PAIRS, "at most MAX_PAIRS pairs");
  /* The budget spent after 3 pairs: the built-in choice stands. */
  m = (machine){.rng = 99, .ratio = 3, .enough_at = PAIRS, .stop_after = 3};
  r = run(&m, 3);
  CHECK(r.pairs == 3 && !r.accepted, "stopped after %d pairs, accepted %d", r.pairs, r.accepted);
  /* ... spent after MIN_PAIRS: those pairs decide. */
  m = (machine){.rng = 99, .ratio = 3, .enough_at = PAIRS, .stop_after = CLFORGE__CONFIRM_MIN_PAIRS};
  r = run(&m, 3);
  CHECK(r.pairs == CLFORGE__CONFIRM_MIN_PAIRS && r.accepted, "stopped after %d pairs of 3x, accepted %d", r.pairs,
        r.accepted);
  /* A candidate whose run fails is not kept, however fast before. */
  m = (machine){.rng = 99, .ratio = 3, .enough_at = PAIRS, .fail_call = 2 * CLFORGE__CONFIRM_MIN_PAIRS + 2};
  r = run(&m, 3);
  CHECK(!r.accepted && r.pairs == CLFORGE__CONFIRM_MIN_PAIRS, "failed burst: %d pairs, accepted %d", r.pairs,
        r.accepted);
  m = (machine){.rng = 99, .ratio = 3, .enough_at = PAIRS, .stop_after = 0};
  CHECK(run(&m, 3).accepted, "3x without trouble is kept");
}

int main(void) {
  statistics();
  pairing();
  double old_equal, old_faster, old_slower;
  const double equal = acceptance(1.0, &old_equal), faster = acceptance(1.3, &old_faster),
               slower = acceptance(0.8, &old_slower), near = acceptance(1.04, NULL);
  printf("kept over %d seeds (paired, %d pairs; one measurement each, 10 %% margin): true 1.0x %.3f (%.3f), 1.04x %.3f, "
         "1.3x %.3f (%.3f), 0.8x %.3f (%.3f)\n",
         SEEDS, PAIRS, equal, old_equal, near, faster, old_faster, slower, old_slower);
  CHECK(equal < 0.05, "an equal candidate kept in %.1f %% of the seeds", 100 * equal);
  CHECK(near < 0.2, "a 1.04x candidate kept in %.1f %% of the seeds", 100 * near);
  CHECK(faster > 0.8, "a 1.3x candidate kept in only %.1f %% of the seeds", 100 * faster);
  CHECK(slower == 0, "a 0.8x candidate kept in %.1f %% of the seeds", 100 * slower);
  return tu_summary();
}
