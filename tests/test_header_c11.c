/* The public header compiles as strict C11 on its own (see CMakeLists.txt:
 * -std=c11 -Wpedantic) and its version macros agree with the library. */
#include "clforge/clforge.h"

#include <stdio.h>
#include <string.h>

int main(void) {
  int ok = clforge_version_number() == CLFORGE_VERSION_NUMBER && !strcmp(clforge_version(), CLFORGE_VERSION_STRING);
  printf("%d passed, %d failed\n", ok, !ok);
  return ok ? 0 : 1;
}
