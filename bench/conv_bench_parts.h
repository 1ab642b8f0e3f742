/* The parts of `clforge bench conv` (conv_bench.c runs the cases; the
 * options, the case data and checks, the measurements of clforge, the
 * peers, the int8 rows and the report each have a file): their shared
 * types, and the calls one part makes of another. */
#ifndef CLFORGE_BENCH_CONV_BENCH_PARTS_H
#define CLFORGE_BENCH_CONV_BENCH_PARTS_H

#include <clforge/clforge.h>
#include <stddef.h>

#include "cli.h"
#include "conv_network.h"
#include "conv_peers.h"
#include "families/conv_layers.h" /* src/: the layers of real networks */
#include "report.h"
#include "session.h"
#include "table.h"
#include "timer.h"

enum { DEFAULT_RUNS = 10, DEFAULT_WARMUP = 2, MAX_RUNS = CLFORGE_BENCH_MAX_RUNS };
enum { MAX_BATCHES = 16, SPOT_SAMPLES = 64, NPEERS = 2, PEER_CLBLAST = 0, PEER_ONEDNN = 1 };
#define MAX_DIM (1ull << 20)
/* Below this many multiply-adds a peer is checked against the whole CPU
 * reference (plain loops, double accumulation: ~0.1 s) when no clforge
 * result exists; above, at sampled outputs. */
#define REF_FULL_MACS 5e7

/* One problem to run: a built-in layer or a --shape (N 0: from --batch). */
typedef struct {
  char name[64];
  clforge_bench_conv_shape s;
  const clforge__conv_layer *layer; /* the built-in layer, or NULL (--shape) */
} conv_spec;

enum { MAX_NETWORKS = 8 };

typedef struct {
  clforge_bench_cli cli; /* --json, --reps, --warmup, --no-peers, --no-peak */
  conv_spec *specs;
  size_t nspecs, cap;
  size_t batches[MAX_BATCHES];
  int nbatches;
  clforge_dtype dtypes[3];
  int ndtypes;
  clforge_tensor_layout layouts[2];
  int nlayouts;
  clforge_conv_algo algos[CLFORGE_CONV_ALGO_COUNT];
  int nalgos;
  double min_time;
  clforge_conv_kind pass; /* --pass: forward, backward data or backward filter */
  /* --network: whole networks, their layers run with prepared weights */
  const clforge__conv_network *networks[MAX_NETWORKS];
  int nnetworks;
  /* while parsing: the layers asked for (flags in table order) and the shapes */
  unsigned char *want_layer;
  int nlayers;
  conv_spec *shapes;
  size_t nshapes;
  int int8; /* --int8: a clforge_conv2d_quantized row per layer and batch too */
} conv_options;

/* ------------------------------------------------------------------ rows */

typedef enum { ROW_OK = 0, ROW_UNSUPPORTED = 1, ROW_ERROR = 2 } row_status;

/* One measured (or not) algorithm of one case. */
typedef struct {
  const char *layer;
  clforge_bench_conv_shape s;
  clforge_dtype dtype;
  clforge_tensor_layout layout;
  clforge_conv_algo algo;   /* asked for (AUTO: the automatic choice) */
  clforge_conv_algo chosen; /* what ran (auto: explain's answer) */
  const char *source;       /* where the choice came from (explain) */
  char why[96];             /* explain's reason */
  int arith;                /* the arithmetic its kernels ran (the widest; % peak's denominator) */
  char label[40];           /* the table's algo cell: "direct", "auto:winograd_4x4" */
  row_status status;
  char error[512];          /* why unsupported, or the failure */
  double median_ms, p95_ms, gflops, gbps;
  int have_ws;
  size_t workspace;
  int prepared;      /* --network: timed with prepared weights */
  double weights_ms; /* preparing them (host clock, once) */
  const clforge__conv_layer *net_layer; /* --network: the layer (count, kind) */
  const char *network;
  const char *timer;
  char timer_note[160];
  clforge_bench_peer_result peers[NPEERS];
  double vs_f32; /* --int8 rows: clforge f32 auto NHWC median over this one's (0: none) */
} conv_row;

typedef struct {
  clforge_bench_session s; /* context, peak, progress, warnings */
  const conv_options *o;
  clforge_bench_table table;
  const char *network; /* --network: the one being run */
  double f32_nhwc_ms;  /* the last case's clforge f32 auto NHWC median (--int8's base; 0: none) */
  struct int8_summary { /* --int8 rows, for the lines after the table */
    const char *layer;
    size_t n;
    double vs_f32, vs_onednn; /* 0: not measured */
  } int8s[64];
  int nint8;
} bench_env;

typedef struct {
  bench_env *env;
  const char *layer;
  clforge_bench_conv_shape s;
  clforge_dtype dtype;
  clforge_tensor_layout layout;
  size_t es, x_elems, w_elems, y_elems;
  float *x32, *w32; /* NCHW and KCRS values as the device sees them, widened to f32 */
  float *y32;       /* the backward passes' dy (NCHW), likewise */
  clforge_conv_kind pass;
  float *ref;       /* the CPU reference's y (NCHW), made when a peer needs it */
  cl_mem x, w, y;
  clforge_conv2d_desc desc;
  clforge_bench_onednn_conv *onednn;
} conv_case;

/* ---- conv_options.c: options */

/* Returns -1 to go on, or an exit status (0 after --help). */
int clforge_bench_conv_parse_options(int argc, char **argv, conv_options *o);

/* ---- conv_case.c: one case */

/* The session's progress line for this case. */
void clforge_bench_conv_progress(const bench_env *env, const conv_case *c, const char *what);
const char *clforge_bench_conv_layout_name(clforge_tensor_layout l);
/* The direct convolution's flop count, whatever the algorithm does. */
double clforge_bench_conv_flops(const clforge_bench_conv_shape *s);
double clforge_bench_conv_bytes(const conv_case *c);
void clforge_bench_conv_free_case(conv_case *c);
int clforge_bench_conv_setup_case(bench_env *env, conv_case *c, const conv_spec *sp, size_t n, clforge_dtype dtype,
                                  clforge_tensor_layout layout, char *err, size_t cap);
size_t clforge_bench_conv_out_elems(const conv_case *c);
const char *clforge_bench_conv_out_name(const conv_case *c);
/* All-ones bits in the output (NaN in f32, f16 and bf16): a run that writes
 * nothing, or too little, cannot pass on an earlier run's result. */
int clforge_bench_conv_poison_out(const conv_case *c);
/* Read the output back as NCHW (KCRS) f32. */
int clforge_bench_conv_read_out(const conv_case *c, float *out, char *err, size_t cap);
/* The f32 accumulation's share of the spot check's tolerance, relative to
 * sum |x||w|: Winograd's and FFT's transforms add rounding of their own. */
double clforge_bench_conv_accumulation_tolerance(clforge_conv_algo a);
/* Compare sampled outputs (the four corners of the output's box, where
 * padding and edge tiles are, then pseudo-random ones) with double sums of
 * the same inputs. Tolerance: the output's rounding plus acc_tol of
 * sum |terms|; a wrong output is off by about its own size, far more. */
int clforge_bench_conv_spot_check(const conv_case *c, const float *got, double acc_tol, char *why, size_t cap);
/* Peer-vs-clforge tolerance, relative to max |y|: catches wrong results
 * (layout, flipped filters, garbage), not precision differences. f16:
 * CLBlast's Hconvgemm accumulates in f16. */
double clforge_bench_conv_peer_tolerance(clforge_dtype d);
/* The CPU reference's y (NCHW f32) of the case's host copies, made once;
 * NULL (clforge_last_error(NULL) says why) when it fails. */
const float *clforge_bench_conv_ensure_ref(conv_case *c);
/* Whole-result tolerance against the reference, relative to max |y|: y's
 * rounding twice over, plus the f32 accumulation's (the transforms' for
 * Winograd and FFT). A wrong output is off by a term or more: far above. */
double clforge_bench_conv_full_tolerance(clforge_dtype d, clforge_conv_algo a);

/* ---- conv_measure.c: clforge's rows */

/* `runs` timed runs, then more until their sum reaches --min-time (the
 * same timer throughout; at most MAX_RUNS samples). */
int clforge_bench_conv_time_device(bench_env *env, clforge_bench_enqueue_fn fn, void *user, clforge_bench_timing *t,
                                   const char **where);
int clforge_bench_conv_time_host(bench_env *env, clforge_bench_host_fn fn, void *user, clforge_bench_timing *t);
void clforge_bench_conv_row_init(conv_row *r, const conv_case *c, clforge_conv_algo algo);
/* Time clforge with one algorithm and check its result; *result gets y
 * (NCHW f32) when it is right. Returns 0 when the row has numbers. */
int clforge_bench_conv_measure_clforge(conv_case *c, conv_row *r, float *result);

/* ---- conv_peer_runs.c: the peers */

void clforge_bench_conv_measure_clblast(conv_case *c, clforge_bench_peer_result *p, const float *want, float *scratch);
void clforge_bench_conv_measure_onednn(conv_case *c, clforge_bench_peer_result *p, const float *want, float *scratch);

/* ---- conv_int8.c: int8 */

int clforge_bench_conv_int8_row(bench_env *env, const conv_spec *sp, size_t n, double f32_ms);

/* ---- conv_report.c: the report */

void clforge_bench_conv_table_columns(bench_env *env);
void clforge_bench_conv_emit(bench_env *env, conv_row *r);
/* After the table: each int8 row's speed against clforge's f32 and oneDNN's int8. */
void clforge_bench_conv_print_int8_summary(const bench_env *env);

#endif /* CLFORGE_BENCH_CONV_BENCH_PARTS_H */
