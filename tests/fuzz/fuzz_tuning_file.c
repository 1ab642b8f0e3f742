/* libFuzzer target for the tuning-file loader (src/core/tuning_file.c).
 *
 * Each input is parsed as a whole tuning file. On failure the reason must be
 * a non-empty C string and the db untouched. On success the entries are
 * serialized, parsed again into a fresh db and compared field by field, and
 * serializing that db must give the very same text (a fixpoint). Any broken
 * promise calls __builtin_trap() after printing which one.
 *
 * Build and run: see tests/fuzz/CMakeLists.txt and tests/fuzz/run_fuzz.sh. */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS under -std=c11 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/tuning_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define WHY_CAP 256

static void fail(const char *what) {
  fprintf(stderr, "fuzz_tuning_file: %s\n", what);
  __builtin_trap();
}

/* cJSON is a system library without ASan instrumentation, so an overread of
 * the input inside it would go unnoticed. Copying the input to end right at a
 * PROT_NONE page turns any read past len into a SEGV. One mapping, reused. */
#define GUARDED_MAX (1u << 20)
static char *guarded_copy(const uint8_t *data, size_t size) {
  static char *base;
  static size_t page;
  if (!base) {
    page = (size_t)sysconf(_SC_PAGESIZE);
    void *p = mmap(NULL, GUARDED_MAX + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED || mprotect((char *)p + GUARDED_MAX, page, PROT_NONE)) fail("cannot map the guard page");
    base = p;
  }
  if (size > GUARDED_MAX) return NULL;
  char *dst = base + GUARDED_MAX - size;
  if (size) memcpy(dst, data, size);
  return dst;
}

/* The serializer writes median_ms rounded to the nanosecond and gflops to
 * 0.1 (entry_json), so those two may move by half a unit plus rounding. */
static int near(double a, double b, double half_unit) {
  return fabs(a - b) <= half_unit * (1 + 1e-9) + 8 * DBL_EPSILON * fabs(a);
}

static void check_same(const clforge__tuning_entry *a, const clforge__tuning_entry *b) {
  /* Strings are compared up to their NUL: parse_entry zeroes the rest, but
   * the promise is about values, not bytes. */
  if (strcmp(a->vendor, b->vendor) || strcmp(a->device, b->device) || strcmp(a->driver, b->driver) ||
      a->compute_units != b->compute_units)
    fail("round trip changed the device fingerprint");
  if (strcmp(a->family, b->family) || strcmp(a->dtypes, b->dtypes) || strcmp(a->layout, b->layout) ||
      strcmp(a->shape_class, b->shape_class) || strcmp(a->provider, b->provider))
    fail("round trip changed family, dtypes, layout, shape_class or provider");
  if (a->ndims != b->ndims || a->ndims < 1 || a->ndims > CLFORGE_TUNING_MAX_DIMS) fail("round trip changed ndims");
  for (int i = 0; i < a->ndims; ++i)
    if (a->shape[i] != b->shape[i]) fail("round trip changed the shape");
  if (a->nparams != b->nparams || a->nparams < 0 || a->nparams > CLFORGE_TUNING_MAX_PARAMS)
    fail("round trip changed nparams");
  for (int i = 0; i < a->nparams; ++i)
    if (strcmp(a->names[i], b->names[i]) || a->values[i] != b->values[i]) fail("round trip changed params");
  if (!near(a->median_s, b->median_s, 0.5e-9) || !near(a->gflops, b->gflops, 0.05))
    fail("round trip changed median_ms or gflops beyond the serializer's rounding");
  if (strcmp(a->date, b->date) || strcmp(a->library_version, b->library_version))
    fail("round trip changed date or library_version");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *text = guarded_copy(data, size);
  if (!text) return 0; /* beyond run_fuzz.sh's -max_len anyway */

  clforge__tuning_db db = {NULL, 0, 0};
  char why[WHY_CAP];
  memset(why, 0x5a, sizeof why); /* no NUL: a reason left unwritten shows */
  if (clforge__tuning_parse(text, size, &db, why, sizeof why)) {
    if (!memchr(why, '\0', sizeof why) || why[0] == '\0') fail("failed parse without a NUL-terminated reason");
    if (db.entries || db.count || db.cap) fail("failed parse changed the db");
    return 0;
  }

  char *out = clforge__tuning_serialize(&db);
  if (!out) fail("serialize returned NULL");
  clforge__tuning_db again = {NULL, 0, 0};
  if (clforge__tuning_parse(out, strlen(out), &again, why, sizeof why)) {
    fprintf(stderr, "fuzz_tuning_file: re-parse said: %.*s\n--- serialized:\n%s\n", WHY_CAP, why, out);
    fail("serialized text does not parse");
  }
  if (again.count != db.count) fail("round trip changed the entry count");
  for (size_t i = 0; i < db.count; ++i) check_same(&db.entries[i], &again.entries[i]);

  /* After one round of rounding, serializing is exact. */
  char *out2 = clforge__tuning_serialize(&again);
  if (!out2) fail("serialize returned NULL");
  if (strcmp(out, out2)) fail("serializing the re-parsed db gave different text");

  free(out2);
  free(out);
  clforge__tuning_free(&again);
  clforge__tuning_free(&db);
  return 0;
}
