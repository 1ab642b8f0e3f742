/* Tuning keyed by compute type (clforge_tune_options.compute_type): a run
 * for 16F on a device without cl_khr_fp16 is refused (nothing to measure)
 * and a bad compute type too. With f16 arithmetic (native, or emulated as
 * in test_gemm_compute_type), a 16F run of gemm_direct's class puts HALF=2
 * candidates in the space, checks them with 16F's tolerance (f32's would
 * discard them all) and saves the entry under "f32,f32,f32@16f", not under
 * the strict key. Then a tuning file written by hand with a strict and a
 * 16F entry for GEMM and attention: a 16F call takes the 16F entry (explain:
 * its HALF, its arithmetic), a strict call and a 32F_FAST_16F call (no
 * entry of their own) the strict one, and so does a 16F call on a device
 * without f16 arithmetic. */
#include <unistd.h>

#include "../src/core/context.h"
#include "../src/families/families.h"
#include "tuning_entries.h"

enum { GEMMD_HALF_INDEX = 6, ATTF_HALF_INDEX = 7 };

typedef struct {
  int half_candidates, passed, failed;
} seen;

static void on_event(const clforge_tune_event *e, void *user) {
  seen *s = user;
  if (e->kind != CLFORGE_TUNE_CANDIDATE || !e->params) return;
  if (strstr(e->params, "HALF=2")) ++s->half_candidates;
  if (e->outcome == CLFORGE_TUNE_OK) ++s->passed;
  else ++s->failed;
}

static void refused(clforge_context ctx, const clforge_device_info *info) {
  clforge_tune_options o = {0};
  o.ops = "gemm", o.dry_run = 1, o.compute_type = (clforge_compute_type)9;
  CHECK_FAILS(ctx, clforge_tune(ctx, &o), CLFORGE_INVALID_ARGUMENT, "compute_type 9");
  if (info->caps & CLFORGE_CAP_FP16) return; /* (the device has f16 arithmetic to tune) */
  o.compute_type = CLFORGE_COMPUTE_16F;
  CHECK_FAILS(ctx, clforge_tune(ctx, &o), CLFORGE_UNSUPPORTED, "no cl_khr_fp16");
}

static void read_text(const char *path, char *text, size_t cap) {
  FILE *f = fopen(path, "r");
  size_t got = f ? fread(text, 1, cap - 1, f) : 0;
  text[got] = '\0';
  if (f) fclose(f);
}

static void tune_half(clforge_context ctx, const char *file) {
  clforge_tune_options o = {0};
  seen s = {0, 0, 0};
  o.ops = "gemm", o.shapes = "small", o.dtypes = "f32", o.layouts = "nn", o.budget_s = 600, o.max_evals = 3;
  o.file = file, o.skip_peers = 1, o.compute_type = CLFORGE_COMPUTE_16F;
  o.space = "gemm_direct:HALF=2,MWID=2|4,NWID=2,MDIMD=8,NDIMD=8";
  o.progress = on_event, o.user = &s;
  CHECK_OK(ctx, clforge_tune(ctx, &o));
  CHECK(s.half_candidates > 0 && s.passed >= s.half_candidates && s.failed == 0,
        "16F tune: %d HALF=2 candidates, %d passed, %d discarded", s.half_candidates, s.passed, s.failed);
  char text[8192];
  read_text(file, text, sizeof text);
  CHECK(strstr(text, "\"gemm_direct\"") && strstr(text, "\"f32,f32,f32@16f\"") && !strstr(text, "\"f32,f32,f32\""),
        "the 16F tune saved no entry under f32,f32,f32@16f only: %.400s", text);
  unlink(file);
}

/* explain for a 64^3 GEMM on the direct route and a fused attention call
 * of prefill_d64_s512's shape, under compute type ct. */
static void explain(clforge_context ctx, clforge_compute_type ct, clforge_kernel_choice *g, clforge_kernel_choice *a) {
  const clforge_gemm_desc d = {.m = 64, .n = 64, .k = 64, .compute_type = ct};
  int n = 0;
  CHECK_OK(ctx, clforge_gemm_explain(ctx, &d, g, 1, &n));
  clforge_attention_desc ad = {0};
  ad.batch = 1, ad.heads_q = ad.heads_kv = 8, ad.seq_q = ad.seq_kv = 512, ad.head_dim = 64;
  ad.algo = CLFORGE_ATTENTION_ALGO_FUSED, ad.compute_type = ct;
  clforge_attention_choice ac;
  CHECK_OK(ctx, clforge_attention_explain(ctx, &ad, &ac));
  *a = ac.kernels[0];
}

static void lookups(const char *file, const clforge_device_info *info) {
  char e[4][1024], pg[512], pa[512];
  tu_default_params(&clforge__family_gemm_direct, info, pg, sizeof pg);
  tu_default_params(&clforge__family_attention_fused, info, pa, sizeof pa);
  char pg2[560], pa1[560];
  snprintf(pg2, sizeof pg2, "%.*s\"HALF\":2", (int)(strstr(pg, "\"HALF\"") - pg), pg);
  snprintf(pa1, sizeof pa1, "%.*s\"HALF\":1", (int)(strstr(pa, "\"HALF\"") - pa), pa);
  tu_tuning_entry(e[0], sizeof e[0], info, "gemm_direct", "f32,f32,f32", "nn", "small", "64,64,64", "clforge", pg, 9.0);
  tu_tuning_entry(e[1], sizeof e[1], info, "gemm_direct", "f32,f32,f32@16f", "nn", "small", "64,64,64", "clforge", pg2,
                  9.5);
  tu_tuning_entry(e[2], sizeof e[2], info, "attention_fused", "f32,f32,f32", "bhsd", "prefill_d64_s512",
                  "1,8,8,512,512,64,0", "clforge", pa, 9.0);
  tu_tuning_entry(e[3], sizeof e[3], info, "attention_fused", "f32,f32,f32@16f", "bhsd", "prefill_d64_s512",
                  "1,8,8,512,512,64,0", "clforge", pa1, 9.5);
  const char *entries[4] = {e[0], e[1], e[2], e[3]};
  tu_write_tuning_file(file, entries, 4);
  setenv("CLFORGE_TUNING_FILE", file, 1);
  setenv("CLFORGE_GEMM_PATH", "direct", 1);
  clforge_context ctx = tu_context();
  ctx->info.caps |= CLFORGE_CAP_FP16; /* native or emulated: the lookups are the same */
  clforge_kernel_choice g, a;
  explain(ctx, CLFORGE_COMPUTE_16F, &g, &a);
  CHECK(g.source == CLFORGE_PARAMS_FROM_TUNED && g.values[GEMMD_HALF_INDEX] == 2 && g.compute_type == CLFORGE_COMPUTE_16F,
        "16F GEMM: source %d, HALF %d, arithmetic %d (the 16F entry's HALF=2 expected)", (int)g.source,
        g.values[GEMMD_HALF_INDEX], (int)g.compute_type);
  CHECK(a.source == CLFORGE_PARAMS_FROM_TUNED && a.values[ATTF_HALF_INDEX] == 1 &&
            a.compute_type == CLFORGE_COMPUTE_32F_FAST_16F,
        "16F attention: source %d, HALF %d, arithmetic %d (the 16F entry's HALF=1 expected)", (int)a.source,
        a.values[ATTF_HALF_INDEX], (int)a.compute_type);
  const clforge_compute_type others[2] = {CLFORGE_COMPUTE_32F, CLFORGE_COMPUTE_32F_FAST_16F};
  for (int i = 0; i < 3; ++i) {
    if (i == 2) ctx->info.caps &= ~(unsigned)CLFORGE_CAP_FP16; /* a 16F call without f16 arithmetic */
    explain(ctx, i == 2 ? CLFORGE_COMPUTE_16F : others[i], &g, &a);
    CHECK(g.source == CLFORGE_PARAMS_FROM_TUNED && g.values[GEMMD_HALF_INDEX] == 0 &&
              a.source == CLFORGE_PARAMS_FROM_TUNED && a.values[ATTF_HALF_INDEX] == 0 &&
              g.compute_type == CLFORGE_COMPUTE_32F && a.compute_type == CLFORGE_COMPUTE_32F,
          "case %d: the strict entries expected: GEMM source %d HALF %d, attention source %d HALF %d", i,
          (int)g.source, g.values[GEMMD_HALF_INDEX], (int)a.source, a.values[ATTF_HALF_INDEX]);
  }
  clforge_context_destroy(ctx);
  unsetenv("CLFORGE_GEMM_PATH");
  unsetenv("CLFORGE_TUNING_FILE");
  unlink(file);
}

int main(void) {
  unsetenv("CLFORGE_COMPUTE_TYPE");
  unsetenv("CLFORGE_GEMM_PATH");
  char dir[] = "/tmp/clforge-tct-XXXXXX", file[64];
  if (!mkdtemp(dir)) {
    CHECK(0, "%s", "mkdtemp failed");
    return tu_summary();
  }
  snprintf(file, sizeof file, "%s/tuning.json", dir);
  clforge_context ctx = tu_context();
  clforge_device_info info;
  CHECK_OK(ctx, clforge_context_device_info(ctx, &info));
  refused(ctx, &info);
  ctx->info.caps |= CLFORGE_CAP_FP16; /* from here on: native, or emulated (cl/gemm_common.cl) */
  tune_half(ctx, file);
  clforge_context_destroy(ctx);
  lookups(file, &info);
  rmdir(dir);
  return tu_summary();
}
