/* `clforge bench conv`'s peers on a case: CLBlast's convgemm on the same
 * queue and buffers and oneDNN on the host, each timed and its whole
 * result checked against clforge's (or the CPU reference). */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "conv_bench_parts.h"
#include "data.h"
#include "peers.h"

static int enqueue_clblast(void *user, cl_command_queue queue) {
  conv_case *c = user;
  return clforge_bench_clblast_conv(queue, &c->s, c->dtype, c->x, c->w, c->y);
}

static void run_onednn(void *user) {
  conv_case *c = user;
  clforge_bench_onednn_conv_run(c->onednn);
}

/* A peer's result against clforge's first correct one; without one, against
 * the CPU reference (whole when small, sampled when not). A mismatch nulls
 * the peer's numbers. */
static void check_peer(clforge_bench_peer_result *p, conv_case *c, const float *got, const float *want) {
  if (!p->ok) return;
  char why[400] = "";
  const double tol = clforge_bench_conv_peer_tolerance(c->dtype);
  const double macs = clforge_bench_conv_flops(&c->s) / 2;
  int wrong = 0;
  if (want) {
    wrong = clforge_bench_peer_differs(p, got, want, clforge_bench_conv_out_elems(c), tol, clforge_bench_conv_out_name(c));
  } else if (macs <= REF_FULL_MACS) {
    if (!clforge_bench_conv_ensure_ref(c)) {
      snprintf(why, sizeof why, "no clforge result, and the CPU reference failed: %s", clforge_last_error(NULL));
    } else {
      double d = clforge_bench_max_rel_diff(got, c->ref, clforge_bench_conv_out_elems(c));
      if (!(d < tol))
        snprintf(why, sizeof why,
                 "its result differs from clforge_ref_conv2d's (max |difference| = %.3g of max |y|, tolerance %.0e)", d,
                 tol);
      else snprintf(p->note, sizeof p->note, "checked against clforge_ref_conv2d (no clforge result to compare with)");
    }
  } else {
    char spot[400];
    if (clforge_bench_conv_spot_check(c, got, c->dtype == CLFORGE_F16 ? 2e-2 : 1e-4, spot, sizeof spot))
      snprintf(why, sizeof why, "%s", spot);
    else
      snprintf(p->note, sizeof p->note,
               "checked at %d sampled outputs against double sums (no clforge result to compare with)", SPOT_SAMPLES);
  }
  if (why[0]) {
    p->ok = 0;
    snprintf(p->note, sizeof p->note, "not reported: %s", why);
    wrong = 1;
  }
  if (wrong)
    clforge_bench_warn(&c->env->s, "%s n=%zu %s %s: %s %s", c->layer, c->s.n, clforge_dtype_name(c->dtype),
                       clforge_bench_conv_layout_name(c->layout), p->name, p->note);
}

void clforge_bench_conv_measure_clblast(conv_case *c, clforge_bench_peer_result *p, const float *want, float *scratch) {
  bench_env *env = c->env;
  const char *why = "";
  if (c->pass != CLFORGE_CONV_FORWARD) {
    snprintf(p->note, sizeof p->note, "n/a: CLBlast has no backward convolution");
    return;
  }
  if (!clforge_bench_clblast_conv_supported(&c->s, c->dtype, c->layout, env->s.info.caps, &why)) {
    snprintf(p->note, sizeof p->note, "n/a: %s", why);
    return;
  }
  clforge_bench_conv_progress(env, c, "clblast");
  const char *fn = c->dtype == CLFORGE_F16 ? "CLBlastHconvgemm" : "CLBlastSconvgemm";
  cl_int pe = clforge_bench_conv_poison_out(c);
  if (pe != CL_SUCCESS) {
    snprintf(p->note, sizeof p->note, "clEnqueueFillBuffer of y failed (%s)", clforge_status_name(pe));
    return;
  }
  clforge_bench_timing t;
  const char *where = "";
  int rc = clforge_bench_conv_time_device(env, enqueue_clblast, c, &t, &where);
  if (rc != 0) {
    snprintf(p->note, sizeof p->note, "%s failed: %s", strcmp(where, "the operation") ? where : fn,
             clforge_bench_clblast_status_name(rc));
    clforge_bench_warn(&env->s, "%s n=%zu %s: clblast: %s", c->layer, c->s.n, clforge_dtype_name(c->dtype), p->note);
    clFinish(env->s.queue);
    return;
  }
  clforge_bench_peer_timed(p, &t, clforge_bench_conv_flops(&c->s));
  clforge_bench_timing_free(&t);
  char err[256];
  if (p->ok && clforge_bench_conv_read_out(c, scratch, err, sizeof err)) {
    p->ok = 0;
    snprintf(p->note, sizeof p->note, "%s", err);
    return;
  }
  check_peer(p, c, scratch, want);
}

void clforge_bench_conv_measure_onednn(conv_case *c, clforge_bench_peer_result *p, const float *want, float *scratch) {
  bench_env *env = c->env;
  const char *why = "";
  if (!clforge_bench_onednn_available(&why)) {
    snprintf(p->note, sizeof p->note, "%s", why);
    return;
  }
  if (c->dtype != CLFORGE_F32 && !env->o->nnetworks) {
    snprintf(p->note, sizeof p->note, "n/a: the oneDNN peer runs f32 only");
    return;
  }
  clforge_bench_conv_progress(env, c, "onednn");
  char err[256];
  const float *a = c->pass == CLFORGE_CONV_BACKWARD_DATA ? c->y32 : c->x32,
              *b = c->pass == CLFORGE_CONV_BACKWARD_FILTER ? c->y32 : c->w32;
  if (clforge_bench_onednn_conv_create(&c->s, c->pass, a, b, &c->onednn, err, sizeof err)) {
    snprintf(p->note, sizeof p->note, "%s", err);
    clforge_bench_warn(&env->s, "%s n=%zu: onednn: %s", c->layer, c->s.n, err);
    return;
  }
  clforge_bench_timing t;
  if (clforge_bench_conv_time_host(env, run_onednn, c, &t)) {
    snprintf(p->note, sizeof p->note, "out of host memory");
    return;
  }
  clforge_bench_peer_timed(p, &t, clforge_bench_conv_flops(&c->s));
  clforge_bench_timing_free(&t);
  /* OpenMP's worker threads spin for a while after a parallel region and
   * would take a core from the next case's clforge runs: wait them out. */
  struct timespec settle = {0, 250 * 1000 * 1000};
  nanosleep(&settle, NULL);
  if (p->ok && clforge_bench_onednn_conv_result(c->onednn, scratch, err, sizeof err)) {
    p->ok = 0;
    snprintf(p->note, sizeof p->note, "%s", err);
    return;
  }
  check_peer(p, c, scratch, want);
  const char *impl = clforge_bench_onednn_conv_impl(c->onednn);
  if (p->ok && impl[0]) { /* which kernel oneDNN chose, then how its result was checked */
    char note[2 * sizeof p->note];
    snprintf(note, sizeof note, "oneDNN's %s%s%s", impl, p->note[0] ? "; " : "", p->note);
    size_t len = strlen(note);
    if (len >= sizeof p->note) len = sizeof p->note - 1;
    memcpy(p->note, note, len);
    p->note[len] = '\0';
  }
}
