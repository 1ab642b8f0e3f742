/* FFT convolution through clFFT (cl/conv_fft.cl has our kernels).
 *
 * Per batch slice of nb images: x padded into real f32 tiles of FH x FW
 * (one per image and channel, or per phase plane of a channel when a stride
 * is split into phases, see cl/conv_fft.cl), a forward 2-D real-to-complex
 * transform of every tile, the pointwise product with the filters'
 * conjugated spectra summed over each group's channels (cross-correlation),
 * an inverse transform per (image, output channel), and the crop (and
 * subsampling, without phases) with the fused epilogue. The filters'
 * spectra come from prepared weights or are made at the start of the call.
 * FH, FW: the rows and columns a needed output reads, rounded up to a
 * product of 2, 3, 5 and 7 (clFFT's radices), so the circular correlation
 * never wraps into them.
 *
 * clFFT: set up once per process (pthread_once) and never torn down by the
 * library: its plans live in a process-wide table keyed by (cl_context,
 * device, FH, FW, batch, direction) until exit (clfftTeardown would destroy
 * plans other contexts and threads still use). A plan holds a reference to
 * its cl_context, so entries never go stale. clfftTeardown runs at exit
 * (atexit, registered at setup), where nothing uses the plans any more; else
 * clFFT warns on stderr at every exit that its resources were not freed. clFFT's buffers carry no offsets: its arguments are sub-buffers of
 * the workspace at aligned offsets. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <clFFT.h>

#include "../core/context.h"
#include "../core/error.h"
#include "../core/log.h"
#include "../core/program.h"
#include "../families/conv_fft.h"
#include "../families/families.h"
#include "../core/workspace.h"
#include "conv_algo.h"

/* ------------------------------------------------------------ clFFT setup */

static pthread_once_t fft_once = PTHREAD_ONCE_INIT;
static clfftStatus fft_setup_status = CLFFT_SUCCESS;

static void fft_teardown(void) { clfftTeardown(); }

static void fft_setup(void) {
  /* Filled by hand: clFFT.h's clfftInitSetupData is a non-static inline
   * function, an undefined reference in C11 where it is not inlined. */
  clfftSetupData sd;
  memset(&sd, 0, sizeof sd);
  cl_uint major = 0, minor = 0, patch = 0;
  fft_setup_status = clfftGetVersion(&major, &minor, &patch);
  sd.major = major, sd.minor = minor, sd.patch = patch, sd.debugFlags = 0;
  if (fft_setup_status == CLFFT_SUCCESS) fft_setup_status = clfftSetup(&sd);
  /* At exit, after the application's own code is done: clFFT's static
   * destructor would otherwise print a warning on every program's stderr. */
  if (fft_setup_status == CLFFT_SUCCESS) atexit(fft_teardown);
}

static int fft_ready(void) {
  pthread_once(&fft_once, fft_setup);
  return fft_setup_status == CLFFT_SUCCESS;
}

/* ------------------------------------------------------------- plan cache */

static int test_dft; /* clforge__conv_fft_test_dft */

void clforge__conv_fft_test_dft(int on) { test_dft = on; }

typedef struct fft_plan {
  cl_context cl_ctx;
  cl_device_id device;
  size_t fh, fw, batch;
  int inverse;
  int dft;          /* the test stand-in: no clFFT plan */
  clfftPlanHandle plan;
  size_t tmp_bytes; /* clFFT's scratch for it */
  struct fft_plan *next;
} fft_plan;

typedef struct fft_plan_table {
  pthread_mutex_t lock;
  fft_plan *head;
} fft_plan_table;

/* The plans of ctx's cl_context and device. A process-wide table for now;
 * it could hang off the context instead (destroying its plans there). */
static fft_plan_table *clforge__fft_plans(clforge_context ctx) {
  static fft_plan_table table = {PTHREAD_MUTEX_INITIALIZER, NULL};
  (void)ctx;
  return &table;
}

static clforge_status fft_fail(clforge_context ctx, clfftStatus s, const char *what) {
  if (s == CLFFT_OUT_OF_RESOURCES || s == CLFFT_MEM_OBJECT_ALLOCATION_FAILURE)
    return clforge__fail(ctx, CLFORGE_OUT_OF_DEVICE_MEMORY, "conv2d fft: %s: clFFT status %d", what, (int)s);
  return clforge__fail(ctx, s == CLFFT_NOTIMPLEMENTED ? CLFORGE_UNSUPPORTED : CLFORGE_INTERNAL_ERROR, "conv2d fft: %s: clFFT status %d", what, (int)s);
}

/* A baked plan of batch real FH x FW tiles (tight) to planar Hermitian
 * spectra of FH x (FW/2+1) (tight), or the inverse. */
static clforge_status get_plan(clforge_context ctx, size_t fh, size_t fw, size_t batch, int inverse, fft_plan **out) {
  fft_plan_table *t = clforge__fft_plans(ctx);
  pthread_mutex_lock(&t->lock);
  for (fft_plan *p = t->head; p; p = p->next)
    if (p->cl_ctx == ctx->cl_ctx && p->device == ctx->device && p->fh == fh && p->fw == fw && p->batch == batch &&
        p->inverse == inverse && p->dft == test_dft) {
      pthread_mutex_unlock(&t->lock);
      *out = p;
      return CLFORGE_SUCCESS;
    }
  fft_plan *p = calloc(1, sizeof *p);
  if (!p) {
    pthread_mutex_unlock(&t->lock);
    return clforge__fail(ctx, CLFORGE_OUT_OF_HOST_MEMORY, "conv2d fft: no memory for a plan");
  }
  p->cl_ctx = ctx->cl_ctx, p->device = ctx->device, p->fh = fh, p->fw = fw, p->batch = batch, p->inverse = inverse;
  p->dft = test_dft;
  if (p->dft) {
    p->next = t->head;
    t->head = p;
    pthread_mutex_unlock(&t->lock);
    *out = p;
    return CLFORGE_SUCCESS;
  }
  size_t len[2] = {fw, fh}; /* fastest dimension first */
  size_t real_stride[2] = {1, fw}, cplx_stride[2] = {1, fw / 2 + 1};
  const size_t real_dist = fh * fw, cplx_dist = fh * (fw / 2 + 1);
  clfftStatus s = clfftCreateDefaultPlan(&p->plan, ctx->cl_ctx, CLFFT_2D, len);
  const char *what = "clfftCreateDefaultPlan";
  int created = s == CLFFT_SUCCESS;
#define FFT_STEP(call)           \
  if (s == CLFFT_SUCCESS) {      \
    s = (call), what = #call;    \
  }
  FFT_STEP(clfftSetPlanPrecision(p->plan, CLFFT_SINGLE))
  FFT_STEP(clfftSetLayout(p->plan, inverse ? CLFFT_HERMITIAN_PLANAR : CLFFT_REAL,
                          inverse ? CLFFT_REAL : CLFFT_HERMITIAN_PLANAR))
  FFT_STEP(clfftSetResultLocation(p->plan, CLFFT_OUTOFPLACE))
  FFT_STEP(clfftSetPlanInStride(p->plan, CLFFT_2D, inverse ? cplx_stride : real_stride))
  FFT_STEP(clfftSetPlanOutStride(p->plan, CLFFT_2D, inverse ? real_stride : cplx_stride))
  FFT_STEP(clfftSetPlanDistance(p->plan, inverse ? cplx_dist : real_dist, inverse ? real_dist : cplx_dist))
  FFT_STEP(clfftSetPlanBatchSize(p->plan, batch))
  FFT_STEP(clfftBakePlan(p->plan, 1, &ctx->queue, NULL, NULL))
  FFT_STEP(clfftGetTmpBufSize(p->plan, &p->tmp_bytes))
#undef FFT_STEP
  if (s != CLFFT_SUCCESS) {
    if (created) clfftDestroyPlan(&p->plan);
    free(p);
    pthread_mutex_unlock(&t->lock);
    char msg[192];
    snprintf(msg, sizeof msg, "%s (%zu x %zu, batch %zu)", what, fh, fw, batch);
    return fft_fail(ctx, s, msg);
  }
  p->next = t->head;
  t->head = p;
  pthread_mutex_unlock(&t->lock);
  *out = p;
  return CLFORGE_SUCCESS;
}

/* One transform of plan p on buffers and a queue of the probe's own, to
 * its end (clFFT builds a plan's programs when it is baked, but reports a
 * program its driver rejected only when the transform is enqueued). */
static clforge_status fft_probe_run(clforge_context ctx, fft_plan *p) {
  const size_t bytes = 2 * p->fh * (p->fw / 2 + 1) * sizeof(float) + 64;
  cl_int err;
  cl_command_queue q = clCreateCommandQueue(ctx->cl_ctx, ctx->device, 0, &err);
  if (err != CL_SUCCESS) return clforge__fail_cl(ctx, err, "conv2d fft: the probe's queue");
  cl_mem m[4] = {NULL, NULL, NULL, NULL};
  for (int i = 0; i < 4 && err == CL_SUCCESS; ++i) m[i] = clCreateBuffer(ctx->cl_ctx, CL_MEM_READ_WRITE, bytes, NULL, &err);
  clforge_status st = CLFORGE_SUCCESS;
  if (err != CL_SUCCESS) {
    st = clforge__fail_cl(ctx, err, "conv2d fft: the probe's buffers");
  } else {
    const float zero = 0.0f;
    for (int i = 0; i < 4 && err == CL_SUCCESS; ++i)
      err = clEnqueueFillBuffer(q, m[i], &zero, sizeof zero, 0, bytes, 0, NULL, NULL);
    /* real -> planar (2 buffers) forward; planar -> real inverse */
    cl_mem *in = p->inverse ? m : m + 2, *out = p->inverse ? m + 2 : m;
    clfftStatus s = err == CL_SUCCESS ? clfftEnqueueTransform(p->plan, p->inverse ? CLFFT_BACKWARD : CLFFT_FORWARD, 1,
                                                               &q, 0, NULL, NULL, in, out, NULL)
                                      : (clfftStatus)err;
    if (s == CLFFT_SUCCESS) s = (clfftStatus)clFinish(q);
    if (s != CLFFT_SUCCESS) st = fft_fail(ctx, s, p->inverse ? "the probe's inverse transform" : "the probe's forward transform");
  }
  for (int i = 0; i < 4; ++i)
    if (m[i]) clReleaseMemObject(m[i]);
  clReleaseCommandQueue(q);
  return st;
}

/* Does this context's driver build clFFT's generated kernels? Intel's
 * OpenCL CPU runtime rejects them (an implicit float2* to float4* pointer
 * conversion, an error for its compiler) and clFFT has no way to pass build
 * options, so the algorithm is a property of the driver: probed once per
 * context by a small forward and inverse transform (their plans kept:
 * calls of that size reuse them) on the probe's own buffers and queue,
 * before any call of the context enqueues anything. A failure for want of
 * memory is not the driver's, and is probed again next time. */
static int fft_builds_here(clforge_context ctx, char *why, size_t cap) {
  if (test_dft) return 1; /* the stand-in runs no clFFT kernel */
  if (ctx->driver.fft == 0 && strstr(ctx->info.platform_name, "Oclgrind")) {
    /* not probed: a run there aborts the process (LLVM's freeze, which
     * clFFT's kernels compile to, is an instruction Oclgrind 21.10 cannot
     * interpret); its tests run the test DFT in clFFT's place */
    ctx->driver.fft = -1;
    snprintf(ctx->driver.fft_why, sizeof ctx->driver.fft_why,
             "fft: Oclgrind cannot run clFFT's kernels (their LLVM freeze instructions)");
  }
  if (ctx->driver.fft == 0) {
    fft_plan *p;
    clforge_status st = get_plan(ctx, 12, 12, 1, 0, &p);
    if (st == CLFORGE_SUCCESS) st = fft_probe_run(ctx, p);
    if (st == CLFORGE_SUCCESS) st = get_plan(ctx, 12, 12, 1, 1, &p);
    if (st == CLFORGE_SUCCESS) st = fft_probe_run(ctx, p);
    if (st == CLFORGE_OUT_OF_DEVICE_MEMORY || st == CLFORGE_OUT_OF_HOST_MEMORY) {
      snprintf(why, cap, "fft: probing clFFT on this device ran out of memory: %s", clforge_last_error(ctx));
      return 0;
    }
    ctx->driver.fft = st == CLFORGE_SUCCESS ? 1 : -1;
    if (st != CLFORGE_SUCCESS)
      snprintf(ctx->driver.fft_why, sizeof ctx->driver.fft_why,
               "fft: clFFT's generated kernels do not build with this driver (%s, %s): %s",
               ctx->info.platform_name, ctx->info.driver_version, clforge_last_error(ctx));
  }
  if (ctx->driver.fft < 0) snprintf(why, cap, "%s", ctx->driver.fft_why);
  return ctx->driver.fft > 0;
}

/* --------------------------------------------------------------- geometry */

enum { FFT_MAX_LEN = 8192 };

typedef struct fft_geom {
  size_t ph, pw, eh, ew;  /* phases; strides left after them */
  size_t cp, cgp;         /* channels (all, one group's) as tiles: C*PH*PW, C/G*PH*PW */
  size_t hn, wn;          /* rows and columns of a tile a needed output reads */
  size_t fh, fw, tile, nf;
  size_t nb, kc;          /* images per slice, filters per transform chunk */
  /* Byte offsets and sizes of the workspace's regions. */
  size_t align, w_bytes, off_wr, off_wi, off_t, t_bytes, off_xr, off_xi, x_bytes, off_yr, off_yi, y_bytes, off_tmp,
      tmp_bytes, total;
} fft_geom;

/* The smallest product of 2, 3, 5 and 7 at least n (at least 2). */
static size_t friendly(size_t n) {
  if (n < 2) n = 2;
  for (size_t m = n;; ++m) {
    size_t r = m;
    while (r % 2 == 0) r /= 2;
    while (r % 3 == 0) r /= 3;
    while (r % 5 == 0) r /= 5;
    while (r % 7 == 0) r /= 7;
    if (r == 1) return m;
  }
}

static size_t align_up(size_t n, size_t a) { return (n + a - 1) / a * a; }
static size_t max2(size_t a, size_t b) { return a > b ? a : b; }

static size_t base_align(clforge_context ctx) {
  cl_uint bits = 0;
  if (clGetDeviceInfo(ctx->device, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof bits, &bits, NULL) != CL_SUCCESS) bits = 0;
  return max2(4096, bits / 8); /* supports() refuses devices above 4096 */
}

/* Region layout for nb images per slice and kc filters per chunk. */
static void layout(fft_geom *g, size_t k) {
  const size_t a = g->align, fl = sizeof(float);
  g->w_bytes = k * g->cgp * g->nf * fl;
  g->off_wr = 0;
  g->off_wi = align_up(g->w_bytes, a);
  g->off_t = g->off_wi + align_up(g->w_bytes, a);
  g->t_bytes = max2(g->nb * max2(g->cp, k), g->kc * g->cgp) * g->tile * fl;
  g->off_xr = g->off_t + align_up(g->t_bytes, a);
  g->x_bytes = max2(g->nb * g->cp, g->kc * g->cgp) * g->nf * fl;
  g->off_xi = g->off_xr + align_up(g->x_bytes, a);
  g->off_yr = g->off_xi + align_up(g->x_bytes, a);
  g->y_bytes = g->nb * k * g->nf * fl;
  g->off_yi = g->off_yr + align_up(g->y_bytes, a);
  g->off_tmp = g->off_yi + align_up(g->y_bytes, a);
  /* clFFT's 2-D out-of-place scratch has measured the size of the spectra
   * of its batch; a plan that asks for more gets its own (clFFT allocates). */
  g->tmp_bytes = 2 * max2(max2(g->nb * g->cp, g->nb * k), g->kc * g->cgp) * g->nf * fl;
  g->total = g->off_tmp + align_up(g->tmp_bytes, a);
}

static size_t ceil_div(size_t a, size_t b) { return (a + b - 1) / b; }

static void geometry(clforge_context ctx, const clforge__conv *d, const int *v, fft_geom *g) {
  memset(g, 0, sizeof *g);
  const int phase = v ? v[CONV_FFT_PHASE] : 1;
  g->ph = phase ? d->stride_h : 1, g->pw = phase ? d->stride_w : 1;
  g->eh = d->stride_h / g->ph, g->ew = d->stride_w / g->pw;
  g->cp = d->c * g->ph * g->pw, g->cgp = d->cg * g->ph * g->pw;
  g->hn = (d->p - 1) * g->eh + ceil_div(d->r, g->ph);
  g->wn = (d->q - 1) * g->ew + ceil_div(d->s, g->pw);
  g->fh = friendly(g->hn), g->fw = friendly(g->wn);
  g->tile = g->fh * g->fw, g->nf = g->fh * (g->fw / 2 + 1);
  g->align = ctx ? base_align(ctx) : 4096;
  /* Halve the filter chunk or the batch slice (the larger) until the
   * workspace fits, then even out the slices. */
  const size_t cap = ctx ? clforge__workspace_cap(ctx) : SIZE_MAX;
  g->nb = d->n, g->kc = d->k;
  layout(g, d->k);
  while (g->total > cap && (g->nb > 1 || g->kc > 1)) {
    if (g->kc > 1 && (g->kc * g->cgp >= g->nb * max2(g->cp, d->k) || g->nb == 1))
      g->kc = (g->kc + 1) / 2;
    else
      g->nb = (g->nb + 1) / 2;
    layout(g, d->k);
  }
  g->nb = ceil_div(d->n, ceil_div(d->n, g->nb));
  g->kc = ceil_div(d->k, ceil_div(d->k, g->kc));
  layout(g, d->k);
}

/* ---------------------------------------------------------- the algorithm */

static int supports(clforge_context ctx, const clforge__conv *d, char *why, size_t cap) {
  if (d->dil_h != 1 || d->dil_w != 1) {
    snprintf(why, cap, "fft needs dilation 1 (got %zux%zu)", d->dil_h, d->dil_w);
    return 0;
  }
  fft_geom g;
  geometry(NULL, d, NULL, &g);
  fft_geom g0;
  const int no_phase[CONV_FFT_NPARAMS] = {1, 1, 1, 16, 0};
  geometry(NULL, d, no_phase, &g0);
  if (max2(g0.fh, g0.fw) > FFT_MAX_LEN) {
    snprintf(why, cap, "fft tiles of %zux%zu exceed %d", g0.fh, g0.fw, (int)FFT_MAX_LEN);
    return 0;
  }
  if (g.nb * max2(g.cp, d->k) > UINT32_MAX / 2 || g.tile > UINT32_MAX / 2 || d->n > UINT32_MAX / 2) {
    snprintf(why, cap, "fft: the problem's tiles exceed 32-bit indexing");
    return 0;
  }
  if (!fft_ready()) {
    snprintf(why, cap, "fft: clfftSetup failed (status %d)", (int)fft_setup_status);
    return 0;
  }
  /* Region offsets are multiples of 4096 bytes (prepared weights are sized
   * without a device at hand), enough for sub-buffers on every device seen. */
  if (ctx && base_align(ctx) > 4096) {
    snprintf(why, cap, "fft: the device aligns sub-buffers to %zu bytes, above 4096", base_align(ctx));
    return 0;
  }
  return !ctx || fft_builds_here(ctx, why, cap);
}

static size_t workspace(clforge_context ctx, const clforge__conv *d, const int *v) {
  fft_geom g;
  geometry(ctx, d, v, &g);
  return g.total;
}

static size_t weights_bytes(const clforge__conv *d, const int *v) {
  fft_geom g;
  geometry(NULL, d, v, &g);
  return g.off_wi + g.w_bytes; /* the filters' spectra, real then imaginary parts */
}

/* A sub-buffer of base (itself possibly a sub-buffer: then of its parent). */
static clforge_status sub_buffer(clforge_context ctx, cl_mem base, size_t off, size_t bytes, cl_mem *out) {
  *out = NULL;
  cl_mem parent = NULL;
  size_t poff = 0;
  cl_int err = clGetMemObjectInfo(base, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof parent, &parent, NULL);
  if (err == CL_SUCCESS && parent) {
    err = clGetMemObjectInfo(base, CL_MEM_OFFSET, sizeof poff, &poff, NULL);
    base = parent;
  }
  if (err != CL_SUCCESS) return clforge__fail_cl(ctx, err, "clGetMemObjectInfo (conv2d fft workspace)");
  cl_buffer_region r = {poff + off, bytes ? bytes : 1};
  *out = clCreateSubBuffer(base, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &r, &err);
  if (err == CL_MISALIGNED_SUB_BUFFER_OFFSET)
    return clforge__fail(ctx, CLFORGE_INVALID_ARGUMENT,
                         "conv2d fft: the workspace (a sub-buffer at offset %zu) is not aligned to the device's base "
                         "address alignment",
                         poff);
  if (err != CL_SUCCESS) return clforge__fail_cl(ctx, err, "clCreateSubBuffer (conv2d fft)");
  return CLFORGE_SUCCESS;
}

/* Kernel `name` of cl/conv_fft.cl, built with what its kernels read: the
 * product's KB, NB, VW and WG and the problem's types and epilogue; not
 * PHASE (a host-side choice of the geometry, passed as arguments), so both
 * of its values share one program. */
static clforge_status fft_kernel(clforge_context ctx, const char *name, const int *v, const clforge__conv *d, size_t wgs,
                                 cl_kernel *k) {
  char opts[256];
  snprintf(opts, sizeof opts, "-DKB=%d -DNB=%d -DVW=%d -DWG=%d", v[CONV_FFT_KB], v[CONV_FFT_NB], v[CONV_FFT_VW],
           v[CONV_FFT_WG]);
  clforge__conv_problem_options(d, opts, sizeof opts);
  return clforge__family_kernel(ctx, "conv2d", &clforge__family_conv_fft, name, NULL, opts, wgs, k);
}

/* The commands of one call, chained: each waits for the previous. */
typedef struct chain {
  clforge_context ctx;
  const clforge__conv *d; /* for the test stand-in's kernels */
  const int *v;
  cl_uint nwait;
  const cl_event *wait;
  cl_event last;
} chain;

static void chain_step(chain *c, cl_event ev) {
  if (c->last) clReleaseEvent(c->last);
  c->last = ev;
  c->nwait = 1;
  c->wait = &c->last;
}

static clforge_status launch(chain *c, cl_kernel k, cl_uint dims, const size_t *global, const size_t *local,
                             const char *what) {
  cl_event ev = NULL;
  clforge_status st = clforge__launch(c->ctx, k, dims, global, local, c->nwait, c->wait, &ev, what);
  if (st != CLFORGE_SUCCESS) return st;
  chain_step(c, ev);
  return CLFORGE_SUCCESS;
}

/* Our kernels over planes (pad, crop, the test DFTs: gid0 along a row, gid1
 * over rows, gid2 over planes) run in work-groups of one fixed shape, the
 * grid rounded up to it (the kernels return for the ids past a plane's
 * size): a driver that compiles per work-group shape (PoCL) compiles each
 * kernel once, not once per tile size, as it would for a local size it
 * chose to divide each grid. */
enum { PLANE_L0 = 32, PLANE_L1 = 8, COPY_WG = 64 };

static clforge_status launch_planes(chain *c, cl_kernel k, size_t g0, size_t g1, size_t g2, const char *what) {
  const size_t global[3] = {align_up(g0, PLANE_L0), align_up(g1, PLANE_L1), g2}, local[3] = {PLANE_L0, PLANE_L1, 1};
  return launch(c, k, 3, global, local, what);
}

#define SET_ARG(k, i, v) (err |= clSetKernelArg(k, i, sizeof(v), &(v)))

/* The test stand-in's kernels, two passes per direction (built before the
 * first launch by get_dfts). */
static const char *const dft_names[2][2] = {{"clforge_conv_fft_dft_fwd_rows", "clforge_conv_fft_dft_fwd_cols"},
                                            {"clforge_conv_fft_dft_inv_cols", "clforge_conv_fft_dft_inv_rows"}};

static clforge_status get_dfts(chain *c, int inverse, cl_kernel k[2]) {
  clforge_status st = CLFORGE_SUCCESS;
  for (int i = 0; i < 2 && st == CLFORGE_SUCCESS; ++i)
    st = fft_kernel(c->ctx, dft_names[inverse][i], c->v, c->d, PLANE_L0 * PLANE_L1, &k[i]);
  return st;
}

/* The stand-in's two passes through tmp (planar: the real parts, then the
 * imaginary ones), which holds the spectra of the largest batch. */
static clforge_status dft_transform(chain *c, fft_plan *p, cl_mem *in, cl_mem *out, cl_mem tmp, size_t tmp_bytes) {
  cl_kernel k[2];
  clforge_status st = get_dfts(c, p->inverse, k);
  if (st != CLFORGE_SUCCESS) return st;
  const size_t hw = p->fw / 2 + 1;
  if (2 * p->batch * p->fh * hw * sizeof(float) > tmp_bytes)
    return clforge__fail(c->ctx, CLFORGE_INTERNAL_ERROR, "conv2d fft test DFT: scratch of %zu bytes is too small",
                         tmp_bytes);
  const cl_uint fh = (cl_uint)p->fh, fw = (cl_uint)p->fw;
  const cl_ulong im = (cl_ulong)(p->batch * p->fh * hw);
  cl_int err = CL_SUCCESS;
  /* forward: rows (T -> tmp), columns (tmp -> Sr, Si); inverse: columns
   * (Sr, Si -> tmp), rows (tmp -> T) */
  if (!p->inverse) {
    SET_ARG(k[0], 0, in[0]), SET_ARG(k[0], 1, tmp), SET_ARG(k[0], 2, im), SET_ARG(k[0], 3, fh), SET_ARG(k[0], 4, fw);
    SET_ARG(k[1], 0, tmp), SET_ARG(k[1], 1, im), SET_ARG(k[1], 2, out[0]), SET_ARG(k[1], 3, out[1]);
    SET_ARG(k[1], 4, fh), SET_ARG(k[1], 5, fw);
  } else {
    SET_ARG(k[0], 0, in[0]), SET_ARG(k[0], 1, in[1]), SET_ARG(k[0], 2, tmp), SET_ARG(k[0], 3, im);
    SET_ARG(k[0], 4, fh), SET_ARG(k[0], 5, fw);
    SET_ARG(k[1], 0, tmp), SET_ARG(k[1], 1, im), SET_ARG(k[1], 2, out[0]), SET_ARG(k[1], 3, fh), SET_ARG(k[1], 4, fw);
  }
  if (err != CL_SUCCESS) return clforge__fail_cl(c->ctx, err, "clSetKernelArg (conv2d fft test DFT)");
  st = launch_planes(c, k[0], hw, p->fh, p->batch, "clEnqueueNDRangeKernel (conv2d fft test DFT)");
  if (st == CLFORGE_SUCCESS)
    st = launch_planes(c, k[1], p->inverse ? p->fw : hw, p->fh, p->batch, "clEnqueueNDRangeKernel (conv2d fft test DFT)");
  return st;
}

static clforge_status transform(chain *c, fft_plan *p, cl_mem *in, cl_mem *out, cl_mem tmp, size_t tmp_bytes) {
  cl_event ev = NULL;
  if (p->dft) return dft_transform(c, p, in, out, tmp, tmp_bytes);
  clfftStatus s = clfftEnqueueTransform(p->plan, p->inverse ? CLFFT_BACKWARD : CLFFT_FORWARD, 1, &c->ctx->queue,
                                        c->nwait, c->wait, &ev, in, out, p->tmp_bytes <= tmp_bytes ? tmp : NULL);
  if (s != CLFFT_SUCCESS) return fft_fail(c->ctx, s, p->inverse ? "inverse transform" : "forward transform");
  chain_step(c, ev);
  return CLFORGE_SUCCESS;
}


/* The regions of one call (sub-buffers; NULL where not used). */
typedef struct regions {
  cl_mem wr, wi, t, xr, xi, yr, yi, tmp;
} regions;

static void release_regions(regions *r) {
  cl_mem *all[] = {&r->wr, &r->wi, &r->t, &r->xr, &r->xi, &r->yr, &r->yi, &r->tmp};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i)
    if (*all[i]) clReleaseMemObject(*all[i]), *all[i] = NULL;
}

/* The filters' spectra into r->wr/wi (by chunks of g->kc filters through
 * the X region), after c's wait list. Plans and kernels are got first. */
static clforge_status filter_spectra(chain *c, const clforge__conv *d, const int *v, const fft_geom *g, cl_mem w,
                                     const regions *r) {
  clforge_context ctx = c->ctx;
  cl_kernel pad;
  clforge_status st = fft_kernel(ctx, "clforge_conv_fft_pad_w", v, d, PLANE_L0 * PLANE_L1, &pad);
  fft_plan *full = NULL, *last = NULL;
  const size_t rest = d->k % g->kc ? d->k % g->kc : g->kc;
  if (st == CLFORGE_SUCCESS) st = get_plan(ctx, g->fh, g->fw, g->kc * g->cgp, 0, &full);
  if (st == CLFORGE_SUCCESS) st = get_plan(ctx, g->fh, g->fw, rest * g->cgp, 0, &last);
  cl_kernel dft[2], copy = NULL;
  if (st == CLFORGE_SUCCESS && test_dft) st = get_dfts(c, 0, dft);
  if (st == CLFORGE_SUCCESS)
    st = fft_kernel(ctx, "clforge_conv_fft_copy", v, d, COPY_WG, &copy);
  for (size_t k0 = 0; k0 < d->k && st == CLFORGE_SUCCESS; k0 += g->kc) {
    const size_t kn = d->k - k0 < g->kc ? d->k - k0 : g->kc;
    const cl_ulong woff = d->filt.offset, s0 = d->filt.stride[0], s1 = d->filt.stride[1], s2 = d->filt.stride[2],
                   s3 = d->filt.stride[3];
    const cl_uint k0u = (cl_uint)k0, cgp = (cl_uint)g->cgp, fh = (cl_uint)g->fh, fw = (cl_uint)g->fw,
                  ph = (cl_uint)g->ph, pw = (cl_uint)g->pw, rr = (cl_uint)d->r, ss = (cl_uint)d->s;
    cl_int err = CL_SUCCESS;
    SET_ARG(pad, 0, w), SET_ARG(pad, 1, woff), SET_ARG(pad, 2, s0), SET_ARG(pad, 3, s1), SET_ARG(pad, 4, s2);
    SET_ARG(pad, 5, s3), SET_ARG(pad, 6, k0u), SET_ARG(pad, 7, cgp), SET_ARG(pad, 8, fh), SET_ARG(pad, 9, fw);
    SET_ARG(pad, 10, ph), SET_ARG(pad, 11, pw), SET_ARG(pad, 12, rr), SET_ARG(pad, 13, ss), SET_ARG(pad, 14, r->t);
    if (err != CL_SUCCESS) return clforge__fail_cl(ctx, err, "clSetKernelArg (conv2d fft filter padding)");
    st = launch_planes(c, pad, g->fw, g->fh, kn * g->cgp, "clEnqueueNDRangeKernel (conv2d fft filter padding)");
    /* One chunk: straight into the spectra; else through the X region and
     * copies (clFFT takes no offsets, and sub-buffers need aligned ones). */
    const int whole = kn == d->k;
    cl_mem in[1] = {r->t}, out[2] = {whole ? r->wr : r->xr, whole ? r->wi : r->xi};
    if (st == CLFORGE_SUCCESS) st = transform(c, kn == g->kc ? full : last, in, out, r->tmp, g->tmp_bytes);
    const cl_ulong count = kn * g->cgp * g->nf, dst = k0 * g->cgp * g->nf;
    for (int part = 0; part < 2 && st == CLFORGE_SUCCESS && !whole; ++part) {
      cl_mem src = part ? r->xi : r->xr, to = part ? r->wi : r->wr;
      SET_ARG(copy, 0, src), SET_ARG(copy, 1, to), SET_ARG(copy, 2, dst), SET_ARG(copy, 3, count);
      if (err != CL_SUCCESS) return clforge__fail_cl(ctx, err, "clSetKernelArg (conv2d fft filter spectra)");
      const size_t gc[1] = {align_up(count, COPY_WG)}, lc[1] = {COPY_WG};
      st = launch(c, copy, 1, gc, lc, "clEnqueueNDRangeKernel (conv2d fft filter spectra)");
    }
  }
  return st;
}

static clforge_status make_regions(clforge_context ctx, const fft_geom *g, cl_mem ws, cl_mem wspec, regions *r,
                                   int with_y) {
  memset(r, 0, sizeof *r);
  clforge_status st = CLFORGE_SUCCESS;
  if (wspec) {
    st = sub_buffer(ctx, wspec, g->off_wr, g->w_bytes, &r->wr);
    if (st == CLFORGE_SUCCESS) st = sub_buffer(ctx, wspec, g->off_wi, g->w_bytes, &r->wi);
  }
  if (st == CLFORGE_SUCCESS) st = sub_buffer(ctx, ws, g->off_t, g->t_bytes, &r->t);
  if (st == CLFORGE_SUCCESS) st = sub_buffer(ctx, ws, g->off_xr, g->x_bytes, &r->xr);
  if (st == CLFORGE_SUCCESS) st = sub_buffer(ctx, ws, g->off_xi, g->x_bytes, &r->xi);
  if (st == CLFORGE_SUCCESS && with_y) st = sub_buffer(ctx, ws, g->off_yr, g->y_bytes, &r->yr);
  if (st == CLFORGE_SUCCESS && with_y) st = sub_buffer(ctx, ws, g->off_yi, g->y_bytes, &r->yi);
  if (st == CLFORGE_SUCCESS) st = sub_buffer(ctx, ws, g->off_tmp, g->tmp_bytes, &r->tmp);
  if (st != CLFORGE_SUCCESS) release_regions(r);
  return st;
}

static clforge_status prepare_weights(const clforge__conv_exec *e, cl_mem out) {
  clforge_context ctx = e->ctx;
  fft_geom g;
  geometry(ctx, e->d, e->v, &g);
  /* Scratch of its own: the X region's layout without the slices' images. */
  g.nb = 0;
  layout(&g, e->d->k);
  const size_t bytes = g.total - g.off_t;
  cl_int err;
  cl_mem scratch = clCreateBuffer(ctx->cl_ctx, CL_MEM_READ_WRITE, bytes, NULL, &err);
  if (err != CL_SUCCESS) return clforge__fail_cl(ctx, err, "clCreateBuffer (conv2d fft filter transform scratch)");
  /* Offsets relative to the scratch's start. */
  fft_geom s = g;
  s.off_t -= g.off_t, s.off_xr -= g.off_t, s.off_xi -= g.off_t, s.off_yr -= g.off_t, s.off_yi -= g.off_t,
      s.off_tmp -= g.off_t;
  regions r;
  clforge_status st = make_regions(ctx, &s, scratch, out, &r, 0);
  chain c = {ctx, e->d, e->v, e->nwait, e->wait, NULL};
  if (st == CLFORGE_SUCCESS) st = filter_spectra(&c, e->d, e->v, &g, e->w, &r);
  release_regions(&r);
  clReleaseMemObject(scratch); /* freed once the commands using it finish */
  if (st == CLFORGE_SUCCESS) {
    *e->event = c.last;
  } else if (c.last) {
    clReleaseEvent(c.last);
  }
  return st;
}

/* What one call launches: its kernels, and its plans for a full slice of
 * g.nb images ([0]) and the last, shorter one ([1]). */
typedef struct fft_call {
  fft_geom g;
  int use_t; /* alpha != 0: x and w count (else the epilogue alone) */
  cl_kernel pad, mac, outk;
  fft_plan *fwd[2], *inv[2];
} fft_call;

/* Every kernel and plan before the first command. */
static clforge_status get_call(clforge_context ctx, const clforge__conv *d, const int *v, fft_call *f) {
  f->pad = f->mac = f->outk = NULL;
  f->fwd[0] = f->fwd[1] = f->inv[0] = f->inv[1] = NULL;
  const fft_geom *g = &f->g;
  clforge_status st = fft_kernel(ctx, "clforge_conv_fft_out", v, d, PLANE_L0 * PLANE_L1, &f->outk);
  if (!f->use_t) return st;
  const size_t nrest = d->n % g->nb ? d->n % g->nb : g->nb;
  if (st == CLFORGE_SUCCESS)
    st = fft_kernel(ctx, "clforge_conv_fft_pad_x", v, d, PLANE_L0 * PLANE_L1, &f->pad);
  if (st == CLFORGE_SUCCESS)
    st = fft_kernel(ctx, "clforge_conv_fft_mac", v, d, (size_t)v[CONV_FFT_WG], &f->mac);
  for (int i = 0; i < 2 && st == CLFORGE_SUCCESS; ++i) {
    const size_t nb = i ? nrest : g->nb;
    st = get_plan(ctx, g->fh, g->fw, nb * g->cp, 0, &f->fwd[i]);
    if (st == CLFORGE_SUCCESS) st = get_plan(ctx, g->fh, g->fw, nb * d->k, 1, &f->inv[i]);
  }
  /* filter_spectra gets its kernel and plans before its first launch. */
  chain probe = {ctx, d, v, 0, NULL, NULL};
  cl_kernel dft[2];
  if (st == CLFORGE_SUCCESS && test_dft) st = get_dfts(&probe, 0, dft);
  if (st == CLFORGE_SUCCESS && test_dft) st = get_dfts(&probe, 1, dft);
  return st;
}

/* Images n0 .. n0 + nb: padded, to spectra, multiplied by the filters'
 * spectra, and back into the T region. */
static clforge_status spectrum_pass(chain *c, const clforge__conv_exec *e, const fft_call *f, const regions *r,
                                    size_t n0, size_t nb) {
  clforge_context ctx = e->ctx;
  const clforge__conv *d = e->d;
  const fft_geom *g = &f->g;
  const size_t kblocks = ceil_div(d->kg, (size_t)e->v[CONV_FFT_KB]), wg = (size_t)e->v[CONV_FFT_WG];
  const cl_ulong xoff = d->x.offset, xs0 = d->x.stride[0], xs1 = d->x.stride[1], xs2 = d->x.stride[2],
                 xs3 = d->x.stride[3];
  const cl_uint cp = (cl_uint)g->cp, cgp = (cl_uint)g->cgp, fh = (cl_uint)g->fh, fw = (cl_uint)g->fw,
                ph = (cl_uint)g->ph, pw = (cl_uint)g->pw, padt = (cl_uint)d->pad_t, padl = (cl_uint)d->pad_l,
                h = (cl_uint)d->h, w = (cl_uint)d->w, hn = (cl_uint)g->hn, wn = (cl_uint)g->wn, nf = (cl_uint)g->nf,
                k = (cl_uint)d->k, kg = (cl_uint)d->kg, kbl = (cl_uint)kblocks;
  const cl_uint n0u = (cl_uint)n0, nbu = (cl_uint)nb;
  cl_int err = CL_SUCCESS;
  SET_ARG(f->pad, 0, e->x), SET_ARG(f->pad, 1, xoff), SET_ARG(f->pad, 2, xs0), SET_ARG(f->pad, 3, xs1);
  SET_ARG(f->pad, 4, xs2), SET_ARG(f->pad, 5, xs3), SET_ARG(f->pad, 6, n0u), SET_ARG(f->pad, 7, cp);
  SET_ARG(f->pad, 8, fh), SET_ARG(f->pad, 9, fw), SET_ARG(f->pad, 10, ph), SET_ARG(f->pad, 11, pw);
  SET_ARG(f->pad, 12, padt), SET_ARG(f->pad, 13, padl), SET_ARG(f->pad, 14, h), SET_ARG(f->pad, 15, w);
  SET_ARG(f->pad, 16, hn), SET_ARG(f->pad, 17, wn), SET_ARG(f->pad, 18, r->t);
  if (err != CL_SUCCESS) return clforge__fail_cl(ctx, err, "clSetKernelArg (conv2d fft padding)");
  clforge_status st = launch_planes(c, f->pad, g->fw, g->fh, nb * g->cp, "clEnqueueNDRangeKernel (conv2d fft padding)");
  cl_mem tin[1] = {r->t}, xout[2] = {r->xr, r->xi}, yin[2] = {r->yr, r->yi};
  fft_plan *pf = nb == g->nb ? f->fwd[0] : f->fwd[1], *pi = nb == g->nb ? f->inv[0] : f->inv[1];
  if (st == CLFORGE_SUCCESS) st = transform(c, pf, tin, xout, r->tmp, g->tmp_bytes);
  if (st != CLFORGE_SUCCESS) return st;
  SET_ARG(f->mac, 0, r->xr), SET_ARG(f->mac, 1, r->xi), SET_ARG(f->mac, 2, r->wr), SET_ARG(f->mac, 3, r->wi);
  SET_ARG(f->mac, 4, r->yr), SET_ARG(f->mac, 5, r->yi), SET_ARG(f->mac, 6, nf), SET_ARG(f->mac, 7, nbu);
  SET_ARG(f->mac, 8, cp), SET_ARG(f->mac, 9, cgp), SET_ARG(f->mac, 10, k), SET_ARG(f->mac, 11, kg);
  SET_ARG(f->mac, 12, kbl);
  if (err != CL_SUCCESS) return clforge__fail_cl(ctx, err, "clSetKernelArg (conv2d fft product)");
  const size_t gm[3] = {align_up(ceil_div(g->nf, (size_t)e->v[CONV_FFT_VW]), wg), d->groups * kblocks,
                        ceil_div(nb, (size_t)e->v[CONV_FFT_NB])};
  const size_t lm[3] = {wg, 1, 1};
  st = launch(c, f->mac, 3, gm, lm, "clEnqueueNDRangeKernel (conv2d fft product)");
  if (st == CLFORGE_SUCCESS) st = transform(c, pi, yin, tin, r->tmp, g->tmp_bytes);
  return st;
}

/* Images n0 .. n0 + nb of y: the T region's crop (when use_t) times
 * alpha, plus bias and beta y. */
static clforge_status epilogue_pass(chain *c, const clforge__conv_exec *e, const fft_call *f, const regions *r,
                                    size_t n0, size_t nb) {
  const clforge__conv *d = e->d;
  const fft_geom *g = &f->g;
  const cl_ulong yoff = d->y.offset, ys0 = d->y.stride[0], ys1 = d->y.stride[1], ys2 = d->y.stride[2],
                 ys3 = d->y.stride[3], boff = d->bias.offset, bs = d->bias.stride[0];
  const cl_uint fh = (cl_uint)g->fh, fw = (cl_uint)g->fw, k = (cl_uint)d->k, eh = (cl_uint)g->eh,
                ew = (cl_uint)g->ew, p = (cl_uint)d->p, q = (cl_uint)d->q, use = (cl_uint)f->use_t, n0u = (cl_uint)n0;
  const cl_float alpha = d->alpha, beta = d->beta;
  cl_int err = CL_SUCCESS;
  cl_mem tbuf = f->use_t ? r->t : e->y; /* not read when use_t is 0 */
  SET_ARG(f->outk, 0, tbuf), SET_ARG(f->outk, 1, use), SET_ARG(f->outk, 2, fh), SET_ARG(f->outk, 3, fw);
  SET_ARG(f->outk, 4, eh), SET_ARG(f->outk, 5, ew), SET_ARG(f->outk, 6, e->y), SET_ARG(f->outk, 7, yoff);
  SET_ARG(f->outk, 8, ys0), SET_ARG(f->outk, 9, ys1), SET_ARG(f->outk, 10, ys2), SET_ARG(f->outk, 11, ys3);
  SET_ARG(f->outk, 12, n0u), SET_ARG(f->outk, 13, k), SET_ARG(f->outk, 14, p), SET_ARG(f->outk, 15, q);
  cl_uint ai = 16;
  if (d->has_bias) {
    SET_ARG(f->outk, ai, e->bias), ++ai;
    SET_ARG(f->outk, ai, boff), ++ai;
    SET_ARG(f->outk, ai, bs), ++ai;
  }
  SET_ARG(f->outk, ai, alpha), ++ai;
  SET_ARG(f->outk, ai, beta);
  if (err != CL_SUCCESS) return clforge__fail_cl(e->ctx, err, "clSetKernelArg (conv2d fft epilogue)");
  return launch_planes(c, f->outk, d->q, d->p, nb * d->k, "clEnqueueNDRangeKernel (conv2d fft epilogue)");
}

static clforge_status enqueue(const clforge__conv_exec *e) {
  clforge_context ctx = e->ctx;
  const clforge__conv *d = e->d;
  const int *v = e->v;
  fft_call f;
  fft_geom *g = &f.g;
  geometry(ctx, d, v, g);
  if (g->total > e->ws_bytes)
    return clforge__fail(ctx, CLFORGE_INTERNAL_ERROR, "conv2d fft: %zu bytes of workspace given, %zu needed",
                         e->ws_bytes, g->total);
  f.use_t = d->alpha != 0.0f; /* alpha == 0: x and w do not count */
  clforge__log(CLFORGE_LOG_DEBUG,
               "conv2d fft: tiles %zux%zu (%zu channel planes, phases %zux%zu), %zu images per slice, %zu filters "
               "per transform, workspace %zu bytes%s",
               g->fh, g->fw, g->cp, g->ph, g->pw, g->nb, g->kc, g->total, e->pw ? " (prepared weights)" : "");
  clforge_status st = get_call(ctx, d, v, &f);
  if (st != CLFORGE_SUCCESS) return st;

  regions r;
  memset(&r, 0, sizeof r);
  if (f.use_t) {
    st = make_regions(ctx, g, e->ws, e->pw ? e->pw : e->ws, &r, 1);
    if (st != CLFORGE_SUCCESS) return st;
  }
  chain c = {ctx, d, v, e->nwait, e->wait, NULL};
  if (f.use_t && !e->pw) st = filter_spectra(&c, d, v, g, e->w, &r);
  /* alpha == 0: one epilogue launch over the whole batch, nothing else. */
  const size_t step = f.use_t ? g->nb : d->n;
  for (size_t n0 = 0; n0 < d->n && st == CLFORGE_SUCCESS; n0 += step) {
    const size_t nb = d->n - n0 < step ? d->n - n0 : step;
    if (f.use_t) st = spectrum_pass(&c, e, &f, &r, n0, nb);
    if (st == CLFORGE_SUCCESS) st = epilogue_pass(&c, e, &f, &r, n0, nb);
  }
  release_regions(&r);
  if (st == CLFORGE_SUCCESS) {
    *e->event = c.last;
  } else if (c.last) {
    /* Launched commands still complete; the op reports the failure. */
    clWaitForEvents(1, &c.last);
    clReleaseEvent(c.last);
  }
  return st;
}

const clforge__conv_algo_impl clforge__conv_fft = {
    .algo = CLFORGE_CONV_ALGO_FFT,
    .name = "fft",
    .family = &clforge__family_conv_fft,
    .supports = supports,
    .workspace = workspace,
    .weights_bytes = weights_bytes,
    .prepare_weights = prepare_weights,
    .enqueue = enqueue,
};
