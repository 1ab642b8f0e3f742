/* clforge_embedding: the reference against hand-made rows (a q8_0 block's
 * scale times its s8); the device bit for bit against the reference (a
 * row's conversion is exact or one rounding, the same on both) for f32,
 * f16, bf16 and q8_0 tables into f32, f16 and bf16, repeated ids, a strided
 * y whose gaps stay, offsets; ids outside the vocabulary refused before
 * anything runs; validation mode; bad input changing nothing. --small:
 * fewer, smaller cases (Oclgrind). */
#include <string.h>

#include "../src/core/context.h"
#include "test_util.h"

static void hand_values(void) {
  const float table[6] = {1, 2, 3, 4, 5, 6};
  const int32_t ids[3] = {2, 0, 2};
  float y[6];
  clforge_embedding_desc d = {.tokens = 3, .vocab = 3, .dim = 2};
  CHECK_OK(NULL, clforge_ref_embedding(&d, table, ids, y));
  CHECK(y[0] == 5 && y[1] == 6 && y[2] == 1 && y[5] == 6, "rows 2, 0, 2: %g %g %g %g", y[0], y[1], y[2], y[5]);
  unsigned char q[34] = {0x00, 0x38}; /* f16 0.5, little-endian */
  q[2] = (unsigned char)(signed char)-3, q[2 + 31] = 7;
  const int32_t zero[1] = {0};
  float r[32];
  d = (clforge_embedding_desc){.tokens = 1, .vocab = 1, .dim = 32, .table_type = CLFORGE_Q8_0};
  CHECK_OK(NULL, clforge_ref_embedding(&d, q, zero, r));
  CHECK(r[0] == -1.5f && r[31] == 3.5f && r[5] == 0.0f, "q8_0: %g %g %g", r[0], r[31], r[5]);
  const int32_t out[1] = {1};
  CHECK_FAILS(NULL, clforge_ref_embedding(&d, q, out, r), CLFORGE_INVALID_ARGUMENT, "ids[0] = 1");
}

/* A table of vocab rows in type t: random values, q8_0 blocks with normal f16 scales. */
static void *make_table(clforge_dtype t, size_t vocab, size_t dim, size_t *bytes, unsigned *seed) {
  if (t != CLFORGE_Q8_0) {
    *bytes = vocab * dim * clforge_dtype_size(t);
    void *p = malloc(*bytes);
    tu_fill(p, t, vocab * dim, seed);
    return p;
  }
  *bytes = vocab * dim / 32 * 34;
  unsigned char *p = malloc(*bytes);
  for (size_t b = 0; b < *bytes / 34; ++b) {
    const uint16_t scale = (uint16_t)(0x2000 + tu_rand(seed) % 0x2000); /* 2^-7 .. 1 */
    p[b * 34] = (unsigned char)scale, p[b * 34 + 1] = (unsigned char)(scale >> 8);
    for (int i = 0; i < 32; ++i) p[b * 34 + 2 + i] = (unsigned char)tu_rand(seed);
  }
  return p;
}

typedef struct {
  clforge_dtype tt, yt;
  size_t tokens, vocab, dim, y_stride;
} ecase;

static void run(clforge_context ctx, const ecase *c) {
  unsigned seed = 77 + (unsigned)(c->vocab * 3 + c->dim);
  size_t tb;
  void *table = make_table(c->tt, c->vocab, c->dim, &tb, &seed);
  const size_t toff = c->tt == CLFORGE_Q8_0 ? 5 : 3, tu = c->tt == CLFORGE_Q8_0 ? 1 : clforge_dtype_size(c->tt);
  const size_t ys = clforge_dtype_size(c->yt), stride = c->y_stride ? c->y_stride : c->dim;
  const size_t ny = 2 + (c->tokens - 1) * stride + c->dim + 3;
  int32_t *ids = malloc((c->tokens + 1) * sizeof *ids);
  for (size_t t = 0; t <= c->tokens; ++t) ids[t] = (int32_t)(tu_rand(&seed) % c->vocab);
  if (c->tokens > 2) ids[2] = ids[1] = (int32_t)(c->vocab - 1); /* a repeat, the last row */
  void *hy = malloc(ny * ys), *want = malloc(ny * ys), *got = malloc(ny * ys);
  tu_fill(hy, c->yt, ny, &seed);
  memcpy(want, hy, ny * ys);
  cl_mem dt = tu_buffer(ctx, toff * tu + tb), di = tu_buffer(ctx, (c->tokens + 1) * 4), dy = tu_buffer(ctx, ny * ys);
  unsigned char *whole = calloc(1, toff * tu + tb); /* written whole (Oclgrind's shadow of it too) */
  memcpy(whole + toff * tu, table, tb);
  tu_write(ctx, dt, 0, toff * tu + tb, whole), tu_write(ctx, di, 0, (c->tokens + 1) * 4, ids);
  tu_write(ctx, dy, 0, ny * ys, hy);
  free(whole);
  const clforge_embedding_desc d = {.tokens = c->tokens, .vocab = c->vocab, .dim = c->dim, .table_type = c->tt,
                                    .y_type = c->yt, .table_offset = toff, .ids_offset = 1, .y_offset = 2,
                                    .y_stride = c->y_stride};
  clforge_embedding_desc h = d;
  h.table_offset = 0;
  CHECK_OK(NULL, clforge_ref_embedding(&h, table, ids, want));
  CHECK_OK(ctx, clforge_embedding(ctx, &d, dt, di, dy, 0, NULL, NULL));
  tu_read(ctx, dy, 0, ny * ys, got);
  CHECK(!memcmp(got, want, ny * ys), "table %s -> %s, %zu tokens of %zu (stride %zu): not bit for bit the reference",
        clforge_dtype_name(c->tt), clforge_dtype_name(c->yt), c->tokens, c->dim, stride);
  free(table), free(ids), free(hy), free(want), free(got);
  clReleaseMemObject(dt), clReleaseMemObject(di), clReleaseMemObject(dy);
}

static void bad_input(clforge_context ctx) {
  cl_mem t = tu_buffer(ctx, 4096), ids = tu_buffer(ctx, 64), y = tu_buffer(ctx, 4096), small = tu_buffer(ctx, 16);
  float sent[1024];
  for (int i = 0; i < 1024; ++i) sent[i] = 7.0f;
  tu_write(ctx, y, 0, 4096, sent), tu_write(ctx, t, 0, 4096, sent);
  const int32_t good_ids[16] = {0, 1, 2, 3, 9, -1, 10};
  tu_write(ctx, ids, 0, sizeof good_ids, good_ids);
  const clforge_embedding_desc good = {.tokens = 4, .vocab = 10, .dim = 32}; /* 320 of the table's 1024 floats */
  clforge_embedding_desc d = good;
  CHECK_FAILS(NULL, clforge_embedding(NULL, &d, t, ids, y, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "context");
  CHECK_FAILS(ctx, clforge_embedding(ctx, NULL, t, ids, y, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "desc");
  d.ids_offset = 2; /* ids 2, 3, 9, -1 */
  CHECK_FAILS(ctx, clforge_embedding(ctx, &d, t, ids, y, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT,
              "token 3's id (ids element 5) = -1");
  d.ids_offset = 6, d.tokens = 1; /* 10: the vocabulary's size itself */
  CHECK_FAILS(ctx, clforge_embedding(ctx, &d, t, ids, y, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "= 10 is outside");
  d = good;
  cl_context cc;
  clforge_context_cl_context(ctx, &cc);
  cl_int err;
  cl_mem hidden = clCreateBuffer(cc, CL_MEM_READ_ONLY | CL_MEM_HOST_NO_ACCESS, 64, NULL, &err);
  CHECK_FAILS(ctx, clforge_embedding(ctx, &d, t, hidden, y, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "without host reads");
  clReleaseMemObject(hidden);
  d = good, d.table_type = CLFORGE_S8;
  CHECK_FAILS(ctx, clforge_embedding(ctx, &d, t, ids, y, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "table_type");
  d = good, d.y_type = CLFORGE_Q8_0;
  CHECK_FAILS(ctx, clforge_embedding(ctx, &d, t, ids, y, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "y_type");
  d = good, d.table_type = CLFORGE_Q8_0, d.dim = 48;
  CHECK_FAILS(ctx, clforge_embedding(ctx, &d, t, ids, y, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "multiple of 32");
  d = good, d.vocab = 0;
  CHECK_FAILS(ctx, clforge_embedding(ctx, &d, t, ids, y, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "vocab");
  d = good, d.y_stride = 31;
  CHECK_FAILS(ctx, clforge_embedding(ctx, &d, t, ids, y, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "y_stride");
  d = good, d.reserved[0] = &d;
  CHECK_FAILS(ctx, clforge_embedding(ctx, &d, t, ids, y, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "reserved");
  d = good, d.table_offset = SIZE_MAX - 8;
  CHECK_FAILS(ctx, clforge_embedding(ctx, &d, t, ids, y, 0, NULL, NULL), CLFORGE_SIZE_OVERFLOW, "overflow");
  d = good, d.vocab = 40; /* 1280 floats */
  CHECK_FAILS(ctx, clforge_embedding(ctx, &d, t, ids, y, 0, NULL, NULL), CLFORGE_BUFFER_TOO_SMALL, "table");
  d = good, d.ids_offset = 1; /* 5 int32 past a 16-byte buffer */
  CHECK_FAILS(ctx, clforge_embedding(ctx, &d, t, small, y, 0, NULL, NULL), CLFORGE_BUFFER_TOO_SMALL, "ids");
  d = good;
  CHECK_FAILS(ctx, clforge_embedding(ctx, &d, t, ids, NULL, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "y");
  d.y_offset = 100;
  CHECK_FAILS(ctx, clforge_embedding(ctx, &d, y, ids, y, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "overlaps");
  float back[1024];
  tu_read(ctx, y, 0, 4096, back);
  CHECK(!memcmp(back, sent, 4096), "a refused call wrote y");
  d = good, d.tokens = 0;
  cl_event ev = NULL;
  CHECK_OK(ctx, clforge_embedding(ctx, &d, NULL, NULL, NULL, 0, NULL, &ev));
  CHECK(ev != NULL, "no tokens gives a marker event");
  if (ev) clReleaseEvent(ev);
  clforge_kernel_choice ch;
  CHECK_OK(ctx, clforge_embedding_explain(ctx, &good, &ch));
  CHECK(!strcmp(ch.family, "embedding") && ch.nparams == 1, "explain names the family: %s", ch.family);
  clReleaseMemObject(t), clReleaseMemObject(ids), clReleaseMemObject(y), clReleaseMemObject(small);
}

static void validation(clforge_context ctx) {
  CHECK_OK(ctx, clforge_context_set_validation(ctx, 1));
  const ecase c = {CLFORGE_Q8_0, CLFORGE_F16, 9, 13, 64, 70};
  run(ctx, &c);
  cl_mem t = tu_buffer(ctx, 4 * 256), ids = tu_buffer(ctx, 16), y = tu_buffer(ctx, 4 * 64);
  float h[256];
  int32_t i4[4] = {3, 1, 0, 2};
  for (int i = 0; i < 256; ++i) h[i] = (float)(i % 9) / 4.0f - 1.0f;
  tu_write(ctx, t, 0, sizeof h, h), tu_write(ctx, ids, 0, sizeof i4, i4);
  const clforge_embedding_desc d = {.tokens = 4, .vocab = 16, .dim = 16};
  clforge__test_set_fault(ctx, "embedding");
  CHECK_FAILS(ctx, clforge_embedding(ctx, &d, t, ids, y, 0, NULL, NULL), CLFORGE_VALIDATION_FAILED, "embedding");
  clforge__test_set_fault(ctx, NULL);
  CHECK_OK(ctx, clforge_context_set_validation(ctx, 0));
  clReleaseMemObject(t), clReleaseMemObject(ids), clReleaseMemObject(y);
}

int main(int argc, char **argv) {
  const int small = argc > 1 && !strcmp(argv[1], "--small");
  hand_values();
  clforge_context ctx = tu_context();
  const clforge_dtype F = CLFORGE_F32, H = CLFORGE_F16, B = CLFORGE_BF16, Q = CLFORGE_Q8_0;
  const ecase cs[] = {
      {F, F, 7, 50, 40, 0},     {H, F, 5, 9, 33, 37}, {B, B, 6, 300, 64, 0}, {F, H, 4, 20, 17, 20},
      {Q, F, 11, 40, 96, 0},    {Q, B, 3, 7, 32, 33}, {F, B, 1, 1, 5, 0},
  };
  for (size_t i = 0; i < sizeof cs / sizeof cs[0]; ++i)
    if (!small || i % 2 == 0) run(ctx, &cs[i]);
  bad_input(ctx);
  if (!small) validation(ctx);
  clforge_context_destroy(ctx);
  return tu_summary();
}
