/* Operands side by side in one buffer, as packed layouts put them (a fused
 * QKV projection's outputs next to each other, batch items in the columns of
 * one matrix): accepted when no element is shared, computed right (against
 * clforge_ref_gemm on the same layout), with the rest of the buffer
 * untouched; real overlap still refused. */
#include "test_util.h"

static unsigned seed = 99;

static void fill(float *x, size_t n) {
  for (size_t i = 0; i < n; ++i) x[i] = (float)(tu_rand(&seed) % 9) - 4.0f;
}

/* Run d with A and C in one buffer `shared` (A at a_offset, C at c_offset),
 * B in its own; compare the whole shared buffer with the reference's. */
static void one_buffer(clforge_context ctx, const char *what, clforge_gemm_desc d, size_t shared_n, size_t b_n) {
  float *h = malloc(shared_n * 4), *want = malloc(shared_n * 4), *got = malloc(shared_n * 4), *hb = malloc(b_n * 4);
  fill(h, shared_n);
  fill(hb, b_n);
  memcpy(want, h, shared_n * 4);
  cl_mem s = tu_buffer(ctx, shared_n * 4), b = tu_buffer(ctx, b_n * 4);
  tu_write(ctx, s, 0, shared_n * 4, h);
  tu_write(ctx, b, 0, b_n * 4, hb);
  CHECK_OK(ctx, clforge_gemm(ctx, &d, s, b, s, NULL, 0, NULL, NULL));
  tu_read(ctx, s, 0, shared_n * 4, got);
  CHECK_OK(NULL, clforge_ref_gemm(&d, h, hb, want, NULL)); /* A read from the original, C written into want */
  size_t bad = shared_n;
  for (size_t i = 0; i < shared_n && bad == shared_n; ++i)
    if (got[i] != want[i]) bad = i; /* small integers: exact */
  CHECK(bad == shared_n, "%s: element %zu is %g, want %g", what, bad, bad < shared_n ? (double)got[bad] : 0.0,
        bad < shared_n ? (double)want[bad] : 0.0);
  clReleaseMemObject(s);
  clReleaseMemObject(b);
  free(h), free(want), free(got), free(hb);
}

/* C's batch items laid out by stride_c within rows of ldc (A and B in
 * buffers of their own); compare C's whole buffer with the reference. */
static void batch_items(clforge_context ctx, const char *what, size_t m, size_t n, size_t k, size_t batch, size_t ldc,
                        size_t stride_c) {
  clforge_gemm_desc d = {.m = m, .n = n, .k = k, .batch = batch, .ldc = ldc, .stride_c = stride_c,
                         .stride_a = m * k, .stride_b = k * n, .beta = 1.0f};
  size_t na = batch * m * k, nb = batch * k * n, nc = (batch - 1) * stride_c + (m - 1) * ldc + n + 16;
  float *ha = malloc(na * 4), *hb = malloc(nb * 4), *hc = malloc(nc * 4), *want = malloc(nc * 4), *got = malloc(nc * 4);
  fill(ha, na), fill(hb, nb), fill(hc, nc);
  memcpy(want, hc, nc * 4);
  cl_mem a = tu_buffer(ctx, na * 4), b = tu_buffer(ctx, nb * 4), c = tu_buffer(ctx, nc * 4);
  tu_write(ctx, a, 0, na * 4, ha), tu_write(ctx, b, 0, nb * 4, hb), tu_write(ctx, c, 0, nc * 4, hc);
  CHECK_OK(ctx, clforge_gemm(ctx, &d, a, b, c, NULL, 0, NULL, NULL));
  tu_read(ctx, c, 0, nc * 4, got);
  CHECK_OK(NULL, clforge_ref_gemm(&d, ha, hb, want, NULL));
  size_t bad = nc;
  for (size_t i = 0; i < nc && bad == nc; ++i)
    if (got[i] != want[i]) bad = i;
  CHECK(bad == nc, "%s: element %zu is %g, want %g", what, bad, bad < nc ? (double)got[bad] : 0.0,
        bad < nc ? (double)want[bad] : 0.0);
  clReleaseMemObject(a), clReleaseMemObject(b), clReleaseMemObject(c);
  free(ha), free(hb), free(hc), free(want), free(got);
}

/* Layouts that share a buffer without sharing an element. */
static void accepted(clforge_context ctx) {
  /* Batch items of C next to each other in each row (the case:
   * ldc 24, stride_c 8, n 8), and a pattern whose address ranges interleave
   * across rows without sharing an element (items at 0, 16, 32 with ldc 24). */
  batch_items(ctx, "3 items side by side", 5, 8, 7, 3, 24, 8);
  batch_items(ctx, "interleaved across rows", 6, 8, 5, 3, 24, 16);
  batch_items(ctx, "big problem, items side by side", 130, 64, 140, 2, 128, 64); /* the tiled kernel too */

  /* A in columns 0-7, C in columns 8-15 of one 16-wide matrix; and the
   * three outputs of a fused projection written one call each. */
  one_buffer(ctx, "A beside C", (clforge_gemm_desc){.m = 6, .n = 8, .k = 8, .lda = 16, .ldc = 16, .c_offset = 8}, 6 * 16,
             8 * 8);
  for (size_t part = 1; part < 3; ++part) {
    clforge_gemm_desc d = {.m = 160, .n = 64, .k = 64, .lda = 192, .ldc = 192, .c_offset = part * 64};
    one_buffer(ctx, "fused projection outputs", d, 160 * 192, 64 * 64);
  }
  /* C below A in one buffer, A transposed (column-major view). */
  one_buffer(ctx, "column-major, A above C",
             (clforge_gemm_desc){.layout = CLFORGE_COL_MAJOR, .m = 9, .n = 5, .k = 4, .lda = 9, .ldc = 9, .c_offset = 36},
             36 + 45, 4 * 5);
}

int main(void) {
  clforge_context ctx = tu_context();
  /* Every route: the automatic one and each kernel family forced (the packed
   * path reads A and B through its own pack kernels). */
  static const char *const paths[] = {"auto", "packed", "tiled", "direct"};
  for (int p = 0; p < 4; ++p) {
    setenv("CLFORGE_GEMM_PATH", paths[p], 1);
    accepted(ctx);
  }
  unsetenv("CLFORGE_GEMM_PATH");

  /* Real overlap is refused and nothing runs. */
  cl_mem s = tu_buffer(ctx, 1024 * 4), b = tu_buffer(ctx, 1024 * 4);
  clforge_gemm_desc d = {.m = 6, .n = 8, .k = 8, .lda = 16, .ldc = 16, .c_offset = 4};
  CHECK_FAILS(ctx, clforge_gemm(ctx, &d, s, b, s, NULL, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "c overlaps a");
  d.c_offset = 16 * 5 + 4; /* C's first row on A's last row, columns 4-11: shares 4..7 */
  CHECK_FAILS(ctx, clforge_gemm(ctx, &d, s, b, s, NULL, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "c overlaps a");
  d = (clforge_gemm_desc){.m = 5, .n = 8, .k = 4, .batch = 2, .ldc = 24, .stride_c = 20};
  CHECK_FAILS(ctx, clforge_gemm(ctx, &d, s, b, b, NULL, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT,
              "batch items of C would overlap");
  d.stride_c = 4; /* items 4 apart, 8 wide */
  CHECK_FAILS(ctx, clforge_gemm(ctx, &d, s, b, b, NULL, 0, NULL, NULL), CLFORGE_INVALID_ARGUMENT, "would overlap");
  clReleaseMemObject(s), clReleaseMemObject(b);
  clforge_context_destroy(ctx);
  return tu_summary();
}
