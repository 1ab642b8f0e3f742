/* Every status has a message and a name, OpenCL's and clforge's; unknown
 * codes get one too; codes are unique and sit where the header says. */
#include "test_util.h"

int main(void) {
  /* clforge's own, from the X-macro list, each exactly once. */
  static const clforge_status own[] = {
#define X(name, off, msg) name,
      CLFORGE_STATUS_LIST(X)
#undef X
  };
  static const char *const own_names[] = {
#define X(name, off, msg) #name,
      CLFORGE_STATUS_LIST(X)
#undef X
  };
  size_t n = sizeof own / sizeof own[0];
  CHECK(n >= 10, "only %zu clforge codes", n);
  for (size_t i = 0; i < n; ++i) {
    CHECK(own[i] > CLFORGE_STATUS_BASE, "%s = %d is not above the base", own_names[i], own[i]);
    CHECK(strcmp(clforge_status_string(own[i]), "unknown status code") != 0, "%s has no message", own_names[i]);
    CHECK(!strcmp(clforge_status_name(own[i]), own_names[i]), "name of %d is %s", own[i],
          clforge_status_name(own[i]));
    for (size_t j = 0; j < i; ++j) CHECK(own[i] != own[j], "%s and %s share %d", own_names[i], own_names[j], own[i]);
  }
  /* OpenCL's pass through: every core code -72..0 that exists has a message. */
  int cl_known = 0;
  for (int c = -72; c <= 0; ++c)
    if (strcmp(clforge_status_string(c), "unknown status code")) {
      ++cl_known;
      CHECK(!strncmp(clforge_status_name(c), "CL_", 3), "code %d named %s", c, clforge_status_name(c));
    }
  CHECK(cl_known == 73 - 10, "%d OpenCL codes known, expected 63 (the gaps -20..-29 excluded)", cl_known);
  CHECK(!strcmp(clforge_status_name(CL_INVALID_VALUE), "CL_INVALID_VALUE"), "%s", "CL_INVALID_VALUE");
  CHECK(!strcmp(clforge_status_name(CL_SUCCESS), "CL_SUCCESS"), "%s", "success");
  CHECK(!strcmp(clforge_status_string(-1001), "no OpenCL platform found (is an ICD installed?)"), "%s", "-1001");
  /* Unknown codes: a message, never NULL. */
  const clforge_status unknown[] = {-25, -73, -9999, 1, 999, CLFORGE_STATUS_BASE, CLFORGE_STATUS_BASE + 500, INT32_MAX,
                                    INT32_MIN};
  for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; ++i) {
    CHECK(!strcmp(clforge_status_string(unknown[i]), "unknown status code"), "%d", unknown[i]);
    CHECK(clforge_status_name(unknown[i]) != NULL, "%d", unknown[i]);
  }
  return tu_summary();
}
