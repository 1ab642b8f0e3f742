/* clforge_gemm: checks, the plan (the packed path for large problems;
 * else the tiled kernel on the full tiles and the direct kernel on the
 * edges or on the whole of a small problem), enqueue, and validation
 * against clforge_ref_gemm. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../core/compute_type.h"
#include "../core/context.h"
#include "../core/error.h"
#include "../desc/gemm_desc.h"
#include "../families/families.h"
#include "../core/program.h"
#include "../core/validate.h"
#include "../providers/clblast_gemm.h"
#include "buffer_check.h"
#include "gemm_bias_grad.h"
#include "gemm_launch.h"
#include "op_call.h"

/* Below this many multiply-adds the direct kernel does the whole problem:
 * the tiled kernel's edges and launch overhead would dominate. */
#define DIRECT_BELOW_MNK (128.0 * 128.0 * 128.0)

/* Untuned, CPU devices take the packed path for shapes that are not skinny,
 * of at least PACKED_FROM_MNK multiply-adds, where both m and n are at least
 * PACKED_FROM_MN (packing costs (m + n) k against m n k) or A and B together
 * exceed PACKED_FROM_BYTES as f32 (more than a last-level cache holds: the
 * tiled kernel then streams them from memory). Measured on PoCL on a 32 MiB
 * L3 (docs/performance.md). */
#define PACKED_FROM_MNK (768.0 * 768.0 * 768.0)
#define PACKED_FROM_MN 768
#define PACKED_FROM_BYTES (32.0 * 1024 * 1024)
/* ... and, with B transposed, from this many rows of C (below, a row or
 * two, the pack's pass over B costs what the product does). */
#define PACKED_TRANS_B_FROM_M 16
/* ... and from this many multiply-adds where m or n is not a multiple of
 * the tiled kernel's tile: the tiled path leaves the ragged strip to the
 * direct kernel, whose vectors along n then run mostly masked
 * (docs/performance.md), skinny classes too
 * (from 16 rows and columns, as with B transposed). The packed path does
 * its edges itself. */
#define PACKED_RAGGED_FROM_MNK (256.0 * 256.0 * 256.0)

typedef enum { PATH_AUTO, PATH_TILED, PATH_DIRECT, PATH_PACKED } gemm_path;
static const char *const path_names[] = {"auto", "tiled", "direct", "packed"};

/* CLFORGE_GEMM_PATH=auto|tiled|direct|packed: force a path (benchmarks,
 * debugging). "tiled" still leaves the edges to the direct kernel. */
static clforge_status read_path(clforge_context ctx, gemm_path *path) {
  const char *v = ctx->tuning_active ? NULL : getenv("CLFORGE_GEMM_PATH"); /* the tuner times the real plan */
  *path = PATH_AUTO;
  if (!v || !*v || !strcasecmp(v, "auto")) return CLFORGE_SUCCESS;
  if (!strcasecmp(v, "tiled")) *path = PATH_TILED;
  else if (!strcasecmp(v, "direct")) *path = PATH_DIRECT;
  else if (!strcasecmp(v, "packed")) *path = PATH_PACKED;
  else
    return clforge__fail(ctx, CLFORGE_INVALID_ENVIRONMENT, "CLFORGE_GEMM_PATH=\"%s\": use auto, tiled, direct or packed",
                         v);
  return CLFORGE_SUCCESS;
}

static clforge_status check_operand(clforge_context ctx, const clforge__gemm_operand *o, cl_mem buf, int access) {
  if (o->extent == o->offset) return CLFORGE_SUCCESS; /* not read or written */
  return clforge__check_buffer(ctx, "gemm", o->name, buf, o->offset, o->extent - o->offset,
                               clforge__gemm_operand_es(o), access);
}

/* An operand's footprint located in its root buffer (a sub-buffer is its
 * parent plus CL_MEM_OFFSET), so that aliasing is seen through views. */
static clforge_status root_footprint(clforge_context ctx, const clforge__gemm_operand *o, cl_mem buf, size_t batch,
                                     cl_mem *root, clforge__footprint *f) {
  *f = clforge__gemm_footprint(o, batch);
  clforge__byte_range r;
  clforge_status st = clforge__buffer_range(ctx, buf, f->begin, 0, &r);
  *root = r.root;
  f->begin = r.begin;
  return st;
}

/* C must not share an element with what is read while C is written. Decided
 * by the elements each operand touches (clforge__footprints_overlap), so
 * operands side by side in one buffer pass. */
static clforge_status check_aliasing(clforge_context ctx, const clforge__gemm *g, const clforge__gemm_buffers *bf) {
  const clforge__gemm_operand *in[3] = {&g->a, &g->b, &g->bias};
  const cl_mem inb[3] = {bf->a, bf->b, bf->bias};
  cl_mem croot, root;
  clforge__footprint cf, f;
  clforge_status st = root_footprint(ctx, &g->c, bf->c, g->batch, &croot, &cf);
  for (int i = 0; i < 3 && st == CLFORGE_SUCCESS; ++i) {
    if (in[i]->extent == in[i]->offset) continue;
    st = root_footprint(ctx, in[i], inb[i], g->batch, &root, &f);
    if (st == CLFORGE_SUCCESS && root == croot && clforge__footprints_overlap(&cf, &f))
      return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "gemm: c overlaps %s (they share elements in one buffer)",
                           in[i]->name);
  }
  return st;
}

clforge_status clforge__gemm_check_buffers(clforge_context ctx, const clforge__gemm *g, const clforge__gemm_buffers *bf) {
  const int bias_grad = g->aux_mode == CLFORGE_GEMM_AUX_BACKWARD && g->bias_mode;
  clforge_status st = check_operand(ctx, &g->a, bf->a, CLFORGE_ACCESS_READ);
  if (st == CLFORGE_SUCCESS) st = check_operand(ctx, &g->b, bf->b, CLFORGE_ACCESS_READ);
  if (st == CLFORGE_SUCCESS)
    st = check_operand(ctx, &g->c, bf->c, CLFORGE_ACCESS_WRITE | (g->beta != 0.0f ? CLFORGE_ACCESS_READ : 0));
  if (st == CLFORGE_SUCCESS)
    st = check_operand(ctx, &g->bias, bf->bias, bias_grad ? CLFORGE_ACCESS_WRITE : CLFORGE_ACCESS_READ);
  return st == CLFORGE_SUCCESS ? check_aliasing(ctx, g, bf) : st;
}

static clforge_status enqueue_tiled(clforge_context ctx, const clforge__gemm *g, const clforge__gemm_buffers *bf,
                                    const int *v, size_t m0, size_t n0, cl_uint nwait, const cl_event *wait,
                                    cl_event *ev) {
  cl_kernel kern;
  size_t mdim = (size_t)(v[GEMM_MWG] / v[GEMM_MWI]), ndim = (size_t)(v[GEMM_NWG] / v[GEMM_NWI]);
  clforge_status st =
      clforge__gemm_kernel(ctx, &clforge__family_gemm, clforge__family_gemm.kernel, v, g, mdim * ndim, &kern);
  if (st != CLFORGE_SUCCESS) return st;
  if (clforge__gemm_set_shared_args(kern, 0, g, bf) != CL_SUCCESS)
    return clforge__fail(ctx, CLFORGE_INTERNAL_ERROR, "gemm: setting the tiled kernel's arguments failed");
  size_t local[3] = {ndim, mdim, 1};
  size_t global[3] = {n0 / (size_t)v[GEMM_NWG] * ndim, m0 / (size_t)v[GEMM_MWG] * mdim, g->batch};
  return clforge__launch(ctx, kern, 3, global, local, nwait, wait, ev, "clEnqueueNDRangeKernel (gemm tiled)");
}

static clforge_status enqueue_direct(clforge_context ctx, const clforge__gemm *g, const clforge__gemm_buffers *bf,
                                     const int *v, size_t row0, size_t col0, size_t rows, size_t cols, cl_uint nwait,
                                     const cl_event *wait, cl_event *ev) {
  cl_kernel kern;
  size_t mdim = (size_t)v[GEMMD_MDIM], ndim = (size_t)v[GEMMD_NDIM];
  clforge_status st = clforge__gemm_kernel(ctx, &clforge__family_gemm_direct, clforge__family_gemm_direct.kernel, v, g,
                                           mdim * ndim, &kern);
  if (st != CLFORGE_SUCCESS) return st;
  cl_uint region[4] = {(cl_uint)row0, (cl_uint)col0, (cl_uint)rows, (cl_uint)cols};
  cl_int err = CL_SUCCESS;
  for (cl_uint i = 0; i < 4; ++i) err |= clSetKernelArg(kern, i, sizeof region[i], &region[i]);
  if (err != CL_SUCCESS || clforge__gemm_set_shared_args(kern, 4, g, bf) != CL_SUCCESS)
    return clforge__fail(ctx, CLFORGE_INTERNAL_ERROR, "gemm: setting the direct kernel's arguments failed");
  size_t tile_m = mdim * (size_t)v[GEMMD_MWI], tile_n = ndim * (size_t)v[GEMMD_NWI] * (size_t)v[GEMMD_VW];
  size_t local[3] = {ndim, mdim, 1};
  size_t global[3] = {(cols + tile_n - 1) / tile_n * ndim, (rows + tile_m - 1) / tile_m * mdim, g->batch};
  return clforge__launch(ctx, kern, 3, global, local, nwait, wait, ev, "clEnqueueNDRangeKernel (gemm direct)");
}

/* What a call runs: CLBlast for the whole call, the packed path for the
 * whole call, or the tiled kernel on the full tiles and the direct kernel
 * on the rest (or on everything). */
typedef struct {
  int q8_0;                      /* q8_0 weights: the gemm_q8_0 family (vt, ct) runs the call */
  int clblast, packed;
  int tiled, direct;
  size_t m0, n0;                 /* extent of the tiled part */
  int vt[CLFORGE_MAX_PARAMS], vd[CLFORGE_MAX_PARAMS], vp[CLFORGE_MAX_PARAMS];
  clforge_kernel_choice ct, cd, cp; /* where vt, vd and vp come from */
} gemm_plan;

int clforge__gemm_heuristic_packed(clforge_context ctx, size_t m, size_t n, size_t k, int trans_b, size_t mwg,
                                   size_t nwg, char *why, size_t cap) {
  const double operands = 4.0 * (double)k * ((double)m + (double)n), mnk = (double)m * (double)n * (double)k;
  const int big = mnk >= PACKED_FROM_MNK;
  const int wide = m >= PACKED_FROM_MN && n >= PACKED_FROM_MN, spills = operands > PACKED_FROM_BYTES;
  const int cpu = ctx->info.device_class == CLFORGE_DEVICE_CLASS_CPU;
  const int skinny = !strncmp(clforge__gemm_shape_class(m, n, k), "skinny", 6);
  /* A transposed B: the tiled and direct kernels' vectors run along n, so
   * each is a gather of VW rows of B; the pack reads B once in order
   * (1x1 convolutions in NHWC are such products). */
  const int gathers = cpu && trans_b && m >= PACKED_TRANS_B_FROM_M && mnk >= DIRECT_BELOW_MNK;
  const int ragged = cpu && m >= PACKED_TRANS_B_FROM_M && n >= PACKED_TRANS_B_FROM_M && mwg && nwg &&
                     (m % mwg || n % nwg) && mnk >= PACKED_RAGGED_FROM_MNK;
  const int packed = gathers || ragged || (cpu && !skinny && big && (wide || spills));
  if (!why) return packed;
  if (gathers)
    snprintf(why, cap, "heuristic: CPU, B transposed (m >= %d): packed", PACKED_TRANS_B_FROM_M);
  else if (ragged)
    snprintf(why, cap, "heuristic: CPU, >= 256^3, ragged edge: packed");
  else if (packed)
    snprintf(why, cap, "heuristic: CPU, >= 768^3, %s", wide ? "m and n >= 768" : "A+B > 32 MiB");
  else
    snprintf(why, cap, "heuristic: %s", !cpu ? "not a CPU: tiled" : skinny ? "skinny: tiled" : !big ? "below 768^3: tiled"
                                                                                       : "m or n < 768, A+B fit L3");
  return packed;
}

/* A family's clforge rate in the call's class, as the tuning file measured
 * it: 0 when unknown (no entry of this class, or CLBlast won there: the
 * entry then holds CLBlast's rate). */
static double clforge_rate(const clforge_kernel_choice *c) {
  return c->source == CLFORGE_PARAMS_FROM_TUNED && !strcmp(c->provider, "clforge") ? c->tuned_gflops : 0.0;
}

static int names_clblast(const clforge_kernel_choice *c) {
  return c->source == CLFORGE_PARAMS_FROM_TUNED && !strcmp(c->provider, "clblast");
}

/* Packed or not, and whether CLBlast runs the call (*peer), for the
 * automatic path (docs/tuning.md, "Which path"):
 * 1. the tuner's family, when it is measuring one;
 * 2. an override of one family's parameters asks for that family;
 * 3. the tuning file, but only where it measured what the call runs
 *    without it: the heuristic's route H (4.) must have an entry of the
 *    call's class; then the fastest measured of H, the other route and
 *    CLBlast (where an entry of the class says CLBlast won and CLBlast can
 *    compute the call) runs, H unless another beat it by the margin
 *    (CLFORGE__TUNED_MARGIN). An entry CLBlast won gives no clforge rate: a
 *    route whose entry it is does not compete by rate (CLBlast beat it);
 * 4. else the heuristic: packed on CPUs for big shapes that are not skinny
 *    (PACKED_FROM_* above); below 128^3 the direct kernel, so H is then
 *    gemm_direct's entry. Where only the other route was tuned (a tune cut
 *    short) nothing measured says it beats H: H runs, and uses its own
 *    family's entry (nearest) if it has one. */
static int choose_route(clforge_context ctx, const clforge__gemm *g, const gemm_plan *p,
                        const clforge_kernel_choice **peer, char *why, size_t cap) {
  *peer = NULL;
  const clforge__family *tuning = ctx->tuning_active ? ctx->tune_force.path : NULL;
  /* A convolution family being tuned runs GEMM inside: its GEMMs take the
   * usual route. */
  if (tuning && tuning != &clforge__family_gemm && tuning != &clforge__family_gemm_packed &&
      tuning != &clforge__family_gemm_direct)
    tuning = NULL;
  if (tuning) {
    snprintf(why, cap, "tuner: measuring %s", tuning->name);
    return tuning == &clforge__family_gemm_packed;
  }
  const int forced_t = p->ct.source == CLFORGE_PARAMS_FROM_API || p->ct.source == CLFORGE_PARAMS_FROM_ENV;
  const int forced_p = p->cp.source == CLFORGE_PARAMS_FROM_API || p->cp.source == CLFORGE_PARAMS_FROM_ENV;
  if (forced_t != forced_p) {
    snprintf(why, cap, "override names %s only", forced_p ? "gemm_packed" : "gemm");
    return forced_p;
  }
  char rule[64];
  const int heur = clforge__gemm_heuristic_packed(ctx, g->m, g->n, g->k, g->b.trans, (size_t)p->vt[GEMM_MWG],
                                                  (size_t)p->vt[GEMM_NWG], rule, sizeof rule);
  const int small = (double)g->m * (double)g->n * (double)g->k < DIRECT_BELOW_MNK;
  const clforge_kernel_choice *h = small ? &p->cd : heur ? &p->cp : &p->ct, *o = small ? NULL : heur ? &p->ct : &p->cp;
  const char *hn = small ? "direct" : heur ? "packed" : "tiled", *on = heur ? "tiled" : "packed";
  snprintf(why, cap, "%.47s", rule);
  if (h->source != CLFORGE_PARAMS_FROM_TUNED) { /* H not measured in this class */
    if (o && o->source == CLFORGE_PARAMS_FROM_TUNED) snprintf(why, cap, "heuristic: %s (only %s is tuned)", hn, on);
    return heur;
  }
  const int eligible = clforge__clblast_gemm_eligible(g);
  if (names_clblast(h)) { /* CLBlast beat H's kernels in this class */
    if (eligible) *peer = h, snprintf(why, cap, "tuned: CLBlast beat %s here", hn);
    return heur;
  }
  const clforge_kernel_choice *all[3] = {&p->ct, &p->cd, &p->cp};
  double rp = 0; /* CLBlast's best measured rate in this class */
  for (int i = 0; i < 3 && eligible; ++i)
    if (names_clblast(all[i]) && all[i]->tuned_gflops > rp) rp = all[i]->tuned_gflops, *peer = all[i];
  const double rh = h->tuned_gflops, ro = o ? clforge_rate(o) : 0.0;
  const int other = ro > rh * CLFORGE__TUNED_MARGIN;
  const double best = other ? ro : rh;
  const char *bn = other ? on : hn;
  if (*peer && rp > best * CLFORGE__TUNED_MARGIN) {
    snprintf(why, cap, "tuned: CLBlast %.0f > %s %.0f GFLOP/s", rp, bn, best);
    return heur;
  }
  /* else H alone was measured: the heuristic's rule stands as the reason */
  if (*peer && rp > ro)
    snprintf(why, cap, rp > best ? "tuned: %s %.0f ~ CLBlast %.0f (within " CLFORGE__TUNED_MARGIN_TEXT "%%)" : "tuned: %s %.0f > CLBlast %.0f GFLOP/s",
             bn, best, rp);
  else if (other)
    snprintf(why, cap, "tuned: %s %.0f > %s %.0f GFLOP/s", on, ro, hn, rh);
  else if (ro > 0)
    snprintf(why, cap, ro > rh ? "tuned: %s %.0f ~ %s %.0f (within " CLFORGE__TUNED_MARGIN_TEXT "%%)" : "tuned: %s %.0f > %s %.0f GFLOP/s", hn, rh, on,
             ro);
  *peer = NULL;
  return other ? !heur : heur;
}

/* The tuning key of g: storage types of a, b, c and the transposes, in the
 * row-major view the kernels see; the shape class and the shape. */
static void gemm_key(const clforge__gemm *g, clforge__problem_key *key, char *dtypes, size_t cap, char *layout) {
  snprintf(dtypes, cap, "%s,%s,%s", clforge_dtype_name(g->a.type), clforge_dtype_name(g->b.type),
           clforge_dtype_name(g->c.type));
  layout[0] = g->a.trans ? 't' : 'n';
  layout[1] = g->b.trans ? 't' : 'n';
  layout[2] = '\0';
  key->dtypes = dtypes;
  key->layout = layout;
  key->shape_class = clforge__gemm_shape_class(g->m, g->n, g->k);
  key->ndims = 3;
  key->shape[0] = g->m, key->shape[1] = g->n, key->shape[2] = g->k, key->shape[3] = 0;
  key->compute_type = g->compute_type; /* its half variants' entries first (src/families/family.c) */
}

/* A gated call stores its column pairs from one work-item's vector: the
 * tiled and direct kernels need an even VW (the packed kernel's are). A VW
 * of 1 becomes 2 where the tile allows it; a tiled tile of one column
 * (NWI 1) leaves the tiled path out (*no_tiled). */
static void gate_vectors(const clforge__gemm *g, gemm_plan *p, int *no_tiled) {
  *no_tiled = 0;
  if (!g->gate) return;
  if (p->vd[GEMMD_VW] % 2) p->vd[GEMMD_VW] = p->cd.values[GEMMD_VW] = 2;
  if (p->vt[GEMM_VW] % 2 && p->vt[GEMM_NWI] % 2 == 0) p->vt[GEMM_VW] = p->ct.values[GEMM_VW] = 2;
  *no_tiled = p->vt[GEMM_VW] % 2;
}

/* The tiled kernel on the full tiles and the direct kernel on the edge
 * strips, or the direct kernel on everything (small, k = 0, or forced). */
static void plan_tiled(const clforge__gemm *g, gemm_plan *p, gemm_path path, int no_tiled, char *why, size_t cap) {
  p->m0 = g->m - g->m % (size_t)p->vt[GEMM_MWG];
  p->n0 = g->n - g->n % (size_t)p->vt[GEMM_NWG];
  p->tiled = p->m0 && p->n0 && g->k && path != PATH_DIRECT && !no_tiled &&
             (path == PATH_TILED || (double)g->m * (double)g->n * (double)g->k >= DIRECT_BELOW_MNK);
  if (!p->tiled) p->m0 = p->n0 = 0;
  p->direct = p->m0 < g->m || (p->tiled && p->n0 < g->n);
  if (!p->tiled && path == PATH_AUTO)
    snprintf(why, cap, no_tiled ? "gated, tiled VW odd: direct" : "small (< 128^3 or < one tile) or k = 0: direct");
}

static clforge_status make_plan(clforge_context ctx, const clforge__gemm *g, gemm_plan *p) {
  gemm_path path;
  char dtypes[32], layout[4];
  clforge__problem_key key;
  memset(p, 0, sizeof *p);
  if (g->b.type == CLFORGE_Q8_0) {
    p->q8_0 = 1;
    return clforge__gemm_q8_0_select(ctx, g, p->vt, &p->ct);
  }
  gemm_key(g, &key, dtypes, sizeof dtypes, layout);
  clforge_status st = read_path(ctx, &path);
  if (g->route) path = (gemm_path)g->route; /* an op running GEMM inside chose the path */
  const int variant = clforge__gemm_variant(g->a.trans, g->b.trans, g->a.type, g->b.type, g->n);
  if (st == CLFORGE_SUCCESS) st = clforge__family_select(ctx, &clforge__family_gemm, variant, &key, p->vt, &p->ct);
  if (st == CLFORGE_SUCCESS)
    st = clforge__family_select(ctx, &clforge__family_gemm_direct, variant, &key, p->vd, &p->cd);
  if (st != CLFORGE_SUCCESS) return st;
  clforge__gate_half(ctx, g->compute_type, p->vt, GEMM_HALF, &p->ct); /* the arithmetic the call allows */
  clforge__gate_half(ctx, g->compute_type, p->vd, GEMMD_HALF, &p->cd);
  int no_tiled;
  gate_vectors(g, p, &no_tiled);
  /* The packed family only matters where the route can be packed: a bad
   * gemm_packed override, or a device its defaults do not fit, fails the
   * calls that would pack, not every GEMM. */
  int packable = 1;
  char why[sizeof p->ct.route] = "";
  const clforge_kernel_choice *peer = NULL;
  clforge_status sp = clforge__family_select(ctx, &clforge__family_gemm_packed, variant, &key, p->vp, &p->cp);
  p->cp.compute_type = CLFORGE_COMPUTE_32F; /* the packed kernels have no half variant */
  if (sp != CLFORGE_SUCCESS) {
    memset(&p->cp, 0, sizeof p->cp);
    if (path == PATH_PACKED || (path == PATH_AUTO && choose_route(ctx, g, p, &peer, why, sizeof why))) return sp;
    clforge__clear_error(ctx);
    packable = 0;
  }
  /* The tuner timing CLBlast on this problem: it runs the whole call. */
  clforge_kernel_choice *all[3] = {&p->ct, &p->cd, &p->cp};
  const clforge_kernel_choice *timing = NULL;
  for (int i = 0; i < 3 && !timing; ++i)
    if (!strcmp(all[i]->provider, "clblast") && all[i]->source == CLFORGE_PARAMS_FROM_TUNER) timing = all[i];
  if (timing && !(clforge__clblast_gemm_eligible(g) && path == PATH_AUTO))
    return clforge__fail(ctx, CLFORGE_UNSUPPORTED, "gemm: CLBlast cannot run %s (f32 without bias or activation only)",
                         dtypes);
  if (path != PATH_AUTO) snprintf(why, sizeof why, "CLFORGE_GEMM_PATH=%s", path_names[path]);
  const int want_packed = path == PATH_PACKED || (path == PATH_AUTO && choose_route(ctx, g, p, &peer, why, sizeof why));
  if (timing) peer = timing, snprintf(why, sizeof why, "tuner: measuring CLBlast");
  if (peer && path == PATH_AUTO) { /* CLBlast runs the whole call */
    p->clblast = 1;
    p->ct = *peer;
    memcpy(p->ct.route, why, sizeof why);
    return CLFORGE_SUCCESS;
  }
  /* Our kernels run the call: an entry CLBlast won still gives them its
   * clforge parameters. */
  for (int i = 0; i < 3; ++i)
    if (!strcmp(all[i]->provider, "clblast")) snprintf(all[i]->provider, sizeof all[i]->provider, "clforge");
  /* The packed path does the whole call, edges included; its panels must
   * fit the workspace (one MC x NC block at least), else the tiled path. */
  p->packed = packable && want_packed;
  if (!packable && path == PATH_AUTO) snprintf(why, sizeof why, "packed parameters unusable here: tiled");
  if (p->packed && !clforge__gemm_packed_fits(ctx, g, p->vp)) {
    /* The tuner measuring the packed family must not time the tiled route
     * under its name. */
    if (ctx->tuning_active && ctx->tune_force.path == &clforge__family_gemm_packed)
      return clforge__fail(ctx, CLFORGE_UNSUPPORTED, "gemm: the packed panels of this problem exceed the workspace");
    p->packed = 0;
    snprintf(why, sizeof why, "packed panels exceed the workspace: tiled");
  }
  if (!p->packed) plan_tiled(g, p, path, no_tiled, why, sizeof why);
  memcpy(p->ct.route, why, sizeof why);
  memcpy(p->cd.route, why, sizeof why);
  memcpy(p->cp.route, why, sizeof why);
  return CLFORGE_SUCCESS;
}

/* Up to three launches over disjoint parts of C; each waits on the caller's
 * list, and one marker joins them when an event is wanted (an out-of-order
 * queue may run them concurrently). */
static clforge_status enqueue_plan(clforge_context ctx, const clforge__gemm *g, const clforge__gemm_buffers *bf,
                                   cl_uint nwait, const cl_event *wait, cl_event *event) {
  gemm_plan p;
  clforge_status st = make_plan(ctx, g, &p);
  if (st != CLFORGE_SUCCESS) return st;
  if (p.q8_0) return clforge__gemm_q8_0_enqueue(ctx, g, bf, p.vt, nwait, wait, event);
  if (p.clblast) return clforge__clblast_gemm(ctx, g, bf->a, bf->b, bf->c, nwait, wait, event);
  if (p.packed) return clforge__gemm_packed_enqueue(ctx, g, bf, p.vp, nwait, wait, event);
  const int *vt = p.vt, *vd = p.vd;
  const size_t m0 = p.m0, n0 = p.n0;
  const int tiled = p.tiled;

  /* Build and check every kernel the plan needs before the first launch, so
   * that a failure (build, work-group limit) leaves C untouched. The enqueue
   * functions below then find them in the context's cache. */
  cl_kernel kern;
  if (tiled)
    st = clforge__gemm_kernel(ctx, &clforge__family_gemm, clforge__family_gemm.kernel, vt, g,
                    (size_t)(vt[GEMM_MWG] / vt[GEMM_MWI]) * (size_t)(vt[GEMM_NWG] / vt[GEMM_NWI]), &kern);
  if (st == CLFORGE_SUCCESS && p.direct)
    st = clforge__gemm_kernel(ctx, &clforge__family_gemm_direct, clforge__family_gemm_direct.kernel, vd, g,
                              (size_t)vd[GEMMD_MDIM] * (size_t)vd[GEMMD_NDIM], &kern);
  if (st != CLFORGE_SUCCESS) return st;

  cl_event evs[3];
  cl_uint nev = 0;
  cl_event *want = event ? &evs[0] : NULL;
  if (tiled) {
    st = enqueue_tiled(ctx, g, bf, vt, m0, n0, nwait, wait, want ? &evs[nev] : NULL);
    nev += want && st == CLFORGE_SUCCESS;
  }
  if (st == CLFORGE_SUCCESS && m0 < g->m) { /* bottom strip, full width (or everything) */
    st = enqueue_direct(ctx, g, bf, vd, m0, 0, g->m - m0, g->n, nwait, wait, want ? &evs[nev] : NULL);
    nev += want && st == CLFORGE_SUCCESS;
  }
  if (st == CLFORGE_SUCCESS && tiled && n0 < g->n) { /* right strip beside the tiles */
    st = enqueue_direct(ctx, g, bf, vd, 0, n0, m0, g->n - n0, nwait, wait, want ? &evs[nev] : NULL);
    nev += want && st == CLFORGE_SUCCESS;
  }
  if (st == CLFORGE_SUCCESS && event) {
    if (nev == 1) {
      *event = evs[0];
      nev = 0;
    } else {
      st = clforge__call_marker(ctx, "gemm", nev, evs, event); /* one event for the parts */
    }
  }
  for (cl_uint i = 0; i < nev; ++i) clReleaseEvent(evs[i]);
  return st;
}

/* Host copies of the operands as the device sees them (whole extents). */
typedef struct {
  void *a, *b, *c, *bias, *aux;
} host_copies;

static clforge_status read_operand(clforge_context ctx, const clforge__gemm_operand *o, cl_mem buf, void **out) {
  *out = NULL;
  if (o->extent == o->offset) return CLFORGE_SUCCESS;
  size_t bytes = o->extent * clforge__gemm_operand_es(o);
  *out = malloc(bytes);
  if (!*out) return clforge__fail(ctx, CLFORGE_OUT_OF_HOST_MEMORY, "gemm validation: no memory for %s", o->name);
  return clforge__read_buffer(ctx, buf, 0, bytes, *out);
}

static void free_copies(host_copies *h) {
  free(h->a);
  free(h->b);
  free(h->c);
  free(h->bias);
  free(h->aux);
}

/* One output operand against the reference's. */
static clforge_status validate_operand(clforge_context ctx, const clforge__gemm_operand *o, cl_mem buf,
                                       const void *want, clforge__tolerance tol) {
  const size_t es = clforge_dtype_size(o->type), n = o->extent;
  void *got = malloc(n * es + 1);
  if (!got) return clforge__fail(ctx, CLFORGE_OUT_OF_HOST_MEMORY, "gemm validation: no memory for %s", o->name);
  clforge_status st = clforge__read_buffer(ctx, buf, 0, n * es, got);
  if (st == CLFORGE_SUCCESS) st = clforge__validate(ctx, "gemm", o->type, n, got, want, tol);
  free(got);
  return st;
}

/* After the device result is in: run the reference on the copies taken
 * before the launch and compare the whole C extent. */
static clforge_status validate_gemm(clforge_context ctx, const clforge_gemm_desc *desc, const clforge__gemm *g,
                                    const clforge__gemm_buffers *bf, host_copies *h) {
  clforge_status st = clforge__test_fault_apply(ctx, "gemm", bf->c, g->c.offset, g->c.type); /* tests only */
  const void *ua = g->swapped ? h->b : h->a, *ub = g->swapped ? h->a : h->b;
  if (st == CLFORGE_SUCCESS) st = clforge_ref_gemm_ex(desc, ua, ub, h->c, h->bias, h->aux);
  /* a half variant may have run where the call allows it: its compute
   * type's tolerance (docs/inference-precision.md) */
  const clforge_compute_type ran =
      (ctx->info.caps & CLFORGE_CAP_FP16) && g->b.type != CLFORGE_Q8_0 ? g->compute_type : CLFORGE_COMPUTE_32F;
  if (st == CLFORGE_SUCCESS)
    st = validate_operand(ctx, &g->c, bf->c, h->c, clforge__tolerance_for_compute(g->c.type, ran));
  if (st == CLFORGE_SUCCESS && g->aux_mode == CLFORGE_GEMM_AUX_STORE)
    st = validate_operand(ctx, &g->aux, bf->aux, h->aux, clforge__tolerance_for_compute(g->aux.type, ran));
  if (st == CLFORGE_SUCCESS && g->aux_mode == CLFORGE_GEMM_AUX_BACKWARD && g->bias_mode)
    st = validate_operand(ctx, &g->bias, bf->bias, h->bias, clforge__tolerance_for_compute(g->bias.type, ran));
  return st;
}

clforge_status clforge__sum_to_bias(clforge_context ctx, cl_mem c, clforge_dtype c_type, size_t c_off, size_t ldc,
                                    size_t stride_c, size_t m, size_t n, size_t batch, int per_row, int idx64,
                                    cl_mem bias, clforge_dtype bias_type, size_t bias_off, cl_uint nwait,
                                    const cl_event *wait, cl_event *event) {
  static const char *const sources[] = {"gemm_bias_grad", NULL};
  char opts[96];
  snprintf(opts, sizeof opts, "-DC_T=%d -DBIAS_T=%d -DIDX64=%d -DPER_ROW=%d", (int)c_type, (int)bias_type, idx64,
           per_row);
  cl_kernel k;
  clforge_status st = clforge__kernel_get(ctx, sources, opts, "clforge_gemm_bias_grad", &k);
  if (st != CLFORGE_SUCCESS) return st;
  const cl_ulong coff = c_off, cstride = stride_c, boff = bias_off;
  const cl_uint ldc_ = (cl_uint)ldc, m_ = (cl_uint)m, n_ = (cl_uint)n, batch_ = (cl_uint)batch;
  cl_uint i = 0;
  cl_int err = clSetKernelArg(k, i++, sizeof(cl_mem), &c);
  err |= clSetKernelArg(k, i++, sizeof coff, &coff);
  err |= clSetKernelArg(k, i++, sizeof ldc_, &ldc_);
  err |= clSetKernelArg(k, i++, sizeof cstride, &cstride);
  err |= clSetKernelArg(k, i++, sizeof m_, &m_);
  err |= clSetKernelArg(k, i++, sizeof n_, &n_);
  err |= clSetKernelArg(k, i++, sizeof batch_, &batch_);
  err |= clSetKernelArg(k, i++, sizeof(cl_mem), &bias);
  err |= clSetKernelArg(k, i++, sizeof boff, &boff);
  if (err != CL_SUCCESS) return clforge__fail_cl(ctx, err, "clSetKernelArg (bias gradient)");
  const size_t local = 64, global = ((per_row ? m : n) + local - 1) / local * local;
  return clforge__launch(ctx, k, 1, &global, &local, nwait, wait, event, "clEnqueueNDRangeKernel (bias gradient)");
}

/* The backward epilogue's bias gradient: C summed along the bias's axis
 * and over the batch after the GEMM (cl/gemm_bias_grad.cl). */
static clforge_status enqueue_bias_grad(clforge_context ctx, const clforge__gemm *g, cl_mem c, cl_mem bias,
                                        cl_event after, cl_event *event) {
  return clforge__sum_to_bias(ctx, c, g->c.type, g->c.offset, g->c.ld, g->c.stride, g->m, g->n, g->batch,
                              g->bias_mode == CLFORGE_BIAS_ROW, g->idx64, bias, g->bias.type, g->bias.offset,
                              after ? 1 : 0, after ? &after : NULL, event);
}

/* aux against the other operands: no shared element, but for the
 * backward's aux being C exactly (each element read before it is written). */
static clforge_status check_aux(clforge_context ctx, const clforge__gemm *g, const clforge__gemm_buffers *bf) {
  if (g->aux.extent == g->aux.offset) return CLFORGE_SUCCESS;
  cl_mem xroot, root;
  clforge__footprint xf, f;
  clforge_status st = root_footprint(ctx, &g->aux, bf->aux, g->batch, &xroot, &xf);
  const clforge__gemm_operand *other[4] = {&g->a, &g->b, &g->bias, &g->c};
  const cl_mem ob[4] = {bf->a, bf->b, bf->bias, bf->c};
  for (int i = 0; i < 4 && st == CLFORGE_SUCCESS; ++i) {
    if (other[i]->extent == other[i]->offset) continue;
    st = root_footprint(ctx, other[i], ob[i], g->batch, &root, &f);
    const int same_as_c = i == 3 && g->aux_mode == CLFORGE_GEMM_AUX_BACKWARD && root == xroot &&
                          g->aux.type == g->c.type && xf.begin == f.begin;
    if (st == CLFORGE_SUCCESS && root == xroot && !same_as_c && clforge__footprints_overlap(&xf, &f))
      return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "gemm: aux overlaps %s (they share elements in one buffer)",
                           other[i]->name);
  }
  return st;
}

clforge_status clforge_gemm(clforge_context ctx, const clforge_gemm_desc *desc, cl_mem a, cl_mem b, cl_mem c,
                            cl_mem bias, cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                            cl_event *event) {
  return clforge_gemm_ex(ctx, desc, a, b, c, bias, NULL, num_events_in_wait_list, event_wait_list, event);
}

clforge_status clforge_gemm_ex(clforge_context ctx, const clforge_gemm_desc *desc, cl_mem a, cl_mem b, cl_mem c,
                               cl_mem bias, cl_mem aux, cl_uint num_events_in_wait_list,
                               const cl_event *event_wait_list, cl_event *event) {
  clforge_status st = clforge__call_begin(ctx, "gemm", event);
  if (st != CLFORGE_SUCCESS) return st;
  clforge__gemm g;
  st = clforge__gemm_resolve(ctx, desc, &g);
  if (st != CLFORGE_SUCCESS) return st;
  st = clforge__check_wait_list(ctx, "gemm", num_events_in_wait_list, event_wait_list);
  if (st != CLFORGE_SUCCESS) return st;
  clforge__gemm_buffers bf = {g.swapped ? b : a, g.swapped ? a : b, c, bias, aux};
  const int bias_grad = g.aux_mode == CLFORGE_GEMM_AUX_BACKWARD && g.bias_mode;
  if (g.m == 0 || g.n == 0) return clforge__call_marker(ctx, "gemm", num_events_in_wait_list, event_wait_list, event);
  st = clforge__gemm_check_buffers(ctx, &g, &bf);
  if (st == CLFORGE_SUCCESS)
    st = check_operand(ctx, &g.aux, bf.aux,
                       g.aux_mode == CLFORGE_GEMM_AUX_STORE ? CLFORGE_ACCESS_WRITE : CLFORGE_ACCESS_READ);
  if (st == CLFORGE_SUCCESS) st = check_aux(ctx, &g, &bf);
  if (st != CLFORGE_SUCCESS) return st;

  host_copies h = {NULL, NULL, NULL, NULL, NULL};
  if (ctx->validate) { /* inputs as they are when the kernel will run */
    st = clforge__call_await_inputs(ctx, "gemm", num_events_in_wait_list, event_wait_list);
    if (st == CLFORGE_SUCCESS) st = read_operand(ctx, &g.a, bf.a, &h.a);
    if (st == CLFORGE_SUCCESS) st = read_operand(ctx, &g.b, bf.b, &h.b);
    if (st == CLFORGE_SUCCESS) st = read_operand(ctx, &g.c, bf.c, &h.c);
    if (st == CLFORGE_SUCCESS) st = read_operand(ctx, &g.bias, bf.bias, &h.bias);
    if (st == CLFORGE_SUCCESS) st = read_operand(ctx, &g.aux, bf.aux, &h.aux);
    if (st != CLFORGE_SUCCESS) {
      free_copies(&h);
      return st;
    }
  }
  cl_event done = NULL;
  st = enqueue_plan(ctx, &g, &bf, num_events_in_wait_list, event_wait_list,
                    (event || ctx->validate || bias_grad) ? &done : NULL);
  if (st == CLFORGE_SUCCESS && bias_grad) {
    cl_event gemm = done;
    done = NULL;
    st = enqueue_bias_grad(ctx, &g, c, bias, gemm, &done);
    clReleaseEvent(gemm);
  }
  if (st == CLFORGE_SUCCESS && ctx->validate) {
    st = clforge__call_await_done(ctx, "gemm", done);
    if (st == CLFORGE_SUCCESS) st = validate_gemm(ctx, desc, &g, &bf, &h);
  }
  free_copies(&h);
  return clforge__call_end(st, done, event);
}

clforge_status clforge__gemm_enqueue(clforge_context ctx, const clforge__gemm *g, const clforge__gemm_buffers *bf,
                                     cl_uint nwait, const cl_event *wait, cl_event *event) {
  if (g->m == 0 || g->n == 0) return clforge__call_marker(ctx, "gemm", nwait, wait, event);
  return enqueue_plan(ctx, g, bf, nwait, wait, event);
}

int clforge__gemm_explain_resolved(clforge_context ctx, const clforge__gemm *g, clforge_kernel_choice *choices,
                                   int capacity) {
  gemm_plan p;
  if (!g->m || !g->n || make_plan(ctx, g, &p) != CLFORGE_SUCCESS) return 0;
  int n = 0;
  const clforge_kernel_choice *use[2];
  if (p.packed || p.q8_0) {
    use[n++] = p.q8_0 ? &p.ct : &p.cp;
  } else {
    if (p.clblast || p.tiled) use[n++] = &p.ct;
    if (!p.clblast && p.direct) use[n++] = &p.cd;
  }
  for (int i = 0; i < n && i < capacity; ++i) choices[i] = *use[i];
  return n < capacity ? n : capacity;
}

clforge_status clforge_gemm_explain(clforge_context ctx, const clforge_gemm_desc *desc, clforge_kernel_choice *choices,
                                    int capacity, int *count) {
  clforge_status st = clforge__call_begin(ctx, "gemm_explain", NULL);
  if (st != CLFORGE_SUCCESS) return st;
  if (!count || (!choices && capacity > 0) || capacity < 0)
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT, "gemm_explain: count is NULL, or choices NULL with capacity %d",
                         capacity);
  clforge__gemm g;
  st = clforge__gemm_resolve(ctx, desc, &g);
  gemm_plan p;
  if (st == CLFORGE_SUCCESS && g.m && g.n) st = make_plan(ctx, &g, &p);
  if (st != CLFORGE_SUCCESS) return st;
  int n = 0;
  const clforge_kernel_choice *use[2];
  if (g.m && g.n && (p.packed || p.q8_0)) {
    /* the pack kernels and the micro-kernel: one family, one set of parameters */
    use[n++] = p.q8_0 ? &p.ct : &p.cp;
  } else if (g.m && g.n) {
    if (p.clblast || p.tiled) use[n++] = &p.ct;
    if (!p.clblast && p.direct) use[n++] = &p.cd;
  }
  for (int i = 0; i < n && i < capacity; ++i) choices[i] = *use[i];
  *count = n;
  return CLFORGE_SUCCESS;
}
