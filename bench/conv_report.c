/* `clforge bench conv`'s report: the table's columns and rows, the JSON
 * lines, and the int8 summary after the table. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>

#include "conv_bench_parts.h"

/* ------------------------------------------------------------------ table */

void clforge_bench_conv_table_columns(bench_env *env) {
  clforge_bench_table *t = &env->table;
  int layer_width = 5;
  for (size_t i = 0; i < env->o->nspecs; ++i) {
    const int len = (int)strlen(env->o->specs[i].name);
    if (len > layer_width) layer_width = len;
  }
  clforge_bench_table_init(t, stdout);
  clforge_bench_table_column(t, "layer", layer_width, 1);
  clforge_bench_table_column(t, "n", 4, 0);
  clforge_bench_table_column(t, "dtype", 5, 1);
  clforge_bench_table_column(t, "layout", 6, 1);
  clforge_bench_table_column(t, "algo", 18, 1);
  clforge_bench_table_result_columns(t, 1);
  clforge_bench_table_peak_columns(t, &env->s.peak, "% peak");
  clforge_bench_table_column(t, "workspace", 10, 0);
  for (int i = 0; i < NPEERS; ++i) clforge_bench_table_peer_columns(t, i ? "onednn" : "clblast", 14, 10);
}

static void table_row(bench_env *env, const conv_row *r) {
  clforge_bench_table *t = &env->table;
  char note[640];
  clforge_bench_table_cell(t, r->layer);
  clforge_bench_table_cellf(t, "%zu", r->s.n);
  clforge_bench_table_cell(t, clforge_dtype_name(r->dtype));
  clforge_bench_table_cell(t, clforge_bench_conv_layout_name(r->layout));
  clforge_bench_table_cell(t, r->label);
  if (r->status != ROW_OK) {
    /* One cell across the measured columns: "unsupported [k]" or "error [k]". */
    const char *word = r->status == ROW_UNSUPPORTED ? "unsupported" : "error";
    snprintf(note, sizeof note, "%s %s: %s", r->label, word, r->error[0] ? r->error : "failed");
    clforge_bench_table_status(t, 5 + 2 * t->peak_columns, word, note);
  } else {
    clforge_bench_table_results(t, r->median_ms, r->p95_ms, r->timer, r->timer_note, 1, r->gflops, r->gbps);
    const clforge_bench_peaks pk = clforge_bench_peaks_for(&env->s.peak, r->arith); /* f16 rows: the f16 peak */
    if (t->peak_columns) clforge_bench_table_peak_cells(t, &pk, 1, r->gflops, r->gbps, r->gbps * r->median_ms * 1e6);
    clforge_bench_table_cellf(t, "%zu", r->workspace);
  }
  for (int i = 0; i < NPEERS; ++i) clforge_bench_table_peer(t, &r->peers[i], r->status == ROW_OK, r->gflops);
  clforge_bench_table_end_row(t);
}

/* ------------------------------------------------------------------- JSON */

static int print_json(const bench_env *env, const conv_row *r) {
  cJSON *o = cJSON_CreateObject();
  if (!o) return -1;
  const int ok = r->status == ROW_OK;
  const char *status = ok ? "ok" : r->status == ROW_UNSUPPORTED ? "unsupported" : "error";
  clforge_bench_json_string(o, "op", "conv");
  clforge_bench_json_string(o, "pass", env->o->pass == CLFORGE_CONV_BACKWARD_DATA     ? "bwd_data"
                                       : env->o->pass == CLFORGE_CONV_BACKWARD_FILTER ? "bwd_filter"
                                                                                       : "fwd");
  clforge_bench_json_string(o, "layer", r->layer);
  const char *names[] = {"n", "c", "h", "w", "k", "r", "s", "stride", "pad", "groups", "dilation", "p", "q"};
  const size_t vals[] = {r->s.n, r->s.c, r->s.h, r->s.w, r->s.k, r->s.r, r->s.s, r->s.stride, r->s.pad, r->s.groups,
                         r->s.dilation, r->s.p, r->s.q};
  for (size_t i = 0; i < sizeof vals / sizeof vals[0]; ++i) cJSON_AddNumberToObject(o, names[i], (double)vals[i]);
  clforge_bench_json_string(o, "dtype", clforge_dtype_name(r->dtype));
  clforge_bench_json_string(o, "layout", clforge_bench_conv_layout_name(r->layout));
  clforge_bench_json_string(o, "filter_layout", r->layout == CLFORGE_NHWC ? "krsc" : "kcrs");
  clforge_bench_json_string(o, "algo", clforge_conv_algo_name(r->algo));
  clforge_bench_json_string(o, "algo_chosen", r->chosen != CLFORGE_CONV_ALGO_AUTO ? clforge_conv_algo_name(r->chosen)
                                                                                  : NULL);
  clforge_bench_json_string(o, "algo_source", r->source);
  clforge_bench_json_string(o, "algo_why", r->why[0] ? r->why : NULL);
  clforge_bench_json_string(o, "provider", "clforge");
  clforge_bench_json_string(o, "status", status);
  clforge_bench_json_times(o, ok, r->median_ms, r->p95_ms);
  clforge_bench_json_number(o, "gflops", ok, r->gflops);
  clforge_bench_json_number(o, "gbps", ok, r->gbps);
  const clforge_bench_peaks pk = clforge_bench_peaks_for(&env->s.peak, r->arith);
  clforge_bench_json_peaks(o, &pk, ok, r->gflops, r->gbps, r->gbps * r->median_ms * 1e6);
  clforge_bench_json_number(o, "workspace_bytes", r->have_ws, (double)r->workspace);
  clforge_bench_json_run(o, env->o->cli.runs, env->o->cli.warmup, ok ? r->timer : NULL, ok ? r->timer_note : NULL,
                         env->s.device);
  clforge_bench_json_peers(o, r->peers, NPEERS, ok, r->gflops);
  if (r->dtype == CLFORGE_U8) clforge_bench_json_number(o, "vs_clforge_f32", ok && r->vs_f32 > 0, r->vs_f32);
  if (r->net_layer) { /* --network's rows: where the layer is and what it weighs */
    clforge_bench_json_string(o, "network", r->network);
    cJSON_AddNumberToObject(o, "count", r->net_layer->count);
    clforge_bench_json_string(o, "kind", clforge__conv_layer_kind(r->net_layer));
    clforge_bench_json_string(o, "what", r->net_layer->what);
    cJSON_AddBoolToObject(o, "prepared_weights", r->prepared);
    clforge_bench_json_number(o, "weights_ms", r->prepared, r->weights_ms);
  }
  if (!ok) cJSON_AddStringToObject(o, "error", r->error[0] ? r->error : "failed");
  return clforge_bench_json_line(stdout, o);
}

void clforge_bench_conv_emit(bench_env *env, conv_row *r) {
  clforge_bench_progress_clear(&env->s);
  if (r->status == ROW_OK) {
    char label[160];
    snprintf(label, sizeof label, "%s %s", r->layer, r->label);
    clforge_bench_session_recheck(&env->s, label, r->arith, r->gflops, r->gbps, r->gbps * r->median_ms * 1e6);
  }
  if (env->o->cli.json) print_json(env, r);
  else table_row(env, r);
}

/* After the table: each int8 row's speed against clforge's f32 and oneDNN's int8. */
void clforge_bench_conv_print_int8_summary(const bench_env *env) {
  if (!env->nint8) return;
  printf("\nint8 (u8s8s32) against clforge f32 (auto, NHWC, same layer and batch) and oneDNN u8s8s32:\n");
  for (int i = 0; i < env->nint8; ++i) {
    const struct int8_summary *t = &env->int8s[i];
    printf("  %-14s n=%-3zu", t->layer, t->n);
    if (t->vs_f32 > 0) printf("  %.2fx clforge f32", t->vs_f32);
    else printf("  (no f32 NHWC row: --layout nhwc)");
    if (t->vs_onednn > 0) printf("  %.2fx oneDNN int8", t->vs_onednn);
    printf("\n");
  }
}
