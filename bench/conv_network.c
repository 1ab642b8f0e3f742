#include "conv_network.h"

#include <cjson/cJSON.h>
#include <string.h>

#include "report.h"
#include "table.h"

static const char *const kinds[CLFORGE_BENCH_CONV_KINDS] = {"stem", "3x3", "1x1", "strided", "depthwise", "other"};
static const char *const series_names[CLFORGE_BENCH_NET_SERIES] = {"auto", "best", "onednn"};

int clforge_bench_conv_kind_index(const clforge__conv_layer *l) {
  const char *k = clforge__conv_layer_kind(l);
  for (int i = 0; i < CLFORGE_BENCH_CONV_KINDS; ++i)
    if (!strcmp(k, kinds[i])) return i;
  return CLFORGE_BENCH_CONV_KINDS - 1;
}

const char *clforge_bench_conv_kind_name(int kind) {
  return kind >= 0 && kind < CLFORGE_BENCH_CONV_KINDS ? kinds[kind] : "other";
}

void clforge_bench_conv_net_begin(clforge_bench_conv_net *t, const clforge__conv_network *net, size_t n,
                                  clforge_dtype dtype, clforge_tensor_layout layout, int has_auto, int has_best,
                                  int has_onednn) {
  memset(t, 0, sizeof *t);
  t->net = net;
  t->n = n;
  t->dtype = dtype;
  t->layout = layout;
  t->has[CLFORGE_BENCH_NET_AUTO] = has_auto;
  t->has[CLFORGE_BENCH_NET_BEST] = has_best;
  t->has[CLFORGE_BENCH_NET_ONEDNN] = has_onednn;
}

void clforge_bench_conv_net_add(clforge_bench_conv_net *t, const clforge__conv_layer *l,
                                const clforge_bench_conv_net_layer *r) {
  const int kind = clforge_bench_conv_kind_index(l);
  t->layers += l->count;
  ++t->distinct;
  t->kind_layers[kind] += l->count;
  for (int s = 0; s < CLFORGE_BENCH_NET_SERIES; ++s) {
    clforge_bench_conv_net_total *x = &t->t[s];
    if (!t->has[s]) continue;
    if (!(r->ms[s] >= 0)) {
      x->missing += l->count;
      continue;
    }
    x->ms += l->count * r->ms[s];
    x->kind_ms[kind] += l->count * r->ms[s];
    if (s <= CLFORGE_BENCH_NET_BEST) {
      x->weights_ms += r->weights_ms[s];
      if ((int)r->algo[s] >= 0 && r->algo[s] < CLFORGE_CONV_ALGO_COUNT) t->algo_count[s][r->algo[s]] += l->count;
    }
  }
}

static const char *layout_name(clforge_tensor_layout l) { return l == CLFORGE_NHWC ? "nhwc" : "nchw"; }

/* A series' total, or -1 when a layer lacks a number. */
static double total_ms(const clforge_bench_conv_net *t, int s) {
  return t->has[s] && t->t[s].missing == 0 && t->layers ? t->t[s].ms : -1;
}

/* oneDNN's time over ours: above 1, clforge is faster. */
static double speed_vs(double ours, double theirs) { return ours > 0 && theirs > 0 ? theirs / ours : -1; }

static void algos_text(const clforge_bench_conv_net *t, int s, char *buf, size_t cap) {
  size_t len = 0;
  buf[0] = '\0';
  for (int a = 0; a < CLFORGE_CONV_ALGO_COUNT && len + 1 < cap; ++a)
    if (t->algo_count[s][a])
      len += (size_t)snprintf(buf + len, cap - len, "%s%s %u", len ? ", " : "", clforge_conv_algo_name((clforge_conv_algo)a),
                              t->algo_count[s][a]);
}

static void cell_ms(clforge_bench_table *tb, double ms) {
  char buf[32];
  if (ms < 0) {
    clforge_bench_table_cell(tb, "-");
    return;
  }
  clforge_bench_fmt_ms(buf, sizeof buf, ms);
  clforge_bench_table_cell(tb, buf);
}

static void cell_ratio(clforge_bench_table *tb, double r) {
  if (r < 0) clforge_bench_table_cell(tb, "-");
  else clforge_bench_table_cellf(tb, "%.2fx", r);
}

/* Both tables start with what a total is of. */
static void key_columns(clforge_bench_table *tb, FILE *out) {
  clforge_bench_table_init(tb, out);
  clforge_bench_table_column(tb, "network", 11, 1);
  clforge_bench_table_column(tb, "n", 3, 0);
  clforge_bench_table_column(tb, "dtype", 5, 1);
  clforge_bench_table_column(tb, "layout", 6, 1);
  clforge_bench_table_column(tb, "series", 6, 1);
}

static void key_cells(clforge_bench_table *tb, const clforge_bench_conv_net *t, int s) {
  const int own = s == CLFORGE_BENCH_NET_ONEDNN; /* oneDNN: f32 in its own layout */
  clforge_bench_table_cell(tb, t->net->name);
  clforge_bench_table_cellf(tb, "%zu", t->n);
  clforge_bench_table_cell(tb, clforge_dtype_name(own ? CLFORGE_F32 : t->dtype));
  clforge_bench_table_cell(tb, own ? "own" : layout_name(t->layout));
  clforge_bench_table_cell(tb, series_names[s]);
}

static void print_tables(FILE *out, const clforge_bench_conv_net *nets, size_t count) {
  clforge_bench_table tb;
  key_columns(&tb, out);
  clforge_bench_table_column(&tb, "layers", 6, 0);
  clforge_bench_table_column(&tb, "ms/batch", 9, 0);
  clforge_bench_table_column(&tb, "ms/image", 9, 0);
  clforge_bench_table_column(&tb, "speed vs onednn", 15, 0);
  clforge_bench_table_column(&tb, "weights ms", 10, 0);
  clforge_bench_table_column(&tb, "algorithms (layers)", 0, 1);
  fprintf(out, "\nWhole networks: every conv layer at 224x224, each distinct layer timed once and counted as often\n"
               "as the network has it; clforge with prepared weights (clforge_conv2d_ex; 'weights ms': preparing\n"
               "them, once); 'speed vs onednn': oneDNN's time / clforge's (above 1: clforge is faster; oneDNN\n"
               "runs f32 on the same values whatever the dtype); 'best': the fastest algorithm of each layer\n\n");
  for (size_t i = 0; i < count; ++i) {
    const clforge_bench_conv_net *t = &nets[i];
    const double onednn = total_ms(t, CLFORGE_BENCH_NET_ONEDNN);
    for (int s = 0; s < CLFORGE_BENCH_NET_SERIES; ++s) {
      if (!t->has[s]) continue;
      const double ms = total_ms(t, s);
      char algos[256];
      key_cells(&tb, t, s);
      clforge_bench_table_cellf(&tb, "%u", t->layers);
      if (ms < 0) {
        char note[160];
        snprintf(note, sizeof note, "%s %s: %u of its %u layers have no number (the layer rows say why)", t->net->name,
                 series_names[s], t->t[s].missing, t->layers);
        clforge_bench_table_status(&tb, 4, "incomplete", note);
      } else {
        cell_ms(&tb, ms);
        cell_ms(&tb, ms / (double)t->n);
        cell_ratio(&tb, s == CLFORGE_BENCH_NET_ONEDNN ? -1 : speed_vs(ms, onednn));
        if (s == CLFORGE_BENCH_NET_ONEDNN) clforge_bench_table_cell(&tb, "-");
        else cell_ms(&tb, t->t[s].weights_ms);
      }
      if (s != CLFORGE_BENCH_NET_ONEDNN) {
        algos_text(t, s, algos, sizeof algos);
        clforge_bench_table_cell(&tb, algos);
      }
      clforge_bench_table_end_row(&tb);
    }
  }
  clforge_bench_table_finish(&tb);

  /* Where the time goes: each kind's time and share, clforge (auto, else
   * best) and oneDNN side by side. */
  key_columns(&tb, out);
  clforge_bench_table_column(&tb, "kind", 9, 1);
  clforge_bench_table_column(&tb, "layers", 6, 0);
  clforge_bench_table_column(&tb, "ms/batch", 9, 0);
  clforge_bench_table_column(&tb, "share", 6, 0);
  clforge_bench_table_column(&tb, "onednn ms", 9, 0);
  clforge_bench_table_column(&tb, "share", 6, 0);
  clforge_bench_table_column(&tb, "speed vs onednn", 0, 0);
  fprintf(out, "\nBy layer kind (stem: reads the image; strided: stride > 1, not depthwise; share: of the network's total)\n\n");
  for (size_t i = 0; i < count; ++i) {
    const clforge_bench_conv_net *t = &nets[i];
    const int s = t->has[CLFORGE_BENCH_NET_AUTO] ? CLFORGE_BENCH_NET_AUTO : CLFORGE_BENCH_NET_BEST;
    if (!t->has[s]) continue;
    const double ms = total_ms(t, s), onednn = total_ms(t, CLFORGE_BENCH_NET_ONEDNN);
    for (int k = 0; k < CLFORGE_BENCH_CONV_KINDS; ++k) {
      if (!t->kind_layers[k]) continue;
      const double km = ms >= 0 ? t->t[s].kind_ms[k] : -1;
      const double ko = onednn >= 0 ? t->t[CLFORGE_BENCH_NET_ONEDNN].kind_ms[k] : -1;
      key_cells(&tb, t, s);
      clforge_bench_table_cell(&tb, kinds[k]);
      clforge_bench_table_cellf(&tb, "%u", t->kind_layers[k]);
      cell_ms(&tb, km);
      if (km >= 0) clforge_bench_table_cellf(&tb, "%.1f%%", 100 * km / ms);
      else clforge_bench_table_cell(&tb, "-");
      cell_ms(&tb, ko);
      if (ko >= 0) clforge_bench_table_cellf(&tb, "%.1f%%", 100 * ko / onednn);
      else clforge_bench_table_cell(&tb, "-");
      cell_ratio(&tb, speed_vs(km, ko));
      clforge_bench_table_end_row(&tb);
    }
  }
  clforge_bench_table_finish(&tb);

  /* Each (network, N, dtype): the layout a user would pick. */
  int printed = 0;
  for (size_t i = 0; i < count; ++i) {
    const clforge_bench_conv_net *t = &nets[i], *best = NULL;
    int first = 1;
    for (size_t j = 0; j < i; ++j)
      first &= !(nets[j].net == t->net && nets[j].n == t->n && nets[j].dtype == t->dtype);
    if (!first) continue;
    const int s = t->has[CLFORGE_BENCH_NET_AUTO] ? CLFORGE_BENCH_NET_AUTO : CLFORGE_BENCH_NET_BEST;
    for (size_t j = i; j < count; ++j) {
      const clforge_bench_conv_net *u = &nets[j];
      if (u->net != t->net || u->n != t->n || u->dtype != t->dtype || total_ms(u, s) < 0) continue;
      if (!best || total_ms(u, s) < total_ms(best, s)) best = u;
    }
    if (!best) continue;
    if (!printed++) fprintf(out, "\nBest layout per network (%s):\n", series_names[s]);
    const double ms = total_ms(best, s), r = speed_vs(ms, total_ms(best, CLFORGE_BENCH_NET_ONEDNN));
    fprintf(out, "  %-11s n=%-3zu %-4s %s: %.2f ms per batch, %.3f ms per image", best->net->name, best->n,
            clforge_dtype_name(best->dtype), layout_name(best->layout), ms, ms / (double)best->n);
    if (r > 0) fprintf(out, ", %.2fx oneDNN's speed", r);
    fprintf(out, "\n");
  }
}

static cJSON *series_json(const clforge_bench_conv_net *t, int s) {
  const double ms = total_ms(t, s);
  if (ms < 0) return cJSON_CreateNull();
  cJSON *o = cJSON_CreateObject();
  clforge_bench_json_number(o, "ms", 1, ms);
  clforge_bench_json_number(o, "ms_per_image", 1, ms / (double)t->n);
  if (s <= CLFORGE_BENCH_NET_BEST) {
    clforge_bench_json_number(o, "weights_ms", 1, t->t[s].weights_ms);
    cJSON *a = cJSON_AddObjectToObject(o, "algorithms");
    for (int i = 0; i < CLFORGE_CONV_ALGO_COUNT; ++i)
      if (t->algo_count[s][i] && a)
        cJSON_AddNumberToObject(a, clforge_conv_algo_name((clforge_conv_algo)i), t->algo_count[s][i]);
  }
  return o;
}

static void print_json(FILE *out, const clforge_bench_conv_net *t) {
  cJSON *o = cJSON_CreateObject();
  if (!o) return;
  clforge_bench_json_string(o, "op", "conv_network");
  clforge_bench_json_string(o, "network", t->net->name);
  clforge_bench_json_string(o, "network_key", t->net->key);
  cJSON_AddNumberToObject(o, "n", (double)t->n);
  cJSON_AddNumberToObject(o, "image", 224);
  clforge_bench_json_string(o, "dtype", clforge_dtype_name(t->dtype));
  clforge_bench_json_string(o, "layout", layout_name(t->layout));
  cJSON_AddNumberToObject(o, "layers", t->layers);
  cJSON_AddNumberToObject(o, "distinct_layers", t->distinct);
  for (int s = 0; s < CLFORGE_BENCH_NET_SERIES; ++s)
    cJSON_AddItemToObject(o, series_names[s], t->has[s] ? series_json(t, s) : cJSON_CreateNull());
  const double onednn = total_ms(t, CLFORGE_BENCH_NET_ONEDNN);
  clforge_bench_json_number(o, "auto_vs_onednn", speed_vs(total_ms(t, 0), onednn) > 0,
                            speed_vs(total_ms(t, 0), onednn));
  clforge_bench_json_number(o, "best_vs_onednn", speed_vs(total_ms(t, 1), onednn) > 0,
                            speed_vs(total_ms(t, 1), onednn));
  cJSON *ks = cJSON_AddArrayToObject(o, "kinds");
  for (int k = 0; k < CLFORGE_BENCH_CONV_KINDS && ks; ++k) {
    if (!t->kind_layers[k]) continue;
    cJSON *e = cJSON_CreateObject();
    if (!e) break;
    clforge_bench_json_string(e, "kind", kinds[k]);
    cJSON_AddNumberToObject(e, "layers", t->kind_layers[k]);
    for (int s = 0; s < CLFORGE_BENCH_NET_SERIES; ++s) {
      char key[32];
      const double ms = total_ms(t, s);
      snprintf(key, sizeof key, "%s_ms", series_names[s]);
      clforge_bench_json_number(e, key, ms >= 0, t->t[s].kind_ms[k]);
      snprintf(key, sizeof key, "%s_share", series_names[s]);
      clforge_bench_json_number(e, key, ms > 0, ms > 0 ? t->t[s].kind_ms[k] / ms : 0);
    }
    cJSON_AddItemToArray(ks, e);
  }
  clforge_bench_json_line(out, o);
}

void clforge_bench_conv_net_print(FILE *out, const clforge_bench_conv_net *nets, size_t count, int json) {
  if (!json) {
    print_tables(out, nets, count);
    return;
  }
  for (size_t i = 0; i < count; ++i) print_json(out, &nets[i]);
}
