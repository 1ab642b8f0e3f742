/* clforge_elementwise: the reference against hand-worked values and
 * against a naive broadcast written here (multi-index by multi-index, for
 * shapes up to 8 dimensions: the collapsed addressing of
 * src/desc/elementwise_desc.c); the device against the reference for every
 * op and activation, the CNNs' and decoders' broadcasts (residual, per
 * channel in NCHW and NHWC, a scalar, both sides broadcasting, 8
 * dimensions), storage mixes, in place, offsets with guards left alone,
 * NaN and division by zero; validation mode; bad input changing nothing.
 * --small: fewer, smaller cases (Oclgrind). */
#include <math.h>
#include <string.h>

#include "../src/core/context.h"
#include "../src/desc/elementwise_desc.h"
#include "../src/ref/compare.h"
#include "../src/ref/element.h"
#include "test_util.h"

static clforge_elementwise_desc ew(clforge_binary_op op, size_t nd, const size_t *a, const size_t *b) {
  clforge_elementwise_desc d = {.op = op, .ndims = nd};
  for (size_t i = 0; i < nd; ++i) d.a_shape[i] = a[i], d.b_shape[i] = b ? b[i] : 1;
  return d;
}

static void hand_values(void) {
  const size_t as[2] = {2, 3}, bs[2] = {1, 3};
  const float a[6] = {1, 2, 3, 4, 5, 6}, b[3] = {10, 20, 30};
  float y[6];
  clforge_elementwise_desc d = ew(CLFORGE_BINARY_ADD, 2, as, bs);
  CHECK_OK(NULL, clforge_ref_elementwise(&d, a, b, y));
  CHECK(y[0] == 11 && y[2] == 33 && y[3] == 14 && y[5] == 36, "add [2,3] + [1,3]: %g %g %g %g", y[0], y[2], y[3], y[5]);
  d = ew(CLFORGE_BINARY_SUB, 2, bs, as); /* [1,3] - [2,3] broadcasts too */
  d.activation = CLFORGE_ACT_RELU;
  CHECK_OK(NULL, clforge_ref_elementwise(&d, b, a, y));
  CHECK(y[0] == 9 && y[5] == 24, "relu(b - a): %g %g", y[0], y[5]);
  const float nz[3] = {NAN, 0.0f, -2.0f}, two[3] = {1.0f, 3.0f, 5.0f};
  const size_t s3[1] = {3};
  d = ew(CLFORGE_BINARY_MAX, 1, s3, s3);
  CHECK_OK(NULL, clforge_ref_elementwise(&d, nz, two, y));
  CHECK(isnan(y[0]) && y[1] == 3 && y[2] == 5, "max with a NaN: %g %g %g", y[0], y[1], y[2]);
  d.op = CLFORGE_BINARY_DIV;
  CHECK_OK(NULL, clforge_ref_elementwise(&d, two, nz, y));
  CHECK(isnan(y[0]) && isinf(y[1]) && y[2] == -2.5f, "division: %g %g %g", y[0], y[1], y[2]);
  const float nr[3] = {NAN, -1.0f, 2.0f};
  d = ew(CLFORGE_BINARY_NONE, 1, s3, NULL);
  d.activation = CLFORGE_ACT_RELU;
  CHECK_OK(NULL, clforge_ref_elementwise(&d, nr, NULL, y));
  CHECK(isnan(y[0]) && y[1] == 0 && y[2] == 2, "ReLU keeps NaN (torch.relu's): %g %g %g", y[0], y[1], y[2]);
  const float xs[3] = {0.0f, 30.0f, -1.0f};
  d = ew(CLFORGE_BINARY_NONE, 1, s3, NULL);
  d.activation = CLFORGE_ACT_SILU;
  CHECK_OK(NULL, clforge_ref_elementwise(&d, xs, NULL, y));
  CHECK(y[0] == 0 && fabsf(y[1] - 30.0f) < 1e-6f && fabsf(y[2] - (float)(-1.0 / (1.0 + exp(1.0)))) < 1e-7f,
        "SiLU: %g %g %g", y[0], y[1], y[2]);
}

/* The naive broadcast: y's multi-index, each input's clamped to its size. */
static void naive_add(size_t nd, const size_t *as, const size_t *bs, const float *a, const float *b, float *y) {
  size_t ys[CLFORGE_MAX_DIMS], n = 1;
  for (size_t i = 0; i < nd; ++i) ys[i] = as[i] > bs[i] ? as[i] : bs[i], n *= ys[i];
  for (size_t e = 0; e < n; ++e) {
    size_t idx[CLFORGE_MAX_DIMS], r = e, ai = 0, bi = 0;
    for (size_t i = nd; i-- > 0;) idx[i] = r % ys[i], r /= ys[i];
    for (size_t i = 0; i < nd; ++i) {
      ai = ai * as[i] + (as[i] == 1 ? 0 : idx[i]);
      bi = bi * bs[i] + (bs[i] == 1 ? 0 : idx[i]);
    }
    y[e] = a[ai] + b[bi];
  }
}

static void broadcast_shapes(void) {
  unsigned seed = 17;
  for (int t = 0; t < 40; ++t) {
    const size_t nd = 1 + (size_t)(tu_rand(&seed) % CLFORGE_MAX_DIMS);
    size_t as[CLFORGE_MAX_DIMS], bs[CLFORGE_MAX_DIMS], na = 1, nb = 1, ny = 1;
    for (size_t i = 0; i < nd; ++i) {
      const size_t full = 1 + tu_rand(&seed) % 3, pick = tu_rand(&seed) % 3;
      as[i] = pick == 1 ? 1 : full, bs[i] = pick == 2 ? 1 : full;
      na *= as[i], nb *= bs[i], ny *= as[i] > bs[i] ? as[i] : bs[i];
    }
    float *a = malloc(na * 4), *b = malloc(nb * 4), *y = malloc(ny * 4), *w = malloc(ny * 4);
    for (size_t i = 0; i < na; ++i) a[i] = (float)i;
    for (size_t i = 0; i < nb; ++i) b[i] = 1000.0f * (float)i;
    naive_add(nd, as, bs, a, b, w);
    clforge_elementwise_desc d = ew(CLFORGE_BINARY_ADD, nd, as, bs);
    CHECK_OK(NULL, clforge_ref_elementwise(&d, a, b, y));
    CHECK(!memcmp(y, w, ny * 4), "shape %d (%zu dims): the reference's broadcast is not the naive one", t, nd);
    free(a), free(b), free(y), free(w);
  }
}

typedef struct {
  clforge_elementwise_desc d;
  const char *what;
  int in_place; /* 1: y is a, 2: y is b */
  int specials; /* NaN and zeros in the inputs */
} ecase;

static size_t count_of(const size_t *s, size_t nd) {
  size_t n = 1;
  for (size_t i = 0; i < nd; ++i) n *= s[i];
  return n;
}

static void run(clforge_context ctx, const ecase *c) {
  clforge_elementwise_desc d = c->d;
  size_t ys[CLFORGE_MAX_DIMS];
  for (size_t i = 0; i < d.ndims; ++i) ys[i] = d.op && d.b_shape[i] > d.a_shape[i] ? d.b_shape[i] : d.a_shape[i];
  const size_t na = count_of(d.a_shape, d.ndims), nb = d.op ? count_of(d.b_shape, d.ndims) : 0, ny = count_of(ys, d.ndims);
  const clforge_dtype at = d.a_type ? d.a_type : CLFORGE_F32, bt = d.b_type ? d.b_type : CLFORGE_F32;
  const clforge_dtype yt = d.y_type ? d.y_type : CLFORGE_F32;
  const size_t as = clforge_dtype_size(at), bsz = clforge_dtype_size(bt), ysz = clforge_dtype_size(yt), guard = 3;
  d.a_offset = 2, d.b_offset = 1, d.y_offset = c->in_place == 1 ? 2 : c->in_place == 2 ? 1 : 4;
  const size_t ta = na + 2 + guard, tb = nb + 1 + guard, tyn = ny + d.y_offset + guard;
  void *ha = malloc(ta * as), *hb = malloc((tb ? tb : 1) * bsz), *hy = malloc(tyn * ysz), *want, *got = malloc(tyn * ysz);
  unsigned seed = 1234 + (unsigned)ny;
  tu_fill(ha, at, ta, &seed), tu_fill(hb, bt, tb, &seed), tu_fill(hy, yt, tyn, &seed);
  if (c->specials) {
    clforge__ref_store(ha, at, 2, NAN), clforge__ref_store(hb, bt, 1 + nb / 2, 0.0f);
    clforge__ref_store(ha, at, 2 + na / 2, 0.0f);
  }
  cl_mem a = tu_buffer(ctx, ta * as), b = tu_buffer(ctx, (tb ? tb : 1) * bsz), y = tu_buffer(ctx, tyn * ysz);
  tu_write(ctx, a, 0, ta * as, ha), tu_write(ctx, b, 0, (tb ? tb : 1) * bsz, hb), tu_write(ctx, y, 0, tyn * ysz, hy);
  const cl_mem yb = c->in_place == 1 ? a : c->in_place == 2 ? b : y;
  want = malloc(tyn * ysz);
  memcpy(want, c->in_place == 1 ? ha : c->in_place == 2 ? hb : hy, tyn * ysz);
  void *ra = c->in_place == 1 ? want : ha, *rb = c->in_place == 2 ? want : hb; /* the reference in place too */
  CHECK_OK(NULL, clforge_ref_elementwise(&d, ra, rb, want));
  CHECK_OK(ctx, clforge_elementwise(ctx, &d, a, b, yb, 0, NULL, NULL));
  tu_read(ctx, yb, 0, tyn * ysz, got);
  float *g = malloc(tyn * 4), *w = malloc(tyn * 4);
  clforge_ref_convert(tyn, got, yt, g, CLFORGE_F32), clforge_ref_convert(tyn, want, yt, w, CLFORGE_F32);
  clforge__error_stats s;
  clforge__compare_f32(ny, g + d.y_offset, w + d.y_offset, &s);
  CHECK(clforge__within_tolerance(&s, clforge__tolerance_for(yt)), "%s: nrmse %.3g max_abs %.3g special mismatches %zu",
        c->what, s.nrmse, s.max_abs, (size_t)s.special_mismatches);
  CHECK(!memcmp(got, want, d.y_offset * ysz) &&
            !memcmp((char *)got + (d.y_offset + ny) * ysz, (char *)want + (d.y_offset + ny) * ysz, guard * ysz),
        "%s: elements outside y changed", c->what);
  free(ha), free(hb), free(hy), free(want), free(got), free(g), free(w);
  clReleaseMemObject(a), clReleaseMemObject(b), clReleaseMemObject(y);
}

/* The device on random broadcasts of 1..8 dimensions (every collapsed ND
 * its own program), integer values: exact. */
static void device_broadcasts(clforge_context ctx, int small) {
  unsigned seed = 29;
  int seen[CLFORGE_MAX_DIMS + 1] = {0}, todo = small ? 3 : CLFORGE_MAX_DIMS;
  for (int t = 0; t < 400 && todo; ++t) {
    const size_t nd = 1 + (size_t)(tu_rand(&seed) % CLFORGE_MAX_DIMS);
    size_t as[CLFORGE_MAX_DIMS], bs[CLFORGE_MAX_DIMS], na = 1, nb = 1, ny = 1;
    for (size_t i = 0; i < nd; ++i) {
      const size_t full = 2 + tu_rand(&seed) % 2, pick = tu_rand(&seed) % 3;
      as[i] = pick == 1 ? 1 : full, bs[i] = pick == 2 ? 1 : full;
      na *= as[i], nb *= bs[i], ny *= full;
    }
    clforge_elementwise_desc d = ew(CLFORGE_BINARY_ADD, nd, as, bs);
    clforge__ew r;
    CHECK_OK(NULL, clforge__ew_resolve(NULL, "test", &d, &r));
    if (seen[r.nd] || (small && r.nd != 8 && r.nd > 2)) continue; /* one shape per collapsed ND (--small: 1, 2, 8) */
    seen[r.nd] = 1, --todo;
    float *a = malloc(na * 4), *b = malloc(nb * 4), *y = malloc(ny * 4), *w = malloc(ny * 4);
    for (size_t i = 0; i < na; ++i) a[i] = (float)i;
    for (size_t i = 0; i < nb; ++i) b[i] = 1000.0f * (float)i;
    naive_add(nd, as, bs, a, b, w);
    cl_mem da = tu_buffer(ctx, na * 4), db = tu_buffer(ctx, nb * 4), dy = tu_buffer(ctx, ny * 4);
    tu_write(ctx, da, 0, na * 4, a), tu_write(ctx, db, 0, nb * 4, b);
    CHECK_OK(ctx, clforge_elementwise(ctx, &d, da, db, dy, 0, NULL, NULL));
    tu_read(ctx, dy, 0, ny * 4, y);
    CHECK(!memcmp(y, w, ny * 4), "%zu dimensions collapsed to %d: the device's broadcast is not the naive one", nd, r.nd);
    free(a), free(b), free(y), free(w);
    clReleaseMemObject(da), clReleaseMemObject(db), clReleaseMemObject(dy);
  }
  CHECK(!todo, "random shapes did not reach every collapsed dimension count");
}

static void device_cases(clforge_context ctx, int small) {
  const clforge_dtype F = CLFORGE_F32, H = CLFORGE_F16, B = CLFORGE_BF16;
  const size_t big = small ? 3 : 56, ch = small ? 5 : 64;
  const size_t act4[4] = {2, big, big, ch}, chan4[4] = {1, 1, 1, ch}, nchw[4] = {2, ch, big, 7}, chan_nchw[4] = {1, ch, 1, 1};
  const size_t one[2] = {1, 1}, mat[2] = {5, 300}, col[3] = {4, 1, 3}, row[3] = {1, 5, 1};
  const size_t alt_a[8] = {2, 1, 3, 1, 2, 1, 3, 1}, alt_b[8] = {1, 3, 1, 2, 1, 3, 1, 4};
  ecase cs[16];
  int n = 0;
  cs[n++] = (ecase){ew(CLFORGE_BINARY_ADD, 4, act4, act4), "residual add NHWC", 0, 0};
  cs[n] = (ecase){ew(CLFORGE_BINARY_ADD, 4, act4, chan4), "per-channel bias NHWC + ReLU, f16 in place", 1, 0};
  cs[n].d.a_type = cs[n].d.y_type = H, cs[n].d.b_type = F, cs[n++].d.activation = CLFORGE_ACT_RELU;
  cs[n] = (ecase){ew(CLFORGE_BINARY_MUL, 4, nchw, chan_nchw), "per-channel scale NCHW bf16 -> f32", 0, 0};
  cs[n].d.a_type = B, cs[n++].d.b_type = B;
  cs[n++] = (ecase){ew(CLFORGE_BINARY_SUB, 2, one, mat), "scalar - matrix, in place in b", 2, 0};
  cs[n] = (ecase){ew(CLFORGE_BINARY_MUL, 3, col, row), "both broadcast, SiLU", 0, 0};
  cs[n++].d.activation = CLFORGE_ACT_SILU;
  cs[n] = (ecase){ew(CLFORGE_BINARY_DIV, 8, alt_a, alt_b), "8 dimensions alternating, division by zero", 0, 1};
  cs[n++].d.y_type = H;
  cs[n++] = (ecase){ew(CLFORGE_BINARY_MAX, 2, mat, mat), "max with NaN", 0, 1};
  cs[n] = (ecase){ew(CLFORGE_BINARY_MIN, 3, col, row), "min with NaN, bf16 out", 0, 1};
  cs[n++].d.y_type = B;
  const clforge_activation acts[3] = {CLFORGE_ACT_GELU_TANH, CLFORGE_ACT_GELU_ERF, CLFORGE_ACT_SILU};
  const clforge_dtype ty[3] = {F, B, H};
  for (int i = 0; i < 3; ++i) {
    cs[n] = (ecase){ew(CLFORGE_BINARY_NONE, 2, mat, NULL), "standalone activation", i == 2, 0};
    cs[n].d.activation = acts[i], cs[n].d.a_type = cs[n].d.y_type = ty[i], ++n;
  }
  for (int i = 0; i < n; ++i)
    if (!small || i % 2 == 0) run(ctx, &cs[i]);
}

static void bad_input(clforge_context ctx) {
  cl_mem a = tu_buffer(ctx, 4096), b = tu_buffer(ctx, 4096), y = tu_buffer(ctx, 4096), small = tu_buffer(ctx, 16);
  float sent[1024];
  for (int i = 0; i < 1024; ++i) sent[i] = 7.0f;
  tu_write(ctx, y, 0, 4096, sent), tu_write(ctx, a, 0, 4096, sent), tu_write(ctx, b, 0, 4096, sent);
  const size_t s[2] = {10, 20}, t[2] = {1, 20}, bad[2] = {3, 20};
  const clforge_elementwise_desc good = ew(CLFORGE_BINARY_ADD, 2, s, t);
  clforge_elementwise_desc d = good;
  CHECK_FAILS(NULL, clforge_elementwise(NULL, &d, a, b, y, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "context");
  CHECK_FAILS(ctx, clforge_elementwise(ctx, NULL, a, b, y, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "desc");
  d.op = (clforge_binary_op)9;
  CHECK_FAILS(ctx, clforge_elementwise(ctx, &d, a, b, y, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "op");
  d = good, d.activation = (clforge_activation)5;
  CHECK_FAILS(ctx, clforge_elementwise(ctx, &d, a, b, y, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "activation");
  d = good, d.ndims = 9;
  CHECK_FAILS(ctx, clforge_elementwise(ctx, &d, a, b, y, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "ndims");
  d = ew(CLFORGE_BINARY_ADD, 2, s, bad);
  CHECK_FAILS(ctx, clforge_elementwise(ctx, &d, a, b, y, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "do not broadcast");
  d = good, d.reserved[3] = &d;
  CHECK_FAILS(ctx, clforge_elementwise(ctx, &d, a, b, y, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "reserved");
  d = good, d.b_type = CLFORGE_S8;
  CHECK_FAILS(ctx, clforge_elementwise(ctx, &d, a, b, y, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "storage type");
  d = good, d.a_shape[0] = (size_t)1 << 62;
  CHECK_FAILS(ctx, clforge_elementwise(ctx, &d, a, b, y, 0, NULL, NULL), CLFORGE_SIZE_OVERFLOW, "overflow");
  d = good, d.b_offset = SIZE_MAX - 5;
  CHECK_FAILS(ctx, clforge_elementwise(ctx, &d, a, b, y, 0, NULL, NULL), CLFORGE_SIZE_OVERFLOW, "offset");
  d = good;
  CHECK_FAILS(ctx, clforge_elementwise(ctx, &d, small, b, y, 0, NULL, NULL), CLFORGE_BUFFER_TOO_SMALL, "a");
  CHECK_FAILS(ctx, clforge_elementwise(ctx, &d, a, NULL, y, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "b");
  CHECK_FAILS(ctx, clforge_elementwise(ctx, &d, a, b, small, 0, NULL, NULL), CLFORGE_BUFFER_TOO_SMALL, "y");
  d = good, d.y_offset = 5; /* y partly over a */
  CHECK_FAILS(ctx, clforge_elementwise(ctx, &d, y, b, y, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "overlaps a");
  d = good; /* y is b's buffer, but b broadcasts: not in place */
  CHECK_FAILS(ctx, clforge_elementwise(ctx, &d, a, y, y, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "overlaps b");
  d = good, d.a_type = CLFORGE_F16, d.y_type = CLFORGE_BF16; /* a's bytes exactly, another type */
  CHECK_FAILS(ctx, clforge_elementwise(ctx, &d, y, b, y, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "overlaps a");
  float back[1024];
  tu_read(ctx, y, 0, 4096, back);
  CHECK(!memcmp(back, sent, 4096), "a refused call wrote y");
  d = ew(CLFORGE_BINARY_MUL, 2, s, s); /* a, b and y one buffer: y = a * a in place */
  CHECK_OK(ctx, clforge_elementwise(ctx, &d, a, a, a, 0, NULL, NULL));
  d = good, d.op = CLFORGE_BINARY_NONE, d.activation = CLFORGE_ACT_RELU, d.b_offset = SIZE_MAX;
  CHECK_OK(ctx, clforge_elementwise(ctx, &d, a, NULL, b, 0, NULL, NULL)); /* unary: no b, its offset unread */
  d.a_shape[1] = 0;
  cl_event ev = NULL;
  CHECK_OK(ctx, clforge_elementwise(ctx, &d, NULL, NULL, NULL, 0, NULL, &ev));
  CHECK(ev != NULL, "an empty y gives a marker event");
  if (ev) clReleaseEvent(ev);
  clforge_kernel_choice ch;
  CHECK_OK(ctx, clforge_elementwise_explain(ctx, &good, &ch));
  CHECK(!strcmp(ch.family, "elementwise") && ch.nparams == 2, "explain names the family: %s", ch.family);
  clReleaseMemObject(a), clReleaseMemObject(b), clReleaseMemObject(y), clReleaseMemObject(small);
}

static void validation(clforge_context ctx) {
  CHECK_OK(ctx, clforge_context_set_validation(ctx, 1));
  const size_t s[3] = {4, 1, 3}, t[3] = {1, 5, 1};
  ecase c = {ew(CLFORGE_BINARY_MUL, 3, s, t), "validated", 0, 0};
  c.d.activation = CLFORGE_ACT_SILU;
  run(ctx, &c);
  cl_mem a = tu_buffer(ctx, 400), y = tu_buffer(ctx, 400);
  float h[100];
  for (int i = 0; i < 100; ++i) h[i] = (float)(i % 9) / 4.0f - 1.0f;
  tu_write(ctx, a, 0, sizeof h, h);
  const size_t n[1] = {100};
  clforge_elementwise_desc d = ew(CLFORGE_BINARY_NONE, 1, n, NULL);
  d.activation = CLFORGE_ACT_GELU_ERF;
  clforge__test_set_fault(ctx, "elementwise");
  CHECK_FAILS(ctx, clforge_elementwise(ctx, &d, a, NULL, y, 0, NULL, NULL), CLFORGE_VALIDATION_FAILED, "elementwise");
  clforge__test_set_fault(ctx, NULL);
  CHECK_OK(ctx, clforge_context_set_validation(ctx, 0));
  clReleaseMemObject(a), clReleaseMemObject(y);
}

int main(int argc, char **argv) {
  const int small = argc > 1 && !strcmp(argv[1], "--small");
  hand_values();
  broadcast_shapes();
  clforge_context ctx = tu_context();
  device_cases(ctx, small);
  device_broadcasts(ctx, small);
  bad_input(ctx);
  if (!small) validation(ctx);
  clforge_context_destroy(ctx);
  return tu_summary();
}
