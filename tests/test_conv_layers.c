/* The real networks' layer tables (src/families/conv_layers.c: what bench
 * conv --network times and the tuner's classes are made of) against each
 * architecture built here block by block from its published description
 * (ResNet-50 v1.5: He et al. 2016 with torchvision's stride on the 3x3;
 * MobileNetV2: Sandler et al. 2018, table 2), at 224 x 224: the same
 * layers with the same counts, the layer count, and the multiply-adds per
 * image (ResNet-50's convolutions about 4.1 G, MobileNetV2's about 0.3 G). */
#include "../src/families/conv_layers.h"
#include "test_util.h"

enum { MAX_LAYERS = 64 };

typedef struct {
  size_t c, h, k, r, stride, pad, groups;
  unsigned count;
} layer;

typedef struct {
  layer l[MAX_LAYERS];
  int n;
  unsigned total;
  size_t h; /* the spatial size the next layer reads */
} net;

/* Add one conv reading net->h x net->h; the output size follows. */
static void conv(net *t, size_t c, size_t k, size_t r, size_t stride, size_t groups) {
  const size_t pad = r / 2;
  layer x = {c, t->h, k, r, stride, pad, groups, 1};
  ++t->total;
  t->h = (t->h + 2 * pad - r) / stride + 1;
  for (int i = 0; i < t->n; ++i) {
    layer *y = &t->l[i];
    if (y->c == x.c && y->h == x.h && y->k == x.k && y->r == x.r && y->stride == x.stride && y->pad == x.pad &&
        y->groups == x.groups) {
      ++y->count;
      return;
    }
  }
  if (t->n < MAX_LAYERS) t->l[t->n++] = x;
}

static void resnet50(net *t) {
  static const size_t blocks[4] = {3, 4, 6, 3}, width[4] = {64, 128, 256, 512};
  memset(t, 0, sizeof *t);
  t->h = 224;
  conv(t, 3, 64, 7, 2, 1);
  t->h = (t->h + 2 - 3) / 2 + 1; /* max pool 3x3/2, pad 1: 112 -> 56 */
  size_t in = 64;
  for (int s = 0; s < 4; ++s)
    for (size_t b = 0; b < blocks[s]; ++b) {
      const size_t stride = (s > 0 && b == 0) ? 2 : 1, w = width[s], out = 4 * w, h_in = t->h;
      conv(t, in, w, 1, 1, 1);
      conv(t, w, w, 3, stride, 1);
      conv(t, w, out, 1, 1, 1);
      if (b == 0) { /* the projection reads the block's input */
        const size_t h_out = t->h;
        t->h = h_in;
        conv(t, in, out, 1, stride, 1);
        CHECK(t->h == h_out, "projection and main path meet at %zu, not %zu", t->h, h_out);
      }
      in = out;
    }
  CHECK(t->h == 7, "ResNet-50 ends at 7x7, not %zu", t->h);
}

static void mobilenet_v2(net *t) {
  static const size_t stages[7][4] = {{1, 16, 1, 1}, {6, 24, 2, 2},  {6, 32, 3, 2},  {6, 64, 4, 2},
                                      {6, 96, 3, 1}, {6, 160, 3, 2}, {6, 320, 1, 1}}; /* t, c, n, s */
  memset(t, 0, sizeof *t);
  t->h = 224;
  conv(t, 3, 32, 3, 2, 1);
  size_t in = 32;
  for (int s = 0; s < 7; ++s)
    for (size_t b = 0; b < stages[s][2]; ++b) {
      const size_t hidden = in * stages[s][0], stride = b == 0 ? stages[s][3] : 1;
      if (stages[s][0] != 1) conv(t, in, hidden, 1, 1, 1);
      conv(t, hidden, hidden, 3, stride, hidden);
      conv(t, hidden, stages[s][1], 1, 1, 1);
      in = stages[s][1];
    }
  conv(t, in, 1280, 1, 1, 1);
  CHECK(t->h == 7, "MobileNetV2 ends at 7x7, not %zu", t->h);
}

static double macs(size_t c, size_t h, size_t k, size_t r, size_t stride, size_t pad, size_t groups) {
  const double p = (double)((h + 2 * pad - r) / stride + 1);
  return (double)k * (double)(c / groups) * (double)(r * r) * p * p;
}

/* The table's network `key` against `want`: every built layer in the table
 * once with its count, nothing else; the totals. */
static void compare(const char *key, const net *want, unsigned layers, double macs_lo, double macs_hi) {
  const clforge__conv_network *nw = NULL;
  for (const clforge__conv_network *x = clforge__conv_networks; x->name; ++x)
    if (!strcmp(x->key, key)) nw = x;
  CHECK(nw != NULL, "no network \"%s\" in the table", key);
  if (!nw) return;
  CHECK(want->total == layers, "%s built with %u conv layers, the architecture has %u", key, want->total, layers);
  unsigned total = 0;
  double table_macs = 0, built_macs = 0;
  int distinct = 0;
  for (const clforge__conv_layer *l = nw->layers; l->name; ++l) {
    ++distinct;
    total += l->count;
    table_macs += l->count * macs(l->c, l->h, l->k, l->r, l->stride, l->pad, l->groups);
    int found = 0;
    for (int i = 0; i < want->n; ++i) {
      const layer *y = &want->l[i];
      if (y->c == l->c && y->h == l->h && y->k == l->k && y->r == l->r && y->stride == l->stride &&
          y->pad == l->pad && y->groups == l->groups) {
        ++found;
        CHECK(y->count == l->count, "%s %s (%s): count %u, the architecture has %u", key, l->name, l->what, l->count,
              y->count);
      }
    }
    CHECK(found == 1, "%s %s (%s: %zu->%zu %zux%zu/%zu @%zu groups %zu) is not a layer of the architecture", key,
          l->name, l->what, l->c, l->k, l->r, l->r, l->stride, l->h, l->groups);
    for (const clforge__conv_layer *m = l + 1; m->name; ++m)
      CHECK(strcmp(l->name, m->name) != 0, "%s: the name %s is given twice", key, l->name);
  }
  for (int i = 0; i < want->n; ++i) {
    const layer *y = &want->l[i];
    built_macs += y->count * macs(y->c, y->h, y->k, y->r, y->stride, y->pad, y->groups);
  }
  CHECK(distinct == want->n, "%s: %d distinct layers in the table, %d in the architecture", key, distinct, want->n);
  CHECK(total == layers, "%s: the table's counts add up to %u layers, not %u", key, total, layers);
  CHECK(table_macs == built_macs, "%s: %.6g multiply-adds per image in the table, %.6g built", key, table_macs,
        built_macs);
  CHECK(table_macs >= macs_lo && table_macs <= macs_hi, "%s: %.4g multiply-adds per image, published %.3g-%.3g", key,
        table_macs, macs_lo, macs_hi);
  printf("%s: %d distinct layers, %u in all, %.4f GMAC per image\n", nw->name, distinct, total, table_macs * 1e-9);
}

int main(void) {
  net t;
  resnet50(&t);
  compare("resnet50", &t, 53, 4.05e9, 4.12e9); /* 4.09 GMAC with the 2 M of the classifier */
  mobilenet_v2(&t);
  compare("mobilenetv2", &t, 52, 0.295e9, 0.305e9); /* 300 M with the classifier's 1.3 M */

  /* Every tuner-class layer is a layer of its network (AlexNet's excepted,
   * which is there alone), with the same shape; each kind is named. */
  for (const clforge__conv_layer *l = clforge__conv_class_layers; l->name; ++l) {
    int found = !strncmp(l->name, "alex_", 5);
    for (const clforge__conv_network *x = clforge__conv_networks; x->name; ++x)
      for (const clforge__conv_layer *m = x->layers; m->name; ++m)
        if (!strcmp(m->name, l->name))
          found += m->c == l->c && m->h == l->h && m->k == l->k && m->r == l->r && m->stride == l->stride &&
                   m->pad == l->pad && m->groups == l->groups;
    CHECK(found == 1, "class layer %s is in %d networks with its shape", l->name, found);
  }
  const char *kinds[][2] = {{"r50_7x7s2", "stem"},         {"mbv2_stem_3x3s2", "stem"},   {"r50_3x3_56", "3x3"},
                            {"r50_1x1_56", "1x1"},         {"r50_3x3s2_56_128", "strided"}, {"r50_1x1s2_56_256_512", "strided"},
                            {"mbv2_dw_112", "depthwise"}, {"mbv2_dws2_14_576", "depthwise"}};
  for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; ++i) {
    int found = 0;
    for (const clforge__conv_network *x = clforge__conv_networks; x->name; ++x)
      for (const clforge__conv_layer *m = x->layers; m->name; ++m)
        if (!strcmp(m->name, kinds[i][0])) {
          ++found;
          CHECK(!strcmp(clforge__conv_layer_kind(m), kinds[i][1]), "%s is %s, not %s", m->name,
                clforge__conv_layer_kind(m), kinds[i][1]);
        }
    CHECK(found == 1, "%s: %d layers of that name", kinds[i][0], found);
  }
  return tu_summary();
}
