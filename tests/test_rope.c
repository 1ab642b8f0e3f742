/* clforge_rope: the reference against hand-worked rotations (a quarter
 * turn, the pass-through, both pairings); the device against the reference
 * with a bound derived per element from the f32 angle's error (the pair's
 * size times position * CLFORGE__ROPE_ANGLE_ERROR, and the output's
 * rounding, clforge__rope_bound): both styles, partial rotary_dim,
 * GQA-sized Q and K, a packed QKV buffer's strides, heads outer ([H, T, D]),
 * decode (one token, one head), positions of a paged batch (out of order,
 * large, small, negative), f16/bf16 storage, in place; validation mode; bad
 * input changing nothing. --small: fewer, smaller cases (Oclgrind). */
#include <math.h>
#include <string.h>

#include "../src/core/context.h"
#include "../src/desc/rope_desc.h"
#include "../src/ref/element.h"
#include "test_util.h"

static void hand_values(void) {
  /* head_dim 6, R 4, theta 1: every pair turns by the position itself */
  const float x[6] = {1, 2, 3, 4, 5, 6};
  float y[6];
  const int32_t pos[1] = {0};
  clforge_rope_desc d = {.style = CLFORGE_ROPE_NEOX, .tokens = 1, .heads = 1, .head_dim = 6, .rotary_dim = 4,
                         .theta = 1.0f};
  CHECK_OK(NULL, clforge_ref_rope(&d, x, pos, y));
  CHECK(!memcmp(x, y, sizeof x), "position 0 turns nothing");
  /* theta 16, R 4: pair 0 turns by the position p, pair 1 by p / 4 */
  const float xq[4] = {1, 0, 0, 0};
  d.head_dim = d.rotary_dim = 4, d.theta = 16.0f;
  const int32_t p1[1] = {1};
  CHECK_OK(NULL, clforge_ref_rope(&d, xq, p1, y));
  CHECK(fabsf(y[0] - cosf(1.0f)) < 1e-6f && fabsf(y[2] - sinf(1.0f)) < 1e-6f && y[1] == 0 && y[3] == 0,
        "NeoX pairs (0, 2): %g %g %g %g", y[0], y[1], y[2], y[3]);
  d.style = CLFORGE_ROPE_GPTJ;
  CHECK_OK(NULL, clforge_ref_rope(&d, xq, p1, y));
  CHECK(fabsf(y[0] - cosf(1.0f)) < 1e-6f && fabsf(y[1] - sinf(1.0f)) < 1e-6f && y[2] == 0 && y[3] == 0,
        "GPT-J pairs (0, 1): %g %g %g %g", y[0], y[1], y[2], y[3]);
  const float x2[4] = {0, 0, 1, 0};
  const int32_t p2[1] = {2}; /* pair 1 turns by 2 / 4 */
  CHECK_OK(NULL, clforge_ref_rope(&d, x2, p2, y));
  CHECK(fabsf(y[2] - cosf(0.5f)) < 1e-6f && fabsf(y[3] - sinf(0.5f)) < 1e-6f, "GPT-J pair 1: %g %g", y[2], y[3]);
  float v[6] = {1, 2, 3, 4, 5, 6};
  d = (clforge_rope_desc){.tokens = 1, .heads = 1, .head_dim = 6, .rotary_dim = 2};
  const int32_t p3[1] = {-7};
  CHECK_OK(NULL, clforge_ref_rope(&d, v, p3, v)); /* in place; the elements past R pass through */
  CHECK(fabsf(v[0] - (float)(cos(-7.0) - 2 * sin(-7.0))) < 1e-5f && v[2] == 3 && v[5] == 6, "partial, in place: %g %g",
        v[0], v[2]);
}

typedef struct {
  clforge_rope_desc d;
  const char *what;
  int in_place;
  int32_t top; /* positions up to this */
} rcase;

static size_t extent(size_t t, size_t h, size_t dd, size_t off, size_t ts, size_t hs) {
  return off + (t - 1) * (ts ? ts : h * dd) + (h - 1) * (hs ? hs : dd) + dd;
}

static void run(clforge_context ctx, const rcase *c) {
  clforge_rope_desc d = c->d;
  const clforge_dtype xt = d.x_type ? d.x_type : CLFORGE_F32, yt = d.y_type ? d.y_type : CLFORGE_F32;
  const size_t nx = extent(d.tokens, d.heads, d.head_dim, d.x_offset, d.x_token_stride, d.x_head_stride) + 3;
  const size_t ny = c->in_place ? nx : extent(d.tokens, d.heads, d.head_dim, d.y_offset, d.y_token_stride, d.y_head_stride) + 3;
  const size_t xs = clforge_dtype_size(xt), ys = clforge_dtype_size(yt);
  void *hx = malloc(nx * xs), *hy = malloc(ny * ys), *want = malloc(ny * ys), *got = malloc(ny * ys);
  int32_t *pos = malloc((d.tokens + 2) * sizeof *pos);
  unsigned seed = 4242 + (unsigned)nx;
  tu_fill(hx, xt, nx, &seed), tu_fill(hy, yt, ny, &seed);
  for (size_t t = 0; t < d.tokens + 2; ++t) pos[t] = (int32_t)(tu_rand(&seed) % (unsigned)(c->top + 1)) - (t == 3 ? c->top / 2 : 0);
  d.positions_offset = 2;
  cl_mem x = tu_buffer(ctx, nx * xs), y = c->in_place ? x : tu_buffer(ctx, ny * ys), p = tu_buffer(ctx, (d.tokens + 2) * 4);
  tu_write(ctx, x, 0, nx * xs, hx), tu_write(ctx, p, 0, (d.tokens + 2) * 4, pos);
  if (!c->in_place) tu_write(ctx, y, 0, ny * ys, hy);
  memcpy(want, c->in_place ? hx : hy, ny * ys);
  CHECK_OK(NULL, clforge_ref_rope(&d, hx, pos, want));
  CHECK_OK(ctx, clforge_rope(ctx, &d, x, p, y, 0, NULL, NULL));
  tu_read(ctx, y, 0, ny * ys, got);
  /* per element: the pair's size times the angle's error, and the roundings */
  clforge__rope r;
  CHECK_OK(NULL, clforge__rope_resolve(NULL, "test", &d, &r));
  double worst = 0;
  size_t bad = 0;
  for (size_t t = 0; t < d.tokens; ++t)
    for (size_t h = 0; h < d.heads; ++h) {
      const size_t xb = r.x.offset + t * r.x.token_stride + h * r.x.head_stride;
      const size_t yb = r.y.offset + t * r.y.token_stride + h * r.y.head_stride;
      for (size_t i = 0; i < r.d; ++i) {
        const size_t j = i < r.rot ? (r.neox ? (i < r.rot / 2 ? i + r.rot / 2 : i - r.rot / 2) : i ^ 1) : i;
        const double pair = fabs(clforge__ref_load(hx, xt, xb + i)) + (i < r.rot ? fabs(clforge__ref_load(hx, xt, xb + j)) : 0);
        const double w = clforge__ref_load(want, yt, yb + i), g = clforge__ref_load(got, yt, yb + i);
        const double e = fabs(g - w) / clforge__rope_bound(pair, pos[2 + t], w, yt);
        if (!(e <= 1.0)) ++bad;
        if (!(e <= worst)) worst = e;
      }
    }
  CHECK(bad == 0, "%s: %zu elements past their bound (worst %.3g of it)", c->what, bad, worst);
  /* nothing outside y's heads changed (the guards, a packed buffer's other parts) */
  unsigned char *in = calloc(ny, 1);
  for (size_t t = 0; t < d.tokens; ++t)
    for (size_t h = 0; h < d.heads; ++h)
      memset(in + r.y.offset + t * r.y.token_stride + h * r.y.head_stride, 1, r.d);
  size_t outside = 0;
  for (size_t e = 0; e < ny; ++e)
    if (!in[e]) outside += memcmp((char *)got + e * ys, (char *)(c->in_place ? hx : hy) + e * ys, ys) != 0;
  free(in);
  CHECK(outside == 0, "%s: %zu elements outside y's heads changed", c->what, outside);
  free(hx), free(hy), free(want), free(got), free(pos);
  clReleaseMemObject(x), clReleaseMemObject(p);
  if (!c->in_place) clReleaseMemObject(y);
}

static void device_cases(clforge_context ctx, int small) {
  const clforge_dtype H = CLFORGE_F16, B = CLFORGE_BF16;
  const size_t T = small ? 5 : 37;
  rcase cs[10];
  int n = 0;
  /* Llama's Q (GQA 4:1, D 64, NeoX) out of place, K in place, f16 */
  cs[n++] = (rcase){{.style = CLFORGE_ROPE_NEOX, .tokens = T, .heads = 8, .head_dim = 64, .theta = 500000.0f}, "Q NeoX", 0, 4096};
  cs[n] = (rcase){{.style = CLFORGE_ROPE_NEOX, .tokens = T, .heads = 2, .head_dim = 64}, "K NeoX f16 in place", 1, 8191};
  cs[n].d.x_type = cs[n].d.y_type = H, ++n;
  /* GPT-J pairs, partial rotary (NeoX's 25 %), bf16 -> f32 */
  cs[n] = (rcase){{.style = CLFORGE_ROPE_GPTJ, .tokens = T, .heads = 3, .head_dim = 40, .rotary_dim = 10}, "GPT-J partial bf16", 0, 300};
  cs[n].d.x_type = B, ++n;
  /* the K part of a packed [T, (4 + 2 + 2) heads, 32] QKV buffer, in place */
  cs[n] = (rcase){{.style = CLFORGE_ROPE_NEOX, .tokens = T, .heads = 2, .head_dim = 32, .x_offset = 4 * 32,
                   .x_token_stride = 8 * 32, .y_offset = 4 * 32, .y_token_stride = 8 * 32}, "packed QKV's K in place", 1, 2000};
  ++n;
  /* out of place, partial NeoX with strides of its own, f32 -> f16 */
  cs[n] = (rcase){{.style = CLFORGE_ROPE_NEOX, .tokens = T, .heads = 4, .head_dim = 24, .rotary_dim = 16,
                   .x_head_stride = 30, .x_token_stride = 130, .y_offset = 1, .y_type = H}, "partial NeoX strided", 0, 100000};
  ++n;
  /* small positions with f16 out (the output's rounding dominates), heads outer, in place with partial R */
  cs[n] = (rcase){{.style = CLFORGE_ROPE_GPTJ, .tokens = T, .heads = 3, .head_dim = 16, .rotary_dim = 8,
                   .x_token_stride = 16, .x_head_stride = 16 * T, .y_token_stride = 16, .y_head_stride = 16 * T},
                  "heads outer, in place, partial, f16", 1, 40};
  cs[n].d.x_type = cs[n].d.y_type = H, ++n;
  /* decode: one token, one head, theta 1e6 */
  cs[n++] = (rcase){{.style = CLFORGE_ROPE_NEOX, .tokens = 1, .heads = 1, .head_dim = 128, .theta = 1e6f}, "decode", 0, 30000};
  for (int i = 0; i < n; ++i)
    if (!small || i % 2 == 0) run(ctx, &cs[i]);
}

static void bad_input(clforge_context ctx) {
  cl_mem x = tu_buffer(ctx, 4096), y = tu_buffer(ctx, 4096), p = tu_buffer(ctx, 64), small = tu_buffer(ctx, 16);
  float sent[1024];
  for (int i = 0; i < 1024; ++i) sent[i] = 7.0f;
  tu_write(ctx, y, 0, 4096, sent);
  int32_t pz[16] = {0};
  tu_write(ctx, p, 0, 64, pz);
  const clforge_rope_desc good = {.tokens = 4, .heads = 4, .head_dim = 32}; /* 512 elements */
  clforge_rope_desc d = good;
  CHECK_FAILS(NULL, clforge_rope(NULL, &d, x, p, y, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "context");
  CHECK_FAILS(ctx, clforge_rope(ctx, NULL, x, p, y, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "desc");
  d.style = (clforge_rope_style)2;
  CHECK_FAILS(ctx, clforge_rope(ctx, &d, x, p, y, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "style");
  d = good, d.rotary_dim = 7;
  CHECK_FAILS(ctx, clforge_rope(ctx, &d, x, p, y, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "even");
  d = good, d.rotary_dim = 34;
  CHECK_FAILS(ctx, clforge_rope(ctx, &d, x, p, y, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "at most head_dim");
  d = good, d.theta = -1.0f;
  CHECK_FAILS(ctx, clforge_rope(ctx, &d, x, p, y, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "theta");
  d = good, d.theta = 0.5f; /* below 1: no model's, and past the error bound */
  CHECK_FAILS(ctx, clforge_rope(ctx, &d, x, p, y, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "theta");
  d = good, d.heads = 1, d.x_token_stride = 1; /* one head, tokens over each other */
  CHECK_FAILS(ctx, clforge_rope(ctx, &d, x, p, y, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "overlap its rows");
  d = good, d.theta = INFINITY;
  CHECK_FAILS(ctx, clforge_rope(ctx, &d, x, p, y, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "theta");
  d = good, d.heads = 0;
  CHECK_FAILS(ctx, clforge_rope(ctx, &d, x, p, y, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "heads");
  d = good, d.x_head_stride = 16;
  CHECK_FAILS(ctx, clforge_rope(ctx, &d, x, p, y, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "overlap its rows");
  d = good, d.y_type = CLFORGE_S8;
  CHECK_FAILS(ctx, clforge_rope(ctx, &d, x, p, y, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "f32, f16 or bf16");
  d = good, d.reserved[2] = &d;
  CHECK_FAILS(ctx, clforge_rope(ctx, &d, x, p, y, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "reserved");
  d = good, d.y_offset = SIZE_MAX - 100;
  CHECK_FAILS(ctx, clforge_rope(ctx, &d, x, p, y, 0, NULL, NULL), CLFORGE_SIZE_OVERFLOW, "overflow");
  d = good, d.positions_offset = 1; /* 5 int32 past a 16-byte buffer */
  CHECK_FAILS(ctx, clforge_rope(ctx, &d, x, small, y, 0, NULL, NULL), CLFORGE_BUFFER_TOO_SMALL, "positions");
  d = good;
  CHECK_FAILS(ctx, clforge_rope(ctx, &d, x, NULL, y, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "positions");
  CHECK_FAILS(ctx, clforge_rope(ctx, &d, small, p, y, 0, NULL, NULL), CLFORGE_BUFFER_TOO_SMALL, "x");
  d.y_offset = 3; /* y over x, not x exactly */
  CHECK_FAILS(ctx, clforge_rope(ctx, &d, y, p, y, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "overlaps");
  d = good, d.positions_offset = 100; /* in place, the positions inside y */
  CHECK_FAILS(ctx, clforge_rope(ctx, &d, y, y, y, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "overlaps positions");
  d = good, d.y_type = CLFORGE_F16; /* x's bytes as another type */
  CHECK_FAILS(ctx, clforge_rope(ctx, &d, y, p, y, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "overlaps");
  float back[1024];
  tu_read(ctx, y, 0, 4096, back);
  CHECK(!memcmp(back, sent, 4096), "a refused call wrote y");
  d = good, d.tokens = 0;
  cl_event ev = NULL;
  CHECK_OK(ctx, clforge_rope(ctx, &d, NULL, NULL, NULL, 0, NULL, &ev));
  CHECK(ev != NULL, "no tokens gives a marker event");
  if (ev) clReleaseEvent(ev);
  clforge_kernel_choice ch;
  CHECK_OK(ctx, clforge_rope_explain(ctx, &good, &ch));
  CHECK(!strcmp(ch.family, "rope") && ch.nparams == 1, "explain names the family: %s", ch.family);
  clReleaseMemObject(x), clReleaseMemObject(y), clReleaseMemObject(p), clReleaseMemObject(small);
}

static void validation(clforge_context ctx) {
  CHECK_OK(ctx, clforge_context_set_validation(ctx, 1));
  rcase c = {{.style = CLFORGE_ROPE_GPTJ, .tokens = 9, .heads = 3, .head_dim = 16}, "validated", 0, 30000};
  run(ctx, &c);
  c.in_place = 1, c.what = "validated in place";
  run(ctx, &c);
  cl_mem x = tu_buffer(ctx, 4 * 64), p = tu_buffer(ctx, 4 * 4), y = tu_buffer(ctx, 4 * 64);
  float h[64];
  int32_t pos[4] = {0, 1, 2, 3};
  for (int i = 0; i < 64; ++i) h[i] = (float)(i % 9) / 4.0f - 1.0f;
  tu_write(ctx, x, 0, sizeof h, h), tu_write(ctx, p, 0, sizeof pos, pos);
  const clforge_rope_desc d = {.tokens = 4, .heads = 1, .head_dim = 16};
  clforge__test_set_fault(ctx, "rope");
  CHECK_FAILS(ctx, clforge_rope(ctx, &d, x, p, y, 0, NULL, NULL), CLFORGE_VALIDATION_FAILED, "rope");
  clforge__test_set_fault(ctx, NULL);
  CHECK_OK(ctx, clforge_context_set_validation(ctx, 0));
  clReleaseMemObject(x), clReleaseMemObject(p), clReleaseMemObject(y);
}

int main(int argc, char **argv) {
  const int small = argc > 1 && !strcmp(argv[1], "--small");
  hand_values();
  clforge_context ctx = tu_context();
  device_cases(ctx, small);
  bad_input(ctx);
  if (!small) validation(ctx);
  clforge_context_destroy(ctx);
  return tu_summary();
}
