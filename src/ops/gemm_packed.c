/* The packed GEMM path: op(A) and op(B) packed into f32 panels in the
 * context's workspace (cl/gemm_pack.cl), then the micro-kernel
 * (cl/gemm_packed.cl). When the panels of the whole call exceed the
 * workspace bound the call is blocked: fewer batch items per pass, then
 * column blocks of C (B packed once per block) and row blocks within them. */
#include <stdio.h>
#include <stdlib.h>

#include "../core/context.h"
#include "../core/error.h"
#include "../families/families.h"
#include "../core/program.h"
#include "../core/workspace.h"
#include "gemm_launch.h"
#include "launch_chain.h"

/* The pack kernel (cl/gemm_pack.cl): k values per work-item, and work-items
 * per work-group, along k when the operand's rows run along k, else across
 * panels. A fixed work-group, so that a pack program is compiled for one
 * shape whatever the problem (a size left to the driver followed the global
 * size: a compile per problem shape on PoCL). */
enum { PK = 16, PACK_WG = 64 };
static const char *const pack_sources[] = {"gemm_base", "gemm_pack", NULL};

/* The A panels of one band of row blocks (cl/gemm_packed.cl): a few MiB,
 * so that they stay in a CPU's last-level cache with B's current panels
 * (docs/performance.md). */
#define BAND_BYTES ((size_t)4 << 20)

static size_t round_up(size_t x, size_t m) { return (x + m - 1) / m * m; }
static size_t min_size(size_t a, size_t b) { return a < b ? a : b; }

/* One pass's extent: batch items, rows of C and columns of C (multiples of
 * MC and NC, or the whole padded extent), and the packed floats per batch
 * item of A's rows and B's columns. */
typedef struct {
  size_t items, rows, cols;
  size_t a_floats, b_floats;
} blocking;

static int plan_blocks(clforge_context ctx, const clforge__gemm *g, const int *v, blocking *b) {
  const size_t mc = (size_t)v[GEMMP_MC], nc = (size_t)v[GEMMP_NC], k = g->k;
  const size_t cap = clforge__workspace_cap(ctx) / sizeof(float);
  const size_t mp = round_up(g->m, mc), np = round_up(g->n, nc), item = (mp + np) * k;
  if (item <= cap) {
    b->rows = mp, b->cols = np;
    b->items = item ? min_size(g->batch, cap / item) : g->batch;
  } else {
    const size_t lines = cap / k; /* rows of A plus columns of B that fit */
    b->items = 1;
    b->cols = min_size(np, lines / 2 / nc * nc);
    b->rows = b->cols ? min_size(mp, (lines - b->cols) / mc * mc) : 0;
    if (!b->rows) return 0;
  }
  b->a_floats = b->rows * k;
  b->b_floats = b->cols * k;
  return 1;
}

int clforge__gemm_packed_fits(clforge_context ctx, const clforge__gemm *g, const int *v) {
  blocking b;
  return plan_blocks(ctx, g, v, &b);
}

/* Launches in a chain: each waits on the previous one (they share the
 * workspace), the first on the caller's list and the workspace's last user. */
typedef struct {
  clforge_context ctx;
  clforge__chain ch;
} chain;

static clforge_status launch(chain *c, cl_kernel k, const size_t *global, const size_t *local, const char *what) {
  return clforge__chain_launch(c->ctx, &c->ch, k, 3, global, local, what);
}

/* Pack `count` rows of op(A) from row0 (or columns of op(B) from col0) of
 * `items` batch items starting at batch item b0, padded to `padded`, with
 * kern (along: the operand's rows run along k). */
static clforge_status pack(chain *c, cl_kernel kern, int along, const clforge__gemm_operand *o, cl_mem src, cl_mem ws,
                           size_t first, size_t count, size_t padded, size_t width, size_t b0, size_t items,
                           size_t p_off, size_t p_stride, cl_uint k, const char *what) {
  /* `what` names the launch in messages */
  cl_uint first_u = (cl_uint)first, count_u = (cl_uint)count, ld = (cl_uint)o->ld;
  cl_ulong off = o->offset + b0 * o->stride, stride = o->stride, poff = p_off, pstride = p_stride;
  cl_int err = clSetKernelArg(kern, 0, sizeof first_u, &first_u);
  err |= clSetKernelArg(kern, 1, sizeof count_u, &count_u);
  err |= clSetKernelArg(kern, 2, sizeof k, &k);
  err |= clSetKernelArg(kern, 3, sizeof src, &src);
  err |= clSetKernelArg(kern, 4, sizeof off, &off);
  err |= clSetKernelArg(kern, 5, sizeof ld, &ld);
  err |= clSetKernelArg(kern, 6, sizeof stride, &stride);
  err |= clSetKernelArg(kern, 7, sizeof ws, &ws);
  err |= clSetKernelArg(kern, 8, sizeof poff, &poff);
  err |= clSetKernelArg(kern, 9, sizeof pstride, &pstride);
  const cl_uint panels = (cl_uint)(padded / width);
  err |= clSetKernelArg(kern, 10, sizeof panels, &panels);
  if (err != CL_SUCCESS)
    return clforge__fail(c->ctx, CLFORGE_INTERNAL_ERROR, "gemm: setting the pack kernel's arguments failed");
  const size_t l0 = along ? PACK_WG : 1, l1 = along ? 1 : PACK_WG;
  const size_t global[3] = {round_up((k + PK - 1) / PK, l0), round_up(panels, l1), items}, local[3] = {l0, l1, 1};
  return launch(c, kern, global, local, what);
}

/* The pack kernel for panels of `width` rows of an operand of storage type
 * t; along: its rows are contiguous along k. Built with only these, so that
 * A and B, every epilogue, C type and blocking share it. */
static clforge_status pack_kernel(clforge_context ctx, clforge_dtype t, int width, int along, int idx64, cl_kernel *k) {
  char opts[96];
  snprintf(opts, sizeof opts, "-DW=%d -DX_T=%d -DALONG=%d -DIDX64=%d", width, (int)t, along, idx64);
  clforge_status st = clforge__kernel_get(ctx, pack_sources, opts, "clforge_gemm_pack", k);
  return st == CLFORGE_SUCCESS ? clforge__kernel_fits(ctx, *k, "gemm", "gemm_packed", opts, PACK_WG) : st;
}

/* The call's kernels: A's and B's pack (ka NULL when A is read in place)
 * and the micro-kernel, built for f32 panels (*panels: the problem it sees). */
static clforge_status get_kernels(clforge_context ctx, const clforge__gemm *g, const int *v, blocking *b,
                                  clforge__gemm *panels, cl_kernel *ka, cl_kernel *kb, cl_kernel *km) {
  const clforge__family *f = &clforge__family_gemm_packed;
  const size_t mr = (size_t)v[GEMMP_MR], nr = (size_t)v[GEMMP_NR], mc = (size_t)v[GEMMP_MC], nc = (size_t)v[GEMMP_NC];
  /* The micro-kernel reads f32 panels whatever A and B are: its program is
   * built for those, so that it serves every storage type and transpose. */
  *panels = *g;
  /* A read in place when its panels would be used once: one column block
   * (n <= NC) and A already f32 with rows along k. Packing would add a pass
   * over A (read, write, read again) for no reuse; MobileNetV2's 1x1s to 16-32
   * channels are such GEMMs. */
  const int a_direct = g->a.type == CLFORGE_F32 && !g->a.trans && g->n <= nc;
  panels->a.type = panels->b.type = CLFORGE_F32;
  panels->a.trans = panels->b.trans = 0;
  panels->a_direct = a_direct;
  if (a_direct) b->a_floats = 0;
  *ka = NULL; /* ka and kb may be one kernel: the same copy */
  clforge_status st = a_direct ? CLFORGE_SUCCESS : pack_kernel(ctx, g->a.type, (int)mr, !g->a.trans, g->idx64, ka);
  if (st == CLFORGE_SUCCESS) st = pack_kernel(ctx, g->b.type, (int)nr, g->b.trans, g->idx64, kb);
  if (st == CLFORGE_SUCCESS) st = clforge__gemm_kernel(ctx, f, f->kernel, v, panels, (mc / mr) * (nc / nr), km);
  return st;
}

/* The micro-kernel over one block: rows from m0, cols from n0 (padded to
 * rows_p, cols_p) of `items` batch items from b0. */
static clforge_status multiply(chain *c, cl_kernel km, const int *v, const clforge__gemm *g, const clforge__gemm *panels,
                               const blocking *b, const clforge__gemm_buffers *packed, size_t b0, size_t items,
                               size_t m0, size_t rows, size_t rows_p, size_t n0, size_t cols, size_t cols_p) {
  const size_t mr = (size_t)v[GEMMP_MR], nr = (size_t)v[GEMMP_NR], mc = (size_t)v[GEMMP_MC], nc = (size_t)v[GEMMP_NC];
  const size_t k = g->k;
  clforge__gemm gp = *panels;
  gp.a.offset = 0, gp.a.stride = b->a_floats, gp.a.ld = 0;
  if (panels->a_direct) gp.a.offset = g->a.offset + b0 * g->a.stride, gp.a.stride = g->a.stride, gp.a.ld = g->a.ld;
  gp.b.offset = b->a_floats * b->items, gp.b.stride = b->b_floats, gp.b.ld = 0;
  gp.c.offset = g->c.offset + b0 * g->c.stride;
  /* Bands of row blocks whose A panels take about BAND_BYTES. */
  size_t band = k ? BAND_BYTES / (mc * k * sizeof(float)) : 1;
  band = band < 1 ? 1 : band > rows_p / mc ? rows_p / mc : band;
  cl_uint region[5] = {(cl_uint)m0, (cl_uint)n0, (cl_uint)rows, (cl_uint)cols, (cl_uint)band};
  cl_int err = CL_SUCCESS;
  for (cl_uint i = 0; i < 5; ++i) err |= clSetKernelArg(km, i, sizeof region[i], &region[i]);
  if (err != CL_SUCCESS || clforge__gemm_set_shared_args(km, 5, &gp, packed) != CL_SUCCESS)
    return clforge__fail(c->ctx, CLFORGE_INTERNAL_ERROR, "gemm: setting the packed kernel's arguments failed");
  const int ord = v[GEMMP_ORD];
  const size_t local[3] = {ord ? mc / mr : nc / nr, ord ? nc / nr : mc / mr, 1};
  const size_t global[3] = {rows_p / mc * (cols_p / nc) * local[0], local[1], items};
  return launch(c, km, global, local, "clEnqueueNDRangeKernel (gemm packed)");
}

clforge_status clforge__gemm_packed_enqueue(clforge_context ctx, const clforge__gemm *g,
                                            const clforge__gemm_buffers *bf, const int *v, cl_uint nwait,
                                            const cl_event *wait, cl_event *event) {
  const size_t mr = (size_t)v[GEMMP_MR], nr = (size_t)v[GEMMP_NR], mc = (size_t)v[GEMMP_MC], nc = (size_t)v[GEMMP_NC];
  blocking b;
  if (!plan_blocks(ctx, g, v, &b))
    return clforge__fail(ctx, CLFORGE_INTERNAL_ERROR,
                         "gemm: the packed panels of one block exceed the workspace bound");
  /* Every kernel and the workspace first: a failure leaves C untouched. */
  clforge__gemm panels;
  cl_kernel ka, kb, km;
  clforge_status st = get_kernels(ctx, g, v, &b, &panels, &ka, &kb, &km);
  const int a_direct = panels.a_direct;
  cl_mem ws = NULL;
  cl_event busy = NULL;
  const size_t b_base = b.a_floats * b.items;
  if (st == CLFORGE_SUCCESS)
    st = clforge__workspace_get(ctx, (b.a_floats + b.b_floats) * b.items * sizeof(float), &ws, &busy);
  chain c = {ctx, {NULL, 0, NULL}};
  if (st == CLFORGE_SUCCESS) st = clforge__chain_begin(ctx, "gemm", &c.ch, nwait, wait, 1, &busy);
  if (st != CLFORGE_SUCCESS) return st;

  const cl_uint k = (cl_uint)g->k;
  const clforge__gemm_buffers packed = {a_direct ? bf->a : ws, ws, bf->c, bf->bias, bf->aux};
  for (size_t b0 = 0; b0 < g->batch && st == CLFORGE_SUCCESS; b0 += b.items) {
    const size_t items = min_size(b.items, g->batch - b0);
    for (size_t n0 = 0; n0 < g->n && st == CLFORGE_SUCCESS; n0 += b.cols) {
      const size_t cols = min_size(b.cols, g->n - n0), cols_p = round_up(cols, nc);
      if (k)
        st = pack(&c, kb, g->b.trans, &g->b, bf->b, ws, n0, cols, cols_p, nr, b0, items, b_base, b.b_floats, k,
                  "clEnqueueNDRangeKernel (gemm pack_b)");
      for (size_t m0 = 0; m0 < g->m && st == CLFORGE_SUCCESS; m0 += b.rows) {
        const size_t rows = min_size(b.rows, g->m - m0), rows_p = round_up(rows, mc);
        /* A's panels stay valid across column blocks when one block holds all rows. */
        if (k && !a_direct && (n0 == 0 || b.rows < g->m))
          st = pack(&c, ka, !g->a.trans, &g->a, bf->a, ws, m0, rows, rows_p, mr, b0, items, 0, b.a_floats, k,
                    "clEnqueueNDRangeKernel (gemm pack_a)");
        if (st == CLFORGE_SUCCESS)
          st = multiply(&c, km, v, g, &panels, &b, &packed, b0, items, m0, rows, rows_p, n0, cols, cols_p);
      }
    }
  }
  /* The last launch covers all: the workspace is busy until it ends, and it
   * is the call's event. */
  if (c.ch.last) clforge__workspace_used(ctx, c.ch.last);
  return clforge__chain_end(&c.ch, st, event);
}
