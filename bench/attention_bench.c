/* `clforge bench attention`: clforge_attention timed with profiling events,
 * next to the unfused composite it replaces (S = scale Q K^T, softmax, O =
 * P V with the S x S scores in device memory) built from clforge's own GEMM
 * and from CLBlast's, on the same data and the same queue, with every
 * result checked before its number is shown.
 *
 * Per case (shape, dtypes): make Q, K and V once; time clforge_attention
 * and check sampled rows (all rows when the problem is small) against
 * clforge_ref_attention; run each composite and compare its whole O with
 * clforge's; then a yardstick row: for prefill, the composite's first GEMM
 * alone (Sq x Sk x D, the FLOP rate a fused kernel is compared with), for
 * decode a plain streaming read of as many bytes as K and V (the bandwidth
 * a decode kernel is compared with). A wrong result never gets a number. */
#include "attention_bench.h"

#include <cjson/cJSON.h>
#include <clforge/clforge.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attention_peers.h"
#include "cli.h"
#include "data.h"
#include "peers.h" /* clforge_bench_clblast_status_name, _release */
#include "report.h"
#include "session.h"
#include "stats.h"
#include "table.h"
#include "timer.h"

enum { DEFAULT_RUNS = 5, DEFAULT_WARMUP = 1, MIN_RUNS = CLFORGE_BENCH_MIN_RUNS };
enum { SAMPLE_ROWS = 32, GEMM_SAMPLES = 16, MAX_DTYPES = 3 };
enum { READ_RUNS = 20 }; /* the plain read's runs (each a millisecond or so): its best is the yardstick */
#define MAX_DIM (1ull << 20)
#define DEFAULT_BUDGET_S 3.0  /* per row: fewer runs (never below MIN_RUNS) when one takes longer */
#define DEFAULT_MAX_RUN_S 2.5 /* a peer whose run would take longer is skipped (estimated from its rate so far) */
#define REF_FULL_FLOPS 2e8    /* below: every row against the reference (double loops, ~0.1 s) */
#define DECODE_MAX_SQ 16      /* Sq at most this: a decode case (bandwidth-bound) */
#define Q_RANGE 4.0f          /* Q in [-4, 4): scores of std ~1.3, a softmax far from uniform */

/* Providers: one row each per case. */
enum { P_CLFORGE = 0, P_UNFUSED_CLFORGE = 1, P_UNFUSED_CLBLAST = 2, P_YARDSTICK = 3, P_PAGED = 4, NPROVIDERS = 5 };
static const char *const provider_names[] = {"clforge", "unfused-clforge", "unfused-clblast", NULL, "clforge:paged"};
enum { PEERS_CLFORGE = 1, PEERS_CLBLAST = 2 };

typedef struct {
  size_t b, hq, hkv, sq, sk, d;
  int causal;
} attn_shape;

typedef struct {
  clforge_bench_cli cli; /* --json, --reps, --warmup, --quick, --no-peak */
  attn_shape *shapes;
  size_t nshapes, cap;
  clforge_dtype dtypes[MAX_DTYPES], kv_dtypes[MAX_DTYPES];
  int ndtypes, nkv_dtypes; /* nkv_dtypes 0: K and V as Q for prefill; f32 and f16 for decode */
  double budget_s, max_run_s;
  size_t peer_mem; /* bytes; 0 = only the device's limits */
  int peers;       /* PEERS_* bits */
  size_t paged;    /* --paged: keys per block of the paged rows; 0 = none */
} attn_options;

/* ---------------------------------------------------------------- options */

void clforge_bench_attention_help(FILE *f) {
  fprintf(f,
          "usage: clforge bench attention [options]\n"
          "\n"
          "Time clforge_attention (O = softmax(scale Q K^T) V, scale 1/sqrt(D), tight BHSD\n"
          "tensors, causal masks aligned bottom-right) and, on the same data and queue, the\n"
          "unfused composite it replaces: S = scale Q K^T with a strided-batched GEMM (one\n"
          "batch item per batch and KV head: GQA by strides), clforge_softmax in place on\n"
          "S's rows (the causal mask as its additive mask), O = P V with a second GEMM;\n"
          "its GEMMs clforge_gemm's (unfused-clforge) or CLBlast's (unfused-clblast, f32).\n"
          "Each result is checked; a wrong one gets no number.\n"
          "\n"
          "Options:\n"
          "  --shapes LIST     prefill, decode, all (default), or B,Hq,Hkv,Sq,Sk,D[,causal];\n"
          "                    repeatable, also separated by ';'. prefill: B=1, Hq=8 (Hkv=8)\n"
          "                    and Hq=32 (Hkv=8, GQA), D=64 and 128, S=Sq=Sk=512..4096, causal\n"
          "                    and not; decode: B=1, Hq=32, Hkv=8, D=128, Sq=1,\n"
          "                    Sk=1024..16384. --shape is the same option\n"
          "  --dtype LIST      Q and O storage: f32,f16,bf16 or a subset (default f32); with\n"
          "                    f32 in the list, f16/bf16 rows show their speed-up over it\n"
          "  --kv-dtype LIST   K and V storage: f32, f16, bf16 or q8_0 (ggml's 8-bit blocks;\n"
          "                    its vs is over the f16-KV row, listed before it) (default:\n"
          "                    Q's for prefill; f32 and f16 for decode, the KV-cache comparison)\n"
          "  --paged N         also a paged-KV row per case (blocks of N keys, scattered over\n"
          "                    the pool): its O must equal clforge's bit for bit, vs is its\n"
          "                    speed over the contiguous row's\n"
          "  --reps N          timed runs per row, at least %d (default %d); --runs too\n"
          "  --budget SECONDS  fewer runs (never below %d) where one run is long: about this\n"
          "                    much timed per row (default %.0f; 0: always --reps)\n"
          "  --warmup N        untimed runs first, at least 1 (default %d)\n"
          "  --peers WHICH     none, clforge, clblast or all (default all): which composites\n"
          "                    run next to clforge_attention (none also drops the GEMM row)\n"
          "  --max-run SECONDS skip a composite whose run would take longer, estimated from\n"
          "                    its rate on the earlier cases (default %.1f; 0: run them all)\n"
          "  --peer-mem MIB    skip a composite whose S buffer needs more (default: the\n"
          "                    device's limits only)\n"
          "  --quick           tiny shapes, %d runs: checks the harness in seconds\n"
          "  --no-peak         do not measure the device's peak first (no %% flop, %% bw)\n"
          "  --json            one JSON object per line per row, nothing else on stdout\n"
          "  -h, --help        show this help\n"
          "\n"
          "Rows per case: clforge (with the algorithm it chose), unfused-clforge,\n"
          "unfused-clblast, and a yardstick: for prefill \"gemm QK^T\", the composite's\n"
          "Sq x Sk x D GEMM alone (clforge_gemm); for decode (Sq <= %d) \"read K+V\", a plain\n"
          "streaming read of as many bytes as K and V (bench/peak.cl's read kernel).\n"
          "Columns: median and p95 (nearest rank) of the runs in ms (profiling events around\n"
          "each run; the host clock where profiling is unavailable); GFLOP/s = 4*B*Hq*Sq*Sk*D\n"
          "(halved for causal, every row the same count) / median; GB/s = bytes of Q, K, V\n"
          "read and O written once / median (read K+V: its bytes); extra = device memory the\n"
          "call needs beyond Q, K, V and O (clforge_attention_workspace_size; the composite's\n"
          "S buffer and causal mask); %% flop = GFLOP/s / the device's f32 peak (f16's for\n"
          "f16 arithmetic) and %% bw = GB/s\n"
          "/ its streaming bandwidth ('clforge bench peak'); %% read = GB/s / the same case's\n"
          "read K+V (decode); vs = clforge's rate over the row's (GFLOP/s; GB/s against\n"
          "read K+V): above 1, clforge is faster.\n"
          "\n"
          "The device is CLFORGE_DEVICE's choice (see 'clforge info'). Validation mode is\n"
          "off while timing. Exit status: 0 success, 1 a clforge row failed or was wrong,\n"
          "or no device, 2 usage error.\n",
          MIN_RUNS, DEFAULT_RUNS, MIN_RUNS, DEFAULT_BUDGET_S, DEFAULT_WARMUP, DEFAULT_MAX_RUN_S, MIN_RUNS,
          DECODE_MAX_SQ);
}

static int add_shape(attn_options *o, attn_shape s) {
  if (o->nshapes == o->cap) {
    size_t cap = o->cap ? 2 * o->cap : 64;
    attn_shape *p = realloc(o->shapes, cap * sizeof *p);
    if (!p) return -1;
    o->shapes = p;
    o->cap = cap;
  }
  o->shapes[o->nshapes++] = s;
  return 0;
}

/* The list: (Hq, Hkv) = (8, 8) and (32, 8), D = 64 and 128, S =
 * 512..4096, non-causal then causal (the causal speed-up side by side). */
static int add_prefill(attn_options *o) {
  static const size_t heads[][2] = {{8, 8}, {32, 8}}, dims[] = {64, 128}, seqs[] = {512, 1024, 2048, 4096};
  for (size_t h = 0; h < 2; ++h)
    for (size_t d = 0; d < 2; ++d)
      for (size_t s = 0; s < 4; ++s)
        for (int c = 0; c < 2; ++c)
          if (add_shape(o, (attn_shape){1, heads[h][0], heads[h][1], seqs[s], seqs[s], dims[d], c})) return -1;
  return 0;
}

static int add_decode(attn_options *o) {
  static const size_t sks[] = {1024, 2048, 4096, 8192, 16384};
  for (size_t i = 0; i < 5; ++i)
    if (add_shape(o, (attn_shape){1, 32, 8, 1, sks[i], 128, 0})) return -1;
  return 0;
}

/* "B,Hq,Hkv,Sq,Sk,D[,causal]". */
static int parse_shape(const char *v, attn_shape *s, char *err, size_t cap) {
  unsigned long long n[6];
  char tok[32];
  const char *p = v;
  int count = 0, t;
  memset(s, 0, sizeof *s);
  while ((t = clforge_bench_next_token(&p, ",", tok, sizeof tok)) == 1) {
    if (count < 6) {
      if (clforge_bench_parse_number(tok, strlen(tok), 1, MAX_DIM, &n[count])) {
        snprintf(err, cap, "\"%s\" is not a whole number from 1 to %llu", tok, MAX_DIM);
        return -1;
      }
    } else if (count == 6 && (!strcmp(tok, "causal") || !strcmp(tok, "1"))) {
      s->causal = 1;
    } else if (count == 6 && (!strcmp(tok, "none") || !strcmp(tok, "0"))) {
      s->causal = 0;
    } else {
      snprintf(err, cap, "expected B,Hq,Hkv,Sq,Sk,D and optionally causal (or none)");
      return -1;
    }
    ++count;
  }
  if (t < 0 || count < 6) {
    snprintf(err, cap, "expected B,Hq,Hkv,Sq,Sk,D and optionally causal (or none)");
    return -1;
  }
  s->b = n[0], s->hq = n[1], s->hkv = n[2], s->sq = n[3], s->sk = n[4], s->d = n[5];
  if (s->hq % s->hkv) {
    snprintf(err, cap, "Hq = %zu is not a multiple of Hkv = %zu", s->hq, s->hkv);
    return -1;
  }
  if (s->d > 256) {
    snprintf(err, cap, "D = %zu: clforge_attention takes D up to 256", s->d);
    return -1;
  }
  return 0;
}

int clforge_bench_attention_parse_shape(const char *v, clforge_attention_desc *d, char *err, size_t cap) {
  attn_shape s;
  if (parse_shape(v, &s, err, cap)) return -1;
  memset(d, 0, sizeof *d);
  d->batch = s.b, d->heads_q = s.hq, d->heads_kv = s.hkv, d->seq_q = s.sq, d->seq_kv = s.sk;
  d->head_dim = d->head_dim_v = s.d;
  d->causal = s.causal ? CLFORGE_CAUSAL_BOTTOM_RIGHT : CLFORGE_CAUSAL_NONE;
  return 0;
}

/* One of attention's own options at argv[*a] (clforge_bench_own_option). */
static int attn_option(clforge_bench_cli *cli, int argc, char **argv, int *a, void *user) {
  attn_options *o = user;
  const char *v = NULL;
  unsigned long long num;
  char err[256], tok[96];
  if (clforge_bench_option(argc, argv, a, "--shapes", &v) || clforge_bench_option(argc, argv, a, "--shape", &v)) {
    const char *s = v;
    int t = v ? 1 : -1;
    while (t == 1 && (t = clforge_bench_next_token(&s, ";", tok, sizeof tok)) == 1) {
      attn_shape sh;
      int rc = 0;
      if (!strcmp(tok, "prefill")) rc = add_prefill(o);
      else if (!strcmp(tok, "decode")) rc = add_decode(o);
      else if (!strcmp(tok, "all")) rc = add_prefill(o) || add_decode(o);
      else if (parse_shape(tok, &sh, err, sizeof err))
        return clforge_bench_usage_error(cli, "--shapes \"%s\": %s", tok, err);
      else rc = add_shape(o, sh);
      if (rc) return clforge_bench_usage_error(cli, "out of memory");
    }
    if (t < 0)
      return clforge_bench_usage_error(cli, "--shapes needs prefill, decode, all or B,Hq,Hkv,Sq,Sk,D[,causal]");
  } else if (clforge_bench_option(argc, argv, a, "--dtype", &v)) {
    return clforge_bench_cli_dtypes(cli, "--dtype", v, o->dtypes, &o->ndtypes, MAX_DTYPES);
  } else if (clforge_bench_option(argc, argv, a, "--kv-dtype", &v)) {
    int bad = !v || clforge_bench_parse_dtypes(v, o->kv_dtypes, &o->nkv_dtypes, MAX_DTYPES);
    for (int i = 0; i < o->nkv_dtypes && !bad; ++i)
      bad = o->kv_dtypes[i] == CLFORGE_S8 || o->kv_dtypes[i] == CLFORGE_U8 || o->kv_dtypes[i] == CLFORGE_S32;
    if (bad)
      return clforge_bench_usage_error(cli, "--kv-dtype \"%s\": expected f32, f16, bf16 or q8_0, separated by commas",
                                       v ? v : "");
  } else if (clforge_bench_option(argc, argv, a, "--paged", &v)) {
    char *end = NULL;
    const unsigned long n = v ? strtoul(v, &end, 10) : 0;
    if (!v || end == v || *end || n < 1 || n > 65536)
      return clforge_bench_usage_error(cli, "--paged needs keys per block, 1 to 65536 (e.g. --paged 16)");
    o->paged = (size_t)n;
  } else if (clforge_bench_option(argc, argv, a, "--budget", &v)) {
    if (clforge_bench_parse_seconds(v, 3600, &o->budget_s))
      return clforge_bench_usage_error(cli, "--budget needs seconds from 0 to 3600");
  } else if (clforge_bench_option(argc, argv, a, "--max-run", &v)) {
    if (clforge_bench_parse_seconds(v, 3600, &o->max_run_s))
      return clforge_bench_usage_error(cli, "--max-run needs seconds from 0 to 3600");
  } else if (clforge_bench_option(argc, argv, a, "--peer-mem", &v)) {
    if (!v || clforge_bench_parse_number(v, strlen(v), 1, 1ull << 30, &num))
      return clforge_bench_usage_error(cli, "--peer-mem needs MiB, a whole number from 1");
    o->peer_mem = (size_t)num << 20;
  } else if (clforge_bench_option(argc, argv, a, "--peers", &v)) {
    if (!v) return clforge_bench_usage_error(cli, "--peers needs none, clforge, clblast or all");
    if (!strcmp(v, "none")) o->peers = 0;
    else if (!strcmp(v, "clforge")) o->peers = PEERS_CLFORGE;
    else if (!strcmp(v, "clblast")) o->peers = PEERS_CLBLAST;
    else if (!strcmp(v, "all")) o->peers = PEERS_CLFORGE | PEERS_CLBLAST;
    else return clforge_bench_usage_error(cli, "--peers \"%s\": expected none, clforge, clblast or all", v);
  } else {
    return 0;
  }
  return 1;
}

/* Returns -1 to go on, or an exit status (0 after --help). */
static int parse_options(int argc, char **argv, attn_options *o) {
  o->cli = clforge_bench_cli_for("attention", clforge_bench_attention_help,
                                 CLFORGE_BENCH_OPT_TIMED | CLFORGE_BENCH_OPT_QUICK, DEFAULT_RUNS, DEFAULT_WARMUP);
  o->budget_s = DEFAULT_BUDGET_S;
  o->max_run_s = DEFAULT_MAX_RUN_S;
  o->peers = PEERS_CLFORGE | PEERS_CLBLAST;
  int rc = clforge_bench_cli_parse(&o->cli, argc, argv, attn_option, o);
  if (rc >= 0) return rc;
  if (o->nshapes == 0) {
    if (o->cli.quick) /* one of each kind, tiny: MHA and GQA prefill, causal and not, decode; one head
                         dim (each is a program of its own, seconds to compile) */
      rc = add_shape(o, (attn_shape){1, 2, 2, 48, 48, 16, 0}) || add_shape(o, (attn_shape){1, 4, 2, 40, 40, 16, 1}) ||
           add_shape(o, (attn_shape){1, 4, 2, 1, 256, 16, 0});
    else rc = add_prefill(o) || add_decode(o);
    if (rc) return clforge_bench_usage_error(&o->cli, "out of memory");
  }
  if (o->cli.quick && !o->cli.runs_given) o->cli.runs = MIN_RUNS;
  if (o->ndtypes == 0) o->dtypes[o->ndtypes++] = CLFORGE_F32;
  return -1;
}

/* ------------------------------------------------------------------- rows */

typedef enum { ROW_OK = 0, ROW_NA = 1, ROW_ERROR = 2 } row_status;

typedef struct {
  attn_shape s;
  clforge_dtype q_type, kv_type, o_type;
  int decode;
  char provider[48]; /* "clforge:fused", "unfused-clforge", "gemm QK^T", "read K+V" */
  const char *algo;  /* clforge's choice (JSON); NULL for the others */
  int splits;
  char why[96];      /* clforge_attention_explain's reason for it */
  int arith;         /* the arithmetic clforge's kernel ran (clforge_compute_type; % flop's denominator) */
  row_status status;
  char note[512]; /* why n/a or error; a remark when ok */
  double median_ms, p95_ms, gflops, gbps, flops, bytes;
  int have_extra;
  size_t extra_bytes;
  double vs;      /* clforge's rate over this row's; 0 = none */
  double vs_base;        /* clforge rows: the base row's median over this one's; 0 = no base */
  const char *base;      /* which base: "non-causal", "f32" */
  double read_gbps; /* the case's plain read of K+V (decode); 0 = none */
  int runs;
  const char *timer;
  char timer_note[160];
} attn_row;

typedef struct {
  clforge_bench_session s; /* context, peak, progress, warnings */
  const attn_options *o;
  clforge_bench_table table;
  /* GFLOP/s of the full S x S work each composite reached on its last
   * prefill [0] and decode [1] case (decode's thin GEMMs run far slower); 0 = none yet */
  double peer_rate[2][2];
  /* clforge's earlier medians, for the side-by-side ratios: causal
   * vs non-causal, f16/bf16 storage vs f32 (see base_of). */
  struct clforge_row_ms {
    attn_shape s;
    clforge_dtype q_type, kv_type;
    double ms;
  } *done;
  size_t ndone, done_cap;
  attn_row *kept; /* every emitted row, for the targets' summary */
  size_t nkept, kept_cap;
} bench_env;

typedef struct {
  bench_env *env;
  attn_shape s;
  clforge_bench_attn_problem p;
  size_t q_elems, kv_elems, o_elems;
  void *q_raw, *k_raw, *v_raw; /* device storage, as uploaded: the reference reads these */
  float vmax;                  /* max |V|: the scale of O */
  cl_mem q, k, v, o;
  clforge_attention_desc desc;
  clforge_bench_unfused unfused;
} attn_case;

static void progress(const bench_env *env, const attn_case *c, const char *what) {
  clforge_bench_progress(&env->s, "B=%zu Hq=%zu Hkv=%zu Sq=%zu Sk=%zu D=%zu%s %s: %s", c->s.b, c->s.hq, c->s.hkv,
                         c->s.sq, c->s.sk, c->s.d, c->s.causal ? " causal" : "", clforge_dtype_name(c->p.kv_type),
                         what);
}

/* Useful work: two products of 2*Sq*Sk*D per (b, h); causal sees about half
 * the keys (the count every row uses, also the composites that compute all). */
static double attn_flops(const attn_shape *s) {
  double f = 4.0 * (double)s->b * (double)s->hq * (double)s->sq * (double)s->sk * (double)s->d;
  return s->causal ? f / 2 : f;
}

/* What a composite actually computes: the whole S x S. */
static double full_flops(const attn_shape *s) {
  return 4.0 * (double)s->b * (double)s->hq * (double)s->sq * (double)s->sk * (double)s->d;
}

/* Bytes of one stored K or V row of D values (q8_0: 34 per 32). */
static size_t kv_row_bytes(clforge_dtype t, size_t d) { return t == CLFORGE_Q8_0 ? d / 32 * 34 : d * clforge_dtype_size(t); }

/* Bytes of K (or V) as stored. */
static size_t kv_bytes(const attn_case *c) { return c->kv_elems / c->s.d * kv_row_bytes(c->p.kv_type, c->s.d); }

static double attn_bytes(const attn_case *c) {
  return (double)c->q_elems * (double)clforge_dtype_size(c->p.q_type) + 2.0 * (double)kv_bytes(c) +
         (double)c->o_elems * (double)clforge_dtype_size(c->p.o_type);
}

/* ------------------------------------------------------------------ table */

/* A decode row above its case's plain read of K+V: the read (best of
 * READ_RUNS) was measured low. 1 and the note, or 0. */
static int read_note(const attn_row *r, char *note, size_t cap) {
  if (!(r->read_gbps > 0) || !(r->gbps > r->read_gbps)) return 0;
  snprintf(note, cap, "read K+V measured low: %.0f%% of the case's plain read of K+V (%.1f GB/s), measured while the "
           "device was busy", 100 * r->gbps / r->read_gbps, r->read_gbps);
  return 1;
}

static void dtype_label(char *buf, size_t cap, const attn_row *r) {
  if (r->q_type == r->kv_type && r->kv_type == r->o_type) snprintf(buf, cap, "%s", clforge_dtype_name(r->q_type));
  else
    snprintf(buf, cap, "%s/%s/%s", clforge_dtype_name(r->q_type), clforge_dtype_name(r->kv_type),
             clforge_dtype_name(r->o_type));
}

static void table_columns(bench_env *env) {
  clforge_bench_table *t = &env->table;
  static const char *const dims[] = {"B", "Hq", "Hkv", "Sq", "Sk", "D"};
  clforge_bench_table_init(t, stdout);
  for (int i = 0; i < 6; ++i) clforge_bench_table_column(t, dims[i], 5, 0);
  clforge_bench_table_column(t, "mask", 6, 1);
  clforge_bench_table_column(t, "q/kv/o", 13, 1);
  clforge_bench_table_column(t, "provider", 22, 1);
  clforge_bench_table_result_columns(t, 1);
  clforge_bench_table_column(t, "extra MiB", 9, 0);
  clforge_bench_table_peak_columns(t, &env->s.peak, "% flop");
  clforge_bench_table_column(t, "% read", 6, 0);
  clforge_bench_table_column(t, "vs", 7, 0);
}

static void table_row(bench_env *env, const attn_row *r) {
  clforge_bench_table *t = &env->table;
  char buf[640], note[700];
  const size_t dims[] = {r->s.b, r->s.hq, r->s.hkv, r->s.sq, r->s.sk, r->s.d};
  for (int i = 0; i < 6; ++i) clforge_bench_table_cellf(t, "%zu", dims[i]);
  clforge_bench_table_cell(t, r->s.causal ? "causal" : "-");
  dtype_label(buf, sizeof buf, r);
  clforge_bench_table_cell(t, buf);
  clforge_bench_table_cell(t, r->provider);
  if (r->status != ROW_OK) {
    const char *word = r->status == ROW_NA ? "n/a" : "error";
    snprintf(note, sizeof note, "%s %s: %s", r->provider, word, r->note[0] ? r->note : "failed");
    clforge_bench_table_status(t, 8 + 2 * t->peak_columns, word, note);
    clforge_bench_table_end_row(t);
    return;
  }
  clforge_bench_table_results(t, r->median_ms, r->p95_ms, r->timer, r->timer_note, 1, r->gflops, r->gbps);
  if (r->have_extra) snprintf(buf, sizeof buf, r->extra_bytes && r->extra_bytes < (1u << 20) / 10 ? "%.3f" : "%.1f",
                              (double)r->extra_bytes / (1024.0 * 1024.0));
  else snprintf(buf, sizeof buf, "-");
  clforge_bench_table_cell(t, buf);
  const clforge_bench_peaks pk = clforge_bench_peaks_for(&env->s.peak, r->arith); /* f16 rows: the f16 peak */
  if (t->peak_columns) clforge_bench_table_peak_cells(t, &pk, 1, r->gflops, r->gbps, r->bytes);
  int k = read_note(r, note, sizeof note) ? clforge_bench_table_note(t, note) : 0;
  clforge_bench_fmt_percent(buf, sizeof buf, r->gbps, r->read_gbps, k);
  clforge_bench_table_cell(t, buf);
  if (r->vs > 0) snprintf(buf, sizeof buf, "%.2fx", r->vs);
  else if (r->vs_base > 0) {
    snprintf(note, sizeof note,
             "clforge rows: vs = the speed-up over the same shape's %s row (its median over this one's)", r->base);
    k = clforge_bench_table_note(t, note);
    snprintf(buf, sizeof buf, k ? "%.2fx [%d]" : "%.2fx", r->vs_base, k);
  } else snprintf(buf, sizeof buf, "-");
  if (r->note[0]) { /* a remark on a measured row (e.g. what a yardstick is) */
    snprintf(note, sizeof note, "%s: %s", r->provider, r->note);
    k = clforge_bench_table_note(t, note);
    size_t len = strlen(buf);
    if (k) snprintf(buf + len, sizeof buf - len, " [%d]", k);
  }
  clforge_bench_table_cell(t, buf);
  clforge_bench_table_end_row(t);
}

/* ------------------------------------------------------------------- JSON */

static int print_json(const attn_row *r, const bench_env *env) {
  cJSON *o = cJSON_CreateObject();
  if (!o) return -1;
  const int ok = r->status == ROW_OK;
  clforge_bench_json_string(o, "op", "attention");
  clforge_bench_json_string(o, "kind", r->decode ? "decode" : "prefill");
  cJSON_AddNumberToObject(o, "b", (double)r->s.b);
  cJSON_AddNumberToObject(o, "hq", (double)r->s.hq);
  cJSON_AddNumberToObject(o, "hkv", (double)r->s.hkv);
  cJSON_AddNumberToObject(o, "sq", (double)r->s.sq);
  cJSON_AddNumberToObject(o, "sk", (double)r->s.sk);
  cJSON_AddNumberToObject(o, "d", (double)r->s.d);
  cJSON_AddNumberToObject(o, "dv", (double)r->s.d);
  cJSON_AddBoolToObject(o, "causal", r->s.causal);
  clforge_bench_json_string(o, "q_dtype", clforge_dtype_name(r->q_type));
  clforge_bench_json_string(o, "kv_dtype", clforge_dtype_name(r->kv_type));
  clforge_bench_json_string(o, "o_dtype", clforge_dtype_name(r->o_type));
  clforge_bench_json_string(o, "provider", r->provider);
  if (r->algo) {
    clforge_bench_json_string(o, "algo", r->algo);
    cJSON_AddNumberToObject(o, "splits", r->splits);
    clforge_bench_json_string(o, "algo_why", r->why);
  }
  clforge_bench_json_string(o, "status", r->status == ROW_OK ? "ok" : r->status == ROW_NA ? "n/a" : "error");
  clforge_bench_json_times(o, ok, r->median_ms, r->p95_ms);
  clforge_bench_json_number(o, "gflops", ok, r->gflops);
  clforge_bench_json_number(o, "gbps", ok, r->gbps);
  clforge_bench_json_number(o, "flops", 1, r->flops);
  clforge_bench_json_number(o, "bytes", 1, r->bytes);
  clforge_bench_json_number(o, "extra_bytes", r->have_extra, (double)r->extra_bytes);
  const clforge_bench_peaks pk = clforge_bench_peaks_for(&env->s.peak, r->arith);
  clforge_bench_json_peaks(o, &pk, ok, r->gflops, r->gbps, r->bytes);
  clforge_bench_json_number(o, "kv_read_gbps", r->read_gbps > 0, r->read_gbps);
  clforge_bench_json_number(o, "frac_kv_read", ok && r->read_gbps > 0, clforge_bench_fraction(r->gbps, r->read_gbps));
  char note[400];
  if (ok && read_note(r, note, sizeof note)) cJSON_AddStringToObject(o, "kv_read_note", note);
  clforge_bench_json_number(o, "vs_clforge", ok && r->vs > 0, r->vs);
  if (r->base) {
    clforge_bench_json_string(o, "base", r->base);
    clforge_bench_json_number(o, "vs_base", ok && r->vs_base > 0, r->vs_base);
  }
  clforge_bench_json_run(o, ok ? r->runs : 0, env->o->cli.warmup, ok ? r->timer : NULL, ok ? r->timer_note : NULL,
                         env->s.device);
  if (r->note[0]) cJSON_AddStringToObject(o, ok ? "note" : r->status == ROW_NA ? "note" : "error", r->note);
  return clforge_bench_json_line(stdout, o);
}

/* ------------------------------------------------------------------- data */

static void free_case(attn_case *c) {
  cl_mem *m[] = {&c->q, &c->k, &c->v, &c->o};
  for (size_t i = 0; i < 4; ++i)
    if (*m[i]) clReleaseMemObject(*m[i]);
  free(c->q_raw);
  free(c->k_raw);
  free(c->v_raw);
  clforge_bench_unfused_destroy(&c->unfused);
  memset(c, 0, sizeof *c);
}

/* Random data in f32, stored in the case's dtypes (the raw copies are what
 * the device and the reference both read); device buffers. */
static void *make_tensor(size_t n, clforge_dtype t, uint32_t seed, float range, float *maxabs) {
  float *f = malloc(n * sizeof *f);
  void *raw = t == CLFORGE_F32 ? (void *)f : malloc(n * clforge_dtype_size(t));
  if (!f || !raw) {
    free(f);
    if (raw != f) free(raw);
    return NULL;
  }
  clforge_bench_fill_random(f, n, seed, range);
  if (maxabs) {
    float m = 0;
    for (size_t i = 0; i < n; ++i) m = fabsf(f[i]) > m ? fabsf(f[i]) : m;
    *maxabs = m;
  }
  if (raw != f) {
    clforge_ref_convert(n, f, CLFORGE_F32, raw, t);
    free(f);
  }
  return raw;
}

/* K or V: random f32 values in [-1, 1) stored as t (q8_0 rows of d values
 * through the reference quantizer). */
static void *make_kv(size_t n, size_t d, clforge_dtype t, uint32_t seed, float *maxabs) {
  if (t != CLFORGE_Q8_0) return make_tensor(n, t, seed, 1.0f, maxabs);
  float *f = make_tensor(n, CLFORGE_F32, seed, 1.0f, maxabs);
  void *raw = f ? malloc(n / d * kv_row_bytes(t, d)) : NULL;
  clforge_quant_desc qd = {.scheme = CLFORGE_QUANT_Q8_0, .rows = n / d, .cols = d};
  if (raw && clforge_ref_quantize(&qd, f, raw, NULL, NULL) != CLFORGE_SUCCESS) free(raw), raw = NULL;
  free(f);
  return raw;
}

static int setup_case(bench_env *env, attn_case *c, const attn_shape *s, clforge_dtype qt, clforge_dtype kvt, char *err,
                      size_t cap) {
  memset(c, 0, sizeof *c);
  c->env = env;
  c->s = *s;
  c->p = (clforge_bench_attn_problem){.b = s->b, .hq = s->hq, .hkv = s->hkv, .sq = s->sq, .sk = s->sk, .d = s->d,
                                      .dv = s->d, .causal = s->causal, .q_type = qt, .kv_type = kvt, .o_type = qt,
                                      .scale = (float)(1.0 / sqrt((double)s->d))};
  c->q_elems = s->b * s->hq * s->sq * s->d;
  c->kv_elems = s->b * s->hkv * s->sk * s->d;
  c->o_elems = c->q_elems;
  c->desc = (clforge_attention_desc){.batch = s->b, .heads_q = s->hq, .heads_kv = s->hkv, .seq_q = s->sq,
                                     .seq_kv = s->sk, .head_dim = s->d, .q_type = qt, .kv_type = kvt, .o_type = qt,
                                     .causal = s->causal ? CLFORGE_CAUSAL_BOTTOM_RIGHT : CLFORGE_CAUSAL_NONE};
  if (kvt == CLFORGE_Q8_0 && s->d % 32) {
    snprintf(err, cap, "q8_0 K/V needs D a multiple of 32");
    return -1;
  }
  const size_t qb = c->q_elems * clforge_dtype_size(qt), kvb = kv_bytes(c);
  if (qb > env->s.info.max_alloc_bytes || kvb > env->s.info.max_alloc_bytes) {
    snprintf(err, cap, "Q or K needs more than the device's largest allocation (%llu bytes)",
             (unsigned long long)env->s.info.max_alloc_bytes);
    return -1;
  }
  c->q_raw = make_tensor(c->q_elems, qt, 0x1234567u, Q_RANGE, NULL);
  c->k_raw = make_kv(c->kv_elems, s->d, kvt, 0x89abcdefu, NULL);
  c->v_raw = make_kv(c->kv_elems, s->d, kvt, 0x2468aceu, &c->vmax);
  if (!c->q_raw || !c->k_raw || !c->v_raw) {
    snprintf(err, cap, "out of host memory for the data");
    return -1;
  }
  cl_int e[4];
  c->q = clCreateBuffer(env->s.cl_ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, qb, c->q_raw, &e[0]);
  c->k = clCreateBuffer(env->s.cl_ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, kvb, c->k_raw, &e[1]);
  c->v = clCreateBuffer(env->s.cl_ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, kvb, c->v_raw, &e[2]);
  c->o = clCreateBuffer(env->s.cl_ctx, CL_MEM_READ_WRITE, qb, NULL, &e[3]);
  for (int i = 0; i < 4; ++i)
    if (e[i] != CL_SUCCESS) {
      snprintf(err, cap, "clCreateBuffer failed (%s)", clforge_status_name(e[i]));
      return -1;
    }
  return 0;
}

/* O filled with NaN bits, so that a run that writes too little cannot pass
 * on an earlier result. */
static cl_int poison_o(attn_case *c) {
  const unsigned char ff = 0xFF;
  cl_int e = clEnqueueFillBuffer(c->env->s.queue, c->o, &ff, 1, 0, c->o_elems * clforge_dtype_size(c->p.o_type), 0,
                                 NULL, NULL);
  return e == CL_SUCCESS ? clFinish(c->env->s.queue) : e;
}

/* clforge's O against clforge_ref_attention: every row when the problem is
 * small, else SAMPLE_ROWS rows (the first and last of the first and last
 * heads, then pseudo-random ones), each as a one-query problem over the keys
 * that row sees (the causal diagonal turned into a key count), so the
 * reference costs Sk*D per row. Tolerance, relative to max |O|: O's
 * rounding a few times over plus the f32 accumulation; a wrong row (another
 * head, a lost mask, a bad rescale) is off by about |O| itself. */
static int check_clforge(attn_case *c, const float *got, char *why, size_t cap) {
  const attn_shape *s = &c->s;
  const double tol = 4 * clforge_bench_unit_roundoff(c->p.o_type) + 1e-4;
  const size_t dv = s->d, oes = clforge_dtype_size(c->p.o_type);
  const int whole = full_flops(s) <= REF_FULL_FLOPS;
  const size_t nrows = whole ? s->b * s->hq * s->sq : SAMPLE_ROWS;
  float *want = malloc(nrows * dv * sizeof *want), *have = malloc(nrows * dv * sizeof *have);
  void *raw = malloc(dv * oes);
  if (!want || !have || !raw) {
    free(want), free(have), free(raw);
    snprintf(why, cap, "out of host memory for the reference check");
    return -1;
  }
  const size_t total_rows = s->b * s->hq * s->sq, group = s->hq / s->hkv;
  uint32_t seed = 0xC0FFEEu;
  int rc = 0;
  for (size_t t = 0; t < nrows && rc == 0; ++t) {
    size_t row;
    if (whole) row = t;
    else if (t < 4) row = (t & 1 ? s->sq - 1 : 0) + (t & 2 ? total_rows - s->sq : 0);
    else {
      seed = seed * 1664525u + 1013904223u;
      row = (size_t)(((uint64_t)(seed >> 4) * total_rows) >> 28);
    }
    const size_t i = row % s->sq, bh = row / s->sq, b = bh / s->hq, h = bh % s->hq, g = h / group;
    /* Bottom-right: query i sees keys j <= i + Sk - Sq. */
    const long long diag = (long long)i + (long long)s->sk - (long long)s->sq;
    size_t keys = s->causal ? (diag < 0 ? 0 : (size_t)diag + 1 > s->sk ? s->sk : (size_t)diag + 1) : s->sk;
    memcpy(have + t * dv, got + row * dv, dv * sizeof(float));
    if (keys == 0) { /* no visible key: zeros */
      memset(want + t * dv, 0, dv * sizeof(float));
      continue;
    }
    /* K's and V's offsets in their units: elements, q8_0's bytes */
    const size_t kv_row = c->p.kv_type == CLFORGE_Q8_0 ? kv_row_bytes(CLFORGE_Q8_0, s->d) : s->d;
    clforge_attention_desc d = {.batch = 1, .heads_q = 1, .heads_kv = 1, .seq_q = 1, .seq_kv = keys,
                                .head_dim = s->d, .q_type = c->p.q_type, .kv_type = c->p.kv_type,
                                .o_type = c->p.o_type, .scale = c->p.scale,
                                .q_offset = row * s->d, .k_offset = (b * s->hkv + g) * s->sk * kv_row,
                                .v_offset = (b * s->hkv + g) * s->sk * kv_row};
    if (clforge_ref_attention(&d, c->q_raw, c->k_raw, c->v_raw, NULL, NULL, NULL, raw, NULL) != CLFORGE_SUCCESS) {
      snprintf(why, cap, "clforge_ref_attention failed: %s", clforge_last_error(NULL));
      rc = -1;
    } else {
      clforge_ref_convert(dv, raw, c->p.o_type, want + t * dv, CLFORGE_F32);
    }
  }
  if (rc == 0) {
    double diff = clforge_bench_max_rel_diff(have, want, nrows * dv);
    if (!(diff < tol)) {
      snprintf(why, cap,
               "wrong result: max |O - clforge_ref_attention's| = %.3g of max |O| over %s (tolerance %.1e)", diff,
               whole ? "every row" : "32 sampled rows", tol);
      rc = -1;
    }
  }
  free(want), free(have), free(raw);
  return rc;
}

/* ----------------------------------------------------------------- timing */

typedef int (*enqueue_fn)(void *user, cl_command_queue queue);

/* Warm-up, one timed run, then as many more as --reps asks (at least
 * `min_runs`), fewer when the runs are long (about --budget seconds per row,
 * never below MIN_RUNS). The rates come from the median run, or with `best`
 * from the fastest (a yardstick: what the device can give). */
static int time_row(bench_env *env, enqueue_fn fn, void *user, attn_row *r, const char **where, int min_runs,
                    int best) {
  const attn_options *o = env->o;
  clforge_bench_timing t1, t2;
  memset(&t2, 0, sizeof t2);
  int rc = clforge_bench_time_queue(env->s.queue, fn, user, o->cli.warmup, 1, &t1, where);
  if (rc) return rc;
  int runs = o->cli.runs > min_runs ? o->cli.runs : min_runs;
  if (o->budget_s > 0 && t1.seconds[0] > 0) {
    double fit = o->budget_s / t1.seconds[0];
    if (fit < runs) runs = fit < MIN_RUNS ? MIN_RUNS : (int)fit;
  }
  rc = clforge_bench_time_queue(env->s.queue, fn, user, 0, runs - 1, &t2, where);
  if (rc) {
    clforge_bench_timing_free(&t1);
    return rc;
  }
  double *all = malloc((size_t)runs * sizeof *all);
  if (!all) {
    clforge_bench_timing_free(&t1);
    clforge_bench_timing_free(&t2);
    *where = "malloc";
    return CL_OUT_OF_HOST_MEMORY;
  }
  /* Never a mix of clocks: a host-clock sample is only kept with others. */
  int n = 0;
  if (t1.timer == t2.timer) all[n++] = t1.seconds[0];
  for (int i = 0; i < t2.runs; ++i) all[n++] = t2.seconds[i];
  clforge_bench_stats st;
  int bad = clforge_bench_summarize(all, (size_t)n, &st);
  free(all);
  r->timer = clforge_bench_timer_name(t2.timer);
  snprintf(r->timer_note, sizeof r->timer_note, "%s", t2.timer == CLFORGE_BENCH_TIMER_WALL ? t2.why_wall : "");
  clforge_bench_timing_free(&t1);
  clforge_bench_timing_free(&t2);
  if (bad) {
    *where = "malloc";
    return CL_OUT_OF_HOST_MEMORY;
  }
  r->runs = n;
  r->median_ms = st.median * 1e3;
  r->p95_ms = st.p95 * 1e3;
  const double t = best ? st.min : st.median;
  r->gflops = r->flops / t * 1e-9;
  r->gbps = r->bytes / t * 1e-9;
  return 0;
}

static int enqueue_clforge(void *user, cl_command_queue queue) {
  attn_case *c = user;
  (void)queue; /* the context's own queue */
  return clforge_attention(c->env->s.ctx, &c->desc, c->q, c->k, c->v, c->o, NULL, 0, NULL, NULL);
}

static int enqueue_unfused(void *user, cl_command_queue queue) {
  attn_case *c = user;
  (void)queue;
  return clforge_bench_unfused_enqueue(&c->unfused, c->q, c->k, c->v, c->o);
}

static int enqueue_qk(void *user, cl_command_queue queue) {
  attn_case *c = user;
  (void)queue;
  return clforge_bench_unfused_enqueue_qk(&c->unfused, c->q, c->k);
}

/* --------------------------------------------------------------- the rows */

static void row_init(attn_row *r, const attn_case *c, const char *provider) {
  memset(r, 0, sizeof *r);
  r->s = c->s;
  r->q_type = c->p.q_type;
  r->kv_type = c->p.kv_type;
  r->o_type = c->p.o_type;
  r->decode = c->s.sq <= DECODE_MAX_SQ;
  snprintf(r->provider, sizeof r->provider, "%s", provider);
  r->flops = attn_flops(&c->s);
  r->bytes = attn_bytes(c);
}

/* clforge_attention: time, read O into `result`, check. 0 when the row has numbers. */
static int measure_clforge(attn_case *c, attn_row *r, float *result) {
  bench_env *env = c->env;
  clforge_attention_choice ch;
  if (clforge_attention_explain(env->s.ctx, &c->desc, &ch) != CLFORGE_SUCCESS) {
    r->status = ROW_ERROR;
    snprintf(r->note, sizeof r->note, "clforge_attention_explain failed: %s", clforge_last_error(env->s.ctx));
    return -1;
  }
  r->algo = clforge_attention_algo_name(ch.algo);
  r->splits = ch.splits;
  r->arith = ch.nkernels ? ch.kernels[0].compute_type : 0;
  snprintf(r->why, sizeof r->why, "%s", ch.why);
  if (ch.algo == CLFORGE_ATTENTION_ALGO_SPLIT_KV)
    snprintf(r->provider, sizeof r->provider, "clforge:%s/%d", r->algo, ch.splits);
  else snprintf(r->provider, sizeof r->provider, "clforge:%s", r->algo);
  size_t ws = 0;
  if (clforge_attention_workspace_size(env->s.ctx, &c->desc, &ws) == CLFORGE_SUCCESS) {
    r->have_extra = 1;
    r->extra_bytes = ws;
  }
  progress(env, c, r->provider);
  cl_int pe = poison_o(c);
  if (pe != CL_SUCCESS) {
    r->status = ROW_ERROR;
    snprintf(r->note, sizeof r->note, "clEnqueueFillBuffer of O failed (%s)", clforge_status_name(pe));
    return -1;
  }
  const char *where = "";
  int rc = time_row(env, enqueue_clforge, c, r, &where, 0, 0);
  if (rc) {
    r->status = ROW_ERROR;
    if (!strcmp(where, "the operation"))
      snprintf(r->note, sizeof r->note, "clforge_attention failed (%s): %s", clforge_status_name(rc),
               clforge_last_error(env->s.ctx));
    else snprintf(r->note, sizeof r->note, "%s failed (%s)", where, clforge_status_name(rc));
    clFinish(env->s.queue);
    return -1;
  }
  if (clforge_bench_read_f32(env->s.queue, c->o, "O", c->p.o_type, 0, c->o_elems, result, r->note, sizeof r->note) ||
      check_clforge(c, result, r->note, sizeof r->note)) {
    r->status = ROW_ERROR;
    return -1;
  }
  return 0;
}

/* Peer tolerance relative to max |O|: catches wrong results (layout, head
 * mapping, mask), not precision: the composite rounds S and P to Q's type. */
static double peer_tolerance(clforge_dtype d) { return d == CLFORGE_F16 ? 1e-2 : d == CLFORGE_BF16 ? 5e-2 : 1e-3; }

static void measure_unfused(attn_case *c, clforge_bench_unfused_gemm gemm, attn_row *r, const float *want,
                            float *scratch) {
  bench_env *env = c->env;
  const attn_options *o = env->o;
  const char *why = "";
  r->have_extra = 1;
  r->extra_bytes = clforge_bench_unfused_bytes(&c->p);
  if (!clforge_bench_unfused_supported(gemm, &c->p, env->s.info.caps, &why)) {
    r->status = ROW_NA;
    snprintf(r->note, sizeof r->note, "%s", why);
    return;
  }
  /* Skip a run that would take too long at the composite's rate so far. */
  const int decode = c->s.sq <= DECODE_MAX_SQ;
  const double rate = env->peer_rate[gemm][decode], est = rate > 0 ? full_flops(&c->s) / (rate * 1e9) : 0;
  if (o->max_run_s > 0 && est > o->max_run_s) {
    r->status = ROW_NA;
    snprintf(r->note, sizeof r->note,
             "skipped: about %.1f s a run at the %.1f GFLOP/s it reached before (--max-run %.1f; 0 runs it)", est,
             rate, o->max_run_s);
    return;
  }
  char err[400];
  if (clforge_bench_unfused_create(env->s.ctx, gemm, &c->p, o->peer_mem, &c->unfused, err, sizeof err)) {
    r->status = ROW_NA;
    snprintf(r->note, sizeof r->note, "%s", err);
    return;
  }
  progress(env, c, r->provider);
  cl_int pe = poison_o(c);
  const char *where = "";
  int rc = pe != CL_SUCCESS ? pe : time_row(env, enqueue_unfused, c, r, &where, 0, 0);
  if (rc) {
    r->status = ROW_ERROR;
    if (pe != CL_SUCCESS) snprintf(r->note, sizeof r->note, "clEnqueueFillBuffer of O failed (%s)", clforge_status_name(pe));
    else if (!strcmp(where, "the operation"))
      snprintf(r->note, sizeof r->note, "%s failed: %s%s%s", c->unfused.failed_in ? c->unfused.failed_in : "?",
               gemm == CLFORGE_BENCH_UNFUSED_CLBLAST ? clforge_bench_clblast_status_name(rc) : clforge_status_name(rc),
               gemm == CLFORGE_BENCH_UNFUSED_CLBLAST ? "" : ": ",
               gemm == CLFORGE_BENCH_UNFUSED_CLBLAST ? "" : clforge_last_error(env->s.ctx));
    else snprintf(r->note, sizeof r->note, "%s failed (%s)", where, clforge_status_name(rc));
    clforge_bench_warn(&env->s, "%s: %s", r->provider, r->note);
    clFinish(env->s.queue);
    return;
  }
  env->peer_rate[gemm][decode] = full_flops(&c->s) / (r->median_ms * 1e-3) * 1e-9;
  if (clforge_bench_read_f32(env->s.queue, c->o, "O", c->p.o_type, 0, c->o_elems, scratch, r->note, sizeof r->note)) {
    r->status = ROW_ERROR;
    return;
  }
  if (!want) { /* no clforge result to compare with: the reference's check instead */
    char why[400];
    if (check_clforge(c, scratch, why, sizeof why)) {
      r->status = ROW_ERROR;
      snprintf(r->note, sizeof r->note, "not reported: %s", why);
      clforge_bench_warn(&env->s, "%s: %s", r->provider, r->note);
    } else {
      snprintf(r->note, sizeof r->note, "checked against clforge_ref_attention (no correct clforge result to compare with)");
    }
    return;
  }
  const double d = clforge_bench_max_rel_diff(scratch, want, c->o_elems), tol = peer_tolerance(c->p.o_type);
  if (!(d < tol)) {
    r->status = ROW_ERROR;
    snprintf(r->note, sizeof r->note,
             "not reported: its O differs from clforge_attention's (max |difference| = %.3g of max |O|, tolerance "
             "%.0e)", d, tol);
    clforge_bench_warn(&env->s, "%s: %s", r->provider, r->note);
  }
}

/* The composite's S = scale Q K^T alone (clforge_gemm), spot-checked. Needs
 * the clforge composite's buffers (measured just before). */
static void measure_gemm(attn_case *c, attn_row *r) {
  bench_env *env = c->env;
  const attn_shape *s = &c->s;
  r->flops = 2.0 * (double)s->b * (double)s->hq * (double)s->sq * (double)s->sk * (double)s->d;
  r->bytes = (double)c->q_elems * (double)clforge_dtype_size(c->p.q_type) +
             (double)c->kv_elems * (double)clforge_dtype_size(c->p.kv_type) +
             (double)(s->b * s->hq * s->sq * s->sk) * (double)clforge_dtype_size(c->unfused.s_type);
  r->have_extra = 1;
  r->extra_bytes = c->unfused.extra_bytes;
  snprintf(r->note, sizeof r->note,
           "the composite's first GEMM alone, S = scale Q K^T with clforge_gemm (B*Hkv batch items of "
           "(Hq/Hkv)*Sq x Sk x D); GFLOP/s counts its 2*B*Hq*Sq*Sk*D; vs is clforge_attention's GFLOP/s over it");
  progress(env, c, r->provider);
  const char *where = "";
  int rc = time_row(env, enqueue_qk, c, r, &where, 0, 0);
  if (rc) {
    r->status = ROW_ERROR;
    snprintf(r->note, sizeof r->note, "%s failed (%s): %s", strcmp(where, "the operation") ? where : "clforge_gemm",
             clforge_status_name(rc), clforge_last_error(env->s.ctx));
    clFinish(env->s.queue);
    return;
  }
  /* Spot check: sampled S entries against double dot products. */
  const size_t group = s->hq / s->hkv, qes = clforge_dtype_size(c->p.q_type), kves = clforge_dtype_size(c->p.kv_type);
  uint32_t seed = 0xBEEFu;
  for (int t = 0; t < GEMM_SAMPLES; ++t) {
    seed = seed * 1664525u + 1013904223u;
    const size_t row = (size_t)(((uint64_t)(seed >> 4) * (s->b * s->hq * s->sq)) >> 28);
    seed = seed * 1664525u + 1013904223u;
    const size_t j = (size_t)(((uint64_t)(seed >> 4) * s->sk) >> 28);
    const size_t bh = row / s->sq, b = bh / s->hq, g = (bh % s->hq) / group;
    float got;
    char err[160];
    if (clforge_bench_read_f32(env->s.queue, c->unfused.s, "S", c->unfused.s_type, row * s->sk + j, 1, &got, err,
                               sizeof err)) {
      r->status = ROW_ERROR;
      snprintf(r->note, sizeof r->note, "%s", err);
      return;
    }
    double sum = 0, abs_sum = 0;
    for (size_t e = 0; e < s->d; ++e) {
      float qv, kv;
      clforge_ref_convert(1, (const char *)c->q_raw + (row * s->d + e) * qes, c->p.q_type, &qv, CLFORGE_F32);
      clforge_ref_convert(1, (const char *)c->k_raw + (((b * s->hkv + g) * s->sk + j) * s->d + e) * kves,
                          c->p.kv_type, &kv, CLFORGE_F32);
      sum += (double)qv * kv;
      abs_sum += fabs((double)qv * kv);
    }
    sum *= c->p.scale;
    abs_sum *= c->p.scale;
    const double tol = clforge_bench_unit_roundoff(c->unfused.s_type) * fabs(sum) + 1e-4 * abs_sum + 1e-30;
    if (!(fabs(got - sum) <= tol)) {
      r->status = ROW_ERROR;
      snprintf(r->note, sizeof r->note, "wrong result: S[row %zu][%zu] = %.7g, expected %.7g (tolerance %.2g)", row, j,
               (double)got, sum, tol);
      return;
    }
  }
}

/* A plain read of as many bytes as K and V (decode's yardstick). */
static void measure_read(attn_case *c, attn_row *r) {
  bench_env *env = c->env;
  clforge_bench_plain_read pr;
  char err[300];
  r->have_extra = 0;
  r->flops = 0;
  r->bytes = 2.0 * (double)kv_bytes(c);
  if (clforge_bench_plain_read_create(env->s.ctx, 2 * kv_bytes(c), &pr, err,
                                      sizeof err)) {
    r->status = ROW_NA;
    snprintf(r->note, sizeof r->note, "%s", err);
    return;
  }
  r->bytes = (double)pr.bytes;
  snprintf(r->note, sizeof r->note,
           "a plain streaming read of as many bytes as K and V (bench/peak.cl's read kernel, a buffer of its own), "
           "at least %d runs, GB/s from the fastest (what the device can give; on a shared machine slower runs are "
           "other tenants'); %% read of the other rows is their GB/s over its", READ_RUNS);
  progress(env, c, r->provider);
  const char *where = "";
  int rc = time_row(env, clforge_bench_plain_read_enqueue, &pr, r, &where, READ_RUNS, 1);
  clforge_bench_plain_read_destroy(&pr);
  if (rc) {
    r->status = ROW_ERROR;
    snprintf(r->note, sizeof r->note, "the plain read: %s failed (%s)", strcmp(where, "the operation") ? where : "launch",
             clforge_status_name(rc));
    return;
  }
  r->gflops = 0;
}

/* The case's K and V scattered over a block pool for the paged row: item
 * b's block p at pool block (nb - 1 - p) * B + b (sequences interleaved,
 * in reverse), its table, and the paged call's desc and buffers. */
typedef struct {
  attn_case *c;
  clforge_attention_desc desc;
  clforge_attention_buffers x;
  cl_mem k, v, table;
} paged_call;

static int enqueue_paged(void *user, cl_command_queue queue) {
  paged_call *p = user;
  (void)queue;
  return clforge_attention(p->c->env->s.ctx, &p->desc, p->c->q, p->k, p->v, p->c->o, &p->x, 0, NULL, NULL);
}

static int paged_create(attn_case *c, size_t bs, paged_call *p, char *err, size_t cap) {
  const attn_shape *s = &c->s;
  const size_t nb = (s->sk + bs - 1) / bs, row = kv_row_bytes(c->p.kv_type, s->d), blocks = s->b * nb;
  const size_t pool = blocks * s->hkv * bs * row;
  memset(p, 0, sizeof *p);
  p->c = c;
  unsigned char *pk = calloc(pool ? pool : 1, 1), *pv = calloc(pool ? pool : 1, 1);
  int32_t *table = malloc(blocks * sizeof *table);
  if (!pk || !pv || !table) {
    free(pk), free(pv), free(table);
    snprintf(err, cap, "out of host memory for the block pool");
    return -1;
  }
  for (size_t b = 0; b < s->b; ++b)
    for (size_t q = 0; q < nb; ++q) table[b * nb + q] = (int32_t)((nb - 1 - q) * s->b + b);
  for (size_t b = 0; b < s->b; ++b)
    for (size_t h = 0; h < s->hkv; ++h)
      for (size_t j = 0; j < s->sk; ++j) {
        const size_t from = ((b * s->hkv + h) * s->sk + j) * row;
        const size_t to = (((size_t)table[b * nb + j / bs] * s->hkv + h) * bs + j % bs) * row;
        memcpy(pk + to, (const unsigned char *)c->k_raw + from, row);
        memcpy(pv + to, (const unsigned char *)c->v_raw + from, row);
      }
  cl_int e[3];
  cl_context cc = c->env->s.cl_ctx;
  p->k = clCreateBuffer(cc, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, pool, pk, &e[0]);
  p->v = clCreateBuffer(cc, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, pool, pv, &e[1]);
  p->table = clCreateBuffer(cc, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, blocks * sizeof *table, table, &e[2]);
  free(pk), free(pv), free(table);
  for (int i = 0; i < 3; ++i)
    if (e[i] != CL_SUCCESS) {
      snprintf(err, cap, "clCreateBuffer for the block pool failed (%s)", clforge_status_name(e[i]));
      return -1;
    }
  p->desc = c->desc;
  p->desc.kv_block_size = bs, p->desc.kv_num_blocks = blocks;
  p->x.block_table = p->table;
  return 0;
}

static void paged_destroy(paged_call *p) {
  cl_mem m[] = {p->k, p->v, p->table};
  for (int i = 0; i < 3; ++i)
    if (m[i]) clReleaseMemObject(m[i]);
}

/* Paged against contiguous, interleaved: per round one run of each (in
 * alternating order), so that the machine's drift falls on both alike; the
 * median over the rounds of contiguous's time over paged's, or 0. */
static double interleaved_ratio(attn_case *c, paged_call *p, int rounds) {
  double *t = malloc((size_t)rounds * sizeof *t);
  if (!t) return 0;
  int n = 0;
  for (int i = 0; i < rounds; ++i) {
    clforge_bench_timing a, b;
    memset(&a, 0, sizeof a), memset(&b, 0, sizeof b);
    const int rc = i & 1 ? clforge_bench_time_queue(c->env->s.queue, enqueue_paged, p, 0, 1, &b, NULL) ||
                               clforge_bench_time_queue(c->env->s.queue, enqueue_clforge, c, 0, 1, &a, NULL)
                         : clforge_bench_time_queue(c->env->s.queue, enqueue_clforge, c, 0, 1, &a, NULL) ||
                               clforge_bench_time_queue(c->env->s.queue, enqueue_paged, p, 0, 1, &b, NULL);
    if (!rc && a.runs == 1 && b.runs == 1 && a.timer == b.timer && b.seconds[0] > 0) t[n++] = a.seconds[0] / b.seconds[0];
    clforge_bench_timing_free(&a), clforge_bench_timing_free(&b);
  }
  clforge_bench_stats st;
  const double r = n && !clforge_bench_summarize(t, (size_t)n, &st) ? st.median : 0;
  free(t);
  return r;
}

/* The paged row: the same problem through a block table; its O must be the
 * contiguous call's (`want`) bit for bit. vs_base: the contiguous call's
 * median over this one's, timed interleaved with it. */
static void measure_paged(attn_case *c, attn_row *r, const float *want, float *scratch) {
  bench_env *env = c->env;
  paged_call p;
  char err[300];
  snprintf(r->provider, sizeof r->provider, "clforge:paged/%zu", env->o->paged);
  if (paged_create(c, env->o->paged, &p, err, sizeof err)) {
    r->status = ROW_ERROR;
    snprintf(r->note, sizeof r->note, "%s", err);
    paged_destroy(&p);
    return;
  }
  progress(env, c, r->provider);
  cl_int pe = poison_o(c);
  const char *where = "";
  int rc = pe != CL_SUCCESS ? pe : time_row(env, enqueue_paged, &p, r, &where, 0, 0);
  const int rounds = env->o->cli.runs > 30 ? env->o->cli.runs : 30;
  const double ratio = rc ? 0 : interleaved_ratio(c, &p, rounds);
  paged_destroy(&p);
  if (rc) {
    r->status = ROW_ERROR;
    snprintf(r->note, sizeof r->note, "%s failed (%s): %s", strcmp(where, "the operation") ? where : "clforge_attention",
             clforge_status_name(rc), clforge_last_error(env->s.ctx));
    clFinish(env->s.queue);
    return;
  }
  if (clforge_bench_read_f32(env->s.queue, c->o, "O", c->p.o_type, 0, c->o_elems, scratch, r->note, sizeof r->note)) {
    r->status = ROW_ERROR;
    return;
  }
  size_t diff = 0;
  for (size_t i = 0; i < c->o_elems; ++i) diff += memcmp(&scratch[i], &want[i], sizeof *want) != 0;
  if (diff) {
    r->status = ROW_ERROR;
    snprintf(r->note, sizeof r->note, "not reported: its O differs from the contiguous call's in %zu of %zu values", diff,
             c->o_elems);
    return;
  }
  r->base = ratio > 0 ? "contiguous (interleaved runs)" : NULL;
  r->vs_base = ratio;
  snprintf(r->note, sizeof r->note,
           "K and V in a pool of %zu-key blocks, each sequence's blocks interleaved with the others' in reverse; O "
           "equal to the contiguous row's bit for bit; vs: the median over %d rounds of one contiguous and one paged run of their time ratio",
           env->o->paged, rounds);
}

/* A row faster than the measured peak: measure it again, keep the larger
 * (a decode case's K and V within the cache read faster than memory: % read,
 * against the same bytes, is the figure for those). */
static void emit(bench_env *env, attn_row *r) {
  clforge_bench_progress_clear(&env->s);
  if (r->status == ROW_OK) clforge_bench_session_recheck(&env->s, r->provider, r->arith, r->gflops, r->gbps, r->bytes);
  if (env->o->cli.json) print_json(r, env);
  else table_row(env, r);
  if (env->nkept == env->kept_cap) {
    size_t cap = env->kept_cap ? 2 * env->kept_cap : 64;
    attn_row *p = realloc(env->kept, cap * sizeof *p);
    if (!p) return;
    env->kept = p;
    env->kept_cap = cap;
  }
  env->kept[env->nkept++] = *r;
}

/* --------------------------------------------------------------- targets */

/* The measured row of `provider` (a prefix: "clforge" matches
 * "clforge:fused") at this shape and these dtypes, or NULL. */
static const attn_row *find_row(const bench_env *env, const char *provider, attn_shape s, clforge_dtype q,
                                clforge_dtype kv) {
  const size_t len = strlen(provider);
  for (size_t i = 0; i < env->nkept; ++i) {
    const attn_row *r = &env->kept[i];
    if (r->status == ROW_OK && !memcmp(&r->s, &s, sizeof s) && r->q_type == q && r->kv_type == kv &&
        !strncmp(r->provider, provider, len) && (r->provider[len] == '\0' || r->provider[len] == ':'))
      return r;
  }
  return NULL;
}

static const char *verdict(double v, double want) { return v >= want ? "met" : "NOT met"; }

/* Ratios in the summary are truncated, not rounded, so that a 1.2996x
 * never reads "1.30x ... NOT met". */
static double down(double v, double unit) { return floor(v / unit) * unit; }

/* The targets that this run measured, one line each (docs/performance.md
 * records them): prefill f32 Hq = 8, S = 2048 at D = 64 and 128; causal at that
 * shape; decode at Sk = 8192; f16/bf16 storage; clforge's extra memory. */
static void print_targets(const bench_env *env) {
  FILE *f = stdout;
  int n = 0;
  for (int i = 0; i < 2; ++i) {
    const attn_shape s = {1, 8, 8, 2048, 2048, i ? 128 : 64, 0};
    const attn_row *c = find_row(env, "clforge", s, CLFORGE_F32, CLFORGE_F32);
    if (!c) continue;
    const attn_row *u = find_row(env, "unfused-clforge", s, CLFORGE_F32, CLFORGE_F32),
                   *b = find_row(env, "unfused-clblast", s, CLFORGE_F32, CLFORGE_F32),
                   *g = find_row(env, "gemm QK^T", s, CLFORGE_F32, CLFORGE_F32);
    if (!n++) fprintf(f, "\nTargets (issue 10) this run measured:\n");
    fprintf(f, "  prefill f32 Hq=8 S=2048 D=%zu:", s.d);
    if (u) fprintf(f, " %.2fx unfused-clforge (>= 1.3x: %s);", down(u->vs, 0.01), verdict(u->vs, 1.3));
    if (b) fprintf(f, " %.1fx unfused-clblast (>= 10x: %s);", down(b->vs, 0.1), verdict(b->vs, 10));
    if (g) fprintf(f, " %.0f%% of gemm QK^T's GFLOP/s (>= 65%%: %s)", down(100 * g->vs, 1), verdict(g->vs, 0.65));
    fputc('\n', f);
    attn_shape sc = s;
    sc.causal = 1;
    const attn_row *cc = find_row(env, "clforge", sc, CLFORGE_F32, CLFORGE_F32);
    if (cc && cc->vs_base > 0)
      fprintf(f, "  causal at that shape: %.2fx faster than non-causal (>= 1.7x: %s)\n", down(cc->vs_base, 0.01),
              verdict(cc->vs_base, 1.7));
  }
  const attn_shape dec = {1, 32, 8, 1, 8192, 128, 0};
  const attn_row *d32 = find_row(env, "clforge", dec, CLFORGE_F32, CLFORGE_F32),
                 *d16 = find_row(env, "clforge", dec, CLFORGE_F32, CLFORGE_F16);
  for (int i = 0; i < 2; ++i) {
    const attn_row *d = i ? d16 : d32;
    if (!d || !(d->read_gbps > 0)) continue;
    if (!n++) fprintf(f, "\nTargets (issue 10) this run measured:\n");
    fprintf(f, "  decode Sq=1 Sk=8192 Hq=32 Hkv=8 D=128, %s KV: %.0f%% of the plain read of K+V (>= 70%%: %s)\n",
            i ? "f16" : "f32", down(100 * d->gbps / d->read_gbps, 1), verdict(d->gbps / d->read_gbps, 0.70));
  }
  if (d16 && d16->vs_base > 0)
    fprintf(f, "  decode f16 KV: %.2fx faster than f32 KV (>= 1.8x: %s)\n", down(d16->vs_base, 0.01), verdict(d16->vs_base, 1.8));
  /* issue 19: the q8_0 cache against f16's (f16 Q), and paged against contiguous */
  const attn_row *q8 = find_row(env, "clforge", dec, CLFORGE_F16, CLFORGE_Q8_0);
  if (q8 && q8->vs_base > 0) {
    if (!n++) fprintf(f, "\nTargets this run measured:\n");
    fprintf(f, "  decode Sk=8192 Hq=32 Hkv=8 D=128, f16 Q: q8_0 KV %.2fx faster than f16 KV (>= 1.6x: %s)\n",
            down(q8->vs_base, 0.01), verdict(q8->vs_base, 1.6));
  }
  for (size_t i = 0; i < env->nkept; ++i) {
    const attn_row *r = &env->kept[i];
    if (r->status != ROW_OK || strncmp(r->provider, "clforge:paged", 13) || !(r->vs_base > 0) || !r->decode ||
        memcmp(&r->s, &dec, sizeof dec))
      continue;
    if (!n++) fprintf(f, "\nTargets this run measured:\n");
    fprintf(f, "  decode Sk=8192 %s/%s: paged at %.2fx the contiguous speed (within 10%%, >= 0.91x: %s)\n",
            clforge_dtype_name(r->q_type), clforge_dtype_name(r->kv_type), down(r->vs_base, 0.01),
            verdict(r->vs_base, 1.0 / 1.1));
  }
  /* f16/bf16 storage prefill against f32, and the largest extra memory. */
  double worst = 0;
  const attn_row *worst_row = NULL;
  size_t extra[2] = {0, 0}, s_bytes = 0; /* clforge's: prefill, decode; the composites' largest */
  int have[2] = {0, 0};
  for (size_t i = 0; i < env->nkept; ++i) {
    const attn_row *r = &env->kept[i];
    if (r->status == ROW_OK && !strncmp(r->provider, "unfused-", 8) && r->extra_bytes > s_bytes) s_bytes = r->extra_bytes;
    if (r->status != ROW_OK || strncmp(r->provider, "clforge:", 8)) continue;
    if (r->have_extra) {
      have[r->decode] = 1;
      if (r->extra_bytes > extra[r->decode]) extra[r->decode] = r->extra_bytes;
    }
    if (!r->decode && !r->s.causal && r->base && !strcmp(r->base, "f32") && (!worst_row || r->vs_base < worst)) {
      worst = r->vs_base;
      worst_row = r;
    }
  }
  if (worst_row) {
    if (!n++) fprintf(f, "\nTargets (issue 10) this run measured:\n");
    fprintf(f, "  f16/bf16 storage prefill: at worst %.2fx f32's speed (%s at S=%zu D=%zu) (>= 0.9x: %s)\n", down(worst, 0.01),
            clforge_dtype_name(worst_row->q_type), worst_row->s.sq, worst_row->s.d, verdict(worst, 0.9));
  }
  if (n && (have[0] || have[1])) {
    fprintf(f, "  extra device memory of clforge_attention:");
    if (have[0]) fprintf(f, " prefill at most %.1f KiB;", (double)extra[0] / 1024.0);
    if (have[1]) fprintf(f, " decode at most %.1f KiB;", (double)extra[1] / 1024.0);
    if (s_bytes) fprintf(f, " the composites' S buffers up to %.1f MiB", (double)s_bytes / (1024.0 * 1024.0));
    fputc('\n', f);
  }
}

/* The ratios need a base measured in the same run: a causal row's
 * is the same shape and dtypes without the mask ("causal >= 1.7x faster");
 * a non-causal row with f16/bf16 storage has the same shape in f32 ("f16 KV
 * >= 1.8x faster", "f16/bf16 prefill >= 0.9x f32"). Then record this row. */
static void base_of(bench_env *env, attn_row *r) {
  if (r->status != ROW_OK) return;
  attn_shape key = r->s;
  key.causal = 0;
  const int causal = r->s.causal;
  /* q8_0 KV against f16 KV (same Q): the quantized-cache ratio */
  const int q8 = !causal && r->kv_type == CLFORGE_Q8_0;
  const clforge_dtype bq = causal || q8 ? r->q_type : CLFORGE_F32,
                      bkv = causal ? r->kv_type : q8 ? CLFORGE_F16 : CLFORGE_F32;
  if (causal || r->q_type != CLFORGE_F32 || r->kv_type != CLFORGE_F32) {
    r->base = causal ? "non-causal" : q8 ? "f16-KV" : "f32";
    for (size_t i = 0; i < env->ndone; ++i) {
      const struct clforge_row_ms *d = &env->done[i];
      if (!memcmp(&d->s, &key, sizeof key) && d->q_type == bq && d->kv_type == bkv) r->vs_base = d->ms / r->median_ms;
    }
    if (!(r->vs_base > 0)) r->base = NULL;
  }
  if (causal) return;
  if (env->ndone == env->done_cap) {
    size_t cap = env->done_cap ? 2 * env->done_cap : 32;
    struct clforge_row_ms *p = realloc(env->done, cap * sizeof *p);
    if (!p) return;
    env->done = p;
    env->done_cap = cap;
  }
  env->done[env->ndone++] = (struct clforge_row_ms){key, r->q_type, r->kv_type, r->median_ms};
}

/* One (shape, dtypes): clforge, the composites, the yardstick. Returns 1
 * when clforge's row failed. */
static int run_case(bench_env *env, const attn_shape *s, clforge_dtype qt, clforge_dtype kvt) {
  const attn_options *o = env->o;
  attn_case c;
  attn_row rows[NPROVIDERS];
  char err[512];
  int failed = 0;
  const int decode = s->sq <= DECODE_MAX_SQ;
  int rc = setup_case(env, &c, s, qt, kvt, err, sizeof err);
  for (int i = 0; i < NPROVIDERS; ++i)
    row_init(&rows[i], &c, i == P_YARDSTICK ? (decode ? "read K+V" : "gemm QK^T") : provider_names[i]);
  if (rc) {
    rows[0].status = ROW_ERROR;
    snprintf(rows[0].note, sizeof rows[0].note, "%s", err);
    clforge_bench_warn(&env->s, "B=%zu Hq=%zu Sq=%zu Sk=%zu D=%zu: %s", s->b, s->hq, s->sq, s->sk, s->d, err);
    emit(env, &rows[0]);
    free_case(&c);
    return 1;
  }
  float *want = malloc(c.o_elems * sizeof(float)), *scratch = malloc(c.o_elems * sizeof(float));
  int have_want = 0;
  /* The yardstick of decode first: the rows' % read divide by it. */
  attn_row *yard = &rows[P_YARDSTICK];
  int run_yard = decode || (o->peers & PEERS_CLFORGE);
  if (decode) measure_read(&c, yard);
  const double read_gbps = decode && yard->status == ROW_OK ? yard->gbps : 0;
  if (!want || !scratch) {
    rows[P_CLFORGE].status = ROW_ERROR;
    snprintf(rows[P_CLFORGE].note, sizeof rows[P_CLFORGE].note, "out of host memory");
  } else if (measure_clforge(&c, &rows[P_CLFORGE], want) == 0) {
    have_want = 1;
  }
  if (rows[P_CLFORGE].status == ROW_ERROR) {
    failed = 1;
    clforge_bench_warn(&env->s, "B=%zu Hq=%zu Hkv=%zu Sq=%zu Sk=%zu D=%zu%s %s/%s: clforge: %s", s->b, s->hq, s->hkv,
                       s->sq, s->sk, s->d, s->causal ? " causal" : "", clforge_dtype_name(qt), clforge_dtype_name(kvt),
                       rows[P_CLFORGE].note);
  }
  base_of(env, &rows[P_CLFORGE]);
  if (o->paged && have_want) measure_paged(&c, &rows[P_PAGED], want, scratch);
  else if (o->paged) {
    rows[P_PAGED].status = ROW_NA;
    snprintf(rows[P_PAGED].note, sizeof rows[P_PAGED].note, "not run: no correct contiguous result to compare with");
  }
  const double ours = rows[P_CLFORGE].status == ROW_OK ? rows[P_CLFORGE].gflops : 0;
  static const clforge_bench_unfused_gemm gemms[2] = {CLFORGE_BENCH_UNFUSED_CLFORGE, CLFORGE_BENCH_UNFUSED_CLBLAST};
  static const int bits[2] = {PEERS_CLFORGE, PEERS_CLBLAST};
  for (int i = 0; i < 2; ++i) {
    attn_row *r = &rows[P_UNFUSED_CLFORGE + i];
    if (!(o->peers & bits[i]) || !scratch) continue;
    measure_unfused(&c, gemms[i], r, have_want ? want : NULL, scratch);
    if (r->status == ROW_OK && ours > 0) r->vs = ours / r->gflops;
    /* The clforge composite's S buffer serves the GEMM row; CLBlast's is freed. */
    if (i == 0 && !decode && r->status != ROW_NA && c.unfused.s) measure_gemm(&c, yard);
    else if (i == 0 && !decode) {
      yard->status = ROW_NA;
      snprintf(yard->note, sizeof yard->note, "not run: the clforge composite did not run (%s)", r->note);
    }
    clforge_bench_unfused_destroy(&c.unfused);
  }
  if (yard->status == ROW_OK && ours > 0)
    yard->vs = decode ? rows[P_CLFORGE].gbps / yard->gbps : ours / yard->gflops;
  /* clforge's rows first (contiguous, paged), then the peers and the yardstick */
  static const int order[NPROVIDERS] = {P_CLFORGE, P_PAGED, P_UNFUSED_CLFORGE, P_UNFUSED_CLBLAST, P_YARDSTICK};
  for (int n = 0; n < NPROVIDERS; ++n) {
    const int i = order[n];
    if (i > 0 && i < P_YARDSTICK && !(o->peers & bits[i - 1])) continue;
    if (i == P_YARDSTICK && !run_yard) continue;
    if (i == P_PAGED && !o->paged) continue;
    if (decode) rows[i].read_gbps = read_gbps;
    emit(env, &rows[i]);
  }
  free(want);
  free(scratch);
  free_case(&c);
  return failed;
}

/* ------------------------------------------------------------------- main */

int clforge_bench_attention_main(int argc, char **argv) {
  attn_options o;
  memset(&o, 0, sizeof o);
  int rc = parse_options(argc, argv, &o);
  if (rc >= 0) {
    free(o.shapes);
    return rc;
  }
  bench_env env;
  memset(&env, 0, sizeof env);
  env.o = &o;
  if (clforge_bench_session_open(&env.s, "attention", o.cli.peak)) {
    free(o.shapes);
    return 1;
  }
  if (!o.cli.json) {
    clforge_bench_print_title(&env.s);
    printf("O = softmax(Q K^T / sqrt(D)) V, tight BHSD, causal bottom-right; up to %d runs after %d warm-up (fewer,\n"
           "at least %d, past %.0f s a row); median and p95 in ms; GFLOP/s = 4*B*Hq*Sq*Sk*D (halved for causal) for\n"
           "every row; GB/s: Q, K, V read and O written once; extra: device memory beyond Q, K, V, O\n",
           o.cli.runs, o.cli.warmup, MIN_RUNS, o.budget_s);
    if (o.peers)
      printf("peers: the unfused composite (GEMM, clforge_softmax in place on S, GEMM) with %s on the same queue\n"
             "       and data; each O compared with clforge_attention's before its time counts\n",
             o.peers == PEERS_CLFORGE ? "clforge_gemm" : o.peers == PEERS_CLBLAST ? "CLBlast's GEMMs"
                                                                                  : "clforge_gemm or CLBlast's GEMMs");
    clforge_bench_print_peak(&env.s, "% flop", "% bw");
    printf("%% read (decode): GB/s over the case's plain read of the K+V bytes; vs: clforge's rate over the row's\n\n");
    fflush(stdout);
    table_columns(&env);
  }
  int failed = 0;
  for (size_t i = 0; i < o.nshapes; ++i) {
    const attn_shape *s = &o.shapes[i];
    const int decode = s->sq <= DECODE_MAX_SQ;
    for (int d = 0; d < o.ndtypes; ++d) {
      clforge_dtype kv[MAX_DTYPES];
      int nkv = o.nkv_dtypes;
      if (nkv) memcpy(kv, o.kv_dtypes, sizeof kv);
      else if (decode) {
        kv[nkv++] = o.dtypes[d];
        if (o.dtypes[d] != CLFORGE_F16) kv[nkv++] = CLFORGE_F16;
      } else kv[nkv++] = o.dtypes[d];
      for (int k = 0; k < nkv; ++k) failed += run_case(&env, s, o.dtypes[d], kv[k]);
    }
  }
  if (!o.cli.json) {
    clforge_bench_table_finish(&env.table);
    print_targets(&env);
  }
  if (o.peers & PEERS_CLBLAST) clforge_bench_clblast_release();
  clforge_bench_session_close(&env.s);
  free(o.shapes);
  free(env.done);
  free(env.kept);
  if (fflush(stdout) != 0) return 1;
  return failed ? 1 : 0;
}
