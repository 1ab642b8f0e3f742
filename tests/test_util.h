/* Tiny test harness shared by the C tests: checks that count, a summary line
 * ctest shows ("N passed, N failed"), and helpers for buffers. */
#ifndef CLFORGE_TESTS_TEST_UTIL_H
#define CLFORGE_TESTS_TEST_UTIL_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clforge/clforge.h"

static int tu_passed, tu_failed;

#define CHECK(cond, ...)                                                    \
  do {                                                                      \
    if (cond) {                                                             \
      ++tu_passed;                                                          \
    } else {                                                                \
      ++tu_failed;                                                          \
      fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);       \
      fprintf(stderr, __VA_ARGS__);                                         \
      fputc('\n', stderr);                                                  \
    }                                                                       \
  } while (0)

/* A call that must succeed; prints the context's last error if not. */
#define CHECK_OK(ctx, call)                                                             \
  do {                                                                                  \
    clforge_status st_ = (call);                                                        \
    CHECK(st_ == CLFORGE_SUCCESS, "%s -> %s: %s", #call, clforge_status_name(st_),     \
          clforge_last_error(ctx));                                                     \
  } while (0)

/* A call that must fail with `want`, with a non-empty message, and the
 * message must mention `needle`. */
#define CHECK_FAILS(ctx, call, want, needle)                                                   \
  do {                                                                                         \
    clforge_status st_ = (call);                                                               \
    const char *msg_ = clforge_last_error(ctx);                                                \
    CHECK(st_ == (want), "%s -> %s, wanted %s (%s)", #call, clforge_status_name(st_),         \
          clforge_status_name(want), msg_);                                                    \
    CHECK(strstr(msg_, needle) != NULL, "%s: message \"%s\" lacks \"%s\"", #call, msg_, needle); \
  } while (0)

static inline int tu_summary(void) {
  printf("%d passed, %d failed\n", tu_passed, tu_failed);
  return tu_failed ? 1 : 0;
}

/* s with '"' and '\\' escaped, for JSON written by hand (tuning files). */
static inline void tu_json_escape(const char *s, char *out, size_t cap) {
  size_t o = 0;
  for (; *s && o + 3 < cap; ++s) {
    if (*s == '"' || *s == '\\') out[o++] = '\\';
    out[o++] = *s;
  }
  out[o] = '\0';
}

/* Deterministic xorshift so failures reproduce. */
static inline unsigned tu_rand(unsigned *s) {
  *s ^= *s << 13;
  *s ^= *s >> 17;
  *s ^= *s << 5;
  return *s;
}

/* Create the test context or exit with a clear message (tests only). */
/* n values in [-1, 1] (steps of 1/1000) from *seed, stored as t. */
static inline void tu_fill(void *p, clforge_dtype t, size_t n, unsigned *seed) {
  float *f = (float *)malloc((n ? n : 1) * sizeof *f);
  for (size_t i = 0; i < n; ++i) f[i] = (float)(tu_rand(seed) % 2001) / 1000.0f - 1.0f;
  clforge_ref_convert(n, f, CLFORGE_F32, p, t);
  free(f);
}

/* n values as dtype t: random in [-1, 1] * 3.7 with all mantissa bits (so
 * that the order of sums shows in the last bit), with specials in front
 * when `specials` (NaN, +-0, +-1, a huge value): the collectives' tests. */
static inline void tu_fill_all_bits(void *p, clforge_dtype t, size_t n, unsigned *seed, int specials) {
  static const float sp[] = {0.0f, -0.0f, 1.0f, -1.0f, 3.0e38f};
  float *f = malloc((n ? n : 1) * sizeof *f);
  for (size_t i = 0; i < n; ++i) f[i] = (float)((double)tu_rand(seed) / 4294967296.0 * 2.0 - 1.0) * 3.7f;
  if (specials)
    for (size_t i = 0; i < n && i < 8; ++i) f[i] = i == 7 && (*seed & 1) ? (float)NAN : sp[(tu_rand(seed)) % 5];
  clforge_ref_convert(n, f, CLFORGE_F32, p, t);
  free(f);
}

static inline clforge_context tu_context(void) {
  clforge_context ctx = NULL;
  clforge_status st = clforge_context_create(NULL, &ctx);
  if (st != CLFORGE_SUCCESS) {
    fprintf(stderr, "cannot create a context: %s\n", clforge_last_error(NULL));
    exit(1);
  }
  return ctx;
}

static inline cl_mem tu_buffer(clforge_context ctx, size_t bytes) {
  cl_context c;
  clforge_context_cl_context(ctx, &c);
  cl_int err;
  cl_mem m = clCreateBuffer(c, CL_MEM_READ_WRITE, bytes, NULL, &err);
  if (err != CL_SUCCESS) {
    fprintf(stderr, "clCreateBuffer(%zu) failed: %d\n", bytes, err);
    exit(1);
  }
  return m;
}

static inline void tu_write(clforge_context ctx, cl_mem m, size_t off, size_t bytes, const void *p) {
  cl_command_queue q;
  clforge_context_queue(ctx, &q);
  if (clEnqueueWriteBuffer(q, m, CL_TRUE, off, bytes, p, 0, NULL, NULL) != CL_SUCCESS) {
    fprintf(stderr, "write failed\n");
    exit(1);
  }
}

static inline void tu_read(clforge_context ctx, cl_mem m, size_t off, size_t bytes, void *p) {
  cl_command_queue q;
  clforge_context_queue(ctx, &q);
  if (clEnqueueReadBuffer(q, m, CL_TRUE, off, bytes, p, 0, NULL, NULL) != CL_SUCCESS) {
    fprintf(stderr, "read failed\n");
    exit(1);
  }
}

#endif
