// The public header compiles as C++ and links from C++ (extern "C").
#include "clforge/clforge.h"

#include <cstdio>
#include <cstring>

int main() {
  clforge_device_info info = {};
  (void)info;
  bool ok = clforge_version_number() == CLFORGE_VERSION_NUMBER &&
            std::strcmp(clforge_status_string(CLFORGE_INVALID_ARGUMENT), "invalid argument") == 0;
  std::printf("%d passed, %d failed\n", ok ? 1 : 0, ok ? 0 : 1);
  return ok ? 0 : 1;
}
