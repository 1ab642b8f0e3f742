/* Where clforge keeps files: the binary cache and the tuning files. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"

#ifndef CLFORGE_SYSTEM_DATADIR
#define CLFORGE_SYSTEM_DATADIR "/usr/local/share/clforge"
#endif

/* $XDG_CACHE_HOME (absolute only, per the XDG spec) or $HOME/.cache. */
static int xdg_cache_home(char *buf, size_t cap) {
  const char *xdg = getenv("XDG_CACHE_HOME");
  int n;
  if (xdg && xdg[0] == '/') n = snprintf(buf, cap, "%s", xdg);
  else {
    const char *home = getenv("HOME");
    if (!home || home[0] != '/') return -1;
    n = snprintf(buf, cap, "%s/.cache", home);
  }
  return (n < 0 || (size_t)n >= cap) ? -1 : 0;
}

static clforge_status put(char *buf, size_t cap, const char *a, const char *b) {
  int n = snprintf(buf, cap, "%s%s", a, b);
  if (n < 0 || (size_t)n >= cap)
    return clforge__fail(NULL, CLFORGE_BUFFER_TOO_SMALL, "path needs %d bytes, buffer holds %zu",
                         n + 1, cap);
  return CLFORGE_SUCCESS;
}

clforge_status clforge_path(clforge_path_kind kind, char *buf, size_t buf_size) {
  clforge__clear_error(NULL);
  if (!buf || buf_size == 0)
    return clforge__fail(NULL, CLFORGE_INVALID_ARGUMENT, "buf is NULL or buf_size is 0");
  char base[4096];
  const char *env;
  switch (kind) {
    case CLFORGE_PATH_BINARY_CACHE:
      env = getenv("CLFORGE_CACHE_DIR");
      if (env && *env) return put(buf, buf_size, env, "");
      if (xdg_cache_home(base, sizeof base)) return put(buf, buf_size, "off", "");
      return put(buf, buf_size, base, "/clforge/kernels");
    case CLFORGE_PATH_TUNING_FILE:
      env = getenv("CLFORGE_TUNING_FILE");
      if (env && *env) return put(buf, buf_size, env, "");
      if (xdg_cache_home(base, sizeof base)) return put(buf, buf_size, "off", "");
      return put(buf, buf_size, base, "/clforge/tuning.json");
    case CLFORGE_PATH_SYSTEM_TUNING_FILE:
      return put(buf, buf_size, CLFORGE_SYSTEM_DATADIR, "/tuning.json");
  }
  return clforge__fail(NULL, CLFORGE_INVALID_ARGUMENT, "unknown clforge_path_kind %d", (int)kind);
}
