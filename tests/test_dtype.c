/* clforge_dtype_from_name is the exact inverse of clforge_dtype_name, and
 * everything else is an error with a message in the thread-local slot. */
#include "test_util.h"

int main(void) {
  const clforge_dtype all[] = {CLFORGE_F32, CLFORGE_F16, CLFORGE_BF16, CLFORGE_S8, CLFORGE_U8, CLFORGE_S32, CLFORGE_Q8_0};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i) {
    clforge_dtype d = (clforge_dtype)0;
    const char *name = clforge_dtype_name(all[i]);
    CHECK_OK(NULL, clforge_dtype_from_name(name, &d));
    CHECK(d == all[i], "%s parsed as %d", name, (int)d);
    CHECK(!strcmp(clforge_last_error(NULL), ""), "success leaves a message: %s", clforge_last_error(NULL));
  }
  const size_t sizes[] = {4, 2, 2, 1, 1, 4, 0}; /* q8_0: a block format, no element size */
  for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i)
    CHECK(clforge_dtype_size(all[i]) == sizes[i], "%s: size %zu", clforge_dtype_name(all[i]), clforge_dtype_size(all[i]));
  CHECK(clforge_dtype_size((clforge_dtype)8) == 0 && clforge_dtype_name((clforge_dtype)8) == NULL, "%s", "dtype 8 known");
  /* Near misses: case, blanks, list tokens, prefixes, other types. */
  const char *bad[] = {"", "F32", "Bf16", " f32", "f32 ", "f32,", "f3", "f320", "bf", "f64", "fp16", "half", "S8", "i8", "int8", "u16", "s3", "s320", "q8", "Q8_0", "q8_00"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
    clforge_dtype d = CLFORGE_BF16;
    CHECK_FAILS(NULL, clforge_dtype_from_name(bad[i], &d), CLFORGE_INVALID_ARGUMENT, "unknown dtype");
    CHECK(d == CLFORGE_BF16, "\"%s\": out changed to %d", bad[i], (int)d);
  }
  CHECK_FAILS(NULL, clforge_dtype_from_name("f64", &(clforge_dtype){CLFORGE_F32}), CLFORGE_INVALID_ARGUMENT,
              "\"f64\"");
  /* A long name is cut in the message, not in the comparison. */
  char longname[300];
  memset(longname, 'x', sizeof longname - 1);
  longname[sizeof longname - 1] = '\0';
  CHECK_FAILS(NULL, clforge_dtype_from_name(longname, &(clforge_dtype){CLFORGE_F32}), CLFORGE_INVALID_ARGUMENT,
              "...");
  CHECK_FAILS(NULL, clforge_dtype_from_name(NULL, &(clforge_dtype){CLFORGE_F32}), CLFORGE_INVALID_ARGUMENT,
              "name is NULL");
  CHECK_FAILS(NULL, clforge_dtype_from_name("f32", NULL), CLFORGE_INVALID_ARGUMENT, "out is NULL");
  /* The next successful call clears the message. */
  clforge_dtype d;
  CHECK_OK(NULL, clforge_dtype_from_name("bf16", &d));
  CHECK(!strcmp(clforge_last_error(NULL), ""), "message kept after success: %s", clforge_last_error(NULL));
  return tu_summary();
}
