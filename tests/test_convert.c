/* clforge_convert against clforge_ref_convert: every dtype pair, special
 * values, lengths that are not multiples of any vector width, offsets, guard
 * regions around the output, and a sweep of the family's parameters.
 * --small: the short run used under Oclgrind. */
#include <math.h>
#include <stdint.h>

#include "../src/core/context.h"
#include "../src/families/families.h"
#include "param_cover.h"
#include "test_util.h"

static const clforge_dtype dtypes[] = {CLFORGE_F32, CLFORGE_F16, CLFORGE_BF16};
enum { GUARD = 64 };            /* elements of guard before and after the output */
static const unsigned char SENTINEL = 0xA5;

/* Inputs as f32 bit patterns: specials, edge cases for f16/bf16 rounding,
 * then random patterns over all exponents. Narrow dtypes take the ref's
 * conversion of these, so their inputs hold NaN/Inf/denormals too. */
static void fill_inputs(uint32_t *bits, size_t n, unsigned seed) {
  static const uint32_t special[] = {
      0x00000000u, 0x80000000u, 0x7F800000u, 0xFF800000u, 0x7FC00000u, 0xFFC00001u, 0x7F800001u, /* NaN/Inf/0 */
      0x00000001u, 0x807FFFFFu, 0x00400000u,                                                     /* f32 denormals */
      0x33000000u, 0x33000001u, 0x337FFFFFu, 0x33800000u, 0x38800000u, 0x387FC000u, 0x387FE000u, /* f16 denormal edges */
      0x477FE000u, 0x477FEFFFu, 0x477FF000u, 0x47800000u,                                        /* f16 max / overflow */
      0x3F801000u, 0x3F803000u, 0x3F801001u, 0x3F800FFFu,                                        /* f16 ties to even */
      0x3F808000u, 0x3F818000u, 0x3F808001u, 0x3F807FFFu,                                        /* bf16 ties to even */
      0x7F7FFFFFu, 0x7F7F8000u, 0xFF7FFFFFu,                                                     /* bf16 overflow */
      0x3F800000u, 0xC0490FDBu, 0x3DCCCCCDu};
  size_t ns = sizeof special / sizeof special[0];
  for (size_t i = 0; i < n; ++i) bits[i] = i < ns ? special[i] : tu_rand(&seed);
}

static int run_case(clforge_context ctx, size_t n, clforge_dtype st, clforge_dtype dt, size_t src_off, size_t dst_off,
                    unsigned seed) {
  size_t ss = clforge_dtype_size(st), ds = clforge_dtype_size(dt);
  uint32_t *f32 = malloc(n * 4);
  unsigned char *in = malloc(n * ss), *want = malloc(n * ds);
  size_t out_bytes = (dst_off + n + 2 * GUARD) * ds;
  unsigned char *got = malloc(out_bytes);
  fill_inputs(f32, n, seed);
  clforge_ref_convert(n, f32, CLFORGE_F32, in, st);
  clforge_ref_convert(n, in, st, want, dt);

  cl_mem src = tu_buffer(ctx, (src_off + n) * ss), dst = tu_buffer(ctx, out_bytes);
  /* The whole source buffer is written (the skipped prefix too), so that
   * Oclgrind's uninitialized-value check sees only defined memory. */
  unsigned char *src_host = malloc((src_off + n) * ss);
  memset(src_host, 0x5A, src_off * ss);
  memcpy(src_host + src_off * ss, in, n * ss);
  tu_write(ctx, src, 0, (src_off + n) * ss, src_host);
  free(src_host);
  memset(got, SENTINEL, out_bytes);
  tu_write(ctx, dst, 0, out_bytes, got);
  clforge_status s = clforge_convert(ctx, n, src, src_off, st, dst, dst_off + GUARD, dt, 0, NULL, NULL);
  int ok = s == CLFORGE_SUCCESS;
  CHECK(ok, "convert n=%zu %s->%s: %s", n, clforge_dtype_name(st), clforge_dtype_name(dt), clforge_last_error(ctx));
  tu_read(ctx, dst, 0, out_bytes, got);
  size_t head = (dst_off + GUARD) * ds, tail = head + n * ds;
  size_t bad_guard = 0;
  for (size_t b = 0; b < head; ++b) bad_guard += got[b] != SENTINEL;
  for (size_t b = tail; b < out_bytes; ++b) bad_guard += got[b] != SENTINEL;
  CHECK(bad_guard == 0, "n=%zu %s->%s: %zu guard bytes overwritten", n, clforge_dtype_name(st),
        clforge_dtype_name(dt), bad_guard);
  ok &= bad_guard == 0;
  /* Bit-exact, but any NaN equals any NaN (payloads may differ). */
  size_t bad = 0, first = 0;
  for (size_t i = 0; i < n; ++i) {
    float g, w;
    clforge_ref_convert(1, got + head + i * ds, dt, &g, CLFORGE_F32);
    clforge_ref_convert(1, want + i * ds, dt, &w, CLFORGE_F32);
    if (isnan(g) && isnan(w)) continue;
    if (memcmp(got + head + i * ds, want + i * ds, ds)) {
      if (!bad++) first = i;
    }
  }
  if (bad) {
    float g, w, x;
    clforge_ref_convert(1, got + head + first * ds, dt, &g, CLFORGE_F32);
    clforge_ref_convert(1, want + first * ds, dt, &w, CLFORGE_F32);
    clforge_ref_convert(1, in + first * ss, st, &x, CLFORGE_F32);
    CHECK(0, "n=%zu %s->%s: %zu wrong; first at %zu: input %a (0x%08x) got %a want %a", n, clforge_dtype_name(st),
          clforge_dtype_name(dt), bad, first, (double)x, f32[first], (double)g, (double)w);
  } else {
    CHECK(1, "%s", "ok");
  }
  ok &= bad == 0;
  clReleaseMemObject(src);
  clReleaseMemObject(dst);
  free(f32);
  free(in);
  free(want);
  free(got);
  return ok;
}

/* The sweep: a fixed-seed sample of the (VW, WGS) the descriptor allows
 * that holds every value of each (param_cover.h), forced through
 * CLFORGE_PARAMS; set j runs one of the six converting pairs in turn (one
 * program build per set: WGS is a launch size, not a build option) on six
 * lengths that leave a partial vector. */
static int sweep_set(clforge_context ctx, const param_set *p, size_t j) {
  static const int pairs[6][2] = {{0, 1}, {0, 2}, {1, 0}, {1, 2}, {2, 0}, {2, 1}};
  char env[128] = "";
  cover_spec(&clforge__family_convert, p, env, sizeof env);
  setenv("CLFORGE_PARAMS", env, 1);
  const int *pair = pairs[j % 6];
  int failures = 0;
  for (size_t i = 0; i < 6; ++i)
    failures += !run_case(ctx, 1000 + (size_t)p->v[0] - 1 + 7 * i, dtypes[pair[0]], dtypes[pair[1]], 3, 5,
                          7u + (unsigned)(6 * j + i));
  unsetenv("CLFORGE_PARAMS");
  return failures;
}

int main(int argc, char **argv) {
  int small = argc > 1 && !strcmp(argv[1], "--small");
  clforge_context ctx = tu_context();
  /* Lengths: 1..40 every one, then values that are not multiples of any vector
   * width up to 10000; under Oclgrind a handful. */
  size_t lengths[80], nl = 0;
  if (small) {
    const size_t l[] = {1, 3, 17, 33, 100};
    for (size_t i = 0; i < sizeof l / sizeof l[0]; ++i) lengths[nl++] = l[i];
  } else {
    for (size_t i = 1; i <= 40; ++i) lengths[nl++] = i;
    const size_t l[] = {63, 65, 127, 129, 255, 257, 1000, 1023, 1025, 4097, 9973, 9999, 10000};
    for (size_t i = 0; i < sizeof l / sizeof l[0]; ++i) lengths[nl++] = l[i];
  }
  for (size_t a = 0; a < 3; ++a)
    for (size_t b = 0; b < 3; ++b)
      for (size_t i = 0; i < nl; ++i)
        run_case(ctx, lengths[i], dtypes[a], dtypes[b], i % 3, i % 5, 1234u + (unsigned)i);

  if (small) { /* every vector width, under Oclgrind too, on a length with a tail */
    const int vws[] = {1, 2, 4, 8, 16};
    for (size_t i = 0; i < 5; ++i) {
      char env[64];
      snprintf(env, sizeof env, "convert:VW=%d,WGS=16", vws[i]);
      setenv("CLFORGE_PARAMS", env, 1);
      run_case(ctx, 16 * 3 + 5, dtypes[i % 3], dtypes[(i + 1) % 3], 1, 2, 99u);
    }
    unsetenv("CLFORGE_PARAMS");
  }

  /* The f16 widening has a second route for devices that flush f32
   * denormals (cl/common.cl); force it on a fresh context and check it too. */
  clforge_context ftz = tu_context();
  snprintf(ftz->programs.device_options, sizeof ftz->programs.device_options, "-DCLFORGE_F32_DENORMS=0");
  for (size_t b = 0; b < 3; ++b) {
    run_case(ftz, 1000, CLFORGE_F16, dtypes[b], 1, 2, 777u);
    run_case(ftz, 13, CLFORGE_F16, dtypes[b], 0, 0, 778u);
  }
  clforge_context_destroy(ftz);

  if (!small) {
    param_set sets[8];
    const size_t n = cover_sample(&clforge__family_convert, &ctx->info, 2030, NULL, 0, 5, sets, 8);
    CHECK(cover_complete(&clforge__family_convert, &ctx->info, sets, n), "%zu parameter sets, not every value", n);
    int failures = 0;
    for (size_t j = 0; j < n; ++j) failures += sweep_set(ctx, &sets[j], j);
    printf("parameter sweep: %zu sets, %d failing cases\n", n, failures);
  }
  clforge_context_destroy(ctx);
  return tu_summary();
}
