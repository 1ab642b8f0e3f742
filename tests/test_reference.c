/* The reference path checked against independent oracles: f16/bf16 decoding
 * by the IEEE formula (ldexp), f32 -> f16/bf16 rounding by nearest-neighbour
 * search with ties to even; and the comparison helpers on hand-made cases. */
#include <math.h>
#include <stdint.h>

#include "../src/ref/compare.h"
#include "test_util.h"

static float f32_of(uint32_t u) {
  float f;
  memcpy(&f, &u, 4);
  return f;
}
static uint32_t bits_of(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}

/* IEEE binary16 by the formula. */
static double f16_value(uint16_t h) {
  int s = h >> 15, e = (h >> 10) & 31, m = h & 1023;
  double v = e == 0 ? ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexp(1024 + m, e - 25);
  return s ? -v : v;
}

/* Oracle for f32 -> f16: among all finite f16 of x's sign pick the nearest,
 * ties to the even pattern; past the rounding boundary of the largest, Inf. */
static uint16_t f16_oracle(float x, const double *pos /* 0x0000..0x7BFF */) {
  uint16_t sign = signbit(x) ? 0x8000 : 0;
  double a = fabs((double)x);
  if (isnan(x)) return 0x7E00;
  if (a >= 65520.0) return sign | 0x7C00;
  int lo = 0, hi = 0x7BFF; /* last index with pos[i] <= a */
  while (lo < hi) {
    int mid = (lo + hi + 1) / 2;
    if (pos[mid] <= a) lo = mid;
    else hi = mid - 1;
  }
  int best = lo;
  if (lo < 0x7BFF) {
    double dl = a - pos[lo], du = pos[lo + 1] - a;
    if (du < dl || (du == dl && (lo & 1))) best = lo + 1;
  }
  return (uint16_t)(sign | best);
}

/* Oracle for f32 -> bf16: the two bf16 around x (truncation and the next
 * one up in magnitude), nearest wins, ties to even. */
static uint16_t bf16_oracle(float x) {
  if (isnan(x)) return 0x7FC0;
  uint32_t b = bits_of(x);
  uint16_t lo = (uint16_t)(b >> 16), up = (uint16_t)(lo + 1);
  double a = fabs((double)x), vl = fabs((double)f32_of((uint32_t)lo << 16));
  double vu = (up & 0x7F80) == 0x7F80 ? ldexp(1.0, 128) : fabs((double)f32_of((uint32_t)up << 16)); /* past max: 2^128 stands for Inf */
  double dl = a - vl, du = vu - a;
  return (du < dl || (du == dl && (lo & 1))) ? up : lo;
}

int main(void) {
  /* Decoding: every f16 and every bf16 pattern. */
  static double pos[0x7C00];
  int bad = 0;
  for (uint32_t h = 0; h < 0x10000; ++h) {
    double want = f16_value((uint16_t)h);
    float got = clforge_ref_f16_to_f32((uint16_t)h);
    if (h < 0x7C00) pos[h] = want;
    if (isnan(want) ? !isnan(got) : (double)got != want || !signbit(got) != !signbit(want)) {
      if (!bad++) fprintf(stderr, "f16 0x%04x -> %a, want %a\n", h, (double)got, want);
    }
    float bf = clforge_ref_bf16_to_f32((uint16_t)h);
    if (bits_of(bf) != h << 16) bad++;
  }
  CHECK(bad == 0, "%d decoding errors", bad);

  /* Encoding: every f16 value, its neighbours and the midpoints between
   * neighbours (the ties), plus a stride through all f32 patterns. */
  int bad16 = 0, badbf = 0;
  size_t tried = 0;
  for (uint32_t i = 0; i < 0x7BFF; ++i) {
    double mid = (pos[i] + pos[i + 1]) / 2;
    float probes[5] = {(float)pos[i], (float)mid, nextafterf((float)mid, 0), nextafterf((float)mid, INFINITY),
                       -(float)mid};
    for (int k = 0; k < 5; ++k, ++tried) {
      uint16_t got = clforge_ref_f32_to_f16(probes[k]), want = f16_oracle(probes[k], pos);
      if (got != want && !bad16++) fprintf(stderr, "f16(%a) = 0x%04x, want 0x%04x\n", (double)probes[k], got, want);
    }
  }
  for (uint64_t u = 0; u <= 0xFFFFFFFFu; u += 4093, ++tried) {
    float x = f32_of((uint32_t)u);
    uint16_t g16 = clforge_ref_f32_to_f16(x), w16 = f16_oracle(x, pos);
    uint16_t gbf = clforge_ref_f32_to_bf16(x), wbf = bf16_oracle(x);
    if (isnan(x)) { /* NaN stays NaN (payload free), sign kept */
      g16 = (g16 & 0x7C00) == 0x7C00 && (g16 & 0x3FF) ? 0x7E00 : g16;
      gbf = (gbf & 0x7F80) == 0x7F80 && (gbf & 0x7F) ? 0x7FC0 : gbf;
      w16 = 0x7E00, wbf = 0x7FC0;
    }
    if (g16 != w16 && !bad16++) fprintf(stderr, "f16(0x%08x) = 0x%04x, want 0x%04x\n", (uint32_t)u, g16, w16);
    if (gbf != wbf && !badbf++) fprintf(stderr, "bf16(0x%08x) = 0x%04x, want 0x%04x\n", (uint32_t)u, gbf, wbf);
  }
  /* bf16 ties and overflow, by construction */
  const uint32_t bf_cases[] = {0x3F808000u, 0x3F818000u, 0x3F80C000u, 0x7F7F8000u, 0x7F7FFFFFu, 0xFF7F8000u, 0x00008000u,
                               0x00018000u};
  for (size_t i = 0; i < sizeof bf_cases / sizeof bf_cases[0]; ++i) {
    float x = f32_of(bf_cases[i]);
    uint16_t g = clforge_ref_f32_to_bf16(x), w = bf16_oracle(x);
    if (g != w && !badbf++) fprintf(stderr, "bf16(0x%08x) = 0x%04x, want 0x%04x\n", bf_cases[i], g, w);
  }
  CHECK(bad16 == 0, "%d f16 encoding errors in %zu probes", bad16, tried);
  CHECK(badbf == 0, "%d bf16 encoding errors", badbf);
  CHECK(clforge_ref_f32_to_bf16(f32_of(0x7F7FFFFFu)) == 0x7F80, "%s", "bf16 overflow is Inf");
  CHECK((clforge_ref_f32_to_f16(f32_of(0xFFC00001u)) & 0xFE00) == 0xFE00, "%s", "negative NaN stays a negative quiet NaN");

  /* ref_convert: same dtype keeps every bit (NaN payloads too). */
  uint32_t nan_payload[3] = {0x7F800001u, 0xFFC12345u, 0x00000001u}, copy[3];
  CHECK_OK(NULL, clforge_ref_convert(3, nan_payload, CLFORGE_F32, copy, CLFORGE_F32));
  CHECK(!memcmp(copy, nan_payload, sizeof copy), "%s", "f32 copy is bit-exact");

  /* Comparison helpers on hand-made data. */
  clforge__error_stats s;
  float want[4] = {1, -2, 4, 0}, got[4] = {1, -2, 4, 0};
  clforge__compare_f32(4, got, want, &s);
  CHECK(s.bit_mismatches == 0 && s.max_abs == 0 && s.nrmse == 0, "%s", "identical arrays");
  CHECK(clforge__within_tolerance(&s, clforge__tolerance_exact()), "%s", "identical is exact");
  got[2] = 4.5f;
  clforge__compare_f32(4, got, want, &s);
  CHECK(s.bit_mismatches == 1 && s.max_abs == 0.5 && s.max_rel == 0.125 && s.max_abs_index == 2, "abs %g rel %g",
        s.max_abs, s.max_rel);
  CHECK(fabs(s.nrmse - sqrt(0.25 / 21.0)) < 1e-12, "nrmse %g", s.nrmse);
  CHECK(!clforge__within_tolerance(&s, clforge__tolerance_exact()), "%s", "exact rejects");
  CHECK(!clforge__within_tolerance(&s, clforge__tolerance_for(CLFORGE_BF16)), "%s", "0.5/4 is beyond bf16");
  CHECK(clforge__worst_index(&s, clforge__tolerance_exact()) == 2, "%s", "worst index");
  got[2] = 4.0f + 4.0f / 1024; /* one f16 ulp at 4 */
  clforge__compare_f32(4, got, want, &s);
  CHECK(clforge__within_tolerance(&s, clforge__tolerance_for(CLFORGE_F16)), "%s", "one f16 ulp passes for f16");
  CHECK(!clforge__within_tolerance(&s, clforge__tolerance_for(CLFORGE_F32)), "%s", "but not for f32");
  got[2] = 4, got[3] = NAN;
  clforge__compare_f32(4, got, want, &s);
  CHECK(s.special_mismatches == 1 && s.first_mismatch == 3, "%s", "NaN against a number");
  CHECK(!clforge__within_tolerance(&s, clforge__tolerance_for(CLFORGE_F32)), "%s", "NaN fails every tolerance");
  want[3] = NAN;
  clforge__compare_f32(4, got, want, &s);
  CHECK(s.special_mismatches == 0 && s.bit_mismatches == 0, "%s", "NaN matches NaN");
  got[1] = -INFINITY, want[1] = INFINITY;
  clforge__compare_f32(4, got, want, &s);
  CHECK(s.special_mismatches == 1, "%s", "Inf of the other sign");
  return tu_summary();
}
